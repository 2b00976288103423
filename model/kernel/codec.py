"""Rows and readable states: ``encode`` a ``ClusterState`` into its row, ``decode`` a row back.

The readable ``ClusterState`` (``model/state.py``) is the *view* of a row: traces, the viewer,
ITF files, Python properties and the z3 cross-checks read it. ``decode(encode(s)) == s`` for
every state that fits the layout (``tests/unit/test_codec.py``); a state that does not fit
(a log longer than its record slots, say) is refused with a ``SlotOverflow``, never cut.

Both directions work on Python lists with positions computed once per layout (``_positions``):
decoding is on the path of every property written in Python, so it is kept cheap.
"""

from __future__ import annotations

import numpy as np

from model.actions import ACTION_NAMES, ACTION_PARAMS, Action
from model.kernel import layout as L
from model.kernel.fields import ACK_DONE, ACK_NONE, ACK_PENDING, SlotOverflow
from model.state import ClusterState, PartitionState, ReplicaState


class _Positions:
    """Row positions of every field of one layout: ``g[slot]`` for the partition's fields,
    ``b[broker][slot]`` for a broker's."""

    def __init__(self, lay: L.Layout) -> None:
        self.g = {f_slot: lay.position(f_slot) for f_slot in _slots(lay.global_fields)}
        self.b = [{f_slot: lay.position(f_slot, broker) for f_slot in _slots(lay.block_fields)}
                  for broker in range(lay.n_brokers)]


def _slots(fields) -> list[int]:
    return [L.SLOT_NAMES.index(f.name) for f in fields]


_POSITIONS: dict[tuple, _Positions] = {}


def _positions(lay: L.Layout) -> _Positions:
    """The positions of ``lay``'s fields (a layout is determined by its three sizes)."""
    key = (lay.n_brokers, lay.n_records, lay.n_epochs, lay.features)
    found = _POSITIONS.get(key)
    if found is None:
        found = _POSITIONS[key] = _Positions(lay)
    return found


def _mask(brokers) -> int:
    m = 0
    for b in brokers:
        m |= 1 << b
    return m


_MEMBERS = [tuple(b for b in range(8) if (mask >> b) & 1) for mask in range(256)]


def _members(mask: int) -> tuple:
    return _MEMBERS[mask & 0xFF]


def encode(state: ClusterState, lay: L.Layout) -> np.ndarray:
    """The row of ``state`` (raises ``SlotOverflow`` if it does not fit the layout)."""
    n, slots, epochs = lay.n_brokers, lay.n_records, lay.n_epochs
    if len(state.replicas) != n:
        raise SlotOverflow(f"the state has {len(state.replicas)} replicas, the layout {n}")
    pos = _positions(lay)
    g = pos.g
    v = [0] * lay.width
    v[g[L.RECORDS_WRITTEN]] = state.records_written
    v[g[L.CRASHES]] = state.crashes
    v[g[L.UNFLUSHED_LOSSES]] = state.unflushed_losses
    c = state.controller
    v[g[L.CONTROLLER_LEADER]] = c.leader
    v[g[L.CONTROLLER_LEADER_EPOCH]] = c.leader_epoch
    v[g[L.CONTROLLER_ISR]] = _mask(c.isr)
    v[g[L.CONTROLLER_LIVE]] = _mask(c.live_brokers)
    for r in range(slots):
        v[g[L.ACK_LEADER] + r] = -1
        v[g[L.ACK_OFFSET] + r] = -1
    for leader, rid, offset in state.pending_acks:
        _check_record(rid, slots)
        v[g[L.ACK_STATE] + rid - 1] = ACK_PENDING
        v[g[L.ACK_LEADER] + rid - 1] = leader
        v[g[L.ACK_OFFSET] + rid - 1] = offset
    for rid, offset in state.acked:
        _check_record(rid, slots)
        v[g[L.ACK_STATE] + rid - 1] = ACK_DONE
        v[g[L.ACK_OFFSET] + rid - 1] = offset
    if len(state.consumer_visible) > slots:
        raise SlotOverflow("the consumer-visible history is longer than the record slots")
    v[g[L.VISIBLE_LEN]] = len(state.consumer_visible)
    for i, rid in enumerate(state.consumer_visible):
        v[g[L.VISIBLE] + i] = rid
    for b, r in enumerate(state.replicas):
        p = pos.b[b]
        if len(r.log) > slots:
            raise SlotOverflow(f"broker {b}'s log holds {len(r.log)} records, the layout {slots}")
        if len(r.remote_log_end_offsets) != n:
            raise SlotOverflow(f"broker {b} has {len(r.remote_log_end_offsets)} remote LEOs, not {n}")
        v[p[L.ALIVE]] = 1 if r.alive else 0
        v[p[L.LEADER_EPOCH]] = r.leader_epoch
        v[p[L.LEADER]] = r.leader
        v[p[L.HIGH_WATERMARK]] = r.high_watermark
        v[p[L.LOG_END_OFFSET]] = len(r.log)
        v[p[L.ISR]] = _mask(r.isr)
        v[p[L.TRUNCATING]] = 1 if r.truncating else 0
        v[p[L.FLUSHED_OFFSET]] = r.flushed_offset
        for f, leo in enumerate(r.remote_log_end_offsets):
            v[p[L.REMOTE_LEO] + f] = leo
        for o, (rid, epoch) in enumerate(r.log):
            v[p[L.LOG_RECORD] + o] = rid
            v[p[L.LOG_EPOCH] + o] = epoch
        if r.fetch_response:
            leader, epoch, offset, records, hw, leo = r.fetch_response
            if len(records) > slots:
                raise SlotOverflow("a fetch response carries more records than the record slots")
            v[p[L.RESPONSE]] = 1
            v[p[L.RESPONSE_LEADER]] = leader
            v[p[L.RESPONSE_EPOCH]] = epoch
            v[p[L.RESPONSE_FETCH_OFFSET]] = offset
            v[p[L.RESPONSE_HW]] = hw
            v[p[L.RESPONSE_LEO]] = leo
            v[p[L.RESPONSE_COUNT]] = len(records)
            for i, (rid, ep) in enumerate(records):
                v[p[L.RESPONSE_RECORD] + i] = rid
                v[p[L.RESPONSE_EPOCHS] + i] = ep
    _encode_optional(state, lay, pos, v)
    for b, epoch, leader, isr in state.leader_and_isr:
        if not 0 <= b < n:
            raise SlotOverflow(f"a LeaderAndIsr request goes to broker {b}, which does not exist")
        if not 0 <= epoch < epochs:
            raise SlotOverflow(f"a LeaderAndIsr request carries epoch {epoch}, beyond the epoch slots")
        p = pos.b[b]
        if v[p[L.LAI] + epoch]:
            raise SlotOverflow("two LeaderAndIsr requests for one broker and epoch")
        v[p[L.LAI] + epoch] = 1
        v[p[L.LAI_LEADER] + epoch] = leader
        v[p[L.LAI_ISR] + epoch] = _mask(isr)
    try:
        return np.array(v, dtype=np.int8)
    except OverflowError:
        raise SlotOverflow("a value of the state does not fit a state slot (-128..127)") from None


def _encode_optional(state: ClusterState, lay: L.Layout, pos, v: list) -> None:
    """The fields of the layout's optional features; a state that uses a feature the layout
    lacks (a trace of another configuration) does not fit it."""
    g = pos.g
    reps = state.replicas
    used = {
        "hw_checkpoint": any(r.checkpointed_hw != -1 for r in reps),
        "controlled_shutdown": state.controlled_shutdowns or any(r.shutting_down for r in reps),
        "session_expiry": state.session_expiries,
        "delayed_fetch": state.delayed_fetches or any(r.fetch_request for r in reps),
        "alter_partition": (any(r.alter_partition or not r.partition_epoch_current for r in reps)
                            or state.leader_and_isr_current),
        "kraft": state.leader_recovering or any(r.partition_change for r in reps),
        "broker_epochs": any(r.remote_current for r in reps),
        "elr": state.elr or state.last_known_elr or any(r.clean_shutdown for r in reps),
        "reads": state.read_offsets,
        "controller_failover": (state.controller_epoch or state.controller_failovers
                                or state.zombie_controller or state.leader_and_isr_controller_epochs
                                or any(r.controller_epoch_seen or r.zombie_request for r in reps)),
    }
    for feature, in_use in used.items():
        if in_use and not lay.has(feature):
            raise SlotOverflow(f"the state uses {feature.replace('_', ' ')}, which this "
                               "configuration does not model")
    if lay.has("controlled_shutdown"):
        v[g[L.CONTROLLED_SHUTDOWNS]] = state.controlled_shutdowns
    if lay.has("session_expiry"):
        v[g[L.SESSION_EXPIRIES]] = state.session_expiries
    if lay.has("delayed_fetch"):
        v[g[L.DELAYED_FETCHES]] = state.delayed_fetches
    if lay.has("kraft"):
        v[g[L.LEADER_RECOVERING]] = 1 if state.leader_recovering else 0
    if lay.has("reads"):
        for rid, offset in state.read_offsets:
            _check_record(rid, lay.n_records)
            v[g[L.READ_OFFSET] + rid - 1] = offset + 1
    if lay.has("elr"):
        v[g[L.ELR]] = _mask(state.elr)
        v[g[L.LAST_KNOWN_ELR]] = _mask(state.last_known_elr)
    if lay.has("controller_failover"):
        v[g[L.CONTROLLER_EPOCH]] = state.controller_epoch
        v[g[L.CONTROLLER_FAILOVERS]] = state.controller_failovers
        if state.zombie_controller:
            cepoch, leader, epoch, isr = state.zombie_controller
            v[g[L.ZOMBIE]] = 1
            v[g[L.ZOMBIE_CONTROLLER_EPOCH]] = cepoch
            v[g[L.ZOMBIE_LEADER]] = leader
            v[g[L.ZOMBIE_LEADER_EPOCH]] = epoch
            v[g[L.ZOMBIE_ISR]] = _mask(isr)
        for b, e, cepoch in state.leader_and_isr_controller_epochs:
            if not 0 <= b < lay.n_brokers or not 0 <= e < lay.n_epochs:
                raise SlotOverflow("a LeaderAndIsr controller epoch names a broker or epoch beyond the slots")
            v[pos.b[b][L.LAI_CONTROLLER_EPOCH] + e] = cepoch
    if lay.has("alter_partition"):
        for b, e in state.leader_and_isr_current:
            if not 0 <= b < lay.n_brokers or not 0 <= e < lay.n_epochs:
                raise SlotOverflow("a current LeaderAndIsr names a broker or epoch beyond the slots")
            v[pos.b[b][L.LAI_CURRENT] + e] = 1
    for b, r in enumerate(reps):
        p = pos.b[b]
        if lay.has("hw_checkpoint"):
            v[p[L.CHECKPOINTED_HW]] = r.checkpointed_hw
        if lay.has("controlled_shutdown"):
            v[p[L.SHUTTING_DOWN]] = 1 if r.shutting_down else 0
        if lay.has("delayed_fetch") and r.fetch_request:
            leader, epoch, offset, current = r.fetch_request
            v[p[L.FETCH_REQUEST]] = 1
            v[p[L.FETCH_REQUEST_LEADER]] = leader
            v[p[L.FETCH_REQUEST_EPOCH]] = epoch
            v[p[L.FETCH_REQUEST_OFFSET]] = offset
            v[p[L.FETCH_REQUEST_CURRENT]] = 1 if current else 0
        if lay.has("alter_partition"):
            v[p[L.PARTITION_EPOCH_CURRENT]] = 1 if r.partition_epoch_current else 0
            if r.alter_partition:
                state_, isr, epoch, pe_current, member_current = r.alter_partition
                v[p[L.ALTER_STATE]] = state_
                v[p[L.ALTER_ISR]] = _mask(isr)
                v[p[L.ALTER_LEADER_EPOCH]] = epoch
                v[p[L.ALTER_PARTITION_EPOCH_CURRENT]] = 1 if pe_current else 0
                if lay.has("broker_epochs"):
                    v[p[L.ALTER_MEMBER_EPOCH_CURRENT]] = 1 if member_current else 0
        if lay.has("kraft") and r.partition_change:
            isr, epoch, current = r.partition_change
            v[p[L.CHANGE]] = 1
            v[p[L.CHANGE_ISR]] = _mask(isr)
            v[p[L.CHANGE_LEADER_EPOCH]] = epoch
            v[p[L.CHANGE_CURRENT]] = 1 if current else 0
        if lay.has("broker_epochs"):
            if r.remote_current and len(r.remote_current) != lay.n_brokers:
                raise SlotOverflow(f"broker {b}'s remote_current has {len(r.remote_current)} entries")
            for f, flag in enumerate(r.remote_current):
                v[p[L.REMOTE_CURRENT] + f] = 1 if flag else 0
        if lay.has("elr"):
            v[p[L.CLEAN_SHUTDOWN]] = 1 if r.clean_shutdown else 0
        if lay.has("controller_failover"):
            v[p[L.CONTROLLER_EPOCH_SEEN]] = r.controller_epoch_seen
            v[p[L.ZLAI]] = 1 if r.zombie_request else 0


def _decode_optional(v: list, lay: L.Layout, pos, b: int) -> dict:
    """The optional fields of broker ``b`` as ``ReplicaState`` keyword arguments."""
    p = pos.b[b]
    out: dict = {}
    if lay.has("hw_checkpoint"):
        out["checkpointed_hw"] = v[p[L.CHECKPOINTED_HW]]
    if lay.has("controlled_shutdown"):
        out["shutting_down"] = bool(v[p[L.SHUTTING_DOWN]])
    if lay.has("delayed_fetch") and v[p[L.FETCH_REQUEST]]:
        out["fetch_request"] = (v[p[L.FETCH_REQUEST_LEADER]], v[p[L.FETCH_REQUEST_EPOCH]],
                                v[p[L.FETCH_REQUEST_OFFSET]], bool(v[p[L.FETCH_REQUEST_CURRENT]]))
    if lay.has("alter_partition"):
        out["partition_epoch_current"] = bool(v[p[L.PARTITION_EPOCH_CURRENT]])
        if v[p[L.ALTER_STATE]]:
            member = bool(v[p[L.ALTER_MEMBER_EPOCH_CURRENT]]) if lay.has("broker_epochs") else False
            out["alter_partition"] = (v[p[L.ALTER_STATE]], _members(v[p[L.ALTER_ISR]]),
                                      v[p[L.ALTER_LEADER_EPOCH]],
                                      bool(v[p[L.ALTER_PARTITION_EPOCH_CURRENT]]), member)
    if lay.has("kraft") and v[p[L.CHANGE]]:
        out["partition_change"] = (_members(v[p[L.CHANGE_ISR]]), v[p[L.CHANGE_LEADER_EPOCH]],
                                   bool(v[p[L.CHANGE_CURRENT]]))
    if lay.has("broker_epochs"):
        start = p[L.REMOTE_CURRENT]
        out["remote_current"] = tuple(v[start:start + lay.n_brokers])
    if lay.has("elr"):
        out["clean_shutdown"] = bool(v[p[L.CLEAN_SHUTDOWN]])
    if lay.has("controller_failover"):
        out["controller_epoch_seen"] = v[p[L.CONTROLLER_EPOCH_SEEN]]
        out["zombie_request"] = bool(v[p[L.ZLAI]])
    return out


def _check_record(rid: int, slots: int) -> None:
    if not 1 <= rid <= slots:
        raise SlotOverflow(f"record r{rid} is beyond the record slots (max-records {slots})")


def decode(row, lay: L.Layout) -> ClusterState:
    """The readable state of a row."""
    n, slots, epochs = lay.n_brokers, lay.n_records, lay.n_epochs
    pos = _positions(lay)
    g = pos.g
    v = row.tolist()
    replicas = []
    requests = []
    current: list = []
    stamps: list = []
    for b in range(n):
        p = pos.b[b]
        leo = v[p[L.LOG_END_OFFSET]]
        rec, ep = p[L.LOG_RECORD], p[L.LOG_EPOCH]
        log = tuple(zip(v[rec:rec + leo], v[ep:ep + leo]))
        response = ()
        if v[p[L.RESPONSE]]:
            count = v[p[L.RESPONSE_COUNT]]
            rr, re_ = p[L.RESPONSE_RECORD], p[L.RESPONSE_EPOCHS]
            response = (
                v[p[L.RESPONSE_LEADER]], v[p[L.RESPONSE_EPOCH]], v[p[L.RESPONSE_FETCH_OFFSET]],
                tuple(zip(v[rr:rr + count], v[re_:re_ + count])),
                v[p[L.RESPONSE_HW]], v[p[L.RESPONSE_LEO]],
            )
        remote = p[L.REMOTE_LEO]
        replicas.append(ReplicaState(
            alive=bool(v[p[L.ALIVE]]),
            log=log,
            high_watermark=v[p[L.HIGH_WATERMARK]],
            leader_epoch=v[p[L.LEADER_EPOCH]],
            leader=v[p[L.LEADER]],
            isr=_members(v[p[L.ISR]]),
            remote_log_end_offsets=tuple(v[remote:remote + n]),
            truncating=bool(v[p[L.TRUNCATING]]),
            fetch_response=response,
            flushed_offset=v[p[L.FLUSHED_OFFSET]],
            **_decode_optional(v, lay, pos, b),
        ))
        lai = p[L.LAI]
        for e in range(epochs):
            if v[lai + e]:
                requests.append((b, e, v[p[L.LAI_LEADER] + e], _members(v[p[L.LAI_ISR] + e])))
            if lay.has("alter_partition") and v[p[L.LAI_CURRENT] + e]:
                current.append((b, e))
            if lay.has("controller_failover") and v[lai + e]:
                stamps.append((b, e, v[p[L.LAI_CONTROLLER_EPOCH] + e]))
    pending, acked = [], []
    for r in range(1, slots + 1):
        state = v[g[L.ACK_STATE] + r - 1]
        if state == ACK_PENDING:
            pending.append((v[g[L.ACK_LEADER] + r - 1], r, v[g[L.ACK_OFFSET] + r - 1]))
        elif state == ACK_DONE:
            acked.append((r, v[g[L.ACK_OFFSET] + r - 1]))
        elif state != ACK_NONE:
            raise SlotOverflow(f"record r{r} has an unknown acknowledgement state {state}")
    visible = g[L.VISIBLE]
    controller = PartitionState(
        leader=v[g[L.CONTROLLER_LEADER]],
        leader_epoch=v[g[L.CONTROLLER_LEADER_EPOCH]],
        isr=_members(v[g[L.CONTROLLER_ISR]]),
        live_brokers=_members(v[g[L.CONTROLLER_LIVE]]),
    )
    return ClusterState(
        replicas=tuple(replicas),
        controller=controller,
        leader_and_isr=tuple(sorted(requests)),
        pending_acks=tuple(sorted(pending)),
        acked=tuple(sorted(acked)),
        consumer_visible=tuple(v[visible:visible + v[g[L.VISIBLE_LEN]]]),
        records_written=v[g[L.RECORDS_WRITTEN]],
        crashes=v[g[L.CRASHES]],
        unflushed_losses=v[g[L.UNFLUSHED_LOSSES]],
        controlled_shutdowns=v[g[L.CONTROLLED_SHUTDOWNS]] if lay.has("controlled_shutdown") else 0,
        session_expiries=v[g[L.SESSION_EXPIRIES]] if lay.has("session_expiry") else 0,
        delayed_fetches=v[g[L.DELAYED_FETCHES]] if lay.has("delayed_fetch") else 0,
        leader_recovering=bool(v[g[L.LEADER_RECOVERING]]) if lay.has("kraft") else False,
        elr=_members(v[g[L.ELR]]) if lay.has("elr") else (),
        last_known_elr=_members(v[g[L.LAST_KNOWN_ELR]]) if lay.has("elr") else (),
        leader_and_isr_current=tuple(sorted(current)),
        **_decode_cluster_failover(v, lay, g, stamps),
        read_offsets=tuple((r, v[g[L.READ_OFFSET] + r - 1] - 1) for r in range(1, slots + 1)
                           if v[g[L.READ_OFFSET] + r - 1]) if lay.has("reads") else (),
    )


def _decode_cluster_failover(v: list, lay: L.Layout, g: dict, stamps: list) -> dict:
    """The ZooKeeper controller-failover fields of the partition, as keyword arguments."""
    if not lay.has("controller_failover"):
        return {}
    zombie = ()
    if v[g[L.ZOMBIE]]:
        zombie = (v[g[L.ZOMBIE_CONTROLLER_EPOCH]], v[g[L.ZOMBIE_LEADER]],
                  v[g[L.ZOMBIE_LEADER_EPOCH]], _members(v[g[L.ZOMBIE_ISR]]))
    return {"controller_epoch": v[g[L.CONTROLLER_EPOCH]],
            "controller_failovers": v[g[L.CONTROLLER_FAILOVERS]],
            "zombie_controller": zombie, "leader_and_isr_controller_epochs": tuple(sorted(stamps))}


def decode_action(acts_row) -> Action:
    """The readable action of a kernel action record ``(action id, arg0, arg1)``."""
    name = ACTION_NAMES[int(acts_row[0])]
    arity = len(ACTION_PARAMS[name])
    return Action(name, tuple(int(x) for x in acts_row[1:1 + arity]))
