"""Where numba keeps the compiled kernel, and when it must compile it again.

numba's own cache checks only the timestamp of the file a function is defined in; the kernel's
functions read constants (field slots, action ids) from other files, so a change there could
leave a stale compiled function in use. kmc therefore keeps the cache in a directory named by a
hash of every source file the kernel is built from: any change selects a fresh directory and a
full compilation. The directory is ``$KMC_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/kmc`` (or
``~/.cache/kmc``); if it cannot be written, a temporary directory is used (the kernel then
compiles on every run).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from numba.core import config as numba_config

_ROOT = Path(__file__).resolve().parent.parent.parent
KERNEL_SOURCES = (
    "model/kernel/**/*.py", "model/actions.py", "model/constants.py", "model/rules.py",
    "model/releases.py", "model/schema.py", "properties/compiled.py", "checker/compiled/*.py",
)
KERNEL_MARK = b"model.kernel.jit"
"""Files under ``checker/compiled`` that do not import the kernel's decorators define no kernel
function (the driver, the frontier's files, checkpoints): plain Python, whose changes need no new
compilation."""


def _kernel_files(pattern: str) -> list:
    paths = sorted(_ROOT.glob(pattern))
    if pattern.startswith("checker/"):
        paths = [p for p in paths if KERNEL_MARK in p.read_bytes()]
    return paths


def source_hash() -> str:
    """A hash of the kernel's source files (and numba's version)."""
    h = hashlib.blake2b(digest_size=8)
    for pattern in KERNEL_SOURCES:
        for path in _kernel_files(pattern):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    try:
        h.update(version("numba").encode())
    except PackageNotFoundError:  # numba imported from a tree, not installed: the sources decide
        pass
    return h.hexdigest()


def _base_dir() -> Path:
    if os.environ.get("KMC_CACHE_DIR"):
        return Path(os.environ["KMC_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "kmc"


def configure_cache() -> Path:
    """Point numba's cache at the kernel's directory; returns it."""
    directory = _base_dir() / f"kernel-{source_hash()}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".writable"
        probe.touch()
    except OSError:
        directory = Path(tempfile.mkdtemp(prefix="kmc-kernel-"))
    os.environ["NUMBA_CACHE_DIR"] = str(directory)  # for worker processes (Spark executors)
    numba_config.CACHE_DIR = str(directory)  # read when each @njit(cache=True) is decorated
    return directory
