"""Stable 64-bit state fingerprints.

``fingerprint(plain)`` hashes the canonical plain-tuple form of a state (ints, bools, None and
tuples only) with BLAKE2b. The encoding is ``marshal`` format version 2, which has no
back-references, so equal states give equal bytes whatever objects they share, in every process
and under every ``PYTHONHASHSEED`` (Python's own ``hash()`` of str, Enum or None is not stable
across processes, which is why it is never used here).
"""

from __future__ import annotations

import marshal
from hashlib import blake2b

_MARSHAL_VERSION = 2


def fingerprint(plain: tuple) -> int:
    """A 64-bit fingerprint of a plain-tuple state."""
    return int.from_bytes(blake2b(marshal.dumps(plain, _MARSHAL_VERSION), digest_size=8).digest(), "big")


def collision_probability(distinct: int, generated: int, bits: int = 64) -> float:
    """TLC's optimistic estimate of the chance that two distinct states shared a fingerprint:
    ``distinct * (generated - distinct) / 2**bits`` (64-bit fingerprints unless told)."""
    return distinct * max(generated - distinct, 0) / 2.0**bits
