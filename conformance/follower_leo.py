"""The follower-LEO experiment (docs/findings.md): can Kafka acknowledge a record that an ISR
member lacks, and then lose it, with no crash and no unclean election?

kmc's trace (findings.md) needs a broker that keeps leading while it misses a leader epoch, so
that ``Partition.makeLeader`` sees ``isNewLeader = false`` and keeps its followers' log end
offsets from before a truncation. Under KRaft a broker that lags on metadata applies the
records of several partition changes as one delta. The schedule below makes that happen with
SIGSTOP/SIGCONT and failure-free leader moves only: each move is a reassignment that reorders
the replicas (same set: the controller completes it at once, only the partition epoch moves)
followed by a preferred-replica election (``ElectLeaders(PREFERRED)``), which an operator can do
at any time. RF=3, assignment [0,1,2], acks=all, min.insync.replicas=2, unclean election off;
the session and lag timeouts are raised to 60 s so that nothing time-driven (fencing, ISR
shrink) happens during the short pauses.

=== ========================================================= ==================================
 #  harness                                                    barrier (observation)
=== ========================================================= ==================================
 1  SIGSTOP 2 (after its parked fetch was answered)           —
 2  produce r1 (acks=all) to leader 0                         broker 1's file holds r1; broker 0
                                                               logs "Recorded replica 1 ... (LEO)
                                                               position 1"
 3  SIGSTOP 0, SIGCONT 2                                      —
 4  reorder [2,0,1] + preferred election (through 1 or 2)     controller: leader 0 -> 2, epoch 1
 5  wait                                                       broker 1 truncates r1 (file empty)
 6  SIGSTOP 1; reorder [0,2,1] + preferred election           controller: leader 2 -> 0, epoch 2
 7  SIGCONT 0                                                  broker 0: "starts at leader epoch 2
                                                               ... Previous leader Some(0) and
                                                               previous leader epoch was 0"
 8  wait                                                       the producer's ack of r1 (offset 0)
                                                               while broker 1 (ISR) has no r1
 9  reorder [1,0,2] + preferred election; SIGCONT 1           controller: leader 0 -> 1, epoch 3
10  settle: the old producer's r2; a new producer's r3         r3 acknowledged; the three replicas'
    acknowledged; every broker runs                            files identical and holding r3
11  read the partition; judge r1 on every replica's files      r1 at its offset, or on no replica
=== ========================================================= ==================================

Each step reports what it observed; a barrier that times out ends the run as *diverged at step
k* with what was seen instead, so a run that does not lose r1 says where Kafka left the path.

**When r1 counts as lost** (``judge``): it was acknowledged, the final read does not return it
at its offset, *and no replica's segment files hold it*, read after the cluster has settled:
every broker running, a record written after the last election (r3, by a new producer: the
first producer's r2 fails with OutOfOrderSequence because the new leader lost r1's sequence)
acknowledged, and the three replicas' logs identical. Before this settling step the harness read
the new leader at its high watermark some 0.4 s after the election and killed the cluster: in 17
of the 19 runs kept from issue 23, two of the three replicas' files still held r1 (their
truncation to the new leader comes a fetch round later), so "lost" rested on one broker's view.
A replica that still holds r1 after settling would make the run *not settled*, never *lost*.
The run also records what "no crash, no unclean election" rests on (``checks``): every JVM
alive, one start per node, no ``UNCLEAN partition change`` and no ISR change in the
controller's log.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from conformance import events, segments
from conformance.admin import Admin, PREFERRED
from conformance.cluster import Cluster
from conformance.history import History, Producer, check, read_partition
from conformance.nodeconfig import ClusterSettings, Timeouts

TOPIC = "kmc-leo"
FETCH_WAIT_S = 0.5 + 0.7   # replica.fetch.wait.max.ms (500 ms) and a margin: a parked fetch was answered

DECISIVE = [
    ("makeLeader", r"Leader \S+ with topic id \S+ starts at leader epoch (\d+) from offset (\d+).*"
                   r"Previous leader (\S+) and previous leader epoch was (-?\d+)"),
    ("makeFollower", r"Follower \S+ starts at leader epoch (\d+) from offset (\d+).*Current leader is (-?\d+)"),
    ("hw", r"High watermark updated from \(offset=(\d+).* to \(offset=(\d+)"),
    ("truncate", r"Truncating partition \S+ with TruncationState\(offset=(\d+)"),
    ("truncate-log", r"Truncating to offset (\d+)"),
    ("delta", r"handleCommit: Generated a metadata delta between (\d+) and (\d+) from (\d+) batch"),
    ("partition-change", r"partition change for " + TOPIC + r"-0 with topic ID \S+: (.*)"),
    ("recorded-leo", r"Recorded replica (\d+) log end offset \(LEO\) position (\d+)"),
]


@dataclass
class Step:
    number: int
    action: str
    status: str = "pending"      # done | diverged
    observed: str = ""
    seconds: float = 0.0


@dataclass
class LeoRun:
    version: str
    steps: list[Step] = field(default_factory=list)
    evidence: list[dict] = field(default_factory=list)
    history: History = field(default_factory=History)
    verdict: dict | None = None
    acked_while_isr_lacked: bool | None = None
    epoch_skip_seen: bool | None = None
    lost: bool | None = None
    judgement: dict | None = None                   # judge(): r1 on the read and on each replica
    checks: dict | None = None                      # no crash, no unclean election, ISR unchanged
    replica_logs: dict | None = None                # each broker's partition log after settling
    diverged_at: int | None = None
    run_dir: str = ""
    pauses: list = field(default_factory=list)      # (broker, seconds between SIGSTOP and SIGCONT)
    cluster_start_seconds: float = 0.0
    experiment_seconds: float = 0.0

    def outcome(self) -> str:
        if self.lost:
            j, c = self.judgement or {}, self.checks or {}
            quiet = c.get("all_alive") and not c.get("restarts") and not c.get("unclean_elections") \
                and not c.get("isr_changes")
            return (f"reproduced: acknowledged r1@{j.get('offset')} on no replica after settling "
                    f"(offset {j.get('offset')} now holds {j.get('offset_now_holds')})"
                    + ("; no crash, no unclean election, ISR unchanged" if quiet else f"; checks: {c}"))
        if self.judgement and self.judgement.get("replicas_holding"):
            return (f"not settled: r1 acknowledged, still on broker(s) {self.judgement['replicas_holding']}"
                    f"; {(self.verdict or {}).get('summary', '')}")
        if self.diverged_at is not None:
            step = self.steps[self.diverged_at - 1]
            return f"diverged at step {step.number} ({step.action}): {step.observed}"
        return "not reproduced: " + (self.verdict or {}).get("summary", "")

    def as_dict(self) -> dict:
        return {"version": self.version, "outcome": self.outcome(), "lost": self.lost,
                "epoch_skip_seen": self.epoch_skip_seen, "acked_while_isr_lacked": self.acked_while_isr_lacked,
                "diverged_at": self.diverged_at, "steps": [s.__dict__ for s in self.steps],
                "pauses": self.pauses, "cluster_start_seconds": round(self.cluster_start_seconds, 1), "experiment_seconds": round(self.experiment_seconds, 2),
                "verdict": self.verdict, "judgement": self.judgement, "checks": self.checks,
                "replica_logs": self.replica_logs, "evidence": self.evidence, "run_dir": self.run_dir}


class Diverged(Exception):
    pass


def settings() -> ClusterSettings:
    return ClusterSettings(timeouts=Timeouts(broker_session_timeout_ms=60000, broker_heartbeat_interval_ms=2000,
                                             replica_lag_time_max_ms=60000), min_insync_replicas=2)


def run(release, run_dir: Path, *, barrier_s: float = 30.0, log=print) -> LeoRun:
    result = LeoRun(release.version, run_dir=str(run_dir))
    with Cluster.start(release, run_dir, settings()) as cluster:
        log(f"  cluster up in {cluster.start_seconds:.1f} s")
        result.cluster_start_seconds = cluster.start_seconds
        try:
            _experiment(cluster, result, barrier_s, log)
        finally:
            stopped = {}
            for ev in cluster.interventions:
                if ev["kind"] == "SIGSTOP":
                    stopped[ev["broker"]] = ev["ts"]
                elif ev["kind"] == "SIGCONT" and ev["broker"] in stopped:
                    result.pauses.append((ev["broker"], round(ev["ts"] - stopped.pop(ev["broker"]), 2)))
            events.save(run_dir, events.collect(cluster, result.history, TOPIC))
    return result


def _step(result: LeoRun, action: str) -> Step:
    s = Step(len(result.steps) + 1, action)
    result.steps.append(s)
    return s


def _data(cluster: Cluster, b: int) -> Path:
    return segments.partition_dir(cluster.brokers[b].layout.data_dir, TOPIC)


def _wait(cond, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise Diverged(what)


def _experiment(cluster: Cluster, result: LeoRun, barrier_s: float, log) -> None:
    admin = Admin(cluster)
    ctl = cluster.controller.node_id
    marks = {b: cluster.mark(b) for b in (0, 1, 2, ctl)}
    admin.create_topic(TOPIC, [0, 1, 2], {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"})
    # initial state: 0 leads epoch 0, both followers have fetched from it
    for f in (1, 2):
        cluster.wait_for(marks[0], rf"Recorded replica {f} log end offset \(LEO\) position 0", barrier_s)
    producer = Producer(cluster.bootstrap(exclude={1, 2}), TOPIC, result.history, acks="all",
                        request_timeout_ms=120000, delivery_timeout_ms=180000)
    # the producer learns the leader (and gets its producer id) before any pause
    producer.send("r0-warmup")
    producer.wait(30)
    current = None
    try:
        t0 = time.monotonic()
        current = _step(result, "SIGSTOP 2 after its parked fetch was answered")
        cluster.pause(2)
        time.sleep(FETCH_WAIT_S)  # not a readiness wait: lets broker 0 answer 2's parked fetch (empty)
        current.status, current.observed = "done", "broker 2 stopped"

        current = _step(result, "produce r1 (acks=all) to leader 0")
        m0 = cluster.mark(0)
        base = segments.log_end_offset(_data(cluster, 0))
        producer.send("r1")
        _wait(lambda: any(r.value == b"r1" for r in segments.read_log(_data(cluster, 1))), barrier_s,
              "broker 1's log never got r1")
        cluster.wait_for(m0, rf"Recorded replica 1 log end offset \(LEO\) position {base + 1}", barrier_s)
        if result.history.acked().get("r1") is not None:
            raise Diverged("r1 was acknowledged before broker 2 fetched it")
        current.status, current.observed = "done", (f"r1 at offset {base} on brokers 0 and 1; broker 0 "
                                                    f"recorded LEO(1) = {base + 1}; not acknowledged")

        current = _step(result, "SIGSTOP 0, SIGCONT 2")
        cluster.pause(0)
        cluster.resume(2)
        current.status, current.observed = "done", "broker 0 stopped, broker 2 running"

        current = _step(result, "reorder [2,0,1] + preferred election: leader 0 -> 2")
        mc, m1, m2 = cluster.mark(ctl), cluster.mark(1), cluster.mark(2)
        admin.reassign(TOPIC, [2, 0, 1], via=1)
        admin.elect(TOPIC, PREFERRED, via=1)
        m = cluster.wait_for(mc, r"partition change for " + TOPIC + r"-0 .*leader: 0 -> 2, leaderEpoch: (\d+) -> (\d+)", barrier_s)
        e1 = int(m.group(2))
        cluster.wait_for(m2, rf"Leader {TOPIC}-0 .* starts at leader epoch {e1} ", barrier_s)
        current.status, current.observed = "done", f"controller: leader 0 -> 2, epoch {m.group(1)} -> {e1}"

        current = _step(result, "broker 1 follows 2 and truncates r1")
        _wait(lambda: not any(r.value == b"r1" for r in segments.read_log(_data(cluster, 1))), barrier_s,
              "broker 1 kept r1 (no truncation)")
        current.status, current.observed = "done", f"broker 1's log: {[r.as_dict() for r in segments.read_log(_data(cluster, 1))]}"

        current = _step(result, "SIGSTOP 1; reorder [0,2,1] + preferred election: leader 2 -> 0")
        cluster.pause(1)
        mc = cluster.mark(ctl)
        admin.reassign(TOPIC, [0, 2, 1], via=2)
        admin.elect(TOPIC, PREFERRED, via=2)
        m = cluster.wait_for(mc, r"partition change for " + TOPIC + r"-0 .*leader: 2 -> 0, leaderEpoch: (\d+) -> (\d+)", barrier_s)
        e2 = int(m.group(2))
        current.status, current.observed = "done", f"controller: leader 2 -> 0, epoch {m.group(1)} -> {e2}"

        current = _step(result, "SIGCONT 0: it applies both changes in one delta")
        m0 = cluster.mark(0)
        cluster.resume(0)
        m = cluster.wait_for(m0, rf"Leader {TOPIC}-0 .* starts at leader epoch {e2} .*Previous leader (\S+) and previous leader epoch was (-?\d+)", barrier_s)
        result.epoch_skip_seen = m.group(1) == "Some(0)" and int(m.group(2)) < e2 - 1
        current.observed = m.group(0)
        if not result.epoch_skip_seen:
            current.status = "diverged"
            raise Diverged(f"broker 0 did not skip epoch {e1}: {m.group(0)}")
        current.status = "done"

        current = _step(result, "broker 2 catches up from 0; r1 acknowledged while broker 1 (ISR) lacks it")
        acked = _wait(lambda: result.history.acked().get("r1") is not None, barrier_s, "r1 never acknowledged")
        log1 = segments.read_log(_data(cluster, 1))
        view = admin.partition(TOPIC, via=2)
        result.acked_while_isr_lacked = (1 in view.isr) and not any(r.value == b"r1" for r in log1)
        current.status = "done"
        current.observed = (f"ack r1@{result.history.acked()['r1']}; ISR {list(view.isr)} (broker 2's view); "
                            f"broker 1's log {[r.as_dict() for r in log1]}")
        del acked

        current = _step(result, "reorder [1,0,2] + preferred election: leader 0 -> 1; SIGCONT 1")
        mc, m1 = cluster.mark(ctl), cluster.mark(1)
        admin.reassign(TOPIC, [1, 0, 2], via=0)
        admin.elect(TOPIC, PREFERRED, via=0)
        m = cluster.wait_for(mc, r"partition change for " + TOPIC + r"-0 .*leader: 0 -> 1, leaderEpoch: (\d+) -> (\d+)", barrier_s)
        e3 = int(m.group(2))
        cluster.resume(1)
        cluster.wait_for(m1, rf"Leader {TOPIC}-0 .* starts at leader epoch {e3} ", barrier_s)
        current.status, current.observed = "done", f"controller: leader 0 -> 1, epoch {m.group(1)} -> {e3}"

        current = _step(result, "settle: every broker runs; a new producer's r3 acknowledged and on every replica")
        _settle(cluster, result, producer, marks[ctl], barrier_s)
        current.status = "done"
        current.observed = (f"replica logs {result.replica_logs}; checks {result.checks}")

        current = _step(result, "read the partition back; judge r1 on the read and on every replica")
        final = read_partition(cluster.bootstrap(), TOPIC, result.history, label="final")
        verdict = check(result.history, final)
        result.verdict = verdict.as_dict()
        logs = {b: [(r["offset"], r["value"]) for r in rs] for b, rs in result.replica_logs.items()}
        result.judgement = judge("r1", result.history.acked().get("r1"), final, logs)
        result.lost = result.judgement["lost"]
        current.status, current.observed = "done", f"final read {final}; {verdict.summary()}; {result.judgement}"
        result.experiment_seconds = time.monotonic() - t0
        log(f"  done in {result.experiment_seconds:.1f} s")
    except (Diverged, TimeoutError) as exc:
        if current is not None:
            current.status = "diverged"
            current.observed = current.observed or str(exc)
            result.diverged_at = current.number
    finally:
        producer.close()
        result.evidence = collect_evidence(cluster, marks)


def _settle(cluster: Cluster, result: LeoRun, producer: Producer, ctl_mark, barrier_s: float) -> None:
    """Let the cluster converge after the last election, so that "lost" is judged on every
    replica and not on one broker's view a fraction of a second after the election."""
    producer.send("r2")          # the first producer: OutOfOrderSequence when the leader lost r1
    producer.wait(30)
    fresh = Producer(cluster.bootstrap(), TOPIC, result.history, acks="all", request_timeout_ms=30000)
    try:
        fresh.send("r3")
        fresh.wait(barrier_s)
    finally:
        fresh.close()
    if result.history.acked().get("r3") is None:
        raise Diverged("the cluster did not settle: r3 was not acknowledged")

    def converged():
        logs = {b: [(r.offset, r.value) for r in segments.read_log(_data(cluster, b))] for b in cluster.brokers}
        first = logs[min(logs)]
        same = all(v == first for v in logs.values()) and any(v == b"r3" for _, v in first)
        return logs if same else None
    try:
        _wait(converged, barrier_s, "the replicas' logs did not converge")
    finally:
        result.replica_logs = {b: [r.as_dict() for r in segments.read_log(_data(cluster, b))] for b in cluster.brokers}
        result.checks = quiet_checks(cluster, ctl_mark)


def quiet_checks(cluster: Cluster, ctl_mark) -> dict:
    """What "no crash, no unclean election, ISR unchanged" rests on in this run: every JVM still
    alive and unpaused, one "Kafka Server started" per node log, and, in the controller's log since
    the topic was created, no ``UNCLEAN partition change`` and no partition change with an
    ``isr:`` field (reorders and elections change replicas/leader only)."""
    nodes = [cluster.controller, *cluster.brokers.values()]
    starts = {n.node_id: cluster._read_from(n, 0).count("Kafka Server started") for n in nodes}
    lines = [m.group(0) for m in cluster.find(ctl_mark, r"(UNCLEAN )?partition change for " + TOPIC + r"-0 .*")]
    return {"all_alive": all(n.running() and not n.paused for n in nodes),
            "restarts": sum(c - 1 for c in starts.values() if c > 1) + sum(1 for c in starts.values() if c == 0),
            "unclean_elections": sum(1 for line in lines if line.startswith("UNCLEAN")),
            "isr_changes": sum(1 for line in lines if "isr: [" in line)}


def judge(value: str, acked_offset: int | None, final: list[tuple[int, str]],
          replica_logs: dict[int, list[tuple[int, bytes | str | None]]]) -> dict:
    """Is the acknowledged ``value`` lost? Only if the final read does not return it at its offset
    *and* no replica's log holds it anywhere: a record still in some replica's files can come back
    with an election, so that is "not settled", never "lost"."""
    def text(v):
        return v.decode("utf-8", "replace") if isinstance(v, bytes) else v
    holding = sorted(b for b, log in replica_logs.items() if any(text(v) == value for _, v in log))
    at = dict(final)
    in_read = acked_offset is not None and at.get(acked_offset) == value
    return {"value": value, "offset": acked_offset, "in_final_read": in_read,
            "offset_now_holds": at.get(acked_offset), "replicas_holding": holding,
            "lost": acked_offset is not None and not in_read and not holding}


def collect_evidence(cluster: Cluster, marks: dict) -> list[dict]:
    """The decisive log lines of the run, from every node, in time order."""
    out = []
    for node_id, mark in marks.items():
        for kind, pattern in DECISIVE:
            rx = re.compile(pattern)
            for line in cluster._read_from(cluster._node(node_id), mark.offset).splitlines():
                if TOPIC not in line and kind not in ("delta", "recorded-leo", "hw"):
                    continue
                if kind in ("recorded-leo", "hw") and f"{TOPIC}-0" not in line:
                    continue
                if rx.search(line):
                    out.append({"ts": line[:23], "node": node_id, "kind": kind, "line": line[24:][:600]})
    out.sort(key=lambda e: e["ts"])
    return out
