"""``simulate``: random walks through the compiled kernel, in batches, with limits, progress,
and a shortened trace for what they find.

The compiled loop (``walks.py``) runs a batch of walks; between batches the driver checks the
walk limit and reports progress. The time limit and a signal stop a batch under way: a timer
thread (and the signal watcher) set a flag the loop reads before every step. Batches grow or shrink to take about a fifth of a
second each, which changes nothing in the result: each walk draws from its own random stream
(seed, walk index), so a seed always produces the same walks.

On a violation, the walk's successor indices are turned into action labels, shortened by delta
debugging through replay (``shrink.py``), replayed once more into a readable ``Trace``
(``checker.compiled.driver.replay_path``), and checked against the property's Python twin, as
the compiled explorer checks its counterexamples.

Only compiled properties can be judged inside the loop: a property written in Python is a
``ConfigError`` (``kmc check`` judges those).
"""

from __future__ import annotations

import contextlib
import threading
import time

import numpy as np

from checker.compiled.driver import compiled_property, replay_path
from checker.interrupt import cancel_on_interrupt, interrupted
from checker.limits import check_limit
from checker.result import INCOMPLETE, VIOLATED, PropertyResult
from checker.simulate import walks as W
from checker.simulate.result import Finding, SimulationResult
from checker.simulate.shrink import Replayer, shorten as shorten_labels
from model.actions import ACTION_NAMES
from model.errors import ConfigError, KmcError
from model.kernel.actions import successors
from model.kernel.codec import decode
from model.kernel.spec import kernel_spec

DEFAULT_DEPTH = 100
MAX_DEPTH = 1_000_000  # a walk's path is 4 bytes a step; --depth 99999999999999 was a MemoryError
PROGRESS_EVERY_SECONDS = 5.0
BATCH_SECONDS = 0.2
FIRST_BATCH = 64  # walks in the first batch; later batches are sized to take BATCH_SECONDS
MAX_SEED = 2**64 - 1


def simulate(config, properties, *, seed: int, depth: int = DEFAULT_DEPTH,
             walks: int | None = None, time_limit: float | None = None, progress=None,
             progress_every: float = PROGRESS_EVERY_SECONDS, shorten: bool = True) -> SimulationResult:
    """Random walks of at most ``depth`` steps through ``config``'s transition system, judging
    ``properties`` (``Property`` objects with compiled twins) in every state, until a property
    is violated, ``walks`` walks have run, or ``time_limit`` seconds have passed (at least one
    of the two limits is required). ``progress(result)`` is called every ``progress_every``
    seconds with the result so far."""
    props = list(properties)
    python = [p.name for p in props if compiled_property(p) is None]
    if python:
        raise ConfigError(
            f"kmc simulate judges compiled properties only; {', '.join(python)} "
            f"{'is' if len(python) == 1 else 'are'} written in Python (kmc check judges "
            f"{'it' if len(python) == 1 else 'them'})")
    if not props:
        raise ConfigError("no property to check")
    if depth is None or not 1 <= depth <= MAX_DEPTH:
        raise ConfigError(f"--depth must be from 1 to {MAX_DEPTH:,}, got {depth}")
    if walks is not None and walks < 1:
        raise ConfigError(f"--walks must be at least 1, got {walks}")
    check_limit("time-limit", time_limit)  # positive and finite: NaN compares false with all
    if walks is None and time_limit is None:
        raise ConfigError("give --walks or --time-limit (random walks never finish by themselves)")
    if not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"--seed must be between 0 and {MAX_SEED}, got {seed}")

    started = time.monotonic()
    spec = kernel_spec(config)
    pids = np.array([compiled_property(p) for p in props], dtype=np.int32)
    result = SimulationResult(config.as_dict(), seed, depth, [])
    n_actions = len(ACTION_NAMES)
    row = spec.initial.copy()
    out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
    acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
    path = np.zeros(depth, dtype=np.int32)
    violated = np.zeros(len(props), dtype=np.int8)
    coverage = np.zeros((n_actions, 2), dtype=np.int64)
    seen_action = np.zeros(n_actions, dtype=np.int8)
    ctr = np.zeros(W.CTR_SIZE, dtype=np.int64)
    stop = np.zeros(1, dtype=np.int8)  # set by the timer below: the walks read it every step

    def snapshot() -> None:
        result.walks = int(ctr[W.WALKS])
        result.steps = int(ctr[W.STEPS])
        result.deadlocks = int(ctr[W.DEADLOCKS])
        result.seconds = time.monotonic() - started
        result.walk_seconds = walking
        result.coverage = [(ACTION_NAMES[a], int(coverage[a, W.ENABLED]), int(coverage[a, W.TAKEN]))
                           for a in range(n_actions)]

    # the initial state is judged once, not by every walk
    initial_state = decode(spec.initial, spec.layout)
    from_initial = [i for i, p in enumerate(props) if not p.check(initial_state)]
    found_path: np.ndarray | None = None
    if from_initial:
        violated[from_initial] = 1
        found_path = np.zeros(0, dtype=np.int32)
        result.limit = "violation"
    next_walk, batch, walking = 0, FIRST_BATCH, 0.0
    W.run_walks(spec.initial, spec.lay, spec.cfg, pids, np.uint64(seed), 0, 0, depth, row, out,
                acts, path, violated, coverage, seen_action, ctr, stop)  # loads the compiled loop: not timed
    next_report = started + progress_every
    # the time limit bounds the walks themselves, not only the gaps between batches: a batch
    # sized on an idle machine can take many times longer on a loaded one
    timer = None
    if time_limit is not None:
        wait = min(max(0.0, started + time_limit - time.monotonic()), threading.TIMEOUT_MAX)
        timer = threading.Timer(wait, stop.fill, (1,))
        timer.daemon = True
        timer.start()
    on_signal = contextlib.ExitStack()  # Ctrl-C or SIGTERM stops the batch under way at once too
    on_signal.enter_context(cancel_on_interrupt(lambda: stop.fill(1)))
    try:
        while found_path is None:
            count = batch if walks is None else min(batch, walks - next_walk)
            if count <= 0:
                result.limit = "walks"
                break
            t0 = time.monotonic()
            next_walk, reason = W.run_walks(
                spec.initial, spec.lay, spec.cfg, pids, np.uint64(seed), next_walk, count, depth,
                row, out, acts, path, violated, coverage, seen_action, ctr, stop)
            took = time.monotonic() - t0
            walking += took
            if reason == W.STOPPED:
                result.limit = "interrupted" if interrupted() else "time-limit"
                break
            if reason == W.FOUND:
                found_path = path[:int(ctr[W.FOUND_LENGTH])].copy()
                result.limit = "violation"
                break
            if took < BATCH_SECONDS / 2:
                batch = min(batch * 2, 1 << 20)
            elif took > BATCH_SECONDS * 2 and batch > 1:
                batch //= 2
            now = time.monotonic()
            if time_limit is not None and now - started >= time_limit:
                result.limit = "time-limit"
                break
            if progress is not None and now >= next_report:
                next_report = now + progress_every
                snapshot()
                progress(result)
    except KeyboardInterrupt:
        result.limit = "interrupted"
    finally:
        on_signal.close()
        if timer is not None:
            timer.cancel()
    snapshot()

    for i, p in enumerate(props):
        if found_path is not None and violated[i]:
            trace, finding = _counterexample(spec, p, pids[i], found_path, int(ctr[W.FOUND_WALK]), shorten)
            result.properties.append(PropertyResult(p.name, VIOLATED, trace))
            if finding is not None:
                result.findings.append(finding)
        else:
            result.properties.append(PropertyResult(p.name, INCOMPLETE))
    result.seconds = time.monotonic() - started
    return result


def _labels(spec, path: np.ndarray) -> np.ndarray:
    """The action labels (id, arg0, arg1) of a walk given as successor indices."""
    labels = np.zeros((len(path), 3), dtype=np.int16)
    row = spec.initial.copy()
    out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
    acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
    for i, j in enumerate(path):
        k = successors(row, spec.lay, spec.cfg, out, acts)
        if j >= k:
            raise KmcError(f"internal error: the walk's step {i + 1} does not replay; please report it")
        labels[i] = acts[j]
        row = out[j].copy()
    return labels


def _counterexample(spec, prop, pid, path, walk: int, shorten: bool):
    """The trace of ``prop``'s violation along ``path``, shortened if asked, checked against the
    property's Python twin."""
    finding = None
    indices = path
    if len(path) and shorten:
        replayer = Replayer(spec, int(pid))
        labels, indices = shorten_labels(_labels(spec, path), replayer)
        finding = Finding(prop.name, walk, len(path), len(labels), replayer.replays)
    elif len(path):
        finding = Finding(prop.name, walk, len(path), len(path), 0)
    trace = replay_path(spec, [int(j) for j in indices], prop.name)
    if prop.check(trace.states[-1]):
        raise KmcError(
            f"internal error: the replayed walk does not violate {prop.name} (the compiled "
            "property and its Python twin disagree); please report it")
    return trace, finding
