"""Invariants only disk loss needs (``--crash-model disk-loss``, issue 29an): the facts found,
one counterexample to induction (CTI) at a time, on the way to a proof of ``no-acked-loss`` on
Kafka 3.5 at RF=2 (docs/symbolic.md, "A disk lost with the crash in the proof").

A replaced disk leaves the broker nothing: it restarts with an empty log and no HW checkpoint
(``LogManager.loadLogs`` finds no log; the kernel's ``broker_crash``), and since KIP-903 (3.5) it
rejoins the ISR only by fetching again: an AlterPartition carries each added member's broker
epoch, and the controller refuses a member whose registration has a newer one
(``ReplicationControlManager.ineligibleReplicasForIsr`` at 3.5.0, ``INELIGIBLE_REPLICA``), and
one that is fenced or not registered (KIP-841). Before 3.5 a stale AlterPartition may count the
empty broker in the ISR (KAFKA-14139), and these facts are false there: each is on only under
disk loss with KIP-903 (``_on``; ``down-or-waiting-broker-empty`` under any disk loss), ``True``
elsewhere, and left out of ``--strengthen all`` elsewhere (``library.all_names``).

Some speak of 3.3-3.5's controller, which answers every ISR removal with a new leader epoch
(``PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded`` at 3.5.0; KAFKA-15021 keeps the epoch
from 3.6, rule ``isr-shrink-keeps-leader-epoch``, where they are off): then the first epoch's ISR
is every replica, and a broker that crashed restarts in a later epoch than the first.

Each was checked on every reachable state by ``python -m checker.symbolic.strengthen.reachable
--kafka-version V -r 2 --crash-model disk-loss --max-records 2 --max-leader-epoch 2 --max-crashes
2 --max-unflushed-losses 1`` for V in 2.1, 2.7, 3.3, 3.5 and 4.1 (docs/symbolic.md has the
run). Two of them, ``acked-copies-past-losses`` and ``controller-leader-holds-acked``, speak of
acked records and hold on 3.5 only within leader epochs <= 2: at epochs <= 3, 3.5 loses an acked
record to one disk loss (the leader asks to shrink the ISR to itself, the record is acked over
the maximal ISR, the leader loses its disk and, the last ISR member, is elected again), as it
does to one power loss.

Issue 29av added seven more, one CTI at a time, and with them ``kmc prove --kafka-version 3.5 -r 2
--crash-model disk-loss -p no-acked-loss -s all`` is PROVED (docs/symbolic.md, "A PROVED under
disk loss"). Five rest on 3.3-3.5's controller (every ISR removal a new leader epoch), with
``first-epoch-isr-full``: a LeaderAndIsr after the first epoch lacks a replica; the partition is
leaderless only from epoch 2; a broker back after a crash is named leader only from epoch 3 (the
one that says why 3.5 keeps its acked records at epochs <= 2 and loses one at 3); the first
epoch's leader has the full ISR, and a broker in the first epoch holds every acked record (with
min.insync.replicas = replication.factor). Two rest on KIP-903: a member an accepted answer adds
with a stale broker epoch has moved on to a later epoch, and a member a proposal adds in its
current incarnation holds the leader's older records (``alter-partition-added-member-caught-up``,
switched off under disk loss, for a member that cannot have lost its disk since).
"""

from __future__ import annotations

from itertools import permutations

import z3

from checker.symbolic import numbers as num
from checker.symbolic.formulas import holds_acked, holds_every_acked
from checker.symbolic.state import count
from checker.symbolic.strengthen.alter_partition import _added_member_caught_up, _added_member_caught_up_z3
from checker.symbolic.strengthen.base import Strengthening, holds_below, holds_below_z3
from checker.symbolic.strengthen.history import follower_kept_log_since, follower_kept_log_since_z3
from model.constants import ALTER_ACCEPTED, NO_LEADER

DISK_LOSS = "disk-loss"
SHRINK_BUMPS = "alter-partition-shrink-bumps-leader-epoch"
SHRINK_KEEPS = "isr-shrink-keeps-leader-epoch"


def _on(config) -> bool:
    """Disk loss with KIP-903 (``broker-epoch-in-fetch``)."""
    return config.crash_model == DISK_LOSS and "broker-epoch-in-fetch" in config.rules


def _on_z3(d) -> bool:
    return d.disk_loss and d.fetch_epochs


def _leader_hw_on_isr(s) -> bool:
    c = s.controller
    if c.leader < 0 or len(c.isr) < 2:
        return True
    lr = s.replicas[c.leader]
    if not lr.alive:
        return True
    return all(holds_below(s.replicas[b], lr, lr.high_watermark)
               for b in c.isr if s.replicas[b].alive)


def _leader_hw_on_isr_z3(d, s):
    out = []
    for lead, b in permutations(range(d.n), 2):
        lr, br = s.reps[lead], s.reps[b]
        cond = z3.And(s.c_leader == lead, count(s.c_isr) > 1, lr.alive, s.c_isr[b], br.alive)
        out.append(z3.Implies(cond, holds_below_z3(d, br, lr, lr.hw)))
    return z3.And(out)


def _down_broker_empty(s) -> bool:
    return all((r.alive and r.leader_epoch != -1) or (not r.log and r.high_watermark == 0)
               for r in s.replicas)


def _down_broker_empty_z3(d, s):
    if not d.disk_loss:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.Or(z3.Not(r.alive), r.lep == -1), z3.And(r.leo == 0, r.hw == 0))
                   for r in s.reps])


def _acked_in_isr_of_several(s) -> bool:
    c = s.controller
    if len(c.isr) < 2:
        return True
    return all(off < len(s.replicas[b].log) and s.replicas[b].log[off][0] == rid
               for rid, off in s.acked for b in c.isr if s.replicas[b].alive)


def _acked_in_isr_of_several_z3(d, s):
    return z3.And([z3.Implies(z3.And(s.c_isr[b], r.alive, count(s.c_isr) > 1), holds_every_acked(d, s, r))
                   for b, r in enumerate(s.reps)])


def _acked_copies(s, config) -> bool:
    need = config.min_insync_replicas - s.unflushed_losses
    return all(sum(1 for r in s.replicas if off < len(r.log) and r.log[off][0] == rid) >= need
               for rid, off in s.acked)


def _acked_copies_z3(d, s):
    if not _on_z3(d):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(s.acked[k], count([holds_acked(s, r, k) for r in s.reps]) + s.losses
                              >= num.val(d.min_isr)) for k in range(d.records)])


def _accepted_shrink_bumps(s) -> bool:
    return all(set(r.isr) <= set(r.alter_partition[1]) for r in s.replicas
               if r.alter_partition and r.alter_partition[0] == ALTER_ACCEPTED
               and r.alter_partition[2] == r.leader_epoch)


def _accepted_shrink_bumps_z3(d, s):
    if not (d.alter and d.shrink_bumps):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alt == ALTER_ACCEPTED, r.alt_ep == r.lep, r.isr[j]), r.alt_isr[j])
                   for r in s.reps for j in range(d.n)])


def _isr_of_several_live(s) -> bool:
    c = s.controller
    return len(c.isr) == 1 or set(c.isr) <= set(c.live_brokers)


def _isr_of_several_live_z3(d, s):
    if not d.eligibility:
        return z3.BoolVal(True)
    several = count(s.c_isr) > 1
    return z3.And([z3.Implies(z3.And(several, s.c_isr[b]), s.c_live[b]) for b in range(d.n)])


def _first_epoch_waiting(s, config) -> bool:
    if not s.acked or SHRINK_KEEPS in config.rules:
        return True
    waiting = sum(1 for b, r in enumerate(s.replicas) if r.alive and r.leader_epoch == -1
                  and any(q == b and x == 0 for q, x, _, _ in s.leader_and_isr))
    return waiting <= config.replication_factor - config.min_insync_replicas


def _first_epoch_waiting_z3(d, s):
    if d.shrink_keeps:
        return z3.BoolVal(True)
    waiting = count([z3.And(r.alive, r.lep == -1, s.lai[b][0]) for b, r in enumerate(s.reps)])
    return z3.Implies(z3.Or(list(s.acked)), waiting <= num.val(d.n - d.min_isr))


def _controller_leader_holds_acked(s) -> bool:
    c = s.controller
    if c.leader < 0 or not s.replicas[c.leader].alive:
        return True
    log = s.replicas[c.leader].log
    return all(off < len(log) and log[off][0] == rid for rid, off in s.acked)


def _controller_leader_holds_acked_z3(d, s):
    return z3.And([z3.Implies(z3.And(s.c_leader == b, r.alive), holds_every_acked(d, s, r))
                   for b, r in enumerate(s.reps)])


def _added_not_restarted(s, config) -> bool:
    if SHRINK_KEEPS in config.rules:
        return True
    for r in s.replicas:
        added = set()
        if r.alter_partition and r.alter_partition[0] == ALTER_ACCEPTED:
            added |= set(r.alter_partition[1]) - set(r.isr)
        if r.partition_change:
            added |= set(r.partition_change[0]) - set(r.isr)
        for f in added:
            fr = s.replicas[f]
            if fr.alive and fr.leader_epoch == -1 and any(
                    q == f and x <= r.leader_epoch for q, x, _, _ in s.leader_and_isr):
                return False
    return True


def _added_not_restarted_z3(d, s):
    if d.shrink_keeps or not d.alter:
        return z3.BoolVal(True)
    out = []
    for r in s.reps:
        for f, fr in enumerate(s.reps):
            added = z3.And(r.alt == ALTER_ACCEPTED, r.alt_isr[f], z3.Not(r.isr[f]))
            if d.kraft:
                added = z3.Or(added, z3.And(r.chg, r.chg_isr[f], z3.Not(r.isr[f])))
            old = z3.Or([z3.And(s.lai[f][x], x <= r.lep) for x in range(len(s.lai[f]))])
            out.append(z3.Implies(z3.And(added, fr.alive, fr.lep == -1), z3.Not(old)))
    return z3.And(out)


def _first_epoch_isr_full(s, config) -> bool:
    if SHRINK_KEEPS in config.rules:
        return True
    return s.controller.leader_epoch != 0 or len(s.controller.isr) == len(s.replicas)


def _first_epoch_isr_full_z3(d, s):
    if d.shrink_keeps:
        return z3.BoolVal(True)
    return z3.Implies(s.c_epoch == 0, z3.And(list(s.c_isr)))


def _acked_on(config) -> bool:
    """The acked-record facts: under KIP-903 without KIP-966's ELR. On 4.1 with two crashes a
    record acked is lost (``kmc check --kafka-version 4.1 -r 2 --crash-model disk-loss
    --max-crashes 2 --max-leader-epoch 3``: VIOLATED, 12 steps), and the three are false on
    reachable states there (166, 96 and 54 of 12,032 at epochs <= 2).

    Nor under KAFKA-15021 (3.6+, rule ``isr-shrink-keeps-leader-epoch``): the controller keeps the
    leader epoch on an ISR shrink, so 3.5's loss at epoch 3 (the leader shrinks the ISR to itself,
    the record is acked, the leader loses its disk and is elected again) comes at epoch 2, inside
    the default bounds: ``kmc check --kafka-version 3.7 -r 2 --crash-model disk-loss -p
    no-acked-loss --max-records 1`` is VIOLATED in 10 steps (issue 29ax), and the three facts are
    false on reachable states there (89, 62 and 17 of 3,288 at records 1, crashes 2).

    Under the ELR with at most one crash they are on again (issue 29az): there the ELR keeps the
    follower that the shrink left out eligible, and 4.1 keeps every acked record whatever the
    epoch bound (``kmc check --kafka-version 4.1 -r 2 --crash-model disk-loss -p no-acked-loss
    --max-records 1``: 911 states at leader epochs <= 2, 3 and 4 alike); the three hold on every
    one of those states, and with them ``kmc prove`` of that configuration is PROVED. The
    loss at two crashes needs the follower's own crash first (its unclean shutdown takes it out
    of the ELR), so one crash is the bound."""
    if not _on(config):
        return False
    if "eligible-leader-replicas" in config.rules:
        return config.bounds.max_crashes <= ELR_ACKED_MAX_CRASHES
    return SHRINK_KEEPS not in config.rules


ELR_ACKED_MAX_CRASHES = 1
"""The crash bound up to which the acked-record facts hold under the ELR (``_acked_on``)."""


def _acked_on_z3(d) -> bool:
    if not _on_z3(d):
        return False
    if d.elr:
        return d.max_crashes <= ELR_ACKED_MAX_CRASHES and not d.unbounded_crashes
    return not d.shrink_keeps


def _acked_only(check, with_config=False):
    def holds(s, config):
        return not _acked_on(config) or (check(s, config) if with_config else check(s))
    return holds


def _acked_only_z3(formula):
    def f(d, s):
        return formula(d, s) if _acked_on_z3(d) else z3.BoolVal(True)
    return f


def _only(check):
    def holds(s, config):
        return not _on(config) or check(s)
    return holds


def _only_z3(formula):
    def f(d, s):
        return formula(d, s) if _on_z3(d) else z3.BoolVal(True)
    return f


# --------------------------------------------------------------- issue 29av

FIRST_EPOCH_A_RESTARTED_BROKER_LEADS = 3
"""Under 3.3-3.5's controller (every ISR removal a new leader epoch) without the ELR: the first
leader epoch a broker that registered again can be named leader in. Since KIP-380 (2.2) the
controller handles a broker's failure before its registration (``processBrokerChange``: the
kernel's ``broker_restart`` waits for ``ControllerHandleBrokerFailure``; in KRaft
``ReplicationControlManager.handleBrokerFenced`` at 3.5.0 takes the broker out of every ISR it is
in), so at registration the partition's leader is another broker, or nobody with the restarted
broker the last ISR member; it is named leader only by a later election of a leaderless
partition (``ReplicationControlManager.handleBrokerUnfenced`` at 3.5.0 elects the partitions
with no leader).
The first epoch's ISR is every replica (``first-epoch-isr-full``), so the ISR comes down to one
member only in epoch 1 at the earliest (a shrink, a new epoch), is left leaderless by that
member's failure in epoch 2 at the earliest (a new epoch), and the election is epoch 3 or later.
Within ``--max-leader-epoch 2`` no request to a waiting broker names it leader, which is why 3.5
keeps every acked record there and loses one at 3 (docs/symbolic.md, issue 29an)."""


def _waiting_named_late(s, config) -> bool:
    if SHRINK_KEEPS in config.rules:
        return True
    return all(x >= FIRST_EPOCH_A_RESTARTED_BROKER_LEADS for q, x, leader, _ in s.leader_and_isr
               if leader == q and s.replicas[q].alive and s.replicas[q].leader_epoch == -1)


def _waiting_named_late_z3(d, s):
    if d.shrink_keeps:
        return z3.BoolVal(True)
    out = []
    for q, r in enumerate(s.reps):
        for x in range(min(len(s.lai[q]), FIRST_EPOCH_A_RESTARTED_BROKER_LEADS)):
            out.append(z3.Not(z3.And(s.lai[q][x], s.lai_leader[q][x] == q, r.alive, r.lep == -1)))
    return z3.And(out)



def _stale_answer_member_moved_on(s, config) -> bool:
    if SHRINK_KEEPS in config.rules:
        return True
    for r in s.replicas:
        a = r.alter_partition
        if not a or a[0] != ALTER_ACCEPTED or a[4]:
            continue
        for f in set(a[1]) - set(r.isr):
            fr = s.replicas[f]
            if fr.alive and 0 <= fr.leader_epoch <= a[2]:
                return False
    return True


def _stale_answer_member_moved_on_z3(d, s):
    if d.shrink_keeps or not d.alter or not d.fetch_epochs:
        return z3.BoolVal(True)
    out = []
    for r in s.reps:
        for f, fr in enumerate(s.reps):
            stale = z3.And(r.alt == ALTER_ACCEPTED, z3.Not(r.alt_mcur), r.alt_isr[f], z3.Not(r.isr[f]))
            out.append(z3.Implies(stale, z3.Not(z3.And(fr.alive, fr.lep >= 0, fr.lep <= r.alt_ep))))
    return z3.And(out)


FIRST_LEADERLESS_EPOCH = 2
"""Under the same controller (every ISR removal a new epoch, no ELR, KRaft ignoring unclean
election before 3.9): the first epoch the partition can be leaderless in. The first epoch's ISR
is every replica; a failure of a member of an ISR of several removes it (a new epoch, 1 at the
earliest), and only the failure of the last member leaves the partition without a leader (a new
epoch again: ``PartitionChangeBuilder`` at 3.5.0 keeps the last member in the ISR, leader -1)."""


def _leaderless_late(s, config) -> bool:
    if SHRINK_KEEPS in config.rules:
        return True
    epochs = [x for _, x, leader, _ in s.leader_and_isr if leader == NO_LEADER]
    if s.controller.leader == NO_LEADER:
        epochs.append(s.controller.leader_epoch)
    return all(x >= FIRST_LEADERLESS_EPOCH for x in epochs)


def _leaderless_late_z3(d, s):
    if d.shrink_keeps:
        return z3.BoolVal(True)
    out = [z3.Implies(s.c_leader == NO_LEADER, s.c_epoch >= FIRST_LEADERLESS_EPOCH)]
    for q in range(d.n):
        for x in range(min(len(s.lai[q]), FIRST_LEADERLESS_EPOCH)):
            out.append(z3.Not(z3.And(s.lai[q][x], s.lai_leader[q][x] == NO_LEADER)))
    return z3.And(out)



def _first_epoch_leader_isr_full(s, config) -> bool:
    if SHRINK_KEEPS in config.rules:
        return True
    return all(set(r.isr) == set(range(len(s.replicas))) for b, r in enumerate(s.replicas)
               if r.alive and r.leader == b and r.leader_epoch == 0)


def _first_epoch_leader_isr_full_z3(d, s):
    if d.shrink_keeps:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alive, r.leader == b, r.lep == 0), z3.And(list(r.isr)))
                   for b, r in enumerate(s.reps)])



def _first_epoch_holds_acked(s, config) -> bool:
    if SHRINK_KEEPS in config.rules or config.min_insync_replicas < config.replication_factor:
        return True
    return all(off < len(r.log) and r.log[off][0] == rid
               for r in s.replicas if r.alive and r.leader_epoch == 0 for rid, off in s.acked)


def _first_epoch_holds_acked_z3(d, s):
    if d.shrink_keeps or d.min_isr < d.n:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alive, r.lep == 0), holds_every_acked(d, s, r)) for r in s.reps])



def _no_operator_moves(config) -> bool:
    """No preferred-replica election nor reassignment: their new epochs keep the ISR whole."""
    return config.bounds.max_preferred_elections == 0 and config.bounds.max_reassignments == 0


def _later_requests_shrunk(s, config) -> bool:
    if SHRINK_KEEPS in config.rules or not _no_operator_moves(config):
        return True
    n = len(s.replicas)
    return all(len(isr) < n for _, x, _, isr in s.leader_and_isr if x > 0)


def _later_requests_shrunk_z3(d, s):
    if d.shrink_keeps or d.max_preferred or d.max_reassign:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(s.lai[q][x], z3.Not(z3.And(list(s.lai_isr[q][x]))))
                   for q in range(d.n) for x in range(1, len(s.lai[q]))])



def _current_member_caught_up(s) -> bool:
    """``alter-partition-added-member-caught-up`` (alter_partition.py) for a member running
    in the incarnation the proposal counted (``member_epoch_current``): it fetched in the
    leader's epoch, and no disk loss can have emptied it since."""
    return _added_member_caught_up(s, current_only=True)


def _current_member_caught_up_z3(d, s):
    return _added_member_caught_up_z3(d, s, current_only=True)


STRENGTHENINGS = (
    Strengthening("down-or-waiting-broker-empty", "(disk loss) a broker that is down, or running "
                  "and has applied no epoch since it started, has an empty log and HW 0",
                  lambda s, config: config.crash_model != DISK_LOSS or _down_broker_empty(s),
                  _down_broker_empty_z3, uses_config=True),
    Strengthening("isr-holds-controller-leader-hw", "(disk loss, KIP-903) every running member of the "
                  "controller's ISR of several holds the running controller's leader's records below its HW",
                  _only(_leader_hw_on_isr), _only_z3(_leader_hw_on_isr_z3), uses_config=True),
    Strengthening("acked-on-isr-of-several", "(disk loss, KIP-903, no ELR nor KAFKA-15021) every running "
                  "member of the controller's ISR of several holds every acked record",
                  _acked_only(_acked_in_isr_of_several), _acked_only_z3(_acked_in_isr_of_several_z3),
                  uses_config=True),
    Strengthening("acked-copies-past-losses", "(disk loss, KIP-903, no ELR nor KAFKA-15021) an acked "
                  "record is in at least min.insync.replicas minus the disk losses logs",
                  _acked_only(_acked_copies, True), _acked_only_z3(_acked_copies_z3),
                  uses_config=True),
    Strengthening("accepted-shrink-in-next-epoch", "(disk loss, KIP-903, KAFKA-15021's bump) an accepted "
                  "AlterPartition answer in its leader's own epoch keeps every member of the leader's ISR",
                  lambda s, config: not _on(config) or SHRINK_BUMPS not in config.rules or _accepted_shrink_bumps(s),
                  _only_z3(_accepted_shrink_bumps_z3), uses_config=True),
    Strengthening("isr-of-several-live", "(disk loss, KIP-903, KIP-841) every member of the controller's "
                  "ISR of several is in its live set",
                  lambda s, config: not _on(config) or "isr-eligibility" not in config.rules or _isr_of_several_live(s),
                  _only_z3(_isr_of_several_live_z3), uses_config=True),
    Strengthening("first-epoch-waiters-hold-no-ack", "(disk loss, KIP-903, the controller's ISR "
                  "change bumping the leader epoch) while a record is acked, at most "
                  "replication.factor minus min.insync.replicas running brokers still wait for "
                  "the first epoch's LeaderAndIsr",
                  lambda s, config: not _on(config) or _first_epoch_waiting(s, config),
                  _only_z3(_first_epoch_waiting_z3), uses_config=True),
    Strengthening("controller-leader-holds-acked", "(disk loss, KIP-903, no ELR nor KAFKA-15021) the "
                  "controller's leader, running, holds every acked record",
                  _acked_only(_controller_leader_holds_acked),
                  _acked_only_z3(_controller_leader_holds_acked_z3),
                  uses_config=True),
    Strengthening("added-member-not-restarted", "(disk loss, KIP-903, the controller's ISR change "
                  "bumping the leader epoch) a member an accepted AlterPartition or a pending "
                  "PartitionChangeRecord adds to its leader's ISR that is running and has applied no "
                  "epoch has no LeaderAndIsr of the leader's epoch or older on its way",
                  lambda s, config: not _on(config) or _added_not_restarted(s, config),
                  _only_z3(_added_not_restarted_z3), uses_config=True),
    Strengthening("first-epoch-isr-full", "(disk loss, KIP-903, the controller's ISR change "
                  "bumping the leader epoch) in the first leader epoch the controller's ISR holds "
                  "every replica: every removal makes a new epoch",
                  lambda s, config: not _on(config) or _first_epoch_isr_full(s, config),
                  _only_z3(_first_epoch_isr_full_z3), uses_config=True),
    Strengthening("restarted-broker-led-late", "(disk loss, KIP-903, the controller's ISR change "
                  "bumping the leader epoch, no ELR) a LeaderAndIsr on its way to a running broker "
                  "that has applied no epoch since it started names it leader only in epoch 3 or later",
                  _acked_only(_waiting_named_late, True), _acked_only_z3(_waiting_named_late_z3),
                  uses_config=True),
    Strengthening("stale-answer-member-moved-on", "(disk loss, KIP-903, the controller's ISR change "
                  "bumping the leader epoch) a member an accepted AlterPartition answer adds whose "
                  "broker epoch is stale, if running, has applied no epoch at or below the answer's "
                  "since it started",
                  lambda s, config: not _on(config) or _stale_answer_member_moved_on(s, config),
                  _only_z3(_stale_answer_member_moved_on_z3), uses_config=True),
    Strengthening("leaderless-from-epoch-2", "(disk loss, KIP-903, the controller's ISR change "
                  "bumping the leader epoch, no ELR) the controller's partition, and every "
                  "LeaderAndIsr, is leaderless only in epoch 2 or later",
                  _acked_only(_leaderless_late, True), _acked_only_z3(_leaderless_late_z3),
                  uses_config=True),
    Strengthening("first-epoch-leader-isr-full", "(disk loss, KIP-903, the controller's ISR "
                  "change bumping the leader epoch) a running leader in the first leader epoch has "
                  "every replica in its ISR: its ISR changes only by the controller's, and every "
                  "removal makes a new epoch",
                  lambda s, config: not _on(config) or _first_epoch_leader_isr_full(s, config),
                  _only_z3(_first_epoch_leader_isr_full_z3), uses_config=True),
    Strengthening("first-epoch-broker-holds-acked", "(disk loss, KIP-903, the controller's ISR "
                  "change bumping the leader epoch, no ELR, min.insync.replicas = replication.factor) "
                  "a running broker that has applied the first leader epoch since it started holds "
                  "every acked record",
                  _acked_only(_first_epoch_holds_acked, True), _acked_only_z3(_first_epoch_holds_acked_z3),
                  uses_config=True),
    Strengthening("later-requests-lack-a-replica", "(disk loss, KIP-903, the controller's ISR "
                  "change bumping the leader epoch, no ELR, no operator moves) a LeaderAndIsr of an "
                  "epoch after the first carries an ISR without some replica: every later epoch is "
                  "made by a removal from the ISR, or by electing the last member of one",
                  _acked_only(_later_requests_shrunk, True), _acked_only_z3(_later_requests_shrunk_z3),
                  uses_config=True),
    Strengthening("alter-partition-current-member-caught-up", "(disk loss, KIP-903) "
                  "alter-partition-added-member-caught-up for a member still running in the "
                  "incarnation the proposal counted: it holds the leader's records of older epochs "
                  "when it cannot have truncated since the leader's epoch",
                  _only(_current_member_caught_up), _only_z3(_current_member_caught_up_z3),
                  uses_config=True),
)
