"""``kmc gate --cache DIR``: skip a check that passed before on the same model.

A check's cache key is a SHA-256 over the source of the model, the properties and the checker
(every ``.py`` file under ``model/``, ``properties/`` and ``checker/``), and the check's
configuration, bounds, properties, expectation, limits and engine (``CheckSpec.identity``). Its
name is not part of the key. Only green runs are stored (one JSON file per key, holding the
stored result), so a check that failed always runs again. Properties loaded with
``kmc --load`` live outside those folders and are not part of the key: do not combine ``--load``
with ``--cache`` unless the loaded file is versioned with the suite.

The directory must be writable; that is checked when the gate starts, before any check runs. An
entry that cannot be read back as a cache entry (damaged, too large, nested too deep, fields of
the wrong type) is a cache miss, with a warning naming the file: the check runs again, as if it
had never passed. A cache can only ever save time, never decide a verdict. Likewise an entry that
cannot be written (a full disk) is a warning, and the gate goes on.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from gate.run import CACHED, Outcome
from model.errors import KmcError
from model.files import parse_json, read_text

SOURCE_PACKAGES = ("model", "properties", "checker")
FORMAT = 1
MAX_ENTRY_BYTES = 64 * 2**20  # an entry holds one check's result, counterexamples included
MAX_ENTRY_DEPTH = 48


class CacheEntryError(KmcError):
    """A cache entry that cannot be used (the check then runs again)."""


def default_cache_dir() -> Path:
    """Where results are cached when no ``--cache`` is given (``kmc advise``): ``results`` in
    kmc's cache directory, ``$KMC_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/kmc`` or
    ``~/.cache/kmc`` (where the compiled kernel lives too)."""
    if os.environ.get("KMC_CACHE_DIR"):
        return Path(os.environ["KMC_CACHE_DIR"]) / "results"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "kmc" / "results"


def source_digest() -> str:
    """SHA-256 over the source files that decide a check's outcome."""
    h = hashlib.sha256()
    for package in SOURCE_PACKAGES:
        root = Path(importlib.import_module(package).__file__).parent
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            h.update(f"{package}/{path.relative_to(root).as_posix()}\0".encode())
            h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


class GateCache:
    """A directory of green check results, keyed by model source and check identity."""

    def __init__(self, directory: str):
        self.dir = Path(directory)
        if self.dir.exists() and not self.dir.is_dir():
            raise KmcError(f"--cache {directory}: exists and is not a directory")
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise KmcError(f"--cache {directory}: cannot create it: {e.strerror or e}") from None
        try:  # writable? (os.access is no answer for root, nor for a read-only file system)
            fd, probe = tempfile.mkstemp(dir=self.dir, prefix=".probe-")
            os.close(fd)
            os.unlink(probe)
        except OSError as e:
            raise KmcError(f"--cache {directory}: cannot write to it: {e.strerror or e}") from None
        self.source = source_digest()

    def key(self, spec) -> str:
        return self.key_of(spec.identity())

    def key_of(self, identity: dict) -> str:
        """The cache key of a check described by ``identity`` (plain data) on this source."""
        blob = json.dumps(
            {"format": FORMAT, "source": self.source, "check": identity},
            sort_keys=True, default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def get(self, identity: dict, warn=None) -> dict | None:
        """The raw entry stored for ``identity`` on this source (``kmc advise``), or None when
        there is none or it cannot be read (``warn(line)`` hears why)."""
        path = self.dir / f"{self.key_of(identity)}.json"
        if not path.exists():
            return None
        try:
            text = read_text(path, what="a cache entry", limit=MAX_ENTRY_BYTES, error=CacheEntryError)
            entry = parse_json(text, str(path), what="a cache entry", max_depth=MAX_ENTRY_DEPTH,
                               error=CacheEntryError)
        except CacheEntryError as e:
            if warn is not None:
                warn(f"warning: ignoring the cache entry {e}")
            return None
        return entry if isinstance(entry, dict) else None

    def put(self, identity: dict, entry: dict) -> None:
        """Store ``entry`` (plain data) for ``identity``, atomically."""
        self._write(self.dir / f"{self.key_of(identity)}.json", entry)

    def lookup(self, spec, warn=None):
        """The cached ``Outcome`` of ``spec``, or None if it has no usable green run on this
        source (``warn(line)`` hears why an entry that exists was not used)."""
        path = self.dir / f"{self.key(spec)}.json"
        if not path.exists():
            return None
        try:
            entry = read_entry(path)
        except CacheEntryError as e:
            if warn is not None:
                warn(f"warning: ignoring the cache entry {e}; the check runs again")
            return None
        return Outcome(
            spec=spec, status=CACHED, got=entry["got"],
            reasons=[f"unchanged since a green run at {entry['stored']} (status {entry['status']})"],
            result_json=entry.get("result"), states=entry.get("states"), seconds=0.0,
            cached_at=entry["stored"],
        )

    def store(self, spec, outcome, warn=None) -> None:
        """Store a green outcome; a write that fails is a warning (through ``warn``), not an
        error: the gate's verdict does not depend on its cache."""
        try:
            self._store(spec, outcome)
        except KmcError as e:
            if warn is None:
                raise
            warn(f"warning: {e}; this result is not cached")

    def _store(self, spec, outcome) -> None:
        entry = {
            "check": spec.name,
            "stored": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "status": outcome.status,
            "got": outcome.got,
            "states": outcome.states,
            "seconds": round(outcome.seconds, 3),
            "result": outcome.result_json,
        }
        self._write(self.dir / f"{self.key(spec)}.json", entry)

    def _write(self, path: Path, entry: dict) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f, indent=1)
            os.replace(tmp, path)
        except OSError as e:
            Path(tmp).unlink(missing_ok=True)
            raise KmcError(f"--cache {self.dir}: cannot write {path.name} to it: {e.strerror or e}") from None


def read_entry(path) -> dict:
    """A cache entry, checked field by field; ``CacheEntryError`` (naming the file) otherwise."""
    text = read_text(path, what="a cache entry", limit=MAX_ENTRY_BYTES, error=CacheEntryError)
    entry = parse_json(text, str(path), what="a cache entry", max_depth=MAX_ENTRY_DEPTH,
                       error=CacheEntryError)
    if not isinstance(entry, dict):
        raise CacheEntryError(f"{path}: not a JSON object")
    for key, kinds in (("got", str), ("stored", str), ("status", str)):
        if not isinstance(entry.get(key), kinds):
            raise CacheEntryError(f"{path}: {key!r} is missing or not a string")
    states = entry.get("states")
    if states is not None and (isinstance(states, bool) or not isinstance(states, int) or states < 0):
        raise CacheEntryError(f"{path}: 'states' is not a count")
    if entry.get("result") is not None and not isinstance(entry["result"], dict):
        raise CacheEntryError(f"{path}: 'result' is not a JSON object")
    return entry
