"""The number sort of the encoding: 8-bit signed bit-vectors, for BMC and ``kmc prove`` alike.

Every offset, epoch, record id and counter of a bounded model is small, so z3 bit-blasts the
queries to SAT: several times faster than linear integer arithmetic here. ``MAX_BOUND`` keeps every
value (and the ``+ 1`` the encoding adds to epochs and offsets) far from wrapping at 127; the
encoder refuses larger bounds.
"""

from __future__ import annotations

import z3

BITS = 8
MAX_BOUND = 60


def var(name: str):
    return z3.BitVec(name, BITS)


def val(v: int):
    return z3.BitVecVal(v, BITS)


def to_int(term) -> int:
    """The Python int of an evaluated numeral."""
    if z3.is_bv_value(term):
        return term.as_signed_long()
    return term.as_long()
