"""The liveness properties' ``P`` and ``Q`` (``properties/liveness.py``) as z3 formulas.

A liveness property ``P ~> Q`` is judged on infinite behaviours (``checker/symbolic/lasso.py``
searches for a lasso), but ``P`` and ``Q`` themselves are state predicates: each formula here is
the Python predicate of the same name read for the fixed-size ``SState``, true of a state's
encoding exactly when the predicate is true of the state (``tests/symbolic/test_lasso.py``
checks this on every reachable state of two configurations).

``LIVENESS_FORMULAS[name](d, config)`` gives ``(p, q)``, two functions of an ``SState``; ``p``
is ``None`` for the forms whose ``P`` is not a state predicate: ``eventually`` (``P`` is the
initial state) and ``always-eventually`` (``P`` is every state). The predicates that read the
configuration (``with_config``: ``acks``, ``min.insync.replicas``) read it here when the formula
is built, so the formula of a configuration is fixed.
"""

from __future__ import annotations

import z3

from checker.symbolic.formulas import true_leader_is
from checker.symbolic.state import Dims, SState, count, sel, zmin


def has_leader(d: Dims, s: SState):
    """``properties.liveness.has_leader``: ``ClusterState.true_leader()`` is a broker (the
    controller's leader, alive, acting on the controller's leader epoch)."""
    return z3.Or([true_leader_is(s, l) for l in range(d.n)])


def live_unfenced(s: SState, b: int):
    """``_live_unfenced``: broker ``b`` runs, the controller counts it alive (``c_live``: its
    ZooKeeper session or KRaft heartbeats are current) and it is not shutting down (``sd``, the
    constant False without ``--max-controlled-shutdowns``)."""
    return z3.And(s.reps[b].alive, s.c_live[b], z3.Not(s.reps[b].sd))


def accepts_writes(d: Dims, s: SState, acks: str, min_isr: int):
    """``properties.liveness.accepts_writes``: a true leader, and with acks=all its own ISR has at
    least min.insync.replicas members (``Partition.appendRecordsToLeader`` at 3.9.0-rc3:
    ``inSyncSize < minIsr && requiredAcks == -1`` throws NotEnoughReplicasException)."""
    if acks != "all":
        return has_leader(d, s)
    return z3.Or([z3.And(true_leader_is(s, l), count(s.reps[l].isr) >= min_isr)
                  for l in range(d.n)])


def all_acked_readable(d: Dims, s: SState):
    """``_all_acked_readable``: with no true leader, no record is acknowledged; with one, every
    acknowledged record is in its log at the offset it was acknowledged at, below its high
    watermark (consumers read up to the HW)."""
    out = [z3.And(z3.Not(has_leader(d, s)), z3.Not(z3.Or(s.acked)) if s.acked else z3.BoolVal(True))]
    for l in range(d.n):
        r = s.reps[l]
        readable = [z3.Implies(s.acked[k], z3.And(s.acked_off[k] < zmin(r.hw, r.leo),
                                                    sel(r.log_id, s.acked_off[k], -1) == k + 1))
                    for k in range(d.records)]
        out.append(z3.And([true_leader_is(s, l)] + readable))
    return z3.Or(out)


def unanswered(d: Dims, s: SState):
    """``_unanswered``: some produce request waits in a leader's purgatory (``pending_acks``)."""
    return z3.Or(s.pend) if s.pend else z3.BoolVal(False)


def live_isr_member(d: Dims, s: SState):
    """``live_isr_member``: a broker of the controller's ISR or (KIP-966) ELR is live and
    unfenced."""
    elr = s.elr or [z3.BoolVal(False)] * d.n
    return z3.Or([z3.And(z3.Or(s.c_isr[b], elr[b]), live_unfenced(s, b)) for b in range(d.n)])


def caught_up_outside_isr(d: Dims, s: SState):
    """``_caught_up_outside_isr``: a live, unfenced true leader and another live, unfenced broker
    outside the controller's ISR whose LEO is at least the leader's HW."""
    out = []
    for l in range(d.n):
        hw = s.reps[l].hw
        others = [z3.And(z3.Not(s.c_isr[b]), live_unfenced(s, b), s.reps[b].leo >= hw)
                  for b in range(d.n)]
        out.append(z3.And(true_leader_is(s, l), live_unfenced(s, l), z3.Or(others)))
    return z3.Or(out)


def full_isr(d: Dims, s: SState):
    """``_full_isr``: the controller's ISR holds every broker."""
    return z3.And(s.c_isr)


def every_broker_back(d: Dims, s: SState):
    """``_every_broker_back``: every broker runs, is live in the controller's view and is not
    shutting down."""
    return z3.And([live_unfenced(s, b) for b in range(d.n)])


def _bind(f, d):
    return lambda s: f(d, s)


def _writes(d, config):
    return lambda s: accepts_writes(d, s, config.acks, config.min_insync_replicas)


LIVENESS_FORMULAS = {
    "leader-eventually": lambda d, c: (_bind(live_isr_member, d), _bind(has_leader, d)),
    "isr-eventually-complete": lambda d, c: (
        _bind(caught_up_outside_isr, d), lambda s: z3.Not(caught_up_outside_isr(d, s))),
    "produce-eventually-answered": lambda d, c: (
        _bind(unanswered, d), lambda s: z3.Not(unanswered(d, s))),
    "isr-eventually-full": lambda d, c: (lambda s: z3.BoolVal(True), _bind(full_isr, d)),
    "writes-eventually-accepted": lambda d, c: (None, _writes(d, c)),
    "writes-accepted-once-brokers-return": lambda d, c: (_bind(every_broker_back, d), _writes(d, c)),
    "acked-eventually-visible": lambda d, c: (
        lambda s: z3.Not(all_acked_readable(d, s)), _bind(all_acked_readable, d)),
}
"""Every built-in liveness property's ``(P, Q)`` formulas, by name (``None`` for ``P``: the
property's form chooses ``P``, see the module docstring)."""
