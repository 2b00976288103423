"""The proof ledger (``scenarios/proofs.toml``, ``commands/proofs.py``): every row is a command ``kmc
prove`` takes, docs/proofs.md shows the ledger as it is, the runner judges a run against a row
and stops a row at its time limit, and a broken ledger is one line and exit code 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checker.symbolic.outcome import ProofResult, SearchRun
from commands import proofs
from commands.proofs import (AS_EXPECTED, DIFFERENT, ERROR, ROOT, UNDECIDED, LedgerError, ProofRow, check_row,
                         check_sections, judge, load, main, render_markdown, run_row)

LEDGER = ROOT / "scenarios" / "proofs.toml"
DOCS = ROOT / "docs" / "proofs.md"
BEGIN, END = "<!-- ledger: begin (python -m commands.proofs --markdown) -->", "<!-- ledger: end -->"

# the quickest row there is: kmc 0.1's rule at one record, PROVED in about 3 s
QUICK = ("--protocol kip-320 --rule +kmc-0.1 -r 2 --max-records 1 -p no-acked-loss -s all "
         "--search none")


def row(**changes) -> ProofRow:
    base = dict(id="quick", what="kmc 0.1's kip-320, 1 record", argv=QUICK, expect="PROVED",
                section="x", measured="x", minutes=1.0, invariants=110, steps=None)
    return ProofRow(**{**base, **changes})


def test_every_row_of_the_ledger_is_a_command_kmc_prove_takes():
    rows = load(LEDGER)
    assert len(rows) >= 30
    check_sections(rows)
    for r in rows:
        check_row(r)  # the checks prove makes before z3 starts (induction.check_request)
    assert {r.expect for r in rows} >= {"PROVED", "VIOLATED"}


def test_docs_proofs_md_shows_the_ledger_as_it_is():
    text = DOCS.read_text(encoding="utf-8")
    assert BEGIN in text and END in text
    shown = text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    assert shown == render_markdown(load(LEDGER)), (
        "docs/proofs.md's table is not the ledger's: regenerate it with "
        "`python -m commands.proofs --markdown` between the two markers")


def test_a_row_kmc_prove_would_refuse_fails_the_check():
    with pytest.raises(LedgerError, match="unknown property or strengthening invariant 'nosuch'"):
        check_row(row(argv="-r 2 -p nosuch"))
    with pytest.raises(LedgerError, match="kmc prove would refuse its argv"):
        check_row(row(argv="-r 2 -p no-acked-loss --no-such-option"))
    with pytest.raises(LedgerError, match="min.insync.replicas"):
        check_row(row(argv="-r 2 --min-insync-replicas 3 -p no-acked-loss"))
    with pytest.raises(LedgerError, match="is no '### ' heading"):
        check_sections([row(section="No such section")])


def test_judge_says_what_differs():
    ok = {"status": "PROVED", "invariants": 110}
    assert judge(row(), ok).outcome == AS_EXPECTED
    assert judge(row(), {**ok, "invariants": 111}).notes == ["111 invariants (the ledger's run: 110)"]
    inconclusive = judge(row(), {"status": "INCONCLUSIVE", "invariants": 110})
    assert (inconclusive.outcome, inconclusive.detail) == (DIFFERENT, "INCONCLUSIVE, expected PROVED")
    closed = judge(row(expect="INCONCLUSIVE"), ok)
    assert closed.outcome == DIFFERENT and "gap the ledger reports is closed" in closed.detail
    violated = row(expect="VIOLATED", steps=10)
    assert judge(violated, {"status": "VIOLATED", "trace_length": 10}).outcome == AS_EXPECTED
    longer = judge(violated, {"status": "VIOLATED", "trace_length": 12})
    assert longer.outcome == DIFFERENT and "12 steps, expected 10" in longer.detail
    assert judge(row(), {"status": "UNKNOWN"}).outcome == UNDECIDED
    assert judge(row(), None, "no answer within its time limit").outcome == UNDECIDED


def test_a_proofs_outcome_as_json():
    result = ProofResult("no-acked-loss", ["a", "b"], 1, "HOLDS", 2.5, phase="search",
                         settled_by="bfs", searches=[SearchRun("bfs", "holds", 7, 0.4, states=99)])
    data = result.to_json({"replication_factor": 2})
    assert (data["status"], data["exit_code"], data["invariants"]) == ("HOLDS", 0, 2)
    assert data["searches"][0]["states"] == 99 and data["config"] == {"replication_factor": 2}
    assert "cti" not in data and "trace" not in data


def test_a_row_past_its_time_limit_is_stopped_with_its_process_group(monkeypatch):
    started = []
    real = subprocess.Popen

    def popen(*args, **kwargs):
        proc = real(*args, **kwargs)
        started.append(proc)
        return proc

    monkeypatch.setattr(proofs.subprocess, "Popen", popen)
    # a proof of minutes (2.1, RF=3, 3 records): it cannot end on its own before it is stopped
    long = ("--kafka-version 2.1 -r 3 --max-records 3 --max-leader-epoch 3 --max-crashes 2 "
            "-p no-acked-loss -s all --search none")
    out = run_row(row(argv=long), timeout=0.3, grace=0)  # (no grace: the runner stops it)
    assert out.outcome == UNDECIDED and "time limit (0 s); stopped" in out.detail
    (proc,) = started
    assert proc.returncode is not None  # reaped
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # the whole group is gone


@pytest.mark.parametrize("text, says", [
    ("", "no [[proof]] rows"),
    ("[[proof]]\nid = 'x'\n", "no 'what'"),
    ("[[proof]\n", "not valid TOML"),
    ("[other]\n", "unknown top-level key 'other'"),
    (f"[[proof]]\nid='a'\nwhat='w'\nargv='{QUICK}'\nexpect='MAYBE'\nsection='s'\nmeasured='m'\nminutes=1\n",
     "expect must be one of"),
    (f"[[proof]]\nid='a'\nwhat='w'\nargv='{QUICK} --json'\nexpect='PROVED'\nsection='s'\nmeasured='m'\nminutes=1\n",
     "argv holds --json, which the runner adds itself"),
    (f"[[proof]]\nid='a'\nwhat='w'\nargv='{QUICK}'\nexpect='PROVED'\nsection='s'\nmeasured='m'\nminutes=1\nsteps=3\n",
     "'steps' is a counterexample's length"),
    (f"[[proof]]\nid='a'\nwhat='w'\nargv='-r 2 -p nosuch'\nexpect='PROVED'\nsection='s'\nmeasured='m'\nminutes=1\n",
     "kmc prove would refuse it"),
])
def test_a_broken_ledger_is_one_line_and_exit_2(tmp_path, capsys, text, says):
    path = tmp_path / "ledger.toml"
    path.write_text(text, encoding="utf-8")
    # (a row kmc prove would refuse is caught by --dry-run, before anything runs)
    assert main([str(path), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and says in err, err
    assert "Traceback" not in err


SECTION = "The proof ledger, and issue 29's own command (lead, 2026-11-29)"  # a real heading


def ledger_of(tmp_path, argv=QUICK, expect="PROVED", name="ledger.toml") -> Path:
    path = tmp_path / name
    path.write_text(f"[[proof]]\nid='quick'\nwhat='w'\nargv='{argv}'\nexpect='{expect}'\n"
                    f"section=\"{SECTION}\"\nmeasured='m'\nminutes=1\n", encoding="utf-8")
    return path


def test_missing_ledger_and_bad_options_are_one_line_and_exit_2(tmp_path, capsys):
    ledger = ledger_of(tmp_path)  # (if a check below regressed, only this 3-second row would run)
    assert main([str(tmp_path / "none.toml"), "--dry-run"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main([str(LEDGER), "--rows", "no-row-is-called-this", "--dry-run"]) == 2
    assert "matches no row" in capsys.readouterr().err
    assert main([str(LEDGER), "--rows", " ", "--dry-run"]) == 2
    assert "--rows needs some text" in capsys.readouterr().err
    assert main([str(ledger), "--timeout", "abc"]) == 2  # argparse's own error: one line too
    assert capsys.readouterr().err.count("\n") == 1
    assert main([str(ledger), "--timeout", "-1"]) == 2
    assert "--timeout must be above 0" in capsys.readouterr().err
    assert main([str(LEDGER), "--markdown", "--json", str(tmp_path / "x.json")]) == 2
    assert "--markdown and --dry-run run nothing" in capsys.readouterr().err
    existing = tmp_path / "out.json"
    existing.write_text("mine", encoding="utf-8")
    assert main([str(ledger), "--json", str(existing)]) == 2  # not overwritten without --force
    assert existing.read_text(encoding="utf-8") == "mine"
    assert main([str(ledger), "--max-minutes", "0.5"]) == 3  # every row costs more: none run
    assert "no row was run" in capsys.readouterr().out


@pytest.mark.parametrize("code, says", [(1, "kmc prove failed (exit 1)"),
                                        (2, "kmc prove refused the row (exit 2)")])
def test_a_prove_that_ends_without_a_result_is_an_error(tmp_path, code, says):
    fake = tmp_path / "python"  # stands in for the interpreter: no JSON, one line, an exit code
    fake.write_text(f"#!/bin/sh\necho 'Traceback: it broke' >&2\nexit {code}\n", encoding="utf-8")
    fake.chmod(0o755)
    out = run_row(row(), python=str(fake))
    assert out.outcome == ERROR and says in out.detail and "it broke" in out.detail


def test_sigterm_to_the_runner_stops_the_row_and_keeps_what_it_did(tmp_path):
    # a proof of minutes, marked by a --bmc-depth no other run uses, so the test can look for it
    marker = "--bmc-depth 57"
    ledger = ledger_of(tmp_path, argv="--kafka-version 2.1 -r 3 --max-records 3 --max-leader-epoch 3 "
                                      f"--max-crashes 2 -p no-acked-loss -s all {marker}")
    report = tmp_path / "run.json"
    runner = subprocess.Popen([sys.executable, "-m", "commands.proofs", str(ledger), "--json", str(report)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "running:" in runner.stdout.readline()  # (the row has started)
        deadline = time.monotonic() + 30
        while not _running(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _running(marker)
        runner.send_signal(signal.SIGTERM)
        out, err = runner.communicate(timeout=60)
    finally:
        if runner.poll() is None:
            runner.kill()
        subprocess.run(["pkill", "-f", f"cli prove .*{marker}"])  # (a failed test leaves no proof)
    assert runner.returncode == 3, (out, err)
    assert "interrupted: 1 of 1 rows not run" in out and "Traceback" not in err
    assert not _running(marker)  # the row's kmc prove, in its own process group, is gone
    assert json.loads(report.read_text(encoding="utf-8"))["interrupted"] is True


def _running(marker: str) -> bool:
    return subprocess.run(["pgrep", "-f", f"cli prove .*{marker}"], capture_output=True).returncode == 0


@pytest.mark.slow
def test_a_row_runs_for_real_and_is_judged(tmp_path):
    # the real kmc prove, as its own process: PROVED as the row expects; the same answer
    # against a row that expects a violation is DIFFERENT, and the runner's exit code says so
    out = run_row(row())
    assert (out.outcome, out.status, out.invariants) == (AS_EXPECTED, "PROVED", 110), out
    assert out.wall_seconds > 0 and out.cpu_seconds > 0
    ledger = ledger_of(tmp_path, expect="VIOLATED")
    report = tmp_path / "out.json"
    assert main([str(ledger), "--json", str(report)]) == 1
    (done,) = json.loads(report.read_text(encoding="utf-8"))["rows"]
    assert (done["outcome"], done["expect"], done["status"]) == ("DIFFERENT", "VIOLATED", "PROVED")
