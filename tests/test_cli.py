"""The command line: exit codes a CI can trust, one-line errors, Kafka-named options."""

import json

import pytest
from click.testing import CliRunner

from cli import cli

SMALL = ["-r", "2", "--max-records", "1", "--max-leader-epoch", "1", "-q"]


def kmc(*args):
    return CliRunner().invoke(cli, list(args))


def test_violated_exits_1_and_prints_the_counterexample():
    # KIP-101 scenario 1 as the KIP tells it: two crashes (no free leader move since issue 25)
    r = kmc("check", "--protocol", "hw-truncation", "-r", "2", "--max-crashes", "2", "-q",
            "-p", "no-acked-loss")
    assert r.exit_code == 1
    assert "no-acked-loss  VIOLATED  shortest counterexample: 10 steps" in r.output
    assert "truncates its log to its high watermark 0 (drops r1)" in r.output
    assert "bounds: max-records=2, max-leader-epoch=2, max-crashes=2" in r.output


def test_holding_exits_0_and_says_what_was_explored():
    r = kmc("check", *SMALL)
    assert r.exit_code == 0, r.output
    assert "distinct states" in r.output and "HOLDS" in r.output and "VIOLATED" not in r.output


def test_a_limit_exits_3_and_never_says_holds():
    r = kmc("check", "-r", "2", "-q", "--max-states", "500")
    assert r.exit_code == 3
    assert "INCOMPLETE" in r.output and "HOLDS" not in r.output


def test_json_output_is_the_result_object():
    r = kmc("check", *SMALL, "--acks", "1", "--min-insync-replicas", "1", "--json", "-p", "no-acked-loss")
    data = json.loads(r.output)
    assert r.exit_code == data["exit_code"] == 1
    assert data["properties"][0]["verdict"] == "VIOLATED"
    assert data["config"]["acks"] == "1" and data["config"]["bounds"]["max_records"] == 1
    assert data["properties"][0]["trace_length"] == len(data["properties"][0]["trace"]["steps"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--protocol", "kip-999"], "unknown protocol 'kip-999'"),
        (["-r", "2", "--min-insync-replicas", "3"], "min.insync.replicas=3 is larger than the replication factor 2"),
        (["--max-records", "-1"], "bound max-records must be a whole number from 0 to 60, got -1"),
        (["--max-records", "99999999999999999999"], "bound max-records must be a whole number from 0 to 60"),
        (["-p", "no-such-property"], "unknown property 'no-such-property'"),
        # a typo'd liveness name: the list offered names the liveness properties too
        (["-p", "writes-eventualy-accepted"], "or a liveness property: leader-eventually"),
        (["-r", "9"], "replication factor must be between 2 and 5"),
        (["--acks", "2"], "Invalid value for '--acks'"),
        (["--partitions", "4"], "--spark-master and --partitions need --engine spark"),
        (["--resume"], "--resume and --checkpoint-every need --checkpoint-dir"),
        (["--checkpoint-every", "2"], "--resume and --checkpoint-every need --checkpoint-dir"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    r = kmc("check", *args)
    assert r.exit_code == 2
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("args, prefix", [
    # review 7: a library's error (KmcError) said "kmc: error:", click's "kmc check: error:"
    (["check", "--protocol", "kip-999"], "kmc check: error: "),                  # KmcError
    (["check", "--acks", "2"], "kmc check: error: "),                            # click's usage error
    (["simulate", "-r", "9"], "kmc simulate: error: "),
    (["--load", "json", "advise", "-r", "2", "--min-insync-replicas", "7"], "kmc advise: error: "),
    (["trace", "show", "/nonexistent.itf.json"], "kmc trace show: error: "),
    (["gate", "/nonexistent.toml"], "kmc gate: error: "),
    (["no-such-command"], "kmc: error: "),
])
def test_every_error_line_starts_with_the_commands_name(args, prefix):
    r = kmc(*args)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith(prefix) and r.stderr.count("\n") == 1, r.stderr


def test_trace_out_refuses_to_overwrite_without_force(tmp_path):
    out = tmp_path / "t.json"
    out.write_text("mine")
    r = kmc("check", *SMALL, "--acks", "1", "--min-insync-replicas", "1", "--trace-out", str(out))
    assert r.exit_code == 2 and out.read_text() == "mine"
    r = kmc("check", *SMALL, "--acks", "1", "--min-insync-replicas", "1", "--trace-out", str(out), "--force")
    assert r.exit_code == 1 and out.read_text() != "mine"


def test_list_shows_protocols_with_kafka_versions_and_properties():
    r = kmc("list")
    assert r.exit_code == 0
    for word in ("hw-truncation", "kip-101", "kip-279", "kip-320", "Kafka 2.1", "no-acked-loss", "hw-le-leo"):
        assert word in r.output


def test_a_user_property_from_a_file_appears_in_list_and_can_be_checked(tmp_path):
    plugin = tmp_path / "my_props.py"
    plugin.write_text(
        "from properties import invariant\n"
        "@invariant('at-most-one-record', 'the producer wrote at most one record')\n"
        "def at_most_one(state):\n"
        "    return state.records_written <= 1\n"
    )
    r = kmc("--load", str(plugin), "list")
    assert "at-most-one-record" in r.output
    r = kmc("--load", str(plugin), "check", "-r", "2", "-q", "-p", "at-most-one-record")
    assert r.exit_code == 1 and "shortest counterexample: 2 steps" in r.output


@pytest.mark.parametrize("growing, said", [(True, True), (False, False)])
def test_levels_still_growing_is_said_only_while_true(capsys, growing, said):
    # review 7: Spark's progress said it on its last level, which was shrinking
    from checker.result import CheckStats
    from commands.check import _progress_line
    stats = CheckStats(1000, 900, 7, 50, seconds=120.0, levels_growing=growing)
    _progress_line(stats)
    assert ("levels still growing" in capsys.readouterr().err) == said


def test_an_estimate_after_whole_levels_only_once_they_shrink():
    from checker.compiled.progress import level_eta
    assert level_eta(100, 100, 10.0) is None and level_eta(100, 400, 10.0) is None
    # 50 then 25, 12.5 ...: 100 states to come at 10 states/s
    assert level_eta(100, 50, 10.0) == pytest.approx(10.0)

