"""Expanding a level in blocks, for a search sharded across machines (the Spark engine), compiled.

The local engine (``expand.py``) expands a state and inserts its successors into one fingerprint
table in the same step. A sharded search cannot: the table is split by fingerprint over many
machines. So the step is split in two, with a shuffle between them:

1. ``expand_block``: the successors of a block of one level's rows, as fingerprints of their
   canonical rows and **keys**. A state's key is ``rank << SUCCESSOR_BITS | j``: it is successor
   ``j`` of the state at position ``rank`` of the level (positions counted in the order the
   local engine finds the level's states). Keys sort successors exactly as the local engine
   meets them, so for each fingerprint the smallest key names the parent and action the local
   engine records (its first discovery), and sorting a level's new states by key numbers them
   in the local engine's order. No row leaves the machine: the fingerprint shards see 16 bytes
   per successor.
2. ``regenerate``: once the shards have said which successors are new (by key), the machine
   that holds the parents recomputes exactly those successors' rows, in key order, and judges
   them against the compiled properties.

``successor_total`` counts successors (TLC's "states generated") of the first rows of a block,
for a search that stops in the middle of a level; ``insert_new`` adds a batch of fingerprints to
one table (a search that keeps the visited set in one place).
"""

from __future__ import annotations

import numpy as np

from checker.compiled.expand import class_fingerprint
from checker.compiled.fpset import insert, prefetch_slot
from model.kernel.actions import successors
from model.kernel.jit import kernel
from properties.compiled import holds

SUCCESSOR_BITS = 16
"""Bits of a key that hold the successor's index: a state has fewer successors than 2**16."""
SUCCESSOR_MASK = (1 << SUCCESSOR_BITS) - 1
MAX_RANK = (1 << (64 - SUCCESSOR_BITS)) - 1
"""The largest position of a state within one level that a key can hold."""


@kernel
def expand_block(rows, start, stop, first_rank, lay, cfg, sym, fps, keys,
                 out, acts, scratch, best, order_cmp):
    """Successors of ``rows[start:stop]`` (the row at ``i`` has rank ``first_rank + i`` in its
    level): their class fingerprints into ``fps`` and their keys into ``keys``, from index 0.
    Stops before a row whose successors might not fit; returns ``(rows done, entries written)``."""
    n = 0
    room = fps.shape[0] - out.shape[0]
    shift = np.uint64(SUCCESSOR_BITS)
    for i in range(start, stop):
        if n > room:
            return i, n
        k = successors(rows[i], lay, cfg, out, acts)
        base = np.uint64(first_rank + i) << shift
        for j in range(k):
            fps[n] = class_fingerprint(out[j], lay, sym, order_cmp, scratch, best)
            keys[n] = base | np.uint64(j)
            n += 1
    return stop, n


@kernel
def regenerate(rows, first_rank, keys, lay, cfg, out, acts, new_rows, props, violated_at):
    """For each key (sorted ascending), the successor it names, recomputed from its parent's row
    (the row of rank ``key >> SUCCESSOR_BITS`` is ``rows[rank - first_rank]``), into
    ``new_rows``; each is judged against the compiled properties ``props`` still open
    (``violated_at[p] < 0``), recording the first violating position. Returns how many rows
    were written: fewer than ``len(keys)`` only if a key names a successor that does not exist
    (the model is not deterministic), which the caller reports."""
    shift = np.uint64(SUCCESSOR_BITS)
    mask = np.uint64(SUCCESSOR_MASK)
    last = np.int64(-1)
    k = 0
    for n in range(keys.shape[0]):
        rank = np.int64(keys[n] >> shift)
        j = np.int64(keys[n] & mask)
        if rank != last:  # successors of one parent are consecutive: compute them once
            k = successors(rows[rank - first_rank], lay, cfg, out, acts)
            last = rank
        if j >= k:
            return n
        for w in range(new_rows.shape[1]):
            new_rows[n, w] = out[j, w]
        for p in range(props.shape[0]):
            if violated_at[p] < 0 and not holds(props[p], new_rows[n], lay):
                violated_at[p] = n
    return keys.shape[0]


@kernel
def successor_total(rows, stop, lay, cfg, out, acts):
    """The number of successors of ``rows[:stop]``."""
    total = 0
    for i in range(stop):
        total += successors(rows[i], lay, cfg, out, acts)
    return total


@kernel
def insert_new(table, fps, fresh):
    """Insert every fingerprint of ``fps`` into ``table`` (which has room for all of them);
    ``fresh[i]`` = 1 if ``fps[i]`` was not there. Returns how many were new."""
    new = 0
    batch = 16
    for start in range(0, fps.shape[0], batch):
        stop = min(start + batch, fps.shape[0])
        for i in range(start, stop):
            prefetch_slot(table, fps[i])
        for i in range(start, stop):
            if insert(table, fps[i]):
                fresh[i] = 1
                new += 1
            else:
                fresh[i] = 0
    return new
