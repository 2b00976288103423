"""A Spark run leaves nothing of kmc's in the temp folder (issue 22): its log file and the
directory of the code it shipped go when the run ends; the log stays only after a failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.spark.conftest import needs_java

KMC = Path(sys.executable).parent / "kmc"


@needs_java
def test_a_spark_run_removes_its_log_and_code_directory(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.run(
        [str(KMC), "check", "--engine", "spark", "--spark-master", "local[1]", "-r", "2",
         "--max-records", "1", "--max-leader-epoch", "1", "-q", "-p", "no-acked-loss"],
        capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("kmc-spark"))
    assert left == [], left


def test_the_log_is_kept_after_a_failure_and_removed_otherwise(tmp_path, monkeypatch):
    from spark_explore import session

    monkeypatch.setattr(session.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(session, "_log_kept", [])
    code = tmp_path / "kmc-spark-code-x"
    code.mkdir()
    monkeypatch.setitem(session._code_dirs, "app-1", str(code))
    log = Path(session.spark_log_path())
    log.write_text("Spark's chatter")
    session._remove_temporary_files("app-1")
    assert not code.exists() and not log.exists()
    log.write_text("why it failed")
    assert session.keep_log() == str(log)
    session._remove_temporary_files()
    assert log.read_text() == "why it failed"
