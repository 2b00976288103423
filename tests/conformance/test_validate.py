"""Trace validation (``kmc conformance validate``) on a run recorded from real Kafka 4.1.2.

The fixture ``tests/data/runs/acks1-failover-4.1.2`` is what the harness wrote for the
``acks1-failover`` scenario (``kmc conformance run acks1-failover --kafka-version 4.1``): the
merged event stream and result, unedited. No broker starts here; the search runs through the
compiled kernel in about a second.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import cli
from conformance import projection, validate
from conformance.projection import holds, project
from model.state import initial_state

RUN = Path(__file__).resolve().parents[1] / "data" / "runs" / "acks1-failover-4.1.2"


def _events():
    return projection.load_events(RUN)


def _copy(tmp_path, events) -> Path:
    d = tmp_path / "run"
    d.mkdir(parents=True)
    shutil.copy(RUN / "result.json", d / "result.json")
    (d / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return d


def test_projection_maps_records_by_first_send_and_marks_what_it_cannot_see():
    p = project(_events())
    assert p.record_ids == {"r0": 1, "r1": 2}
    kinds = {f.kind: f for f in p.facts}
    assert kinds["ack"].check == ("acked", 1, 0) or ("acked", 2, 1) in [f.check for f in p.facts]
    assert not kinds["SIGSTOP"].observed and "no step" in kinds["SIGSTOP"].why
    assert not kinds["metadata-delta"].observed
    change = next(f for f in p.facts if f.kind == "partition-change")
    assert change.check == ("controller", 1, 1, (1, 2), ())


def test_facts_are_conditions_on_kmc_states():
    s = initial_state(3)
    assert holds(("follows", 2, 0, 0, 0), s)
    assert holds(("leads", 0, 0, 0, 0, (0, 1, 2)), s)
    assert not holds(("leads", 1, 0, 0, 0, (0, 1, 2)), s)
    assert not holds(("acked", 1, 0), s)
    assert not holds(("down", 0), s)


def test_the_real_run_is_admitted_and_its_trace_shows(tmp_path):
    out = tmp_path / "model.itf.json"
    r = CliRunner().invoke(cli, ["conformance", "validate", str(RUN), "--trace-out", str(out)])
    assert r.exit_code == 0, r.output
    assert "ADMITTED" in r.output and "NOT" not in r.output
    shown = CliRunner().invoke(cli, ["trace", "show", str(out)])
    assert shown.exit_code in (0, 1), shown.output
    assert "Crash" in shown.output or "crash" in shown.output


def _prefix(through: int):
    """The run's events up to and including the first event ``through`` accepts, and its index.
    A prefix has fewer sends and no kill, so its model (``--max-records``, ``--max-crashes`` from
    the events) is small enough for the search to end without a bound in seconds: a NOT
    ADMITTED answer needs the search to cover every behaviour, and the whole run's model (about
    a million concrete states) takes minutes in Python."""
    events = _events()
    k = next(i for i, e in enumerate(events) if through(e))
    return events[:k + 1], k


def test_an_ack_of_a_record_no_replica_holds_is_not_admitted_at_that_event(tmp_path):
    events, k = _prefix(lambda e: e["kind"] == "ack")
    events[k] = {**events[k], "offset": 5}
    r = CliRunner().invoke(cli, ["conformance", "validate", str(_copy(tmp_path, events))])
    assert r.exit_code == 1, r.output
    assert f"NOT ADMITTED at event {k + 1} (client ack)" in r.output
    events[k] = {**events[k], "offset": 0}  # the same prefix, unmutated, is admitted
    r = CliRunner().invoke(cli, ["conformance", "validate", str(_copy(tmp_path / "ok", events))])
    assert r.exit_code == 0, r.output


def test_a_leader_epoch_no_election_made_is_not_admitted_at_that_event(tmp_path):
    # broker 1 reports following broker 0 in leader epoch 1 before anything failed: KRaft bumps
    # the epoch only on a leader change (isr-shrink-keeps-leader-epoch), and none happened
    events, k = _prefix(lambda e: e["kind"] == "become-follower" and e["source"] == "node1")
    events[k] = {**events[k], "leader_epoch": "1"}
    r = CliRunner().invoke(cli, ["conformance", "validate", str(_copy(tmp_path, events))])
    assert r.exit_code == 1, r.output
    assert f"NOT ADMITTED at event {k + 1} (node1 become-follower)" in r.output


def test_a_search_bound_is_incomplete_not_a_verdict(tmp_path):
    r = CliRunner().invoke(cli, ["conformance", "validate", str(RUN), "--max-states", "5"])
    assert r.exit_code == 3, r.output
    assert r.output.count("INCOMPLETE") == 1


@pytest.mark.parametrize("text, message", [
    ("not json\n", "line 1 is not JSON"),
    ('{"ts": 1, "source": "client", "kind": "ack", "value": "r1"}\n', "lacks or garbles a field"),
])
def test_bad_runs_are_one_line_and_exit_2(tmp_path, text, message):
    d = tmp_path / "run"
    d.mkdir()
    shutil.copy(RUN / "result.json", d / "result.json")
    (d / "events.jsonl").write_text(text)
    r = CliRunner().invoke(cli, ["conformance", "validate", str(d)])
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def test_a_run_without_its_result_is_bad_input(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    shutil.copy(RUN / "events.jsonl", d / "events.jsonl")
    r = CliRunner().invoke(cli, ["conformance", "validate", str(d)])
    assert r.exit_code == 2 and "result.json" in r.output


def test_validate_library_reads_the_run_configuration():
    v = validate.validate(RUN)
    assert v.verdict == validate.ADMITTED
    assert v.flags["acks"] == "1" and v.flags["max_records"] == 2 and v.flags["max_crashes"] == 1


UNCLEAN = RUN.parent / "unclean-election-4.1.2"


def test_brokers_without_a_replica_of_the_topic_are_not_facts():
    # the unclean-election run's topic has replication factor 2 on brokers 0 and 1 of three
    p = projection.restrict(project(projection.load_events(UNCLEAN)), 2)
    assert not any(f.observed and f.source == "node2" for f in p.facts)
    assert any(f.why == "a broker with no replica of the run's topic" for f in p.facts)


def test_a_restarted_broker_replaying_a_leaderless_partition_is_a_fact_of_its_log_only():
    # docs/conformance.md, "A restarted broker's replay": on real 4.1.2 broker 1, restarted while
    # the partition has no leader (epoch 1, after 0 was fenced), logs makeFollower with leader -1
    # in epoch 1 before it is unfenced (it serves nothing yet); kmc's restarted broker learns the
    # partition from the unclean election. The line says only its log (LEO 0); the run is admitted.
    facts = project(projection.load_events(UNCLEAN)).facts
    assert facts[27].index == 28 and facts[27].check == ("replayed", 1, 0)
    r = CliRunner().invoke(cli, ["conformance", "validate", str(UNCLEAN)])
    assert r.exit_code == 0, r.output
    assert "ADMITTED" in r.output
