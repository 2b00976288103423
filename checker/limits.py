"""The limits a run takes (``--max-states``, ``--time-limit``, ``--depth``, ``--memory-limit``),
checked once for every front end: a positive, finite number, or a ``ConfigError`` that names the
flag and the valid range. ``float("nan")`` compares false with everything, so a plain
``value <= 0`` test would let NaN through as "no limit at all"; infinity is refused too (leave
the flag out for no limit)."""

from __future__ import annotations

import math

from model.errors import ConfigError

MAX_COUNT = 2**62  # counts above this overflow the engines' 64-bit counters (and mean nothing)

LIMIT_WORDS = {
    "max-states": "the --max-states limit",
    "time-limit": "the --time-limit",
    "max-depth": "the --depth limit",
    "memory-limit": "the --memory-limit (the fingerprint table would have outgrown it)",
    "interrupted": "an interruption (SIGINT or SIGTERM)",
}
"""A run's ``limit`` as words, the same in ``kmc check``'s report and ``kmc prove``'s search."""


def check_limit(flag: str, value, *, whole: bool = False):
    """``value`` if it is a valid limit for ``--flag`` (None: no limit); a ``ConfigError`` else."""
    if value is None:
        return None
    if whole:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_COUNT:
            raise ConfigError(f"--{flag} must be a whole number from 1 to {MAX_COUNT:,}, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(
            f"--{flag} must be a positive, finite number (leave it out for no limit), got {value!r}")
    return value
