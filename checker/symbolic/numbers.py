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
TOP = (1 << (BITS - 1)) - 1  # the largest value of the sort (127): where a saturating counter stops


def var(name: str):
    return z3.BitVec(name, BITS)


ACTION_BITS = 16


def action_var(name: str):
    """The index of the action a step takes (``Encoder.instances()``): its own, wider sort, since
    a configuration can have more than 127 action instances (RF=3 with the operator's moves and
    controlled shutdowns has 140), where an 8-bit index would wrap to a negative number that
    Python reads as another action's index."""
    return z3.BitVec(name, ACTION_BITS)


def val(v: int):
    return z3.BitVecVal(v, BITS)


def to_int(term) -> int:
    """The Python int of an evaluated numeral."""
    if z3.is_bv_value(term):
        return term.as_signed_long()
    return term.as_long()


def saturating_inc(x):
    """``x + 1``, but ``TOP`` stays ``TOP``: a counter past every bound (``kmc prove --unbounded``,
    issue 29y) that never wraps to a negative value. Sound as an abstraction of the true count
    ``c``: the encoding holds ``min(c, TOP)``, which every increment of ``c`` maps to an increment
    here, and ``min(c, TOP)`` is 0, positive, or at least any small number exactly when ``c`` is."""
    return z3.If(x < TOP, x + 1, x)
