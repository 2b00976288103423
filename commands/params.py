"""Click parameter types over ``model.bounded``: how a flag takes a number from the user.

A new integer flag uses one line::

    @click.option("--retries", type=BoundedInt(0, INT32_MAX), help="...")

``BoundedInt`` never converts more than ``model.bounded.MAX_DIGITS`` digits (Python refuses
more than 4,300 with a traceback), names the limit it enforces (Kafka's INT or LONG when the
maximum is one of them), and quotes at most ``model.bounded.ECHO_LIMIT`` characters of what the
user typed. The default range is 0 to Kafka's LONG (2^63-1), wide enough for every count kmc
takes and narrow enough to refuse a typo of thousands of digits.
"""

from __future__ import annotations

import math

import click

from model.bounded import INT32_MAX, INT64_MAX, parse_int, shown
from model.errors import KmcError

__all__ = ["BoundedInt", "INT32_MAX", "INT64_MAX", "Seconds"]


class BoundedInt(click.ParamType):
    """A whole number in ``[minimum, maximum]`` (either may be None: unbounded on that side,
    but the digit limit holds)."""

    name = "integer"

    def __init__(self, minimum: int | None = 0, maximum: int | None = INT64_MAX) -> None:
        self.minimum, self.maximum = minimum, maximum

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            text = value  # a default, already a number: still range-checked
        else:
            text = str(value)
        try:
            return parse_int(text, "the value", minimum=self.minimum, maximum=self.maximum)
        except KmcError as e:
            self.fail(str(e).removeprefix("the value "), param, ctx)

    def get_metavar(self, param, *args, **kwargs):
        return None

    def __repr__(self) -> str:
        return f"BoundedInt({self.minimum}, {self.maximum})"


class Seconds(click.ParamType):
    """A time limit in seconds: a positive, finite number. ``click.FloatRange(min=0,
    min_open=True)`` lets ``nan`` through (it compares false with every bound) and ``inf``, which
    a timer cannot wait for (``kmc simulate --time-limit inf`` was a traceback in its timer
    thread)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"must be a positive, finite number of seconds, got {shown(value)}", param, ctx)
        if not math.isfinite(seconds) or seconds <= 0:
            self.fail(f"must be a positive, finite number of seconds, got {shown(value)}", param, ctx)
        return seconds

    def get_metavar(self, param, *args, **kwargs):
        return None
