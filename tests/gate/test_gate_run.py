"""``kmc gate``: exit codes per outcome, the summary table, JUnit XML (parsed with junitparser),
JSON, refusing to overwrite reports, and the cache."""

from __future__ import annotations

import json
import os

from junitparser import Error, Failure, JUnitXml, Skipped

from conftest import TINY
from checker import check
from gate.suite import load_suite

MODERN = """
[[check]]
name = "modern holds"
"min.insync.replicas" = 2
expect = "holds"
"""
ACKS1 = """
[[check]]
name = "acks=1 loses data"
acks = "1"
"min.insync.replicas" = 1
expect = "violated"
violates = "no-acked-loss"
"""


def _acks1_trace_length(path) -> int:
    """The shortest counterexample's length, computed by the local engine (not pinned)."""
    spec = next(c for c in load_suite(path).checks if c.name == "acks=1 loses data")
    return len(check(spec.config, ["no-acked-loss"]).by_name("no-acked-loss").trace)


def test_every_check_matches_exit_0(write, kmc, tmp_path):
    path = write("suite.toml", TINY + MODERN + ACKS1)
    n = _acks1_trace_length(path)
    path = write("suite.toml", TINY + MODERN + ACKS1 + f"trace-length = {n}\n")
    r = kmc("gate", path, "--junit", tmp_path / "out.xml", "--json", tmp_path / "out.json")
    assert r.exit_code == 0, r.output
    header = r.stdout.splitlines()[0].split()
    assert header == ["check", "expected", "got", "within", "(r,e,c)", "states", "seconds", "status"]
    assert "modern holds" in r.stdout and "acks=1 loses data" in r.stdout
    assert f"violated: no-acked-loss ({n} steps)" in r.stdout
    assert "gate green: 2 checks, 2 passed (exit code 0)" in r.stdout
    xml = JUnitXml.fromfile(str(tmp_path / "out.xml"))
    cases = {c.name: c for s in xml for c in s}
    assert set(cases) == {"modern holds", "acks=1 loses data"}
    assert all(c.is_passed for c in cases.values())
    assert "as expected" in cases["acks=1 loses data"].system_out
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["exit_code"] == 0
    acks1 = next(c for c in data["checks"] if c["name"] == "acks=1 loses data")
    assert acks1["status"] == "pass"
    assert acks1["result"]["properties"][0]["trace_length"] == n


def test_unexpected_violation_is_red_with_reason_and_counterexample(write, kmc, tmp_path):
    wrong = ACKS1.replace('expect = "violated"\nviolates = "no-acked-loss"', 'expect = "holds"\nproperties = ["no-acked-loss"]')
    path = write("suite.toml", TINY + MODERN + wrong)
    junit = tmp_path / "out.xml"
    r = kmc("gate", path, "--junit", junit)
    assert r.exit_code == 1, r.output
    assert "FAIL: acks=1 loses data" in r.stdout
    assert "no-acked-loss is violated (shortest counterexample:" in r.stdout
    assert "expected to hold" in r.stdout
    assert "counterexample for no-acked-loss" in r.stdout and "Step 1:" in r.stdout
    assert "gate RED" in r.stdout and "1 failed" in r.stdout
    xml = JUnitXml.fromfile(str(junit))
    (suite,) = list(xml)
    assert suite.tests == 2 and suite.failures == 1
    case = next(c for c in suite if c.name == "acks=1 loses data")
    (failure,) = [x for x in case.result if isinstance(x, Failure)]
    assert "expected to hold" in failure.message
    assert "Counterexample for no-acked-loss" in failure.text and "Step 1:" in failure.text
    assert next(c for c in suite if c.name == "modern holds").is_passed


def test_expected_violation_that_holds_is_red(write, kmc):
    wrong = MODERN.replace('expect = "holds"', 'expect = "violated"\nviolates = "no-acked-loss"')
    r = kmc("gate", write("suite.toml", TINY + wrong))
    assert r.exit_code == 1
    assert "no-acked-loss holds, expected violated" in r.stdout


def test_wrong_trace_length_is_red(write, kmc):
    path = write("suite.toml", TINY + ACKS1)
    n = _acks1_trace_length(path)
    r = kmc("gate", write("suite.toml", TINY + ACKS1 + f"trace-length = {n + 1}\n"))
    assert r.exit_code == 1
    assert f"shortest counterexample has {n} steps, expected {n + 1}" in r.stdout
    r = kmc("gate", write("suite.toml", TINY + ACKS1 + f"min-trace-length = {n}\n"))
    assert r.exit_code == 0, r.output


def test_incomplete_fails_with_exit_3_unless_allowed(write, kmc, tmp_path):
    limited = MODERN + "max-states = 50\n"
    r = kmc("gate", write("suite.toml", TINY + limited), "--junit", tmp_path / "a.xml")
    assert r.exit_code == 3, r.output
    assert "INCOMPLETE" in r.stdout and "stopped at max-states" in r.stdout
    case = next(iter(next(iter(JUnitXml.fromfile(str(tmp_path / "a.xml"))))))
    assert isinstance(case.result[0], Failure) and case.result[0].type == "incomplete"
    r = kmc("gate", write("suite.toml", TINY + limited + "allow-incomplete = true\n"))
    assert r.exit_code == 0, r.output
    assert "pass (incomplete allowed)" in r.stdout
    # A mismatch wins over an incomplete check: exit 1.
    wrong = MODERN.replace('expect = "holds"', 'expect = "violated"\nviolates = "no-acked-loss"').replace("modern holds", "x")
    r = kmc("gate", write("suite.toml", TINY + limited + wrong))
    assert r.exit_code == 1


def test_a_check_that_cannot_run_is_an_error(write, kmc, tmp_path, monkeypatch):
    from model.errors import ConfigError

    def broken(*a, **k):
        raise ConfigError("the spark engine is not available: no Java")

    monkeypatch.setattr("checker.check", broken)
    r = kmc("gate", write("suite.toml", TINY + MODERN), "--junit", tmp_path / "e.xml")
    assert r.exit_code == 2
    assert "ERROR: modern holds" in r.stdout and "no Java" in r.stdout
    case = next(iter(next(iter(JUnitXml.fromfile(str(tmp_path / "e.xml"))))))
    assert isinstance(case.result[0], Error)


def test_reports_are_not_overwritten_without_force(write, kmc, tmp_path):
    path = write("suite.toml", TINY + MODERN)
    junit = tmp_path / "out.xml"
    junit.write_text("keep me")
    r = kmc("gate", path, "--junit", junit)
    assert r.exit_code == 2 and "--force" in r.stderr
    assert junit.read_text() == "keep me"
    r = kmc("gate", path, "--junit", junit, "--force")
    assert r.exit_code == 0
    assert JUnitXml.fromfile(str(junit)) is not None
    r = kmc("gate", path, "--json", tmp_path / "no-such-dir" / "out.json")
    assert r.exit_code == 2 and "does not exist" in r.stderr


def test_cache_hit_on_second_run_and_miss_when_the_configuration_changes(write, kmc, tmp_path):
    cache = tmp_path / "cache"
    path = write("suite.toml", TINY + MODERN + ACKS1)
    r1 = kmc("gate", path, "--cache", cache)
    assert r1.exit_code == 0 and "cached" not in r1.stdout
    assert len(list(cache.glob("*.json"))) == 2
    r2 = kmc("gate", path, "--cache", cache, "--junit", tmp_path / "2.xml")
    assert r2.exit_code == 0
    assert r2.stdout.count("cached") >= 2 and "(2 cached)" in r2.stdout
    cases = list(next(iter(JUnitXml.fromfile(str(tmp_path / "2.xml")))))
    assert all(isinstance(c.result[0], Skipped) and "cached" in c.result[0].message for c in cases)
    changed = write("suite.toml", TINY + MODERN.replace('"min.insync.replicas" = 2', '"min.insync.replicas" = 2\nacks = "all"\nmax-crashes = 0') + ACKS1)
    r3 = kmc("gate", changed, "--cache", cache)
    assert r3.exit_code == 0
    lines = {l.split("  ")[0]: l for l in r3.stdout.splitlines()}
    assert lines["modern holds"].rstrip().endswith("pass")      # ran again: max-crashes changed
    assert lines["acks=1 loses data"].rstrip().endswith("cached")


def test_a_failed_check_is_not_cached(write, kmc, tmp_path):
    cache = tmp_path / "cache"
    wrong = MODERN.replace('expect = "holds"', 'expect = "violated"\nviolates = "no-acked-loss"')
    path = write("suite.toml", TINY + wrong)
    assert kmc("gate", path, "--cache", cache).exit_code == 1
    assert list(cache.glob("*.json")) == []
    assert kmc("gate", path, "--cache", cache).exit_code == 1


def test_cache_key_follows_the_model_source(write, tmp_path, monkeypatch):
    from gate import cache as cache_mod

    spec = load_suite(write("suite.toml", TINY + MODERN)).checks[0]
    c = cache_mod.GateCache(str(tmp_path / "c"))
    key = c.key(spec)
    monkeypatch.setattr(cache_mod, "source_digest", lambda: "a different model")
    assert cache_mod.GateCache(str(tmp_path / "c")).key(spec) != key


def test_only_runs_the_named_checks(write, kmc):
    path = write("suite.toml", TINY + MODERN + ACKS1)
    r = kmc("gate", path, "--only", "modern holds")
    assert r.exit_code == 0 and "acks=1" not in r.stdout
    r = kmc("gate", path, "--only", "nope")
    assert r.exit_code == 2 and "no check of that name" in r.stderr


def test_example_suite_shape_is_valid():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    suite = load_suite(os.path.join(root, "examples", "gate-suite.toml"))
    assert len(suite.checks) >= 3
