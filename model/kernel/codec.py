"""Rows and readable states: ``encode`` a ``ClusterState`` into its row, ``decode`` a row back.

The readable ``ClusterState`` (``model/state.py``) is the *view* of a row: traces, the viewer,
ITF files, Python properties and the z3 cross-checks read it. Both directions are derived from
the state schema (``model/schema.py``): each field is written into its slots and read back by
its readable type, so ``decode(encode(s)) == s`` for every state that fits the layout, and
``encode(decode(row))`` is the row (``tests/unit/test_codec.py``). A state that does not fit (a
log longer than its record slots, a field of a feature the layout leaves out) is refused with a
``SlotOverflow``, never cut.

For speed (decoding is on the path of every property written in Python) each layout gets a
*plan* once: per field, a small function over the row as a Python list, with the positions it
needs bound in.
"""

from __future__ import annotations

import numpy as np

from model import schema as S
from model.actions import ACTION_NAMES, ACTION_PARAMS, Action
from model.kernel.fields import SlotOverflow
from model.kernel.layout import Layout, slot_count
from model.state import RECORD_CLASSES, ClusterState, ReplicaState

_MEMBERS = [tuple(b for b in range(8) if (mask >> b) & 1) for mask in range(256)]


def _members(mask: int) -> tuple:
    return _MEMBERS[mask & 0xFF]


def _mask(brokers) -> int:
    m = 0
    for b in brokers:
        m |= 1 << b
    return m


def _check_record(rid: int, slots: int) -> None:
    if not 1 <= rid <= slots:
        raise SlotOverflow(f"record r{rid} is beyond the record slots (max-records {slots})")


class _Where:
    """Row positions of one layout's slots: ``at(name)`` for a partition slot or a slot of
    broker ``b``; ``count(name)`` its number of values (0 when its feature is off)."""

    def __init__(self, lay: Layout) -> None:
        self.lay = lay
        self.n, self.records, self.epochs = lay.n_brokers, lay.n_records, lay.n_epochs
        self.counts = {s.name: slot_count(s, self.n, self.records, self.epochs, lay.features)
                       for s in S.SLOTS}
        self.levels = {s.name: s.level for s in S.SLOTS}
        self.offsets = {s.name: int(lay.array[S.SLOT_INDEX[s.name]]) for s in S.SLOTS}

    def at(self, name: str, b: int | None = None) -> int:
        if self.levels[name] == S.PARTITION:
            return self.offsets[name]
        return self.lay.block_start(b) + self.offsets[name]


# ------------------------------------------------------------------------------ decoding

def _decoder(f: S.Field, w: _Where, b: int | None):
    """A function of the row (a list) giving ``f``'s readable value (for broker ``b``'s copy
    of a replica field)."""
    if f.feature and not w.lay.has(f.feature):
        default = f.default
        return lambda v: default
    t = f.type
    if t in (S.INT, S.BROKER):
        p = w.at(f.slots[0].name, b)
        return lambda v: v[p]
    if t == S.BOOL:
        p = w.at(f.slots[0].name, b)
        return lambda v: bool(v[p])
    if t == S.BROKERS_SET:
        p = w.at(f.slots[0].name, b)
        return lambda v: _members(v[p])
    if t == S.PER_BROKER:
        p, n = w.at(f.slots[0].name, b), w.n
        return lambda v: tuple(v[p:p + n])
    if t == S.LOG:
        count, ids, epochs = (w.at(s.name, b) for s in f.slots)
        return lambda v: tuple(zip(v[ids:ids + v[count]], v[epochs:epochs + v[count]]))
    if t == S.PRODUCER_EPOCHS:
        count, epochs = w.at(f.uses[0], b), w.at(f.slots[0].name, b)
        return lambda v: tuple(v[epochs:epochs + v[count]])
    if t == S.PER_RECORD:
        p, records = w.at(f.slots[0].name), w.records
        return lambda v: tuple(v[p:p + records])
    if t in (S.MESSAGE, S.RECORD):
        parts = [_decoder(p, w, b) for p in f.parts]
        if t == S.RECORD:
            cls = RECORD_CLASSES[f.name]
            return lambda v: cls._make([d(v) for d in parts])
        present = w.at((f.slots or f.parts[0].slots)[0].name, b)
        return lambda v: tuple([d(v) for d in parts]) if v[present] else ()
    if t in (S.REQUESTS, S.REQUEST_FLAGS, S.REQUEST_VALUES):
        return _requests_decoder(f, w)
    if t in (S.ACKS_PENDING, S.ACKS_DONE):
        state = w.at("ack_state")
        leader, offset = w.at("ack_leader"), w.at("ack_offset")
        records, wanted = w.records, S.ACK_PENDING if t == S.ACKS_PENDING else S.ACK_DONE

        def acks(v):
            out = []
            for r in range(records):
                st = v[state + r]
                if st == wanted:
                    out.append((v[leader + r], r + 1, v[offset + r]) if wanted == S.ACK_PENDING
                               else (r + 1, v[offset + r]))
                elif st not in (S.ACK_NONE, S.ACK_PENDING, S.ACK_DONE):
                    raise SlotOverflow(f"record r{r + 1} has an unknown acknowledgement state {st}")
            return tuple(out)  # by record id, so sorted for acked; pending sorted below
        if wanted == S.ACK_PENDING:
            return lambda v: tuple(sorted(acks(v)))
        return acks
    if t == S.PREFIX:
        length, ids = (w.at(s.name) for s in f.slots)
        return lambda v: tuple(v[ids:ids + v[length]])
    if t == S.RECORD_OFFSETS:
        p, records = w.at(f.slots[0].name), w.records
        return lambda v: tuple((r + 1, v[p + r] - 1) for r in range(records) if v[p + r])
    raise AssertionError(f"field {f.name}: no decoder for type {t}")


def _requests_decoder(f: S.Field, w: _Where):
    """LeaderAndIsr requests kept per (broker, epoch) in each broker's block."""
    n, epochs = w.n, w.epochs
    flag = [w.at(f.uses[0] if f.uses else f.slots[0].name, b) for b in range(n)]
    own = [[w.at(s.name, b) for s in f.slots] for b in range(n)]
    t = f.type

    def requests(v):
        out = []
        for b in range(n):
            for e in range(epochs):
                if not v[flag[b] + e]:
                    continue
                if t == S.REQUESTS:
                    _, leader, isr = own[b]
                    out.append((b, e, v[leader + e], _members(v[isr + e])))
                elif t == S.REQUEST_FLAGS:
                    out.append((b, e))
                else:
                    out.append((b, e, v[own[b][0] + e]))
        return tuple(out)  # broker, then epoch: sorted
    return requests


# ------------------------------------------------------------------------------ encoding

def _encoder(f: S.Field, w: _Where, b: int | None):
    """A function ``(row list, value)`` writing ``f``'s value into its slots (broker ``b``'s
    copy of a replica field); it raises ``SlotOverflow`` for a value the layout cannot hold."""
    if f.feature and not w.lay.has(f.feature):
        default, words = f.default, f.feature.replace("_", " ")

        def absent(v, value):
            if value != default:
                raise SlotOverflow(f"the state uses {words}, which this configuration does not model")
        return absent
    t = f.type
    if t in (S.INT, S.BROKER, S.BOOL, S.BROKERS_SET):
        p = w.at(f.slots[0].name, b)
        if t == S.BOOL:
            def put(v, value):
                v[p] = 1 if value else 0
        elif t == S.BROKERS_SET:
            def put(v, value):
                v[p] = _mask(value)
        else:
            def put(v, value):
                v[p] = value
        return put
    if t == S.PER_BROKER:
        p, n, optional = w.at(f.slots[0].name, b), w.n, bool(f.feature)

        def per_broker(v, value):
            if len(value) != n and not (optional and value == ()):
                raise SlotOverflow(f"broker {b}'s {f.name} has {len(value)} entries, not {n}")
            for i, x in enumerate(value):
                v[p + i] = int(x)
        return per_broker
    if t == S.LOG:
        count, ids, epochs = (w.at(s.name, b) for s in f.slots)
        records = w.records
        what = f"broker {b}'s {f.name}" if b is not None else f.name

        def log(v, value):
            if len(value) > records:
                raise SlotOverflow(f"{what} holds {len(value)} records, the layout {records}")
            v[count] = len(value)
            for o, (rid, epoch) in enumerate(value):
                v[ids + o], v[epochs + o] = rid, epoch
        return log
    if t == S.PRODUCER_EPOCHS:
        epochs, records = w.at(f.slots[0].name, b), w.records
        what = f"broker {b}'s {f.name}"

        def producer_epochs(v, value):
            if len(value) > records:
                raise SlotOverflow(f"{what} holds {len(value)} entries, the layout {records}")
            for o, epoch in enumerate(value):
                v[epochs + o] = epoch
        return producer_epochs  # its length is the log's (or the response's): checked by decode
    if t == S.PER_RECORD:
        p, records = w.at(f.slots[0].name), w.records

        def per_record(v, value):
            if len(value) != records:
                raise SlotOverflow(f"{f.name} has {len(value)} entries, not {records}")
            for i, x in enumerate(value):
                v[p + i] = int(x)
        return per_record
    if t in (S.MESSAGE, S.RECORD):
        parts = [_encoder(p, w, b) for p in f.parts]
        present = w.at(f.slots[0].name, b) if f.slots else None

        def message(v, value):
            if t == S.MESSAGE and not value:
                return
            if present is not None:
                v[present] = 1
            if len(value) != len(parts):
                raise SlotOverflow(f"{f.name} has {len(value)} parts, not {len(parts)}")
            for put, x in zip(parts, value):
                put(v, x)
        return message
    if t in (S.REQUESTS, S.REQUEST_FLAGS, S.REQUEST_VALUES):
        return _requests_encoder(f, w)
    if t in (S.ACKS_PENDING, S.ACKS_DONE):
        state, leader, offset = w.at("ack_state"), w.at("ack_leader"), w.at("ack_offset")
        records = w.records
        if t == S.ACKS_PENDING:
            def pending(v, value):
                for lead, rid, off in value:
                    _check_record(rid, records)
                    v[state + rid - 1], v[leader + rid - 1], v[offset + rid - 1] = S.ACK_PENDING, lead, off
            return pending

        def acked(v, value):
            for rid, off in value:
                _check_record(rid, records)
                v[state + rid - 1], v[offset + rid - 1] = S.ACK_DONE, off
        return acked
    if t == S.PREFIX:
        length, ids = (w.at(s.name) for s in f.slots)
        records = w.records

        def prefix(v, value):
            if len(value) > records:
                raise SlotOverflow(f"the {f.name} history is longer than the record slots")
            v[length] = len(value)
            for i, rid in enumerate(value):
                v[ids + i] = rid
        return prefix
    if t == S.RECORD_OFFSETS:
        p, records = w.at(f.slots[0].name), w.records

        def record_offsets(v, value):
            for rid, off in value:
                _check_record(rid, records)
                v[p + rid - 1] = off + 1  # 0 means "not read"
        return record_offsets
    raise AssertionError(f"field {f.name}: no encoder for type {t}")


def _requests_encoder(f: S.Field, w: _Where):
    n, epochs = w.n, w.epochs
    own = [[w.at(s.name, b) for s in f.slots] for b in range(n)]
    t = f.type

    def requests(v, value):
        for request in value:
            b, e = request[0], request[1]
            if not 0 <= b < n:
                raise SlotOverflow(f"a {f.name} entry names broker {b}, which does not exist")
            if not 0 <= e < epochs:
                raise SlotOverflow(f"a {f.name} entry carries epoch {e}, beyond the epoch slots")
            if t == S.REQUESTS:
                flag, leader, isr = own[b]
                if v[flag + e]:
                    raise SlotOverflow("two LeaderAndIsr requests for one broker and epoch")
                v[flag + e], v[leader + e], v[isr + e] = 1, request[2], _mask(request[3])
            elif t == S.REQUEST_FLAGS:
                v[own[b][0] + e] = 1
            else:
                v[own[b][0] + e] = request[2]
    return requests


# ------------------------------------------------------------------------------ plans

class _Plan:
    """One layout's field decoders and encoders, and the row's fill values."""

    def __init__(self, lay: Layout) -> None:
        w = _Where(lay)
        self.width, self.n = lay.width, lay.n_brokers
        self.decode_replica = [[_decoder(f, w, b) for f in S.REPLICA] for b in range(self.n)]
        self.decode_cluster = [_decoder(f, w, None) for f in S.CLUSTER]
        self.encode_replica = [[_encoder(f, w, b) for f in S.REPLICA] for b in range(self.n)]
        self.encode_cluster = [_encoder(f, w, None) for f in S.CLUSTER]
        self.blank = [0] * lay.width
        for s in S.SLOTS:
            if s.fill and w.counts[s.name]:
                for b in range(self.n) if s.level == S.BLOCK else (None,):
                    start = w.at(s.name, b)
                    self.blank[start:start + w.counts[s.name]] = [s.fill] * w.counts[s.name]


_PLANS: dict[tuple, _Plan] = {}


def _plan(lay: Layout) -> _Plan:
    """The plan of ``lay`` (a layout is determined by its three sizes and its features)."""
    key = (lay.n_brokers, lay.n_records, lay.n_epochs, lay.features)
    found = _PLANS.get(key)
    if found is None:
        found = _PLANS[key] = _Plan(lay)
    return found


def encode(state: ClusterState, lay: Layout) -> np.ndarray:
    """The row of ``state`` (raises ``SlotOverflow`` if it does not fit the layout)."""
    plan = _plan(lay)
    if len(state.replicas) != plan.n:
        raise SlotOverflow(f"the state has {len(state.replicas)} replicas, the layout {plan.n}")
    v = list(plan.blank)
    for b, r in enumerate(state.replicas):
        for put, value in zip(plan.encode_replica[b], r):
            put(v, value)
    for put, value in zip(plan.encode_cluster, state[1:]):
        put(v, value)
    try:
        return np.array(v, dtype=np.int8)
    except OverflowError:
        raise SlotOverflow("a value of the state does not fit a state slot (-128..127)") from None


def decode(row, lay: Layout) -> ClusterState:
    """The readable state of a row."""
    plan = _plan(lay)
    v = row.tolist()
    replicas = tuple(ReplicaState._make([d(v) for d in decoders]) for decoders in plan.decode_replica)
    return ClusterState._make([replicas] + [d(v) for d in plan.decode_cluster])


def decode_action(acts_row) -> Action:
    """The readable action of a kernel action record ``(action id, arg0, arg1)``."""
    name = ACTION_NAMES[int(acts_row[0])]
    arity = len(ACTION_PARAMS[name])
    return Action(name, tuple(int(x) for x in acts_row[1:1 + arity]))
