"""Stopping a run when a user or a CI asks: SIGINT (Ctrl-C) and SIGTERM.

``interruptible()`` (the command line runs every command inside it) turns both signals into a
``KeyboardInterrupt`` in the main thread and records that the run was interrupted. The engines
catch it between chunks of work and return what they have: a ``CheckResult`` whose ``limit`` is
``"interrupted"``, every undecided property INCOMPLETE, exit code 3 (``EXIT_INCOMPLETE``), never
0 or 1, because a run that was stopped verified nothing.

Two ways an interruption could otherwise be lost, and what this module does about them:

* Python raises the ``KeyboardInterrupt`` wherever the main thread happens to be, and one raised
  inside a finaliser (z3 frees its terms in ``__del__``) is swallowed and printed as "Exception
  ignored in ...". So the signal is also recorded, engines poll ``interrupted()`` at safe points,
  and once a signal came, finalisers' errors are not printed (they are the interruption's
  consequences: a swallowed ``KeyboardInterrupt``, or an object it left half-built).
* Some work runs in C for a long time without returning to Python (a z3 query); the Python
  handler would run only after it. ``cancel_on_interrupt(hook)`` registers a function that a
  watcher thread calls the moment a signal arrives (``signal.set_wakeup_fd`` wakes it), such as
  ``z3.Context.interrupt``.

A SIGINT that the parent process told us to ignore (``nohup``, a shell's background job) stays
ignored.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import sys
import threading

_received: list[int] = []  # signals received inside the current interruptible() scope
_raised: list[bool] = []  # non-empty once a KeyboardInterrupt was raised for them
_claimed: list[int] = []  # the signals whose handler interruptible() set
_hooks: list = []  # called from the watcher thread when a signal arrives
_hooks_lock = threading.Lock()
_STOP_SIGNALS = (signal.SIGINT.value, signal.SIGTERM.value)


def interrupted() -> bool:
    """Whether SIGINT or SIGTERM arrived since the enclosing ``interruptible()`` began."""
    return bool(_received)


def signal_name() -> str | None:
    """The name of the first signal received ("SIGINT", "SIGTERM"), or None."""
    return signal.Signals(_received[0]).name if _received else None


def check_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if a signal arrived (for loops that poll at safe points)."""
    if _received:
        raise_interrupt()


def raise_interrupt() -> None:
    """Raise the ``KeyboardInterrupt`` of this interruption. Python's own handler then only
    records a signal still pending rather than raising a second one, which could otherwise land
    in the engine's ``except KeyboardInterrupt`` block, while it builds its report (the watcher
    thread may stop a z3 query, and ``solve`` raise, before Python's handler has run)."""
    _raised.append(True)
    raise KeyboardInterrupt


def note_signal(signum) -> None:
    """Record a signal that another handler caught (z3 catches Ctrl-C during a query)."""
    _received.append(int(signum))


def _handler(signum, frame) -> None:
    _received.append(signum)
    if not _raised:
        raise_interrupt()


def reclaim_signals() -> None:
    """Put kmc's handlers back where a library replaced them inside an ``interruptible()`` scope.
    pyspark's ``SparkContext`` installs its own SIGINT handler, which calls ``cancelAllJobs`` on
    the py4j gateway; when Ctrl-C reaches the whole process group the JVM is stopping too, and
    that call fails with a py4j error instead of an interruption (a run that should say
    INCOMPLETE, exit 3, said "the Spark job failed", exit 2). With kmc's handler the interruption
    is recorded and raised; stopping the context cancels the jobs."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in _claimed:
        if signal.getsignal(sig) is not _handler:
            signal.signal(sig, _handler)


def _unraisable(previous):
    def hook(unraisable) -> None:
        if _received:
            # a KeyboardInterrupt a finaliser swallowed (recorded in _received: the engine polls
            # it at its next safe point), or a finaliser of an object the interruption left
            # half-built: noise that says nothing the interruption's own report does not
            return
        previous(unraisable)

    return hook


@contextlib.contextmanager
def cancel_on_interrupt(hook):
    """While the block runs, call ``hook()`` (from another thread) as soon as a signal arrives,
    and at once if one already has."""
    with _hooks_lock:
        _hooks.append(hook)
    try:
        if _received:
            hook()
        yield
    finally:
        with _hooks_lock:
            _hooks.remove(hook)


def _watch(sock: socket.socket) -> None:
    while True:
        try:
            data = sock.recv(64)
        except OSError:
            return
        if not data:
            return
        if not any(b in _STOP_SIGNALS for b in data):
            continue  # another handled signal woke us
        with _hooks_lock:
            hooks = list(_hooks)
        for hook in hooks:
            try:
                hook()
            except Exception:  # a cancel hook must never kill the watcher
                pass


@contextlib.contextmanager
def interruptible():
    """Handle SIGINT and SIGTERM as described in the module docstring while the block runs; the
    previous handlers are restored afterwards. Outside the main thread (where Python cannot set
    signal handlers) the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    _raised.clear()
    _claimed.clear()
    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        current = signal.getsignal(sig)
        if sig == signal.SIGINT and current == signal.SIG_IGN:
            continue
        previous[sig] = current
        signal.signal(sig, _handler)
        _claimed.append(sig)
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    watcher = threading.Thread(target=_watch, args=(reader,), name="kmc-interrupt", daemon=True)
    watcher.start()
    old_unraisable = sys.unraisablehook
    sys.unraisablehook = _unraisable(old_unraisable)
    try:
        yield
    finally:
        sys.unraisablehook = old_unraisable
        _claimed.clear()
        signal.set_wakeup_fd(old_fd)
        for sig, handler in previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        writer.close()  # the watcher's recv returns b"" and it ends
        watcher.join(timeout=1.0)
        reader.close()
