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
the change, elects anew), but the fact holds with the operator's moves too."""

from __future__ import annotations

import z3

from checker.symbolic.state import count
from checker.symbolic.strengthen.base import Strengthening
from checker.symbolic.strengthen.crashes_restarts import _leaders_by_epoch, _named_epochs_z3


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
    when that leader has crashed."""
    rules = config.rules
    return ("kraft" in rules and "isr-shrink-keeps-leader-epoch" in rules
            and "alter-partition-shrink-bumps-leader-epoch" not in rules
            and "unordered-leader-moves" not in rules and "eligible-leader-replicas" not in rules
            and set(config.bounds.faults()) <= {"max_crashes", "max_unflushed_losses"})


def _only_failed_leaders_bump_z3(d) -> bool:
    """``_only_failed_leaders_bump`` on the encoding's dimensions (it refuses the other faults)."""
    return d.kraft and d.shrink_keeps and not d.shrink_bumps and d.ordered and not d.operators \
        and not d.elr


def _past_leaders_crashed(s, config) -> bool:
    if not _only_failed_leaders_bump(config):
        return True
    c = s.controller
    past = {a for e, leaders in _leaders_by_epoch(s).items() if e < c.leader_epoch for a in leaders}
    down = {b for b, r in enumerate(s.replicas) if not r.alive or r.leader_epoch == -1}
    return len(past | down) <= s.crashes


def _past_leaders_crashed_z3(d, s):
    if not _only_failed_leaders_bump_z3(d):
        return z3.BoolVal(True)
    at, _ = _named_epochs_z3(d, s)
    crashed = []
    for b, r in enumerate(s.reps):
        led_before = z3.Or([z3.And(named, leader == b, e < s.c_epoch)
                            for e, claims in at.items() for named, leader in claims])
        crashed.append(z3.Or(z3.Not(r.alive), r.lep == -1, led_before))
    return count(crashed) <= s.crashes


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
                  "and so has every broker down or restarted: there are at most as many such "
                  "brokers as crashes",
                  _past_leaders_crashed, _past_leaders_crashed_z3, uses_config=True),
)
