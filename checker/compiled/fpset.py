"""The fingerprint set: an open-addressing table of 64-bit fingerprints (TLC's ``FPSet``).

A fingerprint is a 64-bit hash of a state's canonical row. The table stores fingerprints only
(8 bytes a slot, 0 = empty), probes linearly from ``(fp >> 32) * capacity >> 32`` (any
capacity, not only powers of two, so it can grow by 1.6x and stay between 50% and 80% full),
and never stores states: the explorer keeps parent pointers and the frontier, and re-derives
the states on a counterexample's path by replaying it.

Two distinct states with one fingerprint would make the explorer skip the second (TLC's
risk): the result prints TLC's optimistic estimate of that probability.
"""

from __future__ import annotations

import numpy as np
from model.kernel.intrinsics import load_word, prefetch
from model.kernel.jit import kernel

EMPTY = np.uint64(0)
MAX_LOAD = 0.8
GROWTH = 1.6

_P1 = np.uint64(0x9E3779B97F4A7C15)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@kernel
def _mix(z):
    """splitmix64's finaliser: every input bit reaches every output bit."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@kernel
def _lane(h, w, multiplier, rotation, finisher):
    h ^= w * multiplier
    return ((h << rotation) | (h >> (np.uint64(64) - rotation))) * finisher


@kernel
def _hash(row, p1, p2, rotation, seeds):
    """Four independent multiply-rotate lanes over the row's 64-bit words (they keep the
    multiplier busy), each started from one of ``seeds``, then mixed together."""
    n = row.shape[0] // 8
    h0, h1, h2, h3 = seeds[0] ^ np.uint64(n), seeds[1], seeds[2], seeds[3]
    i = 0
    while i + 4 <= n:
        h0 = _lane(h0, load_word(row, i), p1, rotation, p2)
        h1 = _lane(h1, load_word(row, i + 1), p1, rotation, p2)
        h2 = _lane(h2, load_word(row, i + 2), p1, rotation, p2)
        h3 = _lane(h3, load_word(row, i + 3), p1, rotation, p2)
        i += 4
    while i < n:
        h0 = _lane(h0, load_word(row, i), p1, rotation, p2)
        i += 1
    return _mix(h0 ^ _mix(h1 + seeds[4]) ^ _mix(h2 ^ seeds[5]) ^ _mix(h3 + seeds[6]))


_SEEDS = (_P3, _P1, _P2, _M1, _M2, _P3, _P1)
_Q1 = np.uint64(0xD6E8FEB86659FD93)
_Q2 = np.uint64(0xA0761D6478BD642F)
_Q3 = np.uint64(0xE7037ED1A0B428DB)
_SEEDS_LO = (_Q3, _Q1, _Q2, _M2, _P3, _M1, _Q3)


@kernel
def fingerprint(row):
    """The 64-bit fingerprint of a row (never 0, which marks an empty slot)."""
    h = _hash(row, _P1, _P2, np.uint64(31), _SEEDS)
    if h == EMPTY:
        h = np.uint64(1)
    return h


@kernel
def fingerprint_lo(row):
    """A second 64-bit hash of a row, with other multipliers, rotation and seeds than
    ``fingerprint``: the low word of a 128-bit fingerprint (``--fp-bits 128``)."""
    return _hash(row, _Q1, _Q2, np.uint64(27), _SEEDS_LO)


@kernel
def _home(fp, capacity):
    return np.int64(((fp >> np.uint64(32)) * np.uint64(capacity)) >> np.uint64(32))


@kernel
def prefetch_slot(table, fp):
    """Start loading ``fp``'s home slot (see ``model.kernel.intrinsics.prefetch``)."""
    prefetch(table, _home(fp, table.shape[0]))


@kernel
def insert(table, fp):
    """Add ``fp``; True if it was not there."""
    capacity = table.shape[0]
    i = _home(fp, capacity)
    while True:
        v = table[i]
        if v == EMPTY:
            table[i] = fp
            return True
        if v == fp:
            return False
        i += 1
        if i == capacity:
            i = 0


@kernel
def contains(table, fp):
    capacity = table.shape[0]
    i = _home(fp, capacity)
    while True:
        v = table[i]
        if v == EMPTY:
            return False
        if v == fp:
            return True
        i += 1
        if i == capacity:
            i = 0


@kernel
def rehash(old, new):
    """Move every fingerprint of ``old`` into the (larger, empty) ``new``, a batch of slots at a
    time: their new homes are fetched from memory together."""
    batch = 16
    for start in range(0, old.shape[0], batch):
        stop = min(start + batch, old.shape[0])
        for i in range(start, stop):
            if old[i] != EMPTY:
                prefetch_slot(new, old[i])
        for i in range(start, stop):
            if old[i] != EMPTY:
                insert(new, old[i])


def new_table(capacity: int) -> np.ndarray:
    return np.zeros(max(int(capacity), 1024), dtype=np.uint64)


def max_fill(table: np.ndarray) -> int:
    """How many fingerprints the table takes before it must grow."""
    return int(table.shape[0] * MAX_LOAD)


def grown(table: np.ndarray) -> np.ndarray:
    """A table 1.6x larger holding the same fingerprints."""
    bigger = new_table(int(table.shape[0] * GROWTH))
    rehash(table, bigger)
    return bigger
