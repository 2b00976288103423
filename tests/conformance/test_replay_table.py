"""The replay's mapping: every kmc action has a row (a new action is a new row), and reading a
trace file needs only its ITF JSON."""

from __future__ import annotations

import json

import pytest

from conformance import replay

try:  # the action table's home today; issue 24 may move it
    from model.actions import ACTION_PARAMS
except ImportError:  # pragma: no cover
    ACTION_PARAMS = None

ZOOKEEPER_ONLY = {"ControllerFailover"}


@pytest.mark.skipif(ACTION_PARAMS is None, reason="model.actions.ACTION_PARAMS moved")
def test_every_kmc_action_has_a_row_or_is_zookeeper_only():
    missing = [n for n in ACTION_PARAMS if n not in replay.ACTIONS and not n.startswith("Zombie")
               and n not in ZOOKEEPER_ONLY and "Zombie" not in n]
    assert not missing, f"kmc actions with no real counterpart row: {missing}"
    assert {r.forceable for r in replay.ACTIONS.values()} <= {"yes", "coarse", "no", "n/a"}


def test_a_zookeeper_trace_is_refused_before_any_jvm_starts(tmp_path):
    doc = {"#meta": {"kmc": {"config": {"rules": ["epoch-truncation"], "replication.factor": 2}}},
           "vars": [], "states": [{"action_taken": {"name": "init", "params": {}}}]}
    path = tmp_path / "t.itf.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="only KRaft traces"):
        replay.run(None, path, tmp_path / "run")


def test_settings_follow_the_trace():
    doc = {"#meta": {"kmc": {"config": {"rules": ["kraft"], "replication.factor": 2, "min.insync.replicas": 1,
                                        "unclean.leader.election.enable": True}}},
           "states": [{"action_taken": {"name": "init", "params": {}}},
                      {"action_taken": {"name": "ControllerHandleBrokerFailure", "params": {"broker": 0, "new_leader": 1}}}]}
    s = replay.settings_for(doc)
    assert s.brokers == 3 and s.min_insync_replicas == 1 and s.unclean_leader_election
    assert s.timeouts.broker_session_timeout_ms == 8000
