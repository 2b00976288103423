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

from numba.core import caching as _numba_caching
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


_CACHE_IMPL = getattr(_numba_caching, "CacheImpl", None) or _numba_caching._CacheImpl  # 0.68 / 0.60


class _CheckoutLocator(_numba_caching.UserProvidedCacheLocator):
    """numba's locator for a cache directory given by the user, but for kmc's own files the
    place inside it is named by the file's path in the checkout and a hash of its content, not
    by its absolute directory: a second clone (a CI checkout, a worktree) with the same kernel
    sources finds the kernel the first one compiled instead of compiling it again.

    Safe because nothing of the compiled code depends on where the checkout is: numba keys each
    compiled function by its signature, the target machine and a hash of its bytecode and
    closure, and drops an index whose source stamp changed; the stamp here is the file's
    content hash (numba 0.68's own is too, older ones used the file's modification time, which
    differs in every clone). What a function reads from other files (constants, the functions
    it calls) is covered by the directory's ``source_hash``. The file's content hash in the
    place's name keeps two checkouts that differ only in a file outside the kernel's sources
    (``checker/simulate/walks.py``) from overwriting each other's entries, each time."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        path = Path(py_file).resolve()
        relative = path.parent.relative_to(_ROOT).as_posix().replace("/", "+") or "root"
        self._content = hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
        self._cache_path = os.path.join(numba_config.CACHE_DIR,
                                        f"{relative}_{path.stem}_{self._content[:16]}")

    def get_source_stamp(self):
        return self._content

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            Path(py_file).resolve().relative_to(_ROOT)
        except (ValueError, OSError):
            return None  # not kmc's file (a plugin's): numba's own locators
        return super().from_function(py_func, py_file)


def configure_cache() -> Path:
    """Point numba's cache at the kernel's directory, with kmc's files placed in it by their
    path in the checkout (``_CheckoutLocator``); returns it."""
    locators = _CACHE_IMPL._locator_classes  # shared by numba's two kinds of cache
    if _CheckoutLocator not in locators:
        locators.insert(0, _CheckoutLocator)
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
