"""The idempotent producer's epoch (KIP-360, 2.5+) and KAFKA-14034 (issue 26g): the bump, the
broker's producer state keyed by epoch, and the duplicate an unfixed bump writes."""

from __future__ import annotations

from dataclasses import replace

import pytest
from click.testing import CliRunner

from checker import HOLDS, VIOLATED, check
from checker.trace import replay_actions
from cli import cli
from model import Action, Bounds, ModelConfig, make_model
from model.describe import describe
from model.errors import ConfigError
from model.kernel.spec import kernel_spec, layout_features, model_actions
from model.options import config_from_options

A = Action


def producer(version="4.1", **options):
    options = {"replication_factor": 2, "acks": "all", "max_retries": 1,
               "max_producer_epoch_bumps": 1, **options}
    return config_from_options(kafka_version=version, **options)[0]


def test_without_the_bound_the_epoch_costs_nothing():
    """Count-0: bound 0 (the default) brings no slot and no action, so every existing count
    stands (the known-results gate and tests/test_regression_pins.py check the counts)."""
    plain = producer(max_producer_epoch_bumps=0)
    assert "producer_epoch" not in layout_features(plain)
    assert "ProducerBumpEpoch" not in model_actions(plain)
    with_epoch = producer()
    assert "producer_epoch" in layout_features(with_epoch)
    assert "ProducerBumpEpoch" in model_actions(with_epoch)
    assert kernel_spec(with_epoch).layout.width > kernel_spec(plain).layout.width
    start = make_model(plain).init_states()[0]
    assert start.sequences == () and start.replicas[0].log_producer_epochs == ()


def test_kafka_14034_the_bump_rewrites_a_record_already_in_the_log():
    """r1's request fails (its leader crashes); r2 waits in the new leader's purgatory; r1 is
    given up and the producer bumps its epoch, rewriting r2 to sequence 0 of epoch 1
    (``startSequencesAtBeginning``); r2's retry is no duplicate to the leader (another epoch)
    and starts the new epoch at 0: appended again, and acknowledged."""
    result = check(producer(), ["no-duplicates"])
    assert result.verdict("no-duplicates") == VIOLATED
    trace = result.by_name("no-duplicates").trace
    names = [str(a) for a in trace.actions]
    bump = names.index("ProducerBumpEpoch(record=1)")
    assert names[bump + 1].startswith("ProducerRetry(record=2,")
    before, bumped = trace.states[bump], trace.states[bump + 1]
    assert before.pending_acks and before.pending_acks[0][1] == 2  # r2 waits, r1 does not
    assert bumped.producer_epoch == 1 and bumped.sequences[:2] == (-1, 0)
    assert bumped.next_sequence == 1
    last = trace.states[-1]
    leader = last.controller.leader
    assert [rid for rid, _ in last.replicas[leader].log] == [2, 2]
    assert last.replicas[leader].log_producer_epochs == (0, 1)
    assert all(r.log_producer_epochs == (0, 1) for r in last.replicas if r.log)  # copied
    assert "r2 -> sequence 0" in describe(trace.actions[bump], before, bumped)
    retried = describe(trace.actions[bump + 1], bumped, trace.states[bump + 2])
    assert "producer epoch 1, sequence 0: no duplicate of the batch at offset 0" in retried


def test_within_one_epoch_a_retry_is_still_a_duplicate():
    model = make_model(producer())
    trace = replay_actions(model, model.init_states()[0], [
        A("ProduceRecord", (0,)), A("ProduceRecord", (0,)), A("ProducerRetry", (2, 0))])
    before, after = trace.states[-2], trace.states[-1]
    assert [rid for rid, _ in after.replicas[0].log] == [1, 2]
    assert "DUPLICATE_SEQUENCE_NUMBER" in describe(trace.actions[-1], before, after)


def test_a_given_up_record_is_never_sent_again():
    model = make_model(producer())
    start = model.init_states()[0]
    waiting = replay_actions(model, start, [A("ProduceRecord", (0,))]).states[-1]
    assert "ProducerBumpEpoch" not in {a.name for a, _ in model.successors(waiting)}
    trace = replay_actions(model, start, [  # r1's leader crashes: its request fails
        A("ProduceRecord", (0,)), A("BrokerCrash", (0,)), A("ProducerBumpEpoch", (1,))])
    after = trace.states[-1]
    assert after.sequences[0] == -1 and after.pending_acks == () and after.producer_epoch == 1
    assert "ProducerRetry" not in {a.name for a, _ in model.successors(after)}


@pytest.mark.parametrize("changes, options", [
    (("-epoch-bump-rewrites-in-flight",), {}),  # the proposed fix: the bump waits
    ((), {"max_in_flight_requests_per_connection": 1}),  # one request in flight
])
def test_the_fix_or_one_request_in_flight_keeps_exactly_once(changes, options):
    config = producer(rule_changes=changes, **options)
    assert check(config, ["exactly-once-to-log"]).verdict("exactly-once-to-log") == HOLDS


def test_from_2_5_only_and_only_for_an_idempotent_producer_that_retries():
    assert producer("2.5", enable_idempotence=True).bounds.max_producer_epoch_bumps == 1
    with pytest.raises(ConfigError, match="KIP-360"):
        producer("2.4", enable_idempotence=True)
    with pytest.raises(ConfigError, match="retries: enable.idempotence is off .Kafka's default "
                                          "before 3.0; --enable-idempotence turns it on.$"):
        producer(enable_idempotence=False)
    with pytest.raises(ConfigError, match="retries: the producer never retries"):
        producer(max_retries=0)
    with pytest.raises(ConfigError, match="KIP-360.*these rules.*use --kafka-version 2.5 or later"):
        ModelConfig(replication_factor=2, bounds=Bounds(max_producer_epoch_bumps=1))
    with pytest.raises(ConfigError, match="KIP-360"):
        producer(rule_changes=("-idempotent-epoch-bump",))


def test_the_flag_on_the_command_line():
    runner = CliRunner()
    out = runner.invoke(cli, ["check", "-q", "--kafka-version", "4.1", "-r", "2", "--retries", "1",
                              "--max-producer-epoch-bumps", "1", "-p", "no-duplicates"])
    assert out.exit_code == 1 and "no-duplicates  VIOLATED" in out.output
    assert "ProducerBumpEpoch(record=1)" in out.output
    bad = runner.invoke(cli, ["check", "-q", "--kafka-version", "2.4", "-r", "2", "--retries", "1",
                              "--enable-idempotence", "--max-producer-epoch-bumps", "1"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output and "KIP-360" in bad.output


def test_the_bound_round_trips_through_a_results_config():
    config = producer()
    assert config.as_dict()["bounds"]["max_producer_epoch_bumps"] == 1
    assert replace(config).bounds == config.bounds
