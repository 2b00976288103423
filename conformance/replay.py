"""A kmc counterexample replayed on a real cluster: ``kmc trace run --cluster TRACE``.

The trace (kmc's ITF file, ``kmc check ... --trace-out``) is read as plain JSON: its
configuration (``#meta.kmc.config``) sets up the topic, each state's ``action_taken`` is a step.
Each step becomes an intervention on the real cluster followed by an *observation barrier*
(the log line or file content the step implies), and between steps every broker the next step
does not need is frozen (SIGSTOP, then ``replica.fetch.wait.max.ms`` and a margin so that no
fetch of its own is parked at a leader): Mocket's idea at process granularity. A broker with no
replica of the topic (the *observer*, id = replication factor) is never frozen and carries every
admin request, so the harness can act while all replicas are frozen.

Each step ends **reproduced** (the barrier saw what kmc's next state says), **diverged** (what
was observed instead; the replay stops there) or **not forceable** from outside the brokers
(an order inside one broker, the OS writing the page cache, a request held in flight): the
replay goes on past those and says so. At the end every broker is healed, the partition is read
back by a real consumer, and the verdict says whether the violation happened on the real
cluster (for ``no-acked-loss``: an acknowledged record that the consumer cannot read back).

``ACTIONS`` is the mapping, one row per kmc action name. A new kmc action (a named leader move,
say) is a new row that reuses the interventions below, not a new code path.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from conformance import events, segments
from conformance.admin import PREFERRED, Admin
from conformance.cluster import Cluster
from conformance.history import History, Producer, check, read_partition
from conformance.nemesis import heal
from conformance.nodeconfig import ClusterSettings, Timeouts

REPRODUCED, DIVERGED, NOT_FORCEABLE = "reproduced", "diverged", "not forceable"
FREEZE_SETTLE_S = 1.2
BARRIER_S = 40.0
TOPIC = "kmc-replay"


class Diverged(Exception):
    pass


class NotForceable(Exception):
    pass


@dataclass(frozen=True)
class Row:
    """How one kmc action is made real."""
    intervention: str                          # what the harness does, in words (docs, reports)
    involved: Callable[[dict, dict], set]      # (params, state before) -> replicas that must run
    run: Callable | None                       # run(ctx, params, before, after) -> what was observed
    forceable: str = "yes"                     # yes | coarse | no (with why) | n/a


@dataclass
class StepReport:
    number: int
    action: str
    intervention: str
    status: str
    observed: str = ""

    def line(self) -> str:
        return f"step {self.number:>2} {self.action}: {self.status}" + (f" ({self.observed})" if self.observed else "")


@dataclass
class ReplayReport:
    trace: str
    version: str
    prop: str | None
    steps: list[StepReport] = field(default_factory=list)
    violation_observed: bool | None = None
    verdict: dict | None = None
    run_dir: str = ""
    seconds: float = 0.0

    def summary(self) -> str:
        if self.violation_observed:
            return f"the violation happened on the real cluster: {self.verdict['summary']}"
        first = next((s for s in self.steps if s.status == DIVERGED), None)
        if first:
            return f"not reproduced: diverged at step {first.number} ({first.action}): {first.observed}"
        unforced = [s for s in self.steps if s.status == NOT_FORCEABLE]
        text = "not reproduced: " + (self.verdict or {}).get("summary", "")
        if unforced:
            text += ("; not forceable from outside the brokers: "
                     + ", ".join(f"step {s.number} ({s.action.split('(')[0]})" for s in unforced))
        return text

    def as_dict(self) -> dict:
        return {"trace": self.trace, "kafka_version": self.version, "property": self.prop,
                "steps": [s.__dict__ for s in self.steps], "violation_observed": self.violation_observed,
                "verdict": self.verdict, "summary": self.summary(), "run_dir": self.run_dir,
                "seconds": round(self.seconds, 1)}


@dataclass
class Ctx:
    cluster: Cluster
    admin: Admin
    producer: Producer
    history: History
    rf: int
    assignment: list[int]
    frozen: set = field(default_factory=set)
    done_with_previous: set = field(default_factory=set)
    marks: dict = field(default_factory=dict)          # each broker's log position when the step began

    def data(self, b: int) -> Path:
        return segments.partition_dir(self.cluster.brokers[b].layout.data_dir, TOPIC)

    def file_log(self, b: int) -> list[tuple[int, int]]:
        """Broker b's log as kmc writes it: (record id, leader epoch)."""
        out = []
        for r in segments.read_log(self.data(b)):
            v = (r.value or b"").decode()
            out.append((int(v[1:]) if v.startswith("r") and v[1:].isdigit() else -1, r.leader_epoch))
        return out


def _kmc_log(state: dict, b: int) -> list[tuple[int, int]]:
    return [(_i(c["id"]), _i(c["epoch"])) for c in state["replicas"][b]["log"]]


def _i(v) -> int:
    return int(v["#bigint"]) if isinstance(v, dict) else int(v)


def _wait(cond, what: str, timeout: float = BARRIER_S):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = cond()
        if last is True or (last and not isinstance(last, str)):
            return last
        time.sleep(0.05)
    raise Diverged(what if not isinstance(last, str) else f"{what}; observed {last}")


# ---------------------------------------------------------------------------- interventions

def produce(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    leader = p["leader"]
    rid = max(_i(c["id"]) for c in after["replicas"][leader]["log"])
    offset = len(after["replicas"][leader]["log"]) - 1
    ctx.producer.send(f"r{rid}")
    _wait(lambda: (rid, _kmc_log(after, leader)[offset][1]) in ctx.file_log(leader)
          or f"broker {leader}'s log {ctx.file_log(leader)}",
          f"r{rid} never reached broker {leader}'s log at offset {offset}")
    acked = {_i(a["record"]) for a in after["acked"]["#set"]}
    if rid in acked:
        _wait(lambda: ctx.history.acked().get(f"r{rid}") is not None, f"r{rid} was not acknowledged")
    return f"r{rid} at offset {offset} on broker {leader}" + (", acknowledged" if rid in acked else "")


def leader_handle_fetch(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    leader, follower = p["leader"], p["follower"]
    offset = len(before["replicas"][follower]["log"])
    ctx.cluster.wait_for(ctx.marks[leader], rf"\[Partition {TOPIC}-0 broker={leader}\] Recorded replica {follower} log end offset "
                               rf"\(LEO\) position {offset}", BARRIER_S)
    # the response reaches the running follower at once: kmc's FollowerHandleFetchResponse with it
    ctx.done_with_previous.add(("FollowerHandleFetchResponse", follower))
    return f"broker {leader} recorded LEO({follower}) = {offset} (and {follower} took the response at once)"


def follower_log_matches(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    f = p.get("follower", p.get("broker"))
    want = _kmc_log(after, f)
    _wait(lambda: ctx.file_log(f) == want or f"{ctx.file_log(f)}", f"broker {f}'s log never became {want}")
    return f"broker {f}'s log is {want}"


def elect_preferred(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    """Reorder the assignment so that the new leader comes first (same replica set: no leader
    epoch bump), then ElectLeaders(PREFERRED): a failure-free leader move."""
    n = p["new_leader"]
    order = [n] + [b for b in ctx.assignment if b != n]
    mc = ctx.cluster.mark(ctx.cluster.controller.node_id)
    if order != ctx.assignment:
        ctx.admin.reassign(TOPIC, order, via=ctx.rf)
        ctx.assignment = order
    ctx.admin.elect(TOPIC, PREFERRED, via=ctx.rf)
    e = _i(after["controller"]["leader_epoch"])
    m = ctx.cluster.wait_for(mc, rf"partition change for {TOPIC}-0 .*leader: (-?\d+) -> {n}, leaderEpoch: \d+ -> (\d+)", BARRIER_S)
    if int(m.group(2)) != e:
        raise Diverged(f"the controller moved leadership to {n} in epoch {m.group(2)}, kmc's epoch is {e}")
    return f"reorder to {order} + preferred election: leader {m.group(1)} -> {n}, epoch {e}"


def kmc_order(state: dict) -> list[int]:
    """The replica assignment in a kmc state (ITF): brokers by ``assignment_rank``."""
    ranks = [_i(r["assignment_rank"]) for r in state["replicas"]]
    return sorted(range(len(ranks)), key=ranks.__getitem__)


def reassign_replicas(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    """AlterPartitionReassignments to the same replicas in kmc's new order: the KRaft
    controller completes it at once (no replica added) with a record that keeps the leader and
    its epoch."""
    order = kmc_order(after)
    ctx.admin.reassign(TOPIC, order, via=ctx.rf)
    ctx.assignment = order
    return f"reassigned to {order} (same replicas)"


def preferred_election(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    """ElectLeaders(PREFERRED); barrier: the controller's partition change to kmc's leader and
    epoch."""
    n = p["new_leader"]
    mc = ctx.cluster.mark(ctx.cluster.controller.node_id)
    ctx.admin.elect(TOPIC, PREFERRED, via=ctx.rf)
    e = _i(after["controller"]["leader_epoch"])
    m = ctx.cluster.wait_for(mc, rf"partition change for {TOPIC}-0 .*leader: (-?\d+) -> {n}, leaderEpoch: \d+ -> (\d+)", BARRIER_S)
    if int(m.group(2)) != e:
        raise Diverged(f"the controller moved leadership to {n} in epoch {m.group(2)}, kmc's epoch is {e}")
    return f"preferred election: leader {m.group(1)} -> {n}, epoch {e}"


def become(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    b, e = p["broker"], p["leader_epoch"]
    leads = _i(after["replicas"][b]["leader"]) == b
    mark = ctx.marks[b]
    if b in ctx.frozen:
        ctx.cluster.resume(b)
        ctx.frozen.discard(b)
    kind = rf"Leader {TOPIC}-0 with topic id \S+" if leads else rf"Follower {TOPIC}-0"
    m = ctx.cluster.wait_for(mark, rf"({kind}) starts at leader epoch {e} ", BARRIER_S)
    return m.group(0).strip()


def crash(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    ctx.cluster.kill9(p["broker"])
    ctx.frozen.discard(p["broker"])
    return f"kill -9 broker {p['broker']}"


def restart(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    ctx.cluster.restart(p["broker"])
    return f"broker {p['broker']} restarted and unfenced"


def broker_failure(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    b, n = p["broker"], p["new_leader"]
    mc = ctx.cluster.mark(ctx.cluster.controller.node_id)
    m = ctx.cluster.wait_for(mc, rf"Fencing broker {b}\b", BARRIER_S)
    return f"controller: {m.group(0)}" + ("" if n < 0 else f" (kmc elects {n})")


def controlled_shutdown(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    b = p["broker"]
    if b in ctx.frozen:
        ctx.cluster.resume(b)
        ctx.frozen.discard(b)
    ctx.cluster.terminate(b)
    ctx.done_with_previous.add(("BrokerShutdown", b))
    return f"SIGTERM broker {b}: controlled shutdown, exited"


def broker_shutdown(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    if ("BrokerShutdown", p["broker"]) in ctx.done_with_previous:
        return "done with the controlled shutdown (the JVM exits after it)"
    raise NotForceable("a broker stops only after its controlled shutdown")


def unfence(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    b = p["broker"]
    ctx.cluster.resume(b)
    ctx.frozen.discard(b)
    return f"SIGCONT broker {b}: it heartbeats again"


def fence(ctx: Ctx, p: dict, before: dict, after: dict) -> str:
    b = p["broker"]
    mc = ctx.cluster.mark(ctx.cluster.controller.node_id)
    if b not in ctx.frozen:
        ctx.cluster.pause(b)
        ctx.frozen.add(b)
    m = ctx.cluster.wait_for(mc, rf"Fencing broker {b}\b", BARRIER_S + 60)
    return f"SIGSTOP broker {b} past the session timeout: {m.group(0)}"


def not_forceable(why: str):
    def run(ctx, p, before, after):
        raise NotForceable(why)
    return run


def _none(p, before):
    return set()


def _b(key):
    return lambda p, before: {p[key]}


def _with_leader(key):
    """The broker and the leader it fetches from in kmc's state before the step."""
    def involved(p, before):
        leader = _i(before["replicas"][p[key]]["leader"])
        return {p[key]} | ({leader} if leader >= 0 else set())
    return involved


ACTIONS: dict[str, Row] = {
    "ProduceRecord": Row("the producer sends r<n> (acks as configured)", _b("leader"), produce),
    "LeaderHandleFetch": Row("resume the follower; barrier: the leader logs 'Recorded replica f ... (LEO) "
                             "position <f's LEO>'", lambda p, before: {p["leader"], p["follower"]}, leader_handle_fetch, "coarse"),
    "FollowerHandleFetchResponse": Row("the follower runs; barrier: its segment file holds kmc's log",
                                       _b("follower"), follower_log_matches, "coarse"),
    "FollowerTruncate": Row("the follower runs; barrier: its segment file is cut to kmc's log",
                            _with_leader("follower"), follower_log_matches),
    "BecomeLeaderOrFollower": Row("SIGCONT the broker; barrier: its 'starts at leader epoch e' line",
                                  _b("broker"), become),
    "ControllerElectLeader": Row("(unordered-leader-moves only) reassignment that puts the new leader first + "
                                 "ElectLeaders(PREFERRED)",
                                 _none, elect_preferred),
    "ControllerReassignReplicas": Row("AlterPartitionReassignments to the same replicas in kmc's new order",
                                      _none, reassign_replicas, "coarse"),
    "ControllerPreferredElection": Row("ElectLeaders(PREFERRED); barrier: the controller's partition change to "
                                       "kmc's leader and epoch", _none, preferred_election),
    "BrokerCrash": Row("kill -9", _none, crash),
    "BrokerRestart": Row("start the JVM again; barrier: it is unfenced", _none, restart),
    "ControllerHandleBrokerFailure": Row("wait for the controller to fence the dead broker (session timeout)",
                                         _none, broker_failure, "coarse"),
    "ControllerHandleControlledShutdown": Row("SIGTERM (controlled shutdown)", _none, controlled_shutdown),
    "BrokerShutdown": Row("(the JVM exits after its controlled shutdown)", _none, broker_shutdown),
    "ControllerFenceBroker": Row("SIGSTOP past broker.session.timeout.ms", _none, fence, "coarse"),
    "ControllerUnfenceBroker": Row("SIGCONT", _none, unfence),
    "BrokerApplyPartitionChange": Row("SIGCONT the broker (an ISR-only change applies on the next metadata fetch)",
                                      _b("broker"), lambda c, p, b, a: "resumed", "coarse"),
    "LeaderShrinkIsr": Row("(Kafka shrinks after replica.lag.time.max.ms of lag: not scheduled)", _none,
                           not_forceable("a shrink takes replica.lag.time.max.ms of lag; not scheduled here"), "no"),
    "LeaderShrinkIsrSet": Row("(Kafka shrinks after replica.lag.time.max.ms of lag: not scheduled)", _none,
                              not_forceable("a shrink takes replica.lag.time.max.ms of lag; not scheduled here"), "no"),
    "LeaderExpandIsr": Row("(inside the follower's fetch in Kafka)", _none,
                           not_forceable("an expansion happens inside a fetch, not as a step"), "no"),
    "ControllerHandleAlterPartition": Row("(the leader's AlterPartition, inside running brokers)", _none,
                                          not_forceable("AlterPartition round trips run inside the brokers"), "no"),
    "LeaderHandleAlterPartitionResponse": Row("(inside the leader)", _none,
                                              not_forceable("AlterPartition round trips run inside the brokers"), "no"),
    "ProducerRetry": Row("(the producer retries on its own; the replay does not drive a resend)",
                         _none, not_forceable("a resend is the client's own decision (retries, "
                                              "request.timeout.ms); kafka-python cannot be told "
                                              "to resend one record"), "no"),
    "ProducerBumpEpoch": Row("(the producer bumps its epoch on its own after a failed batch)",
                             _none, not_forceable("an epoch bump follows a batch failing inside "
                                                  "the client; kafka-python does not bump "
                                                  "(KIP-360 is the Java client's)"), "no"),
    **{name: Row("(the consumer's own step; the replay drives no consumer)", _none,
                 not_forceable("the replay drives brokers and a producer, not a consumer group"),
                 "no")
       for name in ("ConsumerFetch", "ConsumerProcess", "ConsumerCommit", "ConsumerRestart")},
    "FlushLog": Row("(the OS writes the page cache)", _none,
                    not_forceable("the OS decides when the page cache reaches the disk"), "no"),
    "CheckpointHighWatermark": Row("(every replica.high.watermark.checkpoint.interval.ms)", _none,
                                   not_forceable("a timer inside the broker"), "no"),
    "FetchDelayed": Row("(a fetch held in flight)", _none, not_forceable("a request held in flight on the wire"), "no"),
    "LeaderHandleDelayedFetch": Row("(a fetch held in flight)", _none, not_forceable("a request held in flight on the wire"), "no"),
    "LeaderHandleFetchOnStaleMetadata": Row("(the leader's metadata cache lags the controller)", _none,
                                            not_forceable("a broker's metadata cache lag cannot be "
                                                          "held at one record from outside"), "no"),
    "ControllerFailover": Row("(ZooKeeper mode)", _none, not_forceable("ZooKeeper mode: Kafka 4.x has none"), "n/a"),
}


# ---------------------------------------------------------------------------- the replay

def load(path: Path) -> dict:
    doc = json.loads(Path(path).read_text())
    if "states" not in doc or "#meta" not in doc:
        raise ValueError(f"{path}: not a kmc ITF trace (no states or #meta)")
    return doc


def _config(doc: dict) -> dict:
    return doc["#meta"].get("kmc", {}).get("config", {})


def _kraft(doc: dict) -> bool:
    return "kraft" in _config(doc).get("rules", [])


def settings_for(doc: dict) -> ClusterSettings:
    cfg = _config(doc)
    names = {s["action_taken"]["name"] for s in doc["states"][1:]}
    session = 8000 if names & {"ControllerHandleBrokerFailure", "ControllerFenceBroker"} else 30000
    return ClusterSettings(brokers=int(cfg.get("replication.factor", 3)) + 1,
                           timeouts=Timeouts(broker_session_timeout_ms=session, broker_heartbeat_interval_ms=1000,
                                             replica_lag_time_max_ms=60000),
                           min_insync_replicas=int(cfg.get("min.insync.replicas", 1)),
                           unclean_leader_election=bool(cfg.get("unclean.leader.election.enable", False)))


def check_trace(trace_path: Path) -> dict:
    """The trace as JSON, or ValueError (one line) if it cannot run on Kafka 4.x."""
    doc = load(trace_path)
    if not _kraft(doc):
        raise ValueError("only KRaft traces can run on Kafka 4.x (the trace's rules lack 'kraft': "
                         "give kmc check --kafka-version 3.3 or later)")
    return doc


def run(release, trace_path: Path, run_dir: Path, log=print) -> ReplayReport:
    doc = check_trace(trace_path)
    cfg = _config(doc)
    states = doc["states"]
    prop = (doc["#meta"].get("kmc", {}).get("property") or doc["#meta"].get("description", "").split(" for ")[-1].split(":")[0]) or None
    rf = int(cfg.get("replication.factor", 3))
    acks = str(cfg.get("acks", "all"))
    report = ReplayReport(str(trace_path), release.version, prop, run_dir=str(run_dir))
    t0 = time.monotonic()
    history = History()
    with Cluster.start(release, run_dir, settings_for(doc)) as cluster:
        admin = Admin(cluster)
        admin.create_topic("kmc-warmup", [rf], {})
        admin.create_topic(TOPIC, list(range(rf)), {
            "min.insync.replicas": str(cfg.get("min.insync.replicas", 1)),
            "unclean.leader.election.enable": str(cfg.get("unclean.leader.election.enable", False)).lower()}, via=rf)
        mark = cluster.mark(0)
        for f in range(1, rf):
            cluster.wait_for(mark, rf"\[Partition {TOPIC}-0 broker=0\] Recorded replica {f} log end offset", BARRIER_S)
        producer = Producer(cluster.bootstrap(), TOPIC, history, acks=acks, request_timeout_ms=120000,
                            delivery_timeout_ms=180000)
        producer._producer.send("kmc-warmup", b"w").get(timeout=30)   # connections and producer id, off the topic
        producer._producer.partitions_for(TOPIC)
        ctx = Ctx(cluster, admin, producer, history, rf, list(range(rf)))
        try:
            _steps(ctx, states, report, log)
        finally:
            for b in list(ctx.frozen):
                cluster.resume(b)
            ctx.frozen.clear()
            try:
                heal(cluster)
                producer.wait(20)
                final = read_partition(cluster.bootstrap(), TOPIC, history, label="final", timeout=30)
                verdict = check(history, final)
                report.verdict = {**verdict.as_dict(), "final": final}
                report.violation_observed = not verdict.ok
            finally:
                producer.close()
                events.save(run_dir, events.collect(cluster, history, TOPIC))
    report.seconds = time.monotonic() - t0
    (Path(run_dir) / "replay.json").write_text(json.dumps(report.as_dict(), indent=1, default=str))
    return report


def _involved(states: list, k: int) -> set:
    if k >= len(states):
        return set()
    act = states[k]["action_taken"]
    row = ACTIONS.get(act["name"])
    return row.involved({n: _i(v) for n, v in act["params"].items()}, states[k - 1]) if row else set()


def _steps(ctx: Ctx, states: list, report: ReplayReport, log) -> None:
    cluster = ctx.cluster
    for k in range(1, len(states)):
        act = states[k]["action_taken"]
        name, params = act["name"], {n: _i(v) for n, v in act["params"].items()}
        label = f"{name}(" + ", ".join(f"{n}={v}" for n, v in params.items()) + ")"
        row = ACTIONS.get(name)
        step = StepReport(k, label, row.intervention if row else "(no mapping)", NOT_FORCEABLE)
        report.steps.append(step)
        # barrier discipline: only the replicas this step needs run
        ctx.marks = {b: cluster.mark(b) for b in cluster.brokers}
        need = _involved(states, k)
        newly = []
        for b in range(ctx.rf):
            node = cluster.brokers[b]
            if b not in need and b not in ctx.frozen and node.running():
                cluster.pause(b)
                ctx.frozen.add(b)
                newly.append(b)
            elif b in need and b in ctx.frozen:
                cluster.resume(b)
                ctx.frozen.discard(b)
        if newly:
            time.sleep(FREEZE_SETTLE_S)   # replica.fetch.wait.max.ms: parked fetches of the frozen answered
        if row is None:
            step.observed = "kmc action with no real counterpart in this mapping"
            log(step.line())
            continue
        if (name, params.get("follower", params.get("broker"))) in ctx.done_with_previous:
            ctx.done_with_previous.discard((name, params.get("follower", params.get("broker"))))
        try:
            step.observed = row.run(ctx, params, states[k - 1], states[k])
            step.status = REPRODUCED
        except NotForceable as exc:
            step.status, step.observed = NOT_FORCEABLE, str(exc)
        except (Diverged, TimeoutError) as exc:
            step.status, step.observed = DIVERGED, str(exc)
            log(step.line())
            return
        log(step.line())
