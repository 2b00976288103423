"""Shared pieces of the readers' fuzz tests: hypothesis strategies for hostile input, and the
one property every reader must have: a bad file is one line that names it (the reader's
``KmcError``, exit code 2 on the command line), never another exception."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# a modest number of examples per test: the suite stays fast, and CI runs differ (no database)
FUZZ = settings(max_examples=150, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# through the whole command line (a model built, a report printed): fewer, each costs ~0.1 s
FUZZ_CLI = settings(FUZZ, max_examples=30)

# text with the characters that break terminals, XML and naive parsers
NASTY_CHARS = st.characters(codec="utf-8") | st.sampled_from(
    ["\x00", "\x01", "\x1b", "\n", "\r", "\t", "\x85", "\u202e", "\ufffe", "\\", '"', "'", "[", "{", "=", "#"])
NASTY_TEXT = st.text(alphabet=NASTY_CHARS, max_size=30) | st.just("ctrl \u0001 \u001b[31m red")

SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(-2, 5)
           | st.floats(allow_nan=True, allow_infinity=True) | NASTY_TEXT | st.just("lone \ud800")
           | st.integers(min_value=10**20, max_value=10**40))

# ITF's tagged values, well-formed and not
TAGGED = st.one_of(
    st.integers().map(lambda n: {"#bigint": str(n)}),
    SCALARS.map(lambda v: {"#bigint": v}),
    st.lists(st.integers(-1, 3), max_size=4).map(lambda xs: {"#set": xs}),
    SCALARS.map(lambda v: {"#set": v}),
    st.lists(st.integers(0, 3), max_size=3).map(lambda xs: {"#tup": xs}),
    NASTY_TEXT.map(lambda t: {"#unserializable": t}),
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)).map(list), max_size=3).map(lambda ps: {"#map": ps}),
)

JSON_VALUES = st.recursive(
    SCALARS | TAGGED,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(NASTY_TEXT, children, max_size=4),
    max_leaves=12,
)


def deep(opening: str, closing: str):
    """Text nested ``n`` levels deep, for recursive parsers."""
    return st.integers(1, 120_000).map(lambda n: opening * n + closing * n)


def assert_one_line_naming(error: Exception, path) -> None:
    message = str(error)
    assert message and "\n" not in message, repr(message)
    assert str(path) in message, message


def finite(x) -> bool:
    return not isinstance(x, float) or math.isfinite(x)
