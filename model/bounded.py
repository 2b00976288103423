"""Bounded reading of the values a user gives kmc: the one place an integer or a string taken from
a flag, a Kafka properties file, a gate suite or a trace file is turned into a Python value, and
the one place a user's value is quoted back in an error.

Why a bounded reader: Python converts a string of at most 4,300 digits to an ``int`` (a longer
one raises ``ValueError``, a traceback if nobody catches it), and any shorter number is taken
whole, so ``log.flush.interval.messages=9223372036854775808`` (2^63) would pass where Kafka
refuses it. Kafka reads its configuration with ``ConfigDef`` (``org.apache.kafka.common.config``):
a ``Type.INT`` value must fit a Java ``int`` (32-bit signed), a ``Type.LONG`` a Java ``long``
(64-bit signed), and a value outside a key's ``Range`` validator is refused at start-up. kmc
refuses what Kafka would refuse, naming Kafka's limit, and never converts more than
``MAX_DIGITS`` digits.

Why a bounded echo: an error quotes what the user wrote so they can find it; a 100 kB protocol
name or path quoted whole is a megabyte of output for one typo. ``shown(value)`` quotes at most
``ECHO_LIMIT`` characters and says how long the value was.
"""

from __future__ import annotations

import re

from model.errors import KmcError

INT32_MAX = 2**31 - 1
"""Kafka's ``ConfigDef.Type.INT`` (a Java ``int``): ``min.insync.replicas``, ``replication.factor``
(a ``short`` on the wire, an INT in the config), ``default.replication.factor``."""
INT64_MAX = 2**63 - 1
"""Kafka's ``ConfigDef.Type.LONG`` (a Java ``long``): ``log.flush.interval.messages``,
``flush.messages``, ``log.flush.interval.ms``, ``flush.ms``."""
KAFKA_LIMIT_NAMES = {INT32_MAX: "Kafka's INT (32-bit)", INT64_MAX: "Kafka's LONG (64-bit)"}

MAX_DIGITS = 40
"""No integer kmc reads needs more digits (2^64 has 20); longer text is refused before Python
converts it, so the conversion limit is never reached."""
ECHO_LIMIT = 200
"""At most this many characters of a user's value are quoted in one message."""

_INTEGER = re.compile(r"\s*([+-]?)(\d+)\s*")


def shown(value, limit: int = ECHO_LIMIT) -> str:
    """``repr(value)``, elided to about ``limit`` characters with the value's length said:
    ``'xxxx…' (100,000 characters)``. Control characters come out escaped, as ``repr`` does."""
    if isinstance(value, str) and len(value) > limit:
        head = value[:limit]
        while len(repr(head)) > limit + 2:  # escapes (\U0002ebe1) print up to 10 characters each
            head = head[:max(len(head) - max((len(repr(head)) - limit) // 10, 1), 0)]
        return f"{head!r}… ({len(value):,} characters)"
    text = repr(value)
    if len(text) > limit:
        return f"{text[:limit]}… ({len(text):,} characters when printed)"
    return text


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` itself (not its repr), elided like ``shown``: for a value already inside a
    sentence, such as a path."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


_LONG_RUN = re.compile(r"\S{%d,}" % (ECHO_LIMIT + 11))  # a value `clip` cut is left alone
MAX_LINE = 2000


def clip_line(line: str) -> str:
    """A message line with every run of more than ``ECHO_LIMIT`` non-space characters elided,
    and the whole line cut at ``MAX_LINE``: the last guard before a message reaches a terminal,
    for a value that no reader has quoted through ``shown``."""
    line = _LONG_RUN.sub(lambda m: clip(m.group(0)), line)
    if len(line) > MAX_LINE:
        line = f"{line[:MAX_LINE]}… (the message had {len(line):,} characters)"
    return line


def limit_text(maximum: int) -> str:
    """``2147483647 (Kafka's INT (32-bit))`` or the number alone."""
    name = KAFKA_LIMIT_NAMES.get(maximum)
    return f"{maximum} ({name} limit)" if name else str(maximum)


def parse_int(value, what: str, *, minimum: int | None = None, maximum: int | None = INT64_MAX,
              error=KmcError, why: str = "") -> int:
    """The whole number in ``value`` (a string such as ``" +12 "``, or an int from a parsed
    file), within ``[minimum, maximum]``; otherwise ``error("<what> ...")`` in one line quoting at
    most ``ECHO_LIMIT`` characters of the value. Booleans and floats are refused (``True`` is not
    a count). ``why`` is appended to a below-the-minimum error (where the minimum comes from)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise error(f"{what} must be a whole number, got {shown(value)}")
    if isinstance(value, str):
        m = _INTEGER.fullmatch(value)
        if not m:
            raise error(f"{what} must be a whole number, got {shown(value)}")
        digits = m.group(2).lstrip("0") or "0"
        if len(digits) > MAX_DIGITS:
            negative = m.group(1) == "-"
            if not negative and maximum is not None:
                rule = f"it must be at most {limit_text(maximum)}"
            elif negative and minimum is not None:
                rule = f"it must be at least {minimum}"
            else:
                rule = f"kmc reads whole numbers of at most {MAX_DIGITS} digits"
            raise error(f"{what} has {len(digits):,} digits; {rule}")
        number = int(m.group(1) + digits)
    else:
        number = value
    if minimum is not None and number < minimum:
        raise error(f"{what} must be at least {minimum}{why}, got {int_text(number)}")
    if maximum is not None and number > maximum:
        raise error(f"{what} must be at most {limit_text(maximum)}, got {int_text(number)}")
    return number


def int_text(number: int) -> str:
    """A number for a message: whole up to ``MAX_DIGITS`` digits, its size beyond (``str()`` of
    a number of more than 4,300 digits raises, and a long one is unreadable anyway)."""
    if abs(number).bit_length() <= 133:  # 2^133 has 41 digits
        return str(number)
    return f"{'-' if number < 0 else ''}a number of about {int(abs(number).bit_length() * 0.30103):,} digits"
