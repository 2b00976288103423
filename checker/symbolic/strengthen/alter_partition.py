"""Strengthening invariants about KIP-497's AlterPartition (Kafka 2.7, rule ``alter-partition``;
issue 29i): the leader's ISR change in flight to the controller and back, and the partition
epoch (ZooKeeper's ``zkVersion``) it carries. Without the rule no request is ever pending and each
is true at once (its formula is ``True``)."""

from __future__ import annotations

import z3

from checker.symbolic.formulas import holds_every_acked
from checker.symbolic.strengthen.base import Strengthening
from checker.symbolic.strengthen.history import follower_kept_log_since, follower_kept_log_since_z3
from model.constants import ALTER_ACCEPTED, ALTER_REFUSED, ALTER_STUCK


SHRINK_BUMPS = "alter-partition-shrink-bumps-leader-epoch"


def _on_its_leader(s, config) -> bool:
    bumps = SHRINK_BUMPS in config.rules
    return all(r.alive and r.leader == b and (
        r.alter_partition[2] == r.leader_epoch
        or bumps and r.alter_partition[0] in (ALTER_ACCEPTED, ALTER_STUCK)
        and r.alter_partition[2] == r.leader_epoch + 1
        and set(r.alter_partition[1]) < set(r.isr)  # the answer to a shrink,
        and r.alter_partition[2] <= s.controller.leader_epoch  # of an epoch the controller made
        and any(q[0] == b and q[1] == r.alter_partition[2] for q in s.leader_and_isr))  # on its way
        for b, r in enumerate(s.replicas) if r.alter_partition)


def _on_its_leader_z3(d, s):
    if not d.alter:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        epoch = r.alt_ep == r.lep
        if d.shrink_bumps:  # issue 29f: the answer to a shrink carries the next leader epoch,
            # which the leader keeps (stuck) until it applies that epoch's LeaderAndIsr
            answered = z3.Or(r.alt == ALTER_ACCEPTED, r.alt == ALTER_STUCK)
            shrink = z3.And([z3.Implies(r.alt_isr[j], r.isr[j]) for j in range(d.n)]
                            + [z3.Or([z3.And(r.isr[j], z3.Not(r.alt_isr[j])) for j in range(d.n)])])
            on_its_way = z3.Or([z3.And(r.alt_ep == e, s.lai[b][e]) for e in range(len(s.lai[b]))])
            epoch = z3.Or(epoch, z3.And(answered, r.alt_ep == r.lep + 1, shrink,
                                        r.alt_ep <= s.c_epoch, on_its_way))
        out.append(z3.Implies(r.alt != 0, z3.And(r.alive, r.leader == b, epoch)))
    return z3.And(out)


def _answer_is_controller_isr(s, config) -> bool:
    c = s.controller
    keeps = "isr-shrink-keeps-leader-epoch" in config.rules
    return all(r.alter_partition[1] == c.isr
               or keeps and r.partition_change and r.partition_change[1] == c.leader_epoch
               and tuple(r.partition_change[0]) == c.isr and set(c.isr) <= set(r.alter_partition[1])
               for r in s.replicas
               if r.alter_partition and r.alter_partition[0] == ALTER_ACCEPTED
               and r.alter_partition[2] == c.leader_epoch)


def _answer_is_controller_isr_z3(d, s):
    if not d.alter:
        return z3.BoolVal(True)
    out = []
    for r in s.reps:
        same = z3.And([x == y for x, y in zip(r.alt_isr, s.c_isr)])
        if d.kraft and d.shrink_keeps:  # issue 29m: a shrink since, on its way as a change
            same = z3.Or(same, z3.And([r.chg, r.chg_ep == s.c_epoch]
                                      + [x == y for x, y in zip(r.chg_isr, s.c_isr)]
                                      + [z3.Implies(x, y) for x, y in zip(s.c_isr, r.alt_isr)]))
        out.append(z3.Implies(z3.And(r.alt == ALTER_ACCEPTED, r.alt_ep == s.c_epoch), same))
    return z3.And(out)


def _one_follower_change(s, config) -> bool:
    sets = "isr-shrink-out-of-sync-set" in config.rules and "eligible-leader-replicas" in config.rules
    for b, r in enumerate(s.replicas):
        if r.alter_partition:
            proposed = set(r.alter_partition[1])
            others = {j for j in proposed ^ set(r.isr) if j != b}  # the leader's own bit aside
            if sets and b in proposed and proposed <= set(r.isr) and others:
                continue  # LeaderShrinkIsrSet removes several (issue 29l)
            if b not in proposed or len(others) != 1:
                return False
    return True


def _one_follower_change_z3(d, s):
    if not d.alter:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        differs = [z3.Xor(r.alt_isr[j], r.isr[j]) for j in range(d.n) if j != b]
        one = z3.PbEq([(x, 1) for x in differs], 1)
        if d.shrink_set and d.elr:  # LeaderShrinkIsrSet removes several (issue 29l)
            fewer = z3.And([z3.Implies(r.alt_isr[j], r.isr[j]) for j in range(d.n)]
                           + [z3.Or(differs)])
            one = z3.Or(one, fewer)
        out.append(z3.Implies(r.alt != 0, z3.And(r.alt_isr[b], one)))
    return z3.And(out)


def _proposal_holds_acked(s, skip=None) -> bool:
    c = s.controller
    for r in s.replicas:
        a = r.alter_partition
        if a and a[2] == c.leader_epoch:
            for m in a[1]:
                if skip is not None and skip(r, m):
                    continue  # issue 29w (power_loss_kraft): a member that may have lost power
                log = s.replicas[m].log
                if not all(off < len(log) and log[off][0] == rid for rid, off in s.acked):
                    return False
    return True


def _proposal_holds_acked_z3(d, s, skip=None):
    if not d.alter:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alt != 0, r.alt_ep == s.c_epoch, r.alt_isr[m],
                                     z3.BoolVal(True) if skip is None else z3.Not(skip(d, s, r, m))),
                              holds_every_acked(d, s, s.reps[m]))
                   for r in s.reps for m in range(d.n)])


def _never_refused(s, config) -> bool:
    if "isr-eligibility" in config.rules or "broker-epoch-in-fetch" in config.rules:
        return True  # KIP-841 (issue 29f), KIP-903 (issue 29h): INELIGIBLE_REPLICA
    return not any(r.alter_partition and r.alter_partition[0] == ALTER_REFUSED
                   for r in s.replicas)


def _never_refused_z3(d, s):
    if not d.alter or d.eligibility or d.fetch_epochs:
        return z3.BoolVal(True)
    return z3.And([r.alt != ALTER_REFUSED for r in s.reps])


def _added_member_caught_up(s, current_only: bool = False) -> bool:
    """``current_only`` (issue 29av, under disk loss): only a member running in the incarnation
    the proposal counted (``member_epoch_current``) must hold the leader's older records; the
    two fencing halves stay for every proposed member."""
    for b, r in enumerate(s.replicas):
        a = r.alter_partition
        if not a or not (r.alive and r.leader == b):
            continue
        e = r.leader_epoch
        for f in set(a[1]) - set(r.isr):
            fe = s.replicas[f].leader_epoch
            if f != b and 0 <= fe < e:
                return False  # it fetched in e (fenced), and its epoch only grows until a crash
            if f != b and fe == -1 and any(q == f and x < e for q, x, _, _ in s.leader_and_isr):
                return False  # restarted before e: it never fetched in e
            if f == b or not follower_kept_log_since(s, f, b, e):
                continue
            if current_only and not (a[4] and s.replicas[f].alive):
                continue
            log = s.replicas[f].log
            if any(rec[1] < e and (i >= len(log) or log[i] != rec) for i, rec in enumerate(r.log)):
                return False
    return True


def _added_member_caught_up_z3(d, s, current_only: bool = False):
    if not d.alter:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == b:
                continue
            current = [r.alt_mcur, fr.alive] if current_only else []
            added = z3.And(r.alive, r.leader == b, r.alt != 0, r.alt_isr[f], z3.Not(r.isr[f]),
                           *current, follower_kept_log_since_z3(d, s, f, b, r.lep))
            held = [z3.Implies(z3.And(i < r.leo, r.log_ep[i] < r.lep),
                               z3.And(i < fr.leo, fr.log_id[i] == r.log_id[i],
                                      fr.log_ep[i] == r.log_ep[i]))
                    for i in range(d.slots)]
            out.append(z3.Implies(added, z3.And(held)))
            proposed = z3.And(r.alive, r.leader == b, r.alt != 0, r.alt_isr[f], z3.Not(r.isr[f]))
            out.append(z3.Implies(proposed, z3.Not(z3.And(fr.lep >= 0, fr.lep < r.lep))))
            out += [z3.Implies(z3.And(proposed, fr.lep == -1, s.lai[f][x]), x >= r.lep)
                    for x in range(len(s.lai[f]))]
    return z3.And(out)


# in the order `kmc list` shows them
STRENGTHENINGS = (
    Strengthening("alter-partition-never-refused", "no AlterPartition is refused: the ZooKeeper "
                  "controller of 2.7 to 3.x checks no member's eligibility "
                  "(``KafkaController.processAlterIsr``, 2.7.0); INELIGIBLE_REPLICA comes with "
                  "KIP-841 (KRaft, 3.3, rule ``isr-eligibility``) and KIP-903's broker-epoch "
                  "check (3.5, ``broker-epoch-in-fetch``): off under either", _never_refused,
                  _never_refused_z3, uses_config=True),
    Strengthening("alter-partition-on-its-leader", "a pending AlterPartition belongs to a running "
                  "broker that leads in its own view, in the leader epoch it was sent in: a new "
                  "epoch (``Partition.makeLeader`` / ``makeFollower``) or a crash drops it "
                  "(``isrState`` becomes ``CommittedIsr``, 2.7.0), and the controller answers in "
                  "that epoch or leaves it stuck; under ``alter-partition-shrink-bumps-leader-"
                  "epoch`` (3.3-3.5) an accepted shrink (only a shrink) carries the next leader epoch, one the "
                  "controller made and whose LeaderAndIsr is on its way to the leader, kept stuck "
                  "till the leader applies it "
                  "(``PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded``, 3.3.0)",
                  _on_its_leader, _on_its_leader_z3, uses_config=True),
    Strengthening("alter-partition-answer-is-controller-isr", "an accepted AlterPartition of "
                  "the controller's leader epoch carries the controller's ISR: it was written "
                  "(or already was the ISR, ``equalsIgnoreZk``) when the controller answered, and "
                  "in ZooKeeper mode nothing else changes the ISR without a new leader epoch "
                  "while that leader's request is pending (``KafkaController.processAlterIsr``, "
                  "2.7.0; with 3.6's isr-shrink-keeps-leader-epoch on KRaft, or the controller has "
                  "only shrunk it since and a pending change of that epoch on the leader carries "
                  "it, issue 29m)", _answer_is_controller_isr,
                  _answer_is_controller_isr_z3, uses_config=True),
    Strengthening("alter-partition-changes-one-follower", "a pending AlterPartition proposes "
                  "its leader's ISR with one follower added or removed, and the leader in it: "
                  "``PendingExpandIsr(isr, newInSyncReplicaId)`` / ``PendingShrinkIsr`` of one "
                  "lagging follower (kmc's LeaderShrinkIsr) at 2.7.0, and the leader's ISR does "
                  "not change while it waits; under 4.0's isr-shrink-out-of-sync-set with the ELR "
                  "(LeaderShrinkIsrSet, issue 29l) a set of followers may be removed",
                  _one_follower_change, _one_follower_change_z3, uses_config=True),
    Strengthening("alter-partition-proposal-holds-acked", "every member of an AlterPartition "
                  "of the controller's leader epoch holds every acknowledged record, at its "
                  "offset: a follower is proposed only once its fetch offset has reached the HW "
                  "and its epoch's start (``Partition.isFollowerAtHighwatermark``, 2.7.0), having "
                  "fetched the leader's log below it, and the controller may write the proposal "
                  "into its ISR (``acked-in-isr``)", _proposal_holds_acked,
                  _proposal_holds_acked_z3),
    Strengthening("alter-partition-added-member-caught-up", "a follower a leader proposes to "
                  "add is in the leader's epoch or a later one, or has crashed since, not before "
                  "(no older request on its way to it): it fetched in that epoch (KIP-320's "
                  "fenced fetch); and, unless it may have truncated "
                  "since, holds the leader's records from "
                  "before the leader's epoch: it was proposed only once its fetch offset reached "
                  "the epoch's start (``isFollowerAtHighwatermark``, 2.7.0; "
                  "``added-members-caught-up`` for the maximal ISR)", _added_member_caught_up,
                  _added_member_caught_up_z3),
)
