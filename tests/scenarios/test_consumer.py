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
    assert within(consumer("after")).endswith(" consumer=after consumer-restarts=1")
    assert "consumer" not in within(consumer("", restarts=0))
