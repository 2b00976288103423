"""One KRaft controller and three brokers of a real Kafka release on 127.0.0.1.

``with Cluster.start(release, run_dir) as cluster:`` formats every node's storage with Kafka's
own StorageTool (``kafka.tools.StorageTool format``), starts the four JVMs, and returns once
every broker has logged that the controller unfenced it (readiness is an observation, never a
fixed sleep); leaving the block, normally, on Ctrl-C or on any error, kills every JVM it started
by pid (``processes.ProcessSet``). A broker that exits during start fails the start with the
tail of its log.

The interventions are kmc's environment actions made real:

================ ===================================== =========================================
method           what it does                          kmc
================ ===================================== =========================================
``kill9(b)``     SIGKILL: the page cache survives,     ``BrokerCrash`` with ``--crash-model
                 no clean-shutdown file                process``
``terminate(b)`` SIGTERM: controlled shutdown, then    ``ControllerHandleControlledShutdown`` +
                 exit (waits for the exit)             ``BrokerShutdown``
``pause(b)``     SIGSTOP: no fetches, no heartbeats,   metadata lag, a fetch response in flight;
                 no metadata                           fencing once longer than the session
``resume(b)``    SIGCONT                               ``ControllerUnfenceBroker`` if fenced
``restart(b)``   a new JVM on the same storage,        ``BrokerRestart``
                 waits until it is unfenced again
``wipe(b)``      kill -9, delete its log and metadata  ``--crash-model disk-loss``
                 directories, re-format, restart
================ ===================================== =========================================
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import signal
import socket
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from conformance import processes
from conformance.jars import KafkaRelease
from conformance.nodeconfig import (CONTROLLER_ID, ClusterSettings, NodeLayout, broker_properties,
                                    controller_properties, log4j2_text)

JVM_BROKER_HEAP = "384m"
JVM_CONTROLLER_HEAP = "256m"
# Small, cheap JVMs: four of them share 2 cores with other work. C1 only and the serial
# collector cut start-up CPU; nothing here is a throughput test.
JVM_FLAGS = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k", "-XX:MaxMetaspaceSize=160m",
             "-XX:ReservedCodeCacheSize=48m", "-Djava.awt.headless=true", "-Dkafka.logs.dir=."]

BROKER_READY = re.compile(r"Kafka Server started")  # logged after "The broker has been unfenced"
SERVER_STARTED = re.compile(r"Kafka Server started")
START_TIMEOUT_S = 180.0


class ClusterStartError(Exception):
    """A node did not come up; the message names it and quotes its log."""


def free_ports(n: int) -> list[int]:
    """``n`` distinct ports free on 127.0.0.1 now (bound to port 0 together, then released)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def random_cluster_id() -> str:
    """A cluster id as `kafka-storage random-uuid` makes one: 16 random bytes in URL-safe base64,
    never starting with '-' (Kafka's ``Uuid.randomUuid`` draws again then: ``kafka-storage
    format -t -x...`` would read the id as an option and fail, as one CI-like run here did)."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


@dataclass
class Node:
    layout: NodeLayout
    role: str                                  # "broker" or "controller"
    proc: processes.Started | None = None
    paused: bool = False
    starting_mark: "LogMark | None" = None     # a restart not yet waited for (nemesis)

    @property
    def node_id(self) -> int:
        return self.layout.node_id

    def running(self) -> bool:
        return self.proc is not None and self.proc.alive()


@dataclass
class LogMark:
    """A position in a node's log file: ``Cluster.wait_for`` looks only at lines after it."""
    node_id: int
    offset: int


@dataclass
class Cluster:
    release: KafkaRelease
    run_dir: Path
    settings: ClusterSettings
    features: dict[str, int]
    cluster_id: str
    controller: Node
    brokers: dict[int, Node]
    procs: processes.ProcessSet = field(default_factory=processes.ProcessSet)
    start_seconds: float = 0.0
    interventions: list[dict] = field(default_factory=list)

    # ------------------------------------------------------------------ start and stop

    @classmethod
    def start(cls, release: KafkaRelease, run_dir: Path, settings: ClusterSettings | None = None,
              *, features: dict[str, int] | None = None, timeout: float = START_TIMEOUT_S) -> "Cluster":
        """Format and start a cluster; on any failure every JVM started is killed first."""
        settings = settings or ClusterSettings()
        run_dir = Path(run_dir).resolve()
        run_dir.mkdir(parents=True, exist_ok=True)
        ports = free_ports(settings.brokers + 1)
        ctl = Node(NodeLayout(CONTROLLER_ID, run_dir / "controller", ports[0]), "controller")
        brokers = {b: Node(NodeLayout(b, run_dir / f"broker{b}", ports[b + 1]), "broker")
                   for b in range(settings.brokers)}
        cluster = cls(release, run_dir, settings, dict(features or {}), random_cluster_id(), ctl, brokers)
        t0 = time.monotonic()
        try:
            cluster._write_configs()
            cluster._format([ctl, *brokers.values()], timeout)
            cluster._launch(ctl)
            for node in brokers.values():
                cluster._launch(node)
            deadline = processes.Deadline(timeout)
            cluster._wait_line(ctl, SERVER_STARTED, 0, deadline)
            for node in brokers.values():
                cluster._wait_line(node, BROKER_READY, 0, deadline)
        except BaseException:
            cluster.stop()
            raise
        cluster.start_seconds = time.monotonic() - t0
        return cluster

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> list[int]:
        """Kill every JVM this cluster started, by pid; the pids that were still running."""
        return self.procs.stop_all()

    # ------------------------------------------------------------------ set-up

    def _nodes(self) -> list[Node]:
        return [self.controller, *self.brokers.values()]

    def _write_configs(self) -> None:
        for node in self._nodes():
            lay = node.layout
            lay.root.mkdir(parents=True, exist_ok=True)
            text = (controller_properties(lay, self.settings) if node.role == "controller"
                    else broker_properties(lay, self.controller.layout, self.settings))
            lay.properties_file.write_text(text)
            lay.log4j_file.write_text(log4j2_text(lay.log_file))

    def _java(self, heap: str, main: str, args: list[str], log4j: Path | None = None) -> list[str]:
        argv = ["java", f"-Xms{heap}", f"-Xmx{heap}", *JVM_FLAGS]
        if log4j is not None:
            argv.append(f"-Dlog4j2.configurationFile={log4j}")
        return [*argv, "-cp", str(self.release.lib / "*"), main, *args]

    def _format(self, nodes: list[Node], timeout: float) -> None:
        """``StorageTool format`` for each node, all at once; raise on the first failure."""
        started = []
        for node in nodes:
            args = ["format", "-t", self.cluster_id, "-c", str(node.layout.properties_file)]
            for name, level in sorted(self.features.items()):
                args += ["--feature", f"{name}={level}"]
            out = node.layout.root / "format.out"
            started.append((node, self.procs.start(f"format-{node.node_id}",
                                                   self._java("128m", "kafka.tools.StorageTool", args), stdout_path=out)))
        for node, proc in started:
            try:
                code = proc.popen.wait(timeout=timeout)
            except Exception:
                raise ClusterStartError(f"formatting node {node.node_id} took longer than {timeout:.0f} s") from None
            if code != 0:
                raise ClusterStartError(f"formatting node {node.node_id} failed (exit {code}): "
                                        + _tail(proc.stdout_path))

    def _launch(self, node: Node) -> None:
        heap = JVM_CONTROLLER_HEAP if node.role == "controller" else JVM_BROKER_HEAP
        argv = self._java(heap, "kafka.Kafka", [str(node.layout.properties_file)], node.layout.log4j_file)
        node.proc = self.procs.start(f"{node.role}-{node.node_id}", argv,
                                     stdout_path=node.layout.root / "stdout.log")
        node.paused = False

    # ------------------------------------------------------------------ observing log lines

    def mark(self, node_id: int) -> LogMark:
        """The current end of a node's log: wait for lines written after this point."""
        path = self._node(node_id).layout.log_file
        return LogMark(node_id, path.stat().st_size if path.exists() else 0)

    def wait_for(self, mark: LogMark, pattern: str | re.Pattern, timeout: float = 30.0) -> re.Match:
        """Block until a line after ``mark`` in that node's log matches; TimeoutError if not."""
        return self._wait_line(self._node(mark.node_id), re.compile(pattern), mark.offset,
                               processes.Deadline(timeout), require_alive=False)

    def find(self, mark: LogMark, pattern: str | re.Pattern) -> list[re.Match]:
        """Every match after ``mark`` so far (no waiting)."""
        rx = re.compile(pattern)
        text = self._read_from(self._node(mark.node_id), mark.offset)
        return [m for line in text.splitlines() if (m := rx.search(line))]

    def _read_from(self, node: Node, offset: int) -> str:
        try:
            with open(node.layout.log_file, "rb") as f:
                f.seek(offset)
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def _wait_line(self, node: Node, rx: re.Pattern, offset: int, deadline: processes.Deadline,
                   require_alive: bool = True) -> re.Match:
        buf = ""
        pos = offset
        while True:
            chunk = self._read_from(node, pos)
            if chunk:
                pos += len(chunk.encode("utf-8", "replace"))
                buf += chunk
                lines = buf.split("\n")
                buf = lines.pop()
                for line in lines:
                    m = rx.search(line)
                    if m:
                        return m
            if require_alive and not node.running():
                code = node.proc.popen.poll() if node.proc else None
                raise ClusterStartError(f"{node.role} {node.node_id} exited (code {code}) before "
                                        f"logging /{rx.pattern}/: " + _tail(node.layout.log_file)
                                        + " | " + _tail(node.layout.root / "stdout.log"))
            if deadline.remaining() <= 0:
                raise TimeoutError(f"{node.role} {node.node_id}: no line /{rx.pattern}/ within "
                                   f"{deadline.seconds:.0f} s")
            time.sleep(0.05)

    # ------------------------------------------------------------------ interventions

    def _node(self, node_id: int) -> Node:
        return self.controller if node_id == CONTROLLER_ID else self.brokers[node_id]

    def _note(self, action: str, broker: int, **extra) -> None:
        self.interventions.append({"ts": time.time(), "source": "harness", "kind": action,
                                   "broker": broker, **extra})

    def bootstrap(self, exclude: set[int] = frozenset()) -> str:
        """``host:port,...`` of the running, unpaused brokers not in ``exclude``."""
        return ",".join(f"127.0.0.1:{n.layout.port}" for b, n in sorted(self.brokers.items())
                        if n.running() and not n.paused and b not in exclude)

    def usable(self) -> list[int]:
        """Brokers that run and are not paused."""
        return [b for b, n in sorted(self.brokers.items()) if n.running() and not n.paused]

    def kill9(self, b: int) -> None:
        node = self.brokers[b]
        self._note("kill -9", b, pid=node.proc.pid if node.proc else None)
        if node.proc:
            self.procs.kill(node.proc)
        node.paused = False

    def terminate(self, b: int, timeout: float = 60.0) -> None:
        """SIGTERM (controlled shutdown) and wait until the JVM has exited."""
        node = self.brokers[b]
        self._note("SIGTERM", b, pid=node.proc.pid)
        if node.paused:
            self.resume(b)
        self.procs.signal(node.proc, signal.SIGTERM)
        try:
            node.proc.popen.wait(timeout=timeout)
        except Exception:
            self.procs.kill(node.proc)
            raise TimeoutError(f"broker {b} did not finish its controlled shutdown within {timeout:.0f} s")

    def pause(self, b: int) -> None:
        """SIGSTOP, and return only once every thread of the JVM has stopped."""
        node = self.brokers[b]
        self._note("SIGSTOP", b)
        self.procs.signal(node.proc, signal.SIGSTOP)
        if not self.procs.wait_stopped(node.proc):
            raise TimeoutError(f"broker {b} did not stop within 5 s of SIGSTOP")
        node.paused = True

    def resume(self, b: int) -> None:
        node = self.brokers[b]
        self._note("SIGCONT", b)
        self.procs.signal(node.proc, signal.SIGCONT)
        node.paused = False

    def restart(self, b: int, timeout: float = 120.0) -> None:
        """Start broker ``b`` again on its storage; return once the controller unfenced it."""
        node = self.brokers[b]
        if node.running():
            raise RuntimeError(f"broker {b} still runs")
        mark = self.mark(b)
        self._note("restart", b)
        self._launch(node)
        self._wait_line(node, BROKER_READY, mark.offset, processes.Deadline(timeout))

    def wipe(self, b: int, timeout: float = 120.0, restart: bool = True) -> None:
        """A lost disk: kill -9, delete the broker's data and metadata directories, format them
        again with the same cluster and node id, and (by default) restart it."""
        self.kill9(b)
        lay = self.brokers[b].layout
        self._note("wipe", b)
        shutil.rmtree(lay.data_dir, ignore_errors=True)
        shutil.rmtree(lay.meta_dir, ignore_errors=True)
        self._format([self.brokers[b]], timeout)
        if restart:
            self.restart(b, timeout)

    def power_loss(self, b: int, topics: list[str]) -> dict[str, int]:
        """An approximation of power loss, and no more: kill -9, then cut each of ``topics``'
        partition logs on broker ``b`` back to the recovery point Kafka last checkpointed
        (``recovery-point-offset-checkpoint``; the log start when it has no entry), whole batches,
        and delete the offset indexes so that recovery rebuilds them. Returns the records cut
        per topic.

        It is power loss only where nothing of the partition's data was fsynced after that
        checkpoint: Kafka fsyncs a partition's data at a segment roll, at ``log.flush.*``
        thresholds (off by default) and at a clean shutdown; with one segment, default flush
        settings and kill -9, none of these happens, so the checkpointed recovery point is the
        last fsync and everything after it may be lost (the worst case, which kmc's power-loss
        model allows). Checkpoint files (HW, leader epochs) and the metadata log are kept, as
        Kafka fsyncs them. It is not a model of a disk's or a file system's behaviour (torn
        writes, reordered metadata): that would need a file system layer (LazyFS or FUSE)."""
        from conformance import segments  # noqa: PLC0415 - the reader stays out of the launcher
        self.kill9(b)
        data = self.brokers[b].layout.data_dir
        cut = {}
        for topic in topics:
            pdir = segments.partition_dir(data, topic)
            if len(segments.segments(pdir)) != 1:
                raise RuntimeError(f"power-loss emulation needs one segment; {pdir} has {len(segments.segments(pdir))}")
            point = segments.offset_checkpoint(data, "recovery-point-offset-checkpoint", topic) or 0
            before = len(segments.read_log(pdir))
            segments.truncate_to(pdir, point)
            cut[topic] = before - len(segments.read_log(pdir))
        self._note("power loss", b, recovery_points={t: segments.offset_checkpoint(data, "recovery-point-offset-checkpoint", t)
                                                     for t in topics}, records_cut=cut)
        return cut

    def pids(self) -> dict[str, int]:
        return {p.name: p.pid for p in self.procs.started if p.alive()}


def _tail(path: Path, n: int = 4) -> str:
    try:
        lines = Path(path).read_text(errors="replace").strip().splitlines()
    except FileNotFoundError:
        return f"({path} missing)"
    keep = [l for l in lines if "ERROR" in l or "Exception" in l][-n:] or lines[-n:]
    return " | ".join(l.strip()[:300] for l in keep)
