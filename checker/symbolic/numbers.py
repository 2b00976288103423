"""The number sort of the encoding: small bit-vectors for bounded model checking, mathematical
integers for proofs.

Bounded runs use 8-bit signed bit-vectors (every offset, epoch, record id and counter of a
bounded model is far below 127), which z3 bit-blasts to SAT: BMC is several times faster than
with linear integer arithmetic. ``kmc prove`` switches to unbounded integers with ``use_ints``.
"""

from __future__ import annotations

from contextlib import contextmanager

import z3

BITS = 8
_ints = False


def var(name: str):
    return z3.Int(name) if _ints else z3.BitVec(name, BITS)


def val(v: int):
    return z3.IntVal(v) if _ints else z3.BitVecVal(v, BITS)


def to_int(term) -> int:
    """The Python int of an evaluated numeral."""
    if z3.is_bv_value(term):
        return term.as_signed_long()
    return term.as_long()


@contextmanager
def use_ints():
    """Build terms over mathematical integers inside the block."""
    global _ints
    before, _ints = _ints, True
    try:
        yield
    finally:
        _ints = before
