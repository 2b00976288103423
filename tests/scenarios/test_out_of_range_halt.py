"""Kafka 0.10.2 to 2.0 stop a follower broker (``FatalExitError``) where kmc truncates it: an
OFFSET_OUT_OF_RANGE answer with the leader's log end offset below the follower's, unclean
leader election disabled (``ReplicaFetcherThread.handleOffsetOutOfRange``, "Exiting because log
truncation is not allowed", read at 0.10.2.0, 0.11.0.0, 1.1.0 and 2.0.0; gone at 2.1.0).

kmc models the truncation in every release (docs/model.md, "The smaller deviations"). A
counterexample of those releases is a Kafka trace only if it never takes that truncation; this
test checks it for every violated known-results row of hw-truncation (0.10), kip-101 (0.11) and
kip-279 (2.0) with unclean election off, so a model change that routes one of them through the
halt shows up here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import checker
from checker import VIOLATED
from checker.trace import replay_actions
from gate.suite import load_suite
from model import Action, make_model
from properties.registry import PROPERTIES, reachable
from tests.conftest import config

ROOT = Path(__file__).resolve().parents[2]
BEFORE_2_1 = {"hw-truncation", "kip-101", "kip-279"}


def _rows():
    suite = load_suite(str(ROOT / "scenarios" / "known-results.toml"))
    return [spec for spec in suite.checks
            if spec.expect == "violated" and not spec.config.kafka_version
            and spec.config.protocol in BEFORE_2_1
            and not spec.config.unclean_leader_election_enable]


def truncations_past_the_leader(trace) -> list[int]:
    """Steps where a follower handles an OFFSET_OUT_OF_RANGE answer whose leader log end offset
    is below the follower's fetch offset (its LEO): where Kafka before 2.1 exits instead."""
    found, before = [], trace.initial
    for i, step in enumerate(trace.steps, 1):
        if step.action.name == "FollowerHandleFetchResponse":
            resp = before.replicas[step.action.params()["follower"]].fetch_response
            if resp and resp[2] > resp[5]:
                found.append(i)
        before = step.state
    return found


def test_the_rows_are_there():
    assert len(_rows()) >= 5


@pytest.mark.parametrize("spec", _rows(), ids=lambda s: s.name[:60])
def test_no_counterexample_takes_the_truncation_kafka_halts_on(spec):
    result = checker.check(spec.config, None if spec.default_properties else spec.properties)
    violated = [p for p in result.properties if p.verdict == VIOLATED and p.name in spec.violates]
    assert violated, spec.name
    for p in violated:
        assert truncations_past_the_leader(p.trace) == [], (spec.name, p.name)


def _answer_past_the_leader(state) -> bool:
    """A follower holds an OFFSET_OUT_OF_RANGE answer with the leader's log end offset below its
    fetch offset (the truncation Kafka 0.10.2-2.0 halt on)."""
    return any(r.fetch_response and r.fetch_response[2] > r.fetch_response[5]
               for r in state.replicas)


def test_the_detector_sees_the_truncation_where_it_happens():
    """With unclean election the truncation is reachable (0.10's hw-truncation, RF=2); the
    detector finds it in the step that handles the answer, so the row test above can fail."""
    cfg = config(protocol="hw-truncation", unclean=True, min_isr=1)
    name = "out-of-range-past-the-leader"
    reachable(name)(_answer_past_the_leader)  # registered for this test only
    try:
        result = checker.check(cfg, [name])
    finally:
        PROPERTIES.pop(name, None)
    (reach,) = result.properties
    assert reach.verdict == VIOLATED  # reached
    last = reach.trace.states[-1]
    f = next(b for b, r in enumerate(last.replicas)
             if r.fetch_response and r.fetch_response[2] > r.fetch_response[5])
    model = make_model(cfg)
    trace = replay_actions(model, model.init_states()[0],
                           list(reach.trace.actions) + [Action("FollowerHandleFetchResponse", (f,))])
    assert truncations_past_the_leader(trace) == [len(trace.steps)]
