"""Usage errors: one line on stderr and exit code 2 (the ``kmc`` group prints them).

``check_output_path`` checks a file the user asks kmc to write before any work starts: nothing the
user wrote is overwritten without ``--force``, and a path that cannot be written fails at once
with one line instead of after a long search. ``write_output`` writes one, turning an error into
one line that names the file."""

from __future__ import annotations

import os
import stat
import tempfile

import click


def fail(message: str) -> None:
    """Abort the command with one line and exit code 2."""
    raise click.UsageError(message)


def check_output_path(path: str | None, force: bool, option: str = "") -> None:
    """Raise ``click.UsageError`` unless ``path`` can be written: it is a directory, it exists
    (a regular file, without ``force``), its directory does not exist, or writing there fails.

    Writability is tried, not guessed: ``os.access`` says yes to root everywhere, also on a
    read-only file system or under ``/proc``. An existing file is opened for appending (which
    changes nothing); for a new one a temporary file is created beside it and removed. A special
    file that exists (``/dev/null``, ``/dev/stdout``, a named pipe) is written as it is: nothing
    a user wrote is overwritten there, so it needs no ``--force``.
    """
    if not path:
        return
    label = f"{option} {path}" if option else path
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise click.UsageError(f"{label}: cannot write there: {e.strerror or e}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise click.UsageError(f"{label} is a directory; give a file name")
    if mode is not None and not stat.S_ISREG(mode):
        return  # a device or a pipe: writing to it is what the user asked for
    if mode is not None:
        if not force:
            raise click.UsageError(f"{label} exists; pass --force to overwrite it")
        try:
            with open(path, "ab"):
                pass
        except OSError as e:
            raise click.UsageError(f"{label}: cannot write it: {e.strerror or e}") from None
        return
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise click.UsageError(f"{label}: directory {parent} does not exist")
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".kmc-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise click.UsageError(f"{label}: cannot write in directory {parent}: {e.strerror or e}") from None


def same_file(a: str | None, b: str | None) -> bool:
    """Whether two paths the user gave name the same file (also through a link)."""
    if not a or not b:
        return False
    if os.path.abspath(a) == os.path.abspath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def write_output(path: str, option: str, write) -> None:
    """Call ``write()``, which writes ``path``; an ``OSError`` becomes one line naming the file
    (exit code 2). Commands print their verdict before writing, so it is not lost."""
    try:
        write()
    except OSError as e:
        label = f"{option} {path}" if option else path
        raise click.UsageError(
            f"cannot write {label}: {e.strerror or e}; the result above is complete, but without "
            "this file the exit code is 2") from None
