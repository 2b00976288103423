"""The Spark engine's contract: the local engine's answers, on every protocol.

Each case runs ``checker.bfs.bfs`` and ``spark_bfs`` (local[2], one shared context) on the same
RF=2 configuration with small bounds. On runs that explore everything (some property holds, or a
depth limit cuts the search) the distinct-state count, the states generated and the depth must be
equal. When every property gets violated, the local engine stops in the middle of the violating
level and the Spark engine at its end: verdicts, counterexample lengths and depth must be equal,
and the local count must lie between Spark's counts after the previous level and that level.
"""

from __future__ import annotations

import pytest

from checker.bfs import bfs
from checker.result import HOLDS, INCOMPLETE, VIOLATED
from checker.trace import replay_actions
from model import Bounds, ModelConfig, make_reference_model as make_model
from properties import get_properties
from spark_explore import spark_bfs

pytestmark = pytest.mark.spark

TINY = Bounds(max_records=1, max_leader_epoch=1, max_crashes=1)
NO_ELECTIONS = Bounds(max_records=1, max_leader_epoch=0, max_crashes=1)
NO_CRASHES = Bounds(max_records=1, max_leader_epoch=1, max_crashes=0)


def _run_both(config: ModelConfig, names=None, **limits):
    model = make_model(config)
    props = get_properties(names)
    local = bfs(model, props, config=config.as_dict(), **limits)
    spark = spark_bfs(model, props, config=config.as_dict(), **limits)
    return model, local, spark


def _counts_per_level(result) -> list[int]:
    note = next(n for n in result.notes if "after each level" in n)
    return [int(x) for x in note.split(":")[-1].split(",")]


def _assert_same_verdicts_and_traces(model, local, spark) -> None:
    assert spark.engine == "spark"
    assert [(p.name, p.verdict) for p in spark.properties] == [(p.name, p.verdict) for p in local.properties]
    for lp, sp in zip(local.properties, spark.properties):
        if lp.verdict == VIOLATED:
            assert len(sp.trace) == len(lp.trace), lp.name
            # the Spark trace is a real run of the model that ends in a violating state
            replayed = replay_actions(model, sp.trace.initial, sp.trace.actions)
            assert replayed.states[-1] == sp.trace.states[-1]
            prop = get_properties([sp.name])[0]
            assert not prop.check(sp.trace.states[-1])
            assert all(prop.check(s) for s in sp.trace.states[:-1])
        else:
            assert sp.trace is None
    assert spark.exit_code == local.exit_code


@pytest.mark.parametrize(
    "protocol, crash_model, bounds, names",
    [
        # KIP-101 scenario territory: committed-consistency violated, the rest hold
        ("hw-truncation", "process", NO_ELECTIONS, None),
        # every property holds
        ("kip-101", "process", NO_CRASHES, None),
        # power-loss: three properties violated, three hold
        ("kip-320", "power-loss", NO_ELECTIONS, None),
    ],
)
def test_full_exploration_matches_local(spark_context, protocol, crash_model, bounds, names):
    config = ModelConfig(protocol=protocol, replication_factor=2, crash_model=crash_model, bounds=bounds)
    model, local, spark = _run_both(config, names)
    assert HOLDS in {p.verdict for p in local.properties}  # so both explored everything
    _assert_same_verdicts_and_traces(model, local, spark)
    assert spark.limit is None and local.limit is None
    assert spark.stats.distinct_states == local.stats.distinct_states
    assert spark.stats.states_generated == local.stats.states_generated
    assert spark.stats.depth == local.stats.depth
    assert spark.stats.queue == 0


def test_every_property_violated_stops_at_the_same_level(spark_context):
    config = ModelConfig(protocol="kip-279", replication_factor=2, crash_model="power-loss", bounds=NO_ELECTIONS)
    names = ["no-acked-loss", "committed-consistency", "monotonic-visibility"]
    model, local, spark = _run_both(config, names)
    assert {p.verdict for p in local.properties} == {VIOLATED}
    _assert_same_verdicts_and_traces(model, local, spark)
    assert spark.stats.depth == local.stats.depth == max(len(p.trace) for p in local.properties)
    per_level = _counts_per_level(spark)
    assert per_level[-1] == spark.stats.distinct_states
    assert per_level[spark.stats.depth - 1] < local.stats.distinct_states <= spark.stats.distinct_states


def test_depth_limit_is_incomplete_with_equal_counts(spark_context):
    config = ModelConfig(protocol="kip-320", replication_factor=2, bounds=TINY)
    model, local, spark = _run_both(config, max_depth=6)
    assert local.limit == spark.limit == "max-depth"
    assert {p.verdict for p in spark.properties} == {INCOMPLETE}
    assert spark.exit_code == 3
    assert spark.stats.distinct_states == local.stats.distinct_states
    assert spark.stats.states_generated == local.stats.states_generated
    assert spark.stats.depth == local.stats.depth == 6
    assert spark.stats.queue == local.stats.queue > 0  # the unseen states one step beyond


def test_a_depth_bound_covering_the_whole_space_is_complete(spark_context):
    config = ModelConfig(protocol="kip-320", replication_factor=2, bounds=TINY)
    model, local, spark = _run_both(config, max_depth=60)
    assert local.limit is spark.limit is None
    assert {p.verdict for p in spark.properties} == {p.verdict for p in local.properties}
    assert spark.stats.distinct_states == local.stats.distinct_states


def test_state_limit_is_incomplete_never_holds(spark_context):
    config = ModelConfig(protocol="kip-320", replication_factor=2, bounds=TINY)
    model = make_model(config)
    seen = []
    spark = spark_bfs(model, get_properties(["no-acked-loss"]), max_states=40, progress=seen.append)
    assert spark.limit == "max-states"
    assert spark.properties[0].verdict == INCOMPLETE
    assert 40 <= spark.stats.distinct_states < 908
    assert seen and seen[-1].depth == spark.stats.depth
