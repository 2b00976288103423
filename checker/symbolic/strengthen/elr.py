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
)
