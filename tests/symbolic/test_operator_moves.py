"""The operator's leader moves in the symbolic engine (issue 29): ``--max-preferred-elections``
and ``--max-reassignments`` are encoded (``ControllerPreferredElection``,
``ControllerReassignReplicas``, the assignment order as state), BMC's shortest counterexample with
them has BFS's length and replays in the compiled kernel (the oracle lacks the moves), and every
other fault bound is refused in one line, exit 2. With the moves, Kafka 2.1 with kmc 0.1's reset
is proved, and Kafka's own rule stops on a library invariant that is false for it. The
cross-check rows are in ``test_kernel_crosscheck.py``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from checker import VIOLATED, check
from checker.symbolic.induction import in_kernel
from checker.symbolic.scope import KernelReplayed, require_encoded, symbolic_model
from cli import cli
from model.errors import ConfigError
from model.options import config_from_options
from tests.symbolic.helpers import lacking_fault_bound

# Kafka 2.1's own rules, acks=1 and no crash: an acked record is lost only if leadership moves,
# which without a failure only the operator does (a reorder, then a preferred election).
ACKS_1 = ["--kafka-version", "2.1", "-r", "2", "--acks", "1", "--min-insync-replicas", "1",
          "--max-records", "1", "--max-crashes", "0", "--max-preferred-elections", "1",
          "--max-reassignments", "1"]


def acks_1_config():
    return config_from_options(kafka_version="2.1", replication_factor=2, acks="1",
                               min_insync_replicas=1, max_records=1, max_crashes=0,
                               max_preferred_elections=1, max_reassignments=1)[0]


def test_bmc_with_the_operators_moves_has_bfs_length_and_replays_in_the_kernel():
    config = acks_1_config()
    bfs = check(config, ["no-acked-loss"])
    assert bfs.verdict("no-acked-loss") == VIOLATED
    length = len(bfs.by_name("no-acked-loss").trace)
    assert check(config, ["no-acked-loss"], engine="bmc", max_depth=length - 1).verdict(
        "no-acked-loss") != VIOLATED  # none shorter
    result = check(config, ["no-acked-loss"], engine="bmc", max_depth=length).by_name("no-acked-loss")
    assert result.verdict == VIOLATED and len(result.trace) == length
    names = [a.name for a in result.trace.actions]
    # no crash is allowed: the trace needs both of the operator's moves
    assert "ControllerReassignReplicas" in names and "ControllerPreferredElection" in names
    taken, why = in_kernel(config, result.trace)
    assert taken is not None, why
    assert taken.states[-1] == result.trace.states[-1]


def test_prove_with_the_operators_moves_stops_on_the_real_counterexample():
    out = CliRunner().invoke(cli, ["prove", *ACKS_1, "-p", "no-acked-loss", "--search", "bmc", "-q"])
    assert out.exit_code == 1, out.output
    shortest = len(check(acks_1_config(), ["no-acked-loss"]).by_name("no-acked-loss").trace)
    assert f"a real counterexample exists: {shortest} steps (BMC found it in " in out.output
    assert "the shortest there is" in out.output
    assert "ControllerPreferredElection" in out.output


def test_the_operators_moves_replay_in_the_kernel_and_the_rest_in_the_oracle():
    assert isinstance(symbolic_model(acks_1_config()), KernelReplayed)
    plain = config_from_options(kafka_version="2.1", replication_factor=2)[0]
    assert not isinstance(symbolic_model(plain), KernelReplayed)


def test_a_fault_bound_the_encoding_lacks_is_one_line_and_exit_2(monkeypatch):
    # (retries since 29aq; controlled shutdowns and session expiries since issue 29ac; controller
    # failovers since 29ak; stale metadata reads since 29bc; the consumer's restarts since 29be:
    # none is left, so the helper takes one out of scope's list for the test)
    name = lacking_fault_bound(monkeypatch)
    for argv in (["prove", "--kafka-version", "3.3", "-r", "2", "-p", "no-acked-loss", name, "1",
                  "--max-preferred-elections", "1"],
                 ["check", "--engine", "bmc", "--depth", "2", "--kafka-version", "3.3", "-r", "2",
                  "-q", "-p", "no-acked-loss", name, "1"]):
        out = CliRunner().invoke(cli, argv)
        assert out.exit_code == 2, out.output
        assert "Traceback" not in out.output
        error = [line for line in out.output.splitlines() if "error" in line.lower()]
        assert len(error) == 1 and f"but not {name} (" in error[0], out.output
        assert "--max-preferred-elections" in error[0], out.output


def test_require_encoded_names_only_the_refused_bounds(monkeypatch):
    config = config_from_options(kafka_version="2.5", replication_factor=2,
                                 max_preferred_elections=1, max_reassignments=1,
                                 max_delayed_fetches=1, max_session_expiries=1,
                                 max_controller_failovers=1, max_retries=1,
                                 enable_idempotence=True, max_producer_epoch_bumps=1,
                                 consumer_commit="after", max_consumer_restarts=1)[0]
    # every one of them is encoded since issue 29be (the consumer's restarts the last)
    require_encoded(config)
    name = lacking_fault_bound(monkeypatch)
    with pytest.raises(ConfigError) as e:
        require_encoded(config)
    refused = str(e.value).split("but not ")[1]
    assert refused.startswith(f"{name} (")  # only the one lacking, after "but not"
    for encoded in ("--max-consumer-restarts", "--max-controller-failovers",
                    "--max-delayed-fetches", "--max-preferred-elections", "--max-reassignments"):
        assert encoded not in refused and encoded in str(e.value)


def operator_config(*rules):
    return config_from_options(kafka_version="2.1", replication_factor=2,
                               max_preferred_elections=1, max_reassignments=1,
                               rule_changes=rules)[0]


def test_kafka_2_1_with_kmc_0_1s_reset_is_proved_with_the_operators_moves():
    from checker.symbolic.induction import PROVED, prove

    config = operator_config("+reset-followers-on-epoch")
    assert prove(config, "no-acked-loss", strengthen=["all"], bmc_depth=0).status == PROVED


# Kafka 2.1's own follower-LEO rule with the operator's moves is proved since issue 29k:
# tests/symbolic/test_prove_kafka_rule.py
