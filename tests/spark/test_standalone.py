"""A real standalone cluster on 127.0.0.1: a check through its master URL whose executor JVM is
killed in the middle gives the local compiled engine's answer (Spark relaunches an executor,
re-runs the lost tasks and recomputes the lost blocks and shuffle output from lineage; the
figures the tasks send again replace, not add to, the first ones)."""

from __future__ import annotations

import os
import signal

import pytest

from checker.compiled import compiled_bfs
from model import Bounds, ModelConfig
from properties import get_properties
from spark_explore import spark_bfs
from spark_explore.session import java_available
from tests.spark.cluster import StandaloneCluster
from tests.spark.test_equality import summary

pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(not java_available(), reason="no Java runtime: the Spark engine needs one"),
]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = StandaloneCluster(tmp_path_factory.mktemp("spark-standalone"))
    try:
        yield c.start()
    finally:
        c.stop()


def test_killed_executor_gives_the_same_result(cluster):
    config = ModelConfig(protocol="hw-truncation", replication_factor=2,
                         bounds=Bounds(max_records=1, max_leader_epoch=0, max_crashes=1))
    props = get_properties(["committed-consistency"])  # violated at depth 7
    killed: list[int] = []
    levels: list[int] = []

    def kill_at_level_3(stats):
        levels.append(stats.depth)
        if stats.depth == 3 and not killed:
            for pid in cluster.executors():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    result = spark_bfs(config, props, master=cluster.url, partitions=3, progress=kill_at_level_3)
    assert killed, "no executor was found to kill"
    assert 4 in levels  # it went on after the kill
    assert summary(result) == summary(compiled_bfs(config, props))
    assert result.properties[0].verdict == "VIOLATED" and len(result.properties[0].trace) == 7
    assert cluster.url in result.notes[0] and "3 partitions" in result.notes[0]
    # the worker launched a replacement executor for the application (one directory each)
    apps = sorted((cluster.workdir / "work").glob("app-*"), key=lambda p: p.stat().st_mtime)
    assert len([d for d in apps[-1].iterdir() if d.is_dir()]) >= 2
