"""``kmc check --unbounded crashes[,leader-epochs]`` (checker/unbounded.py): a search over normal
forms, the crash count forgotten and leader epochs renamed by their order, with the renaming
checked on every state it explores."""

from __future__ import annotations

import dataclasses

import pytest

from checker import check
from checker.result import ANY, HOLDS, INCOMPLETE, VIOLATED
from checker import unbounded
from click.testing import CliRunner

from cli import cli
from model.options import config_from_options
from model.schema import all_slots


def _config(**options):
    options.setdefault("replication_factor", 2)
    options.setdefault("max_records", 1)
    return config_from_options(**options)[0]


def test_every_slot_named_epoch_is_classified():
    """A new slot holding a leader epoch must be renamed with the others: one named like an epoch
    and classified neither way stops the search (explore raises), so every such slot is listed."""
    names = {s.name for s in all_slots() if "epoch" in s.name}
    assert names <= unbounded.classified_slots()
    assert not set(unbounded.EPOCH_VALUED) & unbounded.NOT_LEADER_EPOCHS


def test_kafka_2_1_with_the_fix_holds_for_any_number_of_crashes_and_epochs():
    config = _config(kafka_version="2.1", rule_changes=("+reset-followers-on-epoch",))
    result = unbounded.explore(config, ["no-acked-loss"])
    assert result.verdict("no-acked-loss") == HOLDS and result.limit is None
    assert result.config["bounds"]["max_crashes"] == ANY
    assert result.config["bounds"]["max_leader_epoch"] == ANY
    assert result.config["bounds"]["max_waiting_requests"] == 2
    # the renaming was checked on every state explored, and the rows' epoch bound never bit
    checked = next(n for n in result.notes if "renaming was checked on" in n)
    assert f"checked on {result.stats.distinct_states:,} states" in checked
    # more states than the bounded search at its defaults (epochs <= 2, one crash)
    bounded = check(config, ["no-acked-loss"])
    assert result.stats.distinct_states > bounded.stats.distinct_states


def test_a_violation_is_the_bounded_search_s_at_the_bounds_its_trace_names():
    """KIP-101 scenario 1 (truncation to a stale HW, protocol hw-truncation): found with the
    bounds forgotten, as a trace with real leader epochs; the bounded search at the crashes and
    epochs the trace used finds a violation of the same length."""
    config = _config(protocol="hw-truncation")
    result = unbounded.explore(config, ["no-acked-loss"])
    assert result.verdict("no-acked-loss") == VIOLATED
    trace = result.by_name("no-acked-loss").trace
    crashes = sum(1 for a in trace.actions if a.name == "BrokerCrash")
    top = max(s.controller.leader_epoch for s in trace.states)
    assert (crashes, top) == (2, 1)
    assert any(f"--max-crashes {crashes} --max-leader-epoch {top}" in n for n in result.notes)
    bounded = check(dataclasses.replace(config, bounds=dataclasses.replace(
        config.bounds, max_crashes=crashes, max_leader_epoch=top)), ["no-acked-loss"])
    assert bounded.verdict("no-acked-loss") == VIOLATED
    assert len(bounded.by_name("no-acked-loss").trace) == len(trace)


def test_crashes_alone_keep_the_epoch_bound():
    config = _config(kafka_version="2.1")
    result = unbounded.explore(config, ["no-acked-loss"], ("crashes",))
    assert result.verdict("no-acked-loss") == HOLDS
    assert result.config["bounds"]["max_crashes"] == ANY
    assert result.config["bounds"]["max_leader_epoch"] == config.bounds.max_leader_epoch
    assert result.stats.distinct_states > check(config, ["no-acked-loss"]).stats.distinct_states


def test_a_renaming_that_misses_an_epoch_slot_is_caught(monkeypatch):
    """The mutant: the records' epochs left out of the renaming. Renamed states then differ
    from their successors' normal forms; the check stops the search, INCOMPLETE, and says so."""
    monkeypatch.delitem(unbounded.EPOCH_VALUED, "log_epoch")
    monkeypatch.setattr(unbounded, "NOT_LEADER_EPOCHS", unbounded.NOT_LEADER_EPOCHS | {"log_epoch"})
    config = _config(kafka_version="2.1", rule_changes=("+reset-followers-on-epoch",))
    result = unbounded.explore(config, ["no-acked-loss"])
    assert result.verdict("no-acked-loss") == INCOMPLETE
    assert result.exit_code == 3
    assert any(n.startswith("not order-invariant") for n in result.notes)


@pytest.mark.parametrize("argv, words", [
    (["--unbounded", "nosuch"], "--unbounded takes crashes and leader-epochs"),
    (["--unbounded", ","], "--unbounded needs crashes"),
    (["--unbounded", "crashes", "--time-limit", "-5"], "--time-limit must be a positive"),
    (["--unbounded", "leader-epochs"], "needs --unbounded crashes too"),
    (["--unbounded", "crashes", "--max-crashes", "2"], "contradict each other"),
    (["--max-waiting-requests", "3"], "needs --unbounded crashes,leader-epochs"),
    (["--unbounded", "crashes", "--max-waiting-requests", "3"], "applies to --unbounded crashes,leader-epochs only"),
    (["--unbounded", "crashes", "--workers", "2"], "do not apply to --unbounded"),
    (["--unbounded", "crashes", "--trace-out", "t.json"], "do not apply to --unbounded"),
    (["--unbounded", "crashes", "-p", "leader-eventually"], "not liveness"),
])
def test_bad_input_is_one_line_and_exit_2(argv, words):
    r = CliRunner().invoke(cli, ["check", "-r", "2", "--max-records", "1", "-q"] + argv)
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], r.output


def test_the_command_line_says_what_a_holds_covers():
    r = CliRunner().invoke(cli, ["check", "--kafka-version", "2.1", "-r", "2", "--max-records", "1",
                                 "--rule", "+reset-followers-on-epoch", "-q",
                                 "--unbounded", "crashes,leader-epochs"])
    assert r.exit_code == 0, r.output
    assert ("HOLDS = holds for every behaviour within records <= 1, any number of leader epochs, "
            "any number of crashes, at most 2 LeaderAndIsr requests waiting for one broker") in r.output
    assert "bounds: max-records=1, max-leader-epoch=any, max-crashes=any, max-waiting-requests=2" in r.output


@pytest.mark.slow
def test_the_waiting_bound_is_a_real_restriction():
    """Kafka 2.1, RF=3, leader moves as kmc over-approximated them and LeaderAndIsr requests in
    any order (the skipped-request finding, known-results): with one request waiting a broker
    at most the finding is out of reach (HOLDS), with two it is found in 11 steps, as the
    bounded search finds it."""
    config = _config(kafka_version="2.1", replication_factor=3,
                     rule_changes=("+unordered-leader-moves", "-leader-and-isr-in-order"))
    one = unbounded.explore(config, ["committed-consistency"], max_waiting=1)
    assert one.verdict("committed-consistency") == HOLDS
    two = unbounded.explore(config, ["committed-consistency"], max_waiting=2)
    assert two.verdict("committed-consistency") == VIOLATED
    assert len(two.by_name("committed-consistency").trace) == 11
