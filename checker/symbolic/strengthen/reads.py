"""Strengthening invariants about what consumers read (issue 29bf): the history ``no-read-loss``
judges (``SState.rd``, the kernel's ``read_offsets``, kept under ``track_reads``). A consumer
reads only below the HW of a broker that serves it (``Encoder.record_reads``), and a leader's HW
passes an offset only once every member of its ISR has the record there
(``Partition.maybeIncrementLeaderHW`` at 2.1.0), as for an acks=all acknowledgement: so the two
facts of ``acks.py`` about acknowledged records hold of read ones too. Without the history (no
``track_reads``) both are true of every state."""

from __future__ import annotations

import z3

from checker.symbolic.state import sel
from checker.symbolic.strengthen.base import Strengthening
from checker.symbolic.strengthen.history import epochs_led, leads_epoch_z3


def holds_read(s, r, k: int):
    """z3: replica ``r``'s log holds record ``k + 1`` at the offset it was read at."""
    return z3.And(s.rd[k] < r.leo, sel(r.log_id, s.rd[k], -1) == k + 1)


def _read_in_isr(s) -> bool:
    """Every read record is in the log of every member of the controller's ISR, at its offset."""
    for b in s.controller.isr:
        log = s.replicas[b].log
        if not all(off < len(log) and log[off][0] == rid for rid, off in s.read_offsets):
            return False
    return True


def _read_in_isr_z3(d, s):
    return z3.And([z3.Implies(z3.And(s.c_isr[b], s.rd[k] >= 0), holds_read(s, r, k))
                   for b, r in enumerate(s.reps) for k in range(len(s.rd))])


def _read_below_writer_hw(s) -> bool:
    for b, r in enumerate(s.replicas):
        epochs = epochs_led(s, b)
        for rid, off in s.read_offsets:
            if off < len(r.log) and r.log[off][0] == rid and r.log[off][1] in epochs \
                    and off >= r.high_watermark:
                return False
    return True


def _read_below_writer_hw_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        for k in range(len(s.rd)):
            o = s.rd[k]
            own = z3.And(o >= 0, holds_read(s, r, k), leads_epoch_z3(s, b, sel(r.log_ep, o, -1)))
            out.append(z3.Implies(own, o < r.hw))
    return z3.And(out)


STRENGTHENINGS = (
    Strengthening("read-in-isr", "every record a consumer could have read is in the log of every "
                  "member of the controller's ISR, at the offset it was read at (issue 29bf)",
                  _read_in_isr, _read_in_isr_z3),
    Strengthening("read-below-writer-hw", "a broker's HW is above every read record it holds of "
                  "an epoch it leads in, is named leader of by a request in flight, or by the "
                  "controller (issue 29bf)", _read_below_writer_hw, _read_below_writer_hw_z3),
)
