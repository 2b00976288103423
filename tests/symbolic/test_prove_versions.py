"""``kmc prove`` and ``--engine bmc`` take ``--kafka-version`` and ``--config`` like ``kmc
check``: every release kmc models, 0.8 to 4.4 (Kafka's ordered elections, in-order
LeaderAndIsr, 2.2's broker epochs, 2.7's AlterPartition, 3.3's KRaft metadata log, 3.5-3.7's
fencing and 4.1's ELR included), with the three crash models (a disk loss since issue 29aj), is
accepted; what the encoding lacks (a fault bound other than those it has) gets one line naming
it, exit 2, no traceback (``checker/symbolic/scope.py``)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from checker import HOLDS as BFS_HOLDS
from checker import VIOLATED as BFS_VIOLATED
from checker import check
from checker.symbolic.scope import ENCODED_THROUGH, lacking_rules, require_encoded, symbolic_model
from checker.symbolic.transitions import Encoder
from cli import cli
from model.errors import ConfigError
from model.options import config_from_options
from model.releases import NEWEST_MODELLED, RELEASES, as_version
from tests.symbolic.helpers import lacking_fault_bound


def release(v):
    return config_from_options(kafka_version=str(v), replication_factor=2)[0]


@pytest.mark.parametrize("version", [v for v in RELEASES if v <= NEWEST_MODELLED], ids=str)
def test_every_release_kmc_models_is_encoded(version):
    config = release(version)
    assert lacking_rules(config) == []
    require_encoded(config)
    Encoder(symbolic_model(config))  # builds: no rule it lacks


def test_the_newest_release_encoded_is_the_newest_kmc_models():
    # 2.2 adds broker-epoch (encoded, issue 29e), 2.7 alter-partition and 3.1 the HW on its
    # answer (issue 29i); 3.3 is KRaft (the metadata log, issue 29m; its ISR rules, issue 29f);
    # 3.5 and 3.7 the fencing rules (issue 29h), 3.6 and 3.9 two KRaft controller rules (29m),
    # 4.0 the out-of-sync set, 4.1 the ELR (issues 29l, 29n), 4.2 the leaderless last known leader
    assert as_version(ENCODED_THROUGH) == NEWEST_MODELLED
    for v in ("3.3", "3.5", "4.0", "4.1", "4.2", "4.4"):
        assert lacking_rules(release(v)) == [], v


def test_what_the_encoding_lacks_is_one_line_and_exit_2(monkeypatch):
    # (controlled shutdowns and session expiries are encoded since issue 29ac, stale metadata
    # reads since issue 29bc: tests/symbolic/test_stale_metadata.py; controller failovers since
    # issue 29ak, the producer's retries without idempotence since issue 29aq, with it and its
    # epoch bumps since issue 29at; the consumer's restarts since issue 29be: none is left, so
    # the helper takes one out of scope's list for the test)
    argv = ["check", "--engine", "bmc", "--depth", "2", "--kafka-version", "2.5", "-r", "2", "-q",
            "-p", "no-acked-loss", "--max-controller-failovers", "1",
            "--retries", "1", "--enable-idempotence", "--max-producer-epoch-bumps", "1",
            "--consumer-commit", "after", "--max-consumer-restarts", "1"]
    name = lacking_fault_bound(monkeypatch)
    out = CliRunner().invoke(cli, argv + [name, "1"])
    assert out.exit_code == 2, out.output
    assert "Traceback" not in out.output
    error = [line for line in out.output.splitlines() if "error" in line]
    assert len(error) == 1 and f"but not {name} (" in error[0], out.output
    assert "kmc check explores it" in error[0]


def test_prove_takes_an_old_release_and_finds_bfs_shortest_counterexample():
    # Kafka 0.11 (KIP-101) with acks=1: the acked record is lost; prove's search finds the
    # kernel's trace of BFS's length
    argv = ["--kafka-version", "0.11", "-r", "2", "--acks", "1", "--min-insync-replicas", "1",
            "--max-records", "1", "--max-crashes", "1", "--max-leader-epoch", "2"]
    config = config_from_options(kafka_version="0.11", replication_factor=2, acks="1",
                                 min_insync_replicas=1, max_records=1, max_crashes=1,
                                 max_leader_epoch=2)[0]
    bfs = check(config, ["no-acked-loss"])
    assert bfs.verdict("no-acked-loss") == BFS_VIOLATED
    shortest = len(bfs.by_name("no-acked-loss").trace)
    out = CliRunner().invoke(cli, ["prove", *argv, "-p", "no-acked-loss", "--search", "bmc", "-q"])
    assert out.exit_code == 1, out.output
    assert f"a real counterexample exists: {shortest} steps (BMC found it in " in out.output
    assert "the shortest there is" in out.output


def test_prove_reads_a_kafka_config_file(tmp_path):
    props = tmp_path / "producer.properties"
    props.write_text("acks=1\nmin.insync.replicas=1\n")
    out = CliRunner().invoke(cli, ["prove", "--kafka-version", "2.1", "--config", str(props),
                                   "-r", "2", "--max-records", "1", "-p", "no-acked-loss", "-q"])
    assert out.exit_code == 1, out.output  # acks=1 from the file: the loss is real
    assert "1-induction: VIOLATED" in out.output


def test_kafka_2_1_elections_with_kmc_0_1s_reset_are_proved():
    # the encoding has Kafka's elections now, so this PROVED is about them, not a wider model
    from checker.symbolic.induction import PROVED, prove

    config = config_from_options(kafka_version="2.1", replication_factor=2,
                                 rule_changes=("+reset-followers-on-epoch",))[0]
    assert prove(config, "no-acked-loss", strengthen=["all"], bmc_depth=0).status == PROVED


# Kafka 2.1's own follower-LEO rule is proved since issue 29k: tests/symbolic/test_prove_kafka_rule.py


def test_a_release_with_broker_epochs_and_alter_partition_is_proved():
    # Kafka 2.7 is 2.1's rules with 2.2's broker epochs (issue 29e) and 2.7's AlterPartition
    # (issue 29i) together: the engine is built on KernelReplayed and the library closes the
    # induction; BFS of the same configuration agrees
    from checker.symbolic.induction import PROVED, prove
    from checker.symbolic.scope import KernelReplayed

    config = release("2.7")
    assert {"broker-epoch", "alter-partition"} <= set(config.rules)
    assert isinstance(symbolic_model(config), KernelReplayed)
    assert check(config, ["no-acked-loss"]).verdict("no-acked-loss") == BFS_HOLDS
    assert prove(config, "no-acked-loss", strengthen=["all"], search="none").status == PROVED


@pytest.mark.parametrize("argv", [
    ["prove", "--kafka-version", "2.1", "-r", "2", "-p", "no-acked-loss", "-s", "all"],
    ["check", "--engine", "bmc", "--depth", "7", "--kafka-version", "2.1", "-r", "2", "-q",
     "-p", "no-acked-loss"],
], ids=["prove", "bmc"])
def test_a_disk_loss_is_taken_with_bfs_verdict(argv):
    # until issue 29aj the encoding refused a disk loss (read as a process crash it made kmc
    # prove say PROVED where kmc check finds the loss); it is encoded now (Encoder.lose_disk)
    # and both symbolic engines find the loss BFS finds: a leader whose disk was replaced is
    # sent its old epoch again (no broker epochs before 2.2) and leads with an empty log
    config = config_from_options(kafka_version="2.1", replication_factor=2,
                                 crash_model="disk-loss")[0]
    assert check(config, ["no-acked-loss"]).verdict("no-acked-loss") == BFS_VIOLATED
    require_encoded(config)
    out = CliRunner().invoke(cli, [*argv, "--crash-model", "disk-loss"])
    assert out.exit_code == 1, out.output
    assert "Traceback" not in out.output and "7 steps" in out.output
    assert "PROVED" not in out.output


def test_the_oracle_still_refuses_a_disk_loss():
    # the oracle (kmc 0.1's model, --engine reference) has no disk loss: the symbolic engine is
    # built on KernelReplayed for it, and the reference engine refuses it in one line
    out = CliRunner().invoke(cli, ["check", "--engine", "reference", "-r", "2", "-q", "-p",
                                   "no-acked-loss", "--crash-model", "disk-loss"])
    assert out.exit_code == 2, out.output
    assert "Traceback" not in out.output and "disk-loss" in out.output


@pytest.mark.parametrize("version, change", [("2.0", "+fenced-fetch"),
                                             ("0.11", "+epoch-cache-on-election"),
                                             ("0.10", "+isr-join-needs-epoch-start"),
                                             ("2.0", "+truncate-on-epoch-change")])
def test_a_kip_320_fix_added_to_an_older_release_is_refused(version, change):
    # issue 29ah: the encoding reads KIP-320's four fixes as switches, and the cross-check has a
    # row for each one *taken away* from Kafka 2.1; none for one added to an older release, so such
    # a rule set is refused (kmc check explores it) rather than proved unchecked
    config = config_from_options(kafka_version=version, replication_factor=2,
                                 rule_changes=(change,))[0]
    with pytest.raises(ConfigError, match="need the compiled engine"):
        symbolic_model(config)
    taken_away = config_from_options(kafka_version="2.1", replication_factor=2,
                                     rule_changes=("-" + change[1:],))[0]
    require_encoded(taken_away)
    Encoder(symbolic_model(taken_away))


@pytest.mark.parametrize("setting, named", [
    # (--fetch-from-followers was refused here until issue 29bf encoded it: a KIP-320 fix added
    # to an older release is refused by every engine built on the encoding, issue 29ah)
    (["--kafka-version", "2.0", "--rule", "+fenced-fetch"], "fenced-fetch"),
    # (--consumer-commit is encoded since issue 29be: tests/symbolic/test_consumer.py)
])
def test_a_setting_the_encoding_lacks_is_refused_in_its_own_words(setting, named):
    # review s13: the oracle's refusal listed disk loss, failovers, shutdowns... as lacking (all
    # encoded now) and pointed kmc prove to --engine compiled, which it does not have
    out = CliRunner().invoke(cli, ["prove", "-r", "2", "-p", "no-acked-loss", *setting])
    assert out.exit_code == 2, out.output
    error = [line for line in out.output.splitlines() if "error" in line]
    assert len(error) == 1 and named in error[0] and "kmc check explores" in error[0]
    assert "disk-loss" not in error[0] and "--engine compiled" not in error[0]
