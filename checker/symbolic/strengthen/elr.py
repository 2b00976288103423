"""Strengthening invariants about KIP-966's eligible leader replicas (ELR) and last known leader
(rule ``eligible-leader-replicas``, Kafka 4.1; issue 29l). With the ELR on, the controller's ISR
may become empty and an election may pick a broker outside it: an ELR member when the ISR is
empty, or the last known leader when the ELR is empty too. These facts say why such a leader
still holds every acknowledged record: a replica joins the ELR only by leaving an ISR below
min.insync.replicas (so while the ISR is at min.insync.replicas or more, when acks=all records
are acknowledged, the ELR is empty), the last known leader was the leader when the ISR emptied,
and a broker that restarts after an unclean shutdown leaves both. Each is true without the rule
(the ELR and the last known leader are then empty)."""

from __future__ import annotations

import z3

from checker.symbolic.formulas import holds_every_acked
from checker.symbolic.state import count
from checker.symbolic.strengthen.base import Strengthening, holds_below, holds_below_z3
from model.constants import ALTER_ACCEPTED

ELR = "eligible-leader-replicas"


def _elr_isr_disjoint(s) -> bool:
    return not set(s.elr) & set(s.controller.isr)


def _elr_isr_disjoint_z3(d, s):
    return z3.And([z3.Not(z3.And(e, i)) for e, i in zip(s.elr, s.c_isr)])


def _elr_empty_at_min_isr(s, config) -> bool:
    return len(s.controller.isr) < config.min_insync_replicas or not s.elr


def _elr_empty_at_min_isr_z3(d, s):
    if not d.elr:
        return z3.BoolVal(True)
    return z3.Implies(count(s.c_isr) >= d.min_isr, z3.Not(z3.Or(s.elr)))


def _last_known_only_when_leaderless(s) -> bool:
    return not s.last_known_elr or s.controller.leader == -1


def _last_known_only_when_leaderless_z3(d, s):
    if not d.elr:
        return z3.BoolVal(True)
    return z3.Implies(z3.Or(s.lke), s.c_leader == -1)


def _every_member(config) -> bool:
    """Do the ``elr-holds-*`` facts speak of every ELR member? With min.insync.replicas=1 (a
    replica joins the ELR only as the ISR empties), and, issue 29n, under Kafka 3.7's
    ``hw-needs-min-isr`` (KAFKA-15583: the HW stays still while the ISR is below
    min.insync.replicas, which is when the ELR is not empty, so what a member had as it left the
    ISR is every record committed since; 4.1 has both rules)."""
    return config.min_insync_replicas <= 1 or "hw-needs-min-isr" in config.rules


def _vouched(s, config) -> list:
    """The replicas the two ``elr-holds-*`` facts speak of: the last known leader, and
    (``_every_member``) every ELR member; under power loss only running ones."""
    members = set(s.last_known_elr) | (set(s.elr) if _every_member(config) else set())
    lossy = config.crash_model == "power-loss"
    return [s.replicas[b] for b in sorted(members) if s.replicas[b].alive or not lossy]


def _vouched_z3(d, s) -> list:
    """``_vouched`` as one Bool per broker."""
    out = []
    for b, r in enumerate(s.reps):
        member = z3.Or(s.elr[b], s.lke[b]) if d.min_isr <= 1 or d.hw_min_isr else s.lke[b]
        out.append(z3.And(member, r.alive) if d.power_loss else member)
    return out


def _elr_holds_acked(s, config) -> bool:
    return all(off < len(r.log) and r.log[off][0] == rid
               for r in _vouched(s, config) for rid, off in s.acked)


def _elr_holds_acked_z3(d, s):
    if not d.elr:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(member, holds_every_acked(d, s, r))
                   for member, r in zip(_vouched_z3(d, s), s.reps)])


def _elr_holds_every_hw(s, config) -> bool:
    return all(holds_below(holder, r, r.high_watermark)
               for holder in _vouched(s, config) for r in s.replicas)


def _elr_holds_every_hw_z3(d, s):
    if not d.elr:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(member, holds_below_z3(d, holder, r, r.hw))
                   for member, holder in zip(_vouched_z3(d, s), s.reps)
                   for r in s.reps if r is not holder])



def _restarts(s) -> int:
    """How many brokers have restarted, at most: every crash leaves its broker down until it
    restarts, so the crashes less the brokers down now (the crash count is bounded)."""
    return s.crashes - sum(1 for r in s.replicas if not r.alive)


def _restarts_z3(s):
    return s.crashes - count([z3.Not(r.alive) for r in s.reps])


def _isr_or_elr_kept(s, config) -> bool:
    """Issue 29v. ``elr-keeps-min-isr``: see STRENGTHENINGS."""
    if ELR not in config.rules:
        return True
    kept = set(s.controller.isr) | set(s.elr)
    return len(kept) + _restarts(s) >= config.min_insync_replicas


def _isr_or_elr_kept_z3(d, s):
    if not d.elr:
        return z3.BoolVal(True)
    kept = count([z3.Or(i, e) for i, e in zip(s.c_isr, s.elr)])
    return kept + _restarts_z3(s) >= d.min_isr


def _leader_views(s, b) -> list:
    """The ISRs a running leader ``b`` goes by, each as (the ISR whose size says whether it has
    min.insync.replicas members, the members): its own ISR with the members an accepted
    AlterPartition adds (they count in ``Partition.maximalIsr``, which the HW waits for; the HW
    moves only while the ISR itself is at min.insync.replicas, KAFKA-15583), and the ISRs it will take without a new
    leader epoch: its accepted AlterPartition's answer, a pending change's (KRaft), and the
    LeaderAndIsr of the controller's epoch on its way to it that makes it leader."""
    r = s.replicas[b]
    views = []
    if r.leader == b:
        own = set(r.isr)
        answer = r.alter_partition and r.alter_partition[0] == ALTER_ACCEPTED
        views.append((own, own | (set(r.alter_partition[1]) if answer else set())))
        if answer:
            views.append((set(r.alter_partition[1]),) * 2)
        if r.partition_change:
            views.append((set(r.partition_change[0]),) * 2)
    views += [(set(isr),) * 2 for q, e, leader, isr in s.leader_and_isr
              if q == b and leader == b and e == s.controller.leader_epoch]
    return views


def _elr_in_leader_isr(s, config) -> bool:
    """Issue 29v. ``elr-in-leader-isr``: see STRENGTHENINGS."""
    if ELR not in config.rules:
        return True
    eligible = set(s.elr)
    return all(eligible <= members for b, r in enumerate(s.replicas) if r.alive
               for size, members in _leader_views(s, b)
               if len(size) >= config.min_insync_replicas)


def _leader_views_z3(d, s, b) -> list:
    """``_leader_views``: (the view is there, its ISR, its members)."""
    r = s.reps[b]
    leads = r.leader == b
    maximal = [z3.Or(i, z3.And(r.alt == ALTER_ACCEPTED, a)) for i, a in zip(r.isr, r.alt_isr)] if d.alter else r.isr
    views = [(leads, r.isr, maximal)]
    if d.alter:
        views.append((z3.And(leads, r.alt == ALTER_ACCEPTED), r.alt_isr, r.alt_isr))
    if d.kraft:
        views.append((z3.And(leads, r.chg), r.chg_isr, r.chg_isr))
    views += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == b, s.c_epoch == e),
               s.lai_isr[b][e], s.lai_isr[b][e]) for e in range(len(s.lai[b]))]
    return views


def _elr_in_leader_isr_z3(d, s):
    if not d.elr:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alive, there, count(size) >= d.min_isr),
                              z3.And([z3.Implies(e, m) for e, m in zip(s.elr, members)]))
                   for b, r in enumerate(s.reps)
                   for there, size, members in _leader_views_z3(d, s, b)])


def _answer_members_left_by_crash(s, config) -> bool:
    """Issue 29v. ``answer-members-left-by-crash``: see STRENGTHENINGS."""
    if ELR not in config.rules:
        return True
    c = s.controller
    gone = {j for r in s.replicas
            if r.alter_partition and r.alter_partition[0] == ALTER_ACCEPTED
            and r.alter_partition[2] == c.leader_epoch
            for j in r.alter_partition[1] if j not in c.isr and s.replicas[j].alive}
    return len(gone) <= _restarts(s)


def _answer_members_left_by_crash_z3(d, s):
    if not d.elr:
        return z3.BoolVal(True)
    gone = [z3.And(s.reps[j].alive, z3.Not(s.c_isr[j]),
                   z3.Or([z3.And(r.alt == ALTER_ACCEPTED, r.alt_ep == s.c_epoch, r.alt_isr[j])
                          for r in s.reps]))
            for j in range(d.n)]
    return count(gone) <= _restarts_z3(s)


def _current_leader_knows_isr(s, config) -> bool:
    """Issue 29v. ``current-partition-epoch-leader-knows-isr``: see STRENGTHENINGS."""
    if ELR not in config.rules:
        return True
    c = s.controller
    leaders = all(r.leader_epoch == c.leader_epoch and c.leader == b and set(r.isr) == set(c.isr)
                  for b, r in enumerate(s.replicas)
                  if r.alive and r.leader == b and r.partition_epoch_current)
    answers = all(r.alter_partition[2] == c.leader_epoch and set(r.alter_partition[1]) == set(c.isr)
                  for r in s.replicas if r.alter_partition
                  and r.alter_partition[0] == ALTER_ACCEPTED and r.alter_partition[3])
    current = set(s.leader_and_isr_current)
    return leaders and answers and all(e == c.leader_epoch and leader == c.leader and set(isr) == set(c.isr)
                           for b, e, leader, isr in s.leader_and_isr if (b, e) in current)


def _current_leader_knows_isr_z3(d, s):
    if not d.elr:
        return z3.BoolVal(True)
    out = [z3.Implies(z3.And(r.alive, r.leader == b, r.pec),
                      z3.And([r.lep == s.c_epoch, s.c_leader == b]
                             + [x == y for x, y in zip(r.isr, s.c_isr)]))
           for b, r in enumerate(s.reps)]
    out += [z3.Implies(z3.And(s.lai[b][e], s.lai_cur[b][e]),
                       z3.And([s.c_epoch == e, s.lai_leader[b][e] == s.c_leader]
                              + [x == y for x, y in zip(s.lai_isr[b][e], s.c_isr)]))
            for b in range(d.n) for e in range(len(s.lai[b]))]
    out += [z3.Implies(z3.And(r.alt == ALTER_ACCEPTED, r.alt_cur),
                       z3.And([r.alt_ep == s.c_epoch] + [x == y for x, y in zip(r.alt_isr, s.c_isr)]))
            for r in s.reps]
    return z3.And(out)


# in the order `kmc list` shows them
STRENGTHENINGS = (
    Strengthening("elr-isr-disjoint", "no broker is in both the controller's ISR and its ELR "
                  "(``PartitionChangeBuilder.maybePopulateTargetElr``: the ELR is the old ELR "
                  "and ISR less the new ISR; KIP-966)", _elr_isr_disjoint, _elr_isr_disjoint_z3),
    Strengthening("elr-empty-at-min-isr", "while the controller's ISR has min.insync.replicas "
                  "members or more the ELR is empty (KIP-966: a replica joins it only by leaving "
                  "an ISR below min.insync.replicas)", _elr_empty_at_min_isr,
                  _elr_empty_at_min_isr_z3, uses_config=True),
    Strengthening("last-known-only-when-leaderless", "a last known leader is recorded only while "
                  "the partition has no leader (every election clears it; KIP-966)",
                  _last_known_only_when_leaderless, _last_known_only_when_leaderless_z3),
    Strengthening("elr-holds-acked", "the last known leader, and with "
                  "min.insync.replicas=1 or Kafka 3.7's hw-needs-min-isr (issue 29n) every ELR "
                  "member, holds every acked record at its offset "
                  "(each was in the ISR as it emptied). With 2 or more it is false: a record is "
                  "acked when the leader's maximal ISR (a pending expansion counted) reaches "
                  "min.insync.replicas while the controller's ISR is below it and its ELR holds a "
                  "replica without the record (RF=3, without Kafka 3.7's hw-needs-min-isr, which "
                  "keeps the HW still then). Under power loss only a running one (a down "
                  "one may have lost its unflushed tail, and leaves the ELR when it restarts)", _elr_holds_acked, _elr_holds_acked_z3, uses_config=True),
    Strengthening("elr-holds-every-hw", "the last known leader, and with "
                  "min.insync.replicas=1 or hw-needs-min-isr (issue 29n) every ELR member, holds every broker's records below that "
                  "broker's HW, as an ISR member does (``isr-holds-every-hw``): with "
                  "min.insync.replicas=1 a replica joins the ELR only as the ISR empties. With 2 "
                  "or more a replica that left the ISR for the ELR may lack records the smaller "
                  "ISR committed later (false on reachable states without Kafka 3.7's "
                  "hw-needs-min-isr, which keeps the HW still then). Under power loss only a running one",
                  _elr_holds_every_hw, _elr_holds_every_hw_z3, uses_config=True),
    # issue 29v
    Strengthening("elr-keeps-min-isr", "the controller's ISR and ELR together have "
                  "min.insync.replicas members or more, less one per broker restarted (at most "
                  "the crashes less the brokers down): an ISR change to below "
                  "min.insync.replicas puts every member it removes in the ELR, one to "
                  "min.insync.replicas or more empties the ELR, an election from the ELR or the "
                  "last known leader keeps its winner in the ISR, and only a restart after an "
                  "unclean shutdown takes a broker out of both "
                  "(``PartitionChangeBuilder.maybePopulateTargetElr``, "
                  "``ReplicationControlManager.handleBrokerUncleanShutdown``; KIP-966). False "
                  "with unclean leader election, which empties the ELR",
                  _isr_or_elr_kept, _isr_or_elr_kept_z3, uses_config=True),
    Strengthening("elr-in-leader-isr", "a running leader whose ISR has min.insync.replicas "
                  "members or more has every ELR member in it: a replica joins the ELR by "
                  "leaving the controller's ISR, which then is below min.insync.replicas, and "
                  "the leader learns of it only later (an ISR change keeping the leader epoch, "
                  "KRaft 3.6+, or its AlterPartition's answer); its ISR reaches "
                  "min.insync.replicas again only by an accepted AlterPartition, which empties "
                  "the ELR (KIP-966). With hw-needs-min-isr the HW moves only then, so it never "
                  "passes a record an ELR member lacks", _elr_in_leader_isr, _elr_in_leader_isr_z3,
                  uses_config=True),
    Strengthening("answer-members-left-by-crash", "a running member of the ISR an accepted "
                  "AlterPartition of the controller's leader epoch carries back is still in the "
                  "controller's ISR, or has restarted (at most the crashes less the brokers "
                  "down): the controller wrote that ISR, its leader sends no other change while "
                  "the answer is on its way, and in the same leader epoch the controller "
                  "removes only a failed broker or one restarting after an unclean shutdown "
                  "(KRaft 3.6+ keeps the epoch; KIP-966)", _answer_members_left_by_crash,
                  _answer_members_left_by_crash_z3, uses_config=True),
    Strengthening("current-partition-epoch-leader-knows-isr", "a running leader that holds "
                  "the controller's current partition epoch leads in the controller's leader "
                  "epoch and holds the controller's ISR, a LeaderAndIsr in flight that "
                  "carries it names the controller's epoch, leader and ISR, and an accepted "
                  "AlterPartition's answer that carries it the controller's epoch and ISR: it learned that epoch from the record "
                  "the controller wrote last (a LeaderAndIsr, a KRaft change or its "
                  "AlterPartition's answer, each carrying the ISR), and every write since would "
                  "have made it stale (KIP-497's partition epoch; the kernel's ``commit``)",
                  _current_leader_knows_isr, _current_leader_knows_isr_z3, uses_config=True),
)
