"""The conjunction of named formulas over a state, built once and renamed for other states
(k-induction's conjuncts, ``induction.py`` and ``choose.py``)."""

from __future__ import annotations

import z3

from checker.symbolic.state import leaves
from checker.symbolic.strengthen import formula_of


def conjunction(d, names):
    """``conj(s)``: the conjunction of the ``names`` formulas over the state ``s``.

    Built once in Python, over the first state asked for, and then *renamed* for every other
    state with ``z3.substitute`` (in C): the formulas of a large library take seconds to build
    (12 s for the 85 conjuncts of Kafka 2.1 RF=3 at 1 record, epochs <= 3, 2 crashes, on a loaded
    machine), and k-induction asks for them over k + 1 states and the base case's k. A formula
    reads a state only through its leaves (``state.leaves``): variables, or constants that are
    the same in every state ``fresh`` makes. So between two ``fresh`` states the renaming gives
    the very term building would (z3 hash-conses terms); renamed into a state with values for
    variables (``encode``), it is that term with the values put in: the same meaning, though
    building over Python values would have folded some tests away (``test_induction.py`` checks
    both). A state whose leaves differ from the first one's where the first one has a constant
    is built directly."""
    cache = {}

    def conj(s):
        if not cache:
            cache["template"], cache["formula"] = s, z3.And([formula_of(n)(d, s) for n in names])
            return cache["formula"]
        pairs = []
        for a, b in zip(leaves(cache["template"]), leaves(s)):
            if a.eq(b):
                continue
            if not (z3.is_const(a) and a.decl().kind() == z3.Z3_OP_UNINTERPRETED):
                return z3.And([formula_of(n)(d, s) for n in names])
            pairs.append((a, b))
        return z3.substitute(cache["formula"], pairs) if pairs else cache["formula"]

    return conj
