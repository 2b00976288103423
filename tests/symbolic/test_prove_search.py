"""``kmc prove`` after a counterexample to induction: BMC searches for a real violation, and a
proof ends VIOLATED (exit 1) with a trace that replays in the compiled kernel, of the length
BFS finds, instead of INCONCLUSIVE; INCONCLUSIVE only when the search finds none within its
depth. The encoding has Kafka's ordered elections (issue 29), so its shortest trace is the
kernel's; a trace the kernel does not take (a defect of the encoding, shown here with the
elections made unordered again) is refused and the search goes on to one the kernel takes."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from checker import VIOLATED as BFS_VIOLATED
from checker import check, replay_actions
from checker.symbolic.induction import INCONCLUSIVE, VIOLATED, prove
from cli import cli
from model import Bounds, ModelConfig, make_model
from model.errors import ConfigError
from properties import PROPERTIES
from tests.conftest import LOOSE

ACKS1 = ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=1, acks="1",
                    bounds=Bounds(1, 2, 1, 1))  # Kafka's elections
UNCLEAN = ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=1,
                      unclean_leader_election_enable=True, rule_changes=LOOSE,
                      bounds=Bounds(1, 2, 1, 1))  # the encoding's own model


@pytest.mark.parametrize("config", [ACKS1, UNCLEAN], ids=["acks=1 kafka-elections", "unclean loose"])
def test_a_cti_on_a_false_property_ends_violated_with_bfs_length_and_a_kernel_trace(config):
    bfs = check(config, ["no-acked-loss"])
    assert bfs.verdict("no-acked-loss") == BFS_VIOLATED
    shortest = len(bfs.by_name("no-acked-loss").trace)
    result = prove(config, "no-acked-loss", bmc_depth=shortest, search="bmc")
    assert result.status == VIOLATED and result.phase == "search"
    assert len(result.trace) == shortest
    # the trace is the kernel's: it replays there and ends violating the property
    kernel = make_model(config)
    again = replay_actions(kernel, kernel.init_states()[0], [s.action for s in result.trace.steps])
    assert again.states[-1] == result.trace.states[-1]
    assert not PROPERTIES["no-acked-loss"].check(again.states[-1])


def test_with_kafkas_elections_encoded_nothing_is_refused():
    # acks=1: Kafka's elections need a crash before the failover that loses r1: 4 steps, like
    # BFS, and no shorter trace in the encoding
    short = prove(ACKS1, "no-acked-loss", bmc_depth=3, search="bmc")
    assert short.status == INCONCLUSIVE
    assert "no violation up to depth 3" in short.search and "refused" not in short.search
    found = prove(ACKS1, "no-acked-loss", bmc_depth=4, search="bmc")
    assert found.status == VIOLATED and len(found.trace) == 4
    assert "the shortest there is" in found.search and "does not take" not in found.search


def test_traces_the_kernel_does_not_take_are_refused(monkeypatch):
    # an encoding wider than the kernel (here: elections without the assignment order, so the
    # controller may move a healthy leader, 3 steps) finds traces the kernel refuses; the search
    # asks z3 for others and ends on the kernel's 4-step trace
    from checker.symbolic.transitions import Encoder

    real_init = Encoder.__init__

    def unordered(self, model, **kw):
        real_init(self, model, **kw)
        self.ordered = False

    monkeypatch.setattr(Encoder, "__init__", unordered)
    result = prove(ACKS1, "no-acked-loss", bmc_depth=3, search="bmc")
    assert result.status == INCONCLUSIVE
    assert "the kernel does not take them" in result.search and "is not enabled" in result.search
    assert len(prove(ACKS1, "no-acked-loss", bmc_depth=4, search="bmc").trace) == 4


def test_no_counterexample_within_the_depth_stays_inconclusive_and_exits_3():
    # Kafka 2.1's rules, RF=2: no-acked-loss holds (BFS) but is not 1-inductive alone
    out = CliRunner().invoke(cli, ["prove", "-r", "2", "-p", "no-acked-loss", "--bmc-depth", "2",
                                   "--search", "bmc", "-q"])
    assert out.exit_code == 3, out.output
    assert "1-induction: INCONCLUSIVE" in out.output
    assert "no violation up to depth 2 (the --bmc-depth); a longer counterexample may exist" in out.output


def test_the_cli_exits_1_on_a_violation_found_after_a_cti():
    out = CliRunner().invoke(cli, ["prove", "-r", "2", "--acks", "1", "--min-insync-replicas", "1",
                                   "--max-records", "1", "-p", "no-acked-loss", "-q"])
    assert out.exit_code == 1, out.output
    assert "1-induction: VIOLATED" in out.output
    assert "a real counterexample exists: 4 steps (BFS of the compiled model found it" in out.output
    assert "the shortest there is" in out.output
    assert "=> no-acked-loss is violated" in out.output


def test_bmc_depth_0_with_only_bmc_is_refused_and_none_skips_every_search():
    # --search bmc --bmc-depth 0 used to end INCONCLUSIVE with no search at all; it is bad input
    with pytest.raises(ConfigError, match="would search nothing"):
        prove(ACKS1, "no-acked-loss", bmc_depth=0, search="bmc")
    out = CliRunner().invoke(cli, ["prove", "-r", "2", "-p", "no-acked-loss", "--search", "bmc",
                                   "--bmc-depth", "0"])
    assert out.exit_code == 2 and "Traceback" not in out.output
    result = prove(ACKS1, "no-acked-loss", search="none")
    assert result.status == INCONCLUSIVE and result.search == "" and result.searches == []


@pytest.mark.parametrize("bad", ["-1", "201", "x"])
def test_a_bad_bmc_depth_is_one_line_and_exit_2(bad):
    out = CliRunner().invoke(cli, ["prove", "-r", "2", "-p", "no-acked-loss", "--bmc-depth", bad])
    assert out.exit_code == 2
    assert "Traceback" not in out.output and "bmc-depth" in out.output


def test_prove_refuses_a_bad_bmc_depth_in_the_library_too():
    with pytest.raises(ConfigError):
        prove(ACKS1, "no-acked-loss", bmc_depth=True)
