"""Strengthening invariants about a KRaft broker's pending ``PartitionChangeRecord`` once the
controller has moved to a newer leader epoch (issue 29q, the proofs of Kafka 3.6-4.0 under
``isr-shrink-keeps-leader-epoch``, KAFKA-15021).

A change that keeps the leader epoch goes to the leader alone (the kernel's ``write_partition``,
``put_change``; Kafka 3.6.0 ``ReplicationControlManager.generateLeaderAndIsrUpdates`` writes a
``PartitionChangeRecord`` that ``ReplicaManager.applyDelta`` hands to ``Partition.makeLeader``
only on the leader). Every later record of that epoch reaches the same broker and replaces it,
and a crash drops it; so a change still pending when the controller writes the next leader epoch
carries the controller's ISR at that moment, which is the ISR the new epoch's record starts from:
an election from the ISR keeps it (``PartitionChangeBuilder.tryElection``), and a shrink that
bumps the epoch (3.3-3.5's ``alter-partition-shrink-bumps-leader-epoch``) only removes members.
The record of the next epoch goes as a LeaderAndIsr to every live broker, the change's broker
among them (it is running: it holds a change), and the change is dropped when its broker applies
any newer epoch (``finish``), so until then that request is still on its way to it.

Without ``kraft`` no change is ever pending and each formula is ``True``. In the default bounds of
``kmc prove`` (no preferred election, no reassignment, and no controlled shutdown under KRaft)
the controller's epoch never moves while a change is pending (only the leader's crash, which drops
the change, elects anew), but the fact holds with the operator's moves too.

The other four are what RF=3 needed under 3.6's rule, where the ISR the leader holds may still
name members the controller has taken out (the change has not reached it): only a leader's
failure makes a new epoch there (``ControllerHandleBrokerFailure`` on a follower only shrinks the
ISR: ``isr_shrink_bumps_epoch``), so past leaders, down brokers and members the controller removed
are each a crash of their own (``kraft-past-leaders-crashed``, ``kraft-written-epochs-crashed``),
and the leader's ISR, its own or its LeaderAndIsr's, holds the acked records and every HW (a
crashed broker keeps its log under process crashes)."""

from __future__ import annotations

import z3

from checker.symbolic.state import count
from checker.symbolic.formulas import holds_every_acked
from checker.symbolic.strengthen.base import (
    Strengthening, held_records, held_slots_z3, holds_below, holds_below_z3,
)
from checker.symbolic.strengthen.isr_hw import _committed_view, _committed_view_z3
from checker.symbolic.strengthen.crashes_restarts import (
    _bumps_and_unhandled_z3, _leaders_by_epoch, _named_epochs_z3, _unhandled_failures,
)


def _stale_change_has_next_epoch(s) -> bool:
    c = s.controller
    for b, r in enumerate(s.replicas):
        if not r.partition_change:
            continue
        isr, epoch, _ = r.partition_change
        if epoch >= c.leader_epoch:
            continue
        if not any(q[0] == b and q[1] == epoch + 1 and set(q[3]) <= set(isr)
                   for q in s.leader_and_isr):
            return False
    return True


def _stale_change_has_next_epoch_z3(d, s):
    if not d.kraft:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        slots = len(s.lai[b])
        for e in range(slots):
            older = z3.And(r.chg, r.chg_ep == e, s.c_epoch > e)
            if e + 1 >= slots:  # no request slot for the next epoch: the change is never older
                out.append(z3.Not(older))
                continue
            out.append(z3.Implies(older, z3.And(
                [s.lai[b][e + 1]] + [z3.Implies(s.lai_isr[b][e + 1][j], r.chg_isr[j])
                                     for j in range(d.n)])))
    return z3.And(out)


def _only_failed_leaders_bump(config) -> bool:
    """Is every new leader epoch the controller's answer to its leader's failure? Under KRaft with
    3.6's ``isr-shrink-keeps-leader-epoch`` (KAFKA-15021) a follower's failure only shrinks the
    ISR; with Kafka's ordered elections (``ControllerHandleBrokerFailure`` elects only when the
    failed broker leads, the registration path only when the partition has no leader), no
    operator's move and no fault but crashes, the epoch moves past an epoch with a leader only
    when that leader has crashed. Issue 29v: so with KIP-966's ELR (4.1+), whose elections from
    the ELR or the last known leader are also the failure's or, from a partition with no leader,
    the registration's."""
    rules = config.rules
    return ("kraft" in rules and "isr-shrink-keeps-leader-epoch" in rules
            and "alter-partition-shrink-bumps-leader-epoch" not in rules
            and "unordered-leader-moves" not in rules
            and set(config.bounds.faults()) <= {"max_crashes", "max_unflushed_losses",
                                                "max_delayed_fetches"})  # (29z: no new epoch)


def _only_failed_leaders_bump_z3(d) -> bool:
    """``_only_failed_leaders_bump`` on the encoding's dimensions (it refuses the other faults
    but for controlled shutdowns and session expiries, issue 29ac: each moves leadership from a
    running leader, so the predicate is off under them and the formula must be too)."""
    return (d.kraft and d.shrink_keeps and not d.shrink_bumps and d.ordered and not d.operators
            and not d.shutdowns and not d.expiries)


def _past_leaders_crashed(s, config) -> bool:
    if not _only_failed_leaders_bump(config):
        return True
    return _past_leaders_counted(s, s.crashes)


def _past_leaders_counted(s, faults) -> bool:
    """``kraft-past-leaders-crashed``'s count against ``faults`` (the crashes; under session
    expiries the crashes and the expiries, ``expiries.py``)."""
    c = s.controller
    past = {a for e, leaders in _leaders_by_epoch(s).items() if e < c.leader_epoch for a in leaders}
    down = {b for b, r in enumerate(s.replicas) if not r.alive or r.leader_epoch == -1}
    removed = set()  # members the controller took out of its leader's ISR in this epoch
    if c.leader >= 0:
        lr = s.replicas[c.leader]
        views = [isr for b, e, leader, isr in s.leader_and_isr
                 if b == c.leader and e == c.leader_epoch and leader == b]
        if lr.alive and lr.leader == c.leader and lr.leader_epoch == c.leader_epoch:
            views.append(_committed_view(lr))
        removed = {m for view in views for m in view if m not in c.isr}
    return len(past | down | removed) <= faults


def _past_leaders_crashed_z3(d, s):
    if not _only_failed_leaders_bump_z3(d):
        return z3.BoolVal(True)
    return _past_leaders_counted_z3(d, s, s.crashes)


def _past_leaders_counted_z3(d, s, faults):
    at, _ = _named_epochs_z3(d, s)
    crashed = []
    for b, r in enumerate(s.reps):
        led_before = z3.Or([z3.And(named, leader == b, e < s.c_epoch)
                            for e, claims in at.items() for named, leader in claims])
        removed = []
        for lead, lr in enumerate(s.reps):
            view = _committed_view_z3(d, lr)
            removed.append(z3.And(s.c_leader == lead, lr.alive, lr.leader == lead,
                                  lr.lep == s.c_epoch, view[b], z3.Not(s.c_isr[b])))
            for e in range(len(s.lai[lead])):
                removed.append(z3.And(s.c_leader == lead, s.c_epoch == e, s.lai[lead][e],
                                      s.lai_leader[lead][e] == lead, s.lai_isr[lead][e][b],
                                      z3.Not(s.c_isr[b])))
        crashed.append(z3.Or([z3.Not(r.alive), r.lep == -1, led_before] + removed))
    return count(crashed) <= faults


def _written_epochs_crashed(s, config) -> bool:
    if not _only_failed_leaders_bump(config):
        return True
    return _written_epochs_counted(s, config, s.crashes)


def _written_epochs_counted(s, config, faults) -> bool:
    """``kraft-written-epochs-crashed``'s count against ``faults`` (as above)."""
    led = set(_leaders_by_epoch(s)) | {epoch for _, _, epoch in held_records(s)}
    bumps = sum(1 for y in range(1, s.controller.leader_epoch + 1) if y - 1 in led)
    return bumps + _unhandled_failures(s, config) <= faults


def _written_epochs_crashed_z3(d, s):
    if not _only_failed_leaders_bump_z3(d):
        return z3.BoolVal(True)
    return _written_epochs_counted_z3(d, s, s.crashes)


def _written_epochs_counted_z3(d, s, faults):
    _, known = _named_epochs_z3(d, s)
    slots = held_slots_z3(d, s)
    led = {x: z3.Or([named] + [z3.And(present, ep == x) for present, _, _, ep in slots])
           for x, named in known.items()}
    return count(_bumps_and_unhandled_z3(d, s, led)) <= faults


def _current_leader_views(s) -> list:
    """The ISRs the leader of the controller's epoch starts from or holds: its own once it has
    taken the epoch, and that of the LeaderAndIsr request of the epoch still on its way to it.
    Under 3.6's rule either may still hold a member the controller has removed since (the change
    has not reached the leader)."""
    c = s.controller
    if c.leader < 0:
        return []
    lr = s.replicas[c.leader]
    views = [lr.isr] if lr.alive and lr.leader == c.leader and lr.leader_epoch == c.leader_epoch else []
    views += [isr for b, e, leader, isr in s.leader_and_isr
              if b == c.leader and e == c.leader_epoch and leader == b]
    return views


def _current_leader_views_z3(d, s) -> list:
    """``_current_leader_views`` as (present, ISR) pairs."""
    views = []
    for lead, lr in enumerate(s.reps):
        views.append((z3.And(s.c_leader == lead, lr.alive, lr.leader == lead, lr.lep == s.c_epoch),
                      lr.isr))
        for e in range(len(s.lai[lead])):
            views.append((z3.And(s.c_leader == lead, s.c_epoch == e, s.lai[lead][e],
                                 s.lai_leader[lead][e] == lead), s.lai_isr[lead][e]))
    return views


def _leader_isr_holds_acked(s, config) -> bool:
    # off under power loss: a leader's ISR member back from one has lost its unflushed records
    # (false on 4.1's reachable power-loss states once 29v let the ELR in; no power-loss form)
    if not _only_failed_leaders_bump(config) or config.crash_model == "power-loss":
        return True
    for b in {m for view in _current_leader_views(s) for m in view}:
        log = s.replicas[b].log
        if not all(off < len(log) and log[off][0] == rid for rid, off in s.acked):
            return False
    return True


def _leader_isr_holds_acked_z3(d, s):
    if not _only_failed_leaders_bump_z3(d) or d.power_loss:  # as the predicate
        return z3.BoolVal(True)
    out = []
    for present, isr in _current_leader_views_z3(d, s):
        for b, r in enumerate(s.reps):
            out.append(z3.Implies(z3.And(present, isr[b]), holds_every_acked(d, s, r)))
    return z3.And(out)


def _leader_isr_holds_every_hw(s, config) -> bool:
    # off under power loss: a leader's ISR member back from one has lost its unflushed records
    # (false on 4.1's reachable power-loss states once 29v let the ELR in; no power-loss form)
    if not _only_failed_leaders_bump(config) or config.crash_model == "power-loss":
        return True
    return all(holds_below(s.replicas[b], r, r.high_watermark)
               for view in _current_leader_views(s) for b in view for r in s.replicas)


def _leader_isr_holds_every_hw_z3(d, s):
    if not _only_failed_leaders_bump_z3(d) or d.power_loss:  # as the predicate
        return z3.BoolVal(True)
    out = []
    for present, isr in _current_leader_views_z3(d, s):
        for b, r in enumerate(s.reps):
            for x, xr in enumerate(s.reps):
                if x != b:
                    out.append(z3.Implies(z3.And(present, isr[b]), holds_below_z3(d, r, xr, xr.hw)))
    return z3.And(out)


STRENGTHENINGS = (
    Strengthening("kraft-stale-change-has-next-epoch", "a pending PartitionChangeRecord (KRaft) of "
                  "a leader epoch older than the controller's has the LeaderAndIsr of the next "
                  "epoch still on its way to its broker, with an ISR within the change's (the "
                  "change was the controller's state when it wrote that epoch, which elects from "
                  "the ISR or only removes members)",
                  _stale_change_has_next_epoch, _stale_change_has_next_epoch_z3),
    Strengthening("kraft-past-leaders-crashed", "under KRaft with 3.6's "
                  "isr-shrink-keeps-leader-epoch, Kafka's elections and no operator moves, every "
                  "broker named leader of an epoch older than the controller's has crashed since "
                  "(only a leader's failure makes a new epoch: a follower's only shrinks the ISR), "
                  "and so has every broker down or restarted, and every member of the ISR the "
                  "controller's leader holds (as far as it knows) or takes in the controller's "
                  "epoch that the controller's ISR lacks (only a failure makes the controller "
                  "shrink it): there are at most as many such brokers as crashes",
                  _past_leaders_crashed, _past_leaders_crashed_z3, uses_config=True),
    Strengthening("kraft-written-epochs-crashed", "under KRaft with 3.6's "
                  "isr-shrink-keeps-leader-epoch, Kafka's elections and no operator moves, each "
                  "epoch older than the controller's that had a leader (one the state names, or "
                  "one whose records a log or fetch response holds: only a leader writes them) "
                  "ended with its leader's crash, a crash of its own; with the crashes the "
                  "controller has not handled yet they are at most the crashes",
                  _written_epochs_crashed, _written_epochs_crashed_z3, uses_config=True),
    Strengthening("kraft-leader-isr-holds-acked", "under KRaft with 3.6's "
                  "isr-shrink-keeps-leader-epoch, Kafka's elections and no operator moves, every "
                  "member of the ISR the controller's leader holds in the controller's epoch, or "
                  "will take from the LeaderAndIsr of that epoch on its way to it (either may still "
                  "hold a member the controller removed: the change has not reached it), holds "
                  "every acked record",
                  _leader_isr_holds_acked, _leader_isr_holds_acked_z3, uses_config=True),
    Strengthening("kraft-leader-isr-holds-every-hw", "under KRaft with 3.6's "
                  "isr-shrink-keeps-leader-epoch, Kafka's elections and no operator moves, every "
                  "member of the ISR the controller's leader holds in the controller's epoch, or "
                  "will take from the LeaderAndIsr of that epoch on its way to it (either may still "
                  "hold a member the controller removed), holds every replica's records below "
                  "that replica's HW",
                  _leader_isr_holds_every_hw, _leader_isr_holds_every_hw_z3, uses_config=True),
)
