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

from checker.symbolic import numbers as num
from checker.symbolic.state import count, sel
from model.constants import ALTER_ACCEPTED
from checker.symbolic.strengthen import kraft_epochs
from checker.symbolic.strengthen.isr_hw import _committed_view_z3
from checker.symbolic.strengthen.base import Strengthening, held_records, held_slots_z3
from checker.symbolic.strengthen.history import (epoch_claims, epoch_claims_z3,
                                                 follower_kept_log_since,
                                                 follower_kept_log_since_z3, never_took,
                                                 never_took_z3)

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


def _leaderless_isr_lost_last_leader(s, config) -> bool:
    elr = "eligible-leader-replicas" in config.rules  # KIP-966 may empty the ISR
    views = [(e, isr) for _, e, leader, isr in s.leader_and_isr if leader == -1]
    c = s.controller
    if c.leader == -1:
        views.append((c.leader_epoch, c.isr))
    claims = epoch_claims(s) + [(0, 0)]
    return all((elr or len(isr) >= 1) and all(tuple(isr) == (leader,) for x, leader in claims
                                     if x == e - 1 and leader >= 0 and leader in isr)
               for e, isr in views)


def _leaderless_isr_lost_last_leader_z3(d, s):
    views = [(z3.And(s.lai[b][e], s.lai_leader[b][e] == -1), e, s.lai_isr[b][e])
             for b in range(d.n) for e in range(len(s.lai[b]))]
    views.append((s.c_leader == -1, s.c_epoch, s.c_isr))
    claims = epoch_claims_z3(d, s) + [(z3.BoolVal(True), num.val(0), num.val(0))]
    out = []
    for leaderless, e, isr in views:
        if not d.elr:
            out.append(z3.Implies(leaderless, z3.Or(isr)))
        for present, x, leader in claims:
            for j in range(d.n):
                alone = z3.And([isr[m] if m == j else z3.Not(isr[m]) for m in range(d.n)])
                out.append(z3.Implies(z3.And(leaderless, present, x + 1 == e, leader == j, isr[j]),
                                      alone))
    return z3.And(out)


def _current_epoch_to_live_brokers(s, config) -> bool:
    c = s.controller
    sent = {(b, e) for b, e, _, _ in s.leader_and_isr}
    if not all((b, c.leader_epoch) in sent for b, r in enumerate(s.replicas)
               if r.alive and b in c.live_brokers and r.leader_epoch < c.leader_epoch):
        return False
    claims = epoch_claims(s)
    for b, r in enumerate(s.replicas):
        if not r.alive:
            continue
        mine = [e for q, e, _, _ in s.leader_and_isr if q == b]
        start = r.leader_epoch + 1 if r.leader_epoch >= 0 else min(mine, default=c.leader_epoch + 1)
        if any(start <= x <= c.leader_epoch and leader == b and (b, x) not in sent
               for x, leader in claims):
            return False
    return True


def _current_epoch_to_live_brokers_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        sent = z3.Or([z3.And(s.c_epoch == e, s.lai[b][e]) for e in range(len(s.lai[b]))])
        out.append(z3.Implies(z3.And(r.alive, s.c_live[b], r.lep < s.c_epoch), sent))
    claims = epoch_claims_z3(d, s)
    for b, r in enumerate(s.reps):
        for x in range(len(s.lai[b])):
            waited = z3.Or([s.lai[b][e] for e in range(x + 1)])
            after = z3.If(r.lep >= 0, r.lep < x, waited)
            named = z3.Or([z3.And(p, ce == x, cl == b) for p, ce, cl in claims])
            out.append(z3.Implies(z3.And(r.alive, after, s.c_epoch >= x, named), s.lai[b][x]))
    return z3.And(out)


def _offline_isr_not_live(s, config) -> bool:
    c = s.controller
    return (c.leader != -1 or c.leader_epoch >= config.bounds.max_leader_epoch
            or not set(c.isr) & set(c.live_brokers))


def _offline_isr_not_live_z3(d, s):
    return z3.And([z3.Implies(z3.And(s.c_leader == -1, s.c_isr[b], s.c_live[b]),
                              s.c_epoch >= d.max_epoch) for b in range(d.n)])


ALSO_AFTER = {
    "offline-isr-restarted": (_offline_isr_not_live, _offline_isr_not_live_z3),
    "current-epoch-on-its-way": (_current_epoch_to_live_brokers, _current_epoch_to_live_brokers_z3),
    "leaderless-isr-is-last-leader": (_leaderless_isr_lost_last_leader,
                                      _leaderless_isr_lost_last_leader_z3),
}
"""What facts of ``UNTIL_EXPIRY`` still say after the first session expiry, conjoined with their
until-expiry form. ``current-epoch-on-its-way``: for the brokers in the controller's live set
only, and only the controller's epoch: the controller sends nothing to a broker it has fenced,
and the current state to one that registers again (``onBrokerStartup`` at 2.1.0, the kernel's
``controller_register_broker``), so the epochs in between never reach it. But none of those
names it leader (it cannot be elected while fenced, and the fence of a leader elects another or
nobody), so every epoch after a running broker's own (after a restart, from the oldest request
on its way to it) up to the controller's that names it leader is on its way to it. ``leaderless-isr-is-last-leader``: a Kafka 2.1 leader adds a follower that
still fetches though the controller has fenced it (``Partition.maybeExpandIsr`` checks no
liveness before KIP-841), so when the leader then fails, the controller leaves the partition
leaderless with that follower as its ISR (``removeReplicasFromIsr`` removes the failed leader
from an ISR of two or more, at 2.1.0): the ISR is not the last leader, but it holds the last
leader only as its one member. The same holds with AlterPartition and in KRaft (where
``leaderless-isr-is-last-leader`` is off: a leader may add a follower that has died since it
fetched), but for an empty ISR under KIP-966's ELR: the controller makes a leaderless epoch only
by removing its failed leader (``target_isr_without``: out, or kept as the last member), and
while the partition has no leader its ISR only shrinks. ``offline-isr-restarted``: its first
clause, no member of a leaderless partition's ISR is live to the controller unless the epoch
budget is spent: the controller makes a leaderless epoch only when no live ISR member can lead,
and a member that registers (a restart, or an unfenced broker: ``onBrokerStartup`` at 2.1.0,
KRaft ``handleBrokerUnfenced``) is elected at once; a running member need not have restarted
(it was fenced)."""


def _on(config) -> bool:
    return config.bounds.max_session_expiries > 0


def _no_elr(config) -> bool:
    """KIP-966's ELR (4.1+) keeps a member the ISR lost electable (BFS, 4.1: the two facts below
    false on 888 and 737 of 49,365 states): off there."""
    return "eligible-leader-replicas" not in config.rules


def _isr_views_of_leaders(s, b: int) -> list:
    """(epoch, ISR) of each view of the controller's ISR that broker ``b`` holds as a leader:
    its own while it leads (unless an accepted AlterPartition answer or a KRaft change of its
    epoch is still to apply: the controller's ISR has moved on from it), a request on its way that
    makes it leader, its pending KRaft change (sent to the leader alone: the controller's latest
    ISR of that epoch; dropped when the broker takes a newer epoch), its accepted answer."""
    r = s.replicas[b]
    if not r.alive:
        return []
    views = [(e, tuple(isr)) for q, e, leader, isr in s.leader_and_isr if q == b and leader == b]
    accepted = bool(r.alter_partition) and r.alter_partition[0] == ALTER_ACCEPTED
    own_answer = accepted and r.alter_partition[2] == r.leader_epoch
    own_change = bool(r.partition_change) and r.partition_change[1] == r.leader_epoch
    if r.leader == b and not own_answer and not own_change:
        views.append((r.leader_epoch, tuple(r.isr)))
    if r.partition_change:
        views.append((r.partition_change[1], tuple(r.partition_change[0])))
    if accepted:
        views.append((r.alter_partition[2], tuple(r.alter_partition[1])))
    return views


def _isr_views_of_leaders_z3(d, s, b: int) -> list:
    """``_isr_views_of_leaders`` as (present, epoch, ISR) z3 terms."""
    r = s.reps[b]
    own_change = z3.And(r.chg, r.chg_ep == r.lep)
    own_answer = z3.And(r.alt == ALTER_ACCEPTED, r.alt_ep == r.lep)
    views = [(z3.And(r.alive, r.leader == b, z3.Not(own_answer), z3.Not(own_change)),
              r.lep, r.isr)]
    views += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == b), e, s.lai_isr[b][e])
              for e in range(len(s.lai[b]))]
    if d.kraft:
        views.append((z3.And(r.alive, r.chg), r.chg_ep, r.chg_isr))
    if d.alter:
        views.append((z3.And(r.alive, r.alt == ALTER_ACCEPTED), r.alt_ep, r.alt_isr))
    return views


def _lone_leader_keeps_later_epochs(s, config) -> bool:
    if not _on(config) or (not _no_elr(config) and s.session_expiries > 0):
        return True  # KIP-966: the fence of the lone leader elects from the ELR (issue 29bg)
    claims = epoch_claims(s)
    views = [(e, isr) for _, e, _, isr in s.leader_and_isr]
    views.append((s.controller.leader_epoch, s.controller.isr))
    for b in range(len(s.replicas)):
        for e, isr in _isr_views_of_leaders(s, b):
            if isr != (b,):
                continue
            if any(x > e and leader >= 0 and leader != b for x, leader in claims):
                return False
            if any(x > e and set(later) - {b} for x, later in views):
                return False
    return True


def _lone_leader_keeps_later_epochs_z3(d, s):
    if not d.expiries:
        return z3.BoolVal(True)
    if d.elr:  # issue 29bg: until the first expiry
        return z3.Or(s.sexp > 0, _lone_leader_keeps_later_epochs_body_z3(d, s))
    return _lone_leader_keeps_later_epochs_body_z3(d, s)


def _lone_leader_keeps_later_epochs_body_z3(d, s):
    claims = epoch_claims_z3(d, s)
    views = [(s.lai[q][x], x, s.lai_isr[q][x]) for q in range(d.n) for x in range(len(s.lai[q]))]
    views.append((z3.BoolVal(True), s.c_epoch, s.c_isr))
    out = []
    for b in range(d.n):
        def alone(isr, b=b):
            return z3.And([isr[j] if j == b else z3.Not(isr[j]) for j in range(d.n)])
        for present, e, isr in _isr_views_of_leaders_z3(d, s, b):
            leads = z3.And(present, alone(isr))
            for p, x, leader in claims:
                out.append(z3.Implies(z3.And(leads, p, x > e, leader >= 0), leader == b))
            for p, x, later in views:
                out.append(z3.Implies(z3.And(leads, p, x > e),
                                      z3.And([z3.Not(later[j]) for j in range(d.n) if j != b])))
    return z3.And(out)


def _moved_leader_out_of_later_isrs(s, config) -> bool:
    if not _on(config):
        return True
    elr = not _no_elr(config)  # KIP-966: elected back from the ELR (issue 29bg)
    c = s.controller
    views = [(e, isr) for _, e, _, isr in s.leader_and_isr]
    views.append((c.leader_epoch, c.isr))
    claims = epoch_claims(s)
    for b, r in enumerate(s.replicas):
        led = [e for q, e, leader, _ in s.leader_and_isr if q == b and leader == b]
        if r.alive and r.leader == b:
            led.append(r.leader_epoch)
        for e in led:
            moved = [x for x, leader in claims if x > e and leader not in (b, -1)]
            moved += [x for _, _, x in held_records(s) if x > e]  # written by x's leader
            back = [x for x, leader in claims if x > e and leader == b] if elr else []
            # under the ELR: elected back (an ELR winner's ISR is it alone), not added back
            if any(b in isr and any(x <= y and not (set(isr) == {b} and any(x < z <= y for z in back))
                                    for x in moved)
                   for y, isr in views):
                return False
    return True


def _moved_leader_out_of_later_isrs_z3(d, s):
    if not d.expiries:
        return z3.BoolVal(True)
    views = [(s.lai[q][x], x, s.lai_isr[q][x]) for q in range(d.n) for x in range(len(s.lai[q]))]
    views.append((z3.BoolVal(True), s.c_epoch, s.c_isr))
    claims = epoch_claims_z3(d, s)
    out = []
    for b, r in enumerate(s.reps):
        led = [(z3.And(r.alive, r.leader == b), r.lep)]
        led += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == b), e) for e in range(len(s.lai[b]))]
        for leads, e in led:
            moves = [z3.And(leads, p, x > e, leader != b, leader != -1) for p, x, leader in claims]
            moves += [z3.And(leads, p, x > e) for p, _, _, x in held_slots_z3(d, s)]
            xs = [x for _, x, _ in claims] + [x for _, _, _, x in held_slots_z3(d, s)]
            for moved, x in zip(moves, xs):
                for present, y, isr in views:
                    # issue 29bg: under KIP-966, unless an epoch after x and up to y names b
                    if not d.elr:
                        out.append(z3.Implies(z3.And(moved, present, x <= y), z3.Not(isr[b])))
                        continue
                    back = z3.Or([z3.And(p, leader == b, x < z, z <= y) for p, z, leader in claims])
                    alone = z3.And([z3.Not(isr[j]) for j in range(d.n) if j != b])
                    out.append(z3.Implies(z3.And(moved, present, x <= y, isr[b]),
                                          z3.And(back, alone)))
    return z3.And(out)


def _leaderless_after_running_leader_counted(s, config) -> bool:
    if not _on(config):
        return True
    # issue 29bg: under KIP-966 a handled crash takes a member out without a new epoch (3.6+)
    bound = s.session_expiries + (0 if _no_elr(config) else s.crashes)
    claims = epoch_claims(s)
    for b in range(len(s.replicas)):
        for e, isr in _isr_views_of_leaders(s, b):
            if (any(x == e + 1 and leader == -1 for x, leader in claims)
                    and len(isr) > bound):
                return False
    return True


def _leaderless_after_running_leader_counted_z3(d, s):
    if not d.expiries:
        return z3.BoolVal(True)
    bound = s.sexp + s.crashes if d.elr else s.sexp
    claims = epoch_claims_z3(d, s)
    out = []
    for b in range(d.n):
        for leads, e, isr in _isr_views_of_leaders_z3(d, s, b):
            leaderless_next = z3.Or([z3.And(p, x == e + 1, leader == -1) for p, x, leader in claims])
            out.append(z3.Implies(z3.And(leads, leaderless_next), count(isr) <= bound))
    return z3.And(out)


def _eligible_isr_live(s, config) -> bool:
    if not _on(config) or "isr-eligibility" not in config.rules:
        return True
    c = s.controller
    return len(c.isr) <= 1 or set(c.isr) <= set(c.live_brokers)


def _eligible_isr_live_z3(d, s):
    if not d.expiries or not d.eligibility:
        return z3.BoolVal(True)
    several = count(s.c_isr) > 1
    return z3.And([z3.Implies(z3.And(several, s.c_isr[b]), s.c_live[b]) for b in range(d.n)])


def _leaderless_live_member_counted(s, config) -> bool:
    if not _on(config) or _no_elr(config):
        return True
    c = s.controller
    if c.leader != -1:
        return True
    stuck = sum(1 for b, r in enumerate(s.replicas)
                if not r.alive and b in c.isr and b in c.live_brokers)
    lost = sum(1 for b, r in enumerate(s.replicas) if r.alive and b not in c.live_brokers)
    # issue 29bg: a running member live to the controller registered since too (one fault)
    up = sum(1 for b, r in enumerate(s.replicas) if r.alive and b in c.isr and b in c.live_brokers)
    # and a running ELR member live to it while the ISR is not empty (issue 29bg)
    waiting = sum(1 for b, r in enumerate(s.replicas)
                  if c.isr and r.alive and b in s.elr and b in c.live_brokers)
    # issue 29bj: and a broker down or waiting after a restart that no term above counts (its crash)
    crashed = sum(1 for b, r in enumerate(s.replicas)
                  if (not r.alive or r.leader_epoch == -1) and not (
                      (r.alive and b not in c.live_brokers) or (b in c.isr and b in c.live_brokers)
                      or (c.isr and r.alive and b in s.elr and b in c.live_brokers)))
    return lost + 2 * stuck + up + waiting + crashed <= s.crashes + s.session_expiries


def _leaderless_live_member_counted_z3(d, s):
    if not d.expiries or not d.elr:
        return z3.BoolVal(True)
    stuck = [z3.And(z3.Not(r.alive), s.c_isr[b], s.c_live[b]) for b, r in enumerate(s.reps)]
    lost = [z3.And(r.alive, z3.Not(s.c_live[b])) for b, r in enumerate(s.reps)]
    up = [z3.And(r.alive, s.c_isr[b], s.c_live[b]) for b, r in enumerate(s.reps)]
    waiting = [z3.And(z3.Or(s.c_isr), r.alive, s.elr[b], s.c_live[b]) for b, r in enumerate(s.reps)]
    # issue 29bj: a broker down or waiting after a restart that no term above counts
    crashed = [z3.And(z3.Or(z3.Not(r.alive), r.lep == -1),
                      z3.Not(z3.Or(lost[b], stuck[b], up[b], waiting[b])))
               for b, r in enumerate(s.reps)]
    return z3.Implies(s.c_leader == -1, count(lost) + 2 * count(stuck) + count(up)
                      + count(waiting) + count(crashed) <= s.crashes + s.sexp)


def _isr_within_pending_change(s, config) -> bool:
    if not _on(config):
        return True
    c = s.controller
    views = [(e, leader, isr) for _, e, leader, isr in s.leader_and_isr]  # issue 29bg: requests too
    views.append((c.leader_epoch, c.leader, c.isr))
    for e, leader, isr in views:
        if not never_took(s, leader, e):
            continue  # its leader may have added members
        for r in s.replicas:
            if (r.alive and r.partition_change and r.partition_change[1] == e - 1
                    and not (set(isr) <= set(r.partition_change[0]) or set(isr) == {leader})):
                return False
    return True


def _isr_within_pending_change_z3(d, s):
    if not d.expiries or not d.kraft:
        return z3.BoolVal(True)
    views = [(s.lai[q][x], num.val(x), s.lai_leader[q][x], s.lai_isr[q][x])
             for q in range(d.n) for x in range(len(s.lai[q]))]
    views.append((z3.BoolVal(True), s.c_epoch, s.c_leader, s.c_isr))
    out = []
    for present, e, leader, isr in views:
        waiting = z3.And(present, never_took_z3(d, s, leader, e))
        for r in s.reps:
            after = z3.And(r.alive, r.chg, r.chg_ep + 1 == e)
            within = z3.And([z3.Implies(isr[j], r.chg_isr[j]) for j in range(d.n)])
            alone = z3.And([isr[j] == (leader == j) for j in range(d.n)])
            out.append(z3.Implies(z3.And(waiting, after), z3.Or(within, alone)))
    return z3.And(out)


def _leader_views_of_own_epoch(r) -> list:
    """The ISRs a running leader knows the controller holds (or held last) for its own epoch: its
    committed view (its ISR, or the one its accepted AlterPartition answer carries) and its
    pending KRaft change of that epoch (the controller's latest ISR of it)."""
    a = r.alter_partition
    views = [tuple(a[1]) if a and a[0] == ALTER_ACCEPTED else tuple(r.isr)]
    if r.partition_change and r.partition_change[1] == r.leader_epoch:
        views.append(tuple(r.partition_change[0]))
    return views


def _later_request_isr_within_leader_view(s, config) -> bool:
    if not _on(config):
        return True
    for b, r in enumerate(s.replicas):
        if not (r.alive and r.leader == b):
            continue
        for q, e, leader, isr in s.leader_and_isr:
            if q == b and leader == b and e > r.leader_epoch and any(
                    not set(isr) <= set(view) for view in _leader_views_of_own_epoch(r)):
                return False
    return True


def _later_request_isr_within_leader_view_z3(d, s):
    if not d.expiries:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        leads = z3.And(r.alive, r.leader == b)
        views = [(z3.BoolVal(True), _committed_view_z3(d, r))]
        if d.kraft:
            views.append((z3.And(r.chg, r.chg_ep == r.lep), r.chg_isr))
        for e in range(len(s.lai[b])):
            later = z3.And(leads, s.lai[b][e], s.lai_leader[b][e] == b, r.lep < e)
            for present, view in views:
                out.append(z3.Implies(z3.And(later, present),
                                      z3.And([z3.Implies(s.lai_isr[b][e][j], view[j])
                                              for j in range(d.n)])))
    return z3.And(out)


def _change_of_own_epoch_on_its_leader(s, config) -> bool:
    if not _on(config):
        return True
    return all(r.leader == b for b, r in enumerate(s.replicas)
               if r.alive and r.partition_change and r.partition_change[1] == r.leader_epoch)


def _change_of_own_epoch_on_its_leader_z3(d, s):
    if not d.expiries or not d.kraft:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alive, r.chg, r.chg_ep == r.lep), r.leader == b)
                   for b, r in enumerate(s.reps)])


def _keeps_epoch_on_shrink(config) -> bool:
    return "kraft" in config.rules and "isr-shrink-keeps-leader-epoch" in config.rules


def _next_epoch_changes_leader(s, config) -> bool:
    if not _on(config) or not _keeps_epoch_on_shrink(config):
        return True
    claims = set(epoch_claims(s))
    return not any((x + 1, leader) in claims for x, leader in claims)


def _next_epoch_changes_leader_z3(d, s):
    if not d.expiries or not (d.kraft and d.shrink_keeps):
        return z3.BoolVal(True)
    claims = epoch_claims_z3(d, s)
    return z3.And([z3.Not(z3.And(p, q, a == b, y == x + 1))
                   for p, x, a in claims for q, y, b in claims])


def _request_isrs_grow_only_under_their_leader(s, config) -> bool:
    if not _on(config):
        return True
    c = s.controller
    sent = [(e, leader, isr) for _, e, leader, isr in s.leader_and_isr if never_took(s, leader, e)]
    views = sent + ([(c.leader_epoch, c.leader, c.isr)]
                    if never_took(s, c.leader, c.leader_epoch) else [])
    return all(set(isr) <= set(before) or set(isr) == {leader}
               for x, leader, isr in views for y, _, before in sent if y == x - 1)


def _request_isrs_grow_only_under_their_leader_z3(d, s):
    if not d.expiries:
        return z3.BoolVal(True)
    sent = [(z3.And(s.lai[q][x], never_took_z3(d, s, s.lai_leader[q][x], num.val(x))), num.val(x),
             s.lai_leader[q][x], s.lai_isr[q][x]) for q in range(d.n) for x in range(len(s.lai[q]))]
    views = sent + [(never_took_z3(d, s, s.c_leader, s.c_epoch), s.c_epoch, s.c_leader, s.c_isr)]
    out = []
    for p, x, leader, isr in views:
        for q, y, _, before in sent:
            within = z3.And([z3.Implies(isr[j], before[j]) for j in range(d.n)])
            alone = z3.And([isr[j] == (leader == j) for j in range(d.n)])
            out.append(z3.Implies(z3.And(p, q, y + 1 == x), z3.Or(within, alone)))
    return z3.And(out)


def _elr_isr_live(s, config) -> bool:
    if not _on(config) or _no_elr(config):
        return True
    return set(s.controller.isr) <= set(s.controller.live_brokers)


def _elr_isr_live_z3(d, s):
    if not d.expiries or not d.elr:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(s.c_isr[b], s.c_live[b]) for b in range(d.n)])


def _faults_move_leaders(config) -> bool:
    """``kraft_epochs._only_failed_leaders_bump`` with session expiries (issue 29bj): under
    KRaft with 3.6's isr-shrink-keeps-leader-epoch and Kafka's ordered elections, a new leader
    epoch after one with a leader is the controller's answer to that leader's crash or fence
    (``handleBrokerFenced`` runs the same ``generateLeaderAndIsrUpdates`` as a failure), and a
    follower's fence only shrinks the ISR. Only with process crashes, session expiries and
    29bc's stale metadata reads (the faults these facts were checked under; a stale read only
    proposes a member, which the controller refuses)."""
    rules = config.rules
    return (_on(config) and "kraft" in rules and "isr-shrink-keeps-leader-epoch" in rules
            and "alter-partition-shrink-bumps-leader-epoch" not in rules
            and "unordered-leader-moves" not in rules and config.crash_model == "process"
            and set(config.bounds.faults()) <= {"max_session_expiries", "max_stale_metadata_reads"})


def _faults_move_leaders_z3(d) -> bool:
    return (d.expiries and d.kraft and d.shrink_keeps and not d.shrink_bumps and d.ordered
            and not d.operators and not d.shutdowns and not d.power_loss and not d.disk_loss
            and not d.delayed and not d.failovers and not d.retries
            and not d.bumps and not d.consumer_restarts)


def _past_leaders_faulted(s, config) -> bool:
    if not _faults_move_leaders(config):
        return True
    return kraft_epochs._past_leaders_counted(s, s.crashes + s.session_expiries)


def _past_leaders_faulted_z3(d, s):
    if not _faults_move_leaders_z3(d):
        return z3.BoolVal(True)
    return kraft_epochs._past_leaders_counted_z3(d, s, s.crashes + s.sexp)


def _written_epochs_faulted(s, config) -> bool:
    if not _faults_move_leaders(config):
        return True
    return kraft_epochs._written_epochs_counted(s, config, s.crashes + s.session_expiries)


def _written_epochs_faulted_z3(d, s):
    if not _faults_move_leaders_z3(d):
        return z3.BoolVal(True)
    return kraft_epochs._written_epochs_counted_z3(d, s, s.crashes + s.sexp)


def _zk_elections_at_rf3(config) -> bool:
    """ZooKeeper mode at RF >= 3 under session expiries (issue 29br), with Kafka's ordered
    elections and no fault but crashes and expiries: where ``new-epoch-isr-lacks-a-replica``
    holds too (a new epoch's ISR comes from removing a broker: ``removeReplicasFromIsr``,
    ReplicaStateMachine.scala 301-303 at 2.1.0, or from an offline election, whose ISR is the live
    members of the old one, PartitionStateMachine.scala 405, and the failed leader is not live).
    RF=2 keeps its formula (``True`` there: its proofs unchanged)."""
    rules = config.rules
    return (_on(config) and config.replication_factor >= 3 and "kraft" not in rules
            and "unordered-leader-moves" not in rules and config.crash_model == "process"
            and set(config.bounds.faults()) <= {"max_session_expiries"})


def _zk_elections_at_rf3_z3(d) -> bool:
    return (d.expiries and d.n >= 3 and not d.kraft and d.ordered and not d.operators
            and not d.shutdowns and not d.power_loss and not d.disk_loss and not d.delayed
            and not d.failovers and not d.retries and not d.bumps and not d.consumer_restarts
            and not d.stale_reads)


def _new_epoch_isr_lacks_a_replica(s, config) -> bool:
    if not (_faults_move_leaders(config) or _zk_elections_at_rf3(config)):
        return True
    c = s.controller
    views = [(e, leader, isr) for _, e, leader, isr in s.leader_and_isr]
    views.append((c.leader_epoch, c.leader, c.isr))
    n = len(s.replicas)
    return all(len(set(isr)) < n for e, leader, isr in views
               if e >= 1 and never_took(s, leader, e))


def _new_epoch_isr_lacks_a_replica_z3(d, s):
    if not (_faults_move_leaders_z3(d) or _zk_elections_at_rf3_z3(d)):
        return z3.BoolVal(True)
    views = [(s.lai[q][x], num.val(x), s.lai_leader[q][x], s.lai_isr[q][x])
             for q in range(d.n) for x in range(1, len(s.lai[q]))]
    views.append((s.c_epoch >= 1, s.c_epoch, s.c_leader, s.c_isr))
    return z3.And([z3.Implies(z3.And(present, never_took_z3(d, s, leader, e)),
                              z3.Not(z3.And(list(isr))))
                   for present, e, leader, isr in views])


def _behind_member_in_previous_isr(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    c = s.controller
    leaders = [(r.leader_epoch, r.isr) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    views = leaders + [(e, isr) for _, e, _, isr in s.leader_and_isr] + [(c.leader_epoch, c.isr)]
    # a broker waiting after a restart with a request making it leader: while it waits, nobody
    # else changes that epoch's ISR (only its leader does)
    leaders += [(e, isr) for q, e, leader, isr in s.leader_and_isr
                if q == leader and s.replicas[q].alive and s.replicas[q].leader_epoch == -1]
    for e, isr in views:
        for f in isr:
            fr = s.replicas[f]
            if (fr.alive and 0 <= fr.leader_epoch < e
                    and any(y == e - 1 and f not in before for y, before in leaders)):
                return False
    return True


def _behind_member_in_previous_isr_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    leaders = [(z3.And(r.alive, r.leader == b), r.lep, r.isr) for b, r in enumerate(s.reps)]
    views = leaders + [(s.lai[q][x], num.val(x), s.lai_isr[q][x])
                       for q in range(d.n) for x in range(len(s.lai[q]))]
    views.append((z3.BoolVal(True), s.c_epoch, s.c_isr))
    waiting = [(z3.And(s.reps[q].alive, s.reps[q].lep == -1, s.lai[q][x], s.lai_leader[q][x] == q),
                num.val(x), s.lai_isr[q][x]) for q in range(d.n) for x in range(len(s.lai[q]))]
    out = []
    for p, e, isr in views:
        for q, y, before in leaders + waiting:
            for f, fr in enumerate(s.reps):
                behind = z3.And(fr.alive, fr.lep >= 0, fr.lep < e)
                out.append(z3.Implies(z3.And(p, q, y + 1 == e, isr[f], behind), before[f]))
    return z3.And(out)


def _waiting_leader_requests_shrink(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    for b, r in enumerate(s.replicas):
        if not (r.alive and r.leader_epoch == -1):
            continue
        mine = [(e, isr) for q, e, leader, isr in s.leader_and_isr if q == b and leader == b]
        if any(x < y and not (set(iy) <= set(ix) or set(iy) == {b})
               for x, ix in mine for y, iy in mine):
            return False
    return True


def _waiting_leader_requests_shrink_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        waiting = z3.And(r.alive, r.lep == -1)
        for x in range(len(s.lai[b])):
            for y in range(x + 1, len(s.lai[b])):
                both = z3.And(waiting, s.lai[b][x], s.lai_leader[b][x] == b,
                              s.lai[b][y], s.lai_leader[b][y] == b)
                ix, iy = s.lai_isr[b][x], s.lai_isr[b][y]
                within = z3.And([z3.Implies(iy[j], ix[j]) for j in range(d.n)])
                alone = z3.And([iy[j] == (j == b) for j in range(d.n)])
                out.append(z3.Implies(both, z3.Or(within, alone)))
    return z3.And(out)


def _pending_ack_epoch_led(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    claims = epoch_claims(s)
    for lead, rid, off in s.pending_acks:
        log = s.replicas[lead].log
        if off < len(log) and any(e == log[off][1] and leader not in (lead, -1)
                                  for e, leader in claims):
            return False
    return True


def _pending_ack_epoch_led_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    claims = epoch_claims_z3(d, s)
    out = []
    for k in range(d.records):
        for lead, lr in enumerate(s.reps):
            mine = z3.And(s.pend[k], s.pend_leader[k] == lead, s.pend_off[k] < lr.leo)
            ep = sel(lr.log_ep, s.pend_off[k], -1)
            out += [z3.Implies(mine, z3.Not(z3.And(p, e == ep, leader != lead, leader != -1)))
                    for p, e, leader in claims]
    return z3.And(out)


def _running_leader_out_of_later_leaderless_isrs(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    c = s.controller
    views = [(e, leader, isr) for _, e, leader, isr in s.leader_and_isr]
    views.append((c.leader_epoch, c.leader, c.isr))
    for b, r in enumerate(s.replicas):
        led = [r.leader_epoch] if r.alive and r.leader == b else []
        if r.alive and r.leader_epoch == -1:  # waiting: a request on its way makes it leader
            led += [e for q, e, leader, _ in s.leader_and_isr if q == b and leader == b]
        if any(y > e and leader == -1 and b in isr and set(isr) != {b}
               for e in led for y, leader, isr in views):
            return False
    return True


def _running_leader_out_of_later_leaderless_isrs_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    views = [(s.lai[q][x], num.val(x), s.lai_leader[q][x], s.lai_isr[q][x])
             for q in range(d.n) for x in range(len(s.lai[q]))]
    views.append((z3.BoolVal(True), s.c_epoch, s.c_leader, s.c_isr))
    out = []
    for b, r in enumerate(s.reps):
        led = [(z3.And(r.alive, r.leader == b), r.lep)]
        led += [(z3.And(r.alive, r.lep == -1, s.lai[b][e], s.lai_leader[b][e] == b), num.val(e))
                for e in range(len(s.lai[b]))]
        for leads, e in led:
            for present, y, leader, isr in views:
                alone = z3.And([z3.Not(isr[j]) for j in range(d.n) if j != b])
                out.append(z3.Implies(z3.And(leads, present, y > e, leader == -1, isr[b]), alone))
    return z3.And(out)


def _isr_fetcher_older_records_are_leaders(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    for lead, lr in enumerate(s.replicas):
        if not (lr.alive and lr.leader == lead):
            continue
        for f in lr.isr:
            if f == lead or lr.remote_log_end_offsets[f] < 0:
                continue
            if any(rec[1] < lr.leader_epoch and (i >= len(lr.log) or lr.log[i] != rec)
                   for i, rec in enumerate(s.replicas[f].log)):
                return False
    return True


def _isr_fetcher_older_records_are_leaders_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            fetched = z3.And(lr.alive, lr.leader == lead, lr.isr[f], lr.remote[f] >= 0)
            for i in range(d.slots):
                older = z3.And(i < fr.leo, fr.log_ep[i] < lr.lep)
                same = z3.And(i < lr.leo, lr.log_id[i] == fr.log_id[i], lr.log_ep[i] == fr.log_ep[i])
                out.append(z3.Implies(z3.And(fetched, older), same))
    return z3.And(out)


def _far_behind_member_in_previous_isrs(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    c = s.controller
    leading = [(r.leader_epoch, r.isr) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    sent = [(e, isr) for _, e, _, isr in s.leader_and_isr]
    for e, isr in leading + sent + [(c.leader_epoch, c.isr)]:
        for f in isr:
            if (never_took(s, f, e - 1)  # running in an older epoch, or waiting since one
                    and any(y == e - 1 and f not in before for y, before in sent + leading)):
                return False
    return True


def _far_behind_member_in_previous_isrs_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    leading = [(z3.And(r.alive, r.leader == b), r.lep, r.isr) for b, r in enumerate(s.reps)]
    sent = [(s.lai[q][x], num.val(x), s.lai_isr[q][x]) for q in range(d.n) for x in range(len(s.lai[q]))]
    out = []
    for p, e, isr in leading + sent + [(z3.BoolVal(True), s.c_epoch, s.c_isr)]:
        for q, y, before in sent + leading:
            for f in range(d.n):
                behind = _took_none_z3(d, s, f, e - 1)
                out.append(z3.Implies(z3.And(p, q, y + 1 == e, isr[f], behind), before[f]))
    return z3.And(out)


def _older_records_are_leaders(fr, lr) -> bool:
    return all(i < len(lr.log) and lr.log[i] == rec for i, rec in enumerate(fr.log)
               if rec[1] < lr.leader_epoch)


def _older_records_are_leaders_z3(d, fr, lr):
    return z3.And([z3.Implies(z3.And(i < fr.leo, fr.log_ep[i] < lr.lep),
                              z3.And(i < lr.leo, lr.log_id[i] == fr.log_id[i],
                                     lr.log_ep[i] == fr.log_ep[i]))
                   for i in range(d.slots)])


def _full_isr_has_a_caught_up_member(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    n = len(s.replicas)
    led = [(b, r.leader_epoch, r.isr) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    # a broker waiting to lead its epoch again (2.1's restart into its own epoch): the request
    # carries the ISR it had grown (sent at its registration), its log is the one it had
    led += [(b, e, isr) for b, e, leader, isr in s.leader_and_isr
            if leader == b and s.replicas[b].alive and s.replicas[b].leader_epoch == -1]
    for lead, e, isr in led:
        lr = s.replicas[lead]._replace(leader_epoch=e)
        if (e >= 1 and len(set(isr)) == n
                and not any(_older_records_are_leaders(fr, lr)
                            and (not fr.alive or fr.leader_epoch == -1 or fr.leader_epoch >= e)
                            for f, fr in enumerate(s.replicas) if f != lead)):
            return False
    return True


def _full_isr_has_a_caught_up_member_z3(d, s):
    import dataclasses as dc

    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        led = [(z3.And(lr.alive, lr.leader == lead), lr.lep, lr.isr)]
        led += [(z3.And(lr.alive, lr.lep == -1, s.lai[lead][e], s.lai_leader[lead][e] == lead),
                 num.val(e), s.lai_isr[lead][e]) for e in range(len(s.lai[lead]))]
        for leads, e, isr in led:
            view = dc.replace(lr, lep=e)
            full = z3.And([leads, e >= 1] + list(isr))
            some = z3.Or([z3.And(_older_records_are_leaders_z3(d, fr, view),
                                 z3.Or(z3.Not(fr.alive), fr.lep == -1, fr.lep >= e))
                          for f, fr in enumerate(s.reps) if f != lead])
            out.append(z3.Implies(full, some))
    return z3.And(out)


def _added_past_untaken_request_caught_up(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    for lead, lr in enumerate(s.replicas):
        if not (lr.alive and lr.leader == lead):
            continue
        e = lr.leader_epoch
        views = [isr for _, x, leader, isr in s.leader_and_isr
                 if x == e - 1 and never_took(s, leader, x)]
        for f in lr.isr:
            if (f != lead and any(f not in v for v in views)
                    and follower_kept_log_since(s, f, lead, e)):
                log = s.replicas[f].log
                if any(rec[1] < e and (i >= len(log) or log[i] != rec)
                       for i, rec in enumerate(lr.log)):
                    return False
    return True


def _added_past_untaken_request_caught_up_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        for q in range(d.n):
            for x in range(len(s.lai[q])):
                view = z3.And(lr.alive, lr.leader == lead, s.lai[q][x], num.val(x) + 1 == lr.lep,
                              never_took_z3(d, s, s.lai_leader[q][x], num.val(x)))
                for f, fr in enumerate(s.reps):
                    if f == lead:
                        continue
                    added = z3.And(view, lr.isr[f], z3.Not(s.lai_isr[q][x][f]),
                                   follower_kept_log_since_z3(d, s, f, lead, lr.lep))
                    held = [z3.Implies(z3.And(i < lr.leo, lr.log_ep[i] < lr.lep),
                                       z3.And(i < fr.leo, fr.log_id[i] == lr.log_id[i],
                                              fr.log_ep[i] == lr.log_ep[i]))
                            for i in range(d.slots)]
                    out.append(z3.Implies(added, z3.And(held)))
    return z3.And(out)


def _took_none_z3(d, s, f: int, e):
    """``never_took(s, f, e)`` for a broker ``f``: running, and in an epoch older than ``e``, or
    waiting after a restart with a request older than ``e`` on its way (it restarted then)."""
    r = s.reps[f]
    waits = z3.Or([z3.And(s.lai[f][x], x < e) for x in range(len(s.lai[f]))])
    return z3.And(r.alive, z3.If(r.lep >= 0, r.lep < e, waits))


def _behind_member_in_every_request_of_its_epoch(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    c = s.controller
    current = [(c.leader_epoch, c.isr)]
    current += [(r.leader_epoch, r.isr) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    for e, isr in current:
        for f in isr:
            if (never_took(s, f, e)
                    and any(x == e and f not in sent for _, x, _, sent in s.leader_and_isr)):
                return False
    return True


def _behind_member_in_every_request_of_its_epoch_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    current = [(z3.BoolVal(True), s.c_epoch, s.c_isr)]
    current += [(z3.And(r.alive, r.leader == b), r.lep, r.isr) for b, r in enumerate(s.reps)]
    out = []
    for p, e, isr in current:
        for q in range(d.n):
            for x in range(len(s.lai[q])):
                for f in range(d.n):
                    out.append(z3.Implies(z3.And(p, s.lai[q][x], num.val(x) == e, isr[f],
                                                 _took_none_z3(d, s, f, e)),
                                          s.lai_isr[q][x][f]))
    return z3.And(out)


def _untaken_epoch_one_isr(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    c = s.controller
    views = [(c.leader_epoch, c.leader, set(c.isr))]
    views += [(e, leader, set(isr)) for _, e, leader, isr in s.leader_and_isr]
    return not any(leader >= 0 and never_took(s, leader, e) and e2 == e and isr2 != isr
                   for e, leader, isr in views for e2, _, isr2 in views)


def _untaken_epoch_one_isr_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    views = [(z3.BoolVal(True), s.c_epoch, s.c_leader, s.c_isr)]
    views += [(s.lai[b][e], num.val(e), s.lai_leader[b][e], s.lai_isr[b][e])
              for b in range(d.n) for e in range(len(s.lai[b]))]
    out = []
    for i, (p, e, leader, isr) in enumerate(views):
        untaken = z3.And(p, leader >= 0, never_took_z3(d, s, leader, e))
        for j, (p2, e2, _, isr2) in enumerate(views):
            if i != j:
                out.append(z3.Implies(z3.And(untaken, p2, e2 == e),
                                      z3.And([x == y for x, y in zip(isr, isr2)])))
    return z3.And(out)


def _renamed_leader_remote_leo_is_follower_prefix(s, config) -> bool:
    from checker.symbolic.strengthen.history import upto_epoch

    if not _zk_elections_at_rf3(config):
        return True
    claims = epoch_claims(s)
    for lead, lr in enumerate(s.replicas):
        if not (lr.alive and lr.leader == lead):
            continue
        for f, fr in enumerate(s.replicas):
            m = lr.remote_log_end_offsets[f]
            if f == lead or m < 0 or not fr.alive:
                continue
            upto = upto_epoch(s, f)
            if not any(y > lr.leader_epoch and y >= upto and leader == lead for y, leader in claims):
                continue
            if any(i >= len(fr.log) or fr.log[i] != lr.log[i] for i in range(min(m, len(lr.log)))):
                return False
    return True


def _renamed_leader_remote_leo_is_follower_prefix_z3(d, s):
    from checker.symbolic.strengthen.history import upto_epoch_z3

    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    claims = epoch_claims_z3(d, s)
    out = []
    for lead, lr in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            upto = upto_epoch_z3(s, f)
            renamed = z3.Or([z3.And(p, y > lr.lep, y >= upto, leader == lead) for p, y, leader in claims])
            known = z3.And(lr.alive, lr.leader == lead, fr.alive, lr.remote[f] >= 0, renamed)
            for i in range(d.slots):
                out.append(z3.Implies(z3.And(known, i < lr.remote[f], i < lr.leo),
                                      z3.And(i < fr.leo, fr.log_id[i] == lr.log_id[i],
                                             fr.log_ep[i] == lr.log_ep[i])))
    return z3.And(out)


def _leader_holds_earlier_hw(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    for lead, lr in enumerate(s.replicas):
        if not (lr.alive and lr.leader == lead):
            continue
        e = lr.leader_epoch
        for f, fr in enumerate(s.replicas):
            if f == lead or not fr.alive or fr.leader_epoch < 0:
                continue
            if not (fr.leader_epoch <= e or (fr.truncating and fr.leader_epoch == e + 1)):
                continue
            if any(rec[1] < e and (i >= len(lr.log) or lr.log[i] != rec)
                   for i, rec in enumerate(fr.log[:fr.high_watermark])):
                return False
    return True


def _leader_holds_earlier_hw_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            earlier = z3.And(lr.alive, lr.leader == lead, fr.alive, fr.lep >= 0,
                             z3.Or(fr.lep <= lr.lep, z3.And(fr.truncating, fr.lep == lr.lep + 1)))
            for i in range(d.slots):
                below = z3.And(earlier, i < fr.hw, i < fr.leo, fr.log_ep[i] < lr.lep)
                out.append(z3.Implies(below, z3.And(i < lr.leo, lr.log_id[i] == fr.log_id[i],
                                                    lr.log_ep[i] == fr.log_ep[i])))
    return z3.And(out)


def _later_leaders_hold_older_acked(s, config) -> bool:
    from checker.symbolic.strengthen.acks import _leaders_hold_older_acked

    return not _zk_elections_at_rf3(config) or _leaders_hold_older_acked(s, config, gate=False)


def _later_leaders_hold_older_acked_z3(d, s):
    from checker.symbolic.strengthen.acks import _leaders_hold_older_acked_z3

    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    return _leaders_hold_older_acked_z3(d, s, gate=False)


def _epoch_hw_behind_its_leader(s, config) -> bool:
    if not _zk_elections_at_rf3(config):
        return True
    led = [(b, r.leader_epoch) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    # a broker waiting after a restart that a request makes leader of its own epoch (2.1): its HW
    # is the one it had (a process crash keeps it)
    led += [(b, e) for b, e, leader, _ in s.leader_and_isr
            if leader == b and s.replicas[b].alive and s.replicas[b].leader_epoch == -1]
    for lead, e in led:
        lr = s.replicas[lead]
        for f, fr in enumerate(s.replicas):
            if (f != lead and fr.alive and 0 <= fr.leader_epoch <= e
                    and any(rec[1] == e and i >= lr.high_watermark
                            for i, rec in enumerate(fr.log[:fr.high_watermark]))):
                return False
    return True


def _epoch_hw_behind_its_leader_z3(d, s):
    if not _zk_elections_at_rf3_z3(d):
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        led = [(z3.And(lr.alive, lr.leader == lead), lr.lep)]
        led += [(z3.And(lr.alive, lr.lep == -1, s.lai[lead][e], s.lai_leader[lead][e] == lead),
                 num.val(e)) for e in range(len(s.lai[lead]))]
        for leads, e in led:
            for f, fr in enumerate(s.reps):
                if f == lead:
                    continue
                pair = z3.And(leads, fr.alive, fr.lep >= 0, fr.lep <= e)
                for i in range(d.slots):
                    covered = z3.And(pair, i < fr.hw, i < fr.leo, fr.log_ep[i] == e)
                    out.append(z3.Implies(covered, i < lr.hw))
    return z3.And(out)


def _leaderless_isr_empty(s, config) -> bool:
    if not _faults_move_leaders(config) or _no_elr(config):
        return True
    return s.controller.leader != -1 or not s.controller.isr


def _leaderless_isr_empty_z3(d, s):
    if not _faults_move_leaders_z3(d) or not d.elr:
        return z3.BoolVal(True)
    return z3.Implies(s.c_leader == -1, z3.Not(z3.Or(list(s.c_isr))))


STRENGTHENINGS = (
    Strengthening("elr-leaderless-isr-empty", "under session expiries with KIP-966's ELR (4.1; "
                  "issue 29bj), while the controller has no leader its ISR is empty: a fence or "
                  "a handled failure takes the broker out of the ISR even as its last member "
                  "(``generateLeaderAndIsrUpdates`` with ``setEligibleLeaderReplicasEnabled``, "
                  "``ReplicationControlManager`` at 3.9.0-rc3; the kernel's "
                  "``target_isr_without``), the election that follows picks any ISR member left "
                  "(every one is live: elr-isr-live, KIP-841), so the partition is left without "
                  "a leader only with an empty ISR, and without a leader nobody adds a member (an "
                  "AlterPartition comes from the leader; a registration elects)",
                  _leaderless_isr_empty, _leaderless_isr_empty_z3, uses_config=True),
    Strengthening("new-epoch-isr-lacks-a-replica", "under session expiries on KRaft 3.6+ "
                  "(isr-shrink-keeps-leader-epoch, Kafka's elections; issue 29bj), the ISR of a "
                  "leader epoch after the first, as a LeaderAndIsr on its way or the controller "
                  "carries it, while that epoch's leader has not taken it, lacks some replica: "
                  "the controller makes a new leader epoch only by removing the leader (its "
                  "failure, its fence, its unclean restart: ``generateLeaderAndIsrUpdates`` with "
                  "``brokerToRemove``, the target ISR ``Replicas.copyWithout(partition.isr, ...)``, "
                  "``ReplicationControlManager`` at 3.8.0), which leaves the ISR, or by electing a "
                  "broker for a leaderless partition (``handleBrokerUnfenced``: the ISR kept, which "
                  "lacks the last leader, or under KIP-966 the winner alone), and only the leader "
                  "of the current epoch adds members, once it has taken the epoch; and in "
                  "ZooKeeper mode at RF >= 3 (issue 29br): the controller's new epoch removes a "
                  "broker (``removeReplicasFromIsr``, ReplicaStateMachine.scala 301-303 at 2.1.0: "
                  "the ISR without it, or its last member kept) or elects from the live members "
                  "of the ISR (``leaderForOffline``, PartitionStateMachine.scala 405 at 2.1.0), "
                  "which lack the failed or fenced leader",
                  _new_epoch_isr_lacks_a_replica, _new_epoch_isr_lacks_a_replica_z3,
                  uses_config=True),
    Strengthening("behind-isr-member-in-previous-isr", "under session expiries in ZooKeeper mode "
                  "at RF >= 3 (issue 29br), a running member of an ISR of epoch e (a running "
                  "leader's, a LeaderAndIsr's on its way, the controller's) that is in an older "
                  "epoch than e (it has not taken e) is in "
                  "the ISR of every running leader of e - 1 (and of a LeaderAndIsr of e - 1 "
                  "on its way to a broker waiting after a restart that it makes leader: while "
                  "that broker waits nobody changes e - 1's ISR): e's leader took its ISR "
                  "from its LeaderAndIsr (``Partition.makeLeader``, Partition.scala 372 at 2.1.0) "
                  "and adds a follower only after a fetch of its own epoch "
                  "(``maybeExpandIsr``, 500; an older epoch's fetch is FENCED_LEADER_EPOCH, "
                  "``checkCurrentLeaderEpoch`` 212-224, KIP-320), so such a member was in the "
                  "ISR the controller gave the epoch, which is the previous epoch's less the "
                  "removed broker (``removeReplicasFromIsr``, ReplicaStateMachine.scala 301-303; "
                  "``leaderForOffline``, PartitionStateMachine.scala 405), and the previous "
                  "leader's ISR changes are a compare-and-set on the zkVersion (``updateIsr``, "
                  "Partition.scala 963-975), refused once the controller has moved on",
                  _behind_member_in_previous_isr, _behind_member_in_previous_isr_z3,
                  uses_config=True),
    Strengthening("waiting-leader-requests-shrink", "under session expiries in ZooKeeper mode at "
                  "RF >= 3 (issue 29br), of two LeaderAndIsr on their way to a broker waiting "
                  "after a restart that both name it leader, the later one's ISR is within the "
                  "earlier one's, or is the broker alone: it has taken no epoch since its "
                  "restart, so it has fetched from nobody and added nobody; the controller moves "
                  "leadership away from it only by removing it from the ISR (a failure or a fence: "
                  "``removeReplicasFromIsr``, ReplicaStateMachine.scala 301-303 at 2.1.0; the "
                  "offline election's ISR is the live members, PartitionStateMachine.scala 405), "
                  "and it rejoins an ISR only by fetching, so every epoch in between named it "
                  "leader and only removed members (or kept it as the last one, elected back at "
                  "its registration)",
                  _waiting_leader_requests_shrink, _waiting_leader_requests_shrink_z3,
                  uses_config=True),
    Strengthening("pending-ack-epoch-led", "under session expiries in ZooKeeper mode at RF >= 3 "
                  "(issue 29br), the record of a pending acknowledgement is, in its leader's log, "
                  "of an epoch no LeaderAndIsr on its way, running broker or the controller names "
                  "another leader of: the leader appended it in an epoch it led "
                  "(``Partition.appendRecordsToLeader`` with its ``leaderEpoch``, Partition.scala 727 "
                  "at 2.1.0) and parked the request in its own purgatory (``ReplicaManager."
                  "appendRecords``, ``DelayedProduce``, ReplicaManager.scala 459-485), and each epoch has one leader "
                  "(``LeaderAndIsr.newLeaderAndIsr``, LeaderAndIsr.scala 39: a new leader is a new "
                  "epoch)",
                  _pending_ack_epoch_led, _pending_ack_epoch_led_z3, uses_config=True),
    Strengthening("running-leader-out-of-later-leaderless-isrs", "under session expiries in "
                  "ZooKeeper mode at RF >= 3 (issue 29br), a running leader (or a broker waiting "
                  "after a restart that a LeaderAndIsr on its way makes leader) is in the ISR of no "
                  "leaderless epoch later than its own (as a LeaderAndIsr on its way or the "
                  "controller carries it) unless that ISR is it alone: it has taken no later "
                  "epoch, so it fetched in none and was added to none; the controller takes "
                  "leadership from it only by removing it (its fence: ``removeReplicasFromIsr``, "
                  "ReplicaStateMachine.scala 301-303 at 2.1.0, NoLeader and the ISR without it "
                  "unless it is the last member), and an epoch that keeps it as leader removes "
                  "another member or none",
                  _running_leader_out_of_later_leaderless_isrs,
                  _running_leader_out_of_later_leaderless_isrs_z3, uses_config=True),
    Strengthening("isr-fetcher-older-records-are-leaders", "under session expiries in ZooKeeper "
                  "mode at RF >= 3 (issue 29br), a member of a running leader's ISR whose LEO the "
                  "leader knows (it fetched from the leader in the leader's epoch) holds, of epochs "
                  "older than the leader's, only the leader's records at their offsets: before its "
                  "first fetch in the epoch it truncated to the leader's log "
                  "(``AbstractFetcherThread.maybeTruncate``, 174-191, on the leader's OffsetsForLeaderEpoch "
                  "answer, KIP-101/KIP-279, at 2.1.0), and a later leader it may follow since has "
                  "no older record this leader lacks within one crash and one expiry (checked on "
                  "every reachable state at these bounds only; with more faults a later leader "
                  "that skipped this epoch may bring one back)",
                  _isr_fetcher_older_records_are_leaders, _isr_fetcher_older_records_are_leaders_z3,
                  uses_config=True),
    Strengthening("far-behind-isr-member-in-previous-isrs", "under session expiries in ZooKeeper "
                  "mode at RF >= 3 (issue 29br), a running member of an ISR of epoch e (a running "
                  "leader's, a LeaderAndIsr's on its way, the controller's) that is in an epoch "
                  "older than e - 1 (or waiting after a restart in one) is in the ISR of every "
                  "view of epoch e - 1 (a LeaderAndIsr's, "
                  "a running leader's): it took neither epoch, so it fetched in neither and was "
                  "added to neither (``maybeExpandIsr`` after a fetch of the leader's own epoch, "
                  "Partition.scala 500 at 2.1.0; ``checkCurrentLeaderEpoch`` 212-224); it was in "
                  "e - 1's first ISR and was never taken out of it (a shrink is for good without "
                  "a fetch; the controller's removal makes e without it: ``removeReplicasFromIsr``, "
                  "ReplicaStateMachine.scala 301-303), so every snapshot of e - 1's ISR holds it",
                  _far_behind_member_in_previous_isrs, _far_behind_member_in_previous_isrs_z3,
                  uses_config=True),
    Strengthening("full-isr-has-a-caught-up-member", "under session expiries in ZooKeeper mode "
                  "at RF >= 3 (issue 29br), a running leader of an epoch after the first whose ISR "
                  "holds every replica has a member besides itself that took the epoch (or is down "
                  "or restarted since) and whose records of older epochs "
                  "are all the leader's, at their offsets: the epoch's first ISR lacked a replica "
                  "(new-epoch-isr-lacks-a-replica), so the leader added one (``maybeExpandIsr``, "
                  "Partition.scala 500 at 2.1.0) after its fetch in the epoch, before which it "
                  "truncated to the leader's log (``AbstractFetcherThread.maybeTruncate``, 174-191)",
                  _full_isr_has_a_caught_up_member, _full_isr_has_a_caught_up_member_z3,
                  uses_config=True),
    Strengthening("added-past-untaken-request-caught-up", "under session expiries in ZooKeeper "
                  "mode at RF >= 3 (issue 29br), added-members-caught-up against a LeaderAndIsr "
                  "of the epoch before whose leader has not taken that epoch: a member of a "
                  "running leader's ISR that is out of such a request's ISR (and cannot have "
                  "truncated since it fetched) holds the leader's records from before its epoch: "
                  "while an epoch's leader has not taken it its ISR only shrinks (only the "
                  "leader adds, ``maybeExpandIsr``, Partition.scala 500 at 2.1.0), so the next "
                  "epoch's first ISR is within that request's (``removeReplicasFromIsr``, "
                  "ReplicaStateMachine.scala 301-303; ``leaderForOffline``, "
                  "PartitionStateMachine.scala 405), and the member was added after a fetch in "
                  "the leader's epoch, which truncated it to the leader's log",
                  _added_past_untaken_request_caught_up, _added_past_untaken_request_caught_up_z3,
                  uses_config=True),
    Strengthening("behind-member-in-every-request-of-its-epoch", "under session expiries in "
                  "ZooKeeper mode at RF >= 3 (issue 29br), a running member of the controller's ISR "
                  "or of a running leader's, in an epoch older than that ISR's (or waiting after "
                  "a restart with an older request on its way: it restarted then), is in the ISR of "
                  "every LeaderAndIsr on its way of that epoch: it has not taken the epoch, so it "
                  "was never added in it (``maybeExpandIsr`` after a fetch of the epoch, "
                  "Partition.scala 500 at 2.1.0; ``checkCurrentLeaderEpoch`` 212-224) and was in "
                  "its first ISR; a shrink would have taken it out for good (no fetch to add it "
                  "back), so it is in every snapshot of the epoch's ISR the controller sent",
                  _behind_member_in_every_request_of_its_epoch,
                  _behind_member_in_every_request_of_its_epoch_z3, uses_config=True),
    Strengthening("untaken-epoch-one-isr", "under session expiries in ZooKeeper mode at RF >= 3 "
                  "(issue 29br), failovers' untaken-epoch-isr-agrees without a zombie: the views "
                  "of a leader epoch whose leader has not taken it (the controller's, each "
                  "LeaderAndIsr on its way) carry one ISR: the controller writes an epoch's ISR "
                  "when it makes the epoch and changes it only with a new one "
                  "(``LeaderAndIsr.newLeaderAndIsr``, LeaderAndIsr.scala 39 at 2.1.0, from "
                  "``removeReplicasFromIsr`` and the elections), and within an epoch only its "
                  "leader changes it (``Partition.updateIsr``, Partition.scala 963-975)",
                  _untaken_epoch_one_isr, _untaken_epoch_one_isr_z3, uses_config=True),
    Strengthening("renamed-leader-remote-leo-is-follower-prefix", "under session expiries in "
                  "ZooKeeper mode at RF >= 3 (issue 29br), a running leader that is named (by a "
                  "LeaderAndIsr on its way, a running broker or the controller) leader of a later "
                  "epoch, at or after a follower's (for a waiting follower, the epoch of its oldest "
                  "request), knows that follower's LEO only over records the follower holds: "
                  "leadership leaves a running leader only by taking it out of the ISR "
                  "(``removeReplicasFromIsr``, ReplicaStateMachine.scala 301-303 at 2.1.0; the "
                  "offline election's live ISR, PartitionStateMachine.scala 405), and without "
                  "taking a later epoch it cannot rejoin, so it led every epoch since its own up "
                  "to the later one; the follower fetched those records from it and has followed "
                  "no other leader since, so it truncated none of them (a crash keeps the log). "
                  "kept-remote-leo-is-follower-prefix says so where the state shows the follower "
                  "kept its log; this is the case where the leader's later epoch shows it",
                  _renamed_leader_remote_leo_is_follower_prefix,
                  _renamed_leader_remote_leo_is_follower_prefix_z3, uses_config=True),
    Strengthening("leader-holds-earlier-hw", "under session expiries in ZooKeeper mode at RF >= 3 "
                  "(issue 29br), a running leader of epoch e holds, at their offsets, the records "
                  "of epochs before e below the HW of a running broker in an epoch up to e (or "
                  "still truncating on taking e + 1: it has fetched nothing in it): that HW was "
                  "set in an epoch up to e (a follower's HW comes from its leader's fetch "
                  "response, ``ReplicaFetcherThread.processPartitionData`` at 2.1.0, and a leader "
                  "only raises its own), so those records were committed then, by an ISR every "
                  "later leader came from (a clean election picks from the ISR, "
                  "PartitionStateMachine.scala 405; unclean election off), or the HW is this "
                  "leader's own",
                  _leader_holds_earlier_hw, _leader_holds_earlier_hw_z3, uses_config=True),
    Strengthening("later-leaders-hold-older-acked", "under session expiries in ZooKeeper mode at "
                  "RF >= 3 (issue 29br), leaders-hold-older-acked whatever min.insync.replicas: a "
                  "broker leading an epoch (or named its leader by a request or the controller) "
                  "holds every acked record of an older epoch: its leader acked it once every "
                  "member of its ISR held it (``Partition.checkEnoughReplicasReachOffset`` at "
                  "2.1.0; the ISR is the one in ZooKeeper, a compare-and-set, "
                  "``Partition.updateIsr`` 963-975), so every ISR a later epoch was made from "
                  "holds it, and a clean election picks from the ISR (PartitionStateMachine.scala "
                  "405); the leader of a later epoch took it before it could truncate",
                  _later_leaders_hold_older_acked, _later_leaders_hold_older_acked_z3,
                  uses_config=True),
    Strengthening("epoch-hw-behind-its-leader", "under session expiries in ZooKeeper mode at "
                  "RF >= 3 (issue 29br), hw-behind-epoch-leader (off after an expiry) for brokers "
                  "in the leader's epoch or an older one (the leader running, or waiting after a "
                  "restart with a request making it leader of its epoch again, its HW kept by the "
                  "process crash): a running broker that has not taken a "
                  "later epoch than a running leader's covers a record of that leader's epoch by "
                  "its HW only if the leader's HW does: only that leader, in its epoch, raises an "
                  "HW over its epoch's records (a follower takes ``min(leader HW, own LEO)`` from "
                  "the fetch response, ``ReplicaFetcherThread.processPartitionData`` at 2.1.0), "
                  "and a leader's HW only grows while it leads",
                  _epoch_hw_behind_its_leader, _epoch_hw_behind_its_leader_z3, uses_config=True),
    Strengthening("kraft-past-leaders-crashed-or-fenced", "kraft-past-leaders-crashed under "
                  "session expiries (issue 29bj), with each expiry counted beside the crashes: "
                  "under KRaft with 3.6's isr-shrink-keeps-leader-epoch and Kafka's elections, "
                  "a new leader epoch after one with a leader comes only from that leader's "
                  "failure or fence (``handleBrokerFenced`` and a failure both run "
                  "``generateLeaderAndIsrUpdates`` removing the broker, "
                  "``ReplicationControlManager`` at 3.8.0; a follower's removal keeps the epoch), "
                  "and the controller shrinks the ISR only on a failure or a fence: every broker "
                  "named leader of an epoch older than the controller's, every broker down or "
                  "restarted, every member the controller's leader holds and the controller lacks "
                  "has had a crash or an expiry of its own",
                  _past_leaders_faulted, _past_leaders_faulted_z3, uses_config=True),
    Strengthening("kraft-written-epochs-crashed-or-fenced", "kraft-written-epochs-crashed "
                  "under session expiries (issue 29bj), with each expiry counted beside the "
                  "crashes: each epoch older than the controller's that had a leader (named, or "
                  "whose records a log holds) ended with its leader's crash or fence, one fault "
                  "each; with the failures the controller has still to handle they are at most "
                  "the crashes and expiries",
                  _written_epochs_faulted, _written_epochs_faulted_z3, uses_config=True),
    Strengthening("elr-isr-live", "under session expiries with KIP-966's ELR (4.1), every member "
                  "of the controller's ISR, the last one too, is in its live set: "
                  "eligible-isr-live for an ISR of one. With the ELR a fence or a handled failure "
                  "takes the broker out of the ISR even when it is the last member (the ISR may "
                  "empty: ``generateLeaderAndIsrUpdates`` with ``setEligibleLeaderReplicasEnabled``, "
                  "3.9.0-rc3; the kernel's ``target_isr_without``), and KIP-841 adds no fenced "
                  "broker (INELIGIBLE_REPLICA)",
                  _elr_isr_live, _elr_isr_live_z3, uses_config=True),
    Strengthening("request-isrs-grow-only-under-their-leader", "under session expiries, the ISR "
                  "of an epoch as a LeaderAndIsr on its way or the controller carries it, while "
                  "that epoch's leader has not taken it, is within the ISR of every request of the "
                  "epoch before whose leader has not taken that one either, or it is the new leader "
                  "alone (issue 29bg: an ELR winner's): "
                  "isr-grows-only-under-its-leader between requests. While an epoch's leader has "
                  "not taken it, its ISR only shrinks (only the current epoch's leader adds "
                  "members: FENCED_LEADER_EPOCH, ``ReplicationControlManager`` line 1098 at "
                  "3.5.0), so every request of it (sent at its start or to a broker that "
                  "registered since: the current state) holds its last ISR, and the next epoch "
                  "starts from that ISR less the removed broker (``generateLeaderAndIsrUpdates``), "
                  "or the ELR winner alone (``tryElection``)",
                  _request_isrs_grow_only_under_their_leader,
                  _request_isrs_grow_only_under_their_leader_z3, uses_config=True),
    Strengthening("next-epoch-changes-leader", "under session expiries on KRaft 3.6+ "
                  "(isr-shrink-keeps-leader-epoch), no two consecutive epochs (as requests, "
                  "running brokers or the controller hold them) name the same leader, nor both "
                  "none: the controller "
                  "makes a new leader epoch only with a new leader (``PartitionRegistration.merge``"
                  ": the epoch + 1 only for a record that sets the leader, lines 83-89 at 3.5.0; "
                  "``PartitionChangeBuilder.tryElection`` sets it only when the election's winner "
                  "differs from the current leader, line 339 at 3.9.0-rc3), and since KAFKA-15021 "
                  "(3.6) no ISR shrink bumps it",
                  _next_epoch_changes_leader, _next_epoch_changes_leader_z3,
                  uses_config=True),
    Strengthening("change-of-own-epoch-on-its-leader", "under session expiries on KRaft, a "
                  "running broker that holds a pending change of the leader epoch it is in leads "
                  "that epoch: the controller puts a change only on its leader of the epoch (the "
                  "kernel's ``write_partition``, ``write_elr_change``, "
                  "``controller_register_broker``: every broker applies the record, only the "
                  "leader acts on it), and the leader of an epoch never changes within it (a "
                  "record that sets a leader bumps the leader epoch: "
                  "``PartitionRegistration.merge`` at 3.5.0), so the broker took that epoch as its "
                  "leader (kraft's change-on-its-leader says the rest, but not this once the "
                  "controller has moved on)",
                  _change_of_own_epoch_on_its_leader, _change_of_own_epoch_on_its_leader_z3,
                  uses_config=True),
    Strengthening("later-request-isr-within-leader-view", "under session expiries, a "
                  "LeaderAndIsr on its way to a running leader that names it leader of a later "
                  "epoch carries an ISR within the ISRs the leader knows the controller holds for "
                  "its own epoch (its ISR, or its accepted AlterPartition answer's, and its pending "
                  "KRaft change of its epoch): the controller names a running leader again only "
                  "after fencing it (a session expiry) and electing it back from KIP-966's ELR or as "
                  "the ISR's last member, with an ISR it got by removing members; only the leader "
                  "of the current epoch adds them, and this leader has not taken the later epoch",
                  _later_request_isr_within_leader_view,
                  _later_request_isr_within_leader_view_z3, uses_config=True),
    Strengthening("isr-within-pending-change", "under session expiries on KRaft, until "
                  "its leader takes the epoch, the controller's ISR, and the ISR of each "
                  "LeaderAndIsr on its way, is within the ISR of a running broker's pending change "
                  "of the epoch before (the controller's latest "
                  "ISR of that epoch, not yet applied), or it is the new leader alone: "
                  "isr-grows-only-under-its-leader for the ISR the leader is about to take. The "
                  "controller makes the next epoch by a fence, a failure or an election, whose "
                  "target ISR is the ISR without the removed broker "
                  "(``ReplicationControlManager.generateLeaderAndIsrUpdates``, "
                  "``Replicas.copyWithout``, at 3.5.0 and 3.9.0; an election from KIP-966's ELR "
                  "makes the ISR the new leader), and only the leader of the current epoch adds "
                  "members (AlterPartition of an older leader epoch is refused: "
                  "FENCED_LEADER_EPOCH / NEW_LEADER_ELECTED)",
                  _isr_within_pending_change, _isr_within_pending_change_z3, uses_config=True),
    Strengthening("leaderless-live-member-counted", "under session expiries with KIP-966's ELR "
                  "(4.1), while the partition has no leader, the running brokers out of the "
                  "controller's live set, plus the ISR members running and live to it, plus twice "
                  "the ISR members that are down but live to it, plus the running ELR members live "
                  "to it while the ISR is not empty, plus the brokers down or waiting after a "
                  "restart that no other term counts (their crash; issue 29bj), are at most the "
                  "crashes and expiries (the "
                  "last two terms since issue 29bg: BFS finds the last one 0 on every reachable "
                  "state of 4.1 with one expiry; an ELR member is passed over only while the ISR "
                  "is not empty, and a fence of the last member empties it): a running broker out of the live set was "
                  "fenced (one expiry each); the controller leaves a partition leaderless only "
                  "when no live ISR member may lead (an unhandled crash leaves a broker live and "
                  "electable), so a member live now registered since, at the epoch bound (a "
                  "registration elects it otherwise): after a handled crash or a fence, and it "
                  "is down again: a crash more",
                  _leaderless_live_member_counted, _leaderless_live_member_counted_z3,
                  uses_config=True),
    Strengthening("eligible-isr-live", "under session expiries with KIP-841's ISR eligibility "
                  "(3.3+), every member of the controller's ISR of two or more is in its live "
                  "set: the controller takes a fenced broker out of the ISR (keeping the last "
                  "member: ``ReplicationControlManager.handleBrokerFenced`` -> "
                  "``generateLeaderAndIsrUpdates`` at 3.5.0) and refuses to add one "
                  "(INELIGIBLE_REPLICA); controller-isr-live says so without the bound, where it is "
                  "off with AlterPartition (before KIP-841 a leader may add a follower that has "
                  "died since it fetched)",
                  _eligible_isr_live, _eligible_isr_live_z3, uses_config=True),
    Strengthening("leaderless-after-running-leader-counted", "under session expiries, if the "
                  "epoch after one a running broker leads with the controller's ISR (its own ISR, "
                  "a request making it leader, its pending KRaft change, its accepted "
                  "AlterPartition answer) is leaderless, that ISR has at most as many members as "
                  "session expiries have happened: the controller made that epoch by fencing "
                  "the leader (it runs: one expiry) while no other member of its ISR was live; a "
                  "member whose crash the controller has not handled is live, and handling a "
                  "crash or a fence takes the member out of the ISR with a new epoch "
                  "(``removeReplicasFromIsr`` at 2.1.0; KRaft before 3.6), so each other member "
                  "was fenced before and added back while fenced (it still fetched; no liveness "
                  "check before KIP-841): one expiry each; not with KIP-966's ELR (4.1)",
                  _leaderless_after_running_leader_counted,
                  _leaderless_after_running_leader_counted_z3, uses_config=True),
    Strengthening("moved-leader-out-of-later-isrs", "under session expiries, a running broker "
                  "that leads an epoch, or that a request on its way makes leader of one, is "
                  "out of the ISR (a request's, the controller's) of every epoch at or after a "
                  "later one that names another leader or that a record was written in (by its "
                  "leader, not this broker, which has taken no later epoch): the controller moves "
                  "leadership from a running leader only by fencing it, which takes it out of "
                  "the ISR as a failure does (``onBrokerFailure`` -> offline election at 2.1.0, "
                  "the ISR of the live members; KRaft ``handleBrokerFenced`` at 3.5.0), and it "
                  "rejoins an ISR only by fetching from the new leader, in the new epoch (and "
                  "then drops the older request); a controlled shutdown likewise takes it out "
                  "of the ISR; not with KIP-966's ELR (4.1), which keeps the fenced member "
                  "electable",
                  _moved_leader_out_of_later_isrs, _moved_leader_out_of_later_isrs_z3,
                  uses_config=True),
    Strengthening("lone-leader-keeps-later-epochs", "under session expiries, a running broker "
                  "that leads with an ISR of itself alone (no accepted AlterPartition answer or "
                  "KRaft change of its epoch still to apply: its ISR is the controller's), or that a request on its "
                  "way makes leader with that ISR, or whose pending KRaft change (sent to the "
                  "leader alone, the controller's latest ISR of its epoch, dropped when the broker "
                  "takes a newer epoch) or accepted AlterPartition answer has that ISR, is the leader of every later epoch "
                  "that names one: it shrank the ISR to itself while its epoch was the "
                  "controller's (the write is a compare-and-set, ``Partition.maybeShrinkIsr`` -> "
                  "``updateIsr`` at 2.1.0; the kernel's ``isr_change_allowed``), so the controller "
                  "elects nobody else after it (a clean election picks from the ISR, a fence or "
                  "crash of the last member leaves it leaderless with that member, and the "
                  "member's return elects it), and every later ISR (a request's, the "
                  "controller's) is it alone (the controller only removes members, keeping the "
                  "last, and only the leader, in its epoch, adds them); it holds without a "
                  "session expiry too, where next-leader-from-isr says it for the next epoch; not "
                  "with KIP-966's ELR (4.1)",
                  _lone_leader_keeps_later_epochs, _lone_leader_keeps_later_epochs_z3,
                  uses_config=True),
)
"""Facts only session expiries need (issue 29bd), each from a counterexample to induction."""
