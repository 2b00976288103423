"""``spark_bfs``: the compiled engine's breadth-first search, sharded across a Spark cluster.

The answers are the local compiled engine's (``checker.compiled``), to the state: the same
distinct and generated counts, depth, queue, verdicts and counterexamples, on any configuration
the kernel accepts. States cross Spark only as numpy arrays, a few per partition and level; no
Python object per state exists anywhere.

**One Spark job per BFS level** ``L``, two passes through Python (``tasks.py``):

1. *step*, in each frontier partition: regenerate the rows of level ``L`` that the previous
   job's keys name, from their parents' rows (``checker.compiled.batch``), judge them against
   the compiled properties, and compute their successors' fingerprints and keys (a key names a
   parent's position and an action: 16 bytes per successor, never a row). One shuffle then
   moves the candidates to their fingerprint shards (``fp % partitions``) and the rows to the
   partition holding their range of positions (equal ranges: every level is spread evenly);
2. *deduplicate*, in each shard: drop what the shard has visited (its visited set is sorted
   runs of uint64, read once per level and merged every few levels), keep each fingerprint's
   smallest key over all partitions (the parent and action the local engine records), and send
   the keys back to the partitions holding the parents: they are the next job's input and the
   level's parent index.

Positions count a level's states in the local engine's order, and partition ``i`` holds a
consecutive range of them, so the driver, which collects only a few figures per partition (in
an accumulator), knows each property's first violating state. When every property has been
violated (or ``max_states`` is reached) inside a level, it asks the cluster for that state's
parent and the successor counts up to it, and reports exactly the local engine's counts.

A counterexample is rebuilt by looking its state up in the parent index, level by level (one
single-partition job per step), and replaying the action indices through
``checker.compiled.driver.replay_path``: the trace is the local engine's.

**Lineage** is cut every ``checkpoint_every`` levels, when the visited runs are merged: with
``checkpoint_dir``, by Spark's reliable checkpoints there, with a manifest a new driver resumes
from (``checkpoint.py``); else, on ``local[...]`` masters, by ``localCheckpoint``; on a cluster
without a checkpoint directory the lineage is kept, so a lost executor is recomputed from the
first level.

``visited="driver"`` is the alternative the design measured against: the driver keeps the
visited fingerprints (one table, ``checker.compiled.fpset``) and the executors only step. It
saves the second pass, but the visited set is capped by the driver's memory (docs/scaling.md
compares both).

Properties written in Python (``@invariant`` in a user's module) are judged on the driver, which
reads every new state's row for them (a note says so): fine on one machine, a bottleneck on a
cluster. With one of them open, the local engine stops at the end of its 8192-state chunk
rather than after the violating state's parent, so its counts there can be a little higher.
"""

from __future__ import annotations

import json
import pickle
import time
from bisect import bisect_right
from dataclasses import asdict, dataclass, field

import numpy as np

from checker.compiled import batch as KB
from checker.compiled.driver import compiled_property, replay_path
from checker.compiled.expand import class_fingerprint, work_buffers
from checker.compiled.fpset import grown, max_fill, new_table
from checker.compiled.progress import level_eta
from checker.compiled.warmup import ensure_compiled
from checker.engines import register_engine
from checker.fingerprint import collision_probability
from checker.interrupt import interrupted, reclaim_signals
from checker.result import HOLDS, INCOMPLETE, VIOLATED, CheckResult, CheckStats, PropertyResult
from model.actions import ACTION_NAMES
from model.config import ModelConfig
from model.errors import KmcError
from model.kernel.cache import source_hash
from model.kernel.codec import decode
from model.kernel.spec import kernel_spec
from properties.compiled import holds
from spark_explore import boot
from spark_explore import tasks as T
from spark_explore.checkpoint import CheckpointDir
from spark_explore.interrupt import quiet_py4j
from spark_explore.session import (
    SparkEngineError, first_line, get_context, keep_log, memory_hint, prepare_checkpoints, ship_code,
    stop_context,
)

CHECKPOINT_EVERY = 5
"""Levels between two cuts of the lineage (and merges of the visited runs)."""
MAX_RUNS = 8
"""Visited runs kept apart at most (between merges)."""
VISITED_PLACES = ("executors", "driver")


@dataclass
class Level:
    """What the driver knows of one BFS level."""

    count: int  # its states
    first: int  # the index (in the local engine's numbering) of its first state
    layout: list  # where its parent index lives: first position of each partition, then count
    frontier: list  # where its rows live for expanding (``layout``, or evened out)
    generated: int = 0  # successors of its states, once expanded
    seconds: float = 0.0  # the job that expanded it


@dataclass
class RunState:
    """The driver's state between levels: everything a resumed run needs besides the RDDs."""

    levels: list
    violated: dict = field(default_factory=dict)  # property -> index of its first violating state
    elapsed: float = 0.0  # seconds spent by earlier drivers (a resumed run)

    def to_json(self) -> dict:
        return {"levels": [asdict(lv) for lv in self.levels], "violated": self.violated,
                "elapsed": self.elapsed}

    @classmethod
    def from_json(cls, data: dict) -> "RunState":
        return cls([Level(**lv) for lv in data["levels"]], dict(data["violated"]), data["elapsed"])


@dataclass
class End:
    """Where and why a run stopped, in the local engine's counts."""

    limit: str | None
    distinct: int
    generated: int
    depth: int
    queue: int


def spark_bfs(
    config: ModelConfig,
    properties,
    *,
    max_states: int | None = None,
    time_limit: float | None = None,
    max_depth: int | None = None,
    progress=None,
    notice=None,
    master: str | None = None,
    partitions: int | None = None,
    checkpoint_dir: str | None = None,
    resume: bool = False,
    checkpoint_every: int | None = None,
    visited: str = "executors",
) -> CheckResult:
    """Explore ``config`` breadth-first on Spark and judge ``properties``; engine ``"spark"``.

    ``master``: a Spark master URL (default: the active context, else ``local[*]``);
    ``partitions``: frontier partitions and fingerprint shards (default: the default
    parallelism); ``checkpoint_dir``: where to checkpoint every ``checkpoint_every`` levels,
    ``resume``: continue the run checkpointed there; ``visited``: ``"executors"`` (sharded) or
    ``"driver"`` (one table on the driver).
    """
    if partitions is not None and not 1 <= partitions <= 1 << 15:
        raise SparkEngineError(f"--partitions must be between 1 and 32768, got {partitions}")
    if checkpoint_every is not None and checkpoint_every < 1:
        raise SparkEngineError(f"--checkpoint-every must be at least 1, got {checkpoint_every}")
    if resume and not checkpoint_dir:
        raise SparkEngineError("--resume needs --checkpoint-dir (the directory of the run to resume)")
    if visited not in VISITED_PLACES:
        raise SparkEngineError(f"visited must be one of {', '.join(VISITED_PLACES)}, got {visited!r}")
    if visited == "driver" and checkpoint_dir:
        raise SparkEngineError("checkpoints need the visited set on the executors (visited='executors')")
    spec = kernel_spec(config)
    T.check_successor_bits(spec)
    ensure_compiled(notice)
    sc, created = get_context(master, partitions)
    reclaim_signals()  # pyspark's SIGINT handler would turn Ctrl-C into a py4j error
    try:
        code = ship_code(sc)
        store = CheckpointDir(sc, checkpoint_dir) if checkpoint_dir else None
        explorer = _Explorer(sc, code, spec, list(properties), partitions or max(1, sc.defaultParallelism),
                             store, checkpoint_every or CHECKPOINT_EVERY, visited == "driver",
                             max_states, time_limit, max_depth, progress)
        return explorer.run(resume)
    except (SparkEngineError, KmcError):
        keep_log()
        raise
    except Exception as e:
        if interrupted():  # the interruption surfacing through py4j: checker.check reports it
            raise SparkEngineError(f"the Spark job failed: {first_line(e)}") from None
        if type(e).__module__.startswith(("py4j", "pyspark")):
            line = first_line(e)
            raise SparkEngineError(f"the Spark job failed: {line}{memory_hint(line)} (Spark's log: "
                                   f"{keep_log()})") from None
        keep_log()
        raise
    finally:
        if created:
            stop_context(sc)


class _Explorer:
    """One run: the driver's loop over levels, and the RDDs it keeps."""

    def __init__(self, sc, code, spec, properties, partitions, store, every, driver_visited,
                 max_states, time_limit, max_depth, progress) -> None:
        self.sc, self.code, self.spec, self.config = sc, code, spec, spec.config
        self.props = properties
        self.compiled = [p for p in properties if compiled_property(p) is not None]
        self.python = [p for p in properties if compiled_property(p) is None]
        self.pids = np.array([compiled_property(p) for p in self.compiled], dtype=np.int32)
        self.P = partitions
        self.store = store
        self.every = every
        self.driver_visited = driver_visited
        self.max_states, self.time_limit, self.max_depth = max_states, time_limit, max_depth
        self.progress = progress
        self.started = time.monotonic()
        self.local = sc.master.startswith("local")
        self.state: RunState | None = None
        self.rows = None  # the last step's output: the rows of its level (and its candidates)
        self.previous = None  # the step's before it: the parents of those rows
        self.keys = None  # the last deduplication's output: the next level's keys (and a run)
        self.runs: list = []  # the visited runs (RDDs): the executors' visited set
        self.homes: dict = {}  # level -> the RDD holding its parent index (``win`` records)
        self.archives: list = []  # (RDD, levels): parent indexes kept when runs are merged
        self.merged_away: list = []  # runs merged into one at this level, freed after its job
        self.merged_at = 0  # the last level whose states are in the first run
        self.table = None  # driver-held visited: the fingerprint table
        self.table_fill = 0
        self.resumed_from = None
        self.last_manifest = None  # (level, files) of the newest checkpoint this run wrote

    # ------------------------------------------------------------------ the loop

    def run(self, resume: bool) -> CheckResult:
        if self.store is not None:
            manifest = self.store.latest()
            if resume:
                if manifest is None:
                    raise SparkEngineError(f"nothing to resume in {self.store.uri}: it holds no kmc checkpoint")
                self._resume(manifest)
            elif manifest is not None:
                raise SparkEngineError(
                    f"{self.store.uri} holds a checkpoint of a run (level {manifest['level']}); add --resume "
                    "to continue it, or give an empty --checkpoint-dir")
        prepare_checkpoints(self.sc, self.store.rdd_dir if self.store else None)
        if self.state is None:
            end = self._start()
            if end is not None:
                return self._finish(end)
            level = 0
        else:
            level = len(self.state.levels) - 1  # the level the checkpoint's last job found
        while True:
            job_started = time.monotonic()
            figures = self._job(level)
            self._absorb(level, figures)
            self.state.levels[level].seconds = time.monotonic() - job_started
            end = self._decide(level)
            if end is None or end.limit == "time-limit":  # a checkpoint of this level can go on
                self._after(level)
            if end is not None:
                return self._finish(end)
            level += 1

    def _start(self) -> End | None:
        """Level 0 (the initial state), judged on the driver; None unless that ends the run."""
        spec, P = self.spec, self.P
        init = spec.initial
        buf = work_buffers(spec.width, spec.layout.n_brokers, spec.max_successors, len(ACTION_NAMES))
        fp = np.uint64(class_fingerprint(init, spec.lay, spec.sym, buf["order_cmp"], buf["scratch"], buf["best"]))
        violated = {p.name: 0 for p, pid in zip(self.compiled, self.pids) if not holds(pid, init, spec.lay)}
        state = decode(init, spec.layout)
        violated.update({p.name: 0 for p in self.python if not p.check(state)})
        bounds = [0] + [1] * P
        self.state = RunState([Level(1, 0, bounds, bounds)], violated)
        if self.max_states is not None and self.max_states <= 1:
            return End("max-states", 1, 1, 0, 1)
        if len(violated) == len(self.props):
            return End(None, 1, 1, 0, 1)
        self.rows = self._keep(self._keyed(self.sc.parallelize([(0, ("rows", 0, init.reshape(1, -1)))], 1)))
        if self.driver_visited:
            self.table = new_table(1 << 16)
            self.table_fill = KB.insert_new(self.table, np.array([fp]), np.zeros(1, dtype=np.int8))
        else:
            shard = int(T.shard_of(np.array([fp]), P)[0])
            base = self.sc.parallelize([(shard, ("run", np.array([fp], dtype=np.uint64)))], 1)
            self.runs = [self._keep(self._keyed(base))]
        return None

    def _job(self, level: int) -> dict:
        """Level ``level``'s job: regenerate, judge and expand it (step), then deduplicate its
        successors; returns the partitions' figures."""
        sc, P = self.sc, self.P
        this = self.state.levels[level]
        cut = self._cuts_at(level)
        merge = cut and (self.store is not None or self._worth_merging(level))
        figures = sc.accumulator({}, boot.Figures())
        source = self.rows
        if level > 0:
            source = sc.union([self.rows, self.keys])
            if source.getNumPartitions() != P:
                raise SparkEngineError("internal: the rows and the keys are not co-partitioned")
        stepped = source.mapPartitionsWithIndex(self._task(
            T.step, self.config, level, this.layout, this.frontier, self.pids,
            1 if self.driver_visited else P, figures))
        self.previous, self.rows = self.rows, self._keep(self._keyed(stepped), checkpoint=cut)
        if self.driver_visited:
            found = self.rows.filter(boot.is_candidate).collect()
            self._deduplicate_on_driver(level, found, figures)
            return figures.value
        if merge:  # merge the visited runs into one, keep their parent indexes, and cut the lineage
            merged = sc.union(self.runs).mapPartitionsWithIndex(self._task(T.merge_runs), True)
            kept = sc.union(self.runs[1:]).mapPartitionsWithIndex(self._task(T.keep_parents), True)
            self.merged_away = self.runs
            self.runs = [self._keep(merged, checkpoint=True)]
            archive = self._keep(kept, checkpoint=True)
            levels = sorted(lv for lv, home in self.homes.items() if any(home is r for r in self.merged_away))
            self.archives.append((archive, levels))
            self.homes.update({lv: archive for lv in levels})
            self.merged_at = level
        deduplicated = sc.union(self.runs + [self.rows])
        if deduplicated.getNumPartitions() != P:
            raise SparkEngineError("internal: the visited runs and the candidates are not co-partitioned")
        deduplicated = deduplicated.mapPartitionsWithIndex(
            self._task(T.deduplicate, level, this.frontier, figures))
        self.keys = self._keep(self._keyed(deduplicated), checkpoint=cut)
        if cut:  # checkpoints are written by jobs that compute their RDDs
            self.keys._jrdd.count()  # counting in the JVM reads nothing into Python
            if merge:
                archive._jrdd.count()  # nothing else reads it before a counterexample does
        else:  # run the job's shuffles only: the next job reads (and caches) the keys
            _run_map_stage(self.sc, self.keys)
        self.runs.append(self.keys)
        self.homes[level + 1] = self.keys
        return figures.value

    def _cuts_at(self, level: int) -> bool:
        return level > 0 and level % self.every == 0 and not self.driver_visited

    def _worth_merging(self, level: int) -> bool:
        """Without a checkpoint directory, merge the runs only once they are many or hold a
        good share of the states (a merge reads and writes the whole visited set)."""
        levels = self.state.levels
        merged = sum(lv.count for lv in levels[:self.merged_at + 1])
        unmerged = sum(lv.count for lv in levels[self.merged_at + 1:level + 1])
        return len(self.runs) > MAX_RUNS or unmerged * 4 >= merged

    def _deduplicate_on_driver(self, level: int, found: list, figures) -> None:
        """``visited="driver"``: the candidates into the driver's table; the new states' keys
        become the next level's input."""
        cands = [(v[1], v[2], v[3]) for _, v in found]
        fps, keys = T.new_states([], cands)
        while max_fill(self.table) < self.table_fill + fps.shape[0]:
            self.table = grown(self.table)
        fresh = np.zeros(fps.shape[0], dtype=np.int8)
        self.table_fill += KB.insert_new(self.table, fps, fresh)
        winners = T.winners_by_partition(keys[fresh.astype(bool)], self.state.levels[level].frontier)
        records = [(i, ("win", level + 1, part)) for i, part in winners]
        self.keys = self._keep(self._keyed(self.sc.parallelize(records, max(1, len(records)))))
        self.homes[level + 1] = self.keys
        per_partition = [0] * self.P
        for i, part in winners:
            per_partition[i] = int(part.shape[0])
        figures.add({("deduplicated", 0): per_partition})

    def _absorb(self, level: int, figures: dict) -> None:
        """The figures of job ``level``: its level's violations, successors, and the next level."""
        levels, P = self.state.levels, self.P
        this = levels[level]
        per_partition = np.zeros(P, dtype=np.int64)
        first_bad: dict = {}
        for (kind, _), data in figures.items():
            if kind == "expanded":
                this.generated += data[0]
            elif kind == "deduplicated":
                per_partition += np.array(data, dtype=np.int64)
            elif kind == "judged":
                for prop, position in zip(self.compiled, data[1]):
                    if position >= 0 and prop.name not in self.state.violated:
                        index = this.first + position
                        first_bad[prop.name] = min(first_bad.get(prop.name, index), index)
        self.state.violated.update(first_bad)
        if level > 0 and any(p.name not in self.state.violated for p in self.python):
            self._judge_python(level)
        layout = [0] + np.cumsum(per_partition).tolist()
        count = layout[-1]
        frontier = [count * t // P for t in range(P + 1)]  # rows are spread evenly
        levels.append(Level(int(count), this.first + this.count, layout, frontier))

    def _judge_python(self, level: int) -> None:
        """Properties written in Python, on the driver: every row of the level, in order."""
        first = self.state.levels[level].first
        open_props = [p for p in self.python if p.name not in self.state.violated]
        for part in range(self.P):
            run = boot.job(self.code, pickle.dumps((T.rows_of_partition, ())), part)
            for start, rows in self.sc.runJob(self.rows, run, [part]):
                for offset, row in enumerate(rows):
                    state = decode(row, self.spec.layout)
                    for prop in open_props:
                        if prop.name not in self.state.violated and not prop.check(state):
                            self.state.violated[prop.name] = first + start + offset
                if all(p.name in self.state.violated for p in open_props):
                    return

    def _decide(self, level: int) -> End | None:
        """After job ``level``: where the run ends, or None to go on."""
        levels = self.state.levels
        if level > 0:
            end = self._stop_inside(level)
            if end is not None:
                return end
        this, after = levels[level], levels[level + 1]
        distinct = this.first + this.count
        if self.max_depth is not None and level >= self.max_depth:
            # as the local engine: the level's successors never seen are where the bound cut
            return End("max-depth" if after.count else None, distinct, self._generated(level), level,
                       after.count)
        if after.count == 0:
            return End(None, distinct, self._generated(level), level, 0)
        if self.time_limit is not None and self._seconds() >= self.time_limit:
            return End("time-limit", distinct, self._generated(level - 1), level, this.count)
        return None

    def _stop_inside(self, level: int) -> End | None:
        """Where the local engine stops while finding level ``level``: after the parent of the
        state that leaves no property open, or at the ``max_states``-th state."""
        levels, violated = self.state.levels, self.state.violated
        this, parents = levels[level], levels[level - 1]
        end = this.first + this.count
        inside = [i for i in violated.values() if this.first <= i < end]
        last_parent = None
        if inside and len(violated) == len(self.props):
            last_parent = max(self._parent_position(level, i) for i in inside)
        cap_parent = None
        if self.max_states is not None and this.first < self.max_states <= end:
            cap = self.max_states - 1
            cap_parent = self._parent_position(level, cap)
        if cap_parent is not None and (last_parent is None or cap_parent <= last_parent):
            for name in [n for n, i in violated.items() if i > cap]:
                del violated[name]  # found after the local engine stopped
            return End("max-states", self.max_states,
                       self._generated(level - 2) + self._successors_up_to(cap_parent),
                       level, (parents.count - cap_parent - 1) + (cap - this.first + 1))
        if last_parent is not None:
            found = self._count_up_to_parent(level, last_parent)
            return End(None, this.first + found,
                       self._generated(level - 2) + self._successors_up_to(last_parent),
                       level, (parents.count - last_parent - 1) + found)
        return None

    def _after(self, level: int) -> None:
        """Between jobs: progress, checkpoint manifest, freeing what is no longer needed."""
        levels = self.state.levels
        if self.progress is not None:
            after = levels[level + 1]
            stats = CheckStats(self._generated(level), after.first + after.count, level + 1, after.count)
            self._fill(stats)
            expanded = levels[level].count
            stats.levels_growing = after.count >= expanded > 0
            if stats.seconds > 0:
                stats.eta_seconds = level_eta(expanded, after.count, after.first / stats.seconds)
            self.progress(stats)
        if self.previous is not None:
            self.previous.unpersist()
            self.previous = None
        for rdd in self.merged_away:  # merged into the first run at this level
            rdd.unpersist()
        self.merged_away = []
        if self.store is not None and self._cuts_at(level):
            self._write_manifest(level)

    # ------------------------------------------------------------------ checkpoints

    def _write_manifest(self, level: int) -> None:
        files = {"base": self.runs[0].getCheckpointFile(), "keys": self.keys.getCheckpointFile(),
                 "rows": self.rows.getCheckpointFile()}
        archives = [[rdd.getCheckpointFile(), levels] for rdd, levels in self.archives]
        if None in files.values() or any(a[0] is None for a in archives):
            raise SparkEngineError("internal: a checkpoint was not written")
        state = dict(self.state.to_json(), elapsed=self._seconds())
        self.store.write(level, {
            "level": level, "config": self.config.as_dict(), "properties": [p.name for p in self.props],
            "partitions": self.P, "kernel": source_hash(), "state": state,
            "files": files, "archives": archives,
        })
        if self.last_manifest is not None:
            old_level, old_files = self.last_manifest
            self.store.forget(old_level, [f for f in old_files.values() if f not in files.values()])
        self.last_manifest = (level, files)

    def _resume(self, manifest: dict) -> None:
        if manifest["config"] != self.config.as_dict():
            raise SparkEngineError(f"the checkpoint in {self.store.uri} is of another configuration "
                                   f"({_difference(manifest['config'], self.config.as_dict())}); "
                                   "resume it with the same options")
        names = [p.name for p in self.props]
        if manifest["properties"] != names:
            raise SparkEngineError(f"the checkpoint in {self.store.uri} checks properties "
                                   f"{', '.join(manifest['properties'])}; resume it with the same ones")
        if manifest["kernel"] != source_hash():
            raise SparkEngineError(f"the checkpoint in {self.store.uri} was written by another version of "
                                   "kmc's model; it cannot be resumed")
        self.P = manifest["partitions"]
        self.state = RunState.from_json(manifest["state"])
        level = manifest["level"]
        found = self.state.levels[-1]
        if self.max_depth is not None and self.max_depth <= level:
            raise SparkEngineError(f"--depth {self.max_depth} is not beyond the checkpoint's level {level}")
        if self.max_states is not None and self.max_states <= found.first:
            raise SparkEngineError(f"--max-states {self.max_states} is not beyond the {found.first:,} states the "
                                   "checkpoint has explored")
        files = manifest["files"]
        self.keys = self._keep(self._keyed(self._load(files["keys"])))
        self.runs = [self._keep(self._keyed(self._load(files["base"]))), self.keys]
        self.rows = self._keep(self._keyed(self._load(files["rows"])))
        for uri, levels in manifest["archives"]:
            archive = self._keep(self._load(uri))  # read by partition index only: no need to move it
            self.archives.append((archive, levels))
            self.homes.update({lv: archive for lv in levels})
        self.homes[level + 1] = self.keys
        self.merged_at = level  # a checkpoint's first run holds every level up to its own
        self.last_manifest = (level, files)
        self.resumed_from = level  # the manifest was written once the run went on past ``level``

    def _load(self, uri: str):
        return self.sc._checkpointFile(uri, self.sc.serializer)

    # ------------------------------------------------------------------ lookups

    def _parent_position(self, level: int, index: int) -> int:
        return self._parent_key(level, index - self.state.levels[level].first) >> KB.SUCCESSOR_BITS

    def _parent_key(self, level: int, position: int) -> int:
        layout = self.state.levels[level].layout
        part = bisect_right(layout, position) - 1
        run = boot.job(self.code, pickle.dumps((T.parent_key, (level, position - layout[part]))), part)
        return self.sc.runJob(self.homes[level], run, [part])[0]

    def _count_up_to_parent(self, level: int, rank: int) -> int:
        run = self._task(T.count_up_to_parent, level, rank)
        return sum(self.homes[level].mapPartitionsWithIndex(run).collect())

    def _successors_up_to(self, rank: int) -> int:
        """Successors of the previous level's states at positions <= ``rank``."""
        run = self._task(T.successors_up_to, self.config, rank)
        return sum(self.previous.mapPartitionsWithIndex(run).collect())

    def path_to(self, index: int) -> list:
        """The action indices from the initial state to the state numbered ``index``."""
        levels = self.state.levels
        level = bisect_right([lv.first for lv in levels], index) - 1
        position = index - levels[level].first
        path = []
        while level > 0:
            key = self._parent_key(level, position)
            path.append(key & KB.SUCCESSOR_MASK)
            position = key >> KB.SUCCESSOR_BITS
            level -= 1
        path.reverse()
        return path

    # ------------------------------------------------------------------ the result

    def _generated(self, level: int) -> int:
        """States generated once levels ``0 .. level`` are expanded (the initial state counts)."""
        return 1 + sum(lv.generated for lv in self.state.levels[:level + 1])

    def _seconds(self) -> float:
        return self.state.elapsed + time.monotonic() - self.started

    def _fill(self, stats: CheckStats) -> None:
        stats.seconds = self._seconds()
        stats.collision_probability = collision_probability(stats.distinct_states, stats.states_generated)

    def _finish(self, end: End) -> CheckResult:
        stats = CheckStats(end.generated, end.distinct, end.depth, end.queue)
        self._fill(stats)
        results = []
        for prop in self.props:
            index = self.state.violated.get(prop.name)
            if index is not None:
                trace = replay_path(self.spec, self.path_to(index), prop.name)
                if prop.check(trace.states[-1]):
                    raise KmcError(f"internal error: the replayed counterexample for {prop.name} does not "
                                   "violate it; please report it")
                results.append(PropertyResult(prop.name, VIOLATED, trace))
            elif end.limit is not None or end.queue:
                results.append(PropertyResult(prop.name, INCOMPLETE))
            else:
                results.append(PropertyResult(prop.name, HOLDS))
        stats.seconds = self._seconds()
        result = CheckResult("spark", self.config.as_dict(), results, stats, end.limit, self._notes(end))
        if self.store is not None and end.limit is None:
            self.store.remove_all()  # a finished search: nothing left to resume
        for rdd in [self.rows, self.previous, *self.runs, *(a for a, _ in self.archives)]:
            if rdd is not None:
                rdd.unpersist()
        return result

    def _notes(self, end: End) -> list:
        levels = self.state.levels[:end.depth + 1]
        expanded = [lv for lv in levels if lv.seconds]
        where = ("the visited set on the driver" if self.driver_visited
                 else "the visited set sharded over the executors")
        notes = [
            f"spark: master {self.sc.master}, {self.P} partitions, {where}, {len(expanded)} levels, "
            f"{sum(lv.seconds for lv in expanded) / max(len(expanded), 1):.2f} s per level",
            "spark: states per level: " + ", ".join(str(lv.count) for lv in levels),
            "spark: seconds per level: " + ", ".join(f"{lv.seconds:.2f}" for lv in expanded),
        ]
        if self.resumed_from is not None:
            notes.append(f"spark: resumed from the checkpoint of level {self.resumed_from} in {self.store.uri}")
        if self.store is not None and end.limit is not None and self.last_manifest is not None:
            notes.append(f"spark: --resume --checkpoint-dir {self.store.uri} continues from the checkpoint of "
                         f"level {self.last_manifest[0]}")
        if self.python:
            notes.append("note: " + ", ".join(p.name for p in self.python) + " written in Python: judged on "
                         "the driver, which reads every new state for them (slower; verdicts and shortest "
                         "traces unchanged)")
        return notes

    # ------------------------------------------------------------------ RDD plumbing

    def _task(self, function, *args):
        """A ``mapPartitionsWithIndex`` function running ``tasks.function(split, records, *args)``."""
        return boot.task(self.code, pickle.dumps((function, args)))

    def _keyed(self, rdd):
        """``rdd``'s records moved to the partition their key names. The shuffled RDD reads
        with the context's batched serializer (its bytes are the same), so it unions with the
        engine's other RDDs without a pass through Python."""
        keyed = rdd.partitionBy(self.P, boot.by_key)
        if keyed is rdd:
            raise SparkEngineError("internal: records to move are already marked as in place")
        keyed._jrdd_deserializer = self.sc.serializer
        return keyed

    def _keep(self, rdd, checkpoint: bool = False):
        """Cache ``rdd``; cut its lineage after the job that computes it if ``checkpoint``
        (reliably into the checkpoint directory, or locally on ``local[...]`` masters)."""
        from pyspark import StorageLevel  # lazy on purpose: pyspark loads only when a Spark run starts

        rdd.persist(StorageLevel.MEMORY_AND_DISK)
        if checkpoint:
            if self.store is not None:
                rdd.checkpoint()
            elif self.local:
                rdd.localCheckpoint()
        return rdd


def _run_map_stage(sc, keyed) -> None:
    """Run the stages that write ``keyed``'s shuffle (``partitionBy``'s output), without a job
    reading it back (Spark's ``submitMapStage``)."""
    shuffled = keyed._jrdd.rdd().dependencies().head().rdd()
    sc._jsc.sc().submitMapStage(shuffled.dependencies().head()).get()


def _difference(old: dict, new: dict) -> str:
    changed = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return ", ".join(f"{k}: {json.dumps(old.get(k))} there, {json.dumps(new.get(k))} now" for k in changed)


def run_spark(config, properties, **options) -> CheckResult:
    """``--engine spark``: ``spark_bfs`` on the compiled kernel of ``config``. An interruption
    leaves it as a ``KeyboardInterrupt``, without py4j's tracebacks (``spark_explore.interrupt``)."""
    with quiet_py4j():
        return spark_bfs(config, properties, **options)


register_engine("spark", run_spark, "sharded on Spark (the compiled kernel on every executor)",
                options=("master", "partitions", "checkpoint_dir", "resume", "checkpoint_every", "notice"))
