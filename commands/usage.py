"""Usage errors: one line on stderr and exit code 2 (the ``kmc`` group prints them).

``check_output_path`` checks a file the user asks kmc to write before any work starts: nothing the
user wrote is overwritten without ``--force``, no input of the run is overwritten at all, and a
path that cannot be written fails at once with one line instead of after a long search.
``write_output`` writes one, atomically, turning an error into one line that names the file.
Both are ``model.outputs`` with click's error type."""

from __future__ import annotations

import click

from model.bounded import clip
from model.outputs import OutputError, check_output, write_atomic
from model.outputs import same_file as outputs_same_file


def fail(message: str) -> None:
    """Abort the command with one line and exit code 2."""
    raise click.UsageError(message)


def say(message: str) -> None:
    """One line on stderr that is not an error of the usage (a release that could not run),
    starting with the command's name as every error line does: ``kmc conformance run: ...``."""
    click.echo(f"{click.get_current_context().command_path}: {message}", err=True)


def check_output_path(path: str | None, force: bool, option: str = "", inputs=()) -> None:
    """Raise ``click.UsageError`` unless ``path`` may be written (``model.outputs.check_output``:
    not a directory, a pipe or a device but ``/dev/null``, not a dangling link, not one of
    ``inputs`` even with ``force``, not an existing file without ``force``, in a directory kmc
    can write)."""
    try:
        check_output(path, force=force, label=option, inputs=inputs)
    except OutputError as e:
        raise click.UsageError(str(e)) from None


def same_file(a: str | None, b: str | None) -> bool:
    """Whether two paths the user gave name the same file (also through a link)."""
    return outputs_same_file(a, b)


def write_output(path: str, option: str, write, force: bool) -> None:
    """Write ``path`` through ``model.outputs.write_atomic``: ``write(tmp)`` writes the content
    to the temporary path ``tmp``, which replaces ``path`` once complete (without ``force``, only
    if no file took that name during the run). An ``OSError`` becomes one line naming the file
    (exit code 2) and leaves no partial file. Commands print their verdict before writing, so it
    is not lost."""
    try:
        write_atomic(path, write, force=force)
    except OutputError as e:
        raise click.UsageError(f"{option}: {e}; the result above is complete, but without this "
                               "file the exit code is 2") from None
    except OSError as e:
        label = f"{option} {clip(path)}" if option else clip(path)
        raise click.UsageError(
            f"cannot write {label}: {e.strerror or e}; the result above is complete, but without "
            "this file the exit code is 2") from None
