"""Trace files: ITF that an independent reader parses, stable bytes, exact round trips."""

from __future__ import annotations

import json

import itf_py
import pytest

from model import to_plain
from viewer.itf import TraceFormatError, decode_state, encode_state
from viewer.trace_file import read_trace, trace_to_itf

from tests.viewer.conftest import KIP101_CONFIG, load


def test_round_trip_check_file_read_gives_identical_states(trace_path, violated_trace):
    tf = read_trace(str(trace_path))
    assert [to_plain(s) for s in tf.trace.states] == [to_plain(s) for s in violated_trace.states]
    assert tf.trace.actions == violated_trace.actions
    assert tf.config == KIP101_CONFIG
    assert tf.meta["property"] == "no-acked-loss"
    assert tf.meta["violation_step"] == len(violated_trace.steps)


def test_metadata_carries_config_protocol_bounds_and_versions(trace_path):
    meta = load(trace_path)["#meta"]
    assert meta["format"] == "ITF" and meta["source"] == "kmc"
    kmc = meta["kmc"]
    assert kmc["trace_format"] == "kmc-itf" and kmc["trace_format_version"] == 1
    assert kmc["config"] == KIP101_CONFIG.as_dict()
    assert kmc["protocol"] == "hw-truncation"
    assert kmc["bounds"] == {"max_records": 2, "max_leader_epoch": 2, "max_crashes": 2,
                             "max_unflushed_losses": 1, "max_controlled_shutdowns": 0,
                             "max_session_expiries": 0, "max_controller_failovers": 0,
                             "max_delayed_fetches": 0, "max_retries": 0,
                             "max_preferred_elections": 0, "max_reassignments": 0,
                             "max_consumer_restarts": 0, "max_producer_epoch_bumps": 0,
                             "max_stale_metadata_reads": 0}
    assert len(kmc["model_fingerprint"]) == 16 and kmc["kmc_version"]


def test_itf_py_parses_the_file_and_sees_the_same_values(trace_path, violated_trace):
    doc = load(trace_path)
    parsed = itf_py.trace_from_json(doc)
    assert len(parsed.states) == len(violated_trace.states)
    assert parsed.vars[-1] == "action_taken"
    for i, (itf_state, state) in enumerate(zip(parsed.states, violated_trace.states)):
        assert itf_state.meta["index"] == i
        values = itf_state.values
        for b, r in enumerate(state.replicas):
            rep = values["replicas"][b]
            assert [(rec.id, rec.epoch) for rec in rep.log] == list(r.log)
            assert rep.high_watermark == r.high_watermark
            assert rep.isr == frozenset(r.isr)
        assert values["controller"].isr == frozenset(state.controller.isr)
        assert {(a.record, a.offset) for a in values["acked"]} == set(state.acked)
        if i:
            act = violated_trace.steps[i - 1].action
            assert values["action_taken"].name == act.name
            assert tuple(values["action_taken"].params._asdict().values()) == act.args
    # and itf-py's writer gives back a document that kmc still reads as the same states
    again = json.loads(json.dumps(itf_py.trace_to_json(parsed)))
    for raw_mine, raw_theirs in zip(doc["states"], again["states"]):
        assert to_plain(decode_state(raw_mine, "x")) == to_plain(decode_state(raw_theirs, "y"))


def test_files_are_byte_identical_across_runs_and_sets_are_sorted(violated_trace, violated_result):
    a = json.dumps(trace_to_itf(violated_trace, violated_result.config, engine="bfs"))
    b = json.dumps(trace_to_itf(violated_trace, violated_result.config, engine="bfs"))
    assert a == b

    def sets(value):
        if isinstance(value, dict):
            if "#set" in value:
                yield value["#set"]
            for v in value.values():
                yield from sets(v)
        elif isinstance(value, list):
            for v in value:
                yield from sets(v)

    found = list(sets(json.loads(a)["states"]))
    assert found and all(s == sorted(s, key=json.dumps) or all(isinstance(x, int) for x in s) for s in found)
    assert all(s == sorted(s) for s in found if all(isinstance(x, int) for x in s))


def test_big_integers_use_bigint(violated_trace):
    state = violated_trace.states[-1]
    big = state._replace(records_written=2**60)
    encoded = encode_state(big)
    assert encoded["records_written"] == {"#bigint": str(2**60)}
    assert decode_state(encoded, "x").records_written == 2**60
    assert encode_state(state)["records_written"] == state.records_written  # small ints stay numbers


def test_a_bad_field_is_named(violated_trace):
    encoded = encode_state(violated_trace.states[3])
    encoded["replicas"][1]["log"][0]["epoch"] = "zero"
    with pytest.raises(TraceFormatError, match=r"replicas\[1\]\.log\[0\]\.epoch should be an integer"):
        decode_state(encoded, "state 3")
