"""``kmc gate --cache DIR``: skip a check that passed before on the same model (``kmc advise``
keeps its cells' results in the same kind of cache, through ``get`` and ``put``).

A check's cache key is a SHA-256 over the source of the model, the properties and the checker
(every ``.py`` file under ``model/``, ``properties/`` and ``checker/``), and the check's
configuration, bounds, properties, expectation, limits and engine (``CheckSpec.identity``). Its
name is not part of the key. Only green runs are stored (one JSON file per key, holding the
stored result), so a check that failed always runs again. Properties loaded with
``kmc --load`` live outside those folders and are not part of the key: do not combine ``--load``
with ``--cache`` unless the loaded file is versioned with the suite.
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

SOURCE_PACKAGES = ("model", "properties", "checker")
FORMAT = 1


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

    def get(self, identity: dict) -> dict | None:
        """The entry stored for ``identity`` on this source, or None (absent or damaged)."""
        try:
            return json.loads((self.dir / f"{self.key_of(identity)}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, identity: dict, entry: dict) -> None:
        """Store ``entry`` (plain data) for ``identity``, atomically."""
        path = self.dir / f"{self.key_of(identity)}.json"
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f, indent=1)
            os.replace(tmp, path)
        except OSError as e:
            Path(tmp).unlink(missing_ok=True)
            raise KmcError(f"--cache {self.dir}: cannot write to it: {e.strerror or e}") from None

    def lookup(self, spec):
        """The cached ``Outcome`` of ``spec``, or None if it has no green run on this source."""
        entry = self.get(spec.identity())
        if entry is None:
            return None  # absent or damaged: run the check again
        return Outcome(
            spec=spec, status=CACHED, got=entry.get("got", "?"),
            reasons=[f"unchanged since a green run at {entry.get('stored', '?')} (status {entry.get('status')})"],
            result_json=entry.get("result"), states=entry.get("states"), seconds=0.0,
            cached_at=entry.get("stored"),
        )

    def store(self, spec, outcome) -> None:
        entry = {
            "check": spec.name,
            "stored": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "status": outcome.status,
            "got": outcome.got,
            "states": outcome.states,
            "seconds": round(outcome.seconds, 3),
            "result": outcome.result_json,
        }
        self.put(spec.identity(), entry)
