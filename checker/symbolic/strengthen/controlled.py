"""The library under a controlled shutdown on KRaft (``--max-controlled-shutdowns``, issue 29bl):
the forms, under the bound, of facts 29ac switched off there, and the facts the CTIs of Kafka 3.5
and 4.1 asked for.

29ac switched off, under ``--max-controlled-shutdowns``, every fact BFS found false on some
reachable state with a controlled shutdown (``shutdowns.OFF_UNDER_SHUTDOWNS``): they rest on
"leadership moves only from a failed leader", and ControllerHandleControlledShutdown moves it from
a leader that still runs (``KafkaController.doControlledShutdown`` at 2.1.0; KRaft
``ReplicationControlManager.handleBrokerInControlledShutdown`` at 3.5.0). Kafka 2.1 was proved
without them; 3.5 and 4.1 stopped on CTIs they used to rule out. The forms here say what still
holds: the broker a controlled shutdown moved leadership from is marked shutting down
(``SReplica.sd``), and stays marked while it runs: only a restart clears the mark of a running
broker (the kernel's ``broker_restart``; ControllerHandleBrokerFailure clears it of a broker that
is down), and a shutting-down broker is never elected (``may_lead``: Kafka 2.1's
``shuttingDownBrokerIds``, KRaft's ``ClusterControlManager.isActive``, KIP-841).

Every form and fact is on only under ``--max-controlled-shutdowns``: without the bound every
formula is the one before (``test_controlled_shutdown_proof.py`` checks it). Each was checked on
every reachable state of Kafka 2.1, 3.5 and 4.1 at RF=2 with one controlled shutdown
(docs/symbolic.md, "A controlled shutdown on KRaft").
"""

from __future__ import annotations

import dataclasses

import z3

from checker.symbolic import numbers as num
from checker.symbolic.formulas import holds_acked
from checker.symbolic.state import count, sel
from checker.symbolic.strengthen import (
    crashes_restarts, disk_loss_facts, epochs_requests, isr_hw, kraft_epochs,
)
from checker.symbolic.strengthen.base import Strengthening
from checker.symbolic.strengthen.history import (
    epoch_claims, epoch_claims_z3, follower_kept_log_since, follower_kept_log_since_z3,
)
from model.constants import ALTER_ACCEPTED, ALTER_STUCK, NO_LEADER


def on(config) -> bool:
    return config.bounds.max_controlled_shutdowns > 0


# --- running-leaders-kept-leading: but for a broker in a controlled shutdown -----------------

def _running_leaders_kept_leading(s, config) -> bool:
    """``running-leaders-kept-leading`` for the running brokers that are not shutting down: the
    controller moves leadership from a running broker only by handling its controlled shutdown,
    which marks it, and the mark stays until the broker is down and handled, or restarts."""
    return crashes_restarts._running_leaders_kept_leading(s, config, shutting_down_let_through=True)


def _running_leaders_kept_leading_z3(d, s):
    return crashes_restarts._running_leaders_kept_leading_z3(d, s, shutting_down_let_through=True)


# --- offline-isr-restarted: but for a broker in a controlled shutdown ----------------------

def _was_down_or_shutting_down(s, j: int, e: int) -> bool:
    """Broker ``j`` had no live, running self when epoch ``e`` was made (no request of an older
    epoch on its way to it, no older epoch applied), or it is marked shutting down (running, or
    stopped and its failure not handled yet: the mark stays until then)."""
    r = s.replicas[j]
    if r.shutting_down:
        return True
    return not (any(b == j and x < e for b, x, _, _ in s.leader_and_isr)
                or (r.alive and 0 <= r.leader_epoch < e))


def _offline_isr_restarted(s, config) -> bool:
    """``offline-isr-restarted`` with a running broker in a controlled shutdown let through: the
    KRaft controller handles the controlled shutdown of the last ISR member that leads by leaving
    the partition without a leader, that member kept as the ISR and still running until it stops
    (``handleBrokerInControlledShutdown`` -> ``generateLeaderAndIsrUpdates`` at 3.5.0: no other
    member may lead, ``PartitionChangeBuilder`` keeps the last ISR member); otherwise a leaderless
    epoch is made only from a failed leader, as the fact says."""
    c = s.controller
    sd = {b for b, r in enumerate(s.replicas) if r.shutting_down}
    for _, e, leader, isr in s.leader_and_isr:
        if leader == NO_LEADER and not all(_was_down_or_shutting_down(s, j, e) for j in isr):
            return False
    epochs = {e for _, e, leader, _ in s.leader_and_isr if leader == NO_LEADER}
    if c.leader == NO_LEADER:
        epochs.add(c.leader_epoch)
    for e in epochs:
        for x, prev in epoch_claims(s):
            if x == e - 1 and prev >= 0 and not _was_down_or_shutting_down(s, prev, e):
                return False
    if c.leader != NO_LEADER:
        return True
    isr = set(c.isr) - sd
    live = c.leader_epoch >= config.bounds.max_leader_epoch or not isr & set(c.live_brokers)
    older = any(b in isr and e != c.leader_epoch for b, e, _, _ in s.leader_and_isr)
    return live and not older and all(
        not s.replicas[b].alive or s.replicas[b].leader_epoch in (-1, c.leader_epoch) for b in isr)


def _offline_isr_restarted_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        offline_member = z3.And(s.c_leader == -1, s.c_isr[b], z3.Not(r.sd))
        out.append(z3.Implies(z3.And(offline_member, r.alive), z3.Or(r.lep == -1, r.lep == s.c_epoch)))
        out.append(z3.Implies(z3.And(offline_member, s.c_live[b]), s.c_epoch >= d.max_epoch))
        out += [z3.Implies(z3.And(offline_member, s.lai[b][e]), s.c_epoch == e) for e in range(len(s.lai[b]))]
    for q in range(d.n):
        for e in range(len(s.lai[q])):
            leaderless = z3.And(s.lai[q][e], s.lai_leader[q][e] == -1)
            for j, r in enumerate(s.reps):
                was_down = z3.Or(r.sd, z3.And(
                    [z3.Not(s.lai[j][x]) for x in range(e)]
                    + [z3.Not(z3.And(r.alive, r.lep >= 0, r.lep < e))]))
                out.append(z3.Implies(z3.And(leaderless, s.lai_isr[q][e][j]), was_down))
    claims = [(s.lai[b][e], num.val(e), s.lai_leader[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    claims += [(z3.And(x.alive, x.lep >= 0), x.lep, x.leader) for x in s.reps]
    claims.append((True, s.c_epoch, s.c_leader))
    leaderless = [(z3.And(s.lai[q][e], s.lai_leader[q][e] == -1), num.val(e))
                  for q in range(d.n) for e in range(len(s.lai[q]))]
    leaderless.append((s.c_leader == -1, s.c_epoch))
    for present, e in leaderless:
        for cp, x, prev in claims:
            for j, r in enumerate(s.reps):
                was_down = z3.Or(r.sd, z3.And(
                    [z3.Not(z3.And(s.lai[j][y], y < e)) for y in range(len(s.lai[j]))]
                    + [z3.Not(z3.And(r.alive, r.lep >= 0, r.lep < e))]))
                out.append(z3.Implies(z3.And(present, cp, x + 1 == e, prev == j), was_down))
    return z3.And(out)


# --- kraft-stale-change-has-next-epoch: or the ELR winner alone --------------------------

def _stale_change_has_next_epoch(s, config) -> bool:
    """``kraft-stale-change-has-next-epoch`` with, under KIP-966's ELR, the next epoch's ISR
    also allowed to be its new leader alone: a controlled shutdown moves leadership from a leader
    that still runs with its pending change, and the KRaft controller may elect an ELR member
    (``generateLeaderAndIsrUpdates`` -> ``PartitionChangeBuilder.tryElection``, whose target ISR
    is the winner alone, ``targetIsr = singletonList(leader)``, lines 337-345 at 3.9.0-rc3), an
    ISR not within the change's. (A crash drops the change; a controlled shutdown does not.)"""
    elr = "eligible-leader-replicas" in config.rules
    c = s.controller
    for b, r in enumerate(s.replicas):
        if not r.partition_change:
            continue
        isr, epoch, _ = r.partition_change
        if epoch >= c.leader_epoch:
            continue
        if not any(q[0] == b and q[1] == epoch + 1
                   and (set(q[3]) <= set(isr) or (elr and q[2] >= 0 and tuple(q[3]) == (q[2],)))
                   for q in s.leader_and_isr):
            return False
    return True


def _stale_change_has_next_epoch_z3(d, s):
    if not d.elr:  # the fact as written
        return kraft_epochs._stale_change_has_next_epoch_z3(d, s)
    out = []
    for b, r in enumerate(s.reps):
        slots = len(s.lai[b])
        for e in range(slots):
            older = z3.And(r.chg, r.chg_ep == e, s.c_epoch > e)
            if e + 1 >= slots:  # no request slot for the next epoch: the change is never older
                out.append(z3.Not(older))
                continue
            isr, leader = s.lai_isr[b][e + 1], s.lai_leader[b][e + 1]
            within = z3.And([z3.Implies(isr[j], r.chg_isr[j]) for j in range(d.n)])
            if d.elr:
                alone = z3.Or([z3.And([leader == j] + [isr[m] if m == j else z3.Not(isr[m])
                                                       for m in range(d.n)])
                               for j in range(d.n)])
                within = z3.Or(within, alone)
            out.append(z3.Implies(older, z3.And(s.lai[b][e + 1], within)))
    return z3.And(out)


# --- elr-keeps-min-isr: a clean stop is no crash -------------------------------------------

def _unclean_restarts(s) -> int:
    """How many brokers have restarted after an unclean shutdown, at most: the crashes less the
    brokers down that did not stop cleanly (a broker that stopped after its controlled shutdown
    holds the clean-shutdown file, KIP-966, until it restarts: the kernel's ``broker_shutdown``,
    ``register_restarted``)."""
    return s.crashes - sum(1 for r in s.replicas if not r.alive and not r.clean_shutdown)


def _isr_or_elr_kept(s, config) -> bool:
    """``elr-keeps-min-isr`` with only restarts after an unclean shutdown counted: only those
    take a broker out of both the ISR and the ELR (``handleBrokerUncleanShutdown``;
    ``PartitionChangeBuilder.maybePopulateTargetElr`` filters only ``uncleanShutdownReplicas``,
    lines 556-580 at 3.8.0), so a broker in a controlled shutdown goes from the ISR to the ELR
    below min.insync.replicas and its clean stop takes it out of neither."""
    if "eligible-leader-replicas" not in config.rules:
        return True
    kept = set(s.controller.isr) | set(s.elr)
    return len(kept) + _unclean_restarts(s) >= config.min_insync_replicas


def _isr_or_elr_kept_z3(d, s):
    if not d.elr:
        return z3.BoolVal(True)
    kept = count([z3.Or(i, e) for i, e in zip(s.c_isr, s.elr)])
    unclean = s.crashes - count([z3.And(z3.Not(r.alive), z3.Not(r.clean)) for r in s.reps])
    return kept + unclean >= d.min_isr


# --- leaderless-isr-is-last-leader: on KRaft 3.3 to 4.0 too (issue 29bo) ---------------------

def _leaderless_isr_is_last_leader(s, config) -> bool:
    """``leaderless-isr-is-last-leader`` on KRaft 3.3 to 4.0 as well: the fact is off wherever an
    AlterPartition may add a follower that died since it fetched (a ZooKeeper controller accepts
    it after handling that follower's failure), but KIP-841's controller refuses a broker it
    fenced or that is shutting down, so a partition it leaves without a leader (by a failure, a
    fence or a controlled shutdown of its leader: ``generateLeaderAndIsrUpdates``, 3.6.0) keeps
    that leader alone as its ISR. Without the ELR only: with it the ISR may empty."""
    return epochs_requests._leaderless_isr_is_last_leader(s, config, kraft_eligibility=True)


def _leaderless_isr_is_last_leader_z3(d, s):
    return epochs_requests._leaderless_isr_is_last_leader_z3(d, s, kraft_eligibility=True)


def _controller_isr_live(s, config) -> bool:
    """``controller-isr-live`` on KRaft 3.3 to 4.0 as well, for the same reason: a failure the
    controller handles (it fences the broker) takes the broker out of the ISR unless it is the
    last member (``handleBrokerFenced`` -> ``generateLeaderAndIsrUpdates``, 3.6.0), and KIP-841
    refuses to add it back until it registers again; a broker in a controlled shutdown stays live
    until it has stopped and its failure is handled."""
    return isr_hw._controller_isr_live(s, config, kraft_eligibility=True)


def _controller_isr_live_z3(d, s):
    return isr_hw._controller_isr_live_z3(d, s, kraft_eligibility=True)


# --- added-members-caught-up: but after a marked leader's epoch (issue 29bp, RF>=3) -----------

def _added_members_caught_up(s, config) -> bool:
    """``added-members-caught-up`` with the previous epoch's leader let through when it is marked
    shutting down (at RF>=3 on KRaft with KIP-841; the fact as written elsewhere): its
    controlled shutdown made the epoch from the controller's ISR, which may hold a member its
    own view does not yet (an accepted AlterPartition answer or a PartitionChangeRecord still
    on its way to it), so a member of the new leader's ISR outside that view need not have been
    added by the new leader. The fact as written is false on 8 of the 934,403 reachable states
    of 3.5 at RF=3 with one record and one controlled shutdown; this form on none."""
    if not _rf3_on(config) or len(s.replicas) < 3:
        return isr_hw._added_members_caught_up(s)
    leaders = [(b, r) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    for lead, lr in leaders:
        e = lr.leader_epoch
        for _, zr in leaders:
            if zr.leader_epoch != e - 1 or zr.shutting_down:
                continue
            for f in lr.isr:
                if f == lead or f in zr.isr or not follower_kept_log_since(s, f, lead, e):
                    continue
                log = s.replicas[f].log
                if any(rec[1] < e and (i >= len(log) or log[i] != rec) for i, rec in enumerate(lr.log)):
                    return False
    return True


def _added_members_caught_up_z3(d, s):
    if not _rf3_on_z3(d):
        return isr_hw._added_members_caught_up_z3(d, s)
    out = []
    for lead, lr in enumerate(s.reps):
        for z, zr in enumerate(s.reps):
            if z == lead:
                continue
            both = z3.And(lr.alive, lr.leader == lead, zr.alive, zr.leader == z, zr.lep + 1 == lr.lep,
                          z3.Not(zr.sd))
            for f, fr in enumerate(s.reps):
                if f == lead:
                    continue
                added = z3.And(both, lr.isr[f], z3.Not(zr.isr[f]),
                               follower_kept_log_since_z3(d, s, f, lead, lr.lep))
                held = [z3.Implies(z3.And(i < lr.leo, lr.log_ep[i] < lr.lep),
                                   z3.And(i < fr.leo, fr.log_id[i] == lr.log_id[i],
                                          fr.log_ep[i] == lr.log_ep[i]))
                        for i in range(d.slots)]
                out.append(z3.Implies(added, z3.And(held)))
    return z3.And(out)


FORMS = {
    "added-members-caught-up": (_added_members_caught_up, _added_members_caught_up_z3),
    "controller-isr-live": (_controller_isr_live, _controller_isr_live_z3),
    "leaderless-isr-is-last-leader": (_leaderless_isr_is_last_leader,
                                      _leaderless_isr_is_last_leader_z3),
    "elr-keeps-min-isr": (_isr_or_elr_kept, _isr_or_elr_kept_z3),
    "kraft-stale-change-has-next-epoch": (_stale_change_has_next_epoch,
                                          _stale_change_has_next_epoch_z3),
    "offline-isr-restarted": (_offline_isr_restarted, _offline_isr_restarted_z3),
    "running-leaders-kept-leading": (_running_leaders_kept_leading,
                                     _running_leaders_kept_leading_z3),
}
"""Facts of ``shutdowns.OFF_UNDER_SHUTDOWNS`` and their forms under a controlled shutdown (the
module's docstring): ``shutdowns.switch`` uses the form instead of switching the fact off. (The
two of ``KIP841`` are facts off wherever AlterPartition is, switched on here.)"""

RF3_FORMS = ("added-members-caught-up",)
"""Forms that act only at RF>=3 on KRaft 3.3 to 3.5 (issue 29bp): elsewhere (RF=2 too) each is the
fact as written, so the other rows keep their terms."""

KIP841 = ("leaderless-isr-is-last-leader", "controller-isr-live")
"""Forms that act only on KRaft 3.3 to 4.0 (KIP-841, no KIP-966; issue 29bo): the fact as
written is ``True`` wherever AlterPartition is, and so is the form with the ELR (4.1) and on
ZooKeeper releases. They took away the CTIs of 3.6 to 4.0 with a controlled shutdown."""

def _clean_stops_counted(s, config) -> bool:
    if not on(config) or "eligible-leader-replicas" not in config.rules:
        return True
    if any(r.alive and r.clean_shutdown for r in s.replicas):
        return False
    return sum(1 for r in s.replicas if r.shutting_down or r.clean_shutdown) <= s.controlled_shutdowns


def _clean_stops_counted_z3(d, s):
    if not d.shutdowns or not d.elr:  # without KIP-966 no clean-shutdown file: shutting-down-counted
        return z3.BoolVal(True)
    out = [z3.Implies(r.clean, z3.Not(r.alive)) for r in s.reps]
    out.append(count([z3.Or(r.sd, r.clean) for r in s.reps]) <= s.cshut)
    return z3.And(out)


def _elr_isr_live(s, config) -> bool:
    if not on(config) or "eligible-leader-replicas" not in config.rules:
        return True
    return set(s.controller.isr) <= set(s.controller.live_brokers)


def _elr_isr_live_z3(d, s):
    if not d.shutdowns or not d.elr:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(s.c_isr[b], s.c_live[b]) for b in range(d.n)])


def _next_epoch_changes_leader(s, config) -> bool:
    rules = config.rules
    if not on(config) or "kraft" not in rules or "isr-shrink-keeps-leader-epoch" not in rules:
        return True
    claims = set(epoch_claims(s))
    return not any((x + 1, leader) in claims for x, leader in claims)


def _next_epoch_changes_leader_z3(d, s):
    if not d.shutdowns or not (d.kraft and d.shrink_keeps):
        return z3.BoolVal(True)
    claims = epoch_claims_z3(d, s)
    return z3.And([z3.Not(z3.And(p, q, a == b, y == x + 1))
                   for p, x, a in claims for q, y, b in claims])


def _leaderless_isr_without_last_leader(s, config) -> bool:
    if not on(config) or "eligible-leader-replicas" not in config.rules:
        return True
    views = [(e, isr) for _, e, leader, isr in s.leader_and_isr if leader == NO_LEADER]
    c = s.controller
    if c.leader == NO_LEADER:
        views.append((c.leader_epoch, c.isr))
    claims = epoch_claims(s)
    return all(leader not in isr for e, isr in views for x, leader in claims
               if x == e - 1 and leader >= 0)


def _leaderless_isr_without_last_leader_z3(d, s):
    if not d.shutdowns or not d.elr:
        return z3.BoolVal(True)
    views = [(z3.And(s.lai[b][e], s.lai_leader[b][e] == -1), num.val(e), s.lai_isr[b][e])
             for b in range(d.n) for e in range(len(s.lai[b]))]
    views.append((s.c_leader == -1, s.c_epoch, s.c_isr))
    out = []
    for leaderless, e, isr in views:
        for present, x, leader in epoch_claims_z3(d, s):
            for j in range(d.n):
                out.append(z3.Implies(z3.And(leaderless, present, x + 1 == e, leader == j),
                                      z3.Not(isr[j])))
    return z3.And(out)


def _leaderless_live_member_counted(s, config) -> bool:
    if not on(config) or "eligible-leader-replicas" not in config.rules:
        return True
    c = s.controller
    if c.leader != NO_LEADER:
        return True
    reps = list(enumerate(s.replicas))
    stuck = sum(1 for b, r in reps
                if not r.alive and not r.shutting_down and b in c.isr and b in c.live_brokers)
    lost = sum(1 for b, r in reps if r.alive and b not in c.live_brokers)
    up = sum(1 for b, r in reps
             if r.alive and not r.shutting_down and b in c.isr and b in c.live_brokers)
    waiting = sum(1 for b, r in reps if c.isr and r.alive and not r.shutting_down
                  and b in s.elr and b in c.live_brokers)
    return lost + 2 * stuck + 2 * up + waiting <= s.crashes + s.session_expiries


def _leaderless_live_member_counted_z3(d, s):
    if not d.shutdowns or not d.elr:
        return z3.BoolVal(True)
    reps = list(enumerate(s.reps))
    stuck = [z3.And(z3.Not(r.alive), z3.Not(r.sd), s.c_isr[b], s.c_live[b]) for b, r in reps]
    lost = [z3.And(r.alive, z3.Not(s.c_live[b])) for b, r in reps]
    up = [z3.And(r.alive, z3.Not(r.sd), s.c_isr[b], s.c_live[b]) for b, r in reps]
    waiting = [z3.And(z3.Or(s.c_isr), r.alive, z3.Not(r.sd), s.elr[b], s.c_live[b])
               for b, r in reps]
    return z3.Implies(s.c_leader == -1, count(lost) + 2 * count(stuck) + 2 * count(up)
                      + count(waiting) <= s.crashes + s.sexp)


def _shutting_down_out_of_elr_isr(s, config) -> bool:
    if not on(config) or "eligible-leader-replicas" not in config.rules:
        return True
    return not any(r.shutting_down and b in s.controller.isr for b, r in enumerate(s.replicas))


def _shutting_down_out_of_elr_isr_z3(d, s):
    if not d.shutdowns or not d.elr:
        return z3.BoolVal(True)
    return z3.And([z3.Not(z3.And(r.sd, s.c_isr[b])) for b, r in enumerate(s.reps)])


def _kip841_rf3(config) -> bool:
    return on(config) and "isr-eligibility" in config.rules and config.replication_factor >= 3


def _rf3_on(config) -> bool:
    """Issue 29bp's facts: RF>=3 on KRaft 3.3 to 3.5 (KIP-841, before KAFKA-15021), under the
    bound; checked on every reachable state of 3.5 only."""
    return _kip841_rf3(config) and "isr-shrink-keeps-leader-epoch" not in config.rules


def _rf3_on_z3(d) -> bool:
    return d.shutdowns and d.eligibility and d.n >= 3 and not d.shrink_keeps


def _epochs_led_while_marked(s, b: int) -> list:
    """The epochs running broker ``b``, marked shutting down, leads: its own (applied) epoch and
    the epochs of the LeaderAndIsr requests on their way to it that make it leader (issue 29bp:
    elected before its controlled shutdown, not yet applied). Empty if ``b`` is down or not
    marked."""
    r = s.replicas[b]
    if not (r.alive and r.shutting_down):
        return []
    out = [r.leader_epoch] if r.leader == b and r.leader_epoch >= 0 else []
    return out + [e for q, e, leader, _ in s.leader_and_isr if q == b and leader == b]


def _epochs_led_while_marked_z3(s, b: int) -> list:
    """``_epochs_led_while_marked`` as (present, epoch) pairs."""
    r = s.reps[b]
    marked = z3.And(r.alive, r.sd)
    out = [(z3.And(marked, r.leader == b, r.lep >= 0), r.lep)]
    return out + [(z3.And(marked, s.lai[b][e], s.lai_leader[b][e] == b), num.val(e))
                  for e in range(len(s.lai[b]))]


def _shutdown_leader_out_of_later_isrs(s, config) -> bool:
    if not _kip841_rf3(config) or len(s.replicas) < 3:
        return True
    c = s.controller
    for b in range(len(s.replicas)):
        for x in _epochs_led_while_marked(s, b):
            if any(e > x and leader not in (NO_LEADER, b) and b in isr
                   for _, e, leader, isr in s.leader_and_isr):
                return False
            if any(q != b and o.alive and o.leader == q and o.leader_epoch > x and b in o.isr
                   for q, o in enumerate(s.replicas)):
                return False
            if c.leader_epoch > x and c.leader not in (NO_LEADER, b) and b in c.isr:
                return False
    return True


def _shutdown_leader_out_of_later_isrs_z3(d, s):
    if not d.shutdowns or not d.eligibility or d.n < 3:
        return z3.BoolVal(True)
    out = []
    for b in range(d.n):
        for marked, x in _epochs_led_while_marked_z3(s, b):
            for q in range(d.n):
                for e in range(len(s.lai[q])):
                    leader = s.lai_leader[q][e]
                    out.append(z3.Implies(z3.And(marked, s.lai[q][e], x < e, leader != -1, leader != b),
                                          z3.Not(s.lai_isr[q][e][b])))
            for q, o in enumerate(s.reps):
                if q != b:
                    out.append(z3.Implies(z3.And(marked, o.alive, o.leader == q, o.lep > x),
                                          z3.Not(o.isr[b])))
            out.append(z3.Implies(z3.And(marked, s.c_epoch > x, s.c_leader != -1, s.c_leader != b),
                                  z3.Not(s.c_isr[b])))
    return z3.And(out)


def _shutdown_leader_holds_older_acked(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    epochs: dict = {}  # (record, offset) -> the epochs the logs hold it in
    for r in s.replicas:
        for off, (rid, ep) in enumerate(r.log):
            epochs.setdefault((rid, off), set()).add(ep)
    for b, r in enumerate(s.replicas):
        for x in _epochs_led_while_marked(s, b):
            for rid, off in s.acked:
                older = any(e <= x for e in epochs.get((rid, off), ()))
                if older and not (off < len(r.log) and r.log[off][0] == rid):
                    return False
    return True


def _shutdown_leader_holds_older_acked_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        for marked, x in _epochs_led_while_marked_z3(s, b):
            for k in range(d.records):
                o = s.acked_off[k]
                held = holds_acked(s, r, k)
                for w in s.reps:
                    for i in range(d.slots):
                        older = z3.And(s.acked[k], o == i, i < w.leo, w.log_id[i] == k + 1,
                                       w.log_ep[i] <= x)
                        out.append(z3.Implies(z3.And(marked, older), held))
    return z3.And(out)


def _shutting_down_live(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    return all(not r.shutting_down or b in s.controller.live_brokers
               for b, r in enumerate(s.replicas))


def _shutting_down_live_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(r.sd, s.c_live[b]) for b, r in enumerate(s.reps)])


def _controller_isr_added_caught_up(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    c = s.controller
    lead, e = c.leader, c.leader_epoch
    if lead < 0:
        return True
    lr = s.replicas[lead]
    for f in c.isr:
        if f == lead or not any(x == e and f not in isr for _, x, _, isr in s.leader_and_isr):
            continue  # not added in the epoch, as far as its requests tell
        fr = s.replicas[f]
        if fr.alive and 0 <= fr.leader_epoch < e:
            return False  # it fetched in e (fenced fetch), and its epoch only grows until a crash
        if fr.alive and fr.leader_epoch == -1 and any(q == f and x < e for q, x, _, _ in s.leader_and_isr):
            return False  # restarted before e: it never fetched in e
        if not follower_kept_log_since(s, f, lead, e):
            continue
        log = s.replicas[f].log
        if any(rec[1] < e and (i >= len(log) or log[i] != rec) for i, rec in enumerate(lr.log)):
            return False
    return True


def _controller_isr_added_caught_up_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            lacks = z3.Or([z3.And(s.lai[q][x], s.c_epoch == x, z3.Not(s.lai_isr[q][x][f]))
                           for q in range(d.n) for x in range(len(s.lai[q]))])
            member = z3.And(s.c_leader == lead, s.c_isr[f], lacks)
            out.append(z3.Implies(member, z3.Not(z3.And(fr.alive, fr.lep >= 0, fr.lep < s.c_epoch))))
            out += [z3.Implies(z3.And(member, fr.alive, fr.lep == -1, s.lai[f][x]), x >= s.c_epoch)
                    for x in range(len(s.lai[f]))]
            added = z3.And(member, follower_kept_log_since_z3(d, s, f, lead, s.c_epoch))
            held = [z3.Implies(z3.And(i < lr.leo, lr.log_ep[i] < s.c_epoch),
                               z3.And(i < fr.leo, fr.log_id[i] == lr.log_id[i],
                                      fr.log_ep[i] == lr.log_ep[i]))
                    for i in range(d.slots)]
            out.append(z3.Implies(added, z3.And(held)))
    return z3.And(out)


def _first_epoch_isr_full(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    if "isr-shrink-keeps-leader-epoch" in config.rules:
        return True
    return disk_loss_facts._first_epoch_isr_full(s, config) and all(
        len(isr) == len(s.replicas) for _, e, _, isr in s.leader_and_isr if e == 0) and all(
        not r.partition_change or r.partition_change[1] != 0 for r in s.replicas)


def _first_epoch_isr_full_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    requests = [z3.Implies(s.lai[q][0], z3.And(list(s.lai_isr[q][0]))) for q in range(d.n) if s.lai[q]]
    changes = [z3.Not(z3.And(r.chg, r.chg_ep == 0)) for r in s.reps] if d.kraft else []
    return z3.And([disk_loss_facts._first_epoch_isr_full_z3(d, s)] + requests + changes)


def _epoch_requests_within_controller_isr(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3 or "isr-shrink-keeps-leader-epoch" in config.rules:
        return True
    c = s.controller
    return all(set(isr) <= set(c.isr) for _, e, _, isr in s.leader_and_isr if e == c.leader_epoch)


def _epoch_requests_within_controller_isr_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(s.lai[q][e], s.c_epoch == e, s.lai_isr[q][e][m]), s.c_isr[m])
                   for q in range(d.n) for e in range(len(s.lai[q])) for m in range(d.n)])


def _reused(pred, formula):
    """A disk-loss fact's predicate and formula (disk_loss_facts.py, there only under disk loss)
    on at RF>=3 on KRaft with KIP-841 under a controlled shutdown (issue 29bp), ``True``
    elsewhere."""
    def check(s, config):
        return not _rf3_on(config) or len(s.replicas) < 3 or pred(s, config)

    def z3_formula(d, s):
        if not _rf3_on_z3(d):
            return z3.BoolVal(True)
        return formula(d, s)

    return check, z3_formula


_accepted_shrink_in_next_epoch, _accepted_shrink_in_next_epoch_z3 = _reused(
    lambda s, config: (disk_loss_facts.SHRINK_BUMPS not in config.rules
                       or disk_loss_facts._accepted_shrink_bumps(s)),
    disk_loss_facts._accepted_shrink_bumps_z3)


def _leader_moves_counted(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    named = crashes_restarts._leaders_by_epoch(s)
    epochs = sorted(named)
    moved = {b for x, y in zip(epochs, epochs[1:]) for b in named[x]
             if any(m != b for m in named[y])}
    faults = sum(1 for b, r in enumerate(s.replicas)
                 if not r.alive or r.leader_epoch == -1 or r.shutting_down or b in moved)
    return faults <= s.crashes + s.controlled_shutdowns


def _leader_moves_counted_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    pairs = crashes_restarts._named_changes_z3(d, s)
    faults = []
    for b, r in enumerate(s.reps):
        moved = [z3.And(adjacent, z3.Or([z3.And(a, la == b) for a, la in at_x]),
                        z3.Or([z3.And(a, la != b) for a, la in at_y]))
                 for _, adjacent, at_x, at_y in pairs]
        faults.append(z3.Or([z3.Not(r.alive), r.lep == -1, r.sd] + moved))
    return count(faults) <= s.crashes + s.cshut


def _hw_behind_unmarked_epoch_leader(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    reps = s.replicas
    for lead, e in isr_hw._epoch_leaders(s, True):
        if reps[lead].shutting_down:
            continue  # its controlled shutdown moved leadership on while it still leads e
        hw = reps[lead].high_watermark
        for f, fr in enumerate(reps):
            if f != lead and any(ep == e and i >= hw for i, (_, ep) in enumerate(fr.log[:fr.high_watermark])):
                return False
    return True


def _hw_behind_unmarked_epoch_leader_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        cases = isr_hw.epochs_led_z3(s, lead)
        cases.append((z3.And(z3.Not(lr.alive), s.c_leader == lead), s.c_epoch))
        for leads, e in cases:
            leads = z3.And(leads, z3.Not(lr.sd))
            for f, fr in enumerate(s.reps):
                if f == lead:
                    continue
                out += [z3.Implies(z3.And(leads, i < fr.hw, i < fr.leo, fr.log_ep[i] == e), i < lr.hw)
                        for i in range(d.slots)]
    return z3.And(out)


def _led_on_since(s, b: int, x: int) -> bool:
    """Has broker ``b`` (named leader of epochs ``x`` and ``x + 1``) followed nobody since it took
    ``x``, as far as the state tells? Running as leader in ``x`` or ``x + 1``, or restarted and
    waiting with requests on their way from ``x`` or ``x + 1`` on (a crash drops the requests to
    a broker; the oldest after its restart is the controller's epoch then), so that before its
    crash it was in ``x + 1`` or earlier, all led by itself from ``x``."""
    r = s.replicas[b]
    if not r.alive:
        return False
    if r.leader_epoch >= 0:
        return r.leader == b and r.leader_epoch in (x, x + 1)
    mine = [e for q, e, _, _ in s.leader_and_isr if q == b]
    return bool(mine) and min(mine) in (x, x + 1)


def _consecutive_leader_holds_its_records(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    named = crashes_restarts._leaders_by_epoch(s)
    for x, leaders in named.items():
        for b in leaders:
            if b not in named.get(x + 1, ()) or not _led_on_since(s, b, x):
                continue
            log = s.replicas[b].log
            if any(rec[1] == x and (i >= len(log) or log[i] != rec)
                   for r in s.replicas for i, rec in enumerate(r.log)):
                return False
    return True


def _consecutive_leader_holds_its_records_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    at, _ = crashes_restarts._named_epochs_z3(d, s)
    out = []
    for b, r in enumerate(s.reps):
        lai = s.lai[b]
        for x in range(d.max_epoch):
            names = z3.And(z3.Or([z3.And(n, l == b) for n, l in at[x]]),
                           z3.Or([z3.And(n, l == b) for n, l in at[x + 1]]))
            waits_from = z3.And([z3.Or([lai[e] for e in (x, x + 1) if e < len(lai)] or [False])]
                                + [z3.Not(lai[e]) for e in range(min(x, len(lai)))])
            since = z3.And(r.alive, z3.Or(
                z3.And(r.lep >= 0, r.leader == b, z3.Or(r.lep == x, r.lep == x + 1)),
                z3.And(r.lep == -1, waits_from)))
            for w in s.reps:
                for i in range(d.slots):
                    out.append(z3.Implies(z3.And(names, since, i < w.leo, w.log_ep[i] == x),
                                          z3.And(i < r.leo, r.log_id[i] == w.log_id[i],
                                                 r.log_ep[i] == x)))
    return z3.And(out)


def _answer_epoch_names_its_leader(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    c = s.controller
    for b, r in enumerate(s.replicas):
        a = r.alter_partition
        if not (a and a[0] in (ALTER_ACCEPTED, ALTER_STUCK) and r.alive and r.leader == b
                and a[2] > r.leader_epoch):
            continue
        e = a[2]
        if c.leader_epoch == e and c.leader != b:
            return False
        if any(x == e and leader != b for _, x, leader, _ in s.leader_and_isr):
            return False
        if any(o.alive and o.leader_epoch == e and o.leader != b for o in s.replicas):
            return False
    return True


def _answer_epoch_names_its_leader_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        ahead = z3.And(r.alive, r.leader == b, z3.Or(r.alt == ALTER_ACCEPTED, r.alt == ALTER_STUCK),
                       r.alt_ep > r.lep)
        out.append(z3.Implies(z3.And(ahead, s.c_epoch == r.alt_ep), s.c_leader == b))
        out += [z3.Implies(z3.And(ahead, s.lai[q][e], r.alt_ep == e), s.lai_leader[q][e] == b)
                for q in range(d.n) for e in range(len(s.lai[q]))]
        out += [z3.Implies(z3.And(ahead, o.alive, o.lep == r.alt_ep), o.leader == b) for o in s.reps]
    return z3.And(out)


def _shutdown_leader_holds_older_committed(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    c = s.controller

    def holds(r, rid, off):
        return off < len(r.log) and r.log[off][0] == rid

    covered = {(rid, off, ep) for r in s.replicas
               for off, (rid, ep) in enumerate(r.log[:r.high_watermark])}
    for b, r in enumerate(s.replicas):
        for x in _epochs_led_while_marked(s, b):
            for rid, off, ep in covered:
                if ep > x or holds(r, rid, off):
                    continue
                later = any(o.alive and o.leader == q and o.leader_epoch > x and holds(o, rid, off)
                            for q, o in enumerate(s.replicas))
                down = s.replicas[c.leader] if c.leader >= 0 else None
                later = later or (down is not None and not down.alive and c.leader_epoch > x
                                  and holds(down, rid, off))
                if not later:
                    return False
    return True


def _shutdown_leader_holds_older_committed_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)

    def holds(r, i, rid):
        return z3.And(i < r.leo, r.log_id[i] == rid)

    out = []
    for b, r in enumerate(s.reps):
        for marked, x in _epochs_led_while_marked_z3(s, b):
            for w in s.reps:
                for i in range(d.slots):
                    rid = w.log_id[i]
                    later = [z3.And(o.alive, o.leader == q, o.lep > x, holds(o, i, rid))
                             for q, o in enumerate(s.reps)]
                    later += [z3.And(s.c_leader == q, z3.Not(o.alive), s.c_epoch > x, holds(o, i, rid))
                              for q, o in enumerate(s.reps)]
                    older = z3.And(marked, i < w.hw, i < w.leo, w.log_ep[i] <= x)
                    out.append(z3.Implies(older, z3.Or([holds(r, i, rid)] + later)))
    return z3.And(out)


_first_epoch_leader_isr_full, _first_epoch_leader_isr_full_z3 = _reused(
    disk_loss_facts._first_epoch_leader_isr_full, disk_loss_facts._first_epoch_leader_isr_full_z3)


def _pending_ack_on_its_writer(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    named = crashes_restarts._leaders_by_epoch(s)
    for lead, _, off in s.pending_acks:
        lr = s.replicas[lead]
        if off >= len(lr.log):
            continue  # pending-acks-on-leader's
        e = lr.log[off][1]
        if any(e <= y <= lr.leader_epoch and any(m != lead for m in leaders)
               for y, leaders in named.items()):
            return False
    return True


def _pending_ack_on_its_writer_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    at, _ = crashes_restarts._named_epochs_z3(d, s)
    out = []
    for k in range(d.records):
        for lead, lr in enumerate(s.reps):
            ep = sel(lr.log_ep, s.pend_off[k], -1)
            on = z3.And(s.pend[k], s.pend_leader[k] == lead)
            out += [z3.Implies(z3.And(on, ep <= x, lr.lep >= x, named), leader == lead)
                    for x, claims in at.items() for named, leader in claims]
    return z3.And(out)


def _shutdown_leader_view_covers_next_isr(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    for b, r in enumerate(s.replicas):
        if not (r.alive and r.shutting_down and r.leader == b and r.leader_epoch >= 0):
            continue
        known = set(r.isr) | {b}
        if r.alter_partition and r.alter_partition[0] == ALTER_ACCEPTED:
            known |= set(r.alter_partition[1])
        if r.partition_change:
            known |= set(r.partition_change[0])
        if any(e == r.leader_epoch + 1 and leader not in (NO_LEADER, b) and not set(isr) <= known
               for _, e, leader, isr in s.leader_and_isr):
            return False
    return True


def _shutdown_leader_view_covers_next_isr_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        marked = z3.And(r.alive, r.sd, r.leader == b, r.lep >= 0)
        for q in range(d.n):
            for e in range(len(s.lai[q])):
                leader = s.lai_leader[q][e]
                nxt = z3.And(marked, s.lai[q][e], r.lep + 1 == e, leader != -1, leader != b)
                for m in range(d.n):
                    if m == b:
                        continue
                    known = [r.isr[m]]
                    if d.alter:
                        known.append(z3.And(r.alt == ALTER_ACCEPTED, r.alt_isr[m]))
                    if d.kraft:
                        known.append(z3.And(r.chg, r.chg_isr[m]))
                    known = z3.Or(known)
                    out.append(z3.Implies(z3.And(nxt, s.lai_isr[q][e][m]), known))
    return z3.And(out)


def _lagging_member_leader_holds_hw(s, config) -> bool:
    if not _rf3_on(config) or len(s.replicas) < 3:
        return True
    c = s.controller
    lead, e = c.leader, c.leader_epoch
    if lead < 0:
        return True
    lr = s.replicas[lead]
    if lr.alive and not (lr.leader == lead and lr.leader_epoch == e):
        return True
    for f in set(c.isr) | (set(lr.isr) if lr.alive else set()):
        fr = s.replicas[f]
        if f == lead or not fr.alive or not 0 <= fr.leader_epoch < e or fr.leader in (-1, f):
            continue
        m = s.replicas[fr.leader]
        if any(i >= len(m.log) or m.log[i] != fr.log[i]
               for i in range(min(lr.high_watermark, len(fr.log)))):
            return False
    return True


def _lagging_member_leader_holds_hw_z3(d, s):
    if not _rf3_on_z3(d):
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        current = z3.And(s.c_leader == lead, z3.Or(z3.Not(lr.alive),
                                                    z3.And(lr.leader == lead, lr.lep == s.c_epoch)))
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            for m, mr in enumerate(s.reps):
                if m == f:
                    continue
                member = z3.Or(s.c_isr[f], z3.And(lr.alive, lr.isr[f]))
                lags = z3.And(current, member, fr.alive, fr.lep >= 0, fr.lep < s.c_epoch,
                              fr.leader == m)
                out += [z3.Implies(z3.And(lags, i < lr.hw, i < fr.leo),
                                   z3.And(i < mr.leo, mr.log_id[i] == fr.log_id[i],
                                          mr.log_ep[i] == fr.log_ep[i]))
                        for i in range(d.slots)]
    return z3.And(out)


STRENGTHENINGS = (
    Strengthening("shutdown-leader-out-of-later-isrs", "at RF>=3 on KRaft (KIP-841), a running "
                  "broker marked shutting down that still leads its own epoch x (applied, or "
                  "named its leader by a LeaderAndIsr on its way to it: issue 29bp) is in no ISR of a "
                  "later epoch led by another broker (a request's, a running leader's, the "
                  "controller's): leadership moves from it only by its removal (it has not "
                  "restarted; its controlled shutdown: ``handleBrokerInControlledShutdown`` -> "
                  "``generateLeaderAndIsrUpdates``, the ISR less ``brokerToRemove``, 3.6.0 lines "
                  "1300 and 1717-1770), it fetches no more, and KIP-841 refuses to add it back "
                  "(``ineligibleReplicasForIsr``, 3.6.0 lines 1195-1214: shutting down)",
                  _shutdown_leader_out_of_later_isrs, _shutdown_leader_out_of_later_isrs_z3,
                  uses_config=True),
    Strengthening("shutdown-leader-holds-older-acked", "at RF>=3 on KRaft (KIP-841), a running "
                  "broker marked shutting down that still leads its own epoch x (applied, or named "
                  "its leader by a LeaderAndIsr on its way to it) holds every acked "
                  "record of an epoch <= x (in any log): until its controlled shutdown it was the "
                  "controller's leader (leadership moves from a running broker only by that "
                  "shutdown, which marks it), elected from an ISR that held every acked record, "
                  "and a leader appends and never truncates; the shutdown takes it out of the ISR "
                  "(``handleBrokerInControlledShutdown`` -> ``generateLeaderAndIsrUpdates``, "
                  "3.5.0 lines 1274-1284 and 1688-1734) and elects no marked broker again "
                  "(``ClusterControlManager.isActive``), so only later leaders' records of later "
                  "epochs may be acked without it",
                  _shutdown_leader_holds_older_acked, _shutdown_leader_holds_older_acked_z3,
                  uses_config=True),
    Strengthening("shutting-down-live", "at RF>=3 on KRaft (KIP-841), a broker marked shutting "
                  "down, running or stopped, is in the controller's live set: without session "
                  "expiries only the handling of a stopped broker's failure takes it out "
                  "(KRaft fences it: ``handleBrokerFenced``, reached from the heartbeat's "
                  "SHUTDOWN_NOW, 3.5.0 ``ReplicationControlManager`` lines 1395-1412), and that "
                  "handling clears the mark (the kernel's ``controller_handle_broker_failure``: a "
                  "fenced broker is no acceptable leader either way, "
                  "``ClusterControlManager.isActive``, 3.5.0 lines 582-586)",
                  _shutting_down_live, _shutting_down_live_z3, uses_config=True),
    Strengthening("controller-isr-added-caught-up", "at RF>=3 on KRaft (KIP-841) under a "
                  "controlled shutdown, a member of the controller's ISR that a request of the "
                  "controller's epoch leaves out (added in the epoch, by its leader's "
                  "AlterPartition) is in that epoch or a later one, or has crashed since, not before "
                  "(it fetched in the epoch: KIP-320's fenced fetch), and holds the leader's records from before the epoch, unless it "
                  "may have truncated since: the leader proposed it only once its LEO reached the "
                  "epoch's start offset (``Partition.isFollowerInSync``, KAFKA-7128; 3.5.0 "
                  "``Partition.scala`` lines 977-982), and the leader's records from before "
                  "its epoch do not change while it leads, nor when it crashes (``added-members-caught-up``, stated there "
                  "for a running leader, here for the controller's leader, running or down)",
                  _controller_isr_added_caught_up, _controller_isr_added_caught_up_z3,
                  uses_config=True),
    Strengthening("shutdown-first-epoch-isr-full", "at RF>=3 on KRaft 3.3 to 3.5 (KIP-841, "
                  "before KAFKA-15021) under a controlled shutdown, the controller's ISR in the "
                  "first leader epoch, and that of every LeaderAndIsr of it on its way, holds every replica, "
                  "and no PartitionChangeRecord of that epoch is on its way (an ISR already full "
                  "only shrinks, which makes a new epoch) (``first-epoch-isr-full`` of disk_loss_facts.py, there "
                  "only under disk loss): the partition is created with every replica in the ISR, "
                  "and every removal makes a new leader epoch, the controller's "
                  "(``PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded``, lines 264-271 at 3.5.0, bumps on any "
                  "ISR shrink) and a controlled shutdown's alike; on 3.6+ ``True``",
                  _first_epoch_isr_full, _first_epoch_isr_full_z3, uses_config=True),
    Strengthening("epoch-requests-within-controller-isr", "at RF>=3 on KRaft 3.3 to 3.5 "
                  "(KIP-841, before KAFKA-15021) under a controlled shutdown, every LeaderAndIsr "
                  "of the controller's leader epoch on its way carries an ISR within the "
                  "controller's: within one leader epoch the controller's ISR only grows, since "
                  "every removal (an AlterPartition shrink, a failure, a controlled shutdown) "
                  "makes a new leader epoch (``PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded``, "
                  "lines 264-271 at 3.5.0); on 3.6+ ``True``",
                  _epoch_requests_within_controller_isr, _epoch_requests_within_controller_isr_z3,
                  uses_config=True),
    Strengthening("shutdown-accepted-shrink-in-next-epoch", "at RF>=3 on KRaft 3.3 to 3.5 under "
                  "a controlled shutdown, an accepted AlterPartition answer in its leader's own "
                  "epoch keeps every member of the leader's ISR (``accepted-shrink-in-next-epoch`` "
                  "of disk_loss_facts.py, there only under disk loss): the controller answers a "
                  "shrink with a new leader epoch (``triggerLeaderEpochBumpIfNeeded``, lines "
                  "264-271 at 3.5.0; the kernel's ``controller_handle_alter_partition``)",
                  _accepted_shrink_in_next_epoch, _accepted_shrink_in_next_epoch_z3,
                  uses_config=True),
    Strengthening("leader-moves-counted", "at RF>=3 on KRaft (KIP-841) under a controlled "
                  "shutdown, the brokers down, waiting after a restart, marked shutting down, or "
                  "running after leadership passed from them to another broker (between two "
                  "consecutive epochs the state names leaders for) are at most the crashes plus "
                  "the controlled shutdowns: with Kafka's elections and no operator moves the "
                  "controller moves leadership only by removing the leader, for its failure or "
                  "its controlled shutdown (``generateLeaderAndIsrUpdates`` with "
                  "``brokerToRemove``, 3.5.0 lines 1688-1734; ``electAnyLeader`` keeps a valid "
                  "leader, ``PartitionChangeBuilder`` lines 190-214), and a broker that lost it "
                  "and runs again crashed or stopped cleanly since (``running-leaders-kept-leading`` "
                  "and ``crashes-counted``'s form together, counted)",
                  _leader_moves_counted, _leader_moves_counted_z3, uses_config=True),
    Strengthening("shutdown-hw-behind-epoch-leader", "at RF>=3 on KRaft (KIP-841) under a "
                  "controlled shutdown, ``hw-behind-epoch-leader`` (off under controlled "
                  "shutdowns since issue 29ac) for the leaders not marked shutting down: no "
                  "replica's HW, running, down or restarted, covers a record of the epoch such a "
                  "leader leads in (running, waiting to lead it after a restart, or the "
                  "controller's leader while down) unless that leader's HW does; a marked leader "
                  "is let through, since its controlled shutdown moved leadership to another "
                  "broker (``handleBrokerInControlledShutdown``, 3.5.0 lines 1274-1284) whose HW "
                  "may pass its records while it still leads its epoch",
                  _hw_behind_unmarked_epoch_leader, _hw_behind_unmarked_epoch_leader_z3,
                  uses_config=True),
    Strengthening("consecutive-leader-holds-its-records", "at RF>=3 on KRaft (KIP-841) under "
                  "a controlled shutdown, a broker named leader of two consecutive epochs x and "
                  "x + 1 (epoch 0's being broker 0, the leader the partition was created with) that "
                  "has followed nobody since (running as leader in x or x + 1, or restarted and "
                  "waiting with requests from x or x + 1 on) holds every record of epoch x any log "
                  "holds, at its offset: only x's leader writes them, a leader appends and never "
                  "truncates (``Partition.appendRecordsToLeader``; truncation only as a follower), "
                  "and a process crash keeps the log; ``epoch-leader-holds-its-records`` for an "
                  "epoch whose leader no claim of the state names any more",
                  _consecutive_leader_holds_its_records, _consecutive_leader_holds_its_records_z3,
                  uses_config=True),
    Strengthening("answer-epoch-names-its-leader", "at RF>=3 on KRaft (KIP-841) under a "
                  "controlled shutdown, an accepted AlterPartition answer (or one the leader "
                  "set aside as stuck) that carries a leader epoch newer than its running "
                  "leader's names that leader for the epoch: the controller, every request and "
                  "every running broker in that epoch agree. Only 3.3-3.5's shrink makes such an "
                  "answer (``triggerLeaderEpochBumpIfNeeded`` keeps the leader, lines 264-271 at "
                  "3.5.0; the kernel's ``controller_handle_alter_partition``), with the leader kept, "
                  "and one leader epoch names one leader (``epoch-names-one-leader``)",
                  _answer_epoch_names_its_leader, _answer_epoch_names_its_leader_z3,
                  uses_config=True),
    Strengthening("shutdown-leader-holds-older-committed", "at RF>=3 on KRaft (KIP-841) under a "
                  "controlled shutdown, a running broker marked shutting down that still leads its "
                  "own epoch x (applied, or named by a request on its way) holds every record of an "
                  "epoch <= x below some broker's HW, unless a leader of a later epoch (running in "
                  "it, or the controller's leader while down) holds it: an HW covers only records "
                  "its leader held over its (maximal) ISR (``Partition.maybeIncrementLeaderHW``, "
                  "3.5.0); in epochs up to x those were in the ISR the marked broker was elected "
                  "from or fetched as a member of, and it never truncates as leader, so a record it "
                  "lacks was committed only by a later leader",
                  _shutdown_leader_holds_older_committed, _shutdown_leader_holds_older_committed_z3,
                  uses_config=True),
    Strengthening("shutdown-first-epoch-leader-isr-full", "at RF>=3 on KRaft 3.3 to 3.5 under a "
                  "controlled shutdown, a running leader in the first leader epoch has every replica "
                  "in its ISR (``first-epoch-leader-isr-full`` of disk_loss_facts.py, there only "
                  "under disk loss): its ISR changes only by the controller's, and every removal "
                  "makes a new leader epoch (``triggerLeaderEpochBumpIfNeeded``, lines 264-271 at "
                  "3.5.0)", _first_epoch_leader_isr_full, _first_epoch_leader_isr_full_z3,
                  uses_config=True),
    Strengthening("pending-ack-on-its-writer", "at RF>=3 on KRaft (KIP-841) under a controlled "
                  "shutdown, a parked acks=all request waits on the leader that appended its record and "
                  "has led since: every leader the state names for the record's epoch, and for each "
                  "epoch up to the leader's own, is that broker (the produce "
                  "request is parked in the leader's purgatory, ``DelayedProduce``, and a leader "
                  "writes records only of its own epoch; a change of leader drops the parked request "
                  "with the leadership: the kernel's ``fail_parked_produce`` in ``make_follower``)",
                  _pending_ack_on_its_writer, _pending_ack_on_its_writer_z3, uses_config=True),
    Strengthening("shutdown-leader-view-covers-next-isr", "at RF>=3 on KRaft (KIP-841) under a "
                  "controlled shutdown, a running broker marked shutting down that still leads its "
                  "epoch x knows every member of the ISR a LeaderAndIsr of epoch x + 1 led by another "
                  "broker carries (its ISR, an accepted AlterPartition answer's on its way to it, or its "
                  "pending PartitionChangeRecord's): that epoch was made by its controlled shutdown from the "
                  "controller's ISR of epoch x less itself (``generateLeaderAndIsrUpdates``, 3.5.0 "
                  "lines 1688-1734), and within x the controller's ISR changes only by the leader's "
                  "AlterPartition, whose answer and record go to the leader (the kernel's "
                  "``write_partition``: the change to the leader alone)",
                  _shutdown_leader_view_covers_next_isr, _shutdown_leader_view_covers_next_isr_z3,
                  uses_config=True),
    Strengthening("lagging-member-leader-holds-hw", "at RF>=3 on KRaft (KIP-841) under a "
                  "controlled shutdown, a running member of the controller's ISR, or of its leader's "
                  "(running in the controller's epoch, or down), that still follows the leader of an older "
                  "epoch has its records below the current leader's HW in that old leader's log "
                  "too, so its truncation to the old leader keeps them: the current leader's HW "
                  "covers only records committed over its ISR view, in an epoch whose leader the "
                  "member followed (``Partition.maybeIncrementLeaderHW``; a follower truncates to "
                  "its leader's log, ``ReplicaFetcherThread`` with KIP-279's epoch end offsets, "
                  "3.5.0)", _lagging_member_leader_holds_hw, _lagging_member_leader_holds_hw_z3,
                  uses_config=True),
    Strengthening("clean-stops-counted", "under KIP-966 a clean-shutdown file is held only by a "
                  "broker that is down (written as it stops after its controlled shutdown, read "
                  "and removed when it restarts), and the brokers shutting down or holding the "
                  "file are at most the controlled shutdowns (``shutting-down-counted`` with the "
                  "file: the mark goes when the controller handles the stopped broker's failure, "
                  "the file stays until the restart)",
                  _clean_stops_counted, _clean_stops_counted_z3, uses_config=True),
    Strengthening("shutdown-elr-isr-live", "under a controlled shutdown with KIP-966's ELR "
                  "(4.1), every member of the controller's ISR, the last one too, is in its "
                  "live set (29bg's ``elr-isr-live``, there only under session expiries): a "
                  "handled failure takes the broker out of the ISR even as its last member "
                  "(the ISR may empty, ``PartitionChangeBuilder.build`` with the ELR enabled, "
                  "line 464 at 3.8.0; the kernel's ``target_isr_without``), a broker in a "
                  "controlled shutdown stays live until it stops and its failure is handled, "
                  "and KIP-841 adds no fenced broker",
                  _elr_isr_live, _elr_isr_live_z3, uses_config=True),
    Strengthening("shutdown-next-epoch-changes-leader", "under a controlled shutdown on KRaft "
                  "3.6+, no two consecutive leader epochs name the same leader, nor both none, "
                  "as any request, running broker or the controller holds them (29bg's "
                  "``next-epoch-changes-leader``, there only under session expiries): a new "
                  "leader epoch comes only with a new leader (``PartitionChangeBuilder.tryElection`` "
                  "sets the leader only when the winner differs, line 338 at 3.8.0), no ISR "
                  "shrink bumps it since KAFKA-15021, and a controlled shutdown of a follower "
                  "only shrinks the ISR",
                  _next_epoch_changes_leader, _next_epoch_changes_leader_z3, uses_config=True),
    Strengthening("shutdown-leaderless-isr-without-last-leader", "under a controlled shutdown "
                  "with KIP-966's ELR, the ISR of a leaderless epoch (the controller's or a "
                  "request's) lacks the leader of the epoch before: the controller makes a "
                  "leaderless epoch only by removing that leader (a failure, a fence or its "
                  "controlled shutdown: ``generateLeaderAndIsrUpdates`` with the ISR less "
                  "``brokerToRemove``, which the ELR lets empty; the kernel's "
                  "``target_isr_without``), and while it has no leader its ISR only shrinks",
                  _leaderless_isr_without_last_leader, _leaderless_isr_without_last_leader_z3,
                  uses_config=True),
    Strengthening("shutdown-leaderless-live-member-counted", "under a controlled shutdown with "
                  "KIP-966's ELR, 29bg's ``leaderless-live-member-counted`` (there only under "
                  "session expiries) with the members marked shutting down left out (running, or "
                  "stopped and not yet handled): while "
                  "the partition has no leader, a member the controller still counts live would "
                  "have been elected unless it is shutting down (``isAcceptableLeader``), so "
                  "each such member, and each running broker out of the live set, costs faults "
                  "(a crash whose handling made the epoch and a registration since at the epoch "
                  "bound)", _leaderless_live_member_counted, _leaderless_live_member_counted_z3,
                  uses_config=True),
    Strengthening("shutdown-out-of-elr-isr", "under a controlled shutdown with KIP-966's ELR, a "
                  "broker marked shutting down is not in the controller's ISR, not even as its "
                  "last member (29ac's ``shutting-down-out-of-isr`` without its exception): the "
                  "handling removes it (``generateLeaderAndIsrUpdates`` with ``brokerToRemove``; "
                  "the ELR lets the ISR empty), it fetches no more, and KIP-841 refuses to add "
                  "it back", _shutting_down_out_of_elr_isr, _shutting_down_out_of_elr_isr_z3,
                  uses_config=True),
)
"""Facts only a controlled shutdown on KRaft needs (issue 29bl), each from a CTI."""


AS_CRASHES = ("answer-members-left-by-crash",)
"""KIP-966 facts that bound what left the ISR by the brokers restarted, at most the crashes less
the brokers down (``elr._restarts``): a broker in a controlled shutdown leaves the ISR without a
crash (within the leader epoch since KAFKA-15021, so past an accepted AlterPartition's answer
that still names it), and then stops cleanly, down without a crash. Each counts the controlled
shutdowns as crashes: the fact with the crash counter raised by the controlled-shutdown
counter."""


def with_shutdowns_as_crashes(s):
    """``s`` (a ``ClusterState``) with each controlled shutdown counted as a crash."""
    return s._replace(crashes=s.crashes + s.controlled_shutdowns)


def with_shutdowns_as_crashes_z3(s):
    """``s`` (an ``SState``) likewise."""
    return dataclasses.replace(s, crashes=s.crashes + s.cshut)


OFF_ON_ZOOKEEPER = ("running-leaders-kept-leading", "offline-isr-restarted")
"""Forms left off (``True``, as 29ac had them) on the ZooKeeper releases: Kafka 2.1 with a
controlled shutdown was PROVED without them, and with them its proof stopped on a CTI (HOLDS by
exhaustive search, 16:31 UTC); they are for KRaft's CTIs."""


def form(st):
    """``st``'s (check, formula) under a controlled shutdown, or None: its form (``FORMS``) or,
    for ``AS_CRASHES``, the fact with the controlled shutdowns counted as crashes; on the
    ZooKeeper releases ``OFF_ON_ZOOKEEPER`` stay off."""
    if st.name in FORMS:
        check, formula = FORMS[st.name]
    elif st.name in AS_CRASHES:
        check = lambda s, config, _st=st: _st.holds(with_shutdowns_as_crashes(s), config)  # noqa: E731
        formula = lambda d, s, _st=st: _st.formula(d, with_shutdowns_as_crashes_z3(s))  # noqa: E731
    else:
        return None
    if st.name not in OFF_ON_ZOOKEEPER:
        return check, formula

    def kraft_check(s, config):
        return "kraft" not in config.rules or check(s, config)

    def kraft_formula(d, s):
        return formula(d, s) if d.kraft else z3.BoolVal(True)

    return kraft_check, kraft_formula


RF3 = ("shutdown-leader-out-of-later-isrs", "shutdown-leader-holds-older-acked",
       "shutting-down-live", "controller-isr-added-caught-up", "shutdown-first-epoch-isr-full",
       "epoch-requests-within-controller-isr", "shutdown-accepted-shrink-in-next-epoch",
       "leader-moves-counted", "shutdown-hw-behind-epoch-leader",
       "consecutive-leader-holds-its-records", "answer-epoch-names-its-leader",
       "shutdown-leader-holds-older-committed", "shutdown-first-epoch-leader-isr-full",
       "pending-ack-on-its-writer", "shutdown-leader-view-covers-next-isr",
       "lagging-member-leader-holds-hw")
"""Facts for RF>=3 on KRaft with KIP-841 only (issues 29bo, 29bp): ``True`` elsewhere, and out of
``--strengthen all`` there, so no RF=2 row changes its terms. The first is 29bo's (3.3+); the
others are 29bp's, on 3.3 to 3.5 only (``_rf3_on``: checked on every reachable state of 3.5)."""


def not_in_all(config) -> tuple:
    """The facts of ``STRENGTHENINGS`` whose formula is ``True`` on ``config`` (all of them
    without the bound; the ELR's without KIP-966; the 3.6+ one before KAFKA-15021): left out of
    ``--strengthen all`` there, so 2.1's and 3.5's proofs carry no vacuous conjuncts."""
    names = tuple(st.name for st in STRENGTHENINGS)
    if not on(config):
        return names
    out = ()
    rules = config.rules
    rf3 = RF3  # issues 29bo, 29bp: KRaft at RF>=3 only
    if "eligible-leader-replicas" not in rules:
        out += tuple(n for n in names if n not in ("shutdown-next-epoch-changes-leader",) + rf3)
    if "kraft" not in rules or "isr-shrink-keeps-leader-epoch" not in rules:
        out += ("shutdown-next-epoch-changes-leader",)
    if "isr-eligibility" not in rules or config.replication_factor < 3:
        out += rf3
    elif "isr-shrink-keeps-leader-epoch" in rules:  # issue 29bp's: KRaft 3.3 to 3.5 only
        out += rf3[1:]
    return out
