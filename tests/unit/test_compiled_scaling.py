"""The compiled engine on several workers, on disk, with 128-bit fingerprints and from checkpoints:
the same search as one worker in memory, to the state.

Small configurations have levels smaller than one slice of a batch, so these tests shrink the
slices (and the candidate buffers, and the table) to make every mechanism run: many slices per
batch handed to two workers, slices whose buffer fills up, shards flushed to disk, pending states
found on disk, checkpoints every level.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checker import INCOMPLETE, VIOLATED, check
from checker.compiled import compiled_bfs
from checker.compiled import space
from checker.compiled import search as S
from checker.compiled.warmup import ensure_compiled
from gate.suite import load_suite
from model import Bounds, ModelConfig
from model.errors import ConfigError
from tests.conftest import LOOSE
from properties import get_properties
from properties.registry import Property

ROOT = Path(__file__).resolve().parents[2]
ROWS = [c for c in load_suite(str(ROOT / "scenarios" / "known-results.toml")).checks
        if not c.liveness]  # a liveness row is checked on its own graph (checker/liveness.py)


@pytest.fixture
def small_batches(monkeypatch):
    """Slices of 24 rows with room for 320 candidates: batches of many slices even on small
    configurations, and buffers that fill up (a row can have up to 150 successors)."""
    monkeypatch.setattr(S, "SLICE_ROWS", 24)
    monkeypatch.setattr(S, "CANDIDATES", 320)
    monkeypatch.setattr(S, "INITIAL_CAPACITY", 1024)
    monkeypatch.setattr(S, "MIN_PENDING", 64)


def outcome(result) -> dict:
    """Everything a result says about the search: counts, verdicts, whole traces, coverage."""
    s = result.stats
    return {
        "distinct": s.distinct_states, "generated": s.states_generated, "depth": s.depth,
        "queue": s.queue, "limit": result.limit,
        "verdicts": {p.name: (p.verdict, [str(step.action) for step in p.trace.steps]
                              if p.trace else None) for p in result.properties},
        "coverage": result.coverage.rows if result.coverage else None,
    }


def run(spec, **options):
    props = get_properties(spec.properties or None)
    return compiled_bfs(spec.config, props, max_states=spec.max_states, max_depth=spec.max_depth,
                        coverage=True, **options)


# the two Kafka 4.1 RF=3 rows (45 s of CPU each) and the three next largest (54 s, 36 s and 27 s
# in a make test of 28 min, 2026-11-28) run in ``make test-slow`` (docs/testing.md); the 2.1 RF=3
# rows and the rest still run every mechanism in make test
SLOW_ROWS = ("Kafka 4.1 (KRaft with ELR), 3 replicas: ", "Kafka 4.1, 3 replicas, min.insync.replic",
             "KIP-903 closes KAFKA-14139: the stale br", "KIP-279, 3 replicas: the HW advances on ",
             "Kafka 3.7 (KRaft, AlterPartition, KAFKA-")


@pytest.mark.parametrize("spec", [pytest.param(r, marks=pytest.mark.slow) if r.name[:40] in SLOW_ROWS
                                  else r for r in ROWS], ids=[r.name[:40] for r in ROWS])
def test_two_workers_and_the_disk_give_one_workers_search(spec, small_batches, tmp_path):
    one = outcome(run(spec, workers=1, disk_limit=0))
    assert outcome(run(spec, workers=2, disk_limit=0)) == one
    # a memory budget far too small: the fingerprints go to sorted files after a few thousand
    # states, the frontier and the parent index to their files
    on_disk = run(spec, workers=2, memory_limit=1, disk_dir=str(tmp_path))
    assert outcome(on_disk) == one
    assert os.listdir(tmp_path) == []  # its directory is removed at the end


def test_the_disk_is_used_and_counted(small_batches, tmp_path):
    config = ModelConfig(replication_factor=3, bounds=Bounds(max_records=1, max_leader_epoch=1))
    memory = compiled_bfs(config, get_properties(None), workers=2, disk_limit=0)
    disk = compiled_bfs(config, get_properties(None), workers=2, memory_limit=1,
                        disk_dir=str(tmp_path))
    assert outcome(disk) == outcome(memory)
    assert disk.stats.disk_bytes > 0 and memory.stats.disk_bytes == 0
    note = next(n for n in disk.notes if "on disk" in n)
    assert "bytes a state" in note and "flushes" in note
    assert json.loads(json.dumps(disk.to_json()))["stats"]["disk_bytes_per_state"] > 0


def test_a_merge_to_disk_and_a_checkpoint_say_so_in_the_progress_lines(small_batches, tmp_path):
    """A merge of a large table into the sorted files takes minutes while the workers wait (the
    1e9 run of docs/scaling.md went 5-9 minutes without a line): the progress lines say what is
    going on."""
    config = ModelConfig(replication_factor=3, bounds=Bounds(max_records=1, max_leader_epoch=1))
    seen = []
    compiled_bfs(config, get_properties(None), workers=2, memory_limit=1, progress=seen.append,
                 progress_every=0.0, checkpoint_dir=str(tmp_path / "ckpt"), checkpoint_every=1)
    activities = [s.activity for s in seen if s.activity]
    assert any(a.startswith("merging the fingerprint table into the sorted files on disk, shard 1 of")
               for a in activities), activities
    assert any(a.startswith("writing checkpoint 1 to ") for a in activities), activities
    assert all(s.distinct_states > 0 for s in seen)


def test_a_disk_dir_not_made_yet_has_the_free_space_of_its_file_system(tmp_path):
    """A --disk-dir that does not exist yet once read as a full disk (no free space), so a run
    stopped INCOMPLETE at the disk limit after a few states."""
    assert space.Space(1, None, str(tmp_path / "not" / "yet")).disk_limit > 0
    assert space.free_space(str(tmp_path / "not" / "yet")) == space.free_space(str(tmp_path))


def test_a_disk_dir_beside_a_checkpoint_dir_is_refused(tmp_path):
    """Files of a checkpointed run live in the checkpoint directory: --disk-dir would be ignored."""
    config = ModelConfig(replication_factor=2, bounds=Bounds(max_records=1))
    with pytest.raises(ConfigError, match="give only --checkpoint-dir"):
        compiled_bfs(config, get_properties(None), disk_dir=str(tmp_path / "d"),
                     checkpoint_dir=str(tmp_path / "c"))


@pytest.mark.parametrize("max_states", [1, 2, 57, 1000, 4321])
def test_max_states_cuts_a_batch_where_one_worker_stops(small_batches, tmp_path, max_states):
    config = ModelConfig(replication_factor=3, bounds=Bounds(max_records=1, max_leader_epoch=1))
    props = get_properties(None)
    one = compiled_bfs(config, props, workers=1, max_states=max_states, coverage=True,
                       disk_limit=0)
    assert one.stats.distinct_states == max_states and one.limit == "max-states"
    two = compiled_bfs(config, props, workers=2, max_states=max_states, coverage=True,
                       disk_limit=0)
    disk = compiled_bfs(config, props, workers=2, max_states=max_states, coverage=True,
                        memory_limit=1, disk_dir=str(tmp_path))
    assert outcome(two) == outcome(one) == outcome(disk)


def test_every_property_violated_stops_after_the_row_one_worker_stops_after(small_batches):
    # both properties violated only with free leader moves at these bounds (LOOSE, issue 25)
    loses = ModelConfig(protocol="hw-truncation", replication_factor=3, rule_changes=LOOSE)
    props = get_properties(["no-acked-loss", "committed-consistency"])
    one = compiled_bfs(loses, props, workers=1, coverage=True, disk_limit=0)
    assert {p.verdict for p in one.properties} == {VIOLATED} and one.stats.queue > 0
    assert outcome(compiled_bfs(loses, props, workers=2, coverage=True, disk_limit=0)) == outcome(one)


def test_python_properties_cut_where_compiled_ones_would(small_batches):
    config = ModelConfig(replication_factor=3, bounds=Bounds(max_records=2))
    written = Property("at-most-one-record", "", lambda s: s.records_written < 2)
    props = [written]
    one = compiled_bfs(config, props, workers=1, disk_limit=0)
    two = compiled_bfs(config, props, workers=2, disk_limit=0)
    assert one.verdict("at-most-one-record") == VIOLATED
    assert outcome(two) == outcome(one)
    assert len(one.by_name("at-most-one-record").trace) == 2


def test_phase_1_leaves_every_workers_slice_table_empty(small_batches, monkeypatch):
    """Phase 1 empties its per-slice table of candidates by removing them in reverse order (not
    by clearing every slot): an entry left behind would drop a later slice's candidate as a
    repeat. Slices of 24 rows with room for 320 candidates also stop early, mid-slice."""
    searches = []
    explore = S.Search.explore

    def keep(self):
        searches.append(self)
        explore(self)
    monkeypatch.setattr(S.Search, "explore", keep)
    config = ModelConfig(replication_factor=3, bounds=Bounds(max_records=1, max_leader_epoch=1))
    compiled_bfs(config, get_properties(None), workers=2)
    (search,) = searches
    assert search.distinct > 10 * S.CANDIDATES
    assert all(not b.local.any() for b in search.buffers)


def test_128_bit_fingerprints_find_the_same_states_and_say_both_estimates(small_batches, tmp_path):
    config = ModelConfig(replication_factor=3, bounds=Bounds(max_records=1))
    narrow = compiled_bfs(config, get_properties(None), workers=2)
    wide = compiled_bfs(config, get_properties(None), workers=2, fp_bits=128, memory_limit=1,
                        disk_dir=str(tmp_path))
    assert outcome(wide) == outcome(narrow)
    assert wide.stats.collision_probability < narrow.stats.collision_probability * 1e-15
    assert any("128 bits" in n and "64-bit" in n for n in wide.notes)


def test_a_memory_limit_with_no_disk_stops_incomplete():
    r = check(ModelConfig(replication_factor=3, bounds=Bounds(max_records=2)), None,
              memory_limit=1, disk_limit=0)
    assert r.limit == "memory-limit" and r.exit_code == 3 and r.stats.distinct_states > 0
    assert {p.verdict for p in r.properties} == {INCOMPLETE}


def test_a_spent_disk_budget_stops_incomplete(small_batches, tmp_path):
    r = check(ModelConfig(replication_factor=3, bounds=Bounds(max_records=1, max_leader_epoch=1)),
              None, memory_limit=1, disk_limit=4096, disk_dir=str(tmp_path), workers=2)
    assert r.limit == "disk-limit" and r.exit_code == 3
    assert os.listdir(tmp_path) == []


def test_options_are_checked():
    config = ModelConfig(replication_factor=2)
    for bad in ({"workers": 0}, {"fp_bits": 96}, {"checkpoint_every": 0, "checkpoint_dir": "x"},
                {"resume": True}):
        with pytest.raises(ConfigError):
            compiled_bfs(config, get_properties(None), **bad)


# ---------------------------------------------------------------------- checkpoints

# the over-approximation's free leader moves (LOOSE, issue 25) keep this space above 200,000 states
CHECKPOINTED = ["-r", "3", "--max-records", "1", "--max-leader-epoch", "2", "--rule", "+kmc-0.1",
                "--rule", "+unordered-leader-moves", "--rule", "-leader-and-isr-in-order"]


def kmc(*args, timeout=300, **kw):
    ensure_compiled()
    exe = Path(sys.executable).with_name("kmc")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout, **kw)


def test_checkpoints_refuse_what_they_must(tmp_path):
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine")
    r = kmc("check", "-q", "-r", "2", "--checkpoint-dir", str(stray))
    assert r.returncode == 2 and "not empty" in r.stderr
    assert (stray / "notes.txt").read_text() == "mine"
    r = kmc("check", "-q", "-r", "2", "--checkpoint-dir", str(tmp_path / "none"), "--resume")
    assert r.returncode == 2 and "nothing to resume" in r.stderr
    # a run stopped by its time limit keeps its checkpoint, which refuses another configuration
    d = tmp_path / "cp"
    r = kmc("check", "-q", "--json", *CHECKPOINTED, "--checkpoint-dir", str(d),
            "--checkpoint-every", "1", "--max-states", "200000")
    assert r.returncode == 3, r.stderr
    assert (d / "kmc-checkpoint.json").exists()
    r = kmc("check", "-q", *CHECKPOINTED, "--checkpoint-dir", str(d))
    assert r.returncode == 2 and "add --resume" in r.stderr
    r = kmc("check", "-q", "-r", "3", "--max-records", "2", "--checkpoint-dir", str(d), "--resume")
    assert r.returncode == 2 and "another configuration" in r.stderr
    r = kmc("check", "-q", *CHECKPOINTED, "--checkpoint-dir", str(d), "--resume", "-p", "hw-le-leo")
    assert r.returncode == 2 and "checks properties" in r.stderr
    r = kmc("check", "-q", *CHECKPOINTED, "--checkpoint-dir", str(d), "--resume", "--fp-bits", "128")
    assert r.returncode == 2 and "64-bit" in r.stderr
    # a checkpoint of an older format (format 1: level files of uncompressed blocks) is refused
    manifest = json.loads((d / "kmc-checkpoint.json").read_text())
    (d / "kmc-checkpoint.json").write_text(json.dumps(dict(manifest, format=1)))
    r = kmc("check", "-q", *CHECKPOINTED, "--checkpoint-dir", str(d), "--resume")
    assert r.returncode == 2 and "format 1" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_run_killed_with_sigkill_resumes_to_the_same_result(tmp_path):
    whole = kmc("check", "-q", "--json", "--coverage", *CHECKPOINTED, "--workers", "2")
    expected = json.loads(whole.stdout)
    d = tmp_path / "cp"
    ensure_compiled()
    exe = Path(sys.executable).with_name("kmc")
    proc = subprocess.Popen([str(exe), "check", "--json", "--coverage", *CHECKPOINTED,
                             "--workers", "2", "--checkpoint-dir", str(d), "--checkpoint-every", "1",
                             "--memory-limit", "1"],  # on disk too: every kind of file
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:  # a few checkpoints in, then kill it mid-level
        manifest = d / "kmc-checkpoint.json"
        if manifest.exists() and json.loads(manifest.read_text())["number"] >= 6:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    resumed = kmc("check", "--json", "--coverage", *CHECKPOINTED, "--workers", "1",
                  "--checkpoint-dir", str(d), "--resume", "--memory-limit", "1")
    assert resumed.returncode == whole.returncode, resumed.stderr
    got = json.loads(resumed.stdout)
    for key in ("distinct_states", "states_generated", "depth", "queue"):
        assert got["stats"][key] == expected["stats"][key], key
    assert got["properties"] == expected["properties"]
    assert got["coverage"] == expected["coverage"]
    assert any("resumed from the checkpoint" in n for n in got["notes"])
    assert not (d / "kmc-checkpoint.json").exists() and os.listdir(d) == []  # finished: cleaned


def test_a_checkpoint_short_of_disk_merges_the_table_and_resumes_to_the_same_result(
        small_batches, tmp_path, monkeypatch):
    """With no disk to spare for a copy of the table, a checkpoint of a run whose fingerprints
    are on disk merges the table into the sorted files: the run and a resumed one still give the
    in-memory search's counts, verdicts, traces and coverage."""
    from checker.compiled import checkpoint as C
    monkeypatch.setattr(C, "TABLE_COPY_SHARE", 0.0)
    monkeypatch.setattr(space, "COMPRESS_SHARE", -1.0)  # compressed level files, resumed too
    config = ModelConfig(replication_factor=3, bounds=Bounds(max_records=1, max_leader_epoch=1))
    props = get_properties(None)
    memory = compiled_bfs(config, props, workers=2, coverage=True, disk_limit=0)
    d = tmp_path / "cp"
    stopped = compiled_bfs(config, props, workers=2, coverage=True, memory_limit=1,
                           checkpoint_dir=str(d), checkpoint_every=1, max_states=6500)
    assert stopped.limit == "max-states"
    manifest = json.loads((d / "kmc-checkpoint.json").read_text())
    assert manifest["files"]["table"] is None and any(manifest["files"]["runs"]["files"])
    assert not [name for name in os.listdir(d) if name.startswith("table-")]
    resumed = compiled_bfs(config, props, workers=1, coverage=True, memory_limit=1,
                           checkpoint_dir=str(d), resume=True)
    assert outcome(resumed) == outcome(memory)
    assert os.listdir(d) == []
