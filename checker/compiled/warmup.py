"""Compiling the kernel once per installation.

numba compiles a function the first time it is called and keeps the machine code on disk
(``model/kernel/cache.py`` says where). ``ensure_compiled`` makes that first call happen up
front, on a tiny configuration that reaches every entry point the engines use, with a line
before and after saying what is going on; a marker file records that it was done, so later
runs only load the cache (a fraction of a second).

``python -m checker.compiled`` does it from the command line (``make install`` runs it).
"""

from __future__ import annotations

import fcntl
import hashlib
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

from checker.compiled import batch as B
from checker.compiled.driver import compiled_bfs
from checker.compiled.expand import work_buffers
from checker.compiled import table as T
from checker.compiled.fpset import grown, new_table
from checker.compiled.runs import Runs
from checker.compiled.visited import compact_shard, sort_shard
from checker.simulate import simulate
from model.actions import ACTION_NAMES
from model.compiled_model import CompiledModel
from model.config import Bounds, ModelConfig
from model.kernel import CACHE_DIR
from model.kernel.spec import kernel_spec
from properties import get_properties

# numba keeps compiled code per source directory, so two checkouts of the same sources (or
# Spark executors running kmc from another directory) each compile once: the marker says which.
_SOURCES = str(Path(__file__).resolve().parent.parent.parent)
MARKER = CACHE_DIR / f"compiled-{hashlib.blake2b(_SOURCES.encode(), digest_size=6).hexdigest()}.ok"
LOCK = CACHE_DIR / "compile.lock"


def is_compiled() -> bool:
    return MARKER.exists()


def ensure_compiled(notice: Callable[[str], None] | None = None) -> float:
    """Compile every kernel entry point if this installation has not yet; returns the seconds it
    took (0.0 when the cache was already there). Processes that start together (Spark's Python
    workers on one machine) compile once: the others wait for it and then load the cache."""
    if is_compiled():
        return 0.0
    try:
        lock = open(LOCK, "a")
    except OSError:
        lock = None  # an unwritable cache: compile without waiting for anyone
    try:
        if lock is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        if is_compiled():  # another process compiled it while this one waited
            return 0.0
        if notice:
            notice("kmc: compiling the exploration kernel (once per installation; one to two minutes)...")
        started = time.monotonic()
        _exercise()
        seconds = time.monotonic() - started
        try:
            MARKER.write_text(f"{seconds:.1f}\n")
        except OSError:
            pass  # an unwritable cache: numba then compiles each run, and so will this
    finally:
        if lock is not None:
            lock.close()  # releases the lock
    if notice:
        notice(f"kmc: kernel compiled in {seconds:.0f} s; later runs load it from {CACHE_DIR}")
    return seconds


def _exercise() -> None:
    """Call every entry point once: that is what compiles them."""
    config = ModelConfig(protocol="kip-320", replication_factor=3,
                         bounds=Bounds(max_records=1, max_leader_epoch=1, max_crashes=1))
    props = get_properties(None)
    compiled_bfs(config, props, workers=1)  # phases 1 (inserting) and 3, holds, class_fingerprint
    compiled_bfs(config, props, workers=2)  # phase 2: insert_candidates
    compiled_bfs(config, props, workers=1, max_states=50)  # recount
    compiled_bfs(config, props, workers=1, max_depth=6, fp_bits=128)  # count_beyond
    _exercise_disk()
    model = CompiledModel(config)  # successors, canonical
    state = model.init_states()[0]
    model.canonical(model.successors(state)[0][1])
    grown(new_table(16))  # rehash
    _exercise_batches(config)

    # the simulator: walks, then a violation (found in a few thousand walks) and its shortening
    loses = ModelConfig(protocol="hw-truncation", replication_factor=2,
                        bounds=Bounds(max_records=1, max_leader_epoch=1, max_crashes=1))
    simulate(loses, get_properties(["no-acked-loss"]), seed=1, walks=10_000)


def _exercise_disk() -> None:
    """The fingerprint set's growth and its files (a tiny search would not need them)."""
    table = T.new_table(2, 1024, 1)
    T.insert_fp(table, np.uint64(3 << 62), np.uint64(0))
    bigger = T.new_table(2, 2048, 1)
    T.rehash_shard(table, bigger, 1)
    T.collect_shard(bigger, 1, np.zeros((4, 1), dtype=np.uint64))
    compact_shard(bigger, 1)
    sort_shard(bigger, 1)
    with tempfile.TemporaryDirectory(prefix="kmc-warmup-") as tmp:
        runs = Runs(tmp, 2, 1)
        fps = np.array([[1], [5]], dtype=np.uint64)
        runs.merge(0, fps)
        runs.merge(0, np.array([[3]], dtype=np.uint64))  # merge_step
        runs.check(fps, lambda hi: np.zeros(hi.shape[0], dtype=np.uint64))  # check_step


def _exercise_batches(config) -> None:
    """The entry points of a sharded search (``batch.py``, the Spark engine's executors)."""
    spec = kernel_spec(config)
    buf = work_buffers(spec.width, spec.layout.n_brokers, spec.max_successors, len(ACTION_NAMES))
    rows = spec.initial.reshape(1, spec.width)
    fps = np.zeros(4 * spec.max_successors, dtype=np.uint64)
    keys = np.zeros_like(fps)
    _, n = B.expand_block(rows, 0, 1, 0, spec.lay, spec.cfg, spec.sym, fps, keys, buf["out"],
                          buf["acts"], buf["scratch"], buf["best"], buf["order_cmp"])
    new_rows = np.zeros((n, spec.width), dtype=np.int8)
    B.regenerate(rows, 0, keys[:n], spec.lay, spec.cfg, buf["out"], buf["acts"], new_rows,
                 np.zeros(1, dtype=np.int32), np.full(1, -1, dtype=np.int64))
    B.successor_total(rows, 1, spec.lay, spec.cfg, buf["out"], buf["acts"])
    B.insert_new(new_table(1024), fps[:n], np.zeros(n, dtype=np.int8))

