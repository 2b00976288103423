"""Reading the files a user hands kmc, defensively: trace files, gate suites, Kafka properties
files and the gate's cache all come in through here.

A file may be anything: missing, a directory, ``/dev/null``, ``/dev/zero``, a named pipe (a
shell's ``<(...)``), gigabytes of garbage, binary, or JSON nested a hundred thousand levels deep.
Each reader gets the same guarantees, so a bad file is one line naming it (the reader's
``KmcError``, exit code 2) and never a traceback, a hang on an endless device, or a run out of
memory:

* ``read_bytes`` / ``read_text``: a directory is refused; anything else that can be opened is
  read (a character device or a pipe is read like a file: ``/dev/null`` is an empty file), but
  never more than ``limit`` bytes: a longer file is refused. A pipe is opened without waiting
  for a writer and refused if it stays silent for ``PIPE_WAIT`` seconds (a named pipe nothing
  writes to; a shell's ``<(...)`` writes at once). ``read_text`` wants UTF-8.
* ``parse_json``: JSON text to Python values, refusing documents nested deeper than
  ``max_depth`` (Python's parser is recursive; a deep document would exhaust its stack) and
  numbers too long to convert.
* ``nesting_depth``: the depth of parsed values (for TOML, whose parser is recursive too),
  computed without recursion.
"""

from __future__ import annotations

import json
import os
import select
import stat

from model.errors import KmcError


def size_text(n: int) -> str:
    """``1048576`` -> ``"1 MiB"``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} bytes"


def read_bytes(path, *, what: str, limit: int, error=KmcError) -> bytes:
    """The bytes of ``path`` (at most ``limit``); ``error(one line naming the file)`` otherwise.
    ``what`` names the kind of file expected ("a trace file"), for the messages."""
    path = str(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except NotADirectoryError:
        raise error(f"{path}: no such file (a part of the path is not a directory)") from None
    except OSError as e:
        raise error(f"{path}: cannot read it: {e.strerror or e}") from None
    if stat.S_ISDIR(mode):
        raise error(f"{path} is a directory, not {what}")
    if stat.S_ISFIFO(mode):
        data = _read_pipe(path, what=what, limit=limit, error=error)
    else:
        data = _read_file(path, what=what, limit=limit, error=error)
    if len(data) > limit:
        kind = "" if stat.S_ISREG(mode) else " (it is not a regular file: a device or a pipe that does not end?)"
        raise error(f"{path} is larger than {size_text(limit)}, too large for {what}{kind}")
    return data


def _read_file(path: str, *, what: str, limit: int, error) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(limit + 1)
    except IsADirectoryError:
        raise error(f"{path} is a directory, not {what}") from None
    except OSError as e:
        raise error(f"{path}: cannot read it: {e.strerror or e}") from None


PIPE_WAIT = 5.0
"""Seconds a pipe may stay silent: a shell's ``<(...)`` writes at once, a named pipe nothing
writes to would otherwise block kmc for ever (opening it waits for a writer)."""


def _read_pipe(path: str, *, what: str, limit: int, error) -> bytes:
    """A pipe's bytes (at most ``limit + 1``): opened without waiting for a writer, then read
    while data keeps coming; a pipe silent for ``PIPE_WAIT`` seconds is refused in one line."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise error(f"{path}: cannot read it: {e.strerror or e}") from None
    chunks, size = [], 0
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP)
        while size <= limit:
            if not poller.poll(int(PIPE_WAIT * 1000)):
                raise error(f"{path} is a pipe that nothing wrote to for {PIPE_WAIT:g} s, so not {what} "
                            "(a named pipe needs a writer; give kmc a regular file)")
            try:
                chunk = os.read(fd, min(2**16, limit + 1 - size))
            except BlockingIOError:
                continue
            if not chunk:
                break  # every writer closed: the end of the file
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise error(f"{path}: cannot read it: {e.strerror or e}") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_text(path, *, what: str, limit: int, error=KmcError) -> str:
    """``read_bytes`` decoded as UTF-8 (a byte-order mark is dropped)."""
    data = read_bytes(path, what=what, limit=limit, error=error)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"{path} is not UTF-8 text (byte {e.start} is {data[e.start]:#04x}), so not {what}") from None


def nesting_depth(value, stop_at: int | None = None) -> int:
    """How deeply lists and dicts nest in ``value`` (a scalar is 0, ``[]`` is 1); stops counting
    once ``stop_at`` is passed. Iterative, so any depth is safe."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if stop_at is not None and deepest > stop_at:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_json(text: str, source: str, *, what: str, max_depth: int, error=KmcError):
    """``json.loads(text)``, with every way it can fail as ``error(one line naming source)``."""
    if not text.strip():
        raise error(f"{source} is empty, not {what}")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        cut = e.pos >= len(text.rstrip()) - 1 or e.msg.startswith("Unterminated string")
        hint = " (the file looks truncated)" if cut else ""
        # json's own messages may end in "at" ("Unterminated string starting at"): no "at at"
        where = f"line {e.lineno} column {e.colno}"
        msg = e.msg.removesuffix(" at")
        raise error(f"{source} is not valid JSON: {msg} at {where}{hint}") from None
    except RecursionError:
        raise error(f"{source} nests JSON more than {max_depth} levels deep, so it is not {what}") from None
    except ValueError as e:  # a number with thousands of digits
        raise error(f"{source} is not {what}: {str(e).split(';')[0]}") from None
    if nesting_depth(doc, stop_at=max_depth) > max_depth:
        raise error(f"{source} nests JSON more than {max_depth} levels deep, so it is not {what}")
    return doc
