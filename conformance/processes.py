"""Starting and stopping the JVMs of one run, by pid, whatever happens.

Every JVM starts in a process group of its own (``start_new_session``), so a signal sent to
the group reaches nothing else, and with ``PR_SET_PDEATHSIG`` = SIGKILL, so the kernel kills it
if the Python process that started it dies without cleaning up (kill -9 of the harness). A
``ProcessSet`` remembers every process it started and ``stop_all`` kills each one's group by
its pid and waits for it: at the end of a run, on Ctrl-C (KeyboardInterrupt passes through the
``with`` block) and after a failed start. A stopped (SIGSTOP) JVM is killed the same way:
SIGKILL needs no SIGCONT.

PDEATHSIG is tied to the *thread* that started the process: start JVMs from the thread that
runs the scenario (the harness never starts one from a worker thread).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


class RunTimeout(Exception):
    """The run's time bound passed."""


@dataclass
class Deadline:
    """A run's time bound: ``check()`` raises RunTimeout once it has passed."""
    seconds: float
    start: float = field(default_factory=time.monotonic)

    def remaining(self) -> float:
        return self.seconds - (time.monotonic() - self.start)

    def check(self, what: str = "the run") -> None:
        if self.remaining() <= 0:
            raise RunTimeout(f"{what} passed its time bound of {self.seconds:.0f} s")


@dataclass
class Started:
    name: str
    popen: subprocess.Popen
    stdout_path: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None


class ProcessSet:
    """The processes of one run."""

    def __init__(self) -> None:
        self.started: list[Started] = []

    def start(self, name: str, argv: list[str], *, stdout_path: Path, env=None) -> Started:
        stdout_path.parent.mkdir(parents=True, exist_ok=True)
        with open(stdout_path, "ab") as out:
            popen = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True, preexec_fn=_die_with_parent, env=env)
        proc = Started(name, popen, stdout_path)
        self.started.append(proc)
        return proc

    def signal(self, proc: Started, sig: int) -> None:
        """Send ``sig`` to the process group of ``proc`` (its pid), if it still runs."""
        if proc.alive():
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass

    def wait_stopped(self, proc: Started, timeout: float = 5.0) -> bool:
        """After SIGSTOP: wait until every thread of the process is stopped (state T in
        ``/proc/<pid>/task/*/stat``). A signal is delivered asynchronously, and a JVM thread busy
        on another core can still answer a request a few milliseconds after ``kill`` returned:
        found when a follower resumed right after its leader was paused got a record the paused
        leader should no longer have served."""
        deadline = time.monotonic() + timeout
        task_dir = Path(f"/proc/{proc.pid}/task")
        while time.monotonic() < deadline:
            try:
                states = [(t / "stat").read_text().rsplit(")", 1)[1].split()[0] for t in task_dir.iterdir()]
            except (FileNotFoundError, ProcessLookupError):
                return not proc.alive()
            except OSError:
                states = []
            if states and all(st in ("T", "t", "Z", "X") for st in states):
                return True
            time.sleep(0.005)
        return False

    def kill(self, proc: Started, timeout: float = 30.0) -> None:
        """kill -9 the group and reap it."""
        self.signal(proc, signal.SIGKILL)
        try:
            proc.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass

    def stop_all(self) -> list[int]:
        """Kill every process this set started (by pid), wait for each; the pids stopped."""
        stopped = []
        for proc in self.started:
            if proc.alive():
                self.signal(proc, signal.SIGKILL)
                stopped.append(proc.pid)
        for proc in self.started:
            try:
                proc.popen.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        return stopped

    def running_pids(self) -> list[int]:
        return [p.pid for p in self.started if p.alive()]


class time_bound:
    """``with time_bound(seconds):`` raises RunTimeout in the main thread once ``seconds`` have
    passed (SIGALRM), and turns SIGTERM into KeyboardInterrupt, so that every ``with Cluster``
    block inside stops its JVMs on the way out, as it does on Ctrl-C."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds

    def _alarm(self, signum, frame):
        raise RunTimeout(f"the run passed its time bound of {self.seconds:.0f} s")

    @staticmethod
    def _term(signum, frame):
        raise KeyboardInterrupt

    def __enter__(self):
        self._old = (signal.signal(signal.SIGALRM, self._alarm), signal.signal(signal.SIGTERM, self._term))
        if self.seconds:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._old[0])
        signal.signal(signal.SIGTERM, self._old[1])
        return False
