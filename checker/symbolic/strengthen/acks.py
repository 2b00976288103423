"""Strengthening invariants about acknowledgements: where a parked acks=all request waits, and
which replicas hold every acknowledged record."""

from __future__ import annotations

import z3

from checker.symbolic import numbers as num
from checker.symbolic.formulas import holds_acked, holds_every_acked
from checker.symbolic.state import sel
from checker.symbolic.strengthen.base import Strengthening
from checker.symbolic.strengthen.history import epochs_led, leads_epoch_z3


def _acked_in_isr(s) -> bool:
    """Every acked record is in the log of every member of the controller's ISR, at its offset."""
    for b in s.controller.isr:
        log = s.replicas[b].log
        if not all(off < len(log) and log[off][0] == rid for rid, off in s.acked):
            return False
    return True


def _acked_in_isr_z3(d, s):
    return z3.And([z3.Implies(s.c_isr[b], holds_every_acked(d, s, r)) for b, r in enumerate(s.reps)])


def _pending_acks_on_leader(s) -> bool:
    for lead, rid, off in s.pending_acks:
        lr = s.replicas[lead]
        if not (lr.alive and lr.leader == lead and off < len(lr.log) and lr.log[off][0] == rid
                and off >= lr.high_watermark):
            return False
    return True


def _pending_acks_on_leader_z3(d, s):
    out = []
    for k in range(d.records):
        for lead, lr in enumerate(s.reps):
            held = z3.And(lr.alive, lr.leader == lead, s.pend_off[k] < lr.leo,
                          sel(lr.log_id, s.pend_off[k], -1) == k + 1, s.pend_off[k] >= lr.hw)
            out.append(z3.Implies(z3.And(s.pend[k], s.pend_leader[k] == lead), held))
    return z3.And(out)


def _acked_below_writer_hw(s) -> bool:
    for b, r in enumerate(s.replicas):
        epochs = epochs_led(s, b)
        for rid, off in s.acked:
            if off < len(r.log) and r.log[off][0] == rid and r.log[off][1] in epochs \
                    and off >= r.high_watermark:
                return False
    return True


def _acked_below_writer_hw_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        for k in range(d.records):
            o = s.acked_off[k]
            own = z3.And(s.acked[k], holds_acked(s, r, k),
                         leads_epoch_z3(s, b, sel(r.log_ep, o, -1)))
            out.append(z3.Implies(own, o < r.hw))
    return z3.And(out)


def _leaders_hold_older_acked(s, config, gate=True) -> bool:
    """``gate`` False: whatever min.insync.replicas (issue 29br's ZooKeeper RF>=3 form under
    session expiries, ``expiries``)."""
    if gate and config.min_insync_replicas < config.replication_factor:
        return True  # an acked record need not have reached every replica
    acked = dict(s.acked)
    older = {(rid, off, ep) for r in s.replicas for off, (rid, ep) in enumerate(r.log) if acked.get(rid) == off}
    for b, r in enumerate(s.replicas):
        epochs = epochs_led(s, b)
        for rid, off, ep in older:
            if any(ep < e for e in epochs) and (off >= len(r.log) or r.log[off][0] != rid):
                return False
    return True


def _leaders_hold_older_acked_z3(d, s, gate=True):
    if gate and d.min_isr < d.n:
        return z3.BoolVal(True)
    out = []
    for b, lr in enumerate(s.reps):
        # the epochs b leads in, as in epochs_led
        led = [(z3.And(lr.alive, lr.leader == b), lr.lep), (s.c_leader == b, s.c_epoch)]
        led += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == b), num.val(e)) for e in range(len(s.lai[b]))]
        for k in range(d.records):
            o = s.acked_off[k]
            held = holds_acked(s, lr, k)
            for r in s.reps:
                for i in range(d.slots):
                    seen = z3.And(s.acked[k], o == i, i < r.leo, r.log_id[i] == k + 1)
                    for leads, e in led:
                        out.append(z3.Implies(z3.And(leads, seen, r.log_ep[i] < e), held))
    return z3.And(out)


# in the order `kmc list` shows them
STRENGTHENINGS = (
    Strengthening("pending-acks-on-leader", "a parked acks=all request waits on a broker that "
                  "leads, holds the record at its offset and has not passed it with its HW",
                  _pending_acks_on_leader, _pending_acks_on_leader_z3),
    Strengthening("acked-in-isr", "every acked record is in the log of every member of the "
                  "controller's ISR, at the offset it was acked at", _acked_in_isr, _acked_in_isr_z3),
    Strengthening("acked-below-writer-hw", "a broker's HW is above every acked record it holds "
                  "of an epoch it leads in, is named leader of by a request in flight, or by the "
                  "controller", _acked_below_writer_hw, _acked_below_writer_hw_z3),
    Strengthening("leaders-hold-older-acked", "with min.insync.replicas = replication.factor, a "
                  "broker leading an epoch (or named its leader by a request or the controller) "
                  "holds every acked record of an older epoch (with fewer, a record acked later by "
                  "another leader need not reach it)", _leaders_hold_older_acked,
                  _leaders_hold_older_acked_z3, uses_config=True),
)
