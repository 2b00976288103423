"""Where the explorer's structures live: the memory budget, the disk budget and the directory.

``--memory-limit`` bounds the process's resident memory; the explorer keeps the fingerprint
table, the frontier and the parent index within it by moving them to disk (``visited.py``,
``frontier.py``, ``parents.py``) when they would outgrow it. ``--disk-limit`` bounds the bytes
it writes under the directory (``--disk-dir``, by default a new directory in the system's
temporary directory, removed at the end; with ``--checkpoint-dir``, that directory). A run stops
INCOMPLETE only when the disk budget is spent too (limit ``disk-limit``); with a disk limit of 0
nothing goes to disk and the run stops at the memory limit instead (limit ``memory-limit``).
"""

from __future__ import annotations

import os
import shutil
import tempfile

from model.errors import KmcError

DISK_SHARE = 0.8  # of the free space, the default disk budget
MARGIN = 0.9  # of the memory budget, what the structures may take
COMPRESS_SHARE = 0.25  # of the disk budget in use, past which level files are compressed


class MemoryLimitError(KmcError):
    """Raised internally when a structure would outgrow ``--memory-limit`` and nothing can go
    to disk."""


class DiskLimitError(KmcError):
    """Raised internally when a write would pass ``--disk-limit``."""


def default_memory_limit() -> int:
    """Half the machine's RAM: room for the rest of the system, and far from the OOM killer."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 << 30
    return total // 2


def rss_bytes() -> int:
    """This process's resident memory now."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _glibc():
    """glibc, opened once (``malloc_trim``, ``mallopt``); None elsewhere (macOS, musl), where
    both calls below do nothing."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim, libc.mallopt  # noqa: B018 - both must exist (glibc)
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _glibc()

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
MMAP_THRESHOLD = 128 << 10  # glibc's initial value: every larger block mapped, and unmapped on free


def fix_mmap_threshold() -> None:
    """Keep glibc's mmap threshold at its initial 128 KiB. By default glibc raises it to the size
    of each mapped block freed (up to 32 MiB), so after the first frontier block (9 MB) or
    candidate buffer is freed, blocks of that size come from the heap instead, and a heap keeps
    its freed pages: the RSS crept past the memory budget as levels widened (``kmc check
    --kafka-version 2.1 -r 3 --rule +reset-followers-on-epoch --max-records 1
    --max-leader-epoch 6 --max-crashes 40 --memory-limit 1G --time-limit 600``: peak 1,252 MiB
    in a 1,024 MiB budget; 450 s with the threshold fixed: 944 MiB; docs/checker.md, "Past memory").
    Setting it turns the dynamic adjustment off. Not glibc: nothing to do."""
    if _LIBC is not None:
        _LIBC.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def give_back_free_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``). numpy takes a
    frontier block (9 MB) from the heap, and once freed its pages stay in the process, counted in
    its RSS, until a later allocation happens to reuse them: the driver calls this when it has
    freed blocks the pool will not reuse, so the memory the widest level took does not stay
    taken while the parent index grows to its largest (docs/scaling.md)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def peak_rss_bytes() -> int:
    """This process's peak resident memory so far."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def free_space(path: str) -> int:
    """Free bytes on the file system that holds ``path``, or will once it is created (its
    nearest existing ancestor: a ``--disk-dir`` that does not exist yet must not read as a full
    disk); 0 if that cannot be read."""
    path = os.path.abspath(path)
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return 0


class Space:
    """The budgets and the working directory of one run."""

    def __init__(self, memory_limit: int | None, disk_limit: int | None, disk_dir: str | None,
                 fixed_dir: str | None = None) -> None:
        self.memory_limit = memory_limit or default_memory_limit()
        fix_mmap_threshold()  # before the search allocates its blocks
        self.baseline = rss_bytes()
        self._disk_limit = disk_limit
        self.parent_dir = disk_dir
        self.fixed_dir = fixed_dir  # a checkpoint directory: kept
        self._directory = fixed_dir
        self.used = 0  # bytes on disk now (set by the driver from the structures)
        self.peak_used = 0

    @property
    def disk_allowed(self) -> bool:
        return self._disk_limit is None or self._disk_limit > 0

    @property
    def directory(self) -> str:
        """The working directory, created when first needed."""
        if self._directory is None:
            parent = self.parent_dir or tempfile.gettempdir()
            try:
                os.makedirs(parent, exist_ok=True)
                self._directory = tempfile.mkdtemp(prefix="kmc-explore-", dir=parent)
            except OSError as e:
                raise KmcError(f"cannot create a directory for the explorer's files in {parent}: "
                               f"{e.strerror or e}") from None
        return self._directory

    @property
    def disk_limit(self) -> int:
        if self._disk_limit is None:
            free = free_space(self.fixed_dir or self.parent_dir or tempfile.gettempdir())
            self._disk_limit = int(free * DISK_SHARE) + self.used
        return self._disk_limit

    def reserve_disk(self, nbytes: int) -> None:
        """About to write ``nbytes`` more: within the disk budget?"""
        if not self.disk_allowed or self.used + nbytes > self.disk_limit:
            raise DiskLimitError(f"{self.used + nbytes} bytes")

    def short_of_disk(self) -> bool:
        """Are the files past ``COMPRESS_SHARE`` of the disk budget? Then the level files are
        compressed (``frontier.py``), which costs CPU and saves most of their bytes."""
        return self.disk_allowed and self.used > COMPRESS_SHARE * self.disk_limit

    def note_disk(self, used: int) -> None:
        self.used = used
        self.peak_used = max(self.peak_used, used)

    def memory_room(self, in_use: int) -> int:
        """Bytes left under the memory limit, given the structures' ``in_use`` bytes (a tenth of
        what the process may add is kept back: numpy's temporaries, blocks read from disk)."""
        return int((self.memory_limit - self.baseline) * MARGIN) - in_use

    def remove(self) -> None:
        """Delete the working directory if this run made it."""
        if self._directory is not None and self._directory != self.fixed_dir:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
