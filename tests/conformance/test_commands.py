"""``kmc conformance`` and ``kmc trace run --cluster`` without a cluster: bad input is one line
and exit 2 before any JVM starts; a machine without the jars says so and exits 3."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli import cli


def kmc(*args, env=None):
    return CliRunner().invoke(cli, list(args), env=env)


def test_list_names_every_scenario_and_release():
    r = kmc("conformance", "list")
    assert r.exit_code == 0
    for name in ("acks1-failover", "unclean-election", "acks-all-random", "elr-last-isr", "follower-leo",
                 "last-replica-standing", "kafka-19522"):
        assert name in r.output
    assert "4.1 -> 4.1.2" in r.output


def test_unknown_scenario_and_version_are_usage_errors():
    r = kmc("conformance", "run", "nosuch")
    assert r.exit_code == 2 and "unknown scenario 'nosuch'" in r.output
    r = kmc("conformance", "run", "acks1-failover", "--kafka-version", "3.1")
    assert r.exit_code == 2 and "unknown Kafka version '3.1'" in r.output


def test_trace_run_needs_cluster_and_a_kraft_trace(tmp_path):
    zk = tmp_path / "zk.itf.json"
    r = kmc("trace", "run", str(zk))
    assert r.exit_code == 2 and "needs --cluster" in r.output
    r = kmc("trace", "run", "--cluster", str(tmp_path / "missing.itf.json"))
    assert r.exit_code == 2
    r = kmc("check", "-q", "--protocol", "hw-truncation", "-r", "2", "--max-crashes", "2", "-p", "no-acked-loss",
            "--trace-out", str(zk))
    assert r.exit_code == 1
    r = kmc("trace", "run", "--cluster", str(zk), "--out", str(tmp_path / "runs"))
    assert r.exit_code == 2 and "only KRaft traces" in r.output, r.output


def test_no_jars_and_no_maven_is_exit_3_with_one_line(tmp_path):
    trace = tmp_path / "t.itf.json"
    r = kmc("check", "-q", "--kafka-version", "4.1", "-r", "2", "--acks", "1", "--min-insync-replicas", "1",
            "-p", "no-acked-loss", "--trace-out", str(trace))
    assert r.exit_code == 1
    assert json.loads(trace.read_text())["#meta"]["kmc"]["config"]["kafka.version"] == "4.1"
    env = {"KMC_KAFKA_CACHE": str(tmp_path / "empty-cache"), "PATH": str(tmp_path)}   # no java, no mvn
    r = kmc("trace", "run", "--cluster", str(trace), "--out", str(tmp_path / "runs"), env=env)
    assert r.exit_code == 3
    assert "cannot run Kafka 4.1: no java on PATH" in r.output


def test_validate_of_a_directory_that_is_not_a_run_says_so_in_one_line(tmp_path):
    (tmp_path / "notes.txt").write_text("not a run")
    r = kmc("conformance", "validate", str(tmp_path))
    assert r.exit_code == 2
    assert "is not a run directory: it holds no events.jsonl" in r.output, r.output
    assert "Errno" not in r.output


def test_validate_of_a_file_that_is_not_a_run_names_it(tmp_path):
    # review 7: an empty file said "result.json: missing", naming neither the file nor why
    given = tmp_path / "empty"
    given.write_text("")
    r = kmc("conformance", "validate", str(given))
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    assert f"{given}: not a run of the harness: no {tmp_path / 'result.json'} beside it" in r.output


@pytest.mark.parametrize("content, words", [
    (b"\xff\xfe\n", "is not UTF-8 text (byte 0 is 0xff)"),
    (b"[" * 100_000 + b"]" * 100_000 + b"\n", "line 1 is not JSON"),  # a RecursionError before
    (None, "too large for a run's events.jsonl"),  # /dev/zero: review 7 found it hung for ever
])
def test_validate_of_a_hostile_events_file_is_one_line(tmp_path, monkeypatch, content, words):
    from conformance import projection
    monkeypatch.setattr(projection, "MAX_EVENTS_BYTES", 2**20)
    given = "/dev/zero"
    if content is not None:
        given = tmp_path / "events.jsonl"
        given.write_bytes(content)
    r = kmc("conformance", "validate", str(given))
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    assert words in r.output and "Traceback" not in r.output
