"""Strengthening invariants for k-induction: facts every reachable state satisfies that the
target property alone does not say, so that a state satisfying them all cannot step out of the
property.

Each has a Python predicate over a ``ClusterState`` (the tests check it holds on every state the
explicit BFS reaches for small configurations: a strengthening invariant that is not itself an
invariant would make a proof unsound) and a z3 formula over an ``SState`` (checked to agree with
the predicate). The built-in properties can strengthen too (``--strengthen hw-le-leo``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3

from checker.symbolic.formulas import FORMULAS
from checker.symbolic.state import sel
from model.constants import NO_LEADER


@dataclass(frozen=True)
class Strengthening:
    name: str
    description: str
    check: Callable  # ClusterState -> bool
    formula: Callable  # (Dims, SState) -> z3 Bool


def _dead_replica_reset(s) -> bool:
    return all(r.alive or (r.leader_epoch == -1 and r.leader == NO_LEADER and not r.isr
                           and not r.truncating and not r.fetch_response)
               for r in s.replicas)


def _dead_replica_reset_z3(d, s):
    return z3.And([z3.Implies(z3.Not(r.alive), z3.And([r.lep == -1, r.leader == -1, z3.Not(r.truncating),
                                                         z3.Not(r.fr)] + [z3.Not(x) for x in r.isr]))
                   for r in s.reps])


def _epochs_le_controller(s) -> bool:
    c = s.controller
    return (all(r.leader_epoch <= c.leader_epoch for r in s.replicas)
            and all(e <= c.leader_epoch for _, e, _, _ in s.leader_and_isr))


def _epochs_le_controller_z3(d, s):
    out = [r.lep <= s.c_epoch for r in s.reps]
    out += [z3.Implies(s.lai[b][e], s.c_epoch >= e) for b in range(d.n) for e in range(len(s.lai[b]))]
    return z3.And(out)


def _record_ids_written(s) -> bool:
    w = s.records_written
    ids = [rid for r in s.replicas for rid, _ in r.log] + [rid for rid, _ in s.acked]
    ids += [rid for _, rid, _ in s.pending_acks]
    ids += [rid for r in s.replicas if r.fetch_response for rid, _ in r.fetch_response[3]]
    return all(1 <= rid <= w for rid in ids)


def _record_ids_written_z3(d, s):
    out = []
    for r in s.reps:
        out += [z3.Implies(i < r.leo, z3.And(r.log_id[i] >= 1, r.log_id[i] <= s.written))
                for i in range(d.slots)]
    out += [z3.Implies(z3.And(r.fr, i >= r.fr_offset, i < r.fr_leo),
                       z3.And(r.fr_id[i] >= 1, r.fr_id[i] <= s.written))
            for r in s.reps for i in range(d.slots)]
    out += [z3.Implies(z3.Or(s.acked[k], s.pend[k]), s.written >= k + 1) for k in range(d.records)]
    return z3.And(out)


def _acked_in_isr(s) -> bool:
    """Every acked record is in the log of every member of the controller's ISR, at its offset."""
    for b in s.controller.isr:
        log = s.replicas[b].log
        if not all(off < len(log) and log[off][0] == rid for rid, off in s.acked):
            return False
    return True


def _acked_in_isr_z3(d, s):
    out = []
    for b in range(d.n):
        r = s.reps[b]
        held = [z3.Implies(s.acked[k], z3.And(s.acked_off[k] < r.leo,
                                              sel(r.log_id, s.acked_off[k], -1) == k + 1))
                for k in range(d.records)]
        out.append(z3.Implies(s.c_isr[b], z3.And(held)))
    return z3.And(out)


def _requests_to_live_brokers(s) -> bool:
    return all(s.replicas[b].alive and e > s.replicas[b].leader_epoch
               for b, e, _, _ in s.leader_and_isr)


def _requests_to_live_brokers_z3(d, s):
    return z3.And([z3.Implies(s.lai[b][e], z3.And(s.reps[b].alive, s.reps[b].lep < e))
                   for b in range(d.n) for e in range(len(s.lai[b]))])


STRENGTHENINGS = {
    st.name: st
    for st in [
        Strengthening("dead-replica-reset", "a crashed broker has no role, epoch, ISR, truncation "
                      "or fetch response", _dead_replica_reset, _dead_replica_reset_z3),
        Strengthening("epochs-le-controller", "no broker and no LeaderAndIsr request is in an "
                      "epoch newer than the controller's", _epochs_le_controller,
                      _epochs_le_controller_z3),
        Strengthening("requests-to-live-brokers", "every LeaderAndIsr request in flight goes to a "
                      "live broker in an older epoch", _requests_to_live_brokers,
                      _requests_to_live_brokers_z3),
        Strengthening("record-ids-written", "every record id in a log, a fetch response, an ack "
                      "or a pending ack was written by the producer", _record_ids_written, _record_ids_written_z3),
        Strengthening("acked-in-isr", "every acked record is in the log of every member of the "
                      "controller's ISR, at the offset it was acked at", _acked_in_isr, _acked_in_isr_z3),
    ]
}


def formula_of(name: str):
    """The z3 formula of a strengthening invariant or a built-in property, or None."""
    if name in STRENGTHENINGS:
        return STRENGTHENINGS[name].formula
    return FORMULAS.get(name)


def check_of(name: str):
    """The Python predicate of a strengthening invariant or a built-in property."""
    if name in STRENGTHENINGS:
        return STRENGTHENINGS[name].check
    from properties import get_properties

    return get_properties([name])[0].check


def library_names() -> list:
    return list(STRENGTHENINGS) + list(FORMULAS)
