"""The replication state of one partition, readable: immutable records of small ints.

``ClusterState`` (the partition), ``ReplicaState`` (one per broker) and ``PartitionState`` (the
controller's record) are made from the state schema (``model/schema.py``): one attribute per
field, in the schema's order, with the schema's documentation. A readable state is the decoding
of a kernel row (``model/kernel/codec.py``); traces, the viewer, ITF files and properties written
in Python read it. The records are ``namedtuple``s (fast to build, hash and ``_replace``) holding
only ints, bools and tuples, so a state has one canonical plain-tuple form (``to_plain``) that
fingerprints and serialises identically in every process.

Brokers are numbered ``0 .. replication_factor-1`` (Kafka's default ``broker.id`` is 0) and every
per-broker tuple is indexed by broker id.
"""

from __future__ import annotations

from collections import namedtuple

from model import schema as S
from model.constants import NO_LEADER


def _record_base(name: str, fields) -> type:
    """The namedtuple of ``fields``; the optional ones (trailing) default to their defaults."""
    names = [f.name for f in fields]
    optional = [f for f in fields if f.optional]
    if optional and [f.name for f in optional] != names[-len(optional):]:
        raise ValueError(f"{name}: the optional fields must come last in model/schema.py")
    return namedtuple(name, names, defaults=[f.default for f in optional])


def _doc(summary: str, fields) -> str:
    lines = [summary, "", "Attributes (``model/schema.py``):"]
    lines += [f"    {f.name}: {f.doc}" for f in fields if f.doc]
    return "\n".join(lines)


class ReplicaState(_record_base("ReplicaState", S.REPLICA)):
    __slots__ = ()
    __doc__ = _doc("One broker's replica of the partition, and that broker's view of the partition.",
                   S.REPLICA)

    @property
    def log_end_offset(self) -> int:
        """LEO: the offset of the next record this replica will write."""
        return len(self.log)


class PartitionState(_record_base("PartitionState", S.CONTROLLER)):
    __slots__ = ()
    __doc__ = ("The controller's record of the partition (ZooKeeper's "
               "``/brokers/topics/.../state`` znode, or the KRaft ``PartitionRecord``), updated "
               "atomically: ``leader`` (-1 for none), ``leader_epoch`` (bumped by every election "
               "and every controller-side ISR change), ``isr`` (sorted ids) and ``live_brokers`` "
               "(the brokers the controller believes alive: its view lags real crashes until it "
               "detects them, the ZooKeeper session or KRaft heartbeat timeout).")


_CLUSTER_FIELDS = (S.Field("replicas", "replicas", doc="one ``ReplicaState`` per broker"),) + S.CLUSTER


class ClusterState(_record_base("ClusterState", _CLUSTER_FIELDS)):
    __slots__ = ()
    __doc__ = _doc("Everything about the partition: replicas, controller, messages in flight, the "
                   "producer.", _CLUSTER_FIELDS)

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


RECORD_CLASSES = {"controller": PartitionState}
"""The class of each ``RECORD`` field of the schema."""


def to_plain(state: ClusterState) -> tuple:
    """The canonical plain-tuple form of a state (no record classes): the input of the
    reference engine's fingerprints."""
    return (tuple([tuple(r) for r in state.replicas]), tuple(state.controller)) + tuple(state[2:])


def from_plain(plain: tuple) -> ClusterState:
    """Inverse of ``to_plain``."""
    replicas, controller, *rest = plain
    return ClusterState(
        tuple(ReplicaState(*r) for r in replicas), PartitionState(*controller), *rest
    )


# ------------------------------------------------------------------------------ JSON

def value_to_json(f: S.Field, value):
    """A field's value as plain JSON (``kmc check --json``'s traces), by its readable type:
    sets as sorted lists, messages as an object or null."""
    t = f.type
    if t in (S.INT, S.BOOL, S.BROKER):
        return value
    if t == S.BROKERS_SET:
        return sorted(value)
    if t in (S.PER_BROKER, S.PREFIX, S.PRODUCER_EPOCHS, S.PER_RECORD):
        return list(value)
    if t == S.LOG:
        return [{"id": rid, "epoch": ep} for rid, ep in value]
    if t in (S.MESSAGE, S.RECORD):
        if not value and t == S.MESSAGE:
            return None
        return {p.name: value_to_json(p, x) for p, x in zip(f.parts, value)}
    if t == S.REQUESTS:
        return [{"broker": b, "leader_epoch": e, "leader": l, "isr": list(isr)}
                for b, e, l, isr in value]
    if t == S.REQUEST_FLAGS:
        return [{"broker": b, "leader_epoch": e} for b, e in value]
    if t == S.REQUEST_VALUES:
        return [{"broker": b, "leader_epoch": e, "value": x} for b, e, x in value]
    if t == S.ACKS_PENDING:
        return [{"leader": l, "record": rid, "offset": off} for l, rid, off in value]
    if t in (S.ACKS_DONE, S.RECORD_OFFSETS):
        return [{"record": rid, "offset": off} for rid, off in value]
    raise AssertionError(f"field {f.name}: no JSON for type {t}")


def state_to_json(state: ClusterState) -> dict:
    """A readable JSON form of a state (Kafka names; records as ``{"id", "epoch"}``)."""
    replicas = []
    for b, r in enumerate(state.replicas):
        out = {"broker": b}
        for f, value in zip(S.REPLICA, r):
            out[f.name] = value_to_json(f, value)
            if f.name == "log":
                out["log_end_offset"] = len(value)
        replicas.append(out)
    return {"replicas": replicas,
            **{f.name: value_to_json(f, value) for f, value in zip(S.CLUSTER, state[1:])}}


# ------------------------------------------------------------------------------ the hot path

def _install_fast_replace(cls) -> None:
    """Give a record class a ``_replace`` whose keyword binding happens in C.

    ``collections.namedtuple``'s own ``_replace`` maps ``dict.pop`` over every field; the
    reference engine calls it a million times a minute. This generated equivalent takes each
    field as an optional keyword argument and builds the tuple directly.
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
