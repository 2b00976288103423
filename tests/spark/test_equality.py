"""The Spark engine's contract: the local compiled engine's answers, to the state.

Each case runs ``checker.compiled.compiled_bfs`` and ``spark_bfs`` (local[2], one shared
context) on the same configuration and asserts the same distinct and generated counts, depth,
queue, limit, verdicts and counterexamples (the same actions, step by step), including where
the local engine stops inside a level (every property violated, or ``--max-states``). The
configurations are a lean subset of the known-results table (one or two rows per protocol, RF=2,
plus one RF=3 row), and limits; ``bench/spark_bench.py known-results`` runs every row.
"""

from __future__ import annotations

import pytest

from checker.compiled import compiled_bfs
from checker.result import HOLDS, INCOMPLETE, VIOLATED
from gate.suite import load_suite
from model import Bounds, ModelConfig
from properties import get_properties, invariant
from properties.registry import PROPERTIES
from spark_explore import spark_bfs
from tests.conftest import LOOSE
from tests.spark.conftest import ROOT

pytestmark = pytest.mark.spark

ROWS = {  # known-results rows: name -> partitions (3 puts uneven ranges on two cores)
    "KIP-101 scenario 1: truncation to a stale HW loses an acked record": 2,
    "KIP-279 scenario: fast leader changes diverge KIP-101 logs": 2,
    "KIP-279, 3 replicas: the HW advances on a remote LEO from an older epoch": 2,
    "last replica standing on Kafka 2.2 (KIP-380): the ISR shrinks to the leader, it loses power and leads again": 3,
    "what KIP-320 fencing protects: Kafka 2.1 without fenced fetches": 3,
}
KIP320 = ModelConfig(protocol="kip-320", replication_factor=2)


def known_rows() -> dict:
    return {c.name: c for c in load_suite(str(ROOT / "scenarios" / "known-results.toml")).checks}


def summary(result) -> dict:
    s = result.stats
    return {
        "distinct": s.distinct_states, "generated": s.states_generated, "depth": s.depth,
        "queue": s.queue, "limit": result.limit, "exit": result.exit_code,
        "verdicts": [(p.name, p.verdict) for p in result.properties],
        "traces": {p.name: [str(a) for a in p.trace.actions] for p in result.properties if p.trace},
    }


def differences(local, spark) -> list:
    """Where the Spark engine's summary differs from the local engine's, one short line per
    field (a counterexample: its length and first differing step). Kept short on purpose: a
    whole-dict diff of two long traces is slow to format and once crashed pytest's reporting."""
    a, b = summary(local), summary(spark)
    out = [f"{k}: local {a[k]!r} spark {b[k]!r}" for k in a if k != "traces" and a[k] != b[k]]
    for name in sorted(set(a["traces"]) | set(b["traces"])):
        ta, tb = a["traces"].get(name), b["traces"].get(name)
        if ta != tb:
            at = next((i for i, (x, y) in enumerate(zip(ta or [], tb or [])) if x != y), None)
            out.append(f"trace {name}: local {len(ta or [])} steps, spark {len(tb or [])} steps, "
                       f"first difference at step {at}: local {(ta or [None])[at or 0]!r} "
                       f"spark {(tb or [None])[at or 0]!r}")
    return out


def both(config, names=None, partitions=None, **limits):
    props = get_properties(names)
    return compiled_bfs(config, props, **limits), spark_bfs(config, props, partitions=partitions, **limits)


SLOW_ROWS = {"KIP-279, 3 replicas: the HW advances on a remote LEO from an older epoch"}  # 17 s


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_ROWS else n
                                  for n in ROWS], ids=[n[:40] for n in ROWS])
def test_known_results_rows_match_the_local_engine(spark_context, name):
    row = known_rows()[name]
    local, spark = both(row.config, row.properties or None, partitions=ROWS[name])
    assert differences(local, spark) == []
    assert spark.engine == "spark" and VIOLATED in {p.verdict for p in spark.properties}
    if ROWS[name] == 3:
        assert "3 partitions" in spark.notes[0]


def test_depth_limit_counts_the_states_beyond_it(spark_context):
    local, spark = both(KIP320, max_depth=6)
    assert differences(local, spark) == []
    assert spark.limit == "max-depth" and spark.stats.queue > 0
    assert {p.verdict for p in spark.properties} == {INCOMPLETE}


@pytest.mark.parametrize("max_states", [1, 500])
def test_state_limit_stops_at_the_same_state(spark_context, max_states):
    config = known_rows()["KIP-101 scenario 1: truncation to a stale HW loses an acked record"].config
    local, spark = both(config, ["no-acked-loss", "log-matching"], max_states=max_states)
    assert differences(local, spark) == []
    assert spark.limit == "max-states" and spark.stats.distinct_states == max_states


@pytest.fixture
def python_property():
    @invariant("test-nothing-committed", "no replica's high watermark moves (written in Python)")
    def nothing_committed(state):
        return all(r.high_watermark == 0 for r in state.replicas)

    yield "test-nothing-committed"
    PROPERTIES.pop("test-nothing-committed", None)


def test_newer_environment_and_a_property_written_in_python(spark_context, python_property):
    # Kafka's periodic HW checkpoint and session expiries: state fields and actions the Spark
    # engine knows nothing of, only the kernel
    names = [p.name for p in get_properties(None) if p.name != python_property] + [python_property]
    config = ModelConfig(protocol="kip-320", replication_factor=2, hw_checkpoint="interval",
                         bounds=Bounds(max_records=1, max_leader_epoch=1, max_crashes=1),
                         rule_changes=LOOSE,  # the count below is the over-approximation's
                         ).with_bounds(max_session_expiries=1)
    local, spark = both(config, names)
    assert differences(local, spark) == []  # the built-in properties hold: both explore everything
    assert spark.stats.distinct_states == 6665 and spark.properties[-1].verdict == VIOLATED
    # (7,049 before 29ae; 6,239 before the epoch start slot of 2026-11-29)
    assert {p.verdict for p in spark.properties[:-1]} == {HOLDS}
    assert any("judged on the driver" in n for n in spark.notes)
    per_level = [int(x) for x in spark.notes[1].split(":")[-1].split(",")]
    assert sum(per_level) == spark.stats.distinct_states and len(per_level) == spark.stats.depth + 1
