"""The set of states seen: the sharded table in memory (``table.py``), sorted files on disk
(``runs.py``) once memory is short, and the pending list between the two.

* While the table fits the memory budget it grows (1.6x, every shard at once, each shard
  rehashed by one worker).
* When it cannot grow, every shard is written to its file and the table starts again empty, at
  the largest size the budget allows; from then on a full shard is merged into its file alone
  (``flush``).
* A state missing from memory but whose shard has a file is fresh only *for now*: phase 3
  writes it to a pending list (per worker) with its position in the next level. ``resolve``
  sorts the pending lists and checks them against the files in one pass: those found are states
  seen before, returned as dead positions (the driver skips their records and corrects the
  counts).
"""

from __future__ import annotations

import numpy as np

from checker.compiled import table as T
from checker.compiled.runs import Runs, sort_order
from checker.compiled.table import home_of
from model.kernel.jit import kernel, nogil_kernel

PENDING_ENTRY_BYTES = 8 + 1  # position, action (plus the fingerprint's words)


@nogil_kernel
def compact_shard(table, s):
    """Move shard ``s``'s fingerprints to the front of its slots, in slot order; returns how
    many (their slots follow their values, so they are almost sorted already)."""
    src = table[s]
    n = 0
    for i in range(src.shape[0]):
        if src[i, 0] != 0:
            if n != i:
                for w in range(src.shape[1]):
                    src[n, w] = src[i, w]
            n += 1
    return n


@kernel
def _less(rows, i, hi, lo):
    """Whether row ``i`` sorts after ``(hi, lo)`` (first word, then second)."""
    if rows[i, 0] != hi:
        return hi < rows[i, 0]
    return rows.shape[1] > 1 and lo < rows[i, 1]


@nogil_kernel
def sort_shard(table, s):
    """Shard ``s``'s fingerprints, sorted, at the front of its slots; returns how many.

    The slots already follow the values (``table.py``: a fingerprint's home slot is its value
    scaled to the shard), so after compaction two things are out of order: neighbours that
    linear probing placed by arrival rather than value (a few places each), and the fingerprints
    that probed past the last slot and wrapped to the first ones (the largest values, at the
    front). The latter are moved to the end first: a fingerprint in the first run of occupied
    slots whose home slot lies after its slot has wrapped. Then an insertion sort, which costs
    a pass plus the few places each row moves: about a hundred times faster than numpy's sort
    of two-word rows (a structured sort: 6.4 s for 10M rows here, which made a merge of the
    1e9 run's table take five to nine minutes), and in place, with no buffer the size of a
    shard."""
    src = table[s]
    capacity, words = src.shape[0], src.shape[1]
    shards = table.shape[0]
    first_empty = 0
    while first_empty < capacity and src[first_empty, 0] != 0:
        first_empty += 1
    n = compact_shard(table, s)  # slots [0, first_empty) keep their places
    if first_empty < capacity and n + first_empty <= capacity:
        tail = n
        for i in range(first_empty):
            if home_of(src[i, 0], shards, capacity) > i:  # wrapped: after every other
                for w in range(words):
                    src[tail, w] = src[i, w]
                    src[i, w] = 0
                tail += 1
        if tail > n:  # close the holes the wrapped ones left
            m = 0
            for i in range(tail):
                if src[i, 0] != 0:
                    if m != i:
                        for w in range(words):
                            src[m, w] = src[i, w]
                    m += 1
            for i in range(m, tail):
                for w in range(words):
                    src[i, w] = 0
    for i in range(1, n):
        hi = src[i, 0]
        lo = src[i, words - 1]
        if not _less(src, i - 1, hi, lo):
            continue
        j = i
        while j > 0 and _less(src, j - 1, hi, lo):
            for w in range(words):
                src[j, w] = src[j - 1, w]
            j -= 1
        src[j, 0] = hi
        if words > 1:
            src[j, 1] = lo
    return n


class Visited:
    def __init__(self, shards: int, words: int, capacity: int, directory: str | None,
                 workers) -> None:
        self.words = words
        self.table = T.new_table(shards, capacity, words)
        self.fills = np.zeros(shards, dtype=np.int64)
        self.disk_shards = np.zeros(shards, dtype=np.uint8)
        self.runs = Runs(directory, shards, words)
        self.workers = workers
        self.pending = None  # per worker: (fps, positions, actions, fill), once on disk
        self.flushes = 0
        self.resolutions = 0

    @property
    def shards(self) -> int:
        return self.table.shape[0]

    @property
    def on_disk(self) -> bool:
        return bool(self.disk_shards.any())

    @property
    def count(self) -> int:
        """Fingerprints held (memory and disk; a pending state counts once it is confirmed)."""
        return int(self.fills.sum()) + self.runs.count

    @property
    def memory_bytes(self) -> int:
        pending = 0
        if self.pending is not None:
            pending = sum(p[0].nbytes + p[1].nbytes + p[2].nbytes for p in self.pending)
        return self.table.nbytes + pending

    def max_fill(self) -> int:
        return T.max_fill(self.table)

    def needs_room(self, batch: int) -> bool:
        """Would ``batch`` more insertions overfill a shard?"""
        return bool((self.fills + batch > self.max_fill()).any())

    def grown_bytes(self, capacity: int) -> int:
        return self.table.shape[0] * capacity * self.words * 8

    # ------------------------------------------------------------------ memory

    def grow(self, capacity: int) -> None:
        """Every shard ``capacity`` slots (1.6x or more), its fingerprints rehashed (a worker
        per shard)."""
        old = self.table
        new = T.new_table(old.shape[0], capacity, self.words)
        self.workers.run(lambda w: [T.rehash_shard(old, new, s)
                                    for s in range(w, old.shape[0], self.workers.n)])
        self.table = new

    # ------------------------------------------------------------------ disk

    def start_pending(self, entries: int) -> None:
        """The pending lists, ``entries`` per worker."""
        if self.pending is None:
            self.pending = [(np.zeros((entries, self.words), dtype=np.uint64),
                             np.zeros(entries, dtype=np.int64), np.zeros(entries, dtype=np.uint8),
                             np.zeros(1, dtype=np.int64)) for _ in range(self.workers.n)]

    def pending_room(self, w: int) -> int:
        fps, _, _, fill = self.pending[w]
        return fps.shape[0] - int(fill[0])

    def pending_count(self) -> int:
        return 0 if self.pending is None else sum(int(p[3][0]) for p in self.pending)

    def flush(self, shards, reserve, announce=None) -> tuple:
        """Merge the given shards into their files and empty them in memory. Pending states are
        resolved first; returns what ``resolve`` returns. ``announce(text)``, if given, is told
        which shard is being merged (a merge of a large table takes minutes, the workers wait)."""
        dead = self.resolve()
        shards = list(shards)
        for i, s in enumerate(shards):
            if announce is not None:
                announce(f"merging the fingerprint table into the sorted files on disk, "
                         f"shard {i + 1} of {len(shards)}")
            n = sort_shard(self.table, s)
            rows = self.table[s, :n]
            self.runs.merge(s, rows, reserve)
            self.table[s] = 0
            self.fills[s] = 0
            self.disk_shards[s] = 1
            self.flushes += 1
        return dead

    def resolve(self) -> tuple:
        """Check every pending state against the files: ``(dead positions, their actions)``, the
        positions sorted; the pending lists are emptied."""
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8))
        if self.pending is None or self.pending_count() == 0:
            return empty
        fps = np.concatenate([p[0][:int(p[3][0])] for p in self.pending])
        positions = np.concatenate([p[1][:int(p[3][0])] for p in self.pending])
        actions = np.concatenate([p[2][:int(p[3][0])] for p in self.pending])
        for p in self.pending:
            p[3][0] = 0
        order = sort_order(fps)
        found = self.runs.check(np.ascontiguousarray(fps[order]),
                                lambda hi: T.shards_of(hi, self.shards))
        self.resolutions += 1
        dead = order[found]
        by_position = np.argsort(positions[dead], kind="stable")
        return positions[dead][by_position], actions[dead][by_position]
