"""An internal error (an unexpected exception: a bug in kmc) is never a verdict: it exits 70,
not 1 (violated), says in one line on stderr that it is a bug and where its traceback went, and
writes that file under the temporary directory, never the working directory."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import cli as cli_module
from checker.result import EXIT_INTERNAL, EXIT_VIOLATED

REPO = Path(__file__).resolve().parent.parent


REQUIRED_ARGS = {"gate": ("suite.toml",), "prove": ("-p", "no-acked-loss")}
"""What a command needs to get past click's parsing to its own code (nothing is read)."""


def _boom(*args, **kwargs):
    raise RuntimeError("forced internal error (tests/test_internal_error.py)")


@pytest.mark.parametrize("name", sorted(cli_module.cli.commands))
def test_every_command_maps_an_unexpected_exception_to_exit_70(name, monkeypatch, tmp_path):
    """The mapping is in one place (the ``kmc`` group), so it holds for every command: the
    command's own code is replaced by one that raises."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # re-read TMPDIR
    command = cli_module.cli.commands[name]
    monkeypatch.setattr(command, "callback", _boom)
    args = [name, *REQUIRED_ARGS.get(name, ())]
    if hasattr(command, "commands"):  # a group: its callback runs before any subcommand's
        args.append(sorted(command.commands)[0])
    r = CliRunner().invoke(cli_module.cli, args)
    assert r.exit_code == EXIT_INTERNAL != EXIT_VIOLATED, r.output
    lines = [line for line in r.output.splitlines() if "internal error" in line]
    assert len(lines) == 1 and "bug in kmc" in lines[0] and "Traceback" not in r.output
    crashes = list(tmp_path.glob("kmc-crash-*.txt"))
    assert len(crashes) == 1 and str(crashes[0]) in lines[0]
    assert "forced internal error" in crashes[0].read_text()


_FORCE = (
    "import sys, checker, cli\n"
    "def boom(*a, **k): raise ZeroDivisionError('forced internal error')\n"
    "checker.check = boom\n"
    "import commands.check; commands.check.check = boom\n"
    "sys.argv[0] = 'kmc'\n"
    "cli.main()\n"
)


def _run_forced(args, tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    p = subprocess.run([sys.executable, "-c", _FORCE, *args], cwd=work, env=env,
                       capture_output=True, text=True, timeout=300)
    return p, work, tmp_path / "tmp"


def test_a_crash_in_a_real_check_process_exits_70_not_1(tmp_path):
    """A real process: the exception is raised where the search would run."""
    p, work, tmp = _run_forced(["check", "-r", "2", "--max-records", "1", "-q"], tmp_path)
    assert p.returncode == EXIT_INTERNAL, (p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and "internal error (ZeroDivisionError)" in p.stderr
    assert "bug in kmc" in p.stderr and "Traceback" not in p.stderr + p.stdout
    (crash,) = tmp.glob("kmc-crash-*.txt")
    assert "ZeroDivisionError: forced internal error" in crash.read_text()
    assert list(work.iterdir()) == []  # nothing written to the working directory


def test_a_crash_inside_the_gate_is_an_internal_error_in_its_junit_and_exit_70(tmp_path):
    suite = tmp_path / "suite.toml"
    suite.write_text('[[check]]\nname = "one"\nprotocol = "kip-320"\n"replication.factor" = 2\n'
                     'max-records = 1\nexpect = "holds"\n')
    junit = tmp_path / "out.xml"
    p, work, tmp = _run_forced(["gate", str(suite), "--junit", str(junit), "-q"], tmp_path)
    assert p.returncode == EXIT_INTERNAL, (p.stdout, p.stderr)
    assert "bug in kmc" in p.stdout + p.stderr
    xml = junit.read_text()
    assert 'type="internal-error"' in xml and "bug in kmc" in xml
    assert len(list(tmp.glob("kmc-crash-*.txt"))) == 1
