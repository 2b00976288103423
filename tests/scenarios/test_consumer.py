"""The consumer side of delivery semantics (issue 26): one consumer that commits before or after
processing, a consumer restart, and the at-least-once / at-most-once properties
(docs/model.md, "Delivery semantics", the consumer)."""

import pytest
from click.testing import CliRunner

from checker import HOLDS, VIOLATED, check
from checker.trace import replay_actions
from cli import cli
from model import Action, make_model
from model.describe import describe
from model.errors import ConfigError
from model.kernel.spec import layout_features, model_actions
from model.options import config_from_options
from properties import get_properties

A = Action
CONSUMER = ("at-least-once", "at-most-once")


def consumer(commit, restarts=1, **options):
    options = {"replication_factor": 2, "max_records": 2, "max_crashes": 0, **options}
    return config_from_options(consumer_commit=commit, max_consumer_restarts=restarts,
                               **options)[0]


def steps(result, name):
    return [str(a) for a in result.by_name(name).trace.actions]


def test_commit_after_processing_reprocesses_after_a_restart():
    result = check(consumer("after"), list(CONSUMER))
    assert result.verdict("at-least-once") == HOLDS
    assert result.verdict("at-most-once") == VIOLATED
    trace = steps(result, "at-most-once")
    assert trace[-4:] == ["ConsumerFetch(offset=0)", "ConsumerProcess(offset=0)",
                          "ConsumerRestart()", "ConsumerFetch(offset=0)"] or \
        trace[-3:] == ["ConsumerRestart()", "ConsumerFetch(offset=0)", "ConsumerProcess(offset=0)"]
    assert trace[-1] == "ConsumerProcess(offset=0)"
    assert "ConsumerRestart()" in trace


def test_commit_before_processing_skips_a_record_after_a_restart():
    result = check(consumer("before"), list(CONSUMER))
    assert result.verdict("at-most-once") == HOLDS
    assert result.verdict("at-least-once") == VIOLATED
    trace = steps(result, "at-least-once")
    assert trace[-3:] == ["ConsumerFetch(offset=0)", "ConsumerCommit(offset=1)", "ConsumerRestart()"]


def test_without_a_restart_both_hold():
    for commit in ("before", "after"):
        result = check(consumer(commit, restarts=0), list(CONSUMER))
        assert result.verdict("at-least-once") == HOLDS, commit
        assert result.verdict("at-most-once") == HOLDS, commit


def test_the_steps_and_what_they_say():
    model = make_model(consumer("before"))
    trace = replay_actions(model, model.init_states()[0], [
        A("ProduceRecord", (0,)), A("LeaderHandleFetch", (0, 1)),
        A("FollowerHandleFetchResponse", (1,)), A("LeaderHandleFetch", (0, 1)),
        A("ConsumerFetch", (0,)), A("ConsumerCommit", (1,)), A("ConsumerRestart", ())])
    last = trace.states[-1]
    assert (last.consumer_committed, last.consumer_position, last.consumer_processed,
            last.consumer_in_hand, last.consumer_restarts) == (1, 1, 0, False, 1)
    said = describe(trace.actions[-1], trace.states[-2], last)
    assert "dropped" in said and "committed offset 1" in said


def test_no_consumer_no_state_and_no_actions():
    plain = consumer("", restarts=0)
    assert "consumer" not in layout_features(plain)
    assert not {a for a in model_actions(plain) if a.startswith("Consumer")}
    assert "ConsumerRestart" not in model_actions(consumer("after", restarts=0))
    assert not {p.name for p in get_properties(None)} & set(CONSUMER)


def test_bad_settings_are_one_line_and_exit_2():
    with pytest.raises(ConfigError):
        consumer("", restarts=1)
    runner = CliRunner()
    bad = runner.invoke(cli, ["check", "-q", "-r", "2", "--max-consumer-restarts", "1"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output and "--consumer-commit" in bad.output
    bad = runner.invoke(cli, ["check", "-q", "-r", "2", "--consumer-commit", "sometimes"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_the_command_line():
    out = CliRunner().invoke(cli, ["check", "-q", "-r", "2", "--max-crashes", "0",
                                   "--consumer-commit", "before", "--max-consumer-restarts", "1",
                                   "-p", "at-least-once"])
    assert out.exit_code == 1 and "at-least-once  VIOLATED" in out.output
    assert "ConsumerRestart()" in out.output
    held = CliRunner().invoke(cli, ["check", "-q", "-r", "2", "--max-crashes", "0",
                                    "--consumer-commit", "after", "--max-consumer-restarts", "1",
                                    "-p", "at-least-once"])
    assert held.exit_code == 0 and "consumer restarts <= 1" in held.output


def test_the_gate_table_names_the_consumer():
    from gate.report import within
    assert within(consumer("after")).endswith(" consumer-restarts=1 consumer=after")
    assert "consumer" not in within(consumer("", restarts=0))


def test_the_restart_bound_is_a_fault_bound():
    """``--max-consumer-restarts`` is one of ``Bounds`` (issue 26d): ``faults()`` lists it, so
    ``kmc advise``, the gate's "known beyond these bounds" and the engines that refuse fault
    bounds see it; a trace file written when it was a setting beside the bounds still reads."""
    from model.config import ModelConfig
    config = consumer("after", restarts=2)
    assert config.bounds.faults() == {"max_consumer_restarts": 2}
    assert config.as_dict()["bounds"]["max_consumer_restarts"] == 2
    assert "max.consumer.restarts" not in config.as_dict()
    assert ModelConfig.from_dict(config.as_dict()) == config
    old = config.as_dict()
    old["bounds"] = {k: v for k, v in old["bounds"].items() if k != "max_consumer_restarts"}
    old["max.consumer.restarts"] = 2
    assert ModelConfig.from_dict(old) == config


def test_a_consumer_file_is_read_and_reported_with_what_is_in_force(tmp_path):
    """enable.auto.commit, auto.commit.interval.ms and isolation.level from a consumer file
    (issue 26d): each gets a row saying what of it the model has; none turns the consumer on
    or picks its order (that stays --consumer-commit); values Kafka refuses are refused."""
    from model.kafka_config import file_kind, read_properties
    f = tmp_path / "client.properties"
    f.write_text("bootstrap.servers=127.0.0.1:9092\ngroup.id=g\nenable.auto.commit=TRUE\n"
                 "auto.commit.interval.ms=5000\nisolation.level=read_committed\n")
    assert file_kind(str(f), read_properties(str(f))) == "consumer"
    config, provenance = config_from_options(config_files=[str(f)], replication_factor=2)
    text = "\n".join(provenance)
    assert config.consumer_commit == "" and "no consumer is modelled without --consumer-commit" in text
    assert "enable.auto.commit=true " in text and "commits what earlier polls returned" in text
    assert "auto.commit.interval.ms=5000" in text and "kmc has no clock" in text
    assert "isolation.level=read_committed" in text and "the same as read_uncommitted" in text
    assert "ignored (not modelled) in" in text and "group.id" in text
    config, provenance = config_from_options(config_files=[str(f)], replication_factor=2,
                                             consumer_commit="after", max_consumer_restarts=1)
    assert config.consumer_commit == "after"
    assert "--consumer-commit after is the model's commit order" in "\n".join(provenance)
    for bad, words in (("enable.auto.commit=sometimes", "true or false"),
                       ("auto.commit.interval.ms=-1", "auto.commit.interval.ms"),
                       ("isolation.level=READ_COMMITTED", "read_committed or read_uncommitted")):
        f.write_text(f"group.id=g\n{bad}\n")
        with pytest.raises(ConfigError, match=words):
            config_from_options(config_files=[str(f)], replication_factor=2)
    f.write_text("enable.auto.comit=false\n")  # a typo of a consumer key gets a did-you-mean
    assert "did you mean enable.auto.commit?" in "\n".join(
        config_from_options(config_files=[str(f)], replication_factor=2)[1])


def test_a_consumer_file_through_the_command_line(tmp_path):
    f = tmp_path / "consumer.properties"
    f.write_text("isolation.level=read_uncommitted\n")
    out = CliRunner().invoke(cli, ["check", "-r", "2", "--max-crashes", "0", "--config", str(f),
                                   "--consumer-commit", "after", "-p", "at-least-once"])
    assert out.exit_code == 0 and "isolation.level=read_uncommitted" in out.output
    f.write_text("isolation.level=serializable\n")
    bad = CliRunner().invoke(cli, ["check", "-q", "-r", "2", "--config", str(f)])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert len(bad.output.strip().splitlines()) == 1


def test_known_beyond_names_the_restart_bound_only_for_the_same_commit_order():
    """With the restarts a bound, a HOLDS without a restart hears of the row that breaks it with
    one (raise max-consumer-restarts to 1); a consumer of the other order, or none, does not."""
    from gate.known import beyond
    rows = [(f["known_result"], f["raise"]) for f in beyond(consumer("after", restarts=0),
                                                          ["at-most-once", "at-least-once"])]
    assert rows == [("A consumer that commits after processing processes a record twice after "
                     "a crash", {"max_consumer_restarts": 1})]
    names = [f["known_result"] for f in beyond(consumer("before", restarts=0),
                                               ["at-most-once", "at-least-once"])]
    assert names == ["A consumer that commits before processing skips a record after a crash"]
    assert beyond(consumer("", restarts=0), ["at-most-once", "at-least-once"]) == []
