"""A real standalone cluster on 127.0.0.1: a check through ``--spark-master`` gives the local
engine's answer, and so does a run whose executor JVM is killed in the middle (Spark relaunches
an executor, re-runs the lost tasks and recomputes the lost blocks from lineage)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from checker.bfs import bfs
from model import Bounds, ModelConfig, make_reference_model as make_model
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


def _local(config: ModelConfig) -> dict:
    return bfs(make_model(config), get_properties(None), config=config.as_dict()).to_json()


def _summary(result: dict) -> dict:
    return {
        "verdicts": [(p["property"], p["verdict"], p.get("trace_length")) for p in result["properties"]],
        "distinct": result["stats"]["distinct_states"],
        "generated": result["stats"]["states_generated"],
        "depth": result["stats"]["depth"],
        "exit_code": result["exit_code"],
    }


def test_check_through_spark_master_equals_local(cluster):
    # KIP-101 scenario territory (hw-truncation): committed-consistency is violated at depth 7
    config = ModelConfig(protocol="hw-truncation", replication_factor=2,
                         bounds=Bounds(max_records=1, max_leader_epoch=0, max_crashes=1))
    proc = subprocess.run(
        [str(KMC), "check", "--engine", "spark", "--spark-master", cluster.url, "--partitions", "3",
         "--json", "--protocol", "hw-truncation", "-r", "2", "--max-records", "1",
         "--max-leader-epoch", "0", "--max-crashes", "1", "-p", "committed-consistency"],
        capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=ROOT,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip() == ""  # no Spark or JVM chatter on the user's terminal
    result = json.loads(proc.stdout)
    assert result["engine"] == "spark"
    assert any(cluster.url in note and "3 partitions" in note for note in result["notes"])
    local = bfs(make_model(config), get_properties(["committed-consistency"])).to_json()
    spark, ours = _summary(result), _summary(local)
    assert spark["verdicts"] == ours["verdicts"] == [("committed-consistency", "VIOLATED", 7)]
    assert spark["depth"] == ours["depth"] == 7
    # every property violated: the local engine stops inside level 7, Spark at its end
    per_level = [int(x) for x in next(n for n in result["notes"] if "after each level" in n).split(":")[-1].split(",")]
    assert per_level[6] < ours["distinct"] <= spark["distinct"] == per_level[7]


DRIVER = """
import json, sys
import spark_explore  # joins the engine registry
from checker import check
from model import Bounds, ModelConfig
config = ModelConfig(protocol="hw-truncation", replication_factor=2,
                     bounds=Bounds(max_records=1, max_leader_epoch=0, max_crashes=1))
def progress(stats):
    print(f"level {stats.depth}", file=sys.stderr, flush=True)
result = check(config, None, engine="spark", master=sys.argv[1], progress=progress)
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
    assert _summary(json.loads(out_path.read_text())) == expected
    # the worker launched a replacement executor for the application (one directory each)
    apps = sorted((cluster.workdir / "work").glob("app-*"), key=lambda p: p.stat().st_mtime)
    assert len([d for d in apps[-1].iterdir() if d.is_dir()]) >= 2
