"""Asking z3, interruptibly: every query of BMC and k-induction goes through ``solve``.

A z3 query runs in C and may take minutes. While it runs, Python's signal handlers cannot: z3
catches Ctrl-C itself (the query returns ``unknown``, "interrupted from keyboard"), and a SIGTERM
would wait for the query to end. ``solve`` registers the solver's ``Context.interrupt`` with
``checker.interrupt`` so either signal stops the query at once, and turns an interrupted query
into a ``KeyboardInterrupt``, which the engines handle like any other interruption. A query
stopped by its own timeout (``solver.set("timeout", ms)``) still returns ``unknown``.
"""

from __future__ import annotations

import signal
import threading
import time

import z3

from checker.interrupt import cancel_on_interrupt, check_interrupted, note_signal, raise_interrupt


HEARTBEAT_SECONDS = 10.0


def solve(solver: z3.Solver, heartbeat=None):
    """``solver.check()``, raising ``KeyboardInterrupt`` if SIGINT or SIGTERM stopped it.
    ``heartbeat(seconds)`` is called every ``HEARTBEAT_SECONDS`` while z3 works (from another
    thread: the query holds the main one), so a long query is never silent."""
    check_interrupted()  # a signal that came while the query was being built
    done = threading.Event()
    if heartbeat is not None:
        threading.Thread(target=_beat, args=(done, heartbeat), daemon=True).start()
    try:
        with cancel_on_interrupt(solver.ctx.interrupt):
            answer = solver.check()
    finally:
        done.set()
    if answer == z3.unknown:
        reason = solver.reason_unknown()
        if "keyboard" in reason:
            note_signal(signal.SIGINT)
        if "interrupted" in reason:
            raise_interrupt()
    check_interrupted()
    return answer


def _beat(done: threading.Event, heartbeat) -> None:
    started = time.monotonic()
    while not done.wait(HEARTBEAT_SECONDS):
        heartbeat(time.monotonic() - started)
