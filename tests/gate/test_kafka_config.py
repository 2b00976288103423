"""Kafka properties files in: syntax, precedence, defaults, provenance, --kafka-version."""

from __future__ import annotations

import pytest

from model.errors import ConfigError
from model.releases import parse_version
from model.rules import protocol_of
from model.kafka_config import (
    file_kind, read_properties, resolve_kafka_config,
)

SERVER = """\
# broker configuration
broker.id=0
log.dirs=/var/lib/kafka
default.replication.factor=3
min.insync.replicas=2
unclean.leader.election.enable=false
"""


def test_properties_syntax_comments_separators_escapes_continuations(write):
    path = write("server.properties", r"""
        # a hash comment
        ! a bang comment
        min.insync.replicas=2
        default.replication.factor : 3
        unclean.leader.election.enable   true
        listeners = PLAINTEXT://a:9092,\
                    PLAINTEXT://b:9092
        key\ with\ spaces = tab\there\u0041
        log.dirs=/data/kafka\\logs
    """)
    entries = read_properties(path)
    assert entries["min.insync.replicas"] == "2"
    assert entries["default.replication.factor"] == "3"
    assert entries["unclean.leader.election.enable"] == "true"
    assert entries["listeners"] == "PLAINTEXT://a:9092,PLAINTEXT://b:9092"
    assert entries["key with spaces"] == "tab\thereA"
    assert entries["log.dirs"] == "/data/kafka\\logs"
    assert not any(k.startswith(("#", "!")) for k in entries)


def test_broker_file_values_and_provenance(write):
    server = write("server.properties", SERVER)
    values, lines = resolve_kafka_config([server])
    assert values == {
        "replication_factor": 3, "min_insync_replicas": 2, "acks": "all",
        "unclean_leader_election_enable": False, "crash_model": "process",
    }
    text = "\n".join(lines)
    assert "min.insync.replicas=2" in text and f"{server}: min.insync.replicas=2" in text
    assert "acks=all" in text and "producer's default since Kafka 3.0" in text
    assert "kmc's default crash model, whatever the entry point" in text
    assert f"ignored (not modelled) in {server}: broker.id, log.dirs" in text


def test_topic_config_overrides_broker_config(write):
    server = write("server.properties", SERVER + "log.flush.interval.messages=10000\n")
    topic = write("payments.properties", """
        min.insync.replicas=3
        unclean.leader.election.enable=true
        replication.factor=4
        flush.messages=1
    """)
    # The topic file comes first on the command line: precedence is by level, not by order.
    values, lines = resolve_kafka_config([topic, server])
    assert values["min_insync_replicas"] == 3
    assert values["unclean_leader_election_enable"] is True
    assert values["replication_factor"] == 4
    assert values["crash_model"] == "process"
    text = "\n".join(lines)
    assert f"{topic} (topic config)" in text and f"{server} (broker config)" in text
    assert f"overrides min.insync.replicas=2 in {server}" in text
    # the flush policy matters only under power loss: the topic's flush.messages=1 wins there
    values, lines = resolve_kafka_config([topic, server], overrides={"crash_model": "power-loss"})
    assert values["crash_model"] == "process"
    assert f"--crash-model power-loss with {topic}: flush.messages=1: every write is fsynced" in "\n".join(lines)


def test_the_crash_model_is_process_unless_asked_and_flush_matters_only_under_power_loss(write):
    # issue 22: one set of defaults whatever the entry point; the flush policy decides only
    # what a power loss takes
    every = write("server.properties", SERVER + "log.flush.interval.messages=1\n")
    some = write("server2.properties", SERVER + "log.flush.interval.messages=5\nlog.flush.interval.ms=1000\n")
    plain = write("server3.properties", SERVER)
    for path in (every, some, plain):
        assert resolve_kafka_config([path])[0]["crash_model"] == "process"
    _, lines = resolve_kafka_config([every])
    assert lines.notes == [f"log.flush.interval.messages=1 in {every}: the flush policy matters only "
                           "under --crash-model power-loss (a power failure); with process crashes "
                           "every write survives in the page cache"]
    assert resolve_kafka_config([plain])[1].notes == []
    power = {"crash_model": "power-loss"}
    assert resolve_kafka_config([every], overrides=power)[0]["crash_model"] == "process"
    assert resolve_kafka_config([some], overrides=power)[0]["crash_model"] == "power-loss"
    assert resolve_kafka_config([plain], overrides=power)[0]["crash_model"] == "power-loss"
    _, lines = resolve_kafka_config([some], overrides=power)
    assert any("log.flush.interval.ms=1000: Kafka fsyncs at that interval; kmc has no clock" in n
               for n in lines.notes)
    assert "log.flush.interval.ms" not in "".join(l for l in lines if "ignored" in l)


def test_a_typo_of_a_modelled_key_gets_a_did_you_mean(write):
    producer = write("producer.properties", "bootstrap.servers=a:9092\nack=1\n")
    topic = write("topic.properties", "min.insync.replica=3\nunclean.leader.election.interval.ms=5\n")
    values, lines = resolve_kafka_config([producer, topic], overrides={"replication_factor": 3})
    assert values["acks"] == "all" and values["min_insync_replicas"] == 1  # as Kafka: ignored
    assert any("ack=1 is not a Kafka setting; did you mean acks?" in n for n in lines.notes)
    assert any("min.insync.replica=3 is not a Kafka setting; did you mean min.insync.replicas?" in n
               for n in lines.notes)
    text = "\n".join(lines)
    assert f"ignored (not modelled) in {producer}: bootstrap.servers" in text
    assert f"ignored (not modelled) in {topic}: unclean.leader.election.interval.ms" in text  # a real key


def test_producer_file_gives_acks_and_later_file_wins(write):
    server = write("server.properties", SERVER)
    p1 = write("producer.properties", "bootstrap.servers=a:9092\nacks=1\n")
    p2 = write("producer-2.properties", "acks=-1\n")
    assert file_kind(p1, read_properties(p1)) == "producer"
    values, lines = resolve_kafka_config([server, p1])
    assert values["acks"] == "1"
    assert "ignored (not modelled) in " + p1 + ": bootstrap.servers" in "\n".join(lines)
    assert resolve_kafka_config([server, p1, p2])[0]["acks"] == "all"


def test_missing_replication_factor_says_what_to_set(write):
    path = write("server.properties", "broker.id=1\nmin.insync.replicas=1\n")
    with pytest.raises(ConfigError, match="pass -r"):
        resolve_kafka_config([path])
    values, lines = resolve_kafka_config([path], overrides={"replication_factor": 2})
    assert "replication_factor" not in values  # the flag's value is applied by the caller
    assert any("replication.factor=2" in l and "command-line flag" in l for l in lines)


def test_a_bad_value_is_said_before_the_missing_replication_factor(write):
    # review 7: the file's bad value is the first thing to fix, not the replication factor
    path = write("server.properties", "min.insync.replicas=abc\n")
    with pytest.raises(ConfigError, match="min.insync.replicas must be a whole number, got 'abc'"):
        resolve_kafka_config([path])


@pytest.mark.parametrize("data", [b"\x7fELF\x02\x01\x01\x00\x00", b"acks=1\nfoo\x00bar=2\n",
                                  b"\x1f\x8b\x08\x00gzip"])
def test_a_binary_file_is_refused_in_one_line(kmc, tmp_path, data):
    # review 7: a binary file's bytes made keys kmc ignored as not modelled, and the run went on
    path = tmp_path / "a.out"
    path.write_bytes(data)
    r = kmc("check", "--config", path, "-r", "2", "-q")
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and "not a Kafka properties file" in r.stderr, r.stderr
    assert "a binary file?" in r.stderr and str(path) in r.stderr


def test_text_with_tabs_form_feeds_and_latin1_is_still_a_properties_file(write, tmp_path):
    path = tmp_path / "server.properties"
    path.write_bytes(b"# caf\xe9\r\n\x0cdefault.replication.factor\t=\t2\nmin.insync.replicas=1\n")
    assert read_properties(str(path))["default.replication.factor"] == "2"


def test_flags_override_files_in_provenance(write):
    server = write("server.properties", SERVER)
    _, lines = resolve_kafka_config([server], overrides={"min_insync_replicas": 1, "acks": None})
    line = next(l for l in lines if "min.insync.replicas=" in l)
    assert "command-line flag" in line and f"instead of 2 from {server}" in line


@pytest.mark.parametrize("version, protocol", [
    ("0.8", "hw-truncation"), ("0.10", "hw-truncation"), ("0.10.2", "hw-truncation"),
    ("0.11", "kip-101"), ("1.0", "kip-101"), ("1.1", "kip-101"), ("2.0", "kip-279"),
    ("2.1", "kip-320"), ("2.8.1", "kip-320"), ("3.7", "kip-320"), ("4.0", "kip-320"),
])
def test_kafka_version_picks_protocol(version, protocol):
    assert protocol_of(parse_version(version)) == protocol
    values, lines = resolve_kafka_config([], version)
    assert values == {"protocol": protocol, "kafka_version": str(parse_version(version))}
    assert any(f"--kafka-version {version}" in l for l in lines)


@pytest.mark.parametrize("bad", ["abc", "2", "2.9", "1.5", "0.7", "3.10", "4.9", "4.6", "5.1", "9.0", ""])
def test_bad_kafka_versions(bad):
    with pytest.raises(ConfigError, match="kafka-version"):
        parse_version(bad)


def test_old_versions_have_old_defaults(write):
    path = write("server.properties", "default.replication.factor=2\n")
    values, _ = resolve_kafka_config([path], "0.10")
    assert values["protocol"] == "hw-truncation"
    assert values["unclean_leader_election_enable"] is True   # KIP-106 changed it in 0.11
    assert values["acks"] == "1"                              # KIP-679 changed it in 3.0
    assert values["min_insync_replicas"] == 1
    values, _ = resolve_kafka_config([path], "3.0")
    assert values["unclean_leader_election_enable"] is False and values["acks"] == "all"


def test_bad_values_and_files_name_the_file(write, tmp_path):
    bad = write("server.properties", "default.replication.factor=3\nmin.insync.replicas=two\n")
    with pytest.raises(ConfigError, match=r"server.properties: min.insync.replicas must be a whole number, got 'two'"):
        resolve_kafka_config([bad])
    with pytest.raises(ConfigError, match="no such file"):
        resolve_kafka_config([str(tmp_path / "absent.properties")])
    flag = write("t.properties", "default.replication.factor=3\nunclean.leader.election.enable=yes\n")
    with pytest.raises(ConfigError, match="true or false"):
        resolve_kafka_config([flag])


def test_kmc_check_with_config_files(write, kmc):
    server = write("server.properties", SERVER + "log.flush.interval.messages=1\n")
    producer = write("producer.properties", "bootstrap.servers=a:9092\nacks=1\n")
    r = kmc("check", "--config", server, "--config", producer, "-r", "2",
            "--min-insync-replicas", "1", "--max-records", "1", "--max-leader-epoch", "1",
            "-p", "no-acked-loss", "-q")
    assert r.exit_code == 1, r.output
    assert "acks=1" in r.stdout and f"{producer}: acks=1" in r.stdout
    assert "crash model process" in r.stdout
    assert "ignored (not modelled)" in r.stdout
    assert "VIOLATED" in r.stdout


@pytest.mark.parametrize("args, words", [
    (["--kafka-version", "2.9"], "there is no Kafka 2.9"),
    (["--config", "/nonexistent/server.properties"], "no such file"),
])
def test_kmc_check_bad_config_input_is_one_line_exit_2(kmc, args, words):
    r = kmc("check", *args, "-q")
    assert r.exit_code == 2
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.output


def test_the_3x_elr_key_changes_3x_rules_and_is_ignored_by_kafka_4(write):
    """``eligible.leader.replicas.enable`` is KRaftConfigs.ELR_ENABLED_CONFIG in 3.7-3.9; 4.0
    replaced it with the feature eligible.leader.replicas.version (KAFKA-18062), so a 4.x file
    that sets it changes nothing, and the provenance says so (docs/kraft.md)."""
    server = write("server.properties", SERVER + "process.roles=broker\n"
                   "eligible.leader.replicas.enable=true\n")
    values, lines = resolve_kafka_config([server], "3.9")
    assert "+eligible-leader-replicas" in values["rule_changes"]
    for version in ("4.1", None):  # None: a KRaft file checks the newest release kmc models
        values, lines = resolve_kafka_config([server], version)
        assert "+eligible-leader-replicas" not in values.get("rule_changes", ())
        assert "eligible.leader.replicas.enable ignored" in "\n".join(lines)
