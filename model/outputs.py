"""Writing the files a user asks for (trace files, HTML pages, reports, graphs), safely: the one
helper every writer goes through, the twin of ``model.files`` for reading.

``check_output(path, force=..., label=..., inputs=...)`` runs before any work starts, so a run
that would fail to write fails at once, in one line (``OutputError``, exit code 2), and creates
nothing. It refuses:

* a directory;
* a file that is not a regular file: a named pipe would block kmc for ever waiting for a reader,
  a device or a socket is not a place for a report. ``/dev/null`` is the one exception: writing
  there is a user's way to say "discard it";
* a symbolic link whose target does not exist: writing through it would create a file somewhere
  the user did not name (a link to an existing file writes that file, as its name says);
* the same file as one of ``inputs`` (a ``--config`` file, the gate's suite, the trace being
  read), compared by device and inode (``os.path.samefile``) so a link or another spelling of
  the path is caught too, **even with** ``--force``: overwriting what the run reads is never
  what was meant;
* an existing file without ``force``;
* a directory kmc cannot create a file in (tried, not guessed: ``os.access`` says yes to root
  everywhere, also on a read-only file system).

``write_atomic(path, write_to)`` then writes: ``write_to(temporary path)`` writes a temporary file
in the target's directory, which replaces the target by ``os.replace`` (atomic on POSIX) only
when it is complete; on any failure, an interruption included, the temporary file is removed. So
a refused or failed write never leaves a partial file, and the old file stays whole until the new
one is ready. A new file gets the usual permissions (``0o666`` less the umask), a replaced one
keeps its own. Without ``force`` the last step links the temporary file to the target instead
(``os.link`` fails if the target exists), so a file that appeared at that path during a long run
is kept, not replaced: ``check_output`` ran before the run, this runs at the moment of writing.
"""

from __future__ import annotations

import os
import stat
import tempfile

from model.bounded import clip
from model.errors import KmcError


class OutputError(KmcError):
    """An output path kmc will not or cannot write: one line naming the option and the file."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def is_devnull(path: str) -> bool:
    """Whether ``path`` is ``/dev/null`` (under any name)."""
    try:
        return os.path.samefile(path, os.devnull)
    except OSError:
        return False


def same_file(a, b) -> bool:
    """Whether two paths name the same file: the same absolute path, or the same device and
    inode (through a link, ``..``, a bind mount)."""
    if not a or not b:
        return False
    if os.path.abspath(str(a)) == os.path.abspath(str(b)):
        return True
    try:
        return os.path.samefile(str(a), str(b))
    except OSError:
        return False


def check_output(path, *, force: bool, label: str = "", inputs=()) -> None:
    """Raise ``OutputError`` unless kmc may write ``path`` (see the module's docstring)."""
    if not path:
        return
    path = str(path)
    label = f"{label} {clip(path)}" if label else clip(path)
    try:
        link = os.lstat(path)
    except FileNotFoundError:
        link = None
    except OSError as e:
        raise OutputError(f"{label}: cannot write there: {e.strerror or e}") from None
    if link is not None and stat.S_ISLNK(link.st_mode) and not os.path.exists(path):
        target = os.path.join(os.path.dirname(path), os.readlink(path))
        raise OutputError(f"{label} is a symbolic link to {clip(target)}, which does not exist; "
                          "kmc does not create a file through a dangling link: name the file itself")
    try:
        mode = os.stat(path).st_mode if link is not None else None
    except OSError as e:
        raise OutputError(f"{label}: cannot write there: {e.strerror or e}") from None
    for source in inputs:
        if source and same_file(path, source):
            raise OutputError(f"{label} is {clip(str(source))}, which this run reads; kmc does not "
                              "overwrite its own input, even with --force: give another file name")
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputError(f"{label} is a directory; give a file name")
    if mode is not None and not stat.S_ISREG(mode):
        if is_devnull(path):
            return  # the user asked for the output to be discarded
        raise OutputError(f"{label} is {_kind(mode)}, not a regular file; kmc writes its output "
                          "to regular files only (/dev/null to discard it)")
    if mode is not None and not force:
        raise OutputError(f"{label} exists; pass --force to overwrite it")
    parent = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(parent):
        raise OutputError(f"{label}: directory {clip(parent)} does not exist")
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".kmc-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise OutputError(f"{label}: cannot write in directory {clip(parent)}: {e.strerror or e}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class OutputAppeared(OutputError):
    """Without ``force``: the output file did not exist when the run started and does now."""


def write_atomic(path, write_to, *, force: bool = True) -> None:
    """``write_to(tmp)`` writes the content to the path ``tmp``, a new file beside ``path``'s
    target, which then replaces it in one step (without ``force``: takes its name only if no
    file has it, else ``OutputAppeared``). ``/dev/null`` is written directly. An ``OSError``
    (or anything else) leaves no temporary file behind and ``path`` as it was."""
    path = str(path)
    if is_devnull(path):
        write_to(path)
        return
    target = os.path.realpath(path)  # through a link to an existing file: that file
    directory, name = os.path.split(target)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name[:64]}.", suffix=".kmc-tmp")
    os.close(fd)
    try:
        write_to(tmp)
        os.chmod(tmp, mode)
        if force:
            os.replace(tmp, target)
        else:
            try:
                os.link(tmp, target)  # atomic, and refuses an existing name
            except FileExistsError:
                raise OutputAppeared(f"{clip(path)} was created by something else while kmc ran; "
                                     "kept it (--force replaces it)") from None
            os.unlink(tmp)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text_atomic(path, text: str, *, force: bool = True) -> None:
    """``write_atomic`` of UTF-8 text."""
    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
    write_atomic(path, write, force=force)
