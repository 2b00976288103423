"""Delivery semantics (issue 26): the producer's retries, max.in.flight, the idempotent producer's
sequence check, and the properties that judge the committed log (docs/model.md, "Delivery
semantics")."""

from collections import deque
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from checker import HOLDS, VIOLATED, check
from checker.trace import replay_actions
from cli import cli
from model import Action, make_model
from model.errors import ConfigError
from model.describe import describe
from model.kernel.actions import successors
from model.kernel.codec import decode
from model.kernel.spec import kernel_spec, layout_features, model_actions
from model.options import config_from_options
from properties import PROPERTIES
from properties.compiled import COMPILED_IDS, holds

A = Action
DELIVERY = ("no-duplicates", "in-order", "exactly-once-to-log")
from tests.conftest import LOOSE


def producer(version="2.8", **options):
    options = {"replication_factor": 2, "acks": "all", "max_retries": 1, **options}
    return config_from_options(kafka_version=version, **options)[0]


def steps(result, name):
    return [str(a) for a in result.by_name(name).trace.actions]


# ------------------------------------------------------------------ duplicates

def test_a_retry_without_idempotence_is_appended_twice():
    result = check(producer(enable_idempotence=False), ["no-duplicates"])
    assert result.verdict("no-duplicates") == VIOLATED
    assert steps(result, "no-duplicates") == [
        "ProduceRecord(leader=0)",
        "ProducerRetry(record=1, leader=0)",  # request.timeout.ms: the leader still holds r1
        "LeaderHandleFetch(leader=0, follower=1)",
        "FollowerHandleFetchResponse(follower=1)",
        "LeaderHandleFetch(leader=0, follower=1)",
    ]
    last = result.by_name("no-duplicates").trace.states[-1]
    assert [rid for rid, _ in last.replicas[0].log] == [1, 1] and last.acked == ((1, 1),)


def test_the_idempotent_producer_and_kafka_3_defaults_write_it_once():
    assert check(producer(enable_idempotence=True), ["no-duplicates"]).verdict("no-duplicates") == HOLDS
    default = producer("3.0")
    assert default.idempotent  # KIP-679
    assert check(default, ["no-duplicates"]).verdict("no-duplicates") == HOLDS


def test_the_broker_answers_a_duplicate_with_the_original_offset():
    model = make_model(producer(enable_idempotence=True))
    trace = replay_actions(model, model.init_states()[0], [
        A("ProduceRecord", (0,)), A("ProducerRetry", (1, 0))])
    before, after = trace.states[-2], trace.states[-1]
    assert [rid for rid, _ in after.replicas[0].log] == [1]
    assert after.pending_acks == ((0, 1, 0),) and after.retries == 1
    assert "DUPLICATE_SEQUENCE_NUMBER" in describe(trace.actions[-1], before, after)


# ------------------------------------------------------------------ ordering

def test_two_requests_in_flight_without_idempotence_reorder():
    result = check(producer(enable_idempotence=False, max_in_flight_requests_per_connection=2),
                   ["in-order"])
    assert result.verdict("in-order") == VIOLATED
    last = result.by_name("in-order").trace.states[-1]
    leader = last.true_leader()
    assert [rid for rid, _ in last.replicas[leader].log[:last.replicas[leader].high_watermark]] == [2, 1]


@pytest.mark.parametrize("options", [
    dict(enable_idempotence=False, max_in_flight_requests_per_connection=1),
    dict(enable_idempotence=True, max_in_flight_requests_per_connection=2),
])
def test_one_in_flight_or_idempotence_keeps_the_order(options):
    assert check(producer(**options), ["in-order"]).verdict("in-order") == HOLDS


def test_kafka_3197_before_0_10_one_in_flight_was_per_broker():
    """KAFKA-3197 (fixed in 0.10.0.0): with max.in.flight.requests.per.connection=1 the 0.9
    producer limited requests per connection (NetworkClient.canSendRequest at 0.9.0.1), so r2
    reaches the new leader while r1 still waits at the old one, and r1's retry lands after r2.
    0.10 mutes the partition until r1 is answered (rule in-flight-per-partition)."""
    options = dict(max_in_flight_requests_per_connection=1, min_insync_replicas=1, max_crashes=0,
                   max_session_expiries=1)
    result = check(producer("0.9", **options), ["in-order"])
    assert result.verdict("in-order") == VIOLATED
    assert steps(result, "in-order") == [
        "ProduceRecord(leader=0)",
        "ControllerFenceBroker(broker=0, new_leader=1)",  # broker 0's session expires
        "BecomeLeaderOrFollower(broker=1, leader_epoch=1)",
        "ProduceRecord(leader=1)",  # r1 waits at broker 0: nothing in flight to broker 1
        "ProducerRetry(record=1, leader=1)",
    ]
    last = result.by_name("in-order").trace.states[-1]
    assert [rid for rid, _ in last.replicas[1].log] == [2, 1]
    assert last.acked == ((1, 1), (2, 0))
    fixed = [check(producer("0.10", **options), ["in-order"]),
             check(producer("0.9", rule_changes=("+in-flight-per-partition",), **options),
                   ["in-order"])]
    assert [r.verdict("in-order") for r in fixed] == [HOLDS, HOLDS]
    assert fixed[0].stats.distinct_states == fixed[1].stats.distinct_states == 3847  # the rule


def test_out_of_order_sequence_and_unknown_producer_id_by_release():
    """r1 is lost with its leader; r2 reaches the new leader, whose log has no batch of the
    producer: since KIP-360 (2.5) it accepts any sequence, before it answers UNKNOWN_PRODUCER_ID;
    then r1's retry does not follow r2: OUT_OF_ORDER_SEQUENCE_NUMBER. The leader move is kmc's
    one-step ControllerElectLeader of the over-approximation (LOOSE rules; issue 25): the
    producer's answer depends only on the new leader's log, not on how leadership moved."""
    story = [A("ProduceRecord", (0,)), A("ControllerElectLeader", (1,)),
             A("BecomeLeaderOrFollower", (0, 1)), A("BecomeLeaderOrFollower", (1, 1)),
             A("ProduceRecord", (1,))]
    for version, appended in (("2.5", [2]), ("2.4", [])):
        model = make_model(producer(version, enable_idempotence=True, rule_changes=LOOSE,
                                    max_in_flight_requests_per_connection=2))
        trace = replay_actions(model, model.init_states()[0], story)
        assert [rid for rid, _ in trace.states[-1].replicas[1].log] == appended, version
        text = describe(trace.actions[-1], trace.states[-2], trace.states[-1])
        assert ("appends it" in text) if appended else ("UNKNOWN_PRODUCER_ID" in text)
    model = make_model(producer("2.5", enable_idempotence=True, rule_changes=LOOSE,
                                max_in_flight_requests_per_connection=2))
    trace = replay_actions(model, model.init_states()[0], story + [A("ProducerRetry", (1, 1))])
    assert [rid for rid, _ in trace.states[-1].replicas[1].log] == [2]
    assert "OUT_OF_ORDER_SEQUENCE_NUMBER" in describe(trace.actions[-1], trace.states[-2],
                                                      trace.states[-1])


# ------------------------------------------------------------------ cost and configuration

def test_without_retries_the_producer_adds_nothing():
    plain = config_from_options(kafka_version="3.0", replication_factor=2)[0]
    assert "producer" not in layout_features(plain)
    assert "ProducerRetry" not in model_actions(plain)
    idempotent = replace(plain, enable_idempotence=True)
    assert kernel_spec(idempotent).layout.width == kernel_spec(plain).layout.width
    assert "enable.idempotence" not in plain.as_dict()  # results read as before


@pytest.mark.parametrize("options, words", [
    (dict(enable_idempotence=True, max_in_flight_requests_per_connection=6), "<= 5"),
    (dict(enable_idempotence=True, acks="1"), "acks=all"),
    (dict(enable_idempotence=True, max_in_flight_requests_per_connection=2, version="0.11"), "<= 1"),
    (dict(enable_idempotence=True, version="0.10"), "KIP-98"),
    (dict(max_in_flight_requests_per_connection=0), "from 1"),
])
def test_settings_the_kafka_producer_refuses(options, words):
    version = options.pop("version", "2.8")
    with pytest.raises(ConfigError, match=words):
        producer(version, **options)


def test_a_conflicting_setting_turns_the_default_off():
    """KAFKA-13598: without enable.idempotence given, acks=1 or more than 5 in flight mean a
    producer that is not idempotent (and no error)."""
    assert not producer("3.0", acks="1").idempotent
    assert not producer("3.0", max_in_flight_requests_per_connection=6).idempotent
    assert not producer("2.8").idempotent


def test_the_flags_and_a_refused_setting_on_the_command_line():
    runner = CliRunner()
    out = runner.invoke(cli, ["check", "-q", "--kafka-version", "2.8", "-r", "2", "--acks", "all",
                               "--retries", "1", "--no-enable-idempotence", "-p", "no-duplicates"])
    assert out.exit_code == 1 and "no-duplicates  VIOLATED" in out.output
    assert "ProducerRetry(record=1, leader=0)" in out.output
    bad = runner.invoke(cli, ["check", "-q", "-r", "2", "--retries", "1", "--enable-idempotence",
                               "--max-in-flight-requests-per-connection", "6"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert "max.in.flight.requests.per.connection <= 5" in bad.output


def test_five_batches_remembered_is_what_allows_five_in_flight():
    """KAFKA-5494 (``ProducerStateEntry.NumBatchesToRetain`` = 5 at 1.0.0; 0.11.0.0 kept the
    last batch): 1.0 accepts an idempotent producer with 5 requests in flight, 0.11 and 1.0
    without the rule refuse it as the producer does. This is where turning
    ``producer-state-five-batches`` off shows: with one request in flight it changes no state
    (docs/testing.md, "The rule-mutation check")."""
    assert producer("1.0", enable_idempotence=True, max_in_flight_requests_per_connection=5).idempotent
    for version, changes in (("0.11", ()), ("1.0", ("-producer-state-five-batches",))):
        with pytest.raises(ConfigError, match=r"max.in.flight.requests.per.connection <= 1"):
            producer(version, enable_idempotence=True, max_in_flight_requests_per_connection=2,
                     rule_changes=changes)


def test_asked_by_name_only():
    from properties import get_properties
    assert not {p.name for p in get_properties(None)} & set(DELIVERY)


# ------------------------------------------------------------------ compiled twins

@pytest.mark.parametrize("options", [
    dict(enable_idempotence=False, max_in_flight_requests_per_connection=2),
    dict(enable_idempotence=True),
])
def test_the_compiled_properties_agree_with_their_python_twins(options):
    """Every reachable state of a small configuration with retries (the kernel's successors,
    decoded): the compiled twin and the readable property give the same verdict."""
    config = producer(max_leader_epoch=1, **options)
    spec = kernel_spec(config)
    out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
    acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
    seen, queue, violated = {spec.initial.tobytes()}, deque([spec.initial.copy()]), set()
    while queue:
        row = queue.popleft()
        state = decode(row, spec.layout)
        for name in DELIVERY:
            mine = bool(holds(COMPILED_IDS[name], row, spec.lay))
            assert mine == PROPERTIES[name].check(state), (name, state)
            if not mine:
                violated.add(name)
        for j in range(successors(row, spec.lay, spec.cfg, out, acts)):
            key = out[j].tobytes()
            if key not in seen:
                seen.add(key)
                queue.append(out[j].copy())
    assert len(seen) > 1000
    if not options["enable_idempotence"]:
        assert violated == set(DELIVERY)  # the comparison saw both verdicts


def test_a_producer_file_sets_idempotence_and_in_flight_and_flags_win(tmp_path):
    f = tmp_path / "producer.properties"
    f.write_text("acks=all\nenable.idempotence=false\nmax.in.flight.requests.per.connection=2\n"
                 "retries=2147483647\n")
    config, provenance = config_from_options(config_files=[str(f)], replication_factor=2,
                                             max_retries=1)
    assert not config.idempotent and config.max_in_flight_requests_per_connection == 2
    text = "\n".join(provenance)
    assert "enable.idempotence=false" in text and "bound on resends is --retries" in text
    assert "ignored (not modelled)" not in text
    config, _ = config_from_options(config_files=[str(f)], replication_factor=2, max_retries=1,
                                    enable_idempotence=True)
    assert config.idempotent
    f.write_text("enable.idempotence=maybe\n")
    with pytest.raises(ConfigError, match="true or false"):
        config_from_options(config_files=[str(f)], replication_factor=2)


def test_known_beyond_names_the_duplicate_row_only_for_a_producer_that_is_not_idempotent():
    """Without --retries no-duplicates holds trivially; the verdict names the known-results row
    that violates it with a retry, for the same producer settings only (gate/known.py)."""
    from gate.known import beyond
    plain = beyond(producer(enable_idempotence=False, max_retries=0), ["no-duplicates"])
    assert [k["known_result"] for k in plain] == [
        "Retries without idempotence write an acknowledged record twice"]
    assert beyond(producer(enable_idempotence=True, max_retries=0), ["no-duplicates"]) == []
