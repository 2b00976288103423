"""A BFS level's records, in blocks, in memory or in a file (TLC's disk-backed state queue).

A record is a state's row and how it was reached: the number of the state it came from, the
index of the successor, and its action (for coverage). Records are written in the order the
states are found, a block at a time, and read back in the same order when the level is
expanded; a block read is a block freed. When memory runs short, the driver ``spill``s a level:
its finished blocks go to the level's file (appended, so written once and read once,
sequentially), and from then on each block is written as soon as it is full.

Positions count records from 0 in writing order; a record found to be a state seen before (its
fingerprint was on disk, ``runs.py``) is skipped when read, by position.

**On disk a block may be compressed** (``pack``/``unpack``). A record is 136 + 11 bytes in
memory, but the rows of one level are much alike: most of a row's bytes are small numbers that
take the same value in most rows (a broker's state, an empty log slot), and a block's parents
are increasing numbers. So a block is written column by column (the first byte of every row,
then the second, ...; the parents as differences from the previous one, each of their bytes a
column too), then deflated (``zlib`` level 1, the fastest): about 12 bytes a record on rf3-r2
instead of 147. That costs about 1 µs of CPU a record (64% more CPU on a run that spilled 40M
records, docs/scaling.md), so blocks are compressed only while the disk is short (the files
past a share of the disk budget, ``Space.short_of_disk``); a block's header says which kind it
is, and a level file may hold both. A run of 10^9 states holds its widest levels, about 10^8
records each, on disk.

Why not store a level as (parent, successor index) only and recompute its rows from the parent
level, as the Spark engine does between its shuffles (``batch.regenerate``)? Because the parent
level's rows are then needed in full when the level is expanded, so one whole level of rows is
on disk either way; it would save at most the smaller of two adjacent levels, at the
price of computing every successor twice. Compressing saves on every level and costs less.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass

import numpy as np

MAX_BLOCK_RECORDS = 1 << 16
MIN_BLOCK_RECORDS = 1 << 10
RECORD_EXTRA_BYTES = 8 + 2 + 1  # parent, successor index, action
DEFLATE_LEVEL = 1  # zlib's fastest: the columns do most of the work


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

    def write(self, f, compress: bool = False) -> int:
        """Append the block's records to the open file ``f``, compressed (``pack``) or as they
        are; returns the bytes written. Header: the record count and the compressed length (-1:
        not compressed)."""
        n = self.fill
        parts = (self.rows[:n], self.parent[:n], self.succ[:n], self.action[:n])
        if compress:
            packed = pack(*parts)
            f.write(np.array([n, len(packed)], dtype=np.int64).tobytes())
            f.write(packed)
            return 16 + len(packed)
        f.write(np.array([n, -1], dtype=np.int64).tobytes())
        for part in parts:
            f.write(np.ascontiguousarray(part).tobytes())
        return 16 + n * (self.rows.shape[1] + RECORD_EXTRA_BYTES)

    @classmethod
    def read(cls, f, width: int) -> "Block":
        header = np.frombuffer(f.read(16), dtype=np.int64)
        if header.shape[0] != 2:
            raise OSError(f"{getattr(f, 'name', 'a level file')} ends inside a block")
        n, size = int(header[0]), int(header[1])
        data = f.read(size if size >= 0 else n * (width + RECORD_EXTRA_BYTES))
        if len(data) != (size if size >= 0 else n * (width + RECORD_EXTRA_BYTES)):
            raise OSError(f"{getattr(f, 'name', 'a level file')} ends inside a block")
        if size >= 0:
            rows, parent, succ, action = unpack(data, n, width)
        else:
            raw = np.frombuffer(data, dtype=np.uint8)
            rows = raw[:n * width].view(np.int8).reshape(n, width).copy()
            parent = raw[n * width:n * (width + 8)].view(np.int64).copy()
            succ = raw[n * (width + 8):n * (width + 10)].view(np.uint16).copy()
            action = raw[n * (width + 10):].copy()
        return cls(rows, parent, succ, action, n)


def pack(rows: np.ndarray, parent: np.ndarray, succ: np.ndarray, action: np.ndarray) -> bytes:
    """A block's records as bytes: column by column (the rows transposed; the parents as
    differences, each of their bytes a column; the successor indices' bytes as columns; the
    actions), deflated."""
    n = rows.shape[0]
    delta = np.diff(parent, prepend=np.int64(0)) if n else parent
    parts = (np.ascontiguousarray(rows.T), _byte_columns(delta.astype(np.int64)),
             _byte_columns(succ.astype(np.uint16)), np.ascontiguousarray(action))
    return zlib.compress(b"".join(p.tobytes() for p in parts), DEFLATE_LEVEL)


def unpack(packed: bytes, n: int, width: int) -> tuple:
    """The inverse of ``pack``: ``(rows, parent, succ, action)`` of ``n`` records."""
    raw = np.frombuffer(zlib.decompress(packed), dtype=np.uint8)
    if raw.shape[0] != n * (width + RECORD_EXTRA_BYTES):
        raise OSError("a level file's block does not hold the records its header says")
    at = 0

    def take(nbytes):
        nonlocal at
        part = raw[at:at + nbytes]
        at += nbytes
        return part
    rows = take(n * width).view(np.int8).reshape(width, n).T.copy()
    parent = np.cumsum(_from_byte_columns(take(8 * n), n, np.int64))
    succ = _from_byte_columns(take(2 * n), n, np.uint16)
    action = take(n).copy()
    return rows, parent.astype(np.int64), succ, action


def _byte_columns(values: np.ndarray) -> np.ndarray:
    """The bytes of ``values`` with byte ``k`` of every value together, for each ``k``."""
    return np.ascontiguousarray(values.view(np.uint8).reshape(values.shape[0], values.itemsize).T)


def _from_byte_columns(raw: np.ndarray, n: int, dtype) -> np.ndarray:
    size = np.dtype(dtype).itemsize
    return np.ascontiguousarray(raw.reshape(size, n).T).view(dtype).reshape(n)


class BlockPool:
    """Blocks of full size that a level has read, for the next level to write: a fresh array's
    pages are zeroed by the system when first written (a few percent of the search's time).

    Once the levels shrink, reading a level frees more blocks than the next one fills, and a
    pool kept full would hold the widest level's memory to the end of the search, when the
    parent index is at its largest: ``trim`` lets the driver bound the pool, level by level, to
    what the next level can use (``Search._finish_level``), and the blocks read beyond it are
    freed: the next level's new blocks and the parent index's last chunks reuse their memory."""

    def __init__(self, keep: int = 8) -> None:
        self.keep = self.most = keep
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

    def trim(self, keep: int) -> None:
        """From now on keep at most ``keep`` blocks (never more than the pool was made for); free
        the others."""
        self.keep = min(max(keep, 0), self.most)
        del self.blocks[self.keep:]

    @property
    def nbytes(self) -> int:
        return sum(b.nbytes for b in self.blocks)


def full_blocks(records: int) -> int:
    """The full-size blocks a level of ``records`` records fills: its first records go to smaller
    blocks (``Level.reserve``: 1,024 records, then twice as many each time), which the pool does
    not keep."""
    return -(-max(records - (MAX_BLOCK_RECORDS - MIN_BLOCK_RECORDS), 0) // MAX_BLOCK_RECORDS)


def pool_need(expanding: int, before: int) -> int:
    """The read blocks the pool should keep while a level of ``expanding`` records is expanded
    after one of ``before``: the next level, guessed to grow by the same ratio, takes full-size
    blocks as it is written, and the level read gives one back per block read, so the pool
    covers the difference, and one block for the start."""
    if before <= 0:
        return 1
    guess = expanding * expanding // before
    return max(1, full_blocks(guess) - full_blocks(expanding) + 1)


class Level:
    """One BFS level's records: blocks in memory, then (once spilled) in ``path``."""

    def __init__(self, width: int, path: str | None = None, spilled: bool = False,
                 pool: BlockPool | None = None, space=None) -> None:
        self.width = width
        self.pool = pool or BlockPool(0)
        self.path = path
        self.blocks: list = []  # Block in memory, or the record count of a block in the file
        self.count = 0  # records written
        self.disk_bytes = 0
        self.spilled = spilled  # every finished block goes to the file
        self.space = space  # the run's budgets (``space.Space``): is the disk short?
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
        short = self.space is not None and self.space.short_of_disk()
        self.disk_bytes += block.write(self._file, compress=short)
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
    def restore(cls, width: int, directory: str, data: dict, space=None) -> "Level":
        level = cls(width, os.path.join(directory, data["path"]), spilled=True, space=space)
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
