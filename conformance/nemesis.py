"""Random, bounded fault schedules against a running cluster (Jepsen's nemesis).

One run: a fresh topic (three replicas, min.insync.replicas=2, unclean election off), a
producer sending one record every ``SEND_EVERY_S`` (acks=all, idempotent), a read every few
seconds, and at random moments one of kill -9 / SIGSTOP / SIGTERM on a random broker, each
undone later (restart, SIGCONT) by the schedule itself; at most two brokers are down or paused
at once, so the controller (never touched) can always elect. Then every broker is healed, the
producer drains (bounded) and the partition is read back and checked (``history.check``).

Restarts are started without waiting for readiness (the JVM takes seconds to start), so the
producer keeps sending meanwhile; ``heal`` waits for every broker to be back.
"""

from __future__ import annotations

import time

from conformance import processes
from conformance.admin import Admin
from conformance.cluster import BROKER_READY, Cluster
from conformance.history import History, Producer, check, read_partition

SEND_EVERY_S = 0.1
READ_EVERY_S = 4.0
MAX_FAULTY = 2


def heal(cluster: Cluster, timeout: float = 120.0) -> None:
    """Resume every paused broker, start every stopped one, and wait until all have started."""
    marks = {}
    for b, node in cluster.brokers.items():
        if node.paused:
            cluster.resume(b)
        if not node.running():
            marks[b] = cluster.mark(b)
            cluster._launch(node)
            cluster._note("restart", b)
        elif getattr(node, "starting_mark", None) is not None:
            marks[b] = node.starting_mark
        node.starting_mark = None
    deadline = processes.Deadline(timeout)
    for b, mark in marks.items():
        cluster._wait_line(cluster.brokers[b], BROKER_READY, mark.offset, deadline)


def _full_isr(cluster: Cluster, topic: str, timeout: float) -> bool:
    admin = Admin(cluster, timeout_ms=5000)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            view = admin.partition(topic)
            if len(view.isr) == 3 and view.leader >= 0:
                return True
        except Exception:  # noqa: BLE001 - a broker still starting
            pass
        time.sleep(0.5)
    return False


def random_run(cluster: Cluster, topic: str, rng, *, fault_seconds: float = 12.0) -> dict:
    history = History()
    admin = Admin(cluster)
    admin.create_topic(topic, [0, 1, 2], {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"})
    _full_isr(cluster, topic, 30)
    producer = Producer(cluster.bootstrap(), topic, history, acks="all", request_timeout_ms=8000,
                        delivery_timeout_ms=30000)
    faults: list[dict] = []
    undo: dict[int, tuple[float, str]] = {}          # broker -> (when, "resume" | "restart")
    t0 = time.monotonic()
    next_fault = t0 + rng.uniform(0.5, 2.0)
    next_read = t0 + READ_EVERY_S
    while time.monotonic() - t0 < fault_seconds:
        now = time.monotonic()
        producer.send()
        for b, (when, how) in list(undo.items()):
            if now >= when:
                if how == "resume":
                    cluster.resume(b)
                else:
                    node = cluster.brokers[b]
                    node.starting_mark = cluster.mark(b)
                    cluster._launch(node)
                    cluster._note("restart", b)
                del undo[b]
        if now >= next_fault and len(undo) < MAX_FAULTY:
            b = rng.choice([x for x in cluster.brokers if x not in undo])
            kind = rng.choice(["kill -9", "SIGSTOP", "SIGTERM"])
            if kind == "kill -9":
                cluster.kill9(b)
                undo[b] = (now + rng.uniform(1.0, 6.0), "restart")
            elif kind == "SIGSTOP":
                cluster.pause(b)
                undo[b] = (now + rng.uniform(0.5, 9.0), "resume")   # past 6 s the broker is fenced
            else:
                try:
                    cluster.terminate(b, timeout=30)
                except TimeoutError:
                    pass
                undo[b] = (time.monotonic() + rng.uniform(1.0, 4.0), "restart")
            faults.append({"at": round(now - t0, 2), "broker": b, "kind": kind})
            next_fault = time.monotonic() + rng.uniform(1.0, 3.0)
        if now >= next_read and cluster.usable():
            try:
                read_partition(cluster.bootstrap(), topic, history, timeout=3, label="during")
            except Exception:  # noqa: BLE001 - a read that fails is no evidence either way
                pass
            next_read = time.monotonic() + READ_EVERY_S
        time.sleep(SEND_EVERY_S)
    heal(cluster)
    settled, verdict = _finish(cluster, topic, history, producer, producer_s=40, read_s=30)
    kinds = {}
    for f in faults:
        kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    return {"topic": topic, "faults": faults, "faults_summary": ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())),
            "settled": settled, "verdict": verdict.as_dict(), "_events": history.events}


# ---------------------------------------------------------------------------- bounded runs to validate

BOUNDED_FAULTS = ("kill -9", "SIGSTOP", "SIGSTOP past the session", "SIGTERM", "preferred election")
"""The faults of a bounded run (``bounded_run``), one broker at a time: kill -9 (restart later),
a short SIGSTOP (1 s: metadata and fetches lag, nothing is fenced), a SIGSTOP past
``broker.session.timeout.ms`` (the controller fences a running broker: kmc's session expiry),
SIGTERM (controlled shutdown, restart later), and a reorder-plus-preferred election
(AlterPartitionReassignments putting another ISR member first, then ElectLeaders(PREFERRED))."""


def bounded_run(cluster: Cluster, topic: str, rng, history: History, *, session_s: float,
                barrier_s: float = 30.0) -> dict:
    """A randomised run small enough for trace validation to search (kmc's model takes a few
    records and faults): a fresh topic [0, 1, 2] (min.insync.replicas=2, unclean election off),
    1-3 records sent with acks=all, 1-2 faults of ``BOUNDED_FAULTS`` on random brokers, in a
    random order; each fault is undone (restart, SIGCONT) before the next one is applied, so
    sends between a fault and its undo happen during it; a read of the partition with
    probability 1/3 after each step; then every broker is healed, the ISR is full again, the
    producer drains and the partition is read back. Every wait is bounded."""
    admin = Admin(cluster)
    mark = cluster.mark(0)
    admin.create_topic(topic, [0, 1, 2], {"min.insync.replicas": "2", "unclean.leader.election.enable": "false"})
    if not _full_isr(cluster, topic, barrier_s):
        raise TimeoutError(f"{topic}: the ISR did not become [0, 1, 2] within {barrier_s:.0f} s")
    # kmc's initial state: leader 0 knows both followers' LEO (0). A new Kafka leader knows them
    # as unknown (-1) until their first fetch, and may shrink a follower that has not fetched
    # within replica.lag.time.max.ms even with an empty log, which kmc's initial state cannot
    # (docs/model.md, "The initial state"): wait for both first fetches.
    for f in (1, 2):
        cluster.wait_for(mark, rf"\[Partition {topic}-0 broker=0\] Recorded replica {f} log end offset", barrier_s)
    producer = Producer(cluster.bootstrap(), topic, history, acks="all", request_timeout_ms=5000,
                        delivery_timeout_ms=15000)
    ops = ["send"] * rng.randint(1, 3) + [rng.choice(BOUNDED_FAULTS) for _ in range(rng.randint(1, 2))]
    rng.shuffle(ops)
    done: list[str] = []
    pending = None      # (broker, how to undo, when it was applied)
    try:
        for op in ops:
            if op == "send":
                producer.send()
                producer.wait(8)
                done.append("send")
            else:
                if pending:
                    _undo(cluster, pending, session_s)
                    pending = None
                    _full_isr(cluster, topic, barrier_s)
                pending, what = _apply(cluster, admin, topic, op, rng, barrier_s)
                done.append(what)
            if rng.random() < 1 / 3 and cluster.usable():
                try:
                    read_partition(cluster.bootstrap(), topic, history, timeout=5, label="during")
                    done.append("read")
                except Exception:  # noqa: BLE001 - a read that fails is no evidence either way
                    pass
        if pending:
            _undo(cluster, pending, session_s)
    finally:
        heal(cluster)
    settled, verdict = _finish(cluster, topic, history, producer, producer_s=20, read_s=20)
    return {"topic": topic, "steps": done, "settled": settled, "verdict": verdict.as_dict()}


def _finish(cluster: Cluster, topic: str, history, producer, producer_s: float, read_s: float):
    """A run's tail, once every broker is healed: wait (60 s at most) for the full ISR, let the
    producer's last sends finish, read the partition back and check the client history against
    it. Returns (whether the ISR was full again, the check's verdict)."""
    settled = _full_isr(cluster, topic, 60)
    producer.wait(producer_s)
    producer.close()
    final = read_partition(cluster.bootstrap(), topic, history, label="final", timeout=read_s)
    return settled, check(history, final)


def _apply(cluster: Cluster, admin: Admin, topic: str, op: str, rng, barrier_s: float):
    """Apply fault ``op``; returns (what undoes it or None, a description)."""
    if op == "preferred election":
        view = admin.partition(topic)
        candidates = [b for b in view.isr if b != view.leader]
        if view.leader < 0 or not candidates:
            return None, "preferred election skipped (no other ISR member)"
        b = rng.choice(candidates)
        order = [b] + [x for x in (0, 1, 2) if x != b]
        mark = cluster.mark(cluster.controller.node_id)
        cluster._note("reassign", b, replicas=order)
        admin.reassign(topic, order)
        cluster._note("elect-preferred", b)
        admin.elect(topic)
        # from whichever leader the controller had: the view comes from a broker's metadata cache,
        # which can lag (a broker just resumed from SIGSTOP still named 0 after 1 had been elected)
        cluster.wait_for(mark, rf"partition change for {topic}-0 .*leader: -?\d+ -> {b}\b", barrier_s)
        return None, f"reorder to {order} + preferred election"
    b = rng.choice(sorted(cluster.brokers))
    if op == "kill -9":
        cluster.kill9(b)
        return (b, "restart", time.monotonic()), f"kill -9 {b}"
    if op == "SIGTERM":
        cluster.terminate(b, timeout=barrier_s)
        return (b, "restart", time.monotonic()), f"SIGTERM {b}"
    cluster.pause(b)
    long = op == "SIGSTOP past the session"
    return (b, "resume-long" if long else "resume", time.monotonic()), f"{op} {b}"


def _undo(cluster: Cluster, pending, session_s: float) -> None:
    b, how, since = pending
    if how == "restart":
        cluster.restart(b)
        return
    hold = session_s + 1.5 if how == "resume-long" else 1.0
    time.sleep(max(0.0, hold - (time.monotonic() - since)))
    cluster.resume(b)
