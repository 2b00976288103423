"""The parent index: for each state (numbered in the order they are found), the state it was
first reached from and the index of that step among the parent's successors.

That is all a counterexample needs: follow the parents back to the initial state (number 0),
then replay the successor indices forward through the kernel (``driver.replay_path``). Entries
are appended level by level, in chunks of a million: 4 + 2 bytes a state while state numbers fit
32 bits, 8 + 2 after. When memory runs short the driver ``spill``s the finished chunks to one
file, written once and read only for a counterexample (a few reads per step).
"""

from __future__ import annotations

import os
from bisect import bisect_right

import numpy as np

CHUNK = 1 << 20


class Parents:
    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self.bases: list[int] = []  # the number of each chunk's first state
        self.fills: list[int] = []
        self.parent: list = []  # arrays in memory, or None once written to the file
        self.succ: list = []
        self.offsets: list = []  # where a written chunk starts in the file
        self.count = 0
        self.disk_bytes = 0
        self.spilled = False  # every chunk goes to the file once full

    def _new_chunk(self) -> None:
        if self.parent and self.spilled and self.parent[-1] is not None:
            self._write_out(len(self.parent) - 1)
        dtype = np.uint32 if self.count + CHUNK <= 1 << 32 else np.uint64
        self.bases.append(self.count)
        self.fills.append(0)
        self.parent.append(np.empty(CHUNK, dtype=dtype))
        self.succ.append(np.empty(CHUNK, dtype=np.uint16))
        self.offsets.append(None)

    def append(self, parent: np.ndarray, succ: np.ndarray) -> None:
        """Entries for the next ``len(parent)`` states."""
        done, n = 0, parent.shape[0]
        while done < n:
            if not self.parent or self.fills[-1] == CHUNK or self.parent[-1] is None:
                self._new_chunk()
            fill = self.fills[-1]
            take = min(CHUNK - fill, n - done)
            self.parent[-1][fill:fill + take] = parent[done:done + take]
            self.succ[-1][fill:fill + take] = succ[done:done + take]
            self.fills[-1] += take
            self.count += take
            done += take

    @property
    def memory_bytes(self) -> int:
        return sum(p.nbytes + s.nbytes for p, s in zip(self.parent, self.succ) if p is not None)

    def spill(self, everything: bool = False) -> int:
        """Write the finished chunks (and the last one too if ``everything``) to the file and
        free them; from then on each chunk goes there once full. Returns the bytes freed."""
        if self.path is None:
            raise OSError("no directory for the parent index's file")
        self.spilled = True
        freed = 0
        last = len(self.parent) if everything else len(self.parent) - 1
        for c in range(last):
            if self.parent[c] is not None:
                freed += self.parent[c].nbytes + self.succ[c].nbytes
                self._write_out(c)
        return freed

    def _write_out(self, c: int) -> None:
        n = self.fills[c]
        with open(self.path, "ab") as f:
            self.offsets[c] = f.tell()
            self.parent[c][:n].tofile(f)
            self.succ[c][:n].tofile(f)
        self.disk_bytes += n * (self.parent[c].itemsize + 2)
        self.parent[c] = self.succ[c] = None

    def lookup(self, index: int) -> tuple[int, int]:
        c = bisect_right(self.bases, index) - 1
        i = index - self.bases[c]
        if self.parent[c] is not None:
            return int(self.parent[c][i]), int(self.succ[c][i])
        dtype = np.uint32 if self.bases[c] + CHUNK <= 1 << 32 else np.uint64
        size = np.dtype(dtype).itemsize
        with open(self.path, "rb") as f:
            f.seek(self.offsets[c] + i * size)
            parent = int(np.fromfile(f, dtype=dtype, count=1)[0])
            f.seek(self.offsets[c] + self.fills[c] * size + i * 2)
            succ = int(np.fromfile(f, dtype=np.uint16, count=1)[0])
        return parent, succ

    def path_to(self, index: int) -> list[int]:
        """The successor indices from the initial state (number 0) to state ``index``."""
        path = []
        while index != 0:
            index, succ = self.lookup(index)
            path.append(succ)
        path.reverse()
        return path

    # ------------------------------------------------------------------ checkpoints

    def describe(self) -> dict:
        """What a checkpoint records (every chunk must have been written: ``spill(True)``)."""
        return {"path": os.path.basename(self.path), "bases": self.bases, "fills": self.fills,
                "offsets": self.offsets, "count": self.count, "disk_bytes": self.disk_bytes}

    @classmethod
    def restore(cls, directory: str, data: dict) -> "Parents":
        p = cls(os.path.join(directory, data["path"]))
        p.bases, p.fills, p.offsets = list(data["bases"]), list(data["fills"]), list(data["offsets"])
        p.parent = [None] * len(p.bases)
        p.succ = [None] * len(p.bases)
        p.count, p.disk_bytes, p.spilled = data["count"], data["disk_bytes"], True
        with open(p.path, "r+b") as f:  # what a killed run appended after the checkpoint goes
            f.truncate(p.disk_bytes)
        return p
