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
from model.kernel.intrinsics import prefetch
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
def _lane(h, w):
    h ^= w * _P1
    return ((h << np.uint64(31)) | (h >> np.uint64(33))) * _P2


@kernel
def fingerprint(row):
    """The 64-bit fingerprint of a row (never 0, which marks an empty slot). Four independent
    lanes over the row's 64-bit words keep the multiplier busy; the lanes are mixed at the end."""
    words = row.view(np.uint64)
    n = words.shape[0]
    h0 = _P3 ^ np.uint64(n)
    h1, h2, h3 = _P1, _P2, _M1
    i = 0
    while i + 4 <= n:
        h0 = _lane(h0, words[i])
        h1 = _lane(h1, words[i + 1])
        h2 = _lane(h2, words[i + 2])
        h3 = _lane(h3, words[i + 3])
        i += 4
    while i < n:
        h0 = _lane(h0, words[i])
        i += 1
    h = _mix(h0 ^ _mix(h1 + _M2) ^ _mix(h2 ^ _P3) ^ _mix(h3 + _P1))
    if h == EMPTY:
        h = np.uint64(1)
    return h


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
