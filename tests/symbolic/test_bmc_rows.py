"""bench/bmc_rows.py (issue 29ag): its classification of known-results rows into equal, not
reached, refused and DIFFERENT, on short rows, and mutants of a row's pin that must come out
DIFFERENT, never equal (the outcome is read off BMC's result, not off the pin)."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bmc_rows.py"
SHORT = "acks=1 loses data"  # kip-320 RF=2 acks=1: BFS's shortest loss is 4 steps


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bmc_rows", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bmc_rows"] = module  # its dataclass looks its module up by name
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("bmc_rows", None)


def row(bench, name):
    (found,) = [r for r in bench.violated_rows() if r.name == name]
    return found


def test_a_short_row_is_equal_with_every_shorter_depth_refuted(bench):
    r = row(bench, SHORT)
    assert r.trace_length == 4
    o = bench.classify(r, "no-acked-loss", 60)
    assert o.outcome == bench.EQUAL, o.detail
    assert o.length == 4 and o.refuted == 3


def test_a_disk_loss_row_is_taken_and_a_retries_row_refused_naming_the_dimension(bench):
    # the disk-loss row is encoded since issue 29aj: in 2 s BMC refutes the first depths and
    # stops short of BFS's 17 steps (not refused, and never DIFFERENT)
    disk = row(bench, "KAFKA-14139: a replaced disk put back in the ISR by a stale AlterPartition "
                      "(KRaft without KIP-903)")
    o = bench.classify(disk, "no-acked-loss", 2)
    assert o.outcome == bench.NOT_REACHED and o.dimensions == [], o.detail
    # the retries are encoded since issue 29aq and no-duplicates has a z3 formula since 29as; the
    # consumer and its two properties since issue 29be (its rows come out equal: docs/symbolic.md,
    # "The consumer in the proof"): a row is refused for its property while one is left without
    # a formula (no-read-loss, what consumers read)
    consumer = row(bench, "A consumer that commits after processing processes a record twice "
                          "after a crash")
    assert bench.refusals(consumer.config, consumer.violates[0]) == []
    from checker.symbolic.formulas import FORMULAS
    from properties.liveness import LIVENESS
    reads = [r for r in bench.violated_rows() if r.violates[0] not in FORMULAS
             and r.violates[0] not in LIVENESS]
    for r in reads[:1]:
        o = bench.classify(r, r.violates[0], 60)
        assert o.outcome == bench.REFUSED and "property" in o.dimensions, o.detail


def test_a_mutant_rule_set_is_taken_not_refused(bench):
    # Kafka 2.1 with a KIP-320 fix taken away (issue 29ah: the fix is a switch of the encoding):
    # BMC runs on it; in 2 s it refutes the first depths and stops short of BFS's 11 steps
    r = row(bench, "what KIP-320 fencing protects: Kafka 2.1 without fenced fetches")
    o = bench.classify(r, "committed-consistency", 2)
    assert o.outcome == bench.NOT_REACHED and o.dimensions == []
    assert o.refuted < 11 and "budget ran out" in o.detail  # short of BFS's 11, honestly said


def test_a_pin_edited_shorter_is_different_never_equal(bench):
    # BFS's 4 steps pinned as 3: BMC refutes depths 0 to 3, so there is no trace of the pinned
    # length, and the bench must say the engines disagree
    r = replace(row(bench, SHORT), trace_length=3)
    o = bench.classify(r, "no-acked-loss", 60)
    assert o.outcome == bench.DIFFERENT and o.length is None and o.refuted == 3
    assert "no counterexample" in o.detail


def test_a_pin_edited_longer_is_different_a_shorter_trace(bench):
    r = replace(row(bench, SHORT), trace_length=5)
    o = bench.classify(r, "no-acked-loss", 60)
    assert o.outcome == bench.DIFFERENT and o.length == 4
    assert "shorter" in o.detail


def test_a_budget_too_small_is_not_reached_with_the_depth_refuted(bench):
    r = row(bench, "KIP-101 scenario 1: truncation to a stale HW loses an acked record")
    assert r.trace_length == 10
    o = bench.classify(r, "no-acked-loss", 0.5)
    assert o.outcome == bench.NOT_REACHED and o.length is None
    assert o.refuted < 10 and "budget ran out" in o.detail


def test_main_exits_1_on_a_different_row_and_0_on_an_equal_one(bench, tmp_path, capsys):
    suite = tmp_path / "suite.toml"
    suite.write_text('name = "mutant"\n[[check]]\nname = "acks=1 pinned one step short"\n'
                     'protocol = "kip-320"\n"replication.factor" = 2\nacks = "1"\n'
                     '"min.insync.replicas" = 1\nmax-records = 2\nmax-leader-epoch = 2\n'
                     'max-crashes = 1\nexpect = "violated"\nviolates = "no-acked-loss"\n'
                     'trace-length = 3\nrests-on = "regression-pin: a mutant of a test"\n')
    assert bench.main(["--suite", str(suite)]) == 1
    out = capsys.readouterr().out
    assert "DIFFERENT: BMC refuted every depth up to 3" in out
    assert "DIFFERENT 1" in out
    assert bench.main(["--rows", SHORT, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"] == {"equal": 1, "not reached": 0, "refused": 0, "DIFFERENT": 0}
    assert doc["rows"][0]["length"] == 4


@pytest.mark.parametrize("argv", [["--rows", "no row is called this"], ["--budget", "0"],
                                  ["--budget", "nan"], ["--suite", "/nonexistent/suite.toml"]])
def test_bad_input_is_one_line_exit_2(bench, argv, capsys):
    assert bench.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bmc_rows: ")


@pytest.mark.parametrize("argv", [["--budget", "abc"], ["--rows", ""], ["--rows", "  "],
                                  ["--nope"]])
def test_argparse_errors_and_an_empty_row_filter_are_one_line_exit_2(bench, argv, capsys):
    # argparse printed its usage and a second line; an empty --rows matched every row (review s12)
    try:
        code = bench.main(argv)
    except SystemExit as e:
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bmc_rows: ")


def test_the_kip_841_row_is_equal_since_its_property_has_a_formula(bench):
    # issue 29ai: isr-members-eligible has a z3 formula; the row was refused for want of one
    r = row(bench, "without KIP-841: the controller puts a shutting-down broker back in the ISR "
                   "(Kafka 3.9, isr-eligibility off)")
    assert bench.refusals(r.config, "isr-members-eligible") == []
    o = bench.classify(r, "isr-members-eligible", 300)
    assert o.outcome == bench.EQUAL, o.detail
    assert o.length == 7 and o.refuted == 6
