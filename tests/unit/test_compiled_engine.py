"""The compiled engine against the reference engine on the known-results rows, and its limits.

Both engines must report the same distinct and generated counts, depth, verdicts and shortest
counterexample lengths on every known-results row. Rows whose reference run is quick are
compared live; for the four large ones (a minute or more of the reference engine each) the
compiled engine is compared with the reference engine's figures in
tests/data/reference-figures.json, written by ``python bench/engines.py --only-slow --pin``
(``make bench`` runs both engines on every row again).
"""

from __future__ import annotations

import json
from dataclasses import replace
import subprocess
import sys
from pathlib import Path

import pytest


from checker import HOLDS, INCOMPLETE, VIOLATED, check
from checker.compiled import compiled_bfs
from checker.compiled.warmup import ensure_compiled
from gate.suite import load_suite
from model import Bounds, ModelConfig
from checker.reference import reference_supports
from properties import BUILT_IN, get_properties
from properties.registry import Property

ROOT = Path(__file__).resolve().parents[2]

ROWS_TOML = ROOT / "scenarios" / "known-results.toml"


def rows():
    """(name, config, properties) of every known-results row the reference engine can run, as
    the over-approximation the oracle models (``unordered-leader-moves``: no assignment order,
    ControllerElectLeader), which is the kernel's rule set the two engines share."""
    out = []
    for spec in load_suite(str(ROWS_TOML)).checks:
        if spec.liveness:
            continue  # checked on its own behaviour graph, by neither engine's search
        b = spec.config.bounds
        if b.max_preferred_elections or b.max_reassignments:
            continue  # a row about Kafka's own leader moves, which the oracle does not have
        config = unordered(spec.config)
        if reference_supports(config):
            props = spec.properties or list(BUILT_IN)  # not those other tests register
            out.append((spec.name, config, props))
    return out


def unordered(config: ModelConfig) -> ModelConfig:
    """``config`` with leader moves as the oracle models them: no assignment order, so no
    operator moves either (ControllerElectLeader stands for them)."""
    bounds = replace(config.bounds, max_preferred_elections=0, max_reassignments=0)
    return replace(config, bounds=bounds,
                   rule_changes=config.rule_changes + ("+unordered-leader-moves",
                                                                "-leader-and-isr-in-order"))


def summary(result) -> dict:
    s = result.stats
    return {
        "distinct": s.distinct_states, "generated": s.states_generated, "depth": s.depth,
        "verdicts": {p.name: (p.verdict, len(p.trace) if p.trace else None) for p in result.properties},
    }


SLOW_ROWS = (
    "KIP-101 scenario 2: power loss diverges the logs",
    "KIP-279, 3 replicas: the HW advances on a remote LEO from an older epoch",
    "the modern protocol (kip-320), 2 replicas, bigger bounds",
    "Kafka 2.1, 3 replicas: a re-elected leader's HW counts a follower LEO from before its truncation",
    "Kafka 2.1, 3 replicas: that stale follower LEO loses an acked record, no crash needed",
    "kmc 0.1's kip-320 (a leader forgets follower LEOs on every epoch) hid that finding",
    "Kafka 2.1, 3 replicas: no acked record lost within the default bounds",
)
PINNED = ROOT / "tests" / "data" / "reference-figures.json"


def _jsonable(s: dict) -> dict:
    return json.loads(json.dumps(s))


@pytest.mark.parametrize("name,config,props", [r for r in rows() if r[0] not in SLOW_ROWS],
                         ids=[r[0][:40] for r in rows() if r[0] not in SLOW_ROWS])
def test_compiled_and_reference_engines_agree(name, config, props):
    compiled = check(config, props, engine="compiled")
    reference = check(config, props, engine="reference")
    assert summary(compiled) == summary(reference)


@pytest.mark.parametrize("name,config,props", [r for r in rows() if r[0] in SLOW_ROWS],
                         ids=[r[0][:40] for r in rows() if r[0] in SLOW_ROWS])
def test_compiled_engine_matches_the_pinned_reference_figures(name, config, props):
    pinned = json.loads(PINNED.read_text())
    assert _jsonable(summary(check(config, props, engine="compiled"))) == pinned[name]


def test_max_states_is_exact_and_incomplete():
    config = ModelConfig(replication_factor=3)
    r = check(config, BUILT_IN, max_states=1000)
    assert r.limit == "max-states" and r.stats.distinct_states == 1000
    assert {p.verdict for p in r.properties} == {INCOMPLETE}
    assert r.exit_code == 3


def test_a_depth_bound_counts_what_lies_beyond_like_the_reference():
    config = unordered(ModelConfig(replication_factor=2))
    a = check(config, BUILT_IN, max_depth=6)
    b = check(config, BUILT_IN, max_depth=6, engine="reference")
    assert a.limit == b.limit == "max-depth"
    assert (a.stats.distinct_states, a.stats.states_generated, a.stats.queue) == (
        b.stats.distinct_states, b.stats.states_generated, b.stats.queue)


def test_a_depth_bound_covering_everything_is_complete():
    r = check(ModelConfig(replication_factor=2), BUILT_IN, max_depth=100)
    assert r.limit is None and {p.verdict for p in r.properties} == {HOLDS}


def test_a_memory_limit_too_small_without_a_disk_stops_incomplete_with_the_counts_so_far():
    r = check(ModelConfig(replication_factor=3, bounds=Bounds(max_records=2)), BUILT_IN,
              memory_limit=1, disk_limit=0)
    assert r.limit == "memory-limit"
    assert r.exit_code == 3 and r.stats.distinct_states > 0


def test_coverage_accounts_for_every_state_and_flags_actions_never_enabled():
    r = check(ModelConfig(replication_factor=2), BUILT_IN, coverage=True)
    rows_ = {a: (e, f, n) for a, e, f, n in r.coverage.rows}
    assert sum(n for _, _, n in rows_.values()) == r.stats.distinct_states - 1
    assert sum(f for _, f, _ in rows_.values()) == r.stats.states_generated - 1
    assert r.coverage.never_enabled == []
    assert "FlushLog" not in rows_  # process crashes: no flushes in this model at all
    # an action of the model that the bounds never let happen is flagged
    r = check(ModelConfig(replication_factor=2, bounds=Bounds(max_records=0)), BUILT_IN, coverage=True)
    assert "ProduceRecord" in r.coverage.never_enabled
    assert "coverage" in r.to_json()


def test_python_properties_are_judged_on_decoded_states():
    never_two_records = Property("at-most-one-record", "", lambda s: s.records_written < 2)
    result = compiled_bfs(ModelConfig(replication_factor=2),
                          list(get_properties(["no-acked-loss"])) + [never_two_records])
    assert result.verdict("at-most-one-record") == VIOLATED
    assert len(result.by_name("at-most-one-record").trace) == 2  # two produce requests
    assert result.verdict("no-acked-loss") == HOLDS
    assert any("Python" in n for n in result.notes)


def test_the_cli_says_when_it_compiles(tmp_path, monkeypatch):
    import checker.compiled.warmup as warmup

    monkeypatch.setattr(warmup, "MARKER", tmp_path / "compiled.ok")
    monkeypatch.setattr(warmup, "_exercise", lambda: None)
    lines = []
    warmup.ensure_compiled(lines.append)
    assert "compiling the exploration kernel" in lines[0] and "compiled in" in lines[1]
    lines.clear()
    assert warmup.ensure_compiled(lines.append) == 0.0 and lines == []


def test_memory_limit_on_the_command_line(tmp_path):
    ensure_compiled()
    kmc = Path(sys.executable).with_name("kmc")
    proc = subprocess.run([str(kmc), "check", "-q", "-r", "3", "--max-records", "2",
                           "--memory-limit", "1K", "--disk-limit", "0", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    data = json.loads(proc.stdout)
    assert data["limit"] == "memory-limit" and not data["complete"]
    bad = subprocess.run([str(kmc), "check", "--memory-limit", "lots"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "is not a size" in bad.stderr
