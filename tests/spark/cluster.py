"""A throw-away standalone Spark cluster (one master, one or more workers) on 127.0.0.1, started
from the pip-installed pyspark's ``bin/spark-class``; it stops exactly the processes it started."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

START_TIMEOUT = 90.0


def spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent / "bin" / "spark-class"


def free_port(preferred: int | None = None) -> int:
    if preferred is not None:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", preferred))
                return preferred
            except OSError:
                pass
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children_of(pid: int) -> list[tuple[int, str]]:
    """``(pid, command line)`` of the live processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                out.append((int(entry.name), cmd))
        except (OSError, ValueError, IndexError):
            continue
    return out


def executors_of(worker_pid: int) -> list[int]:
    return [pid for pid, cmd in children_of(worker_pid) if "CoarseGrainedExecutorBackend" in cmd]


class StandaloneCluster:
    def __init__(self, workdir: Path, workers: int = 1, cores: int = 2, memory: str = "2g") -> None:
        self.workdir = workdir
        self.procs: list[subprocess.Popen] = []
        self.port = free_port(7077)
        self.ui_port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.n_workers, self.cores, self.memory = workers, cores, memory
        self.workers: list[subprocess.Popen] = []
        self.seen_executors: set[int] = set()

    @property
    def worker(self) -> subprocess.Popen | None:
        return self.workers[0] if self.workers else None

    def _env(self) -> dict:
        import pyspark

        env = dict(os.environ)
        env["SPARK_HOME"] = str(Path(pyspark.__file__).resolve().parent)
        env["SPARK_LOCAL_IP"] = "127.0.0.1"
        env["SPARK_WORKER_DIR"] = str(self.workdir / "work")
        return env

    def _start(self, name: str, args: list[str]) -> subprocess.Popen:
        log = open(self.workdir / f"{name}.log", "wb")
        proc = subprocess.Popen([str(spark_class()), *args], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=self._env())
        log.close()
        self.procs.append(proc)
        return proc

    def start(self) -> "StandaloneCluster":
        self._start("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                               "--port", str(self.port), "--webui-port", str(self.ui_port)])
        for w in range(self.n_workers):
            self.workers.append(self._start(f"worker{w}", [
                "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                "--webui-port", str(free_port()), "--cores", str(self.cores), "--memory", self.memory,
                self.url,
            ]))
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            for proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"a Spark daemon exited early; see {self.workdir}")
            if self.alive_workers() >= self.n_workers:
                return self
            time.sleep(0.5)
        raise RuntimeError(f"the standalone cluster did not come up within {START_TIMEOUT:.0f} s")

    def alive_workers(self) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=2) as r:
                return int(json.load(r).get("aliveworkers", 0))
        except (OSError, ValueError):
            return 0

    def executors(self) -> list[int]:
        pids = [pid for worker in self.workers for pid in executors_of(worker.pid)]
        self.seen_executors.update(pids)
        return pids

    def stop(self) -> None:
        """Stop what we started: executors (children of our worker), the worker, the master."""
        self.executors()
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        for pid in self.seen_executors:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
