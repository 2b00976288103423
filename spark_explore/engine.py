"""``spark_bfs``: level-synchronous breadth-first search on Spark, with the local engine's answers.

One Spark job per BFS level:

1. expand: the frontier (states first reached at depth ``d``) is expanded on the executors with
   the same model, rebuilt there from the driver model's ``ModelConfig`` (pickled, so every
   field the model reads travels);
2. de-duplicate: ``reduceByKey`` on the successor's fingerprint, with the engine's one
   partitioner (``fp mod partitions``), combining map-side first;
3. anti-join: the candidates' partition ``i`` and every earlier level's visited partition ``i`` are
   read together (a partitioner-aware union, so visited is never shuffled again) and what was
   visited is dropped;
4. judge: the new states are checked against the properties not yet violated, on the executors;
   each partition returns one small statistics record (states generated, new states, the smallest
   violating fingerprint per property), and that is all the driver collects.

The run stops after the first level at which every property has been violated, when a level
brings no new state, or at a limit (``max_depth`` exactly like the local engine; ``max_states``
and ``time_limit`` are checked between levels). Since a whole level is judged before stopping,
each counterexample is a shortest one, as in the local engine.

Parent pointers ``(fp, packed parent)`` stay in the cluster, one cached RDD per level. A
counterexample is rebuilt by looking its chain up level by level (one single-partition job per
step, going from the violation's level down to 0), then replaying the action indices locally with
``checker.trace.reconstruct_trace``.

Lineage: each level's RDDs are persisted; with a ``local[...]`` master they are also
``localCheckpoint``-ed (nothing is lost there but the whole process); on a cluster they keep their
lineage (so a lost executor's blocks are recomputed) or, if the application has a checkpoint
directory (``spark.checkpoint.dir``, on storage every node sees), are checkpointed reliably.

Counting, compared with the local engine (``checker.bfs``): on a run that explores everything
(every property holds, or at least one holds, or ``max_depth`` cuts it) the distinct-state count,
states generated and depth are equal. When every property gets violated, the local engine stops in
the middle of level ``d`` while this engine finishes level ``d``: verdicts, counterexample lengths
and the depth are equal, and the local count lies between this engine's counts after levels
``d - 1`` and ``d`` (``CheckResult.notes`` records the per-level counts).
"""

from __future__ import annotations

import time
from typing import Callable

from checker.engines import register_engine
from checker.fingerprint import collision_probability, fingerprint
from checker.result import HOLDS, INCOMPLETE, VIOLATED, CheckResult, CheckStats, PropertyResult
from checker.trace import ROOT, reconstruct_trace
from model.state import to_plain
from model.variants import make_reference_model
from spark_explore import level as lv
from spark_explore.interrupt import quiet_py4j
from spark_explore.session import SparkEngineError, first_line, get_context, ship_code, stop_context


def spark_bfs(
    model,
    properties,
    *,
    max_states: int | None = None,
    time_limit: float | None = None,
    max_depth: int | None = None,
    progress: Callable[[CheckStats], None] | None = None,
    config: dict | None = None,
    master: str | None = None,
    partitions: int | None = None,
) -> CheckResult:
    """Explore ``model`` breadth-first on Spark and judge ``properties``; engine ``"spark"``.

    ``master``: a Spark master URL (default: the active context, else ``local[*]``);
    ``partitions``: how many partitions hold the state space (default: the default parallelism).
    """
    if partitions is not None and partitions < 1:
        raise SparkEngineError(f"--partitions must be at least 1, got {partitions}")
    config = config or model.config.as_dict()
    sc, created = get_context(master, partitions)
    try:
        ship_code(sc)
        return _explore(sc, model, list(properties), config, partitions or max(2, sc.defaultParallelism),
                        max_states, time_limit, max_depth, progress)
    except SparkEngineError:
        raise
    except Exception as e:
        if type(e).__module__.startswith(("py4j", "pyspark")):
            raise SparkEngineError(f"the Spark job failed: {first_line(e)}") from None
        raise
    finally:
        if created:
            stop_context(sc)


def _explore(sc, model, properties, config, n, max_states, time_limit, max_depth, progress):
    from pyspark import StorageLevel  # lazy on purpose: pyspark loads only when a Spark run starts

    started = time.monotonic()
    local_master = sc.master.startswith("local")
    reliable = sc.getCheckpointDir() is not None
    stats = CheckStats()
    open_props = list(properties)
    violated: dict[str, tuple[int, int]] = {}  # name -> (fingerprint, level)

    def keep(rdd):
        rdd.persist(StorageLevel.MEMORY_AND_DISK)
        if reliable:
            rdd.checkpoint()
        elif local_master:
            rdd.localCheckpoint()
        return rdd

    # level 0, on the driver: the initial states
    roots = {}
    for init in model.init_states():
        stats.states_generated += 1
        fp = fingerprint(model.canonical(init))
        if fp in roots:
            continue
        roots[fp] = (ROOT, to_plain(init))
        for prop in list(open_props):
            if not prop.check(init):
                violated[prop.name] = (fp, 0)
                open_props.remove(prop)
    frontier = keep(sc.parallelize(list(roots.items()), n).partitionBy(n, lv.partition_of))
    level_parents = [keep(sc.parallelize([(fp, ROOT) for fp in roots], n).partitionBy(n, lv.partition_of))]
    frontier_size = len(roots)
    distinct_per_level = [len(roots)]
    seconds_per_level = []
    stats.distinct_states = len(roots)
    limit = None
    depth = 0

    beyond = 0
    while frontier_size and open_props:
        if max_depth is not None and depth >= max_depth:
            # as the local engine: expand the last level once more, unchecked, to see whether the
            # depth bound cut anything (states never seen one step beyond it)
            candidates = frontier.mapPartitions(lv.expand(model.config)).reduceByKey(lv.keep_first, n, lv.partition_of)
            probe = sc.union(level_parents + [candidates]).mapPartitionsWithIndex(
                lv.anti_join_and_judge([]), preservesPartitioning=True
            )
            summaries = probe.filter(lv.is_stats).values().collect()
            stats.states_generated += sum(s[0] for s in summaries)
            beyond = sum(s[1] for s in summaries)
            if beyond:
                limit = "max-depth"
            frontier_size = 0
            break
        if max_states is not None and stats.distinct_states >= max_states:
            limit = "max-states"
            break
        if time_limit is not None and time.monotonic() - started >= time_limit:
            limit = "time-limit"
            break
        candidates = frontier.mapPartitions(lv.expand(model.config)).reduceByKey(lv.keep_first, n, lv.partition_of)
        union = sc.union(level_parents + [candidates])
        if union.getNumPartitions() != n:  # the anti-join would need a shuffle of everything
            raise SparkEngineError("internal: visited and candidates are not co-partitioned")
        new = keep(union.mapPartitionsWithIndex(lv.anti_join_and_judge(open_props), preservesPartitioning=True))
        summaries = new.filter(lv.is_stats).values().collect()
        parents = keep(new.filter(lv.is_state).mapValues(lv.parent_of))
        level_parents.append(parents)
        frontier.unpersist()
        frontier = new
        depth += 1
        frontier_size = sum(s[1] for s in summaries)
        stats.states_generated += sum(s[0] for s in summaries)
        stats.distinct_states += frontier_size
        distinct_per_level.append(stats.distinct_states)
        if frontier_size:
            stats.depth = depth
        for prop in list(open_props):
            bad = [s[2][prop.name] for s in summaries if prop.name in s[2]]
            if bad:
                violated[prop.name] = (min(bad), depth)
                open_props.remove(prop)
        _fill(stats, frontier_size, started)
        seconds_per_level.append(stats.seconds - sum(seconds_per_level))
        if progress is not None:
            progress(stats)

    _fill(stats, frontier_size + beyond, started)
    results = []
    for prop in properties:
        if prop.name in violated:
            fp, at = violated[prop.name]
            lookup = ClusterParents(sc, level_parents, n, at)
            trace = reconstruct_trace(model, lookup, fp, prop.name)
            results.append(PropertyResult(prop.name, VIOLATED, trace))
        elif limit is not None:
            results.append(PropertyResult(prop.name, INCOMPLETE))
        else:
            results.append(PropertyResult(prop.name, HOLDS))
    notes = [
        f"spark: master {sc.master}, {n} partitions, {depth} levels, "
        f"{stats.seconds / max(depth, 1):.2f} s per level",
        "spark: distinct states after each level: " + ", ".join(str(c) for c in distinct_per_level),
        "spark: seconds per level: " + ", ".join(f"{t:.2f}" for t in seconds_per_level),
    ]
    frontier.unpersist()
    for rdd in level_parents:
        rdd.unpersist()
    return CheckResult("spark", config, results, stats, limit, notes)


def _fill(stats: CheckStats, queue: int, started: float) -> None:
    stats.queue = queue
    stats.seconds = time.monotonic() - started
    stats.collision_probability = collision_probability(stats.distinct_states, stats.states_generated)


class ClusterParents:
    """``parents[fp]`` for ``reconstruct_trace``, answered from the per-level parent RDDs.

    A chain goes one level down per step, so each lookup reads one partition of one level's RDD
    (one small job); other levels are searched only if the model is not what it seems.
    """

    def __init__(self, sc, level_parents: list, partitions: int, level: int) -> None:
        self.sc = sc
        self.levels = level_parents
        self.n = partitions
        self.next_level = level

    def __getitem__(self, fp: int) -> int:
        order = list(range(self.next_level, -1, -1))
        order += [i for i in range(len(self.levels)) if i not in order]
        part = lv.partition_of(fp) % self.n
        for level in order:
            found = self.sc.runJob(self.levels[level], lv.find_in_partition(fp), [part])
            if found:
                self.next_level = level - 1
                return found[0]
        raise KeyError(fp)


def run_spark(config, properties, **options) -> CheckResult:
    """``--engine spark``: ``spark_bfs`` over the pure-Python model of ``config`` (it moves to the
    kernel next), with the configuration recorded in the result. An interruption leaves it as a
    ``KeyboardInterrupt``, without py4j's tracebacks (``spark_explore.interrupt``)."""
    with quiet_py4j():
        return spark_bfs(make_reference_model(config), properties, config=config.as_dict(), **options)


register_engine("spark", run_spark, "sharded on Spark", options=("master", "partitions"))
