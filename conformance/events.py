"""One timestamped event stream per run, saved beside it as JSON lines.

Three sources merge by wall-clock time (one machine, one clock; log4j2 writes milliseconds):
the harness's interventions (``Cluster.interventions``), the client's history
(``history.History``) and every node's log lines as typed events (``loglines``). The file is
``events.jsonl`` in the run's directory, one object per line with ``ts``, ``source`` and
``kind``; the nodes' full log files stay beside it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from conformance import loglines


def collect(cluster, history=None, topic: str | None = None, since: dict | None = None,
            since_ts: float = 0.0) -> list[dict]:
    """The run's events. ``since`` (node id -> byte offset in its log, from ``Cluster.mark``)
    and ``since_ts`` (a ``time.time()``) cut the stream to one run of several on one cluster."""
    events: list[dict] = [e for e in cluster.interventions if e["ts"] >= since_ts]
    if history is not None:
        events += history.events
    for node in [cluster.controller, *cluster.brokers.values()]:
        offset = (since or {}).get(node.node_id, 0)
        events += [e.as_dict() for e in loglines.parse_file(node.node_id, node.layout.log_file, topic, offset)]
    events.sort(key=lambda e: e["ts"])
    return events


def save(run_dir: Path, events: list[dict]) -> Path:
    path = Path(run_dir) / "events.jsonl"
    with open(path, "w") as f:
        for e in events:
            f.write(json.dumps(e, default=str) + "\n")
    return path


def diff_fields(diff: str) -> dict[str, str]:
    """``isr: [0, 1, 2] -> [1, 2], leader: 0 -> 1, ...`` -> {"isr": "[1, 2]", "leader": "1"}."""
    out = {}
    for m in re.finditer(r"(\w+): (\[[^\]]*\]|-?\d+) -> (\[[^\]]*\]|-?\d+)", diff):
        out[m.group(1)] = m.group(3)
    return out


# ---------------------------------------------------------------------------- one run per stream

def _topic_of(e: dict) -> str | None:
    """The topic a log event is about (``partition`` is ``<topic>-<n>``), or None."""
    p = e.get("partition")
    if not isinstance(p, str):
        return None
    return p.rsplit("-", 1)[0] if "-" in p else p


def topics_in(events: list[dict]) -> list[str]:
    """The topics the stream's log events name, in order of first appearance."""
    seen: list[str] = []
    for e in events:
        t = _topic_of(e) if isinstance(e, dict) else None
        if t is not None and t not in seen:
            seen.append(t)
    return seen


def split_topic(events: list[dict], topic: str) -> list[dict]:
    """The part of a stream of several runs (one topic each, one after another on one cluster:
    the harness's ``acks-all-random``) that is the run of ``topic``: every event from the first
    that names ``topic`` up to the first that names the next topic, minus log events about other
    topics. Client events (sends, acks, reads) name no topic: the window alone assigns them."""
    order = topics_in(events)
    if topic not in order:
        raise ValueError(f"no event names topic {topic!r} (the stream names {', '.join(order) or 'none'})")
    i = order.index(topic)
    start = next(n for n, e in enumerate(events) if _topic_of(e) == topic)
    end = len(events)
    if i + 1 < len(order):
        end = next(n for n, e in enumerate(events) if _topic_of(e) == order[i + 1])
    return [e for e in events[start:end] if _topic_of(e) in (None, topic)]


def bounds_from_events(events: list[dict], model_bounds: bool = True) -> dict:
    """The bounds kmc's model needs to contain the run: records sent, kill -9s, controlled
    shutdowns (SIGTERM), preferred elections and reassignments the harness asked for, fences of a
    broker that was running (paused, or restarted, not yet unfenced and replaying the partition:
    kmc's session expiry, the controller declares a running broker dead), and the highest leader
    epoch any node logged. Epochs are Kafka's (the topic starts at leader epoch 0), so the model
    needs exactly that highest epoch."""
    counts = {"max_records": 0, "max_crashes": 0, "max_controlled_shutdowns": 0, "max_preferred_elections": 0,
              "max_reassignments": 0, "max_session_expiries": 0, "max_leader_epoch": 0}
    paused: set = set()      # brokers under SIGSTOP
    restarted: set = set()   # brokers the harness restarted, not yet unfenced
    replaying: set = set()   # of those, the ones whose new JVM has published a partition (its fetcher runs)
    sent: set = set()
    for e in events:
        kind, source = e.get("kind"), e.get("source")
        if source == "client" and kind == "send":
            sent.add(e.get("value"))
        elif source == "harness":
            b = e.get("broker")
            b = int(b) if b is not None else None
            if kind == "kill -9":
                counts["max_crashes"] += 1
                paused.discard(b)
            elif kind == "SIGTERM":
                counts["max_controlled_shutdowns"] += 1
                paused.discard(b)
            elif kind == "restart":
                restarted.add(b)
            elif kind == "elect-preferred":
                counts["max_preferred_elections"] += 1
            elif kind == "reassign":
                counts["max_reassignments"] += 1
            elif kind == "SIGSTOP":
                paused.add(b)
            elif kind == "SIGCONT":
                paused.discard(b)
        elif kind == "unfenced" and re.fullmatch(r"node\d+", str(source)):
            restarted.discard(int(str(source)[4:]))
            replaying.discard(int(str(source)[4:]))
        elif kind in ("become-leader", "become-follower") and re.fullmatch(r"node\d+", str(source)) \
                and int(str(source)[4:]) in restarted:
            replaying.add(int(str(source)[4:]))
        elif kind == "fence" and e.get("broker") is not None and int(e["broker"]) in paused | replaying:
            # the controller fences a broker that is running: a paused one, or one whose new JVM
            # has published the partition (so may replicate as a follower) while the old JVM's
            # session times out (a quick restart: the new registration waits for that fence);
            # kmc has one incarnation per broker, so both are its session expiry
            # (ControllerFenceBroker). A new JVM that published nothing yet is kmc's broker still
            # down: that fence is ControllerHandleBrokerFailure.
            counts["max_session_expiries"] += 1
        if kind in ("become-leader", "become-follower") and "leader_epoch" in e:
            counts["max_leader_epoch"] = max(counts["max_leader_epoch"], int(e["leader_epoch"]))
        elif kind == "partition-change":
            epoch = diff_fields(str(e.get("diff", ""))).get("leaderEpoch")
            if epoch is not None:
                counts["max_leader_epoch"] = max(counts["max_leader_epoch"], int(epoch))
    counts["max_records"] = max(1, len(sent)) if model_bounds else len(sent)  # the model writes >= 1
    counts["max_retries"] = _retried(events)
    return counts


def _retried(events: list[dict]) -> int:
    """Sends that may have been retried: those whose acknowledgement (or the end of the run, if
    none came) follows a change of the partition's leader made after the send. The client
    retries inside kafka-python, which the harness does not see; a request that was appended by
    the old leader and then truncated must be appended again by the new one (kmc's
    ``ProducerRetry``), as seen on a 4.0.2 run (a send 15 ms after its leader's SIGSTOP note).
    So does a send made after the controller's leader change but before the old leader applied
    it (``_old_leader_still_leads``): brokers apply the controller's change after it logs it."""
    n = 0
    for i, e in enumerate(events):
        if e.get("source") != "client" or e.get("kind") != "send":
            continue
        crossed = False
        for later in events[i + 1:]:
            if later.get("source") == "client" and later.get("kind") == "ack" and later.get("value") == e.get("value"):
                break
            if later.get("kind") == "partition-change" and "leader" in diff_fields(str(later.get("diff", ""))):
                crossed = True
                break
        if crossed or _old_leader_still_leads(events[:i]):
            n += 1
    return n


def _old_leader_still_leads(before: list[dict]) -> bool:
    """Whether the leader the controller's last leader change replaced had not yet applied it
    (logged no become line since): a send then can reach it and be appended there, to be
    truncated and retried (seen on 4.1.2: a send 30 ms after a preferred election's line, taken
    by the old leader 2 before it became a follower)."""
    for j in range(len(before) - 1, -1, -1):
        e = before[j]
        if e.get("kind") == "partition-change":
            d = diff_fields(str(e.get("diff", "")))
            if "leader" not in d:
                continue
            old = re.match(r"\s*(-?\d+)\s*->", str(e.get("diff", "")).split("leader:", 1)[1])
            if old is None or int(old.group(1)) < 0:
                return False
            node = f"node{int(old.group(1))}"
            return not any(x.get("source") == node and x.get("kind") in ("become-leader", "become-follower")
                           for x in before[j + 1:])
    return False
