"""Ctrl-C during ``kmc check --engine spark``, as a terminal sends it (SIGINT to the whole
process group: the JVM and the Python workers get it too): no tracebacks, the statistics of the
last finished level, every property INCOMPLETE, exit code 3, within seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.spark.conftest import needs_java
from tests.conftest import default_sigint

pytestmark = [pytest.mark.spark, needs_java]

KMC = Path(sys.executable).parent / "kmc"


def test_ctrl_c_stops_a_spark_run_with_its_statistics_and_no_traceback():
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    proc = subprocess.Popen([str(KMC), "check", "--engine", "spark", "--spark-master", "local[2]",
                             "-r", "3", "-p", "no-acked-loss"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
                            preexec_fn=default_sigint)
    started = time.monotonic()
    try:
        seen = ""
        deadline = time.monotonic() + 120
        while "depth 1," not in seen:  # a level done: the run is under way
            line = proc.stderr.readline()
            assert line and time.monotonic() < deadline, seen
            seen += line
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
        print(f"started to first level: {sent - started:.1f} s; signal to exit: {took:.1f} s")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    err = seen + err
    assert proc.returncode == 3, (out, err)
    assert took < 30
    assert "Traceback" not in err and "ERROR:root" not in err, err
    assert "INCOMPLETE: stopped at an interruption" in out and "NOT verified" in out
    assert "no-acked-loss  INCOMPLETE" in out
    distinct = int(out.split("engine spark: ")[1].split(" distinct")[0].replace(",", ""))
    assert distinct >= 5  # at least the level reported before the signal
