"""Facts only disk loss needs (issue 29an). WIP."""

from __future__ import annotations

from itertools import permutations

import z3

from checker.symbolic.formulas import holds_acked, holds_every_acked
from checker.symbolic import numbers as num
from checker.symbolic.state import count
from model.constants import ALTER_ACCEPTED
from checker.symbolic.strengthen.base import Strengthening, holds_below, holds_below_z3

DISK_LOSS = "disk-loss"
SHRINK_BUMPS = "alter-partition-shrink-bumps-leader-epoch"


def _on(config) -> bool:
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
    return all(r.alive or (not r.log and r.high_watermark == 0) for r in s.replicas)


def _down_broker_empty_z3(d, s):
    if not d.disk_loss:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.Not(r.alive), z3.And(r.leo == 0, r.hw == 0)) for r in s.reps])


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
    out = []
    for k in range(d.records):
        held = count([holds_acked(s, r, k) for r in s.reps])
        out.append(z3.Implies(s.acked[k], held + s.losses >= num.val(d.min_isr)))
    return z3.And(out) if _on_z3(d) else z3.BoolVal(True)


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


def _only(check):
    def holds(s, config):
        return not _on(config) or check(s)
    return holds


def _only_z3(formula):
    def f(d, s):
        return formula(d, s) if _on_z3(d) else z3.BoolVal(True)
    return f


STRENGTHENINGS = (
    Strengthening("down-broker-empty", "(disk loss) a broker that is down has an empty log and HW",
                  lambda s, config: config.crash_model != DISK_LOSS or _down_broker_empty(s),
                  _down_broker_empty_z3, uses_config=True),
    Strengthening("isr-holds-controller-leader-hw", "(disk loss, KIP-903) every running member of the "
                  "controller's ISR of several holds the running controller's leader's records below its HW",
                  _only(_leader_hw_on_isr), _only_z3(_leader_hw_on_isr_z3), uses_config=True),
    Strengthening("acked-on-isr-of-several", "(disk loss, KIP-903) every running member of the controller's "
                  "ISR of several holds every acked record",
                  _only(_acked_in_isr_of_several), _only_z3(_acked_in_isr_of_several_z3), uses_config=True),
    Strengthening("acked-copies-past-losses", "(disk loss, KIP-903) an acked record is in at least "
                  "min.insync.replicas minus the disk losses logs",
                  lambda s, config: not _on(config) or _acked_copies(s, config), _acked_copies_z3,
                  uses_config=True),
    Strengthening("accepted-shrink-in-next-epoch", "(disk loss, KIP-903, KAFKA-15021's bump) an accepted "
                  "AlterPartition answer in its leader's own epoch keeps every member of the leader's ISR",
                  lambda s, config: not _on(config) or SHRINK_BUMPS not in config.rules or _accepted_shrink_bumps(s),
                  _only_z3(_accepted_shrink_bumps_z3), uses_config=True),
    Strengthening("isr-of-several-live", "(disk loss, KIP-903, KIP-841) every member of the controller's "
                  "ISR of several is in its live set",
                  lambda s, config: not _on(config) or "isr-eligibility" not in config.rules or _isr_of_several_live(s),
                  _only_z3(_isr_of_several_live_z3), uses_config=True),
)
