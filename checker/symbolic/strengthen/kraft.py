"""Strengthening invariants about KRaft's metadata log (Kafka 3.3, rule ``kraft``; issue 29m): the
``PartitionChangeRecord`` that keeps the leader epoch and waits on its leader to be applied (the
kernel's ``partition_change``, ``BrokerApplyPartitionChange``). Without the rule no change is
ever pending and each is true at once (its formula is ``True``).

The controller sends such a change only to its leader of the moment (``write_partition``,
``controller_register_broker``, a KRaft reassignment), with the record's leader epoch (the
controller's) and the new ISR, which always holds the leader (no ISR write drops it without ELR);
a newer change replaces it, a crash drops it, and so does a record of a newer leader epoch once
the broker applies it (``finish``). Any later record clears its partition-epoch bit (``commit``)."""

from __future__ import annotations

import z3

from checker.symbolic.strengthen.base import Strengthening
from model.constants import ALTER_ACCEPTED


def _change_on_its_leader(s) -> bool:
    c = s.controller
    for b, r in enumerate(s.replicas):
        if not r.partition_change:
            continue
        isr, epoch, _ = r.partition_change
        if not (r.alive and b in isr and r.leader_epoch <= epoch <= c.leader_epoch):
            return False
        if epoch == c.leader_epoch and c.leader != b:
            return False
    return True


def _change_on_its_leader_z3(d, s):
    if not d.kraft:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        out.append(z3.Implies(r.chg, z3.And(
            r.alive, r.chg_isr[b], r.lep <= r.chg_ep, r.chg_ep <= s.c_epoch,
            z3.Implies(r.chg_ep == s.c_epoch, s.c_leader == b))))
    return z3.And(out)


def _current_change_is_controller_state(s, config) -> bool:
    if "alter-partition" not in config.rules:
        return True  # (the bit is then never cleared: ``commit`` needs the rule)
    c = s.controller
    return all(r.partition_change[1] == c.leader_epoch and tuple(r.partition_change[0]) == c.isr
               and c.leader == b
               for b, r in enumerate(s.replicas) if r.partition_change and r.partition_change[2]) \
        and all(r.partition_change[2] for r in s.replicas
                if r.partition_change and r.partition_change[1] == c.leader_epoch)


def _current_change_is_controller_state_z3(d, s):
    if not (d.kraft and d.alter):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.chg, r.chg_cur), z3.And(
        [r.chg_ep == s.c_epoch, s.c_leader == b] + [x == y for x, y in zip(r.chg_isr, s.c_isr)]))
        for b, r in enumerate(s.reps)]
        + [z3.Implies(z3.And(r.chg, r.chg_ep == s.c_epoch), r.chg_cur) for r in s.reps])


def _grows_only(config) -> bool:
    """Does the ISR only grow within a leader epoch? In 3.3-3.5 every shrink is a new leader
    epoch: the leader's (``alter-partition-shrink-bumps-leader-epoch``) and the controller's own
    (unless ``isr-shrink-keeps-leader-epoch``)."""
    rules = config.rules
    return ("alter-partition-shrink-bumps-leader-epoch" in rules
            and "isr-shrink-keeps-leader-epoch" not in rules)


def _grows_only_z3(d) -> bool:
    """``_grows_only`` read on the encoding's dimensions."""
    return d.kraft and d.shrink_bumps and not d.shrink_keeps


def _change_grows_the_isr(s, config) -> bool:
    if not _grows_only(config):
        return True
    c = s.controller
    for b, r in enumerate(s.replicas):
        if not r.partition_change:
            continue
        isr, epoch, _ = r.partition_change
        if epoch == c.leader_epoch and not set(isr) <= set(c.isr):
            return False
        if r.leader == b and epoch == r.leader_epoch and not set(r.isr) <= set(isr):
            return False
        if any(q[0] == b and q[1] == epoch and not set(q[3]) <= set(isr) for q in s.leader_and_isr):
            return False
    return True


def _change_grows_the_isr_z3(d, s):
    if not _grows_only_z3(d):
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        out.append(z3.Implies(z3.And(r.chg, r.chg_ep == s.c_epoch), z3.And(
            [z3.Implies(r.chg_isr[j], s.c_isr[j]) for j in range(d.n)])))
        out.append(z3.Implies(z3.And(r.chg, r.leader == b, r.chg_ep == r.lep), z3.And(
            [z3.Implies(r.isr[j], r.chg_isr[j]) for j in range(d.n)])))
        for e in range(len(s.lai[b])):  # the record that started the epoch, still on its way
            out.append(z3.Implies(z3.And(r.chg, r.chg_ep == e, s.lai[b][e]), z3.And(
                [z3.Implies(s.lai_isr[b][e][j], r.chg_isr[j]) for j in range(d.n)])))
    return z3.And(out)


def _change_ahead_is_answered(s, config) -> bool:
    grows = _grows_only(config)
    if not (grows or "isr-shrink-keeps-leader-epoch" in config.rules):
        return True
    # with 3.6's controller shrinks the ISR may also shrink within the epoch: then a change
    # that *adds* a member is answered, and an answer holds the change's ISR
    within = (lambda a, b: tuple(a) == tuple(b)) if grows else (lambda a, b: set(a) <= set(b))
    for b, r in enumerate(s.replicas):
        if not r.partition_change:
            continue
        isr, epoch, _ = r.partition_change
        a = r.alter_partition
        ahead = tuple(r.isr) != tuple(isr) if grows else not set(isr) <= set(r.isr)
        if r.leader == b and epoch == r.leader_epoch and ahead:
            if not (a and a[0] == ALTER_ACCEPTED and a[2] == epoch and within(isr, a[1])):
                return False
        if a and a[0] == ALTER_ACCEPTED and a[2] == epoch and not within(isr, a[1]):
            return False
    return True


def _change_ahead_is_answered_z3(d, s):
    grows = _grows_only_z3(d)
    if not ((grows or d.kraft and d.shrink_keeps) and d.alter):
        return z3.BoolVal(True)

    def within(xs, ys):
        return z3.And([x == y if grows else z3.Implies(x, y) for x, y in zip(xs, ys)])

    out = []
    for b, r in enumerate(s.reps):
        ahead = (z3.Or([r.isr[j] != r.chg_isr[j] for j in range(d.n)]) if grows
                 else z3.Or([z3.And(r.chg_isr[j], z3.Not(r.isr[j])) for j in range(d.n)]))
        out.append(z3.Implies(z3.And(r.chg, r.leader == b, r.chg_ep == r.lep, ahead), z3.And(
            r.alt == ALTER_ACCEPTED, r.alt_ep == r.chg_ep, within(r.chg_isr, r.alt_isr))))
        out.append(z3.Implies(z3.And(r.chg, r.alt == ALTER_ACCEPTED, r.alt_ep == r.chg_ep),
                              within(r.chg_isr, r.alt_isr)))
    return z3.And(out)


def _change_waits_for_its_epoch(s, config) -> bool:
    grows = _grows_only(config)
    if not (grows or "isr-shrink-keeps-leader-epoch" in config.rules):
        return True
    within = (lambda a, b: tuple(a) == tuple(b)) if grows else (lambda a, b: set(a) <= set(b))
    for b, r in enumerate(s.replicas):
        if r.partition_change and r.partition_change[1] > r.leader_epoch:
            isr, epoch, _ = r.partition_change
            if not any(q[0] == b and q[1] == epoch and q[2] == b and within(isr, q[3])
                       for q in s.leader_and_isr):
                return False
    return True


def _change_waits_for_its_epoch_z3(d, s):
    grows = _grows_only_z3(d)
    if not (grows or d.kraft and d.shrink_keeps):
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        for e in range(len(s.lai[b])):
            out.append(z3.Implies(z3.And(r.chg, r.chg_ep == e, r.lep < e), z3.And(
                [s.lai[b][e], s.lai_leader[b][e] == b]
                + [x == y if grows else z3.Implies(x, y)
                   for x, y in zip(r.chg_isr, s.lai_isr[b][e])])))
    return z3.And(out)



def _new_epoch_new_leader(config) -> bool:
    """Does every new leader epoch name another leader (or none)? Under KRaft since 3.6
    (``isr-shrink-keeps-leader-epoch`` without 3.3-3.5's AlterPartition shrink epoch): the
    controller makes a leader epoch only by electing (a failed leader's successor, a restarting
    broker of a leaderless partition), never for an ISR change of the same leader; the operator's
    preferred elections and kmc's unordered moves may hand leadership back, so not with them
    (issue 29n)."""
    return ("kraft" in config.rules and "isr-shrink-keeps-leader-epoch" in config.rules
            and "alter-partition-shrink-bumps-leader-epoch" not in config.rules
            and "unordered-leader-moves" not in config.rules
            and not config.bounds.max_preferred_elections)


def _running_leader_is_current(s, config) -> bool:
    if not _new_epoch_new_leader(config):
        return True
    c = s.controller
    return all(not (r.alive and r.leader == b and 0 <= r.leader_epoch < c.leader_epoch
                    and c.leader == b) for b, r in enumerate(s.replicas)) and all(
        not (leader == b and e < c.leader_epoch and c.leader == b)
        for b, e, leader, _ in s.leader_and_isr)


def _running_leader_is_current_z3(d, s):
    if not (d.kraft and d.shrink_keeps and not d.shrink_bumps and d.ordered
            and not d.max_preferred):
        return z3.BoolVal(True)
    running = [z3.Not(z3.And(r.alive, r.leader == b, r.lep >= 0, r.lep < s.c_epoch,
                             s.c_leader == b)) for b, r in enumerate(s.reps)]
    on_its_way = [z3.Not(z3.And(s.lai[b][e], s.lai_leader[b][e] == b, e < s.c_epoch,
                                s.c_leader == b))
                  for b in range(d.n) for e in range(len(s.lai[b]))]
    return z3.And(running + on_its_way)


STRENGTHENINGS = (
    Strengthening("kraft-change-on-its-leader", "a pending PartitionChangeRecord (KRaft) is on a "
                  "running broker whose leader epoch is at most the record's, which is at most the "
                  "controller's; its ISR holds that broker, and in the controller's epoch the broker "
                  "is the controller's leader",
                  _change_on_its_leader, _change_on_its_leader_z3),
    Strengthening("kraft-current-change-is-controller-state", "a pending PartitionChangeRecord "
                  "that still holds the current partition epoch carries the controller's leader "
                  "epoch and ISR, on the controller's leader; and one of the controller's leader "
                  "epoch holds it (every later record of that epoch reached the same leader, "
                  "replacing it)",
                  _current_change_is_controller_state, _current_change_is_controller_state_z3,
                  uses_config=True),
    Strengthening("kraft-change-grows-the-isr", "where every ISR shrink is a new leader epoch "
                  "(3.3-3.5), a pending PartitionChangeRecord's ISR is within the controller's in "
                  "the controller's epoch, and holds its leader's ISR in the leader's epoch and the "
                  "ISR of a LeaderAndIsr of its epoch still on its way to it: within one leader "
                  "epoch the ISR only grows",
                  _change_grows_the_isr, _change_grows_the_isr_z3, uses_config=True),
    Strengthening("kraft-change-ahead-is-answered", "where every ISR shrink is a new leader "
                  "epoch (3.3-3.5), a pending PartitionChangeRecord of its leader's epoch whose "
                  "ISR differs from the leader's is the leader's own accepted AlterPartition, "
                  "whose answer, carrying the same ISR, is still on its way back; and an accepted "
                  "answer of a pending change's epoch carries the change's ISR (with 3.6's "
                  "isr-shrink-keeps-leader-epoch: a change that adds a member to the leader's ISR, "
                  "and an answer holds the change's ISR)",
                  _change_ahead_is_answered, _change_ahead_is_answered_z3, uses_config=True),
    Strengthening("kraft-change-waits-for-its-epoch", "where every ISR shrink is a new leader "
                  "epoch (3.3-3.5), a pending PartitionChangeRecord of a leader epoch its broker "
                  "has not applied yet (a reassignment's) has the LeaderAndIsr of that epoch, "
                  "making it leader with the same ISR, on its way to it (nobody else changes the "
                  "ISR in that epoch before the leader has it; with 3.6's "
                  "isr-shrink-keeps-leader-epoch the controller may shrink it: the request's ISR "
                  "holds the change's)",
                  _change_waits_for_its_epoch, _change_waits_for_its_epoch_z3, uses_config=True),
    # issue 29n (Kafka 4.1 with the ELR)
    Strengthening("kraft-running-leader-is-current", "under KRaft since 3.6 (no ISR change "
                  "makes a leader epoch; no preferred elections) a broker running as leader in a "
                  "leader epoch older than the controller's, or sent such a LeaderAndIsr naming it, "
                  "is not the controller's leader: a new epoch names another leader or none, and the old one gets it only by crashing "
                  "and being elected again",
                  _running_leader_is_current, _running_leader_is_current_z3, uses_config=True),
)
