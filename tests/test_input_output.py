"""Bad input and bad output paths, as a new user meets them: every one is refused with one line
that says the valid range or names the file, exit code 2, before any work starts; a verdict
already reached is still printed when writing a file fails; bounds too large to finish are
warned about (even with --quiet), with an estimate."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from cli import cli

TINY = ["-r", "2", "--max-records", "1", "--max-leader-epoch", "1", "-q"]
VIOLATED = ["-r", "2", "--acks", "1", "--min-insync-replicas", "1", "--max-records", "1",
            "--max-leader-epoch", "1", "-q", "-p", "no-acked-loss"]


def kmc(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_line(r, *words):
    assert r.exit_code == 2, r.output
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and all(w in lines[0] for w in words), r.stderr
    assert "Traceback" not in r.output


# --------------------------------------------------------------------------- input

@pytest.mark.parametrize("args, words", [
    # defect 6 of issue 15: these were silently ignored or meant "no limit"
    (["--kafka-version", ""], ["--kafka-version '' is not a Kafka version", "X.Y"]),
    (["--kafka-version", "2.x"], ["is not a Kafka version"]),
    (["--kafka-version", "9.1"], ["there is no Kafka 9.x"]),
    (["--protocol", ""], ["unknown protocol ''"]),
    (["--time-limit", "nan"], ["--time-limit must be a positive, finite number", "nan"]),
    (["--time-limit", "inf"], ["--time-limit must be a positive, finite number"]),
    (["--time-limit", "-1"], ["--time-limit must be a positive, finite number"]),
    (["--max-states", "0"], ["--max-states must be a whole number from 1 to"]),
    (["--max-states", "99999999999999999999"], ["--max-states must be a whole number from 1 to"]),
    (["--depth", "0"], ["--depth must be a whole number from 1 to"]),
    (["--max-records", "61"], ["bound max-records must be a whole number from 0 to 60, got 61"]),
    (["--max-leader-epoch", "99999999999999999999"], ["bound max-leader-epoch must be a whole number from 0 to 60"]),
    (["--memory-limit", "nan"], ["--memory-limit 'nan' is not a size"]),
    # review 7: 100,000 threads was an internal error (can't start new thread), exit 70
    (["--workers", "100000"], ["--workers must be from 1 to 256, got 100000"]),
    # defect 7: --max-states was silently ignored by bmc
    (["--engine", "bmc", "--depth", "3", "--max-states", "10"], ["--max-states does not apply to --engine bmc", "--depth"]),
])
def test_bad_values_are_refused_with_the_valid_range(args, words):
    one_line(kmc("check", "-r", "2", *args), *words)


@pytest.mark.parametrize("args, words", [
    (["--time-limit", "nan"], ["--time-limit must be a positive, finite number"]),
    (["--k", "0"], ["--k must be a whole number from 1 to 64"]),
    (["--max-crashes", "70"], ["bound max-crashes must be a whole number from 0 to 60"]),
])
def test_prove_refuses_the_same_way(args, words):
    one_line(kmc("prove", "-r", "2", "-p", "hw-le-leo", *args), *words)


def test_bounds_too_large_to_finish_are_warned_about_even_when_quiet():
    # defect 6: a run that could never finish started silently under -q
    r = kmc("check", "-r", "3", "--max-records", "30", "-q", "--max-states", "1000", "-p", "no-acked-loss")
    assert r.exit_code == 3, r.output
    warning = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1, r.stderr
    assert "max-records=30" in warning[0] and "distinct states" in warning[0]
    assert "an estimate extrapolated from measured smaller bounds" in warning[0]
    assert warning[0] in r.stdout  # and it is in the result too (--json keeps it in "notes")


def test_absurd_bounds_are_warned_about_in_orders_of_magnitude():
    # review s12: RF=5 60/60/60 printed "923,119,466,328,336.6 years" and said "part of it goes
    # to disk" of 2.9e17 TB
    r = kmc("check", "-r", "5", "--max-records", "60", "--max-leader-epoch", "60",
            "--max-crashes", "60", "-q", "--max-states", "1000", "-p", "no-acked-loss")
    assert r.exit_code == 3, r.output
    warning = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1, r.stderr
    assert re.search(r"about \de\+\d+ years and \de\+\d+ TB", warning[0]), warning[0]
    assert "far beyond any disk" in warning[0] and "goes to disk" not in warning[0]


def test_default_bounds_get_no_warning():
    r = kmc("check", "-r", "3", "-q", "--max-states", "1000", "-p", "no-acked-loss")
    assert r.exit_code == 3 and "warning" not in r.output


def test_graph_refuses_one_file_for_both_formats(tmp_path):
    # defect 7: --graphml g.x --dot g.x wrote one file over the other and exited 0
    out = tmp_path / "g.x"
    one_line(kmc("graph", *TINY[:-1], "--graphml", out, "--dot", out), "--graphml and --dot name the same file")
    assert not out.exists()


def test_trace_html_refuses_to_write_over_its_own_input(tmp_path):
    trace = tmp_path / "t.json"
    assert kmc("check", *VIOLATED, "--trace-out", trace).exit_code == 1
    before = trace.read_bytes()
    one_line(kmc("trace", "html", trace, "-o", trace, "--force"), "is the trace file itself")
    assert trace.read_bytes() == before


# --------------------------------------------- inter.broker.protocol.version (defect 7)

def _server(tmp_path, ibp):
    path = tmp_path / "server.properties"
    path.write_text(f"broker.id=0\ndefault.replication.factor=2\nmin.insync.replicas=2\n"
                    f"log.flush.interval.messages=1\ninter.broker.protocol.version={ibp}\n")
    return path


@pytest.mark.parametrize("ibp, protocol, rules_of", [
    ("0.10.2", "hw-truncation", "0.10"),
    ("0.11.0-IV1", "hw-truncation", "0.10"),  # before KIP-101's leader-epoch fetches (IV2)
    ("0.11.0", "kip-101", "0.11"),
    ("2.0-IV1", "kip-279", "2.0"),
    ("2.1-IV0", "kip-279", "2.0"),  # before KIP-320 (2.1-IV1)
    ("2.1-IV2", "kip-320", "2.1"),
    ("3.7", "kip-320", "3.7"),
])
def test_the_protocol_version_in_server_properties_picks_the_rules(tmp_path, ibp, protocol, rules_of):
    r = kmc("check", "--config", _server(tmp_path, ibp), *TINY[2:], "-p", "hw-le-leo")
    assert r.exit_code == 0, r.output
    row = next(line for line in r.stdout.splitlines() if line.strip().startswith("rules of Kafka"))
    assert f"rules of Kafka {rules_of} ({protocol})" in row
    assert f"inter.broker.protocol.version={ibp}" in row and "server.properties" in row
    assert f"\nKafka {rules_of}" in r.stdout  # the configuration line


def test_the_protocol_version_sets_the_rules_and_says_it_does_not_set_the_defaults(tmp_path):
    # the defaults stay 3.0's (the brokers' and producer's software may be newer than the IBP);
    # the provenance said "(no --kafka-version)" as if the file had given no release at all
    r = kmc("check", "--config", _server(tmp_path, "2.1"), *TINY[2:], "-p", "hw-le-leo")
    assert r.exit_code == 0, r.output
    row = next(line for line in r.stdout.splitlines() if line.strip().startswith("acks=all"))
    assert "no --kafka-version" not in row and "--kafka-version 2.1 would set both" in row, row
    flagged = kmc("check", "--config", _server(tmp_path, "2.1"), "--kafka-version", "2.1", *TINY[2:],
                  "-p", "hw-le-leo")
    assert "acks=1" in flagged.stdout and "before Kafka 3.0 (Kafka 2.1)" in flagged.stdout, flagged.stdout


@pytest.mark.parametrize("flag", [["--kafka-version", "2.0"], ["--protocol", "kip-101"]])
def test_the_command_line_wins_over_the_protocol_version(tmp_path, flag):
    r = kmc("check", "--config", _server(tmp_path, "0.10.2"), *flag, *TINY[2:], "-p", "hw-le-leo")
    assert r.exit_code == 0, r.output
    assert "inter.broker.protocol.version=0.10.2" in r.stdout and f"not used, {' '.join(flag)} wins" in r.stdout
    assert "hw-truncation" not in r.stdout


def test_a_malformed_protocol_version_names_the_file(tmp_path):
    path = _server(tmp_path, "2.1-beta")
    one_line(kmc("check", "--config", path, *TINY[2:]), str(path), "inter.broker.protocol.version='2.1-beta'")


# --------------------------------------------------------------------------- output

@pytest.mark.parametrize("option", ["--trace-out", "--html"])
@pytest.mark.parametrize("where", ["/proc/kmc-test-x", "/sys/kmc-test-x.html"])
def test_an_unwritable_output_is_refused_before_the_run(option, where):
    # defect 5 of issue 15: "cannot write output" after the run, without the path
    r = kmc("check", *VIOLATED, option, where)
    one_line(r, option, where, "cannot write")
    assert "VIOLATED" not in r.stdout  # nothing ran


def test_gate_refuses_an_unwritable_junit_or_cache_before_running_anything(tmp_path):
    suite = tmp_path / "s.toml"
    suite.write_text('[[check]]\nname = "x"\n"replication.factor" = 2\nmax-records = 0\n'
                     'expect = "holds"\nproperties = ["hw-le-leo"]\n')
    for args, words in ((["--junit", "/proc/x.xml"], ["--junit /proc/x.xml", "cannot write"]),
                        (["--json", "/sys/x.json"], ["--json /sys/x.json", "cannot write"]),
                        (["--cache", "/sys"], ["--cache /sys", "cannot write to it"]),
                        (["--cache", "/proc/kmc-cache"], ["--cache /proc/kmc-cache", "cannot create it"])):
        r = kmc("gate", suite, *args)
        one_line(r, *words)
        assert "[1/1]" not in r.output and "gate green" not in r.output


def test_a_failed_write_after_the_run_names_the_file_and_keeps_the_verdict(tmp_path, monkeypatch):
    # the disk fills up while the file is written: the verdict is printed first, and the
    # temporary file the write went to is gone (no partial file, no stray .kmc-tmp)
    def disk_full(path, *args):
        with open(path, "w") as f:
            f.write("half a trace")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("commands.check.write_trace", disk_full)
    out = tmp_path / "t.json"
    r = kmc("check", *VIOLATED, "--trace-out", out)
    assert r.exit_code == 2
    assert "no-acked-loss  VIOLATED" in r.stdout
    assert f"cannot write --trace-out {out}: No space left on device" in r.stderr
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr("commands.gate._write", disk_full)
    suite = tmp_path / "s.toml"
    suite.write_text('[[check]]\nname = "x"\n"replication.factor" = 2\nmax-records = 0\n'
                     'expect = "holds"\nproperties = ["hw-le-leo"]\n')
    junit = tmp_path / "old.xml"
    junit.write_text("the old report")
    r = kmc("gate", suite, "--junit", junit, "--force")
    assert r.exit_code == 2 and "gate green" in r.stdout
    assert f"cannot write --junit {junit}" in r.stderr
    assert junit.read_text() == "the old report"  # replaced only by a complete file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.xml", "s.toml"]


def test_devices_but_dev_null_are_refused_before_the_run():
    r = kmc("check", *VIOLATED, "--trace-out", "/dev/full")
    one_line(r, "--trace-out /dev/full is a device, not a regular file")
    assert "VIOLATED" not in r.stdout


def test_special_files_are_written_without_force():
    r = kmc("check", *VIOLATED, "--trace-out", "/dev/null")
    assert r.exit_code == 1 and "trace written to /dev/null" in r.stdout


def test_an_existing_file_is_still_never_overwritten_without_force(tmp_path):
    out = tmp_path / "mine.html"
    out.write_text("mine")
    one_line(kmc("check", *VIOLATED, "--html", out), "exists; pass --force")
    assert out.read_text() == "mine"
