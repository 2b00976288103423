"""What the executors run: the two passes of a BFS level, over one partition's records.

Every record is ``(partition index, value)`` and every value a tuple tagged by its first item;
all data are numpy arrays (never one Python object per state):

* ``("rows", first, rows)``: states of a level as the kernel's int8 rows (``n x width``), the
  first at position ``first`` of its level (positions count states in the local engine's order);
* ``("cand", source, fps, keys)``: successors found by partition ``source``, for this
  fingerprint shard: fingerprints (sorted, each once) and the smallest key of each;
* ``("run", fps)``: a sorted run of the fingerprints this shard has visited;
* ``("win", level, keys)``: keys (``checker.compiled.batch``) of new states of ``level`` whose
  parent is held by this partition. Sorted, a partition's keys are that level's parent index
  there, in the order ``step`` regenerates the states.

The two passes of level ``L``:

1. ``step`` (partition ``i``: level ``L - 1``'s rows and the ``win`` keys of level ``L``):
   regenerate the rows the keys name, judge them, send them to the partition that holds their
   positions (``frontier``: equal ranges), expand them and send each fingerprint shard
   (``fp % shards``) its candidates: one shuffle carries both;
2. ``deduplicate`` (shard ``p``: its visited runs and its candidates): the fingerprints it had
   not visited, as a new run, and their keys as ``win`` records for the partitions holding their
   parents: the next level's step 1.

Partition ``i`` holds a consecutive range of its level's positions, so ordering states by
partition then position is the local engine's order. Figures for the driver go into an
accumulator (``boot.Figures``), keyed by kind and partition.
"""

from __future__ import annotations

import json

import numpy as np

from checker.compiled import batch as B
from checker.compiled.expand import work_buffers
from checker.compiled.warmup import ensure_compiled
from model.actions import ACTION_NAMES
from model.errors import KmcError
from model.kernel.fields import SlotOverflow
from model.kernel.spec import kernel_spec

MAX_RECORD_BYTES = 128 << 20
"""A record is at most this big (Spark moves each as one byte array, which stops at 2 GiB)."""
EXPAND_BATCH = 1 << 16
"""Successor entries (fingerprint + key) computed per call into the kernel."""

_specs: dict = {}


class ExecutorError(RuntimeError):
    """A task found something wrong with the model (never with the data): the run stops."""


def spec_for(config):
    """``(kernel spec, work buffers)`` for ``config``, built once per Python worker; the kernel
    is compiled first if this machine has not compiled it for this code yet."""
    key = json.dumps(config.as_dict(), sort_keys=True)
    entry = _specs.get(key)
    if entry is None:
        ensure_compiled()
        spec = kernel_spec(config)
        buf = work_buffers(spec.width, spec.layout.n_brokers, spec.max_successors, len(ACTION_NAMES))
        entry = _specs[key] = (spec, buf)
    return entry


def check_successor_bits(spec) -> None:
    """Keys hold a successor index in ``SUCCESSOR_BITS`` bits."""
    if spec.max_successors > B.SUCCESSOR_MASK:
        raise KmcError(f"a state of this configuration can have {spec.max_successors} successors; "
                       f"the Spark engine's keys hold at most {B.SUCCESSOR_MASK}")


def shard_of(fps: np.ndarray, shards: int) -> np.ndarray:
    """The fingerprint shard of each fingerprint."""
    return (fps % np.uint64(shards)).astype(np.int64)


def pieces(n: int, item_bytes: int) -> list:
    """``(start, stop)`` ranges cutting ``n`` items of ``item_bytes`` into records of at most
    ``MAX_RECORD_BYTES``."""
    step = max(1, MAX_RECORD_BYTES // max(item_bytes, 1))
    return [(s, min(s + step, n)) for s in range(0, n, step)]


def rows_of(records: list):
    """A partition's ``rows`` records as one array, and the position of its first row
    (``(0, None)`` if it has none). Its pieces hold consecutive positions."""
    blocks = sorted((v[1], v[2]) for _, v in records if v[0] == "rows")
    if not blocks:
        return 0, None
    rows = blocks[0][1] if len(blocks) == 1 else np.concatenate([b for _, b in blocks])
    return blocks[0][0], rows


def keys_of(records: list, level: int):
    """This partition's sorted keys of ``level``'s states (None if it has none)."""
    parts = [v[2] for _, v in records if v[0] == "win" and v[1] == level]
    if not parts:
        return None
    return np.sort(np.concatenate(parts) if len(parts) > 1 else parts[0], kind="stable")


def _fail_overflow(e: Exception):
    raise ExecutorError(f"a state does not fit the compiled engine's fixed slots ({e})") from None


# ----------------------------------------------------------------------------- a level


def step(split: int, records, config, level: int, layout: list, frontier: list, props: np.ndarray,
         shards: int, figures):
    """Pass 1 of level ``level`` in partition ``split`` (see the module's docstring). ``layout``:
    the first position of each partition's regenerated states, then the level's size;
    ``frontier``: the same for where the rows go; ``props``: the compiled properties to judge."""
    spec, buf = spec_for(config)
    records = list(records)
    first, rows = rows_of(records)
    violated = np.full(props.shape[0], -1, dtype=np.int64)
    if level > 0:  # the rows this partition holds are the parents; regenerate their children
        keys = keys_of(records, level)
        parents_first, parents = first, rows
        first, rows = layout[split], None
        if keys is not None:
            rows = np.empty((keys.shape[0], spec.width), dtype=np.int8)
            try:
                done = B.regenerate(parents, parents_first, keys, spec.lay, spec.cfg, buf["out"],
                                    buf["acts"], rows, props, violated)
            except SlotOverflow as e:
                _fail_overflow(e)
            if done < keys.shape[0]:
                raise ExecutorError(f"level {level}: a recorded successor does not exist when its parent "
                                    "is expanded again (the model is not deterministic)")
    count = 0 if rows is None else rows.shape[0]
    generated = found = 0
    if count:
        yield from _to_frontier(first, rows, frontier)
        generated, fps, keys = _expand(spec, buf, first, rows)
        found = fps.shape[0]
        yield from _to_shards(split, fps, keys, shards)
    positions = [int(first + v) if v >= 0 else -1 for v in violated]
    figures.add({("judged", split): (count, positions), ("expanded", split): (generated, found)})


def _to_frontier(first: int, rows: np.ndarray, frontier: list):
    """Rows to the partitions whose ranges of positions they fall in."""
    stop = first + rows.shape[0]
    for target in range(len(frontier) - 1):
        lo, hi = max(frontier[target], first), min(frontier[target + 1], stop)
        if lo < hi:
            part = rows[lo - first:hi - first]
            for a, b in pieces(part.shape[0], part.shape[1]):
                yield target, ("rows", lo + a, part[a:b])


def _expand(spec, buf, first: int, rows: np.ndarray):
    """Successors of ``rows`` (the first at position ``first``): ``(generated, fps, keys)`` with
    each fingerprint once, sorted, with its smallest key."""
    fps = np.empty(EXPAND_BATCH + spec.max_successors, dtype=np.uint64)
    keys = np.empty_like(fps)
    fps_parts, key_parts = [], []
    pos = generated = 0
    try:
        while pos < rows.shape[0]:
            pos, n = B.expand_block(rows, pos, rows.shape[0], first, spec.lay, spec.cfg, spec.sym,
                                    fps, keys, buf["out"], buf["acts"], buf["scratch"], buf["best"],
                                    buf["order_cmp"])
            generated += n
            fps_parts.append(fps[:n].copy())
            key_parts.append(keys[:n].copy())
    except SlotOverflow as e:
        _fail_overflow(e)
    all_fps, all_keys = np.concatenate(fps_parts), np.concatenate(key_parts)
    # each fingerprint once, with its first key: keys were written in increasing order
    order = np.argsort(all_fps, kind="stable")
    all_fps = all_fps[order]
    first_of = np.ones(all_fps.shape[0], dtype=bool)
    first_of[1:] = all_fps[1:] != all_fps[:-1]
    return generated, all_fps[first_of], all_keys[order[first_of]]


def _to_shards(split: int, fps: np.ndarray, keys: np.ndarray, shards: int):
    shard = shard_of(fps, shards)
    order = np.argsort(shard, kind="stable")  # keeps each shard's fingerprints sorted
    cuts = np.searchsorted(shard[order], np.arange(shards + 1))
    for p in range(shards):
        sel = order[cuts[p]:cuts[p + 1]]
        for a, b in pieces(sel.shape[0], 16):
            yield p, ("cand", split, fps[sel[a:b]], keys[sel[a:b]])


def new_states(runs: list, candidates: list):
    """The fingerprints of ``candidates`` (``(source, fps, keys)``) in no run of ``runs``, each
    once with its smallest key: ``(fps, keys)``, sorted by fingerprint.

    Sources hold consecutive ranges of their level's positions, so every key of source ``s`` is
    smaller than every key of source ``s + 1``; within a source each fingerprint appears once.
    A stable sort by fingerprint of the sources taken in order therefore puts each
    fingerprint's smallest key first."""
    if not candidates:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint64)
    candidates = sorted(candidates, key=lambda c: c[0])
    fps = np.concatenate([c[1] for c in candidates])
    keys = np.concatenate([c[2] for c in candidates])
    order = np.argsort(fps, kind="stable")
    fps, keys = fps[order], keys[order]
    first = np.ones(fps.shape[0], dtype=bool)
    first[1:] = fps[1:] != fps[:-1]
    fps, keys = fps[first], keys[first]
    fresh = np.ones(fps.shape[0], dtype=bool)
    for run in runs:
        if run.shape[0] == 0:
            continue
        at = np.searchsorted(run, fps)
        np.minimum(at, run.shape[0] - 1, out=at)
        fresh &= run[at] != fps
    return fps[fresh], keys[fresh]


def winners_by_partition(keys: np.ndarray, bounds) -> list:
    """Split keys by the partition that holds their parent (``bounds``: the first position of
    each partition, then the level's size): ``[(i, keys)]``."""
    parents = (keys >> np.uint64(B.SUCCESSOR_BITS)).astype(np.int64)
    target = np.searchsorted(np.asarray(bounds, dtype=np.int64), parents, side="right") - 1
    order = np.argsort(target, kind="stable")
    cuts = np.searchsorted(target[order], np.arange(len(bounds)))
    return [(i, keys[order[cuts[i]:cuts[i + 1]]]) for i in range(len(bounds) - 1)
            if cuts[i + 1] > cuts[i]]


def deduplicate(split: int, records, level: int, frontier: list, figures):
    """Pass 2 of level ``level`` in fingerprint shard ``split``: the candidates it has not
    visited, as a new run, and their keys as ``win`` records of level ``level + 1`` for the
    partitions holding their parents (``frontier``: level ``level``'s ranges)."""
    records = list(records)
    runs = [v[1] for _, v in records if v[0] == "run"]
    cands = [(v[1], v[2], v[3]) for _, v in records if v[0] == "cand"]
    fps, keys = new_states(runs, cands)
    for a, b in pieces(fps.shape[0], 8):
        yield split, ("run", fps[a:b])
    per_partition = [0] * (len(frontier) - 1)
    for i, part in winners_by_partition(keys, frontier):
        per_partition[i] = int(part.shape[0])
        for a, b in pieces(part.shape[0], 8):
            yield i, ("win", level + 1, part[a:b])
    figures.add({("deduplicated", split): per_partition})


# ----------------------------------------------------------------------------- merging


def merge_runs(split: int, records):
    """Every few levels: this shard's runs -> one run."""
    runs = [v[1] for _, v in records if v[0] == "run"]
    if runs:
        merged = np.sort(np.concatenate(runs), kind="stable") if len(runs) > 1 else runs[0]
        for a, b in pieces(merged.shape[0], 8):
            yield split, ("run", merged[a:b])


def keep_parents(split: int, records):
    """Every few levels: the parent indexes (``win`` records) of the runs being merged."""
    for key, value in records:
        if value[0] == "win":
            yield key, value


# ----------------------------------------------------------------------------- lookups


def parent_key(split: int, records, level: int, position: int) -> list:
    """The key of the state at ``position`` of this partition's share of ``level``."""
    return [int(keys_of(list(records), level)[position])]


def count_up_to_parent(split: int, records, level: int, rank: int) -> list:
    """How many of this partition's states of ``level`` have a parent at position <= ``rank``."""
    keys = keys_of(list(records), level)
    if keys is None:
        return [0]
    limit = np.uint64((rank << B.SUCCESSOR_BITS) | B.SUCCESSOR_MASK)
    return [int(np.searchsorted(keys, limit, side="right"))]


def rows_of_partition(split: int, records) -> list:
    """This partition's rows, as ``(first position, rows)`` pieces in order."""
    return sorted((v[1], v[2]) for _, v in records if v[0] == "rows")


def successors_up_to(split: int, records, config, rank: int) -> list:
    """States generated by expanding this partition's rows at positions <= ``rank``."""
    spec, buf = spec_for(config)
    first, rows = rows_of(list(records))
    if rows is None or rank < first:
        return [0]
    stop = min(rows.shape[0], rank - first + 1)
    return [int(B.successor_total(rows, stop, spec.lay, spec.cfg, buf["out"], buf["acts"]))]
