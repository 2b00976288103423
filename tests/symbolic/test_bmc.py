"""BMC against the explicit BFS on the known-results rows at small bounds: the same verdict and
the same (shortest) counterexample length, with a trace the explicit model replays."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from checker import INCOMPLETE, VIOLATED, check, replay_actions
from cli import cli
from checker.reference import make_reference_model
from model import Bounds, ModelConfig
from tests.conftest import LOOSE
from model.errors import ConfigError

ROWS = [
    # (label, config, property)
    ("hw-truncation RF=2 (KIP-101 scenario 1)",
     ModelConfig(protocol="hw-truncation", replication_factor=2, min_insync_replicas=2,
                 rule_changes=LOOSE, bounds=Bounds(1, 2, 1, 1)), "no-acked-loss"),
    ("acks=1 loses data",
     ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=1, acks="1",
                 rule_changes=LOOSE, bounds=Bounds(1, 2, 1, 1)), "no-acked-loss"),
    ("kip-101 RF=2 fast leader change",
     ModelConfig(protocol="kip-101", replication_factor=2, min_insync_replicas=2,
                 rule_changes=LOOSE, bounds=Bounds(2, 2, 1, 1)), "committed-consistency"),
    ("kip-320 unclean election",
     ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=1,
                 unclean_leader_election_enable=True, rule_changes=LOOSE, bounds=Bounds(1, 2, 1, 1)), "no-acked-loss"),
]


# the 38-second row (depth 8) only in ``make test-slow`` (docs/testing.md, "Slow tests")
@pytest.mark.parametrize("label,config,prop", [
    pytest.param(*r, marks=pytest.mark.slow) if r[0] == "kip-101 RF=2 fast leader change" else r
    for r in ROWS], ids=[r[0] for r in ROWS])
def test_bmc_finds_a_shortest_violation_like_bfs(label, config, prop):
    explicit = check(config, [prop])
    assert explicit.verdict(prop) == VIOLATED
    length = len(explicit.by_name(prop).trace)
    symbolic = check(config, [prop], engine="bmc", max_depth=length)
    result = symbolic.by_name(prop)
    assert result.verdict == VIOLATED
    assert len(result.trace) == length
    # the trace replays in the explicit model and ends in a violating state
    model = make_reference_model(config)
    replayed = replay_actions(model, result.trace.initial, result.trace.actions)
    assert replayed.states[-1] == result.trace.states[-1]
    assert symbolic.exit_code == 1


def test_no_violation_up_to_k_is_incomplete_never_holds():
    config = ROWS[0][1]
    result = check(config, ["no-acked-loss", "hw-le-leo"], engine="bmc", max_depth=3)
    assert result.verdict("no-acked-loss") == INCOMPLETE
    assert result.verdict("hw-le-leo") == INCOMPLETE
    assert "no violation up to depth 3" in result.notes
    assert result.exit_code == 3


def test_bmc_needs_a_depth():
    with pytest.raises(ConfigError, match="--depth"):
        check(ROWS[0][1], ["no-acked-loss"], engine="bmc")


def test_cli_bmc_without_depth_is_one_line_exit_2():
    out = CliRunner().invoke(cli, ["check", "-r", "2", "--engine", "bmc", "-q"])
    assert out.exit_code == 2
    assert "--depth" in out.output and "Traceback" not in out.output


def test_cli_bmc_prints_the_trace_and_exits_1():
    out = CliRunner().invoke(cli, ["check", "-r", "2", "--acks", "1", "--min-insync-replicas", "1",
                                   "--max-records", "1", "-p", "no-acked-loss", "--engine", "bmc",
                                   "--depth", "5", "-q"])
    assert out.exit_code == 1, out.output
    assert "VIOLATED" in out.output


# Known-results rows under Kafka's own elections and request order (issue 29: the encoding has
# them), short enough to run here: BMC's shortest counterexample has the row's pinned length,
# which is also BFS's, and the compiled kernel takes the trace (run_bmc refuses any it does not).
KAFKA_ROWS = [
    "ISR of one, then unclean election (Jepsen 2013)",
    "unclean election still loses data with KIP-320",
    "power loss before KIP-380: a bounced broker leads again in the same epoch",
    "KIP-101 scenario 2: power loss diverges the logs",
]


def known_row(name):
    from gate.suite import load_suite

    row = next(c for c in load_suite("scenarios/known-results.toml").checks if c.name.startswith(name))
    assert row.expect == "violated" and row.trace_length
    return row


@pytest.mark.parametrize("name", KAFKA_ROWS)
def test_bmc_has_bfs_shortest_length_on_known_rows_with_kafkas_elections(name):
    from checker.symbolic.induction import in_kernel

    row = known_row(name)
    config, prop = row.config, row.violates[0]
    assert "unordered-leader-moves" not in config.rules and "leader-and-isr-in-order" in config.rules
    explicit = check(config, [prop])
    assert len(explicit.by_name(prop).trace) == row.trace_length
    result = check(config, [prop], engine="bmc", max_depth=row.trace_length).by_name(prop)
    assert result.verdict == VIOLATED and len(result.trace) == row.trace_length
    taken, why = in_kernel(config, result.trace)
    assert taken is not None, why
