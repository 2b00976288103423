"""The replication state of one partition, as immutable records of small ints.

These are the hot-path records of the explorer: ``typing.NamedTuple`` (fast to build, hash and
``_replace``), holding only ints, bools and tuples, so a state has one canonical plain-tuple form
(``to_plain``) that fingerprints and serialises identically in every process.

Brokers are numbered ``0 .. replication_factor-1`` (Kafka's default ``broker.id`` is 0) and every
per-broker tuple is indexed by broker id.
"""

from __future__ import annotations

from typing import NamedTuple

from model.constants import NO_LEADER


class ReplicaState(NamedTuple):
    """One broker's replica of the partition, and that broker's view of the partition.

    Attributes:
        alive: the broker process runs.
        log: records ``(record_id, leader_epoch)`` at offsets 0, 1, ...; LEO = ``len(log)``.
        high_watermark: records below it are committed (``UnifiedLog.highWatermark``); HW <= LEO.
        leader_epoch: the epoch of the last LeaderAndIsr request this broker applied (-1 after a
            restart, when it has applied none).
        leader: the broker this one believes leads the partition (itself if it is leader).
        isr: the in-sync replicas as this broker knows them (kept by a leader, ``()`` otherwise).
        remote_log_end_offsets: on a leader, each follower's LEO as of that follower's last
            fetch (``Replica.logEndOffset`` on the leader; -1 = not known yet).
        truncating: a follower that must still truncate its log against the leader
            (OffsetsForLeaderEpoch, KIP-101 and later) before it may fetch.
        fetch_response: a fetch response on its way to this follower, ``()`` if none, else
            ``(leader, leader_epoch_when_sent, fetch_offset, records, leader_hw, leader_leo)``.
        flushed_offset: records below it are on disk (only tracked with power-loss crashes).
        checkpointed_hw: the HW in the broker's checkpoint file, what a restart reads back
            (tracked with --hw-checkpoint interval; -1 otherwise: the file follows the HW).
        shutting_down: the controller has handled this broker's controlled shutdown and keeps
            it out of elections; the broker stops next (with --max-controlled-shutdowns).
        fetch_request: a fetch of this broker's held up in flight (--max-delayed-fetches), ``()``
            if none, else ``(leader, leader_epoch, fetch_offset, current)``; ``current`` is
            false once the broker has restarted since (a new broker epoch, KIP-903).
        alter_partition: the leader's pending ISR change (KIP-497, 2.7+), ``()`` if none, else
            ``(state, isr, leader_epoch, partition_epoch_current, member_epoch_current)``:
            state 1 the request is on its way to the controller (``isr`` proposed), 2 accepted
            (the answer carrying ``isr`` is on its way back), 3 refused (INELIGIBLE_REPLICA), 4
            stuck (an error without retry: waiting for new metadata).
        partition_epoch_current: this broker knows the controller's current partition epoch.
        partition_change: KRaft: a ``PartitionChangeRecord`` keeping the leader epoch still to
            apply, ``()`` if none, else ``(isr, leader_epoch, current)``.
        remote_current: on a leader, per follower: its last fetch came from its current
            incarnation (KIP-903); ``()`` when not tracked.
        clean_shutdown: its last stop was a controlled shutdown (KIP-966's clean-shutdown file).
        controller_epoch_seen: the newest controller epoch it has obeyed (ZooKeeper mode, with
            --max-controller-failovers).
        zombie_request: the zombie controller's LeaderAndIsr is on its way to it.
    """

    alive: bool
    log: tuple
    high_watermark: int
    leader_epoch: int
    leader: int
    isr: tuple
    remote_log_end_offsets: tuple
    truncating: bool
    fetch_response: tuple
    flushed_offset: int
    checkpointed_hw: int = -1
    shutting_down: bool = False
    fetch_request: tuple = ()
    alter_partition: tuple = ()
    partition_epoch_current: bool = True
    partition_change: tuple = ()
    remote_current: tuple = ()
    clean_shutdown: bool = False
    controller_epoch_seen: int = 0
    zombie_request: bool = False

    @property
    def log_end_offset(self) -> int:
        """LEO: the offset of the next record this replica will write."""
        return len(self.log)


class PartitionState(NamedTuple):
    """The controller's record of the partition (ZooKeeper's ``/brokers/topics/.../state`` znode,
    or the KRaft ``PartitionRecord``), updated atomically.

    Attributes:
        leader: the elected leader, or -1 (``NO_LEADER``).
        leader_epoch: bumped by every election and every controller-side ISR change.
        isr: the in-sync replicas (sorted broker ids).
        live_brokers: the brokers the controller believes alive (its view lags real crashes
            until it detects them: the ZooKeeper session or KRaft heartbeat timeout).
    """

    leader: int
    leader_epoch: int
    isr: tuple
    live_brokers: tuple


class ClusterState(NamedTuple):
    """Everything about the partition: replicas, controller, messages in flight, the producer.

    Attributes:
        replicas: one ``ReplicaState`` per broker.
        controller: the controller's ``PartitionState``.
        leader_and_isr: LeaderAndIsr requests sent and not yet applied, sorted tuples
            ``(broker, leader_epoch, leader, isr)``; a request whose epoch is not newer than its
            target's is dropped (the broker would ignore it).
        pending_acks: acks=all produce requests waiting in a leader's purgatory for the HW,
            ``(leader, record_id, offset)``.
        acked: records the producer got a successful acknowledgement for, ``(record_id, offset)``.
        consumer_visible: record ids a consumer could have read (below a true leader's HW), as the
            longest such prefix seen so far; history kept for ``monotonic-visibility``.
        records_written: how many records the producer has sent (the next record id is this + 1).
        crashes: how many broker crashes have happened (a bound).
        unflushed_losses: crashes that lost unflushed records (a bound, power-loss only).
        controlled_shutdowns: controlled shutdowns the controller has handled (a bound).
        session_expiries: times the controller lost a running broker (a bound).
        delayed_fetches: fetches held up in flight so far (a bound).
        leader_recovering: KIP-704: the leader was elected uncleanly and has not yet had an
            AlterPartition accepted (KRaft).
        elr, last_known_elr: KIP-966's eligible leader replicas and last known ELR (sorted ids).
        leader_and_isr_current: the LeaderAndIsr requests in flight that carry the controller's
            latest record, ``(broker, leader_epoch)`` pairs (partition epochs, see
            ``model/kernel/controller.py``).
        controller_epoch, controller_failovers: the active controller's epoch (ZooKeeper mode)
            and the failovers so far (a bound).
        zombie_controller: the deposed controller that has not noticed, ``()`` if none, else
            ``(controller_epoch, leader, leader_epoch, isr)``: its frozen view of the partition.
        leader_and_isr_controller_epochs: the controller epoch each LeaderAndIsr in flight
            carries, ``(broker, leader_epoch, controller_epoch)`` triples.
        read_offsets: history for ``no-read-loss`` (kept only when that property is checked):
            ``(record, offset)`` for every record a consumer could have read, at the offset it
            was first readable.
    """

    replicas: tuple
    controller: PartitionState
    leader_and_isr: tuple
    pending_acks: tuple
    acked: tuple
    consumer_visible: tuple
    records_written: int
    crashes: int
    unflushed_losses: int
    controlled_shutdowns: int = 0
    session_expiries: int = 0
    delayed_fetches: int = 0
    leader_recovering: bool = False
    elr: tuple = ()
    last_known_elr: tuple = ()
    leader_and_isr_current: tuple = ()
    controller_epoch: int = 0
    controller_failovers: int = 0
    zombie_controller: tuple = ()
    leader_and_isr_controller_epochs: tuple = ()
    read_offsets: tuple = ()

    def true_leader(self) -> int:
        """The controller's leader, if it is alive and has taken up the controller's epoch; else -1.

        This is the leader clients would find and whose log is the partition's log: the
        properties about lost or changed data are judged against it.
        """
        c = self.controller
        if c.leader == NO_LEADER:
            return NO_LEADER
        r = self.replicas[c.leader]
        if r.alive and r.leader == c.leader and r.leader_epoch == c.leader_epoch:
            return c.leader
        return NO_LEADER


# The fields added after kmc 0.1's state, with their kind and default: trace files (JSON, ITF)
# and the reference model's symmetry are driven by these tables, so a new field needs no code
# there. Kinds: "int", "bool", "broker" (a broker id or -1), "brokers" (a set of broker ids, a
# sorted tuple), "per-broker" (a tuple of ints indexed by broker id), "requests" (a sorted
# tuple of (broker, leader_epoch) pairs), or a tuple of (name, kind) pairs for a message that
# may be in flight (``()`` when there is none).
FETCH_REQUEST = (("leader", "broker"), ("leader_epoch", "int"), ("fetch_offset", "int"),
                 ("current", "bool"))
ALTER_PARTITION = (("state", "int"), ("isr", "brokers"), ("leader_epoch", "int"),
                   ("partition_epoch_current", "bool"), ("member_epoch_current", "bool"))
PARTITION_CHANGE = (("isr", "brokers"), ("leader_epoch", "int"), ("current", "bool"))
REPLICA_EXTENSIONS: tuple = (
    ("checkpointed_hw", "int", -1),
    ("shutting_down", "bool", False),
    ("fetch_request", FETCH_REQUEST, ()),
    ("alter_partition", ALTER_PARTITION, ()),
    ("partition_epoch_current", "bool", True),
    ("partition_change", PARTITION_CHANGE, ()),
    ("remote_current", "per-broker", ()),
    ("clean_shutdown", "bool", False),
    ("controller_epoch_seen", "int", 0),
    ("zombie_request", "bool", False),
)
ZOMBIE_CONTROLLER = (("controller_epoch", "int"), ("leader", "broker"), ("leader_epoch", "int"),
                     ("isr", "brokers"))
CLUSTER_EXTENSIONS: tuple = (
    ("controlled_shutdowns", "int", 0),
    ("session_expiries", "int", 0),
    ("delayed_fetches", "int", 0),
    ("leader_recovering", "bool", False),
    ("elr", "brokers", ()),
    ("last_known_elr", "brokers", ()),
    ("leader_and_isr_current", "requests", ()),
    ("controller_epoch", "int", 0),
    ("controller_failovers", "int", 0),
    ("zombie_controller", ZOMBIE_CONTROLLER, ()),
    ("leader_and_isr_controller_epochs", "request-values", ()),
    ("read_offsets", "record-offsets", ()),
)


def extension_to_json(kind, value):
    """A value of an extension field as plain JSON (sets as sorted lists)."""
    if kind in ("int", "bool", "broker"):
        return value
    if kind in ("brokers", "per-broker"):
        return list(value) if kind == "per-broker" else sorted(value)
    if kind == "requests":
        return [{"broker": b, "leader_epoch": e} for b, e in value]
    if kind == "request-values":
        return [{"broker": b, "leader_epoch": e, "value": x} for b, e, x in value]
    if kind == "record-offsets":
        return [{"record": r, "offset": o} for r, o in value]
    if not value:
        return None
    return {name: extension_to_json(k, v) for (name, k), v in zip(kind, value)}


def extension_from_json(kind, value):
    """Inverse of ``extension_to_json``; raises TypeError/ValueError on malformed input."""
    if kind in ("int", "broker"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"expected an integer, got {value!r}")
        return value
    if kind == "per-broker":
        return tuple(int(x) for x in value)
    if kind == "requests":
        return tuple(sorted((int(q["broker"]), int(q["leader_epoch"])) for q in value))
    if kind == "request-values":
        return tuple(sorted((int(q["broker"]), int(q["leader_epoch"]), int(q["value"])) for q in value))
    if kind == "record-offsets":
        return tuple(sorted((int(q["record"]), int(q["offset"])) for q in value))
    if kind == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"expected true or false, got {value!r}")
        return value
    if kind == "brokers":
        return tuple(sorted(int(x) for x in value))
    if value is None:
        return ()
    return tuple(extension_from_json(k, value[name]) for name, k in kind)


def to_plain(state: ClusterState) -> tuple:
    """The canonical plain-tuple form of a state (no NamedTuple classes): the input of
    fingerprints and of the wire codec."""
    return (
        tuple([tuple(r) for r in state.replicas]),
        tuple(state.controller),
        state.leader_and_isr,
        state.pending_acks,
        state.acked,
        state.consumer_visible,
        state.records_written,
        state.crashes,
        state.unflushed_losses,
    ) + tuple(getattr(state, name) for name, _, _ in CLUSTER_EXTENSIONS)


def from_plain(plain: tuple) -> ClusterState:
    """Inverse of ``to_plain``."""
    replicas, controller, *rest = plain
    return ClusterState(
        tuple(ReplicaState(*r) for r in replicas), PartitionState(*controller), *rest
    )


def state_to_json(state: ClusterState) -> dict:
    """A readable JSON form of a state (Kafka names; records as ``{"id", "epoch"}``)."""
    c = state.controller
    return {
        "replicas": [
            {
                "broker": b,
                "alive": r.alive,
                "log": [{"id": rid, "epoch": ep} for rid, ep in r.log],
                "log_end_offset": len(r.log),
                "high_watermark": r.high_watermark,
                "leader_epoch": r.leader_epoch,
                "leader": r.leader,
                "isr": list(r.isr),
                "remote_log_end_offsets": list(r.remote_log_end_offsets),
                "truncating": r.truncating,
                "fetch_response": _fetch_response_json(r.fetch_response),
                "flushed_offset": r.flushed_offset,
                **{name: extension_to_json(kind, getattr(r, name))
                   for name, kind, _ in REPLICA_EXTENSIONS},
            }
            for b, r in enumerate(state.replicas)
        ],
        "controller": {
            "leader": c.leader,
            "leader_epoch": c.leader_epoch,
            "isr": list(c.isr),
            "live_brokers": list(c.live_brokers),
        },
        "leader_and_isr": [
            {"broker": b, "leader_epoch": e, "leader": l, "isr": list(isr)}
            for b, e, l, isr in state.leader_and_isr
        ],
        "pending_acks": [
            {"leader": l, "record": rid, "offset": off} for l, rid, off in state.pending_acks
        ],
        "acked": [{"record": rid, "offset": off} for rid, off in state.acked],
        "consumer_visible": list(state.consumer_visible),
        "records_written": state.records_written,
        "crashes": state.crashes,
        "unflushed_losses": state.unflushed_losses,
        **{name: extension_to_json(kind, getattr(state, name))
           for name, kind, _ in CLUSTER_EXTENSIONS},
    }


def _fetch_response_json(resp: tuple):
    if not resp:
        return None
    leader, epoch, offset, records, hw, leo = resp
    return {
        "leader": leader,
        "leader_epoch": epoch,
        "fetch_offset": offset,
        "records": [{"id": rid, "epoch": ep} for rid, ep in records],
        "leader_high_watermark": hw,
        "leader_log_end_offset": leo,
    }


def state_from_json(data: dict) -> ClusterState:
    """Inverse of ``state_to_json``; raises KeyError/TypeError/ValueError on malformed input."""

    def log_of(items):
        return tuple((int(x["id"]), int(x["epoch"])) for x in items)

    replicas = []
    for r in data["replicas"]:
        resp = r["fetch_response"]
        fetch = (
            ()
            if resp is None
            else (
                int(resp["leader"]), int(resp["leader_epoch"]), int(resp["fetch_offset"]),
                log_of(resp["records"]), int(resp["leader_high_watermark"]),
                int(resp["leader_log_end_offset"]),
            )
        )
        replicas.append(
            ReplicaState(
                bool(r["alive"]), log_of(r["log"]), int(r["high_watermark"]),
                int(r["leader_epoch"]), int(r["leader"]), tuple(int(x) for x in r["isr"]),
                tuple(int(x) for x in r["remote_log_end_offsets"]), bool(r["truncating"]),
                fetch, int(r["flushed_offset"]),
                *(extension_from_json(kind, r[name]) if name in r else default
                  for name, kind, default in REPLICA_EXTENSIONS),
            )
        )
    c = data["controller"]
    return ClusterState(
        tuple(replicas),
        PartitionState(
            int(c["leader"]), int(c["leader_epoch"]), tuple(int(x) for x in c["isr"]),
            tuple(int(x) for x in c["live_brokers"]),
        ),
        tuple(
            (int(q["broker"]), int(q["leader_epoch"]), int(q["leader"]), tuple(int(x) for x in q["isr"]))
            for q in data["leader_and_isr"]
        ),
        tuple((int(p["leader"]), int(p["record"]), int(p["offset"])) for p in data["pending_acks"]),
        tuple((int(a["record"]), int(a["offset"])) for a in data["acked"]),
        tuple(int(x) for x in data["consumer_visible"]),
        int(data["records_written"]),
        int(data["crashes"]),
        int(data["unflushed_losses"]),
        *(extension_from_json(kind, data[name]) if name in data else default
          for name, kind, default in CLUSTER_EXTENSIONS),
    )


def _install_fast_replace(cls) -> None:
    """Give a NamedTuple class a ``_replace`` whose keyword binding happens in C.

    ``collections.namedtuple``'s own ``_replace`` maps ``dict.pop`` over every field; the
    explorer calls it a million times a minute. This generated equivalent takes each field as
    an optional keyword argument and builds the tuple directly (measured in bench/bench.py).
    """
    fields = cls._fields
    params = ", ".join(f"{f}=_MISSING" for f in fields)
    values = ", ".join(f"self[{i}] if {f} is _MISSING else {f}" for i, f in enumerate(fields))
    source = f"def _replace(self, *, {params}):\n    return _new(_cls, ({values},))\n"
    namespace = {"_MISSING": object(), "_new": tuple.__new__, "_cls": cls}
    exec(source, namespace)  # noqa: S102 - generated from the class's own field names
    cls._replace = namespace["_replace"]


for _cls in (ReplicaState, PartitionState, ClusterState):
    _install_fast_replace(_cls)


def shape_error(state: ClusterState, replication_factor: int) -> str | None:
    """Why ``state`` cannot be a state of a partition with ``replication_factor`` replicas (a
    broker id out of range, a per-broker tuple of the wrong length), or None if it can.
    Used to reject hand-edited or foreign trace files with one clear line."""
    n = replication_factor
    brokers = range(n)

    def bad_ids(ids) -> bool:
        return any(b not in brokers for b in ids)

    if len(state.replicas) != n:
        return f"it has {len(state.replicas)} replicas, not {n}"
    for b, r in enumerate(state.replicas):
        if len(r.remote_log_end_offsets) != n:
            return f"broker {b}'s remote_log_end_offsets has {len(r.remote_log_end_offsets)} entries, not {n}"
        if r.leader != NO_LEADER and r.leader not in brokers:
            return f"broker {b} follows broker {r.leader}, which does not exist"
        if bad_ids(r.isr):
            return f"broker {b}'s ISR {list(r.isr)} names a broker that does not exist"
        if r.fetch_response and r.fetch_response[0] not in brokers:
            return f"broker {b} has a fetch response from broker {r.fetch_response[0]}, which does not exist"
    c = state.controller
    if (c.leader != NO_LEADER and c.leader not in brokers) or bad_ids(c.isr) or bad_ids(c.live_brokers):
        return "the controller names a broker that does not exist"
    for b, _, leader, isr in state.leader_and_isr:
        if b not in brokers or (leader != NO_LEADER and leader not in brokers) or bad_ids(isr):
            return "a LeaderAndIsr request names a broker that does not exist"
    if any(leader not in brokers for leader, _, _ in state.pending_acks):
        return "a pending acknowledgement names a broker that does not exist"
    return None


def initial_state(replication_factor: int) -> ClusterState:
    """Broker 0 leads in epoch 0 with every replica in the ISR and every log empty: the state right
    after topic creation, once every broker has applied the first LeaderAndIsr. The leader knows
    its followers' LEOs as 0 (the seed walkthrough starts them there)."""
    everyone = tuple(range(replication_factor))
    unknown = (-1,) * replication_factor
    remote = tuple(-1 if b == 0 else 0 for b in everyone)
    replicas = tuple(
        ReplicaState(
            alive=True, log=(), high_watermark=0, leader_epoch=0, leader=0,
            isr=everyone if b == 0 else (), remote_log_end_offsets=remote if b == 0 else unknown,
            truncating=False, fetch_response=(), flushed_offset=0,
        )
        for b in everyone
    )
    controller = PartitionState(leader=0, leader_epoch=0, isr=everyone, live_brokers=everyone)
    return ClusterState(replicas, controller, (), (), (), (), 0, 0, 0)
