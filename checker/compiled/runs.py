"""Fingerprints on disk: per shard of the table, one file of sorted fingerprints (TLC's
``DiskFPSet``).

When a shard of the in-memory table (``table.py``) is full and memory cannot hold a larger
one, its fingerprints are sorted (the slots follow the values already, so this is cheap) and
merged with the shard's file into a new file, written once, sequentially; the shard's memory is
then empty again (``flush``). TLC looks each fingerprint missing from memory up in the file,
one disk read each (an index in memory points at the page). A breadth-first search can do
better: a state missing from memory is taken as new **for now**, and written to a pending list
with its place in the next level; the pending list is sorted and checked against the files in
one sequential pass (``check``) before the next level is expanded, when the list is full, or
before a flush. Those found there were seen before: their records are skipped when the level is
read, and the counts corrected. So a fingerprint costs a disk read only as part of a pass over
the file, and a pass serves every pending state at once.

Fingerprints are rows of one or two ``uint64`` words, compared word by word; a shard's file
holds only its own range of values, so the files in shard order are one sorted sequence.
"""

from __future__ import annotations

import os

import numpy as np

from model.kernel.jit import kernel, nogil_kernel

STREAM = 1 << 20  # fingerprints read or written at a time


@kernel
def _compare(a, i, b, j):
    for w in range(a.shape[1]):
        if a[i, w] != b[j, w]:
            return -1 if a[i, w] < b[j, w] else 1
    return 0


@nogil_kernel
def merge_step(a, ia, b, ib, out, io):
    """Merge sorted ``a[ia:]`` and ``b[ib:]`` into ``out[io:]``, a fingerprint in both written
    once, until either input or the output runs out; returns ``(ia, ib, io)``."""
    while ia < a.shape[0] and ib < b.shape[0] and io < out.shape[0]:
        c = _compare(a, ia, b, ib)
        if c <= 0:
            for w in range(a.shape[1]):
                out[io, w] = a[ia, w]
            ia += 1
            if c == 0:
                ib += 1
        else:
            for w in range(b.shape[1]):
                out[io, w] = b[ib, w]
            ib += 1
        io += 1
    return ia, ib, io


@nogil_kernel
def check_step(queries, iq, run, ir, found):
    """Walk sorted ``queries[iq:]`` and sorted ``run[ir:]`` together; ``found[q] = 1`` for a
    query in the run. Returns ``(iq, ir)`` where either ran out."""
    while iq < queries.shape[0] and ir < run.shape[0]:
        c = _compare(queries, iq, run, ir)
        if c < 0:
            iq += 1
        elif c > 0:
            ir += 1
        else:
            found[iq] = 1
            iq += 1
            ir += 1
    return iq, ir


def sort_order(fps: np.ndarray) -> np.ndarray:
    """The permutation that sorts fingerprint rows (first word, then second)."""
    if fps.shape[1] == 1:
        return np.argsort(fps[:, 0], kind="stable")
    return np.lexsort(tuple(fps[:, w] for w in reversed(range(fps.shape[1]))))


class Runs:
    """The sorted files, one per shard (or none yet), in ``directory``."""

    def __init__(self, directory: str | None, shards: int, words: int) -> None:
        self.directory = directory
        self.words = words
        self.files: list = [None] * shards
        self.counts = [0] * shards
        self.generation = 0
        self.kept: set = set()  # files a checkpoint refers to: replaced, not deleted
        self.passes = 0  # sequential passes over the files (checks and merges), for the notes

    @property
    def disk_bytes(self) -> int:
        return sum(self.counts) * 8 * self.words

    @property
    def count(self) -> int:
        return sum(self.counts)

    def on_disk(self, s: int) -> bool:
        return self.files[s] is not None

    def _read(self, path: str):
        """The file's fingerprints, ``STREAM`` at a time."""
        with open(path, "rb") as f:
            while True:
                chunk = np.fromfile(f, dtype=np.uint64, count=STREAM * self.words)
                if chunk.shape[0] == 0:
                    return
                yield chunk.reshape(-1, self.words)

    def merge(self, s: int, fps: np.ndarray, reserve=None) -> None:
        """Shard ``s``'s file becomes the union of itself and the sorted ``fps``.
        ``reserve(n)`` is told the bytes about to be written (the disk budget)."""
        if self.directory is None:
            raise OSError("no directory for fingerprints on disk")
        self.generation += 1
        path = os.path.join(self.directory, f"fps-{s}-{self.generation}.bin")
        if reserve is not None:
            reserve((self.counts[s] + fps.shape[0]) * 8 * self.words)
        out = np.empty((STREAM, self.words), dtype=np.uint64)
        written = 0
        ib = 0
        with open(path, "wb") as f:
            if self.files[s] is not None:
                self.passes += 1
                for chunk in self._read(self.files[s]):
                    ia = 0
                    while ia < chunk.shape[0]:
                        if ib == fps.shape[0]:  # nothing left to merge in: the rest as it is
                            chunk[ia:].tofile(f)
                            written += chunk.shape[0] - ia
                            break
                        ia, ib, io = merge_step(chunk, ia, fps, ib, out, 0)
                        out[:io].tofile(f)
                        written += io
            if ib < fps.shape[0]:
                fps[ib:].tofile(f)
                written += fps.shape[0] - ib
        self._replace(s, path, written)

    def _replace(self, s: int, path: str, count: int) -> None:
        old = self.files[s]
        self.files[s], self.counts[s] = path, count
        if old is not None and old not in self.kept:
            os.remove(old)

    def check(self, fps: np.ndarray, shard_of) -> np.ndarray:
        """For sorted ``fps``, which are in the files (a bool array); ``shard_of`` gives the
        shard of each fingerprint (so each file is read only for its own range)."""
        found = np.zeros(fps.shape[0], dtype=np.uint8)
        if fps.shape[0] == 0:
            return found.astype(bool)
        shards = shard_of(fps[:, 0])
        bounds = np.searchsorted(shards, np.arange(len(self.files) + 1))
        for s, path in enumerate(self.files):
            lo, hi = int(bounds[s]), int(bounds[s + 1])
            if path is None or lo == hi:
                continue
            self.passes += 1
            queries = fps[lo:hi]
            iq = 0
            for chunk in self._read(path):
                ir = 0
                while ir < chunk.shape[0] and iq < queries.shape[0]:
                    iq, ir = check_step(queries, iq, chunk, ir, found[lo:hi])
                if iq == queries.shape[0]:
                    break
        return found.astype(bool)

    def delete(self) -> None:
        for path in self.files:
            if path is not None and path not in self.kept and os.path.exists(path):
                os.remove(path)

    # ------------------------------------------------------------------ checkpoints

    def describe(self) -> dict:
        self.kept = {p for p in self.files if p is not None}
        return {"files": [os.path.basename(p) if p else None for p in self.files],
                "counts": self.counts, "generation": self.generation}

    def release(self, files: set) -> None:
        """Files an older checkpoint referred to and the newest does not: delete them."""
        for path in files - {p for p in self.files if p}:
            if os.path.exists(path):
                os.remove(path)

    @classmethod
    def restore(cls, directory: str, words: int, data: dict) -> "Runs":
        runs = cls(directory, len(data["files"]), words)
        runs.files = [os.path.join(directory, f) if f else None for f in data["files"]]
        runs.counts = list(data["counts"])
        runs.generation = data["generation"]
        runs.kept = {p for p in runs.files if p}
        return runs
