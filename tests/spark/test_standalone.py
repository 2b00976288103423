"""A real standalone cluster on 127.0.0.1: a check through its master URL whose executor JVM is
killed in the middle gives the local compiled engine's answer (Spark relaunches an executor, re-runs the lost tasks and recomputes the lost blocks and shuffle output
from lineage; the figures the tasks send again replace, not add to, the first ones)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from checker.compiled import compiled_bfs
from model import Bounds, ModelConfig
from properties import get_properties
from spark_explore.session import java_available
from tests.spark.cluster import StandaloneCluster

pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(not java_available(), reason="no Java runtime: the Spark engine needs one"),
]

ROOT = Path(__file__).resolve().parents[2]
KMC = Path(sys.executable).parent / "kmc"
RUN_TIMEOUT = 240


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = StandaloneCluster(tmp_path_factory.mktemp("spark-standalone"))
    try:
        yield c.start()
    finally:
        c.stop()


def _local(config: ModelConfig, names=None) -> dict:
    return compiled_bfs(config, get_properties(names)).to_json()


def _summary(result: dict) -> dict:
    return {
        "verdicts": [(p["property"], p["verdict"], p.get("trace_length")) for p in result["properties"]],
        "distinct": result["stats"]["distinct_states"],
        "generated": result["stats"]["states_generated"],
        "depth": result["stats"]["depth"],
        "queue": result["stats"]["queue"],
        "exit_code": result["exit_code"],
        "traces": [[s["action"] for s in p["trace"]["steps"]] for p in result["properties"] if "trace" in p],
    }


DRIVER = """
import json, sys
import spark_explore  # joins the engine registry
from checker import check
from model import Bounds, ModelConfig
config = ModelConfig(protocol="hw-truncation", replication_factor=2,
                     bounds=Bounds(max_records=1, max_leader_epoch=0, max_crashes=1))
def progress(stats):
    print(f"level {stats.depth}", file=sys.stderr, flush=True)
result = check(config, None, engine="spark", master=sys.argv[1], partitions=3, progress=progress)
print(json.dumps(result.to_json()))
"""


def test_killed_executor_gives_the_same_result(cluster, tmp_path):
    config = ModelConfig(protocol="hw-truncation", replication_factor=2,
                         bounds=Bounds(max_records=1, max_leader_epoch=0, max_crashes=1))
    expected = _summary(_local(config))
    out_path = tmp_path / "result.json"
    with open(out_path, "w") as out_file:
        proc = subprocess.Popen([sys.executable, "-c", DRIVER, cluster.url], cwd=ROOT, text=True,
                                stdout=out_file, stderr=subprocess.PIPE)
    killed: list[int] = []
    lines: list[str] = []

    def watch_progress():
        for line in proc.stderr:
            lines.append(line)
            if not killed and line.startswith("level 3"):
                for pid in cluster.executors():
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)

    watcher = threading.Thread(target=watch_progress, daemon=True)
    watcher.start()
    try:
        proc.wait(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    watcher.join(timeout=5)
    assert killed, f"no executor was found to kill; driver said: {''.join(lines)[-2000:]}"
    assert proc.returncode in (0, 1), "".join(lines)[-2000:]
    assert any(line.startswith("level 4") for line in lines)  # it went on after the kill
    assert all(line.startswith("level ") for line in lines), "".join(lines)  # no JVM chatter
    result = json.loads(out_path.read_text())
    assert _summary(result) == expected
    assert result["engine"] == "spark" and cluster.url in result["notes"][0] and "3 partitions" in result["notes"][0]
    # the worker launched a replacement executor for the application (one directory each)
    apps = sorted((cluster.workdir / "work").glob("app-*"), key=lambda p: p.stat().st_mtime)
    assert len([d for d in apps[-1].iterdir() if d.is_dir()]) >= 2
