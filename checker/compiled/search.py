"""The compiled engine's breadth-first search: levels, batches, workers, memory and disk.

A level's records are read block by block (``frontier.py``); reading a block numbers its states
(their entries join the parent index, ``parents.py``) and cuts it into batches, which the
workers expand in three phases (``expand.py``). The next level's records are written as they
are found. Between batches the driver grows or spills what outgrows the memory budget
(``visited.py``, ``frontier.py``, ``parents.py``), checks the limits, prints progress and judges
the properties written in Python; between levels it resolves the states whose freshness the
disk must confirm, and writes checkpoints (``checkpoint.py``).

The search is **level-synchronous**: every state of level ``d`` is expanded before any of level
``d + 1``, so a state is found at its shortest distance and a counterexample is a shortest one.
States are numbered in the order one worker would find them (``expand.py``), so everything a
result says is the same for any number of workers, including where an early stop (``--max-
states``, every property violated) cuts a batch: the counts are then recomputed up to the
state or row one worker would have stopped after (``_cut``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from checker.compiled import expand as X
from checker.compiled import table as T
from checker.compiled.frontier import Block, BlockPool, Level, live_mask, pool_need
from checker.compiled.parents import Parents
from checker.compiled.space import (
    DiskLimitError, MemoryLimitError, Space, give_back_free_memory, rss_bytes,
)
from checker.compiled.runs import sort_order as _sort_order
from checker.compiled.visited import PENDING_ENTRY_BYTES, Visited
from checker.compiled.workers import Workers
from checker.interrupt import interrupted
from checker.result import INTERRUPTED
from model.actions import ACTION_NAMES
from model.estimate import estimated_states, unordered_moves
from model.kernel.codec import decode
from properties.compiled import holds

SLICE_ROWS = 1024  # rows of a slice: a phase's unit (small: at a barrier one waits for one)
SLICES_PER_WORKER = 8  # slices of a batch per worker: a free worker always finds one
CANDIDATES = 1 << 13  # candidates a slice can hold (8 a row: more are rare, and end the batch)
INITIAL_CAPACITY = 1 << 15  # slots per shard of a new table
ESTIMATE_MARGIN = 1.5  # the first growth's room, over the states model/estimate.py expects
PENDING_SHARE = 0.05  # of the memory budget, the pending lists (once fingerprints are on disk)
DEAD_SHARE = 0.1  # of the memory budget, kept back when the table is sized after its first flush
# for the positions of records found on disk (``level_dead``, ``nxt_dead``), which grow with the
# levels (8 bytes a duplicate found on disk; tens of millions a level in a run past memory)
MIN_PENDING = 1 << 16
PROGRESS_EVERY_SECONDS = 5.0


@dataclass
class Violation:
    """Where a property was first violated: the state it was reached from and the successor
    index (the initial state: parent -1); ``order`` = (row, successor) within its batch, for
    cutting the batch."""

    parent: int
    succ: int


class _Worker:
    """One worker's scratch buffers."""

    def __init__(self, spec, words: int) -> None:
        buf = X.work_buffers(spec.width, spec.layout.n_brokers, spec.max_successors,
                             len(ACTION_NAMES))
        self.out, self.acts, self.hi, self.lo = buf["out"], buf["acts"], buf["fps"], buf["lo"]
        self.scratch, self.best, self.order_cmp = buf["scratch"], buf["best"], buf["order_cmp"]
        self.seen, self.ahead = buf["seen_action"], buf["ahead"]
        self.local = np.zeros((2 * CANDIDATES, words), dtype=np.uint64)  # empty between calls
        self.mine = np.zeros(CANDIDATES, dtype=np.int32)  # phase 2: one slice's candidates of a shard

    @property
    def nbytes(self) -> int:
        return self.local.nbytes + 2 * self.out.nbytes + self.mine.nbytes


class _Candidates:
    """Every slice's candidate buffers, one array per field with a slice's as its ``i``-th entry,
    so phase 2 takes all of a batch's candidates in one call per shard."""

    def __init__(self, slices: int, words: int) -> None:
        self.fps = np.zeros((slices, CANDIDATES, words), dtype=np.uint64)
        self.shard = np.zeros((slices, CANDIDATES), dtype=np.uint8)
        self.fresh = np.zeros((slices, CANDIDATES), dtype=np.uint8)
        self.counts = np.zeros(slices, dtype=np.int64)


class _Slice:
    """A slice of a batch (a fixed range of rows) and its candidates (slice ``i`` of ``cands``)."""

    def __init__(self, i: int, cands: _Candidates, width: int, n_props: int) -> None:
        self.rows = np.zeros((CANDIDATES, width), dtype=np.int8)
        self.fps, self.shard, self.fresh = cands.fps[i], cands.shard[i], cands.fresh[i]
        self.parent = np.zeros(CANDIDATES, dtype=np.int32)
        self.succ = np.zeros(CANDIDATES, dtype=np.uint16)
        self.action = np.zeros(CANDIDATES, dtype=np.uint8)
        self.coverage = np.zeros((len(ACTION_NAMES), 3), dtype=np.int64)
        self.counts = np.zeros(2, dtype=np.int64)
        self.violated = np.zeros(max(n_props, 1), dtype=np.int64)
        self.start = self.stop = self.reached = 0
        self.n = 0  # candidates
        self.new = 0  # fresh candidates
        self.offset = 0  # where its fresh ones go in the next level's block
        self.level_offset = 0  # ... and their positions in the level

    @property
    def nbytes(self) -> int:
        return (self.rows.nbytes + self.fps.nbytes + self.parent.nbytes + self.succ.nbytes
                + self.action.nbytes + self.fresh.nbytes)


class Search:
    """One run of the compiled engine (``driver.compiled_bfs`` builds it and calls ``run``)."""

    def __init__(self, spec, compiled, python, *, max_states, time_limit, max_depth, space: Space,
                 workers: int, fp_bits: int, progress, progress_every: float, checkpoints) -> None:
        self.spec = spec
        self.compiled, self.python = compiled, python
        self.pids = np.array([c.pid for c in compiled], dtype=np.int32)
        self.max_states, self.time_limit, self.max_depth = max_states, time_limit, max_depth
        self.space = space
        self.workers = Workers(workers)
        self.words = 2 if fp_bits == 128 else 1
        self.progress = progress
        self.progress_every = progress_every
        self.checkpoints = checkpoints
        self.buffers = [_Worker(spec, self.words) for _ in range(self.workers.n)]
        n_slices = SLICES_PER_WORKER * self.workers.n
        self.cands = _Candidates(n_slices, self.words)
        self.slices = [_Slice(i, self.cands, spec.width, len(compiled)) for i in range(n_slices)]
        self._load_kernel()
        self.started = time.monotonic()
        self.elapsed_before = 0.0  # seconds of the runs this one resumes
        self.limit = None
        self.all_violated = False  # stopped because every property is violated
        # the search's state: what a checkpoint saves
        self.generated = 0
        self.distinct = 0
        self.depth = 0
        self.coverage = np.zeros((len(ACTION_NAMES), 3), dtype=np.int64)
        self.violations: dict = {}  # property name -> Violation
        self.level_sizes: list = []  # live states per level, for progress and the ETA
        self.visited: Visited | None = None
        self.parents: Parents | None = None
        self.level: Level | None = None  # the level being expanded
        self.level_dead = np.zeros(0, dtype=np.int64)  # its records to skip
        self.level_first = 0  # the number of its first state
        self.nxt: Level | None = None
        self.nxt_dead: list = []
        self.expanded = 0  # states of the level expanded so far
        self.beyond = 0
        self.at_depth_limit = False
        self.first_expanded = 0  # states expanded before this process began (a resumed run)
        self.parents_on_disk = False  # the memory budget sent the parent index to disk
        self.frontier_on_disk = False  # ... and the frontier
        self.pool = BlockPool()
        self.baseline_measured = False
        self.next_report = self.started + progress_every

    # ------------------------------------------------------------------ set-up

    def _load_kernel(self) -> None:
        """Load the compiled code of the entry points every search calls, before its clock
        starts. numba loads a function's machine code from its cache at its first call; the
        first batch used to pay that (about 0.1 s per entry point, one more with two workers)
        inside the search's time, which is meant to exclude start-up. Each is called once on
        this run's own buffers (so with the types the search will pass) with nothing to do."""
        spec, b, s = self.spec, self.buffers[0], self.slices[0]
        table = T.new_table(shards_for(self.workers.n), 1024, self.words)
        rows = np.zeros((1, spec.width), dtype=np.int8)
        block = Block.empty(1, spec.width)
        X.class_fingerprint(spec.initial, spec.lay, spec.sym, b.order_cmp, b.scratch, b.best)
        X.class_fingerprint_lo(spec.initial, spec.lay, spec.sym, b.order_cmp, b.scratch, b.best)
        T.insert_fp(table, np.uint64(1), np.uint64(0))
        T.shard_of(np.uint64(1), table.shape[0])
        T.rehash_shard(table, T.new_table(table.shape[0], 1024, self.words), 0)
        X.expand_rows(rows, 0, 0, spec.lay, spec.cfg, spec.sym, table, b.out, b.acts, b.hi, b.lo,
                      b.ahead, b.local, s.rows, s.fps, s.shard, s.parent, s.succ, s.action,
                      s.coverage, s.counts, b.scratch, b.best, b.order_cmp, b.seen,
                      self.workers.n == 1, 0)
        if self.workers.n > 1:
            c = self.cands
            X.insert_candidates(table, 0, c.fps[:1], c.shard[:1], np.zeros(1, dtype=np.int64),
                                c.fresh[:1], np.zeros(1, dtype=np.int64),
                                np.zeros(table.shape[0], dtype=np.int64), b.mine)
        p = _NO_PENDING
        X.admit_fresh(s.rows, s.fps, s.parent, s.succ, s.action, s.fresh, 0, 0, block.rows,
                      block.parent, block.succ, block.action, 0, 0,
                      np.zeros(table.shape[0], dtype=np.uint8), p[0], p[1], p[2],
                      p[3], self.pids, s.violated, s.coverage, spec.lay)

    def start_fresh(self) -> None:
        """The initial state: state 0, level 0."""
        spec, s = self.spec, self.buffers[0]
        shards = shards_for(self.workers.n)
        self.visited = Visited(shards, self.words, INITIAL_CAPACITY, None, self.workers)
        init = spec.initial
        hi = np.uint64(X.class_fingerprint(init, spec.lay, spec.sym, s.order_cmp, s.scratch, s.best))
        lo = np.uint64(X.class_fingerprint_lo(init, spec.lay, spec.sym, s.order_cmp, s.scratch,
                                              s.best))
        T.insert_fp(self.visited.table, hi, lo if self.words > 1 else np.uint64(0))
        self.visited.fills[T.shard_of(hi, self.visited.shards)] += 1
        self.parents = Parents()
        self.level = Level(spec.width, pool=self.pool, space=self.space)
        self.level.append_rows(init.reshape(1, -1), parent=-1)
        self.generated = self.distinct = 1
        for c in self.compiled:
            if not holds(c.pid, init, spec.lay):
                self.violations[c.name] = Violation(-1, 0)
        self._judge_python([decode(init, spec.layout)], lambda k: Violation(-1, 0))
        self.level_sizes = [1]

    def _expected_capacity(self, shards: int) -> int:
        """Slots per shard for 1.5x the states ``model/estimate.py`` expects (usually low: 23-35%
        at RF=3 under free moves), within half the memory budget: the first growth goes straight
        there, as a growth holds both tables at once (docs/scaling.md, "second pass")."""
        b = self.spec.config.bounds
        expected = estimated_states(self.spec.config.replication_factor, b.max_records,
                                    b.max_leader_epoch, b.max_crashes,
                                    symmetry=self.spec.config.symmetry,
                                    unordered=unordered_moves(self.spec.config.rules))
        budget = max(self.space.memory_room(0), 0) // 2 // (8 * self.words * shards)
        room = expected * ESTIMATE_MARGIN / T.MAX_LOAD / shards
        return int(max(INITIAL_CAPACITY, min(room, budget)))

    @property
    def open_count(self) -> int:
        return len(self.compiled) + len(self.python) - len(self.violations)

    @property
    def stopping(self) -> bool:
        return self.limit is not None or self.all_violated

    # ------------------------------------------------------------------ the search

    def explore(self) -> None:
        self.first_expanded = self.level_first
        if self.max_states is not None and self.distinct >= self.max_states:
            self.limit = "max-states"
        while self.level_sizes[-1] > 0 and self.open_count > 0 and not self.stopping:
            if self.max_depth is not None and self.depth >= self.max_depth:
                self.at_depth_limit = True
                self.beyond = self._count_beyond()
                if self.beyond:
                    self.limit = "max-depth"
                return
            self._new_next_level()
            for first, block in self.level.read_blocks():
                rows, parent, succ = self._live(first, block)
                self.parents.append(parent, succ)  # this level's states get their numbers
                self._expand_block(rows)
                if self.stopping:
                    return
            self._finish_level()
            if self.checkpoints is not None and self.level_sizes[-1] > 0:
                self.checkpoints.maybe_save(self)

    def _live(self, first: int, block):
        n = block.fill
        mask = live_mask(first, n, self.level_dead)
        if mask is None:
            return block.rows[:n], block.parent[:n], block.succ[:n]
        return block.rows[:n][mask], block.parent[:n][mask], block.succ[:n][mask]

    def _new_next_level(self) -> None:
        """An empty next level; on disk from the start if the current one had to go there."""
        self.nxt = Level(self.spec.width, pool=self.pool, space=self.space)
        self.nxt_dead = []
        self.expanded = 0
        if self.frontier_on_disk:
            self.nxt.path = self._level_path(len(self.level_sizes))
            self.nxt.spilled = True

    def _level_path(self, depth: int) -> str:
        return f"{self.space.directory}/level-{depth}.bin"

    @property
    def next_live(self) -> int:
        """States of the next level found so far (states are numbered level by level)."""
        return self.distinct - self.level_first - self.level_sizes[-1]

    def _finish_level(self) -> None:
        """The level is expanded: confirm the next level's states, and move on to it."""
        self.resolve()
        if self.nxt_dead:  # joined, the pieces let go, then sorted in place: twice the bytes at
            dead = np.concatenate(self.nxt_dead)  # most, not three times (np.sort copies)
            self.nxt_dead = [dead]
            dead.sort()
        else:
            dead = np.zeros(0, np.int64)
        live = self.nxt.count - dead.shape[0]
        if live > 0:
            self.depth += 1
        self.level_first += self.level_sizes[-1]
        self.level_sizes.append(live)
        self.pool.trim(pool_need(live, self.level_sizes[-2]))
        if live < self.level_sizes[-2]:  # past the widest level: blocks were freed, not reused
            give_back_free_memory()
        if self.checkpoints is not None:
            self.checkpoints.forget_level(self.level)
        else:
            self.level.delete()
        self.level, self.level_dead = self.nxt, dead
        self.nxt_dead = []  # (``dead`` is ``level_dead`` now: counted once)
        self.nxt = None
        self.expanded = 0
        self.note_disk()

    def _expand_block(self, rows: np.ndarray) -> None:
        """Expand a block's live rows, batch by batch (its first row is state
        ``level_first + expanded``)."""
        first_rank = self.level_first + self.expanded
        start = 0
        while start < rows.shape[0]:
            stop = min(start + SLICE_ROWS * len(self.slices), rows.shape[0])
            reached = self._batch(rows, start, stop, first_rank)
            self.expanded += reached - start
            start = reached
            if self.stopping:
                return
            self._between_batches()
            if self.stopping:
                return

    def _between_batches(self) -> None:
        if self.python and self.open_count == 0:
            return
        now = time.monotonic()
        if self.time_limit is not None and self.elapsed(now) >= self.time_limit:
            self.limit = "time-limit"
        elif interrupted():  # a KeyboardInterrupt some finaliser swallowed
            self.limit = INTERRUPTED
        elif now >= self.next_report:
            self.next_report = now + self.progress_every
            self.report()

    def elapsed(self, now: float | None = None) -> float:
        return self.elapsed_before + (now or time.monotonic()) - self.started

    # ------------------------------------------------------------------ one batch

    def _batch(self, rows, start: int, stop: int, first_rank: int) -> int:
        """Expand ``rows[start:stop]`` (``rows[0]`` is state ``first_rank``); returns where it
        got to: ``stop``, less if a slice's candidate buffer filled up first, or the row after
        the one the search stopped at."""
        spec, vis = self.spec, self.visited
        active = []
        for s in self.slices:
            s.start, s.stop = start + len(active) * SLICE_ROWS, start + (len(active) + 1) * SLICE_ROWS
            if s.start >= stop:
                break
            s.stop = min(s.stop, stop)
            active.append(s)
        parallel = len(active) > 1
        insert_now = self.workers.n == 1  # phase 2 done in phase 1 (expand.py)
        if insert_now:
            self._room_for(CANDIDATES)  # one slice's: a slice stops where the table is full
        # no local name for the table: ``_insert`` may replace it (``_room_for``: a flush to disk
        # and a new table), and a reference held here kept the old one alive beside the new one
        # until the batch ended: the old table's bytes over the memory budget (a 1G run peaked at
        # 1,215 MiB; the 12.6 GB 1/6/40 run at 13.5 GiB)

        def expand(w, i):
            s, b = active[i], self.buffers[w]
            table_room = 0
            if insert_now:  # one worker: the slices one after another
                if i > 0 and active[i - 1].reached < active[i - 1].stop:
                    s.reached, s.n = s.start, 0  # the batch ended before it: nothing inserted
                    return
                table_room = vis.max_fill() - int(vis.fills[0]) - sum(a.n for a in active[:i])
            s.coverage[:] = 0
            s.reached = X.expand_rows(
                rows, s.start, s.stop, spec.lay, spec.cfg, spec.sym, vis.table, b.out, b.acts, b.hi,
                b.lo, b.ahead, b.local, s.rows, s.fps, s.shard, s.parent, s.succ, s.action, s.coverage,
                s.counts, b.scratch, b.best, b.order_cmp, b.seen, insert_now, table_room)
            s.n = int(s.counts[1])
        self.workers.run_items(len(active), expand, parallel)
        for i, s in enumerate(active):  # a full buffer: the batch ends there
            if s.reached < s.stop:
                active = active[:i + 1]
                break
        reached = active[-1].reached

        if insert_now:
            for s in active:
                s.fresh[:s.n] = 1
                s.new = s.n
            fresh = sum(s.n for s in active)
            vis.fills[0] += fresh
        else:
            fresh = self._insert(active, parallel)

        block, position = self._reserve_next(fresh)
        level_position = self.nxt.count  # the level's records so far: where this batch's begin
        for s in active:
            s.offset, s.level_offset = position, level_position
            position += s.new
            level_position += s.new
            for p, c in enumerate(self.compiled):
                s.violated[p] = X.NOT_JUDGED if c.name in self.violations else X.OPEN
        self._pending_room(fresh)
        disk_shards = vis.disk_shards
        pending = vis.pending

        def admit(w, i):
            s = active[i]
            p = pending[w] if pending is not None else _NO_PENDING
            X.admit_fresh(s.rows, s.fps, s.parent, s.succ, s.action, s.fresh, s.n, first_rank,
                          block.rows, block.parent, block.succ, block.action, s.offset,
                          s.level_offset, disk_shards, p[0], p[1], p[2], p[3], self.pids,
                          s.violated, s.coverage, spec.lay)
        self.workers.run_items(len(active), admit, parallel)
        self.nxt.commit(fresh)
        if not self.baseline_measured:  # the kernel's code is loaded now: what the process itself takes
            self.baseline_measured = True
            self.space.baseline = max(self.space.baseline, rss_bytes() - self.memory_in_use())
        cut_row = self._account(active, rows, first_rank, block, fresh)
        return reached if cut_row is None else cut_row + 1

    def _insert(self, active, parallel: bool) -> int:
        """Phase 2: every shard inserts its candidates of the batch; returns how many were
        fresh (each slice's ``new`` set)."""
        vis = self.visited
        self._room_for(sum(s.n for s in active))
        table, fills, c, k = vis.table, vis.fills, self.cands, len(active)
        for i, s in enumerate(active):
            c.counts[i] = s.n
        new = np.zeros((table.shape[0], k), dtype=np.int64)

        def insert(w, shard):
            X.insert_candidates(table, shard, c.fps[:k], c.shard[:k], c.counts[:k], c.fresh[:k],
                                new[shard], fills, self.buffers[w].mine)
        self.workers.run_items(table.shape[0], insert, parallel)
        for i, s in enumerate(active):
            s.new = int(new[:, i].sum())
        return int(new.sum())

    def _account(self, active, rows, first_rank, block, fresh):
        """Add a batch's counts, judge its fresh states in Python, and cut it where one worker
        would have stopped; returns the row it was cut after, or None."""
        found = {}  # property name -> (slice number, candidate): its first violation here
        for p, c in enumerate(self.compiled):
            if c.name not in self.violations:
                for i, s in enumerate(active):
                    if s.violated[p] >= 0:
                        found[c.name] = (i, int(s.violated[p]))
                        break
        if self.python and len(self.violations) + len(found) < self.open_total():
            start = block.fill - fresh
            states = [decode(block.rows[start + k], self.spec.layout) for k in range(fresh)]
            self._judge_python_batch(states, active, found)
        if self.visited.pending_count() and self._may_stop(found, fresh):
            fresh = self._resolve_in_batch(active)  # a cut must count only states truly new
        cut = self._cut_point(active, found, fresh)
        if cut is None:
            for s in active:
                self.coverage += s.coverage
                self.generated += int(s.counts[0])
            self.distinct += fresh
        else:
            self._cut(active, rows, cut, found)
        for name, (i, c) in found.items():
            s = active[i]
            if cut is not None and (s.parent[c], s.succ[c]) > cut[:2]:
                continue  # after the state the search stops at
            self.violations[name] = Violation(first_rank + int(s.parent[c]), int(s.succ[c]))
        return None if cut is None else cut[0]

    def _may_stop(self, found, fresh: int) -> bool:
        return bool((self.max_states is not None and self.distinct + fresh >= self.max_states)
                    or (found and len(self.violations) + len(found) == self.open_total()))

    def _resolve_in_batch(self, active) -> int:
        """Resolve the pending states now, this batch's among them: those found on disk stop
        being fresh candidates of the batch. Returns the batch's fresh count."""
        positions, actions = self.visited.resolve()
        first = active[0].level_offset
        earlier = positions < first
        self._after_resolve((positions[earlier], actions[earlier]))
        mine = positions[~earlier]
        if mine.shape[0]:
            self.nxt_dead.append(mine)
            for s in active:
                k = mine[(mine >= s.level_offset) & (mine < s.level_offset + s.new)] - s.level_offset
                if k.shape[0]:
                    dead = self._fresh_candidates(s)[k]
                    s.fresh[dead] = 0
                    np.subtract.at(s.coverage[:, X.NEW], s.action[dead], 1)
                    s.new -= k.shape[0]
        return sum(s.new for s in active)

    def open_total(self) -> int:
        return len(self.compiled) + len(self.python)

    def _fresh_candidates(self, s) -> np.ndarray:
        return np.flatnonzero(s.fresh[:s.n])

    def _judge_python_batch(self, states, active, found) -> None:
        """Judge the batch's fresh states (in order) against the Python properties."""
        offsets = np.cumsum([0] + [s.new for s in active])
        for prop in self.python:
            if prop.name in self.violations or prop.name in found:
                continue
            for k, state in enumerate(states):
                if not prop.check(state):
                    i = int(np.searchsorted(offsets, k, side="right") - 1)
                    c = int(self._fresh_candidates(active[i])[k - offsets[i]])
                    found[prop.name] = (i, c)
                    break

    def _cut_point(self, active, found, fresh):
        """Where one worker would have stopped in this batch: ``(row, successor, reason)``, or
        None to take all of it. At ``--max-states``: right after the state that reached it;
        when the last open property is violated: after the row whose successor violated it."""
        cuts = []
        if self.max_states is not None and self.distinct + fresh >= self.max_states:
            need = self.max_states - self.distinct  # the need-th fresh state of the batch
            for s in active:
                if need <= s.new:
                    c = int(self._fresh_candidates(s)[need - 1])
                    cuts.append((int(s.parent[c]), int(s.succ[c]), "max-states"))
                    break
                need -= s.new
        if found and len(self.violations) + len(found) == self.open_total():
            last = max(int(active[i].parent[c]) for i, c in found.values())
            cuts.append((last, 1 << 30, "violated"))
        return min(cuts) if cuts else None

    def _cut(self, active, rows, cut, found) -> None:
        """Counts up to ``cut``: successors and coverage recomputed for the rows up to it, the
        fresh states up to it counted."""
        row, succ, reason = cut
        first_row = active[0].start
        s0 = self.buffers[0]
        self.generated += int(X.recount(rows[first_row:row + 1], row + 1 - first_row, succ + 1,
                                        self.spec.lay, self.spec.cfg, s0.out, s0.acts, s0.seen,
                                        self.coverage))
        for s in active:
            idx = self._fresh_candidates(s)
            keep = (s.parent[idx] < row) | ((s.parent[idx] == row) & (s.succ[idx] <= succ))
            kept = idx[keep]
            self.distinct += kept.shape[0]
            np.add.at(self.coverage[:, X.NEW], s.action[kept], 1)
        if reason == "max-states":
            self.limit = "max-states"
        else:
            self.all_violated = True

    def _judge_python(self, states, violation) -> None:
        for prop in self.python:
            if prop.name in self.violations:
                continue
            for k, state in enumerate(states):
                if not prop.check(state):
                    self.violations[prop.name] = violation(k)
                    break

    # ------------------------------------------------------------------ room

    def memory_in_use(self) -> int:
        n = self.visited.memory_bytes + self.parents.memory_bytes + self.level.memory_bytes
        # the records to skip, found on disk (8 bytes each; tens of millions in a level of a run
        # past memory), which grow with the levels (docs/checker.md, "Past memory")
        n += self.level_dead.nbytes + sum(d.nbytes for d in self.nxt_dead)
        if self.nxt is not None:
            n += self.nxt.memory_bytes
        n += self.pool.nbytes
        return n + sum(s.nbytes for s in self.slices) + sum(b.nbytes for b in self.buffers)

    def _fits(self, extra: int) -> bool:
        return self.space.memory_room(self.memory_in_use()) >= extra

    def _make_room(self, extra: int) -> bool:
        """Move the sequential structures to disk until ``extra`` bytes fit; False if they
        still do not."""
        if self._fits(extra):
            return True
        if not self.space.disk_allowed:
            return False
        self._spill_sequential()
        return self._fits(extra)

    def _spill_sequential(self) -> None:
        """The parent index, the rest of the level being expanded and the next level to their
        files (each read once, in order), and every later level straight there."""
        directory = self.space.directory
        if self.parents.path is None:
            self.parents.path = f"{directory}/parents.bin"
        self.reserve_disk(self.parents.memory_bytes)
        self.parents.spill()
        self.parents_on_disk = self.frontier_on_disk = True
        if self.level.memory_bytes > self.level.next_block_bytes():
            if self.level.path is None:
                self.level.path = self._level_path(len(self.level_sizes) - 1)
            self.reserve_disk(self.level.memory_bytes)
            self.level.spill(everything=True)
        if self.nxt is not None:
            if self.nxt.path is None:
                self.nxt.path = self._level_path(len(self.level_sizes))
            self.reserve_disk(self.nxt.memory_bytes)
            self.nxt.spill()
        self.note_disk()

    def reserve_disk(self, nbytes: int) -> None:
        self.note_disk()
        self.space.reserve_disk(nbytes)

    def note_disk(self) -> None:
        used = self.visited.runs.disk_bytes + self.parents.disk_bytes + self.level.disk_bytes
        if self.nxt is not None:
            used += self.nxt.disk_bytes
        if self.checkpoints is not None:
            used += self.checkpoints.disk_bytes(self)
        self.space.note_disk(used)

    def _room_for(self, batch: int) -> None:
        """Room in every shard of the table for ``batch`` more fingerprints: grow it, or move
        full shards to disk."""
        vis = self.visited
        while vis.needs_room(batch):
            capacity = max(int(vis.table.shape[1] * T.GROWTH), self._expected_capacity(vis.shards))
            if self._make_room(vis.grown_bytes(capacity)):
                vis.grow(capacity)
                continue
            if not self.space.disk_allowed:
                raise MemoryLimitError()
            if vis.runs.directory is None:
                vis.runs.directory = self.space.directory
            if not vis.on_disk:  # the first time: all of it to disk, then the largest table that fits
                vis.start_pending(self.pending_entries())
                self._after_resolve(vis.flush(range(vis.shards), self.reserve_disk, self.announce))
                # the pending lists are copied and sorted when checked (``Visited.resolve``: the
                # lists joined, the sort order, the sorted copy, the answers: about twice the
                # lists' bytes at once): room for that too
                pending = vis.memory_bytes - vis.table.nbytes
                room = self.space.memory_room(self.memory_in_use() - vis.table.nbytes + 2 * pending)
                room -= int(self.space.memory_limit * DEAD_SHARE)  # the records to skip, to come
                capacity = max(self.min_capacity(), int(room * 0.9) // (8 * self.words * vis.shards))
                shards = vis.shards
                vis.table = None  # freed before the new one is allocated
                vis.table = T.new_table(shards, capacity, self.words)
            else:
                full = [s for s in range(vis.shards) if vis.fills[s] + batch > vis.max_fill()]
                self._after_resolve(vis.flush(full, self.reserve_disk, self.announce))
            self.note_disk()
            if vis.needs_room(batch):  # a batch larger than a shard: cannot happen at sane sizes
                raise MemoryLimitError()

    def min_capacity(self) -> int:
        """Slots per shard a table needs at least: room for one batch's candidates."""
        return int(CANDIDATES * len(self.slices) / T.MAX_LOAD) + 1024

    def pending_entries(self) -> int:
        entry = 8 * self.words + PENDING_ENTRY_BYTES
        total = int(self.space.memory_limit * PENDING_SHARE) // entry
        return max(MIN_PENDING, CANDIDATES * len(self.slices), total // self.workers.n)

    def _pending_room(self, fresh: int) -> None:
        """Room in every worker's pending list for a batch's ``fresh`` states (any worker may
        take any slice)."""
        vis = self.visited
        if vis.pending is None:
            return
        if any(fresh > vis.pending_room(w) for w in range(self.workers.n)):
            self.resolve()

    def resolve(self) -> None:
        if self.visited.pending is not None and self.visited.pending_count():
            self._after_resolve(self.visited.resolve())

    def _after_resolve(self, dead) -> None:
        """States found on disk: not new after all. Their records will be skipped; the counts
        corrected now."""
        positions, actions = dead
        if positions.shape[0] == 0:
            return
        self.nxt_dead.append(positions)
        self.distinct -= positions.shape[0]
        np.subtract.at(self.coverage[:, X.NEW], actions, 1)

    def _reserve_next(self, fresh: int):
        """Room for ``fresh`` records in the next level's current block."""
        block, position = self.nxt.reserve(0)
        if block.fill + fresh > block.rows.shape[0]:
            # past the budget even with everything sequential on disk: the one block being
            # written must still be in memory (only with no disk at all is that a stop)
            if not self._make_room(self.nxt.next_block_bytes()) and not self.space.disk_allowed:
                raise MemoryLimitError()
            if self.nxt.spilled:
                self.reserve_disk(self.nxt.next_block_bytes())
        return self.nxt.reserve(fresh)

    # ------------------------------------------------------------------ depth limit

    def _count_beyond(self) -> int:
        """The distinct states one step past the depth limit that were never seen."""
        spec, s, vis = self.spec, self.buffers[0], self.visited
        beyond = T.new_table(1, 1 << 12, self.words)
        fill = np.zeros(1, dtype=np.int64)
        for first, block in self.level.read_blocks():
            rows, _, _ = self._live(first, block)
            pos = 0
            while pos < rows.shape[0]:
                reached, generated = X.count_beyond(
                    rows[pos:], rows.shape[0] - pos, spec.lay, spec.cfg, spec.sym, vis.table,
                    beyond, fill, s.out, s.acts, s.scratch, s.best, s.order_cmp)
                self.generated += int(generated)
                pos += int(reached)
                if pos < rows.shape[0]:
                    bigger = T.new_table(1, int(beyond.shape[1] * T.GROWTH), self.words)
                    T.rehash_shard(beyond, bigger, 0)
                    beyond = bigger
        count = int(fill[0])
        if vis.on_disk and count:  # a state seen before may be on disk only
            found = np.zeros((count, self.words), dtype=np.uint64)
            T.collect_shard(beyond, 0, found)
            found = np.ascontiguousarray(found[_sort_order(found)])
            count -= int(vis.runs.check(found, lambda hi: T.shards_of(hi, vis.shards)).sum())
        return count

    # ------------------------------------------------------------------ progress

    def queue(self) -> int:
        """States found but not expanded."""
        left = self.level_sizes[-1] - self.expanded if self.level is not None else 0
        nxt = self.next_live if self.nxt is not None else 0
        return max(left, 0) + nxt + self.beyond

    def report(self) -> None:
        if self.progress is not None:
            self.note_disk()
            self.progress(self.stats())

    def announce(self, activity: str) -> None:
        """A progress line now, if one is due, naming what the search is doing between batches
        (a merge to disk, a checkpoint): without it a long pause looks like a hang."""
        now = time.monotonic()
        if self.progress is not None and now >= self.next_report:
            self.next_report = now + self.progress_every
            self.note_disk()
            stats = self.stats()
            stats.activity = activity
            self.progress(stats)

    def stats(self):
        from checker.compiled.progress import search_stats
        return search_stats(self)


def shards_for(workers: int) -> int:
    """Shards of the table: one for one worker, else four a worker (phase 2 hands them out one
    by one, so a worker kept waiting by the machine holds up a small part of a batch)."""
    return 1 if workers == 1 else min(4 * workers, 252)  # a candidate's shard is a byte


_NO_PENDING = (np.zeros((1, 2), dtype=np.uint64), np.zeros(1, dtype=np.int64),
               np.zeros(1, dtype=np.uint8), np.zeros(1, dtype=np.int64))


def bytes_per_state(structure_bytes: int, states: int) -> float:
    return structure_bytes / states if states else math.nan
