"""Usage errors: one line on stderr and exit code 2 (the ``kmc`` group prints them).

``check_output_path`` checks a file the user asks kmc to write before any work starts: nothing the
user wrote is overwritten without ``--force``, and a path that cannot be written fails at once
with one line instead of after a long search."""

from __future__ import annotations

import os

import click


def fail(message: str) -> None:
    """Abort the command with one line and exit code 2."""
    raise click.UsageError(message)


def check_output_path(path: str | None, force: bool, option: str = "") -> None:
    """Raise ``click.UsageError`` if ``path`` exists (without ``force``), is a directory, or
    its directory does not exist."""
    if not path:
        return
    label = f"{option} {path}" if option else path
    if os.path.isdir(path):
        raise click.UsageError(f"{label} is a directory; give a file name")
    if os.path.exists(path) and not force:
        raise click.UsageError(f"{label} exists; pass --force to overwrite it")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise click.UsageError(f"{label}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise click.UsageError(f"{label}: directory {parent} is not writable")
