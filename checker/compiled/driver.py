"""The compiled engine's breadth-first search: levels, limits, progress and traces.

The hot loop is compiled (``checker/compiled/expand.py``); this driver runs it level by level
and chunk by chunk, between chunks it grows buffers, checks the time and memory limits, prints
progress, judges properties written in Python, and stops. It keeps three things, each with one
job (as TLC does):

* the **fingerprint set** (``fpset.py``): one 64-bit fingerprint per distinct state;
* the **parent index**: for state ``i`` (numbered in discovery order), the index of the state
  it was first reached from and the index of the action among that state's successors
  (4 + 2 bytes, in chunks of a million);
* the **frontier**: the rows of the level being expanded and of the next one.

States themselves are not kept. A counterexample is re-derived by following parent indices back
to the initial state and replaying the action indices forward through the kernel; the states on
the way are decoded into readable ``ClusterState``s, so traces, the viewer and ITF files are the
same as the reference engine's.
"""

from __future__ import annotations

import math
import os
import time
from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np

from checker.compiled import expand as X
from checker.compiled.fpset import grown, insert, max_fill, new_table
from checker.fingerprint import collision_probability
from checker.interrupt import interrupted
from checker.result import (
    HOLDS, INCOMPLETE, INTERRUPTED, VIOLATED, CheckResult, CheckStats, PropertyResult,
)
from checker.trace import Step, Trace
from model.actions import ACTION_NAMES
from model.errors import KmcError
from model.kernel.actions import successors
from model.kernel.codec import decode, decode_action
from model.kernel.fields import SlotOverflow
from model.kernel.spec import KernelSpec, kernel_spec, model_actions
from properties.compiled import COMPILED_IDS, holds

CHUNK = 8192  # frontier states per call into the kernel
PARENT_CHUNK = 1 << 20
ROOT = np.uint32(0xFFFFFFFF)
PROGRESS_EVERY_SECONDS = 5.0


class MemoryLimitError(KmcError):
    """Raised internally when a structure would outgrow ``--memory-limit``."""


@dataclass
class Coverage:
    """Per action, TLC's coverage: states in which it was enabled, successors it produced, and
    how many of those were new."""

    rows: list = field(default_factory=list)  # (action name, enabled, found, new)

    def to_json(self) -> list:
        return [{"action": a, "enabled": e, "found": f, "new": n} for a, e, f, n in self.rows]

    @property
    def never_enabled(self) -> list:
        return [a for a, e, _, _ in self.rows if e == 0]


def default_memory_limit() -> int:
    """Half the machine's RAM: room for the rest of the system, and far from the OOM killer."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 << 30
    return total // 2


def rss_bytes() -> int:
    """This process's resident memory now."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def compiled_property(prop) -> int | None:
    """The id of a built-in property's compiled twin, or None for a property written in Python."""
    if getattr(prop, "compiled", False):
        return COMPILED_IDS[prop.name]
    return None


class _Frontier:
    """A BFS level's rows, in blocks: a level grows a block at a time (never copied), and a
    block is freed as soon as it has been expanded."""

    MAX_BLOCK_ROWS = 1 << 16

    def __init__(self, width: int) -> None:
        self.width = width
        self.blocks: list = []
        self.fills: list[int] = []

    @property
    def count(self) -> int:
        return sum(self.fills)

    @property
    def nbytes(self) -> int:
        return sum(b.nbytes for b in self.blocks if b is not None)

    def _rows_for(self, hint: int) -> int:
        if not self.blocks:
            return min(self.MAX_BLOCK_ROWS, max(1024, hint // 4))
        return min(self.MAX_BLOCK_ROWS, self.blocks[-1].shape[0] * 2)

    def next_block_bytes(self) -> int:
        return self._rows_for(0) * self.width

    def new_block(self, hint: int = 0) -> None:
        self.blocks.append(np.zeros((self._rows_for(hint), self.width), dtype=np.int8))
        self.fills.append(0)

    def append_rows(self, rows: np.ndarray) -> None:
        self.blocks.append(rows.copy())
        self.fills.append(rows.shape[0])

    def free(self, b: int) -> None:
        self.blocks[b] = None


class _Parents:
    """The parent index, in chunks: state ``i`` -> (parent index, action index)."""

    def __init__(self) -> None:
        self.bases: list[int] = []
        self.fills: list[int] = []
        self.parents: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []

    def new_chunk(self, base: int) -> None:
        self.bases.append(base)
        self.fills.append(0)
        self.parents.append(np.zeros(PARENT_CHUNK, dtype=np.uint32))
        self.actions.append(np.zeros(PARENT_CHUNK, dtype=np.uint16))

    @property
    def nbytes(self) -> int:
        return len(self.parents) * PARENT_CHUNK * 6

    def lookup(self, index: int) -> tuple[int, int]:
        c = bisect_right(self.bases, index) - 1
        i = index - self.bases[c]
        return int(self.parents[c][i]), int(self.actions[c][i])

    def path_to(self, index: int) -> list[int]:
        """The action indices from the initial state to state ``index``."""
        path = []
        while True:
            parent, action = self.lookup(index)
            if parent == int(ROOT):
                break
            path.append(action)
            index = parent
        path.reverse()
        return path


def replay_path(spec: KernelSpec, path, property_name=None) -> Trace:
    """The trace along ``path`` (successor indices) from the initial state, decoded."""
    out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
    acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
    row = spec.initial.copy()
    trace = Trace(decode(row, spec.layout), [], property_name)
    for index in path:
        k = successors(row, spec.lay, spec.cfg, out, acts)
        if index >= k:
            raise KmcError(f"replay: successor {index} does not exist ({k} successors)")
        action = decode_action(acts[index])
        row = out[index].copy()
        trace.steps.append(Step(action, decode(row, spec.layout)))
    return trace


def compiled_bfs(
    config,
    properties,
    *,
    max_states: int | None = None,
    time_limit: float | None = None,
    max_depth: int | None = None,
    memory_limit: int | None = None,
    progress=None,
    progress_every: float = PROGRESS_EVERY_SECONDS,
    coverage: bool = False,
) -> CheckResult:
    """Explore ``config`` breadth-first with the compiled kernel and judge ``properties``."""
    started = time.monotonic()
    spec = kernel_spec(config)
    props = list(properties)
    compiled = [p for p in props if compiled_property(p) is not None]
    python = [p for p in props if compiled_property(p) is None]
    memory_limit = memory_limit or default_memory_limit()
    baseline = rss_bytes()
    W = spec.width
    lay, cfg, sym = spec.lay, spec.cfg, spec.sym
    buf = X.work_buffers(W, spec.layout.n_brokers, spec.max_successors, len(ACTION_NAMES))
    pids = np.array([compiled_property(p) for p in compiled], dtype=np.int32)
    violated_at = np.full(len(compiled), -1, dtype=np.int64)
    python_violated: dict[str, int] = {}
    cov = np.zeros((len(ACTION_NAMES), 3), dtype=np.int64)
    ctr = np.zeros(X.CTR_SIZE, dtype=np.int64)
    table = new_table(1 << 16)
    parents = _Parents()
    parents.new_chunk(0)
    stats = CheckStats()
    limit = None

    # the initial state
    init = spec.initial
    fp = X.class_fingerprint(init, lay, sym, buf["order_cmp"], buf["scratch"], buf["best"])
    insert(table, np.uint64(fp))
    parents.parents[0][0] = ROOT
    parents.fills[0] = 1
    ctr[X.GENERATED] = 1
    ctr[X.DISTINCT] = 1
    ctr[X.PARENT_FILL] = 1
    ctr[X.MAX_STATES] = max_states or 0
    ctr[X.MAX_FILL] = max_fill(table)
    for i, p in enumerate(compiled):
        if not holds(pids[i], init, lay):
            violated_at[i] = 0
    _judge_python(python, python_violated, [decode(init, spec.layout)], 0)
    ctr[X.OPEN_PROPERTIES] = int((violated_at < 0).sum())
    ctr[X.PYTHON_OPEN] = len(python) - len(python_violated)

    level = _Frontier(W)  # the level being expanded
    level.append_rows(init.reshape(1, W))
    level_first = 0  # the state index of the level's first row
    nxt = _Frontier(W)  # the next level, as it is found
    depth = 0
    remaining = level.count  # rows of the level not expanded yet
    next_report = started + progress_every
    beyond = 0

    def open_count() -> int:
        return int(ctr[X.OPEN_PROPERTIES] + ctr[X.PYTHON_OPEN])

    def memory_in_use() -> int:
        return baseline + table.nbytes + parents.nbytes + level.nbytes + nxt.nbytes

    if max_states is not None and ctr[X.DISTINCT] >= max_states:
        limit = "max-states"
    try:
        while level.count > 0 and open_count() > 0 and limit is None:
            if max_depth is not None and depth >= max_depth:
                beyond = _count_beyond(spec, level, table, ctr, buf)
                remaining = 0
                if beyond:
                    limit = "max-depth"
                break
            nxt = _Frontier(W)
            nxt.new_block(level.count)
            ctr[X.NEXT_COUNT] = 0
            checked = 0  # rows of the current next block judged by the Python properties
            stop_reason = X.DONE
            first = level_first  # the state index of the block being expanded
            for b in range(len(level.blocks)):
                block, fill, pos = level.blocks[b], level.fills[b], 0
                while pos < fill:
                    c = len(parents.bases) - 1
                    pos, reason = X.expand_chunk(
                        block, pos, min(pos + CHUNK, fill), first, lay, cfg, sym, table,
                        nxt.blocks[-1], parents.parents[c], parents.actions[c], pids, violated_at,
                        ctr, cov, buf["out"], buf["acts"], buf["fps"], buf["scratch"],
                        buf["best"], buf["order_cmp"], buf["seen_action"])
                    parents.fills[c] = int(ctr[X.PARENT_FILL])
                    nxt.fills[-1] = int(ctr[X.NEXT_COUNT])
                    remaining = level.count - (first - level_first) - pos
                    if python and nxt.fills[-1] > checked:
                        index = level_first + level.count + nxt.count - nxt.fills[-1] + checked
                        rows = nxt.blocks[-1][checked:nxt.fills[-1]]
                        _judge_python(python, python_violated,
                                      [decode(r, spec.layout) for r in rows], index)
                        checked = nxt.fills[-1]
                        ctr[X.PYTHON_OPEN] = len(python) - len(python_violated)
                    if reason == X.NEED_TABLE:
                        _need(memory_in_use() + int(table.nbytes * 1.6), memory_limit)
                        table = grown(table)
                        ctr[X.MAX_FILL] = max_fill(table)
                    elif reason == X.NEED_NEXT:
                        _need(memory_in_use() + nxt.next_block_bytes(), memory_limit)
                        nxt.new_block(level.count)
                        ctr[X.NEXT_COUNT] = 0
                        checked = 0
                    elif reason == X.NEED_PARENTS:
                        _need(memory_in_use() + PARENT_CHUNK * 6, memory_limit)
                        parents.new_chunk(int(ctr[X.DISTINCT]))
                        ctr[X.PARENT_FILL] = 0
                    elif reason != X.DONE:
                        stop_reason = reason
                        break
                    if python and open_count() == 0:
                        stop_reason = X.ALL_VIOLATED
                        break
                    now = time.monotonic()
                    if time_limit is not None and now - started >= time_limit:
                        limit = "time-limit"
                        break
                    if interrupted():  # a KeyboardInterrupt some finaliser swallowed
                        limit = INTERRUPTED
                        break
                    if now >= next_report:
                        next_report = now + progress_every
                        _report(progress, stats, ctr, depth, remaining + nxt.count, started)
                if limit is not None or stop_reason != X.DONE:
                    break
                level.free(b)  # expanded: its rows are no longer needed
                first += fill
            if nxt.count > 0:
                depth += 1
            if stop_reason == X.REACHED_MAX_STATES:
                limit = "max-states"
            if limit is not None or stop_reason != X.DONE:
                break
            level_first += level.count
            level, nxt = nxt, _Frontier(W)
            remaining = level.count
    except MemoryLimitError:
        limit = "memory-limit"
    except KeyboardInterrupt:  # SIGINT or SIGTERM (checker.interrupt): stop, report what we have
        limit = INTERRUPTED
    except SlotOverflow as e:
        raise KmcError(
            f"a state of this configuration does not fit the compiled engine's fixed slots ({e}); "
            "this is a bug in kmc's state layout, please report it with the command line "
            "(--engine reference checks the configuration meanwhile)") from None

    queue = remaining + nxt.count
    _fill_stats(stats, ctr, depth, queue + beyond, started)
    stats.memory_bytes = rss_bytes()
    stats.structure_bytes = table.nbytes + parents.nbytes
    results = []
    for i, p in enumerate(compiled):
        results.append(_verdict(spec, p, int(violated_at[i]), parents, limit, stats))
    for p in python:
        results.append(_verdict(spec, p, python_violated.get(p.name, -1), parents, limit, stats))
    order = {p.name: i for i, p in enumerate(props)}
    results.sort(key=lambda r: order[r.name])
    result = CheckResult("compiled", config.as_dict(), results, stats, limit)
    if coverage:
        present = set(model_actions(config))
        result.coverage = Coverage([
            (ACTION_NAMES[a], int(cov[a, X.ENABLED]), int(cov[a, X.FOUND]), int(cov[a, X.NEW]))
            for a in range(len(ACTION_NAMES)) if ACTION_NAMES[a] in present
        ])
    if python:
        result.notes.append(
            "note: " + ", ".join(p.name for p in python) + " written in Python: judged on decoded "
            "states between compiled chunks (slower; verdicts and shortest traces unchanged)")
    return result


def _report(progress, stats, ctr, depth, queue, started) -> None:
    _fill_stats(stats, ctr, depth, queue, started)
    stats.memory_bytes = rss_bytes()
    if progress is not None:
        progress(stats)


def _need(projected: int, limit: int) -> None:
    if projected > limit:
        raise MemoryLimitError()


def _count_beyond(spec, level: _Frontier, table, ctr, buf) -> int:
    """The distinct states one step past the depth limit that were never seen."""
    beyond = new_table(1 << 12)
    ctr[X.BEYOND] = 0
    for block, fill in zip(level.blocks, level.fills):
        pos = 0
        while pos < fill:
            pos, reason = X.count_beyond(block, pos, fill, spec.lay, spec.cfg, spec.sym, table,
                                         beyond, ctr, buf["out"], buf["acts"], buf["scratch"],
                                         buf["best"], buf["order_cmp"])
            if reason == X.NEED_TABLE:
                beyond = grown(beyond)
    return int(ctr[X.BEYOND])


def _judge_python(python, violated: dict, states: list, first_index: int) -> None:
    for offset, state in enumerate(states):
        for p in python:
            if p.name not in violated and not p.check(state):
                violated[p.name] = first_index + offset


def _fill_stats(stats: CheckStats, ctr, depth: int, queue: int, started: float) -> None:
    stats.states_generated = int(ctr[X.GENERATED])
    stats.distinct_states = int(ctr[X.DISTINCT])
    stats.depth = depth
    stats.queue = queue
    stats.seconds = time.monotonic() - started
    stats.collision_probability = collision_probability(stats.distinct_states, stats.states_generated)


def _verdict(spec, prop, index: int, parents: _Parents, limit, stats) -> PropertyResult:
    if index >= 0:
        trace = replay_path(spec, parents.path_to(index), prop.name)
        if prop.check(trace.states[-1]):
            raise KmcError(
                f"internal error: the replayed counterexample for {prop.name} does not violate it "
                "(the compiled property and its Python twin disagree); please report it")
        return PropertyResult(prop.name, VIOLATED, trace)
    if limit is not None or stats.queue:
        return PropertyResult(prop.name, INCOMPLETE)
    return PropertyResult(prop.name, HOLDS)


def bytes_per_state(stats: CheckStats) -> float:
    return stats.structure_bytes / stats.distinct_states if stats.distinct_states else math.nan
