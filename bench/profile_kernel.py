"""Where the compiled engine's time goes, part by part, on one configuration.

Explores the configuration once with the compiled engine, keeping every level's rows, then runs
the hot loop's parts over all of them, each part adding one step to the previous one:

* ``successors``: the kernel's actions (successor generation) alone;
* ``+ canonical``: the canonical row of each successor (symmetry reduction);
* ``+ fingerprint``: its 64-bit fingerprint;
* ``+ probe``: looking it up in a fingerprint table holding every state (a cache-missing probe,
  prefetched per state as the explorer does);
* the explorer's whole search with one worker (also the insertion, the parent index, the next
  level's records, the compiled properties and the driver's Python between batches), of which
  ``properties`` (judging every distinct state against the compiled properties) is measured
  apart;
* ``start-up``: the CPU time of a ``kmc check`` that stops after one state (Python, numpy,
  numba and loading the compiled kernel), which every run pays before its search.

Times are the thread's CPU time (``time.thread_time``), the least of a few runs, so another process's load on the machine
weighs less than on wall time (it still shares the caches and the memory bus).

    python bench/profile_kernel.py [-r 3] [--max-records 2] [more kmc check flags]
"""

from __future__ import annotations

import sys
import time

import numpy as np
from numba import njit

from checker.compiled import expand as X
from checker.compiled.driver import CompiledProperty
from checker.compiled.fpset import contains, fingerprint, insert, new_table, prefetch_slot
from checker.compiled.search import Search
from checker.compiled.space import Space
from model.actions import ACTION_NAMES
from model.kernel.actions import successors
from model.kernel.spec import kernel_spec
from model.kernel.symmetry import canonical
from model.options import config_from_options
from properties import get_properties
from properties.compiled import COMPILED_IDS, holds


@njit
def _gen(rows, lay, cfg, out, acts):
    total = 0
    for i in range(rows.shape[0]):
        total += successors(rows[i], lay, cfg, out, acts)
    return total


@njit
def _gen_canon(rows, lay, cfg, sym, out, acts, order_cmp, scratch, best):
    total = 0
    for i in range(rows.shape[0]):
        k = successors(rows[i], lay, cfg, out, acts)
        for j in range(k):
            if canonical(out[j], lay, sym, order_cmp, scratch, best):
                total += 1
    return total


@njit
def _gen_canon_fp(rows, lay, cfg, sym, out, acts, order_cmp, scratch, best):
    h = np.uint64(0)
    for i in range(rows.shape[0]):
        k = successors(rows[i], lay, cfg, out, acts)
        for j in range(k):
            h ^= X.class_fingerprint(out[j], lay, sym, order_cmp, scratch, best)
    return h


@njit
def _gen_canon_fp_probe(rows, lay, cfg, sym, out, acts, fps, order_cmp, scratch, best, table):
    found = 0
    for i in range(rows.shape[0]):
        k = successors(rows[i], lay, cfg, out, acts)
        for j in range(k):
            fps[j] = X.class_fingerprint(out[j], lay, sym, order_cmp, scratch, best)
            prefetch_slot(table, fps[j])
        for j in range(k):
            if contains(table, fps[j]):
                found += 1
    return found


@njit
def _judge(rows, pids, lay):
    open_ = 0
    for i in range(rows.shape[0]):
        for p in range(pids.shape[0]):
            if holds(pids[p], rows[i], lay):
                open_ += 1
    return open_


@njit
def _fill(table, rows, lay, sym, order_cmp, scratch, best):
    for i in range(rows.shape[0]):
        insert(table, X.class_fingerprint(rows[i], lay, sym, order_cmp, scratch, best))


class _Keeping(Search):
    """The explorer, keeping every level's rows."""

    kept: list

    def _expand_block(self, rows):
        self.kept.append(rows.copy())
        super()._expand_block(rows)


def explore(config):
    """Every reachable row (one worker), the states generated, and the run's CPU seconds."""
    spec = kernel_spec(config)
    props = get_properties(None)
    compiled = [CompiledProperty(p.name, COMPILED_IDS[p.name]) for p in props]
    search = _Keeping(spec, compiled, [], max_states=None, time_limit=None, max_depth=None,
                      space=Space(None, 0, None), workers=1, fp_bits=64, progress=None,
                      progress_every=1e9, checkpoints=None)
    search.kept = []
    search.start_fresh()
    search.violations = {}  # judge every property on every state, whatever it finds
    started = time.thread_time()
    search.explore()
    seconds = time.thread_time() - started
    search.workers.close()
    return np.concatenate(search.kept), search.generated, seconds


def timed(label, fn, *args, repeat=3):
    """The least CPU time of ``repeat`` calls (after one that compiles): the run least disturbed
    by whatever else the machine does."""
    fn(*args)
    best = float("inf")
    for _ in range(repeat):
        started = time.thread_time()
        value = fn(*args)
        best = min(best, time.thread_time() - started)
    return label, best, value


def main(argv) -> None:
    config, _ = config_from_options(**_options(argv))
    spec = kernel_spec(config)
    buf = X.work_buffers(spec.width, spec.layout.n_brokers, spec.max_successors, len(ACTION_NAMES))
    explore_seconds = float("inf")
    for _ in range(2):  # the first also compiles what it calls
        rows, generated, seconds = explore(config)
        explore_seconds = min(explore_seconds, seconds)
    print(f"{rows.shape[0]:,} distinct states, {generated:,} generated, row {spec.width} bytes; "
          f"explored in {explore_seconds:.2f} s CPU (one worker)")
    lay, cfg, sym = spec.lay, spec.cfg, spec.sym
    a = (buf["out"], buf["acts"])
    c = (buf["order_cmp"], buf["scratch"], buf["best"])
    full = new_table(int(rows.shape[0] / 0.7))
    _fill(full, rows, lay, sym, *c)
    parts = [
        timed("successors", _gen, rows, lay, cfg, *a),
        timed("+ canonical", _gen_canon, rows, lay, cfg, sym, *a, *c),
        timed("+ fingerprint", _gen_canon_fp, rows, lay, cfg, sym, *a, *c),
        timed("+ probe", _gen_canon_fp_probe, rows, lay, cfg, sym, *a, buf["fps"], *c, full),
    ]
    previous = 0.0
    for label, seconds, _ in parts:
        print(f"{label:<15} {seconds:6.2f} s  (+{seconds - previous:5.2f} s, "
              f"{(seconds - previous) / generated * 1e9:5.1f} ns per generated state)")
        previous = seconds
    print(f"{'whole search':<15} {explore_seconds:6.2f} s  (the rest: insertion, parents, next "
          f"level, properties, growth, Python: +{explore_seconds - previous:5.2f} s)")
    pids = np.array([COMPILED_IDS[p.name] for p in get_properties(None)], dtype=np.int32)
    _, judged, _ = timed("properties", _judge, rows, pids, lay)
    print(f"{'of which properties':<15} {judged:6.2f} s  ({pids.shape[0]} compiled properties on "
          f"each distinct state, {judged / rows.shape[0] * 1e9:5.1f} ns a state)")
    print(f"{'start-up':<15} {_startup_seconds(argv):6.2f} s  (CPU, a kmc check stopped after one "
          "state: imports, the kernel loaded from its cache)")


def _startup_seconds(argv) -> float:
    """The least CPU time (user + system) of three ``kmc check --max-states 1`` processes."""
    import os
    import subprocess
    from pathlib import Path
    options = _options(argv)
    args = [str(Path(sys.executable).with_name("kmc")), "check", "-q", "--max-states", "1",
            "-r", str(options["replication_factor"]), "--protocol", options["protocol"]]
    for change in options["rule_changes"]:
        args += ["--rule", change]
    best = float("inf")
    for _ in range(3):
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        best = min(best, usage.ru_utime + usage.ru_stime)
    return best


def _options(argv) -> dict:
    """The few configuration flags this script takes, as ``config_from_options`` wants them."""
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-r", "--replication-factor", type=int, default=3)
    ap.add_argument("--max-records", type=int, default=2)
    ap.add_argument("--max-leader-epoch", type=int)
    ap.add_argument("--max-crashes", type=int)
    ap.add_argument("--rule", dest="rule_changes", action="append", default=["+kmc-0.1", "+unordered-leader-moves", "-leader-and-isr-in-order"])
    ap.add_argument("--protocol", default="kip-320")
    args = ap.parse_args(argv)
    return {k: v for k, v in vars(args).items() if v is not None}


if __name__ == "__main__":
    main(sys.argv[1:])
