"""The local engine's fingerprint table: open addressing, split into shards, 64 or 128 bits.

A fingerprint is one or two 64-bit words (``--fp-bits 64``, TLC's width, or ``128``); its first
word, ``hi``, is never 0, and a slot whose first word is 0 is empty. The table is a
``(shards, capacity, words)`` array of ``uint64``. The first word places a fingerprint:

* its **shard** is ``hi * shards >> 64``: the fingerprints of a shard are a contiguous range of
  values, so a shard's sorted fingerprints on disk (``runs.py``) never overlap another's, and
  each shard is inserted into by one worker at a time, without locks;
* its **home slot** within the shard is the rest of ``hi`` scaled to the capacity (``frac *
  capacity >> 64``, ``frac = hi * shards mod 2**64``), so slots follow the values: a shard's
  table is almost sorted already when it is written to disk (TLC's ``DiskFPSet`` relies on the
  same order). Probing is linear and wraps within the shard.

Growing changes the capacity, never the shard of a fingerprint, so the shards grow one by one
(``rehash_shard``), in parallel. Every function takes the table and the fingerprint's words;
with 64-bit fingerprints the second word is ignored.
"""

from __future__ import annotations

import numpy as np

from model.kernel.intrinsics import prefetch
from model.kernel.jit import kernel, nogil_kernel

EMPTY = np.uint64(0)
MAX_LOAD = 0.8
GROWTH = 1.6

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@kernel
def mulhi(a, b):
    """The high 64 bits of the 128-bit product ``a * b`` (both uint64), exactly."""
    a = np.uint64(a)
    b = np.uint64(b)
    a1, a0 = a >> _S32, a & _M32
    b1, b0 = b >> _S32, b & _M32
    ad, bc = a1 * b0, a0 * b1
    mid = (ad & _M32) + (bc & _M32) + ((a0 * b0) >> _S32)
    return a1 * b1 + (ad >> _S32) + (bc >> _S32) + (mid >> _S32)


@kernel
def shard_of(hi, shards):
    return np.int64(mulhi(hi, shards))


@kernel
def home_of(hi, shards, capacity):
    """The home slot of ``hi`` within its shard."""
    return np.int64(mulhi(np.uint64(hi) * np.uint64(shards), capacity))


@kernel
def prefetch_fp(table, hi):
    shards, capacity = table.shape[0], table.shape[1]
    prefetch(table[shard_of(hi, shards)], home_of(hi, shards, capacity))


@kernel
def _probe(shard, i, hi, lo):
    """From slot ``i`` on, the slot holding the fingerprint, or the empty slot where it would go;
    and whether it was there."""
    capacity, words = shard.shape[0], shard.shape[1]
    while True:
        v = shard[i, 0]
        if v == EMPTY:
            return i, False
        if v == hi and (words == 1 or shard[i, 1] == lo):
            return i, True
        i += 1
        if i == capacity:
            i = 0


@kernel
def insert_fp(table, hi, lo):
    """Add the fingerprint (``hi``, ``lo``); True if it was not there."""
    shards = table.shape[0]
    shard = table[shard_of(hi, shards)]
    i, found = _probe(shard, home_of(hi, shards, table.shape[1]), hi, lo)
    if found:
        return False
    shard[i, 0] = hi
    if table.shape[2] > 1:
        shard[i, 1] = lo
    return True


@kernel
def contains_fp(table, hi, lo):
    shards = table.shape[0]
    return _probe(table[shard_of(hi, shards)], home_of(hi, shards, table.shape[1]), hi, lo)[1]


@nogil_kernel
def rehash_shard(old, new, s):
    """Move shard ``s`` of ``old`` into the (empty) shard ``s`` of ``new``, a batch of slots at
    a time: their new homes are fetched from memory together. Returns how many moved."""
    src = old[s]
    shards, capacity = new.shape[0], new.shape[1]
    words = new.shape[2]
    moved = 0
    batch = 16
    for start in range(0, src.shape[0], batch):
        stop = min(start + batch, src.shape[0])
        for i in range(start, stop):
            if src[i, 0] != EMPTY:
                prefetch(new[s], home_of(src[i, 0], shards, capacity))
        for i in range(start, stop):
            if src[i, 0] != EMPTY:
                insert_fp(new, src[i, 0], src[i, 1] if words > 1 else EMPTY)
                moved += 1
    return moved


@nogil_kernel
def collect_shard(table, s, out):
    """The fingerprints of shard ``s`` into ``out`` (rows of ``words``), in slot order; returns
    how many."""
    src = table[s]
    n = 0
    for i in range(src.shape[0]):
        if src[i, 0] != EMPTY:
            for w in range(src.shape[1]):
                out[n, w] = src[i, w]
            n += 1
    return n


def shards_of(hi: np.ndarray, shards: int) -> np.ndarray:
    """``shard_of`` for an array of first words (``shards`` < 2**32), with numpy."""
    hi = np.asarray(hi, dtype=np.uint64)
    s = np.uint64(shards)
    return ((hi >> _S32) * s + (((hi & _M32) * s) >> _S32)) >> _S32


def new_table(shards: int, capacity: int, words: int) -> np.ndarray:
    return np.zeros((shards, max(int(capacity), 1024), words), dtype=np.uint64)


def max_fill(table: np.ndarray) -> int:
    """How many fingerprints one shard takes before it must grow (or go to disk)."""
    return int(table.shape[1] * MAX_LOAD)
