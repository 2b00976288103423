"""kmc advise --goal with a liveness property (advise/liveness.py): every operator setting judged
on its behaviour graph under weak fairness, the weakest that keep the goal, bad combinations."""

import json

import pytest
from click.testing import CliRunner

from advise.liveness import (
    advise_liveness, check_liveness_goals, is_liveness, render_liveness_advice, render_liveness_markdown,
)
from advise.recommend import BROKEN, KEPT, UNKNOWN, VACUOUS
from checker.liveness import check_liveness
from cli import cli
from model.errors import ConfigError
from model.options import config_from_options
from properties.liveness import get_liveness

SMALL = dict(kafka_version="3.9", replication_factor=2, min_insync_replicas=2, max_records=1)


def _config(**changes):
    return config_from_options(**{**SMALL, **changes})[0]


@pytest.fixture(scope="module")
def accepted():
    """The RF=2 sweep of writes-eventually-accepted on Kafka 3.9 (one record): 24 settings."""
    return advise_liveness(_config(), ["writes-eventually-accepted"])


def test_each_cell_is_the_liveness_check_of_its_settings_and_the_weakest_are_minimal(accepted):
    config, advice = _config(), accepted
    assert len(advice.cells) == 24  # acks x min.insync.replicas x unclean x flush at RF=2
    prop = get_liveness("writes-eventually-accepted")
    for cell in (advice.cells[17], advice.cell(advice.user)):
        alone = check_liveness(cell.settings.config(config, advice.bounds[2]), prop)
        got = cell.results["writes-eventually-accepted"]
        assert (got.verdict, got.states, got.edges) == (alone.verdict, alone.states, alone.edges)
    # acks=all with min.insync.replicas=2: one crash and the ISR stays below the minimum (3 steps)
    mine = advice.cell(advice.user)
    assert mine.status == BROKEN and len(mine.results["writes-eventually-accepted"].trace.steps) == 3
    assert advice.exit_code == 1
    # clean election with min.insync.replicas=1: the ISR shrinks to the leader, it crashes,
    # the partition stays offline; unclean election brings the other broker back as leader
    statuses = {(c.settings.acks, c.settings.min_insync_replicas,
                 c.settings.unclean_leader_election_enable): c.status for c in advice.cells}
    assert statuses[("all", 1, False)] == BROKEN and statuses[("all", 1, True)] == KEPT
    assert statuses[("all", 2, True)] == BROKEN
    kept = [c.settings for c in advice.cells if c.status == KEPT]
    assert advice.weakest and set(advice.weakest) <= set(kept)
    for s in advice.weakest:  # nothing weaker keeps it
        assert not any(o != s and o.at_most(s) for o in kept)
    # acks=0 needs only a leader; with the user's acks=all, unclean election is what keeps it
    assert [s.words() for s in advice.weakest_at_your_acks] == [
        "RF=2 acks=all min.insync.replicas=1 unclean.leader.election.enable=true flush=default"]


def test_the_text_names_the_weakest_and_the_users_lasso(accepted):
    text = render_liveness_advice(accepted)
    assert "Weakest settings that keep the goal within these bounds:" in text
    assert "<- yours" in text and "does not keep it." in text
    assert "BrokerCrash(broker=0) -> ControllerHandleBrokerFailure" in text
    assert "then stutters for ever" in text and "With your acks=all:" in text


def test_markdown_is_the_same_advice_as_a_table(accepted):
    md = render_liveness_markdown(accepted)
    lines = md.splitlines()
    assert lines[0].startswith("## kmc advise: liveness goal writes-eventually-accepted (Kafka 3.9")
    assert any(line.startswith("- RF=2 bounds: max-records=") for line in lines)
    rows = [line for line in lines if line.startswith("| RF=")]
    assert len(rows) == len(accepted.cells) == 24
    assert all(line.count("|") == 6 for line in rows)  # no verdict breaks the table
    yours = [line for line in rows if line.endswith("| yours |")]
    assert len(yours) == 1 and "| broken | writes-eventually-accepted VIOLATED: lasso of 3 steps" in yours[0]
    assert "### Advice" in lines and "Yours (RF=2 acks=all min.insync.replicas=2 " in md
    assert "- RF=2 acks=all min.insync.replicas=1 unclean.leader.election.enable=true flush=default" in lines
    # the command prints exactly this (the same sweep: the user's settings are the fixture's, and
    # no bound flag, so the sweep's bounds are kmc's defaults for RF=2 as in the fixture)
    out = CliRunner().invoke(cli, ["advise", "-q", "-r", "2", "--kafka-version", "3.9",
                                   "--min-insync-replicas", "2", "--goal", "writes-eventually-accepted",
                                   "--markdown"])
    assert out.exit_code == 1 and out.output == md, out.output


def test_acks_0_is_vacuous_for_acknowledgements_and_a_limit_is_never_kept():
    advice = advise_liveness(_config(), ["acked-eventually-visible"], replication_factors=[2],
                             max_states=1)  # every check stops at its first state
    assert {c.status for c in advice.cells if c.settings.acks == "0"} == {VACUOUS}
    assert all(not c.results for c in advice.cells if c.settings.acks == "0")
    assert {c.status for c in advice.cells if c.settings.acks != "0"} == {UNKNOWN}
    assert advice.weakest == [] and advice.exit_code == 3
    assert "not decided (max-states)" in render_liveness_advice(advice)


def test_the_command_keeps_the_goal_and_answers_json():
    out = CliRunner().invoke(cli, ["advise", "-q", "-r", "2", "--kafka-version", "4.1", "--max-records",
                                   "1", "--min-insync-replicas", "2",
                                   "--goal", "writes-accepted-once-brokers-return", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["kind"] == "liveness" and doc["exit_code"] == 0 and len(doc["cells"]) == 24
    assert all(c["status"] == "kept" for c in doc["cells"])
    assert doc["cells"][0]["goals"][0]["property"] == "writes-accepted-once-brokers-return"


def test_bad_combinations_are_one_line_and_exit_2():
    cases = [
        ["--goal", "writes-eventually-accepted", "--goal", "no-acked-loss"],
        ["--goal", "writes-eventually-accepted", "--goal", "acked-without-a-down-broker"],
        ["--goal", "writes-eventually-accepted", "--goal", "in-order"],
        ["--goal", "writes-eventually-accepted", "--markdown", "--json"],
        ["--goal", "writes-eventually-accepted", "--full"],
        ["--goal", "writes-eventually-accepted", "--trace-dir", "/tmp/nowhere-kmc-28b"],
        ["--goal", "writes-eventually-accepted", "--cache", "/tmp/nowhere-kmc-28b-cache"],
        ["--goal", "no-such-goal"],
    ]
    for args in cases:
        out = CliRunner().invoke(cli, ["advise", "-q", "-r", "2", *args])
        assert out.exit_code == 2, (args, out.output)
        assert "Traceback" not in out.output and len(out.output.strip().splitlines()) == 1, out.output
    assert "liveness property" in CliRunner().invoke(
        cli, ["advise", "-q", "--goal", "no-such-goal"]).output
    try:
        check_liveness_goals(["leader-eventually", "no-acked-loss"])
    except ConfigError as e:
        assert "on its own" in str(e)
    else:
        raise AssertionError("a liveness goal with a safety goal was accepted")
    assert is_liveness(["leader-eventually"]) and not is_liveness(["leader-eventually", "no-acked-loss"])
