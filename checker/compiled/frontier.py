"""A BFS level's records, in blocks, in memory or in a file (TLC's disk-backed state queue).

A record is a state's row and how it was reached: the number of the state it came from, the
index of the successor, and its action (for coverage). Records are written in the order the
states are found, a block at a time, and read back in the same order when the level is
expanded; a block read is a block freed. When memory runs short, the driver ``spill``s a level:
its finished blocks go to the level's file (appended, so written once and read once,
sequentially), and from then on each block is written as soon as it is full.

Positions count records from 0 in writing order; a record found to be a state seen before (its
fingerprint was on disk, ``runs.py``) is skipped when read, by position.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

MAX_BLOCK_RECORDS = 1 << 16
MIN_BLOCK_RECORDS = 1 << 10
RECORD_EXTRA_BYTES = 8 + 2 + 1  # parent, successor index, action


@dataclass
class Block:
    rows: np.ndarray  # (capacity, width) int8
    parent: np.ndarray  # int64: the number of the state it was reached from
    succ: np.ndarray  # uint16: its index among that state's successors
    action: np.ndarray  # uint8: its action id
    fill: int = 0

    @classmethod
    def empty(cls, capacity: int, width: int) -> "Block":
        return cls(np.empty((capacity, width), dtype=np.int8), np.empty(capacity, dtype=np.int64),
                   np.empty(capacity, dtype=np.uint16), np.empty(capacity, dtype=np.uint8))

    @property
    def nbytes(self) -> int:
        return self.rows.nbytes + self.parent.nbytes + self.succ.nbytes + self.action.nbytes

    def write(self, f) -> int:
        """Append the block's records to the open file ``f``; returns the bytes written."""
        n = self.fill
        header = np.array([n], dtype=np.int64)
        for part in (header, self.rows[:n], self.parent[:n], self.succ[:n], self.action[:n]):
            part.tofile(f)
        return 8 + n * (self.rows.shape[1] + RECORD_EXTRA_BYTES)

    @classmethod
    def read(cls, f, width: int) -> "Block":
        n = int(np.fromfile(f, dtype=np.int64, count=1)[0])
        rows = np.fromfile(f, dtype=np.int8, count=n * width).reshape(n, width)
        parent = np.fromfile(f, dtype=np.int64, count=n)
        succ = np.fromfile(f, dtype=np.uint16, count=n)
        action = np.fromfile(f, dtype=np.uint8, count=n)
        if action.shape[0] != n:
            raise OSError(f"{getattr(f, 'name', 'a level file')} ends inside a block")
        return cls(rows, parent, succ, action, n)


class BlockPool:
    """Blocks of full size that a level has read, for the next level to write: a fresh array's
    pages are zeroed by the system when first written (a few percent of the search's time)."""

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        self.blocks: list = []

    def take(self, capacity: int, width: int) -> Block:
        if capacity == MAX_BLOCK_RECORDS and self.blocks:
            block = self.blocks.pop()
            block.fill = 0
            return block
        return Block.empty(capacity, width)

    def give(self, block: Block) -> None:
        if block.rows.shape[0] == MAX_BLOCK_RECORDS and len(self.blocks) < self.keep:
            self.blocks.append(block)

    @property
    def nbytes(self) -> int:
        return sum(b.nbytes for b in self.blocks)


class Level:
    """One BFS level's records: blocks in memory, then (once spilled) in ``path``."""

    def __init__(self, width: int, path: str | None = None, spilled: bool = False,
                 pool: BlockPool | None = None) -> None:
        self.width = width
        self.pool = pool or BlockPool(0)
        self.path = path
        self.blocks: list = []  # Block in memory, or the record count of a block in the file
        self.count = 0  # records written
        self.disk_bytes = 0
        self.spilled = spilled  # every finished block goes to the file
        self._file = None

    # ------------------------------------------------------------------ writing

    def reserve(self, n: int) -> tuple:
        """Room for ``n`` more records: ``(block, position in it)`` where they go."""
        last = self.blocks[-1] if self.blocks else None
        if not isinstance(last, Block) or last.fill + n > last.rows.shape[0]:
            if isinstance(last, Block) and self.spilled:
                self._write_out(len(self.blocks) - 1)
            capacity = MIN_BLOCK_RECORDS if last is None else MAX_BLOCK_RECORDS
            if isinstance(last, Block):
                capacity = min(MAX_BLOCK_RECORDS, max(MIN_BLOCK_RECORDS, last.rows.shape[0] * 2))
            last = self.pool.take(max(capacity, n), self.width)
            self.blocks.append(last)
        return last, last.fill

    def commit(self, n: int) -> None:
        self.blocks[-1].fill += n
        self.count += n

    def append_rows(self, rows: np.ndarray, parent: int, succ: int = 0, action: int = 0) -> None:
        """Records for ``rows`` (the initial state: reached from nowhere)."""
        block, at = self.reserve(rows.shape[0])
        n = rows.shape[0]
        block.rows[at:at + n] = rows
        block.parent[at:at + n] = parent
        block.succ[at:at + n] = succ
        block.action[at:at + n] = action
        self.commit(n)

    @property
    def memory_bytes(self) -> int:
        return sum(b.nbytes for b in self.blocks if isinstance(b, Block))

    def next_block_bytes(self) -> int:
        return MAX_BLOCK_RECORDS * (self.width + RECORD_EXTRA_BYTES)

    def spill(self, everything: bool = False) -> int:
        """Write the finished blocks (every block if ``everything``) to the file and free them;
        later blocks go there as soon as they are full. Returns the bytes freed."""
        if self.path is None:
            raise OSError("no directory for the frontier's files")
        self.spilled = True
        freed = 0
        last = len(self.blocks) if everything else len(self.blocks) - 1
        for i in range(last):
            if isinstance(self.blocks[i], Block):
                freed += self.blocks[i].nbytes
                self._write_out(i)
        if everything:
            self.close_file()
        return freed

    def _write_out(self, i: int) -> None:
        block = self.blocks[i]
        if self._file is None:
            self._file = open(self.path, "ab")
        self.disk_bytes += block.write(self._file)
        self.blocks[i] = block.fill

    def close_file(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    # ------------------------------------------------------------------ reading

    def read_blocks(self):
        """``(first position, block)`` for every block in order; each is dropped from memory
        once the next is asked for."""
        self.close_file()
        position = 0
        f = None
        try:
            for i, b in enumerate(self.blocks):
                if isinstance(b, Block):
                    block = b
                else:
                    if f is None:
                        f = open(self.path, "rb")
                    block = Block.read(f, self.width)
                self.blocks[i] = None
                yield position, block
                position += block.fill
                self.pool.give(block)
        finally:
            if f is not None:
                f.close()

    def delete(self) -> None:
        self.close_file()
        self.blocks = []
        if self.path and os.path.exists(self.path):
            os.remove(self.path)
        self.disk_bytes = 0

    # ------------------------------------------------------------------ checkpoints

    def describe(self) -> dict:
        """What a checkpoint records of a level written entirely to its file."""
        return {"path": os.path.basename(self.path), "blocks": list(self.blocks),
                "count": self.count, "disk_bytes": self.disk_bytes}

    @classmethod
    def restore(cls, width: int, directory: str, data: dict) -> "Level":
        level = cls(width, os.path.join(directory, data["path"]), spilled=True)
        level.blocks = list(data["blocks"])
        level.count = data["count"]
        level.disk_bytes = data["disk_bytes"]
        return level


def live_mask(first: int, fill: int, dead: np.ndarray) -> np.ndarray | None:
    """Which records of a block (positions ``first .. first + fill``) are not in the sorted
    ``dead`` positions; None if all are."""
    lo, hi = np.searchsorted(dead, [first, first + fill])
    if lo == hi:
        return None
    mask = np.ones(fill, dtype=bool)
    mask[dead[lo:hi] - first] = False
    return mask
