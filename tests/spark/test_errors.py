"""Spark-side set-up errors are one line on stderr and exit code 2, quickly, without a JVM."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from model.errors import ConfigError
from spark_explore.session import SparkEngineError, check_master_answers, first_line
from tests.spark.cluster import free_port

KMC = Path(sys.executable).parent / "kmc"
SMALL = ["-r", "2", "--max-records", "1", "--max-leader-epoch", "0", "--max-crashes", "1"]


def _kmc(*args, env=None):
    started = time.monotonic()
    proc = subprocess.run([str(KMC), "check", "--engine", "spark", *SMALL, *args],
                          capture_output=True, text=True, timeout=60, env=env)
    return proc, time.monotonic() - started


def test_unreachable_master_is_one_line_and_exit_2():
    port = free_port()  # nothing listens there
    proc, seconds = _kmc("--spark-master", f"spark://127.0.0.1:{port}")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert f"spark://127.0.0.1:{port} does not answer" in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout.strip() == ""
    assert seconds < 30


def test_no_java_is_one_line_and_exit_2():
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(Path(sys.executable).parent)  # the venv only: no java on it
    proc, _ = _kmc(env=env)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "needs a Java runtime" in proc.stderr


def test_master_url_errors_are_config_errors():
    with pytest.raises(ConfigError, match="malformed Spark master URL"):
        check_master_answers("spark://no-port")
    with pytest.raises(SparkEngineError, match="does not answer"):
        check_master_answers(f"spark://127.0.0.1:{free_port()},127.0.0.1:{free_port()}")
    check_master_answers("local[2]")  # not a standalone master: nothing to probe


@pytest.mark.parametrize("args, message", [
    (["--partitions", "0"], "--partitions must be between 1 and 32768"),
    (["--checkpoint-every", "0"], "--checkpoint-every must be at least 1"),
    (["--resume"], "--resume needs --checkpoint-dir"),
])
def test_bad_spark_options_are_one_line_and_exit_2(args, message):
    proc, _ = _kmc(*args)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr


def test_first_line_picks_the_python_error_out_of_a_java_trace():
    text = (
        "An error occurred while calling o52.collect.\n"
        ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 failed\n"
        "org.apache.spark.api.python.PythonException: Traceback (most recent call last):\n"
        '  File "level.py", line 60, in run\n'
        "OverflowError: a state has 70000 successors; at most 65535\n"
        "\tat org.apache.spark.api.python.BasePythonRunner.handlePythonException\n"
    )
    assert first_line(Exception(text)) == "OverflowError: a state has 70000 successors; at most 65535"
    assert first_line(Exception("Java gateway process exited\nmore")).startswith("Java gateway")
