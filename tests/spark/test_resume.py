"""Checkpoints: a run whose driver is killed resumes from its checkpoint directory with the local
engine's answer; a checkpoint is never overwritten or resumed with other options by mistake."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checker.compiled import compiled_bfs
from gate.suite import load_suite
from model import ModelConfig
from properties import get_properties
from spark_explore import spark_bfs
from spark_explore.session import SparkEngineError
from tests.spark.conftest import ROOT
from tests.spark.test_equality import summary

pytestmark = pytest.mark.spark

KMC = Path(sys.executable).parent / "kmc"
CONFIG = ModelConfig(protocol="kip-320", replication_factor=2)
ROW = "KIP-101: the loss left is a longer, fast-leader-change trace"  # 17 levels: time to kill it
WAIT = 120


def test_a_run_resumes_after_its_driver_dies(spark_context, tmp_path):
    checkpoints = tmp_path / "checkpoints"
    row = next(c for c in load_suite(str(ROOT / "scenarios" / "known-results.toml")).checks if c.name == ROW)
    proc = subprocess.Popen(
        [str(KMC), "check", "--engine", "spark", "--spark-master", "local[2]", "--protocol", "kip-101",
         "-r", "2", "--max-leader-epoch", "6", "--max-preferred-elections", "3", "--max-reassignments", "3",
         "-p", "no-acked-loss", "--checkpoint-dir", str(checkpoints),
         "--checkpoint-every", "2"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + WAIT
    try:
        while not list(checkpoints.glob("kmc-level-*.json")):
            assert proc.poll() is None and time.monotonic() < deadline, "no checkpoint was written"
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)  # the driver dies; its Spark JVM goes with it
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert all(line.startswith("progress:") for line in err.splitlines()), err  # no JVM chatter

    props = get_properties(["no-acked-loss"])
    resumed = spark_bfs(row.config, props, checkpoint_dir=str(checkpoints), resume=True)
    assert summary(resumed) == summary(compiled_bfs(row.config, props))
    assert resumed.properties[0].verdict == "VIOLATED" and len(resumed.properties[0].trace) == 17
    level = int(next(n for n in resumed.notes if "resumed from" in n).split("level ")[1].split()[0])
    assert level >= 2 and level % 2 == 0
    assert not any(checkpoints.iterdir())  # a finished search removes its checkpoint


def _manifest(directory: Path, config: ModelConfig) -> None:
    directory.mkdir()
    (directory / "kmc-level-000004.json").write_text(json.dumps({
        "format": 1, "level": 4, "config": config.as_dict(), "properties": ["no-acked-loss"],
    }))


def test_an_existing_checkpoint_is_not_overwritten_without_resume(spark_context, tmp_path):
    _manifest(tmp_path / "c", CONFIG)
    with pytest.raises(SparkEngineError, match=r"holds a checkpoint of a run \(level 4\); add --resume"):
        spark_bfs(CONFIG, get_properties(["no-acked-loss"]), checkpoint_dir=str(tmp_path / "c"))
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["kmc-level-000004.json"]


def test_resuming_with_other_options_is_refused(spark_context, tmp_path):
    _manifest(tmp_path / "c", CONFIG)
    other = ModelConfig(protocol="kip-320", replication_factor=2, acks="1", min_insync_replicas=1)
    with pytest.raises(SparkEngineError, match="another configuration .*acks"):
        spark_bfs(other, get_properties(["no-acked-loss"]), checkpoint_dir=str(tmp_path / "c"), resume=True)
    with pytest.raises(SparkEngineError, match="nothing to resume"):
        spark_bfs(CONFIG, get_properties(["no-acked-loss"]), checkpoint_dir=str(tmp_path / "empty"), resume=True)
