"""Rows and readable states: ``encode`` a ``ClusterState`` into its row, ``decode`` a row back.

The readable ``ClusterState`` (``model/state.py``) is the *view* of a row: traces, the viewer,
ITF files, Python properties and the z3 cross-checks read it. ``decode(encode(s)) == s`` for
every state that fits the layout (``tests/unit/test_codec.py``); a state that does not fit
(a log longer than its record slots, say) is refused with a ``SlotOverflow``, never cut.
"""

from __future__ import annotations

import numpy as np

from model.kernel import layout as L
from model.kernel.fields import ACK_DONE, ACK_NONE, ACK_PENDING, SlotOverflow
from model.state import ClusterState, PartitionState, ReplicaState


def _mask(brokers) -> int:
    m = 0
    for b in brokers:
        m |= 1 << b
    return m


def _members(mask: int, n: int) -> tuple:
    return tuple(b for b in range(n) if (mask >> b) & 1)


def encode(state: ClusterState, lay: L.Layout) -> np.ndarray:
    """The row of ``state`` (raises ``SlotOverflow`` if it does not fit the layout)."""
    n, slots, epochs = lay.n_brokers, lay.n_records, lay.n_epochs
    if len(state.replicas) != n:
        raise SlotOverflow(f"the state has {len(state.replicas)} replicas, the layout {n}")
    row = np.zeros(lay.width, dtype=np.int8)
    g = lay.position

    def put(pos: int, value: int) -> None:
        if not -128 <= value <= 127:
            raise SlotOverflow(f"value {value} does not fit a state slot")
        row[pos] = value

    put(g(L.RECORDS_WRITTEN), state.records_written)
    put(g(L.CRASHES), state.crashes)
    put(g(L.UNFLUSHED_LOSSES), state.unflushed_losses)
    c = state.controller
    put(g(L.CONTROLLER_LEADER), c.leader)
    put(g(L.CONTROLLER_LEADER_EPOCH), c.leader_epoch)
    put(g(L.CONTROLLER_ISR), _mask(c.isr))
    put(g(L.CONTROLLER_LIVE), _mask(c.live_brokers))
    for r in range(1, slots + 1):
        put(g(L.ACK_LEADER) + r - 1, -1)
        put(g(L.ACK_OFFSET) + r - 1, -1)
    for leader, rid, offset in state.pending_acks:
        _check_record(rid, slots)
        put(g(L.ACK_STATE) + rid - 1, ACK_PENDING)
        put(g(L.ACK_LEADER) + rid - 1, leader)
        put(g(L.ACK_OFFSET) + rid - 1, offset)
    for rid, offset in state.acked:
        _check_record(rid, slots)
        put(g(L.ACK_STATE) + rid - 1, ACK_DONE)
        put(g(L.ACK_OFFSET) + rid - 1, offset)
    if len(state.consumer_visible) > slots:
        raise SlotOverflow("the consumer-visible history is longer than the record slots")
    put(g(L.VISIBLE_LEN), len(state.consumer_visible))
    for i, rid in enumerate(state.consumer_visible):
        put(g(L.VISIBLE) + i, rid)
    for b, r in enumerate(state.replicas):
        p = lambda slot: lay.position(slot, b)  # noqa: E731
        if len(r.log) > slots:
            raise SlotOverflow(f"broker {b}'s log holds {len(r.log)} records, the layout {slots}")
        put(p(L.ALIVE), 1 if r.alive else 0)
        put(p(L.LEADER_EPOCH), r.leader_epoch)
        put(p(L.LEADER), r.leader)
        put(p(L.HIGH_WATERMARK), r.high_watermark)
        put(p(L.LOG_END_OFFSET), len(r.log))
        put(p(L.ISR), _mask(r.isr))
        put(p(L.TRUNCATING), 1 if r.truncating else 0)
        put(p(L.FLUSHED_OFFSET), r.flushed_offset)
        for f, leo in enumerate(r.remote_log_end_offsets):
            put(p(L.REMOTE_LEO) + f, leo)
        for o, (rid, epoch) in enumerate(r.log):
            put(p(L.LOG_RECORD) + o, rid)
            put(p(L.LOG_EPOCH) + o, epoch)
        if r.fetch_response:
            leader, epoch, offset, records, hw, leo = r.fetch_response
            if len(records) > slots:
                raise SlotOverflow("a fetch response carries more records than the record slots")
            put(p(L.RESPONSE), 1)
            put(p(L.RESPONSE_LEADER), leader)
            put(p(L.RESPONSE_EPOCH), epoch)
            put(p(L.RESPONSE_FETCH_OFFSET), offset)
            put(p(L.RESPONSE_HW), hw)
            put(p(L.RESPONSE_LEO), leo)
            put(p(L.RESPONSE_COUNT), len(records))
            for i, (rid, ep) in enumerate(records):
                put(p(L.RESPONSE_RECORD) + i, rid)
                put(p(L.RESPONSE_EPOCHS) + i, ep)
    for b, epoch, leader, isr in state.leader_and_isr:
        if not 0 <= epoch < epochs:
            raise SlotOverflow(f"a LeaderAndIsr request carries epoch {epoch}, beyond the epoch slots")
        pos = lay.position(L.LAI, b) + epoch
        if row[pos]:
            raise SlotOverflow("two LeaderAndIsr requests for one broker and epoch")
        put(pos, 1)
        put(lay.position(L.LAI_LEADER, b) + epoch, leader)
        put(lay.position(L.LAI_ISR, b) + epoch, _mask(isr))
    return row


def _check_record(rid: int, slots: int) -> None:
    if not 1 <= rid <= slots:
        raise SlotOverflow(f"record r{rid} is beyond the record slots (max-records {slots})")


def decode(row, lay: L.Layout) -> ClusterState:
    """The readable state of a row."""
    n, slots, epochs = lay.n_brokers, lay.n_records, lay.n_epochs
    v = [int(x) for x in row]
    g = lay.position
    replicas = []
    requests = []
    for b in range(n):
        base = lay.block_start(b)

        def p(slot: int) -> int:
            return base + int(lay.array[slot])

        leo = v[p(L.LOG_END_OFFSET)]
        log = tuple((v[p(L.LOG_RECORD) + o], v[p(L.LOG_EPOCH) + o]) for o in range(leo))
        response = ()
        if v[p(L.RESPONSE)]:
            count = v[p(L.RESPONSE_COUNT)]
            response = (
                v[p(L.RESPONSE_LEADER)], v[p(L.RESPONSE_EPOCH)], v[p(L.RESPONSE_FETCH_OFFSET)],
                tuple((v[p(L.RESPONSE_RECORD) + i], v[p(L.RESPONSE_EPOCHS) + i]) for i in range(count)),
                v[p(L.RESPONSE_HW)], v[p(L.RESPONSE_LEO)],
            )
        replicas.append(ReplicaState(
            alive=bool(v[p(L.ALIVE)]),
            log=log,
            high_watermark=v[p(L.HIGH_WATERMARK)],
            leader_epoch=v[p(L.LEADER_EPOCH)],
            leader=v[p(L.LEADER)],
            isr=_members(v[p(L.ISR)], n),
            remote_log_end_offsets=tuple(v[p(L.REMOTE_LEO) + f] for f in range(n)),
            truncating=bool(v[p(L.TRUNCATING)]),
            fetch_response=response,
            flushed_offset=v[p(L.FLUSHED_OFFSET)],
        ))
        for e in range(epochs):
            if v[p(L.LAI) + e]:
                requests.append((b, e, v[p(L.LAI_LEADER) + e], _members(v[p(L.LAI_ISR) + e], n)))
    pending, acked = [], []
    for r in range(1, slots + 1):
        state = v[g(L.ACK_STATE) + r - 1]
        if state == ACK_PENDING:
            pending.append((v[g(L.ACK_LEADER) + r - 1], r, v[g(L.ACK_OFFSET) + r - 1]))
        elif state == ACK_DONE:
            acked.append((r, v[g(L.ACK_OFFSET) + r - 1]))
        elif state != ACK_NONE:
            raise SlotOverflow(f"record r{r} has an unknown acknowledgement state {state}")
    visible = tuple(v[g(L.VISIBLE) + i] for i in range(v[g(L.VISIBLE_LEN)]))
    controller = PartitionState(
        leader=v[g(L.CONTROLLER_LEADER)],
        leader_epoch=v[g(L.CONTROLLER_LEADER_EPOCH)],
        isr=_members(v[g(L.CONTROLLER_ISR)], n),
        live_brokers=_members(v[g(L.CONTROLLER_LIVE)], n),
    )
    return ClusterState(
        replicas=tuple(replicas),
        controller=controller,
        leader_and_isr=tuple(sorted(requests)),
        pending_acks=tuple(sorted(pending)),
        acked=tuple(sorted(acked)),
        consumer_visible=visible,
        records_written=v[g(L.RECORDS_WRITTEN)],
        crashes=v[g(L.CRASHES)],
        unflushed_losses=v[g(L.UNFLUSHED_LOSSES)],
    )
