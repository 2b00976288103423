"""Hostile gate cache entries: a damaged, foreign or planted entry is a cache miss with a warning
naming the file (the check runs again), never a traceback and never a verdict; a usable entry
renders in every report."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.cache import GateCache
from gate.report import details, json_report, junit_xml, summary_table, verdict_line
from gate.run import run_check
from gate.suite import load_suite

from tests.readers.conftest import FUZZ, JSON_VALUES, NASTY_TEXT, deep
from tests.viewer.conftest import kmc

SUITE = """\
[[check]]
name = "tiny"
"replication.factor" = 2
max-records = 1
max-leader-epoch = 0
max-crashes = 0
expect = "holds"
properties = ["hw-le-leo"]
"""


@pytest.fixture(scope="module")
def setting(tmp_path_factory):
    """A suite, a cache holding one genuine green entry, and that entry's path and content."""
    where = tmp_path_factory.mktemp("cache")
    (where / "suite.toml").write_text(SUITE)
    suite = load_suite(str(where / "suite.toml"))
    spec = suite.checks[0]
    cache = GateCache(str(where / "cache"))
    cache.store(spec, run_check(spec))
    path = cache.dir / f"{cache.key(spec)}.json"
    return suite, spec, cache, path, json.loads(path.read_text())


def _lookup(setting):
    """The outcome the cache gives, rendered in every report; the warnings it printed."""
    suite, spec, cache, path, _ = setting
    warnings = []
    outcome = cache.lookup(spec, warn=warnings.append)
    for line in warnings:
        assert "\n" not in line and str(path) in line and "runs again" in line
    if outcome is not None:
        assert not warnings
        outcomes = [outcome]
        summary_table(outcomes), details(outcomes), verdict_line(outcomes)
        junit_xml(suite, outcomes), json.dumps(json_report(suite, outcomes))
    return outcome, warnings


@FUZZ
@given(content=st.binary(max_size=200) | JSON_VALUES.map(json.dumps).map(str.encode)
       | deep("[", "]").map(str.encode))
def test_garbage_in_place_of_an_entry_is_a_miss_with_a_warning(setting, content):
    setting[3].write_bytes(content)
    outcome, warnings = _lookup(setting)
    if outcome is None:
        assert warnings


@FUZZ
@given(data=st.data())
def test_an_entry_with_a_field_replaced_is_used_only_if_it_still_makes_sense(setting, data):
    entry = copy.deepcopy(setting[4])
    key = data.draw(st.sampled_from(sorted(entry)) | NASTY_TEXT)
    if data.draw(st.booleans()):
        entry.pop(key, None)
    else:
        entry[key] = data.draw(JSON_VALUES)
    setting[3].write_text(json.dumps(entry))
    _lookup(setting)


def test_a_genuine_entry_is_a_hit(setting):
    setting[3].write_text(json.dumps(setting[4]))
    outcome, warnings = _lookup(setting)
    assert outcome is not None and outcome.status == "cached" and not warnings


def test_a_damaged_entry_makes_the_gate_run_the_check_again(setting, tmp_path):
    suite, spec, cache, path, entry = setting
    path.write_text('{"got": 1')
    r = kmc("gate", suite.path, "--cache", cache.dir)
    assert r.exit_code == 0, r.output
    assert "warning: ignoring the cache entry" in r.output and str(path) in r.output
    assert "tiny: pass" in r.output  # it ran
