"""An output file that appears while kmc runs is kept without --force (issue 30: the check
before the run is repeated at the moment of writing, atomically, by linking the finished
temporary file to its name)."""

from __future__ import annotations

import pytest

from model.outputs import OutputAppeared, write_text_atomic


def test_a_file_created_during_the_run_is_kept_without_force(tmp_path):
    target = tmp_path / "trace.itf.json"
    target.write_text("the user's file")  # appeared after check_output said the name was free
    with pytest.raises(OutputAppeared, match="created by something else"):
        write_text_atomic(target, "kmc's trace", force=False)
    assert target.read_text() == "the user's file"
    assert [p.name for p in tmp_path.iterdir()] == ["trace.itf.json"]  # no temporary file left


def test_without_force_a_free_name_is_written_and_with_force_a_file_is_replaced(tmp_path):
    target = tmp_path / "out.json"
    write_text_atomic(target, "first", force=False)
    assert target.read_text() == "first"
    write_text_atomic(target, "second", force=True)
    assert target.read_text() == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_the_cli_keeps_a_file_that_appears_before_the_trace_is_written(tmp_path, monkeypatch):
    """kmc check --trace-out: the file appears after the up-front check (simulated by creating
    it inside the write): exit 2, the user's file intact, the verdict printed."""
    from click.testing import CliRunner

    import commands.check as check_cmd
    from cli import cli

    target = tmp_path / "t.itf.json"
    real = check_cmd.write_trace

    def racing_write(tmp, trace, result):
        target.write_text("written by another program")
        real(tmp, trace, result)

    monkeypatch.setattr(check_cmd, "write_trace", racing_write)
    r = CliRunner().invoke(cli, ["check", "--protocol", "hw-truncation", "-r", "2",
                                      "--max-crashes", "2", "-p", "no-acked-loss",
                                      "--trace-out", str(target)])
    assert r.exit_code == 2, r.output
    assert "VIOLATED" in r.output and "kept it" in r.output
    assert target.read_text() == "written by another program"
