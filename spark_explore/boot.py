"""What every Spark task runs first: kmc's code in place on the executor, then the task itself.

Executors need kmc's packages but not an installation of kmc: the driver ships them as a zip
(``session.ship_code``). Python could import them straight from that zip, but numba keeps its
compiled code per *source directory*, and Spark puts the zip in a new directory for every
application, so every application would compile the kernel again (about a minute). So the code
is imported from a directory that does not change:

* the driver's own source tree, when the executor sees it with the same contents (``local[*]``,
  a standalone cluster on the driver's machine, a shared file system): the compiled kernel
  ``make install`` left in ``~/.cache/kmc`` (or ``$KMC_CACHE_DIR``) is then used as it is;
* else the zip, unpacked once per machine into ``$TMPDIR/kmc-code-<hash of its contents>``:
  the first task on a machine compiles the kernel (others wait for it), later tasks and later
  applications with the same code load it.

For that to happen before any of kmc is imported, the functions Spark ships (task wrappers, the
partition function) live in this module, which uses only the standard library and is pickled
*by value* (``cloudpickle.register_pickle_by_value``); a task's own function and arguments
travel as a pickled payload that is opened only once the code is in place.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import sys
import tempfile
import zipfile

PACKAGES = ("model", "checker", "properties", "spark_explore")
_INSTALLED = "KMC_SPARK_CODE"  # set in a worker process once its code is in place


def code_files(root: str) -> list:
    """The project's source files under ``root`` that executors need, as sorted relative paths."""
    out = []
    for package in PACKAGES:
        for directory, subdirs, files in os.walk(os.path.join(root, package)):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            out.extend(os.path.relpath(os.path.join(directory, f), root).replace(os.sep, "/")
                       for f in files if f.endswith(".py"))
    return sorted(out)


def code_hash(root: str) -> str:
    """A hash of those files' names and contents."""
    h = hashlib.blake2b(digest_size=10)
    for rel in code_files(root):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(root, rel), "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()


def write_zip(root: str, path: str) -> str:
    """Zip the files of ``code_files(root)`` into ``path``; returns their ``code_hash``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel in code_files(root):
            zf.write(os.path.join(root, rel), rel)
    return code_hash(root)


def install(code: tuple) -> str:
    """Put kmc's code on this Python process's path (once per process); returns its directory.

    ``code`` is ``(driver's source root, code hash, name of the shipped zip)``."""
    root, digest, zip_name = code
    if os.environ.get(_INSTALLED, "").startswith(digest + ":"):
        return os.environ[_INSTALLED].split(":", 1)[1]
    if os.environ.get("KMC_SPARK_UNPACK") != "1" and os.path.isdir(root) and code_hash(root) == digest:
        path = root  # (KMC_SPARK_UNPACK=1 in an executor's environment: do as a remote machine does)
    else:
        path = unpack(_shipped(zip_name), digest)
    if path in sys.path:
        sys.path.remove(path)
    sys.path.insert(0, path)  # ahead of anything else that might provide a package called model
    os.environ[_INSTALLED] = f"{digest}:{path}"
    return path


def _shipped(zip_name: str) -> str:
    from pyspark import SparkFiles  # lazy on purpose: this module is imported by kmc's driver too

    return SparkFiles.get(zip_name)


def unpack(zip_path: str, digest: str) -> str:
    """The zip's code, unpacked once per machine into ``$TMPDIR/kmc-code-<digest>``."""
    target = os.path.join(tempfile.gettempdir(), f"kmc-code-{digest}")
    if os.path.isdir(target):
        return target
    staging = tempfile.mkdtemp(prefix=f"kmc-code-{digest}-", dir=tempfile.gettempdir())
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(staging)
    try:
        os.rename(staging, target)  # atomic: concurrent workers agree on one copy
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)  # another worker got there first
    return target


def task(code: tuple, payload: bytes):
    """A ``mapPartitionsWithIndex`` function: install the code, then call the task in
    ``payload`` (``pickle.dumps((function, args))``) as ``function(split, records, *args)``."""

    def run(split, records):
        install(code)
        function, args = pickle.loads(payload)
        return function(split, records, *args)

    return run


def job(code: tuple, payload: bytes, split: int):
    """A function of one partition's records (``SparkContext.runJob``), like ``task``."""

    def run(records):
        install(code)
        function, args = pickle.loads(payload)
        return function(split, records, *args)

    return run


def by_key(key: int) -> int:
    """The partition function of every keyed RDD of the engine: records are keyed by the index
    of the partition they belong to."""
    return key


def is_candidate(record) -> bool:
    return record[1][0] == "cand"


class Figures:
    """An accumulator of per-partition figures: ``{(kind, partition): data}``. A task that runs
    again (a lost executor) sends the same figures, which replace the first ones: adding is
    idempotent, so the driver's totals are right whatever Spark re-ran."""

    def zero(self, value):
        return {}

    def addInPlace(self, left: dict, right: dict) -> dict:  # noqa: N802 (Spark's name)
        left.update(right)
        return left
