"""Checkpoints of the compiled engine: stop a long run (or lose it to a crash) and go on later.

``--checkpoint-dir DIR`` makes DIR the run's working directory (the files that go to disk when
memory is short live there) and, between two levels, every ``--checkpoint-every`` levels (by
default the first level boundary ten minutes after the last checkpoint), the engine writes
there what the search needs to go on:

* the level about to be expanded (``level-<d>.bin``) and the states to skip in it,
* the parent index (``parents.bin``, append-only: the checkpoint records its length),
* the fingerprints: the sorted files on disk (``fps-<shard>-<generation>.bin``, never changed
  once written) and a copy of the in-memory table (``table-<n>.npy``). The copy is the size of
  the table (12 GB in a run with ``--memory-limit 12G``), and the older copy stays until the
  newer is complete. So when the disk is short (the copy would take more than half the disk
  budget left: ``TABLE_COPY_SHARE``) and the run's fingerprints are on disk already, the table
  is merged into the sorted files instead and the next level starts with it empty; the
  checkpoint then copies nothing. That is not the rule, because an empty table forgets the
  states of the last levels, whose duplicates are most of the successors: each then costs a
  pending entry and a check against the files (measured in docs/scaling.md: a run that
  merged at every checkpoint took twice the CPU time),
* ``kmc-checkpoint.json`` last, under a temporary name renamed into place: counts, coverage,
  violations so far, the configuration, the properties, the kernel's source hash, the
  fingerprint width and which files hold the rest.

A file an older checkpoint needs is deleted only once a newer checkpoint is complete, so a kill
at any moment leaves one complete checkpoint. ``--resume`` reads it, refuses another
configuration, property list, fingerprint width or kernel, removes what the killed run wrote
after it, and continues: the search is deterministic, so the counts, verdicts and traces are
those of an uninterrupted run. A finished run removes the files; a run stopped by a limit
leaves them for ``--resume``. A directory holding a checkpoint is never written over without
``--resume``, and a directory holding anything else is refused.
"""

from __future__ import annotations

import json
import os
import re
import time

import numpy as np

from checker.compiled import table as T
from checker.compiled.frontier import Level
from checker.compiled.parents import Parents
from checker.compiled.runs import Runs
from checker.compiled.search import Violation
from checker.compiled.visited import Visited
from model.errors import ConfigError
from model.kernel.cache import source_hash

FORMAT = 2  # 2: level files may hold compressed blocks (frontier.py); the table may be in the sorted files
MANIFEST = "kmc-checkpoint.json"
EVERY_SECONDS = 600.0
TABLE_COPY_SHARE = 0.5  # of the disk budget left, the most a copy of the table may take
OURS = re.compile(r"^(level-\d+\.bin|fps-\d+-\d+\.bin|table-\d+\.npy|dead-\d+\.npy|parents\.bin|"
                  r"\.tmp-.*)$")


class Checkpoints:
    """The checkpoints of one run in one directory."""

    def __init__(self, directory: str, every_levels: int | None, identity: dict,
                 every_seconds: float = EVERY_SECONDS) -> None:
        self.directory = os.path.abspath(directory)
        self.every_levels = every_levels
        self.every_seconds = every_seconds
        self.identity = identity  # config, properties, kernel, fingerprint bits
        self.saved_at = time.monotonic()
        self.levels_since = 0
        self.latest: dict | None = None  # the newest manifest written or resumed
        self.referenced: set = set()  # files the newest manifest needs
        self.stale: set = set()  # files only older checkpoints needed: deleted after the next one
        self.resumed_from = None

    # ------------------------------------------------------------------ the directory

    def prepare(self, resume: bool) -> dict | None:
        """Check the directory against ``resume``; the manifest to resume from, or None."""
        path = os.path.join(self.directory, MANIFEST)
        if os.path.isdir(self.directory) and os.path.exists(path):
            if not resume:
                raise ConfigError(
                    f"{self.directory} holds a checkpoint of a kmc run; add --resume to continue "
                    "it, or give an empty --checkpoint-dir")
            return self._read(path)
        if resume:
            raise ConfigError(f"nothing to resume in {self.directory}: it holds no kmc checkpoint")
        if os.path.isdir(self.directory) and os.listdir(self.directory):
            raise ConfigError(f"--checkpoint-dir {self.directory} is not empty; give a new or an "
                              "empty directory (kmc does not write among other files)")
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"cannot use --checkpoint-dir {self.directory}: {e.strerror or e}") from None
        return None

    def _read(self, path: str) -> dict:
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read the checkpoint {path}: {e}") from None
        if data.get("format") != FORMAT:
            raise ConfigError(f"{path} is a checkpoint of another kmc version (format "
                              f"{data.get('format')}, this one reads format {FORMAT}); it cannot "
                              "be resumed: start the run again in an empty --checkpoint-dir")
        mine = self.identity
        if data["config"] != mine["config"]:
            raise ConfigError(f"the checkpoint in {self.directory} is of another configuration "
                              f"({_difference(data['config'], mine['config'])}); resume it with "
                              "the same options")
        if data["properties"] != mine["properties"]:
            raise ConfigError(f"the checkpoint in {self.directory} checks properties "
                              f"{', '.join(data['properties'])}; resume it with the same ones")
        if data["kernel"] != mine["kernel"]:
            raise ConfigError(f"the checkpoint in {self.directory} was written by another version "
                              "of kmc's model; it cannot be resumed")
        if mine.get("fp_bits") not in (None, data["fp_bits"]):
            raise ConfigError(f"the checkpoint in {self.directory} uses {data['fp_bits']}-bit "
                              f"fingerprints; resume it with --fp-bits {data['fp_bits']}")
        return data

    def disk_bytes(self, search) -> int:
        """Bytes of files only checkpoints need (the table's copy, sorted files since merged
        into newer ones)."""
        total = 0
        current = {os.path.basename(p) for p in search.visited.runs.files if p}
        for name in self.referenced | self.stale:
            if name.startswith("table-") or (name.startswith("fps-") and name not in current):
                try:
                    total += os.path.getsize(os.path.join(self.directory, name))
                except OSError:
                    pass
        return total

    # ------------------------------------------------------------------ saving

    def maybe_save(self, search) -> None:
        self.levels_since += 1
        if self.every_levels is not None:
            due = self.levels_since >= self.every_levels
        else:
            due = time.monotonic() - self.saved_at >= self.every_seconds
        if due:
            self.save(search)

    def save(self, search) -> None:
        """Write a checkpoint of ``search`` between two levels."""
        d = self.directory
        n = (self.latest or {}).get("number", 0) + 1
        if search.level.path is None:
            search.level.path = os.path.join(d, f"level-{len(search.level_sizes) - 1}.bin")
        vis = search.visited
        search.note_disk()
        room = search.space.disk_limit - search.space.used if search.space.disk_allowed else 0
        copy_table = not vis.on_disk or vis.table.nbytes <= TABLE_COPY_SHARE * room
        search.reserve_disk(search.level.memory_bytes + search.parents.memory_bytes
                            + (vis.table.nbytes if copy_table else 0))
        if not copy_table:  # into the sorted files: nothing is pending between two levels
            dead, _ = vis.flush([s for s in range(vis.shards) if vis.fills[s]], search.reserve_disk,
                                search.announce)
            if dead.shape[0]:
                raise RuntimeError("a checkpoint found states pending between two levels")
        search.announce(f"writing checkpoint {n} to {d}")
        search.level.spill(everything=True)
        if search.parents.path is None:
            search.parents.path = os.path.join(d, "parents.bin")
        search.parents.spill(everything=True)
        for path in (search.level.path, search.parents.path, *(p for p in search.visited.runs.files if p)):
            _sync(path)  # on the disk before the manifest names them
        table_file, dead_file = (f"table-{n}.npy" if copy_table else None), f"dead-{n}.npy"
        if copy_table:
            _save_array(os.path.join(d, table_file), vis.table)
        _save_array(os.path.join(d, dead_file), search.level_dead)
        manifest = dict(self.identity, format=FORMAT, number=n, state={
            "generated": search.generated, "distinct": search.distinct, "depth": search.depth,
            "coverage": search.coverage.tolist(),
            "violations": {k: [v.parent, v.succ] for k, v in search.violations.items()},
            "level_sizes": search.level_sizes, "level_first": search.level_first,
            "elapsed": search.elapsed(),
        }, files={
            "level": search.level.describe(), "parents": search.parents.describe(),
            "runs": vis.runs.describe(), "table": table_file, "dead": dead_file,
            "table_shape": list(vis.table.shape),
            "fills": vis.fills.tolist(), "disk_shards": vis.disk_shards.tolist(),
        })
        _write_json(os.path.join(d, MANIFEST), manifest)
        referenced = _files_of(manifest["files"])
        for name in (self.referenced | self.stale) - referenced:
            _remove(os.path.join(d, name))
        vis.runs.release({os.path.join(d, f) for f in self.referenced if f.startswith("fps-")})
        self.referenced, self.stale = referenced, set()
        self.latest = manifest
        self.saved_at = time.monotonic()
        self.levels_since = 0
        search.parents.spilled = search.parents_on_disk
        search.note_disk()

    def forget_level(self, level: Level) -> None:
        """A level has been expanded: delete its file, or after the next checkpoint if the
        newest one needs it."""
        if level.path and os.path.basename(level.path) in self.referenced:
            level.close_file()
            self.stale.add(os.path.basename(level.path))
        else:
            level.delete()

    # ------------------------------------------------------------------ resuming

    def restore(self, search, data: dict) -> None:
        """Put ``search`` where the checkpoint ``data`` left it."""
        d = self.directory
        files, state = data["files"], data["state"]
        self._clean_after(files)
        if files["table"] is not None:
            table = np.load(os.path.join(d, files["table"]))
        else:  # merged into the sorted files: an empty table of the same size
            table = T.new_table(*files["table_shape"][:2], files["table_shape"][2])
        vis = Visited(table.shape[0], table.shape[2], 1024, d, search.workers)
        vis.table = table
        vis.fills = np.array(files["fills"], dtype=np.int64)
        vis.disk_shards = np.array(files["disk_shards"], dtype=np.uint8)
        vis.runs = Runs.restore(d, table.shape[2], files["runs"])
        if vis.on_disk:
            vis.start_pending(search.pending_entries())
        search.visited = vis
        search.parents = Parents.restore(d, files["parents"])
        search.parents.spilled = False
        search.level = Level.restore(search.spec.width, d, files["level"], search.space)
        search.level_dead = np.load(os.path.join(d, files["dead"]))
        search.generated, search.distinct = state["generated"], state["distinct"]
        search.depth = state["depth"]
        search.coverage = np.array(state["coverage"], dtype=np.int64)
        search.violations = {k: Violation(*v) for k, v in state["violations"].items()}
        search.level_sizes = list(state["level_sizes"])
        search.level_first = state["level_first"]
        search.elapsed_before = state["elapsed"]
        self.latest = data
        self.referenced = _files_of(files)
        self.resumed_from = len(state["level_sizes"]) - 1

    def _clean_after(self, files: dict) -> None:
        """Remove what the interrupted run wrote after its last checkpoint."""
        keep = _files_of(files) | {MANIFEST}
        for name in os.listdir(self.directory):
            if name not in keep and OURS.match(name):
                _remove(os.path.join(self.directory, name))

    def remove_all(self) -> None:
        """A finished search: nothing left to resume."""
        for name in os.listdir(self.directory):
            if name == MANIFEST or OURS.match(name):
                _remove(os.path.join(self.directory, name))
        self.latest = None


def _files_of(files: dict) -> set:
    """The names of the files a manifest's ``files`` needs."""
    names = {files["dead"], files["level"]["path"], "parents.bin"}
    names |= {f for f in (files["table"], *files["runs"]["files"]) if f}
    return names


def _atomically(path: str, write, mode: str = "wb") -> None:
    """Write ``path`` through ``write(file)`` under a temporary name, synced, then renamed into
    place: the file is complete or absent, even after a kill or a crash."""
    temporary = os.path.join(os.path.dirname(path), ".tmp-" + os.path.basename(path))
    with open(temporary, mode) as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def _save_array(path: str, array: np.ndarray) -> None:
    _atomically(path, lambda f: np.save(f, array))


def _write_json(path: str, data: dict) -> None:
    _atomically(path, lambda f: json.dump(data, f), "w")


def _sync(path: str) -> None:
    if os.path.exists(path):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _difference(old: dict, new: dict) -> str:
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    return ", ".join(f"{k}: {old.get(k)!r} there, {new.get(k)!r} now" for k in keys[:3])


def identity(config, properties, fp_bits) -> dict:
    """What a checkpoint must match to be resumed."""
    return {"config": config.as_dict(), "properties": [p.name for p in properties],
            "kernel": source_hash(), "fp_bits": fp_bits}
