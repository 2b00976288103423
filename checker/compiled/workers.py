"""The explorer's workers: threads that run compiled phases side by side.

The compiled phases (``expand.py``) let go of Python's global lock while they run, so plain
threads run them on every core. ``Workers(n).run(task)`` calls ``task(w)`` for ``w`` in
``0 .. n-1`` at once, the calling thread taking ``w = 0``, and returns when all are done (a
phase ends for every worker before the next begins: the driver's barrier); ``run_items`` hands
out numbered items (slices of a batch, shards of the table) to whichever worker is free, so a
worker the machine keeps waiting does not hold the others up. An exception in any
worker is raised in the caller once every worker has finished, so no phase is ever left half-run
in the background. With one worker nothing is started: ``task(0)`` runs in the caller.
"""

from __future__ import annotations

import itertools
import os
import threading


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return max(os.cpu_count() or 1, 1)


class Workers:
    """``n`` workers: the caller and ``n - 1`` threads, kept for the whole run."""

    def __init__(self, n: int) -> None:
        self.n = max(int(n), 1)
        self._task = None
        self._generation = 0
        self._done = 0
        self._errors: list = []
        self._closing = False
        self._lock = threading.Condition()
        self._threads = [threading.Thread(target=self._serve, args=(w,), daemon=True,
                                          name=f"kmc-worker-{w}") for w in range(1, self.n)]
        for t in self._threads:
            t.start()

    def run(self, task) -> None:
        """``task(w)`` for every worker ``w``, at once; returns when all have returned."""
        if self.n == 1:
            task(0)
            return
        with self._lock:
            self._task = task
            self._done = 0
            self._errors = []
            self._generation += 1
            self._lock.notify_all()
        error = None
        try:
            task(0)
        except BaseException as e:  # noqa: BLE001 - re-raised below, once the others are done
            error = e
        while True:  # wait for the others, even through a Ctrl-C: they finish in milliseconds
            try:
                with self._lock:
                    while self._done < self.n - 1:
                        self._lock.wait()
                    self._task = None
                break
            except KeyboardInterrupt as e:
                error = error or e
        if error is not None:
            raise error
        if self._errors:
            raise self._errors[0]

    def run_items(self, count: int, work, parallel: bool = True) -> None:
        """``work(w, i)`` for every item ``i`` in ``0 .. count-1``, each worker taking the next
        item left until none is (a worker that the machine keeps waiting takes fewer); with
        ``parallel`` False, all of them on the calling thread."""
        if not parallel or self.n == 1 or count <= 1:
            for i in range(count):
                work(0, i)
            return
        items = itertools.count()  # next() on it is atomic under the GIL

        def task(w):
            for i in items:
                if i >= count:
                    return
                work(w, i)
        self.run(task)

    def close(self) -> None:
        with self._lock:
            self._closing = True
            self._lock.notify_all()
        for t in self._threads:
            t.join(timeout=5)

    def _serve(self, w: int) -> None:
        seen = 0
        while True:
            with self._lock:
                while self._generation == seen and not self._closing:
                    self._lock.wait()
                if self._closing:
                    return
                seen = self._generation
                task = self._task
            try:
                task(w)
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                with self._lock:
                    self._errors.append(e)
            finally:
                with self._lock:
                    self._done += 1
                    self._lock.notify_all()
