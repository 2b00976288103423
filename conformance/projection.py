"""The observed projection of a real run: the facts of kmc's state the harness saw, in order.

Trace validation (issue 31; Cirstea, Kuppe, Loillier, Merz 2024) asks the reverse of replay: is
what a real cluster did a behaviour of kmc's model? Its input is this projection of the run's
merged event stream (``events.jsonl``, written by ``conformance.events``): one ``Fact`` per
event, in the order of the stream, each either **observed** (a condition on one kmc state, as
plain data in ``Fact.check``) or **unobservable** (kept, with ``why``, so the projection says
what it left out).

The abstraction (docs/conformance.md, "Trace validation"):

* **Brokers are replicas by id.** The harness creates the run's topic with the assignment
  ``[0, 1, 2]`` (``Admin.create_topic``), so broker ``b`` is kmc's replica ``b`` with assignment
  rank ``b``; no symmetry is applied (an election in assignment order tells replicas apart).
* **Records are ids by first send.** The producer sends distinct values ``r0, r1, ...``; the
  ``n``-th distinct value sent is kmc's record id ``n`` (kmc's producer writes ids 1, 2, ... in
  order). An offset is an offset.
* **Leader epochs are Kafka's.** kmc's initial state is the topic right after creation (broker 0
  leads in epoch 0, every replica in the ISR), as a new KRaft topic is.
* **Time orders facts, not steps.** Events from different nodes are ordered by their wall-clock
  stamps (one machine, millisecond log4j stamps); the search allows any number of model steps
  (bounded) between two facts and none, so several facts may hold of one state.

Observed: a broker's ``makeLeader``/``makeFollower`` (its leader, leader epoch, log end offset,
high watermark and, on a leader, ISR), a leader's high-watermark advance, ISR change and record of
a follower's LEO, a follower's truncation (its LEO after it), the controller's
``PartitionChangeRecord`` (leader, leader epoch, ISR, ELR), fencing and unfencing, kill -9 and
restart, each send and acknowledgement, and each read (the records below the leader's HW).
Unobservable: SIGSTOP/SIGCONT (a paused broker is one that takes no step), the metadata log's
replay, the controller quorum's own start, a skipped become-leader (no change of state), failed
sends (the record may or may not be in a log) and controlled shutdown's first line (the
controller's decision is the partition change that follows).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from conformance.events import diff_fields
from model.files import read_text

CONTROLLER_NODE = 100


@dataclass(frozen=True)
class Fact:
    index: int             # line number in events.jsonl, from 1
    ts: float
    source: str
    kind: str
    observed: bool
    check: tuple = ()      # the condition on a kmc state, as plain data (``holds``)
    why: str = ""          # for an unobservable fact: why it is not a condition
    text: str = ""         # the event, shortened, for reports

    def describe(self) -> str:
        return f"event {self.index} ({self.source} {self.kind}): {self.text}"


@dataclass
class Projection:
    facts: list[Fact]
    record_ids: dict[str, int] = field(default_factory=dict)
    topic_brokers: tuple[int, ...] = (0, 1, 2)

    @property
    def observed(self) -> list[Fact]:
        return [f for f in self.facts if f.observed]


class ProjectionError(ValueError):
    """The run's events cannot be projected (one line for the user)."""


def _ids(text: str) -> tuple[int, ...]:
    return tuple(sorted(int(x) for x in re.findall(r"-?\d+", text)))


def _node(source: str) -> int | None:
    m = re.fullmatch(r"node(\d+)", source)
    return int(m.group(1)) if m else None


def _short(e: dict) -> str:
    line = e.get("line")
    if line:
        return line[:160]
    return ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("ts", "source", "kind"))[:160]


def project(events: list[dict]) -> Projection:
    """The facts of ``events`` (the dicts of ``events.jsonl``), in order."""
    record_ids: dict[str, int] = {}
    facts: list[Fact] = []

    def rid(value: str) -> int:
        if value not in record_ids:
            record_ids[value] = len(record_ids) + 1
        return record_ids[value]

    epoch_of: dict[int, int | None] = {}   # each broker's leader epoch, from its last become line
    controller: list = [0, 0, None, ()]    # leader, leader epoch, ISR, ELR of a new topic (ISR: from a line)
    replaying: set[int] = set()            # brokers restarted and not yet unfenced (``_replayed``)
    for i, e in enumerate(events, start=1):
        if not isinstance(e, dict) or not {"ts", "source", "kind"} <= set(e):
            raise ProjectionError(f"event {i} is not an object with ts, source and kind")
        kind, source = e["kind"], str(e["source"])
        node = _node(source)
        try:
            check, why = _fact(kind, source, node, e, rid)
            check, e = _replayed(check, kind, source, node, e, replaying)
            check = _with_epoch(check, e["kind"], source, node, e, epoch_of)
            check = _carry_controller(check, controller)
        except (KeyError, ValueError, TypeError) as exc:
            raise ProjectionError(f"event {i} ({source} {kind}) lacks or garbles a field: {exc}") from None
        facts.append(Fact(i, float(e["ts"]), source, kind, bool(check), check or (), why, _short(e)))
    return Projection(facts, record_ids)


def _carry_controller(check, known: list):
    """The controller logs every change of the partition (``ReplicationControlManager``, one
    line per PartitionChangeRecord) with only the fields it changes, so a field a line leaves
    out is the one the previous line (or the new topic: leader 0, epoch 0, no ELR) gave: the
    fact says the controller's whole known state, not only what changed (an ISR change that
    keeps the leader epoch is then told from one that bumps it)."""
    if not check or check[0] != "controller":
        return check
    for i, value in enumerate(check[1:]):
        if value is not None:
            known[i] = value
    return ("controller", *known)


def _replayed(check, kind: str, source: str, node, e: dict, replaying: set):
    """A restarted KRaft broker's become lines from before it is unfenced are its replay of the
    metadata log, not a state the controller has given it: each is a fact only of what it says
    of the broker's log (its log end offset; not even that kmc's broker is up, which it is once
    the controller registers the new JVM: a quick restart registers only after the controller
    fenced the old session), and the broker's leader epoch for its later
    lines is unknown until a become line after its unfence. Returns (check, event).

    Why (read at 3.9.0-rc3; seen on 4.0.2 and 4.1.2, docs/conformance.md "A restarted broker's
    replay"): ``BrokerServer.startup`` installs the metadata publishers once ``MetadataLoader``
    has caught up with the high watermark it knows, so ``BrokerMetadataPublisher``'s first
    publish hands ``ReplicaManager.applyDelta`` the image replayed so far, which may be older
    than the controller's (a broker killed -9 and restarted at once logs ``Leader ... starts at
    leader epoch 0`` although the controller moves the leadership away when it fences the old
    session, seconds later) or leaderless (``Current leader is -1``). Nothing outside sees that
    state: the data-plane listeners start only after the broker is unfenced
    (``socketServer.enableRequestProcessing`` follows ``lifecycleManager.setReadyToUnfence()``),
    so a stale leader takes no produce and answers no fetch, and a follower of no leader or of a
    leader in an old epoch gets no records (``FENCED_LEADER_EPOCH``); and the controller unfences
    the broker only once its applied offset (``MetadataLoader.lastAppliedOffset``, advanced after
    every publisher has the image) reaches its new ``RegisterBrokerRecord``
    (``BrokerHeartbeatManager.calculateNextBrokerState``), which follows every change the
    controller made before it accepted the new incarnation, the fence of the old session and the
    new leader among them. So when it serves, it holds the controller's state: the state kmc's
    restarted broker learns."""
    if source == "harness" and kind == "restart" and e.get("broker") is not None:
        replaying.add(int(e["broker"]))
    elif kind == "unfenced" and node is not None:
        replaying.discard(node)
    if kind in ("become-leader", "become-follower") and node in replaying and check:
        return ("replayed", node, int(e["start_offset"])), {**e, "kind": "replayed"}
    return check, e


EPOCH_FACTS = {"hw", "remote_leo", "leader_isr", "leader_shrink", "truncated"}


def _with_epoch(check, kind: str, source: str, node, e: dict, epoch_of: dict):
    """A broker's HW, remote-LEO, ISR and truncation lines do not print its leader epoch, but
    its last ``starts at leader epoch e`` line does (``Partition.makeLeader``/``makeFollower``
    log every change of it; a restart forgets it until the broker logs one again): the fact
    carries that epoch, so that a line a stale leader wrote in an old epoch is not matched by
    a state where the broker leads again in a newer one."""
    if source == "harness" and kind in ("kill -9", "restart", "SIGTERM") and e.get("broker") is not None:
        epoch_of[int(e["broker"])] = None
    if node is None or node == CONTROLLER_NODE:
        return check
    if kind in ("become-leader", "become-follower"):
        epoch_of[node] = int(e["leader_epoch"])
    elif kind in ("started", "replayed"):
        epoch_of[node] = None
    if check and check[0] in EPOCH_FACTS:
        return check + (epoch_of.get(node),)
    return check


def _fact(kind: str, source: str, node: int | None, e: dict, rid) -> tuple[tuple | None, str]:
    b = int(e["broker"]) if "broker" in e and e["broker"] is not None else None
    if source == "client":
        if kind == "send":
            rid(e["value"])
            return None, ("a send is not an append: the leader appends when it takes the request, maybe after "
                          "a retry to another leader; it bounds the records written (validate.prefix_limits)")
        if kind == "ack":
            return ("acked", rid(e["value"]), int(e["offset"])), ""
        if kind == "read":
            records = tuple((int(o), rid(v)) for o, v in e["records"])
            return ("read", records, int(e["end_offset"])), ""
        return None, "a failed send says nothing certain: the record may or may not be in a log"
    if source == "harness":
        if kind == "kill -9":
            return ("down", b), ""
        if kind == "restart":
            return None, ("the harness starts a JVM: the broker is up for kmc once it logs (its first "
                          "become line, 'Kafka Server started'); a quick restart registers only after "
                          "the old session expired and the controller fenced it")
        if kind in ("SIGSTOP", "SIGCONT"):
            return None, "a paused broker is one that takes no step: not a fact of kmc's state"
        return None, "an intervention kmc's state does not record"
    if node == CONTROLLER_NODE:
        if kind == "partition-change":
            d = diff_fields(e["diff"])
            return ("controller",
                    int(d["leader"]) if "leader" in d else None,
                    int(d["leaderEpoch"]) if "leaderEpoch" in d else None,
                    _ids(d["isr"]) if "isr" in d else None,
                    _ids(d["elr"]) if "elr" in d else None), ""
        if kind == "fence":
            return ("fenced", b), ""
        return None, "the controller quorum's own life is not in kmc's state"
    if node is None:
        return None, "an event from an unknown source"
    if kind == "become-leader":
        return ("leads", node, int(e["leader_epoch"]), int(e["start_offset"]), int(e["high_watermark"]),
                _ids(e["isr"])), ""
    if kind == "become-follower":
        return ("follows", node, int(e["leader"]), int(e["leader_epoch"]), int(e["start_offset"])), ""
    if kind == "high-watermark":
        return ("hw", node, int(e["new"])), ""
    if kind == "remote-leo":
        return ("remote_leo", node, int(e["follower"]), int(e["offset"])), ""
    if kind == "isr-shrink":
        return ("leader_shrink", node, _ids(e["old"]), _ids(e["new"])), ""
    if kind == "isr-updated":
        return ("leader_isr", node, _ids(e["isr"])), ""
    if kind == "truncate":
        return ("truncated", node, int(e["offset"])), ""
    if kind == "unfenced":
        return ("unfenced", node), ""
    if kind == "started":
        return ("up", node), ""
    if kind == "skip-become-leader":
        return None, "the broker keeps its state (KAFKA-13790): no change to match"
    if kind == "metadata-delta":
        return None, "the metadata log's replay: kmc models its effects, not its batches"
    if kind == "controlled-shutdown":
        return None, "the controller's decision is the partition change that follows"
    return None, "a log line kmc's state does not hold"


_EPOCH_AT = {"hw": 3, "remote_leo": 4, "leader_isr": 3, "leader_shrink": 4, "truncated": 3}


def holds(check: tuple, state) -> bool:
    """Whether the kmc ``state`` (a ``ClusterState``) satisfies the observed condition."""
    kind = check[0]
    reps = state.replicas
    if kind in _BROKER_FACTS - {"fenced"}:
        if check[1] >= len(reps):
            return False
        r = reps[check[1]]
    if kind == "leads":
        _, b, epoch, leo, hw, isr = check
        return (r.alive and r.leader == b and r.leader_epoch == epoch and len(r.log) == leo
                and r.high_watermark == hw and tuple(sorted(r.isr)) == isr)
    if kind == "follows":
        _, b, leader, epoch, leo = check
        return r.alive and r.leader == leader and r.leader_epoch == epoch and len(r.log) == leo
    if kind == "replayed":
        # its log on disk; kmc's broker is up once the controller registered the new JVM, which
        # may come later (a quick restart registers after the old session is fenced)
        return len(r.log) == check[2]
    if kind in EPOCH_FACTS and len(check) > _EPOCH_AT[kind] and check[_EPOCH_AT[kind]] is not None \
            and r.leader_epoch != check[_EPOCH_AT[kind]]:
        return False
    if kind == "hw":
        return r.alive and r.high_watermark == check[2]
    if kind == "remote_leo":
        # at least: request-handler threads log "Recorded replica f ..." after updating the
        # follower's state, so another thread's HW line can come first with it (a few ms apart)
        _, b, f, off = check[:4]
        return r.leader == b and f < len(r.remote_log_end_offsets) and r.remote_log_end_offsets[f] >= off
    if kind in ("leader_isr", "leader_shrink"):
        asked = getattr(r, "alter_partition", ()) or ()
        committed = tuple(sorted(r.isr))
        proposed = tuple(sorted(asked[1])) if len(asked) > 1 else None
        if r.leader != check[1]:
            return False
        if kind == "leader_isr":
            return committed == check[2]
        # "Shrinking ISR from old to new" is the leader's AlterPartition proposal
        # (Partition.prepareIsrShrink): its committed ISR changes on the answer, so the proposal
        # matches too. Kafka's maybeShrinkIsr removes every out-of-sync follower in one proposal,
        # kmc's LeaderShrinkIsr one follower per step (docs/model.md, "An ISR shrink removes one
        # follower"): the line is also matched part-way through the model's steps, by a leader
        # whose committed or proposed ISR lies strictly between the two.
        _, _, old, new = check[:4]
        if new in (committed, proposed):
            return True
        if len(check) > 5 and check[5]:
            return False  # the model removes the set in one step (validate.exact_shrinks)
        return check[1] in new and set(committed) <= set(old) and any(   # (a leader never removes itself)
            x is not None and set(new) < set(x) < set(old) for x in (committed, proposed))
    if kind == "truncated":
        return len(r.log) == check[2]
    if kind == "down":
        return not r.alive
    if kind == "up":
        return bool(r.alive)
    if kind == "unfenced":
        return bool(r.alive) and check[1] in state.controller.live_brokers
    c = state.controller
    if kind == "fenced":
        return check[1] not in c.live_brokers
    if kind == "controller":
        _, leader, epoch, isr, elr = check
        if leader is not None and c.leader != leader:
            return False
        if epoch is not None and c.leader_epoch != epoch:
            return False
        if isr is not None and tuple(sorted(c.isr)) != isr:
            return False
        model_elr = getattr(state, "elr", None)
        if elr is not None and model_elr is not None and tuple(sorted(model_elr)) != elr:
            return False
        return True
    if kind == "sent":
        return state.records_written >= check[1]
    if kind == "acked":
        return (check[1], check[2]) in set(map(tuple, state.acked))
    if kind == "read":
        _, records, end = check
        for b, r in enumerate(reps):
            if r.alive and r.leader == b and r.high_watermark == end and len(r.log) >= end and all(
                    o < len(r.log) and r.log[o][0] == i for o, i in records):
                return True
        return False
    raise ValueError(f"unknown fact {kind!r}")


def load_events(path: Path) -> list[dict]:
    """``events.jsonl`` (or a run directory holding it) as a list of dicts."""
    path = Path(path)
    if path.is_dir():
        if not (path / "events.jsonl").is_file():
            raise ProjectionError(f"{path} is not a run directory: it holds no events.jsonl (kmc "
                                  "conformance run and nemesis write one per run)")
        path = path / "events.jsonl"
    out = []
    # through model.files: /dev/zero, a silent pipe or a huge file is one line, not a hang
    text = read_text(path, what="a run's events.jsonl", limit=MAX_EVENTS_BYTES, error=ProjectionError)
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deep
                raise ProjectionError(f"{path}: line {n} is not JSON") from None
    return out


MAX_EVENTS_BYTES = 256 * 2**20
"""The largest events.jsonl read: a nemesis run's stream is tens of KiB."""


_BROKER_FACTS = {"leads", "follows", "replayed", "hw", "remote_leo", "leader_isr", "leader_shrink", "truncated",
                 "unfenced", "down", "up", "fenced"}


def restrict(projection: Projection, replication_factor: int) -> Projection:
    """The projection with facts about brokers that hold no replica of the run's topic made
    unobservable: the harness's clusters have three brokers, a topic of replication factor 2
    lives on brokers 0 and 1, and kmc's state has no broker 2."""
    facts = []
    for f in projection.facts:
        if f.observed and f.check[0] in _BROKER_FACTS and f.check[1] >= replication_factor:
            f = Fact(f.index, f.ts, f.source, f.kind, False, (), "a broker with no replica of the run's topic",
                     f.text)
        facts.append(f)
    return Projection(facts, projection.record_ids, tuple(range(replication_factor)))

