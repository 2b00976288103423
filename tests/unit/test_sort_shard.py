"""``visited.sort_shard``: a shard of the fingerprint table sorted in place before it is merged
into its file on disk, including the fingerprints that wrapped past the shard's last slot."""

import numpy as np
import pytest

from checker.compiled import table as T
from checker.compiled.visited import sort_shard


def _sorted_rows(rows):
    return sorted(map(tuple, rows.tolist()))


@pytest.mark.parametrize("words", [1, 2])
@pytest.mark.parametrize("seed", range(6))
def test_a_shard_comes_out_sorted_with_every_fingerprint_once(words, seed):
    rng = np.random.default_rng(seed)
    shards, capacity = 4, 4096
    table = T.new_table(shards, capacity, words)
    s = 2
    lo_edge, hi_edge = (2**64 // shards) * s, (2**64 // shards) * (s + 1) - 1
    his = rng.integers(lo_edge, hi_edge, size=3200, dtype=np.uint64, endpoint=True)
    # crowd the shard's last slots, so that probing wraps to its first ones
    his[:300] = rng.integers(hi_edge - (hi_edge - lo_edge) // 200, hi_edge, size=300,
                             dtype=np.uint64, endpoint=True)
    los = rng.integers(1, 2**63, size=his.shape[0], dtype=np.uint64)
    his[-50:] = his[:50]  # equal first words: ordered by the second
    inserted = set()
    for hi, lo in zip(his, los):
        T.insert_fp(table, hi, lo)
        inserted.add((int(hi), int(lo)) if words == 2 else (int(hi),))
    wrapped = table[s, 0, 0] != 0 and T.home_of(table[s, 0, 0], shards, capacity) > 0
    assert wrapped  # the case this test is for
    n = sort_shard(table, s)
    rows = table[s, :n]
    assert n == len(inserted)
    assert [tuple(r) for r in rows.tolist()] == sorted(inserted)


def test_an_empty_and_a_full_shard():
    table = T.new_table(2, 1024, 2)  # the smallest table
    assert sort_shard(table, 0) == 0
    table[1, :, 0] = np.arange(1024, 0, -1, dtype=np.uint64) + np.uint64(2**63)
    table[1, :, 1] = 7
    assert sort_shard(table, 1) == 1024
    assert list(table[1, :, 0]) == sorted(table[1, :, 0])
