"""The driver JVM in local mode: the heap kmc asks for, and a JVM that died is not reused.

CI (2026-11-27) saw an executor thread run out of Spark's default 1 GiB heap on a 3-replica
row; the OutOfMemoryError exits the whole JVM in local mode, and every later Spark test in the
process then failed on the dead context. These tests kill the JVM on purpose and ask for a new
context, and check the heap setting and who wins when the user sets one.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from spark_explore import session
from tests.spark.conftest import needs_java

pytestmark = pytest.mark.spark


def _clear_memory_settings(monkeypatch, tmp_path):
    for name in ("SPARK_DRIVER_MEMORY", "PYSPARK_SUBMIT_ARGS", "SPARK_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))


def test_local_heap_is_a_quarter_of_memory_between_1_and_4_gib():
    mib = int(session.local_driver_memory().rstrip("m"))
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    assert 1024 <= mib <= 4096
    assert mib == max(1024, min(4096, total // 4))


@pytest.mark.parametrize("how", ["env", "submit-args", "defaults-file", "conf"])
def test_a_users_driver_memory_wins(monkeypatch, tmp_path, how):
    from pyspark import SparkConf

    _clear_memory_settings(monkeypatch, tmp_path)
    conf = SparkConf(loadDefaults=False)
    assert not session._user_set_driver_memory(conf)
    if how == "env":
        monkeypatch.setenv("SPARK_DRIVER_MEMORY", "8g")
    elif how == "submit-args":
        monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--driver-memory 8g pyspark-shell")
    elif how == "defaults-file":
        (tmp_path / "spark-defaults.conf").write_text("spark.driver.memory 8g\n")
    else:
        conf.set("spark.driver.memory", "8g")
    assert session._user_set_driver_memory(conf)


def test_out_of_memory_errors_say_what_to_do():
    assert "SPARK_DRIVER_MEMORY" in session.memory_hint("java.lang.OutOfMemoryError: Java heap space")
    assert session.memory_hint("java.io.IOException: disk full") == ""


@needs_java
def test_a_context_whose_jvm_died_is_replaced_by_a_new_one(monkeypatch, tmp_path):
    from pyspark import SparkContext

    _clear_memory_settings(monkeypatch, tmp_path)
    sc, created = session.get_context("local[2]", 2)
    try:
        assert created
        asked = int(session.local_driver_memory().rstrip("m"))
        assert sc.getConf().get("spark.driver.memory") == f"{asked}m"
        max_heap_mib = sc._jvm.java.lang.Runtime.getRuntime().maxMemory() // 2**20
        assert max_heap_mib > 0.85 * asked  # the JVM was launched with it (-Xmx), not only told

        os.kill(SparkContext._gateway.proc.pid, signal.SIGKILL)  # what an executor's OOM does
        deadline = time.monotonic() + 30
        while not session.jvm_exited() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert session.jvm_exited()

        sc2, created2 = session.get_context("local[2]", 2)
        assert created2 and sc2 is not sc
        assert sc2.parallelize(range(10), 2).sum() == 45
        sc = sc2
    finally:
        session.stop_context(sc)
    assert SparkContext._active_spark_context is None
