"""A level's records on disk: compressed blocks read back exactly, and smaller than the rows.

The searches that spill (tests/unit/test_compiled_scaling.py, ``memory_limit=1``) check that a
run on disk gives the in-memory run's counts, verdicts and traces; these check the format
itself, on edge cases a search rarely writes (an empty block, parents past 2**32, a level whose
first blocks went to the file and whose last stayed in memory).
"""

from __future__ import annotations

import numpy as np
import pytest

from checker.compiled import compiled_bfs, space
from checker.compiled import frontier as F
from properties import get_properties
from tests import conftest
from tests.unit.test_compiled_scaling import outcome

WIDTH = 136


class _Disk:
    """A run's budgets as a level sees them: is the disk short?"""

    def __init__(self, short: bool) -> None:
        self.short = short

    def short_of_disk(self) -> bool:
        return self.short


def records(n: int, seed: int = 0, first_parent: int = 0):
    rng = np.random.default_rng(seed)
    rows = rng.integers(-128, 128, size=(n, WIDTH)).astype(np.int8)
    parent = first_parent + np.sort(rng.integers(0, 10 * n + 1, size=n)).astype(np.int64)
    succ = rng.integers(0, 1 << 16, size=n).astype(np.uint16)
    action = rng.integers(0, 256, size=n).astype(np.uint8)
    return rows, parent, succ, action


@pytest.mark.parametrize("n, first_parent", [(0, 0), (1, -1), (1000, 0), (3000, (1 << 33) + 5)])
def test_a_block_reads_back_exactly(n, first_parent):
    rows, parent, succ, action = records(n, n, first_parent)
    back = F.unpack(F.pack(rows, parent, succ, action), n, WIDTH)
    for mine, theirs in zip((rows, parent, succ, action), back):
        assert theirs.dtype == mine.dtype and np.array_equal(theirs, mine)
    assert back[0].flags.c_contiguous  # the kernel reads rows as C arrays


@pytest.mark.parametrize("compress", [False, True])
def test_blocks_of_both_kinds_share_a_file(tmp_path, compress):
    path = tmp_path / "level-3.bin"
    written = [records(n, n) for n in (5, 0, 1200)]
    with open(path, "wb") as f:
        for k, (rows, parent, succ, action) in enumerate(written):
            F.Block(rows, parent, succ, action, rows.shape[0]).write(f, compress=(k % 2 == 0) == compress)
    with open(path, "rb") as f:
        for rows, parent, succ, action in written:
            block = F.Block.read(f, WIDTH)
            for mine, theirs in zip((rows, parent, succ, action),
                                    (block.rows, block.parent, block.succ, block.action)):
                assert theirs.dtype == mine.dtype and np.array_equal(theirs, mine)
        assert f.read() == b""


def test_a_damaged_block_is_an_error_not_wrong_rows():
    rows, parent, succ, action = records(10)
    with pytest.raises(OSError):
        F.unpack(F.pack(rows, parent, succ, action), 11, WIDTH)


@pytest.mark.parametrize("compress", [False, True])
def test_a_level_half_on_disk_reads_back_in_order(tmp_path, compress):
    level = F.Level(WIDTH, path=str(tmp_path / "level-1.bin"), space=_Disk(compress))
    written = []
    for k in range(6):  # blocks of 700: the first ones written out, the last kept in memory
        rows, parent, succ, action = records(700, k, first_parent=700 * k)
        block, at = level.reserve(700)
        block.rows[at:at + 700], block.parent[at:at + 700] = rows, parent
        block.succ[at:at + 700], block.action[at:at + 700] = succ, action
        level.commit(700)
        written.append((rows, parent, succ, action))
        if k == 2:
            level.spill()
    assert level.disk_bytes > 0 and level.memory_bytes > 0
    got = [[], [], [], []]
    positions = []
    for first, block in level.read_blocks():
        positions.append(first)
        for part, array in zip(got, (block.rows, block.parent, block.succ, block.action)):
            part.append(array[:block.fill].copy())
    for k in range(4):
        assert np.array_equal(np.concatenate(got[k]), np.concatenate([w[k] for w in written]))
    assert positions == sorted(positions) and positions[0] == 0
    level.delete()
    assert not (tmp_path / "level-1.bin").exists()


def test_a_searchs_level_files_are_several_times_smaller_than_its_records(tmp_path, monkeypatch):
    """Real rows (a search with everything on disk, compressing from the start), not random
    ones: the columns must shrink them; the ratio measured on rf3-r2 is about 12
    (docs/scaling.md). The search gives the in-memory search's counts, verdicts and traces."""
    monkeypatch.setattr(space, "COMPRESS_SHARE", -1.0)
    sizes = {"raw": 0, "packed": 0}
    pack = F.pack

    def counting(rows, parent, succ, action):
        packed = pack(rows, parent, succ, action)
        sizes["raw"] += rows.shape[0] * (rows.shape[1] + F.RECORD_EXTRA_BYTES)
        sizes["packed"] += len(packed)
        return packed
    monkeypatch.setattr(F, "pack", counting)
    config = conftest.config(rf=3, rule_changes=("+kmc-0.1", *conftest.LOOSE), max_records=1,
                             max_leader_epoch=2)
    result = compiled_bfs(config, get_properties(None), workers=1, memory_limit=1,
                          disk_dir=str(tmp_path))
    assert result.stats.distinct_states > 100_000 and sizes["raw"] > 0
    assert sizes["packed"] * 5 < sizes["raw"], sizes
    memory = compiled_bfs(config, get_properties(None), workers=1, disk_limit=0)
    assert outcome(result) == outcome(memory)


def test_level_files_are_compressed_only_once_the_disk_is_short(tmp_path, monkeypatch):
    packed = []
    pack = F.pack
    monkeypatch.setattr(F, "pack", lambda *parts: packed.append(1) or pack(*parts))
    config = conftest.config(rf=3, rule_changes=("+kmc-0.1", *conftest.LOOSE), max_records=1,
                             max_leader_epoch=1)
    roomy = compiled_bfs(config, get_properties(None), workers=1, memory_limit=1,
                         disk_dir=str(tmp_path))
    assert roomy.stats.disk_bytes > 0 and not packed  # 25% of 80% of the free disk: far off
    monkeypatch.setattr(space, "COMPRESS_SHARE", -1.0)
    short = compiled_bfs(config, get_properties(None), workers=1, memory_limit=1,
                         disk_dir=str(tmp_path))
    assert packed and outcome(short) == outcome(roomy)


def test_the_pool_keeps_only_what_the_next_level_can_use():
    """Growing levels: the next one (guessed to grow by the same ratio) takes more blocks than
    reading this one gives back, and the pool covers the difference; shrinking levels: reading
    gives back more than the next one takes, so one block is kept and the rest freed."""
    b = F.MAX_BLOCK_RECORDS
    assert F.pool_need(4 * b, 2 * b) == 8 - 4 + 1
    assert F.pool_need(4 * b, 4 * b) == 1
    assert F.pool_need(4 * b, 8 * b) == 1
    assert F.pool_need(5, 0) == 1
    pool = F.BlockPool()
    for _ in range(5):
        pool.give(F.Block.empty(b, 8))
    assert len(pool.blocks) == 5
    pool.trim(2)
    assert len(pool.blocks) == 2 and pool.nbytes == 2 * F.Block.empty(b, 8).nbytes
    pool.give(F.Block.empty(b, 8))  # a block read beyond the bound is freed, not kept
    assert len(pool.blocks) == 2
    pool.trim(100)  # never more than the pool was made for
    for _ in range(10):
        pool.give(F.Block.empty(b, 8))
    assert len(pool.blocks) == 8
