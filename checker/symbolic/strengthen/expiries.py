"""The library under session expiries (``--max-session-expiries``, issue 29bd): what 29ac switched
off, kept where it still holds, and the facts a proof with a session expiry needs.

29ac switched off, under ``--max-session-expiries``, every fact BFS found false on some reachable
state with a session expiry (``shutdowns.OFF_UNDER_EXPIRIES``). Each was false only on states
after the expiry: before the first ControllerFenceBroker, the controller has lost no running
broker, and ControllerUnfenceBroker needs such a broker, so a state whose expiry counter is 0 was
reached by the steps of the configuration without the bound. (Not quite: the kernel drops the
in-order delivery of LeaderAndIsr under the bound, ``broker_become_leader_or_follower``, whatever
the counter; the facts that read the order already have their unordered forms, ``Dims.unordered``,
and BFS checks the rest.) So each holds in the form "no session expiry yet, or the fact":
``UNTIL_EXPIRY``, checked on every reachable state (docs/symbolic.md, "A session expiry proved by
induction").
"""

from __future__ import annotations

import dataclasses

import z3

from checker.symbolic.strengthen.base import Strengthening
from checker.symbolic.strengthen.history import epoch_claims, epoch_claims_z3

UNTIL_EXPIRY = (
    "stale-leader-still-leads", "epoch-bumps-crashed", "running-leaders-kept-leading",
    "quick-restarts-crashed", "replaced-leaders-crashed", "hw-behind-epoch-leader",
    "current-epoch-on-its-way", "offline-isr-restarted",
    "requests-to-live-brokers", "controller-isr-live", "leaderless-isr-is-last-leader",
    "kraft-stale-change-has-next-epoch", "kraft-running-leader-is-current",
    "answer-members-left-by-crash",
)
"""Facts 29ac switched off under session expiries that hold until the first one (module
docstring)."""


def until_expiry(holds: bool, s) -> bool:
    """The predicate's form: no session expiry yet, or the fact."""
    return s.session_expiries > 0 or holds


def until_expiry_z3(formula, s):
    return z3.Or(s.sexp > 0, formula)


AS_CRASHES = ("epoch-bumps-crashed", "quick-restarts-crashed", "replaced-leaders-crashed")
"""Facts that count a crash for each time the controller moved leadership, or for each broker
that lost it: a session expiry moves leadership as a crash does (ControllerFenceBroker runs
ControllerHandleBrokerFailure's cases, ``onBrokerFailure`` at 2.1.0; KRaft ``handleBrokerFenced``
at 3.5.0), once per expiry, so under session expiries they count the crashes and the expiries
together. Each form is the fact with the crash counter raised by the expiry counter; with no
expiry yet it is the fact."""


def with_expiries_as_crashes(s):
    """``s`` (a ``ClusterState``) with each session expiry counted as a crash."""
    return s._replace(crashes=s.crashes + s.session_expiries)


def with_expiries_as_crashes_z3(s):
    """``s`` (an ``SState``) likewise."""
    return dataclasses.replace(s, crashes=s.crashes + s.sexp)


BACK_ON = ("requests-to-live-brokers",)
"""Facts 29ac switched off under session expiries that hold there as written since issue 29ae
(the kernel's ControllerUnfenceBroker now drops the request its broker ignores, the one that made
them false on 29ac's BFS): on again."""


LONE = ("fetch-response-from-lone-leader-log", "named-lone-leader-holds-its-records",
        "kept-remote-leo-is-lone-follower-prefix")
"""Issue 29ba's facts with the wider "kept its log since" (``failovers._kept_alone``: no other
broker can have taken an epoch the broker may have been in since), on under session expiries too:
an expiry, like a failover, leaves epochs in between that nothing names any more (the fenced
broker is sent nothing, ``requests-to-live-brokers``), while a broker still truncates only against
a leader that took its epoch. ``failovers._kept_alone`` leans on ``history.never_took``, which a
restarted broker taking an older zombie view breaks; a session expiry leaves no such view (the
controller sends only its current state: ``onBrokerStartup`` at 2.1.0)."""


def _on(config) -> bool:
    return config.bounds.max_session_expiries > 0


def _lone_leader_keeps_later_epochs(s, config) -> bool:
    if not _on(config):
        return True
    for b, r in enumerate(s.replicas):
        if r.alive and r.leader == b and tuple(r.isr) == (b,):
            if any(x > r.leader_epoch and leader >= 0 and leader != b
                   for x, leader in epoch_claims(s)):
                return False
    return True


def _lone_leader_keeps_later_epochs_z3(d, s):
    if not d.expiries:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        alone = z3.And([r.isr[j] if j == b else z3.Not(r.isr[j]) for j in range(d.n)])
        lone = z3.And(r.alive, r.leader == b, alone)
        for present, x, leader in epoch_claims_z3(d, s):
            out.append(z3.Implies(z3.And(lone, present, x > r.lep, leader >= 0), leader == b))
    return z3.And(out)


def _moved_leader_out_of_later_isrs(s, config) -> bool:
    if not _on(config):
        return True
    c = s.controller
    views = [(e, leader, isr) for _, e, leader, isr in s.leader_and_isr]
    views.append((c.leader_epoch, c.leader, c.isr))
    for b, r in enumerate(s.replicas):
        led = [e for q, e, leader, _ in s.leader_and_isr if q == b and leader == b]
        if r.alive and r.leader == b:
            led.append(r.leader_epoch)
        if any(x > e and leader not in (b, -1) and b in isr for e in led for x, leader, isr in views):
            return False
    return True


def _moved_leader_out_of_later_isrs_z3(d, s):
    if not d.expiries:
        return z3.BoolVal(True)
    views = [(s.lai[q][x], x, s.lai_leader[q][x], s.lai_isr[q][x])
             for q in range(d.n) for x in range(len(s.lai[q]))]
    views.append((z3.BoolVal(True), s.c_epoch, s.c_leader, s.c_isr))
    out = []
    for b, r in enumerate(s.reps):
        led = [(z3.And(r.alive, r.leader == b), r.lep)]
        led += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == b), e) for e in range(len(s.lai[b]))]
        for leads, e in led:
            for present, x, leader, isr in views:
                out.append(z3.Implies(z3.And(leads, present, x > e, leader != b, leader != -1),
                                      z3.Not(isr[b])))
    return z3.And(out)


STRENGTHENINGS = (
    Strengthening("moved-leader-out-of-later-isrs", "under session expiries, a running broker "
                  "that leads an epoch, or that a request on its way makes leader of one, is out of the ISR of every later epoch (a request on its "
                  "way, the controller's) that names another leader: the controller moves "
                  "leadership from a running leader only by fencing it, which takes it out of "
                  "the ISR as a failure does (``onBrokerFailure`` -> offline election at 2.1.0, "
                  "the ISR of the live members; KRaft ``handleBrokerFenced`` at 3.5.0), and it "
                  "rejoins an ISR only by fetching from the new leader, in the new epoch (and "
                  "then drops the older request); a controlled shutdown likewise takes it out "
                  "of the ISR",
                  _moved_leader_out_of_later_isrs, _moved_leader_out_of_later_isrs_z3,
                  uses_config=True),
    Strengthening("lone-leader-keeps-later-epochs", "under session expiries, a running broker "
                  "that leads with an ISR of itself alone is the leader of every later epoch "
                  "that names one: it shrank the ISR to itself while its epoch was the "
                  "controller's (the write is a compare-and-set, ``Partition.maybeShrinkIsr`` -> "
                  "``updateIsr`` at 2.1.0; the kernel's ``isr_change_allowed``), so the controller "
                  "elects nobody else after it (a clean election picks from the ISR, a fence or "
                  "crash of the last member leaves it leaderless with that member, and the "
                  "member's return elects it); it holds without a session expiry too, where "
                  "next-leader-from-isr says it for the next epoch",
                  _lone_leader_keeps_later_epochs, _lone_leader_keeps_later_epochs_z3,
                  uses_config=True),
)
"""Facts only session expiries need (issue 29bd), each from a counterexample to induction."""
