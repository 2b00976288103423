"""Accessors with Kafka's names over a state row.

``s`` is a state row (``int8``), ``lay`` the layout array, ``b`` a broker id. Every action reads
and writes state only through these, so an action reads like the protocol
(``set_high_watermark(t, lay, b, log_end_offset(t, lay, b))``) and never names a position.
They are tiny numba functions that LLVM inlines.
"""

from __future__ import annotations

from model.constants import ALTER_ACCEPTED, ALTER_REFUSED, ALTER_SENT, ALTER_STUCK  # noqa: F401
from model.kernel.jit import kernel

from model.kernel.layout import (
    ALTER_ISR, ALTER_LEADER_EPOCH, ALTER_MEMBER_EPOCH_CURRENT, ALTER_PARTITION_EPOCH_CURRENT,
    ALTER_STATE, CHANGE, CHANGE_CURRENT, CHANGE_ISR, CHANGE_LEADER_EPOCH, CLEAN_SHUTDOWN, ELR,
    FETCH_REQUEST_CURRENT, LAI_CURRENT, LAST_KNOWN_ELR, LEADER_RECOVERING,
    PARTITION_EPOCH_CURRENT, REMOTE_CURRENT,
    CHECKPOINTED_HW, CONTROLLED_SHUTDOWNS, CONTROLLER_EPOCH, CONTROLLER_EPOCH_SEEN,
    CONTROLLER_FAILOVERS, DELAYED_FETCHES, FETCH_REQUEST, FETCH_REQUEST_EPOCH,
    FETCH_REQUEST_LEADER, FETCH_REQUEST_OFFSET, LAI_CONTROLLER_EPOCH, READ_OFFSET,
    SESSION_EXPIRIES, SHUTTING_DOWN, ZLAI, ZOMBIE,
    ZOMBIE_CONTROLLER_EPOCH, ZOMBIE_ISR, ZOMBIE_LEADER, ZOMBIE_LEADER_EPOCH,
    ACK_LEADER, ACK_OFFSET, ACK_STATE, ALIVE, BROKER0, BROKER_STRIDE, CONTROLLER_ISR,
    CONTROLLER_LEADER, CONTROLLER_LEADER_EPOCH, CONTROLLER_LIVE, CRASHES, FLUSHED_OFFSET,
    HIGH_WATERMARK, ISR, LAI, LAI_ISR, LAI_LEADER, LEADER, LEADER_EPOCH, LOG_END_OFFSET, LOG_EPOCH,
    LOG_RECORD, N_BROKERS, N_EPOCHS, N_RECORDS, RECORDS_WRITTEN, REMOTE_LEO, RESPONSE,
    RESPONSE_COUNT, RESPONSE_EPOCH, RESPONSE_EPOCHS, RESPONSE_FETCH_OFFSET, RESPONSE_HW,
    RESPONSE_LEADER, RESPONSE_LEO, RESPONSE_RECORD, TRUNCATING, UNFLUSHED_LOSSES, VISIBLE,
    VISIBLE_LEN,
)

NO_LEADER = -1
UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1

ACK_NONE, ACK_PENDING, ACK_DONE = 0, 1, 2


class SlotOverflow(Exception):
    """A state did not fit its fixed slots (raised by the kernel; never a silent wrong count)."""


# ------------------------------------------------------------------------------ positions

@kernel
def at(lay, b, slot):
    """The row position of broker ``b``'s field ``slot``."""
    return lay[BROKER0] + b * lay[BROKER_STRIDE] + lay[slot]


@kernel
def broker_count(lay):
    return lay[N_BROKERS]


@kernel
def record_slots(lay):
    return lay[N_RECORDS]


@kernel
def epoch_slots(lay):
    return lay[N_EPOCHS]


@kernel
def has(mask, b):
    """Is broker ``b`` in the set ``mask``?"""
    return (mask >> b) & 1 == 1


@kernel
def size_of(mask):
    """How many brokers the set ``mask`` holds."""
    count = 0
    while mask:
        count += mask & 1
        mask >>= 1
    return count


# ------------------------------------------------------------------------------ a broker

@kernel
def is_alive(s, lay, b):
    return s[at(lay, b, ALIVE)] != 0


@kernel
def set_alive(s, lay, b, value):
    s[at(lay, b, ALIVE)] = 1 if value else 0


@kernel
def leader_epoch(s, lay, b):
    """The epoch of the last LeaderAndIsr this broker applied (-1 after a restart)."""
    return s[at(lay, b, LEADER_EPOCH)]


@kernel
def set_leader_epoch(s, lay, b, epoch):
    s[at(lay, b, LEADER_EPOCH)] = epoch


@kernel
def leader_of(s, lay, b):
    """The broker ``b`` believes leads the partition (itself if it leads; -1 if none)."""
    return s[at(lay, b, LEADER)]


@kernel
def set_leader_of(s, lay, b, leader):
    s[at(lay, b, LEADER)] = leader


@kernel
def believes_it_leads(s, lay, b):
    """Alive and leader in its own view (a zombie leader too)."""
    return s[at(lay, b, ALIVE)] != 0 and s[at(lay, b, LEADER)] == b


@kernel
def high_watermark(s, lay, b):
    return s[at(lay, b, HIGH_WATERMARK)]


@kernel
def set_high_watermark(s, lay, b, hw):
    s[at(lay, b, HIGH_WATERMARK)] = hw


@kernel
def log_end_offset(s, lay, b):
    return s[at(lay, b, LOG_END_OFFSET)]


@kernel
def isr_of(s, lay, b):
    """The ISR a leader keeps (a mask; 0 on a follower)."""
    return s[at(lay, b, ISR)]


@kernel
def set_isr_of(s, lay, b, mask):
    s[at(lay, b, ISR)] = mask


@kernel
def is_truncating(s, lay, b):
    return s[at(lay, b, TRUNCATING)] != 0


@kernel
def set_truncating(s, lay, b, value):
    s[at(lay, b, TRUNCATING)] = 1 if value else 0


@kernel
def flushed_offset(s, lay, b):
    return s[at(lay, b, FLUSHED_OFFSET)]


@kernel
def set_flushed_offset(s, lay, b, offset):
    s[at(lay, b, FLUSHED_OFFSET)] = offset


@kernel
def remote_leo(s, lay, leader, follower):
    """On a leader: the follower's LEO as of its last fetch (-1 = not known)."""
    return s[at(lay, leader, REMOTE_LEO) + follower]


@kernel
def set_remote_leo(s, lay, leader, follower, leo):
    s[at(lay, leader, REMOTE_LEO) + follower] = leo


@kernel
def forget_remote_leos(s, lay, b):
    """``Replica.resetReplicaState`` for every follower: their LEOs become unknown."""
    base = at(lay, b, REMOTE_LEO)
    for f in range(lay[N_BROKERS]):
        s[base + f] = -1


# ------------------------------------------------------------------------------ a log

@kernel
def record_id_at(s, lay, b, offset):
    return s[at(lay, b, LOG_RECORD) + offset]


@kernel
def record_epoch_at(s, lay, b, offset):
    """The leader epoch the record at ``offset`` was written in."""
    return s[at(lay, b, LOG_EPOCH) + offset]


@kernel
def append_record(s, lay, b, record_id, epoch):
    """``UnifiedLog.append``: the record goes at the LEO, which moves up by one."""
    leo = s[at(lay, b, LOG_END_OFFSET)]
    if leo >= lay[N_RECORDS]:
        raise SlotOverflow("a log grew past its record slots (max-records)")
    s[at(lay, b, LOG_RECORD) + leo] = record_id
    s[at(lay, b, LOG_EPOCH) + leo] = epoch
    s[at(lay, b, LOG_END_OFFSET)] = leo + 1


@kernel
def truncate_to(s, lay, b, target_offset):
    """``UnifiedLog.truncateTo``: keep the records below ``target_offset``; the freed slots are
    zeroed so that equal logs are equal rows."""
    leo = s[at(lay, b, LOG_END_OFFSET)]
    if target_offset >= leo:
        return
    if target_offset < 0:
        target_offset = 0
    rec, ep = at(lay, b, LOG_RECORD), at(lay, b, LOG_EPOCH)
    for o in range(target_offset, leo):
        s[rec + o] = 0
        s[ep + o] = 0
    s[at(lay, b, LOG_END_OFFSET)] = target_offset


@kernel
def latest_epoch(s, lay, b, length):
    """``LeaderEpochFileCache.latestEpoch`` of the log's first ``length`` records."""
    if length == 0:
        return UNDEFINED_EPOCH
    return s[at(lay, b, LOG_EPOCH) + length - 1]


# ------------------------------------------------------------------------------ a fetch response

@kernel
def has_fetch_response(s, lay, f):
    return s[at(lay, f, RESPONSE)] != 0


@kernel
def clear_fetch_response(s, lay, f):
    """The response is consumed or dropped; its slots are zeroed."""
    s[at(lay, f, RESPONSE)] = 0
    s[at(lay, f, RESPONSE_LEADER)] = 0
    s[at(lay, f, RESPONSE_EPOCH)] = 0
    s[at(lay, f, RESPONSE_FETCH_OFFSET)] = 0
    s[at(lay, f, RESPONSE_HW)] = 0
    s[at(lay, f, RESPONSE_LEO)] = 0
    count = s[at(lay, f, RESPONSE_COUNT)]
    s[at(lay, f, RESPONSE_COUNT)] = 0
    rec, ep = at(lay, f, RESPONSE_RECORD), at(lay, f, RESPONSE_EPOCHS)
    for i in range(count):
        s[rec + i] = 0
        s[ep + i] = 0


@kernel
def send_fetch_response(s, lay, f, leader, epoch, fetch_offset, leader_hw, leader_leo, with_records):
    """The leader's answer to ``f``'s fetch: the records from ``fetch_offset`` (if
    ``with_records``), its HW and its LEO."""
    clear_fetch_response(s, lay, f)
    s[at(lay, f, RESPONSE)] = 1
    s[at(lay, f, RESPONSE_LEADER)] = leader
    s[at(lay, f, RESPONSE_EPOCH)] = epoch
    s[at(lay, f, RESPONSE_FETCH_OFFSET)] = fetch_offset
    s[at(lay, f, RESPONSE_HW)] = leader_hw
    s[at(lay, f, RESPONSE_LEO)] = leader_leo
    if with_records:
        count = leader_leo - fetch_offset
        s[at(lay, f, RESPONSE_COUNT)] = count
        rec, ep = at(lay, f, RESPONSE_RECORD), at(lay, f, RESPONSE_EPOCHS)
        for i in range(count):
            s[rec + i] = record_id_at(s, lay, leader, fetch_offset + i)
            s[ep + i] = record_epoch_at(s, lay, leader, fetch_offset + i)


@kernel
def response_leader(s, lay, f):
    return s[at(lay, f, RESPONSE_LEADER)]


@kernel
def response_epoch(s, lay, f):
    return s[at(lay, f, RESPONSE_EPOCH)]


@kernel
def response_fetch_offset(s, lay, f):
    return s[at(lay, f, RESPONSE_FETCH_OFFSET)]


@kernel
def response_hw(s, lay, f):
    return s[at(lay, f, RESPONSE_HW)]


@kernel
def response_leo(s, lay, f):
    return s[at(lay, f, RESPONSE_LEO)]


@kernel
def response_count(s, lay, f):
    return s[at(lay, f, RESPONSE_COUNT)]


@kernel
def response_record_id(s, lay, f, i):
    return s[at(lay, f, RESPONSE_RECORD) + i]


@kernel
def response_record_epoch(s, lay, f, i):
    return s[at(lay, f, RESPONSE_EPOCHS) + i]


# ------------------------------------------------------------------------------ LeaderAndIsr

@kernel
def leader_and_isr_pending(s, lay, b, epoch):
    """Is a LeaderAndIsr request for ``epoch`` on its way to broker ``b``?"""
    return s[at(lay, b, LAI) + epoch] != 0


@kernel
def leader_and_isr_leader(s, lay, b, epoch):
    return s[at(lay, b, LAI_LEADER) + epoch]


@kernel
def leader_and_isr_isr(s, lay, b, epoch):
    return s[at(lay, b, LAI_ISR) + epoch]


@kernel
def put_leader_and_isr(s, lay, b, epoch, leader, isr):
    """Queue LeaderAndIsr(epoch, leader, isr) to ``b``. One request per (broker, epoch) fits. A
    second one for the same epoch can only differ in the ISR (the leader changed it in between)
    and goes to a follower, which ignores the ISR: the newer replaces the older. Two leaders in
    one epoch would be a state this layout cannot hold."""
    if epoch < 0 or epoch >= lay[N_EPOCHS]:
        raise SlotOverflow("a LeaderAndIsr request carries an epoch beyond the epoch slots")
    if s[at(lay, b, LAI) + epoch] != 0:
        if s[at(lay, b, LAI_LEADER) + epoch] != leader:
            raise SlotOverflow("two LeaderAndIsr requests with different leaders for one epoch")
        if leader == b and s[at(lay, b, LAI_ISR) + epoch] != isr:
            raise SlotOverflow("two LeaderAndIsr requests making a broker leader with different ISRs")
    s[at(lay, b, LAI) + epoch] = 1
    s[at(lay, b, LAI_LEADER) + epoch] = leader
    s[at(lay, b, LAI_ISR) + epoch] = isr


@kernel
def drop_leader_and_isr(s, lay, b, epoch):
    s[at(lay, b, LAI) + epoch] = 0
    s[at(lay, b, LAI_LEADER) + epoch] = 0
    s[at(lay, b, LAI_ISR) + epoch] = 0


@kernel
def drop_all_leader_and_isr(s, lay, b):
    for e in range(lay[N_EPOCHS]):
        drop_leader_and_isr(s, lay, b, e)


# ------------------------------------------------------------------------------ the controller

@kernel
def controller_leader(s, lay):
    return s[lay[CONTROLLER_LEADER]]


@kernel
def controller_leader_epoch(s, lay):
    return s[lay[CONTROLLER_LEADER_EPOCH]]


@kernel
def controller_isr(s, lay):
    return s[lay[CONTROLLER_ISR]]


@kernel
def controller_live(s, lay):
    """The brokers the controller believes alive."""
    return s[lay[CONTROLLER_LIVE]]


@kernel
def set_controller(s, lay, leader, epoch, isr, live):
    s[lay[CONTROLLER_LEADER]] = leader
    s[lay[CONTROLLER_LEADER_EPOCH]] = epoch
    s[lay[CONTROLLER_ISR]] = isr
    s[lay[CONTROLLER_LIVE]] = live


@kernel
def set_controller_isr(s, lay, isr):
    s[lay[CONTROLLER_ISR]] = isr


@kernel
def set_controller_live(s, lay, live):
    s[lay[CONTROLLER_LIVE]] = live


@kernel
def true_leader(s, lay):
    """The controller's leader if it is alive and has taken up the controller's epoch, else
    -1: the broker clients find, whose log is the partition's."""
    c = s[lay[CONTROLLER_LEADER]]
    if c < 0:
        return NO_LEADER
    if is_alive(s, lay, c) and leader_of(s, lay, c) == c and leader_epoch(s, lay, c) == s[lay[CONTROLLER_LEADER_EPOCH]]:
        return c
    return NO_LEADER


# ------------------------------------------------------------------------------ producer and counters

@kernel
def records_written(s, lay):
    return s[lay[RECORDS_WRITTEN]]


@kernel
def set_records_written(s, lay, n):
    s[lay[RECORDS_WRITTEN]] = n


@kernel
def crashes(s, lay):
    return s[lay[CRASHES]]


@kernel
def set_crashes(s, lay, n):
    s[lay[CRASHES]] = n


@kernel
def unflushed_losses(s, lay):
    return s[lay[UNFLUSHED_LOSSES]]


@kernel
def set_unflushed_losses(s, lay, n):
    s[lay[UNFLUSHED_LOSSES]] = n


@kernel
def ack_state(s, lay, record_id):
    """ACK_NONE, ACK_PENDING (parked in a leader's purgatory) or ACK_DONE."""
    return s[lay[ACK_STATE] + record_id - 1]


@kernel
def ack_leader(s, lay, record_id):
    return s[lay[ACK_LEADER] + record_id - 1]


@kernel
def ack_offset(s, lay, record_id):
    return s[lay[ACK_OFFSET] + record_id - 1]


@kernel
def set_ack(s, lay, record_id, state, leader, offset):
    s[lay[ACK_STATE] + record_id - 1] = state
    s[lay[ACK_LEADER] + record_id - 1] = leader
    s[lay[ACK_OFFSET] + record_id - 1] = offset


@kernel
def visible_count(s, lay):
    """How many records consumers could have read (the longest prefix ever below a true
    leader's HW)."""
    return s[lay[VISIBLE_LEN]]


@kernel
def visible_record(s, lay, i):
    return s[lay[VISIBLE] + i]


@kernel
def set_visible(s, lay, i, record_id):
    s[lay[VISIBLE] + i] = record_id


@kernel
def set_visible_count(s, lay, n):
    s[lay[VISIBLE_LEN]] = n


# ------------------------------------------------------------------------------ optional fields
# Each group below exists only in layouts with its feature (``layout.FEATURES``); an action
# touches them only under the switch that turns the feature on (``model/kernel/params.py``).

# -- the HW checkpoint file (--hw-checkpoint interval)

@kernel
def checkpointed_hw(s, lay, b):
    """The HW in broker ``b``'s ``replication-offset-checkpoint`` file: what a restart reads."""
    return s[at(lay, b, CHECKPOINTED_HW)]


@kernel
def set_checkpointed_hw(s, lay, b, hw):
    s[at(lay, b, CHECKPOINTED_HW)] = hw


# -- controlled shutdown

@kernel
def controlled_shutdowns(s, lay):
    return s[lay[CONTROLLED_SHUTDOWNS]]


@kernel
def set_controlled_shutdowns(s, lay, n):
    s[lay[CONTROLLED_SHUTDOWNS]] = n


@kernel
def is_shutting_down(s, lay, b):
    """The controller has handled ``b``'s ControlledShutdown request; ``b`` stops next."""
    return s[at(lay, b, SHUTTING_DOWN)] != 0


@kernel
def set_shutting_down(s, lay, b, value):
    s[at(lay, b, SHUTTING_DOWN)] = 1 if value else 0


# -- session expiry of a running broker

@kernel
def session_expiries(s, lay):
    return s[lay[SESSION_EXPIRIES]]


@kernel
def set_session_expiries(s, lay, n):
    s[lay[SESSION_EXPIRIES]] = n


# -- controller failover (ZooKeeper): controller epochs and the zombie controller

@kernel
def controller_failovers(s, lay):
    return s[lay[CONTROLLER_FAILOVERS]]


@kernel
def set_controller_failovers(s, lay, n):
    s[lay[CONTROLLER_FAILOVERS]] = n


@kernel
def controller_epoch(s, lay):
    """The active controller's epoch (ZooKeeper's ``/controller_epoch``)."""
    return s[lay[CONTROLLER_EPOCH]]


@kernel
def set_controller_epoch(s, lay, epoch):
    s[lay[CONTROLLER_EPOCH]] = epoch


@kernel
def controller_epoch_seen(s, lay, b):
    """The newest controller epoch broker ``b`` has obeyed (``ReplicaManager.controllerEpoch``)."""
    return s[at(lay, b, CONTROLLER_EPOCH_SEEN)]


@kernel
def set_controller_epoch_seen(s, lay, b, epoch):
    s[at(lay, b, CONTROLLER_EPOCH_SEEN)] = epoch


@kernel
def leader_and_isr_controller_epoch(s, lay, b, epoch):
    """The controller epoch of the LeaderAndIsr for ``epoch`` on its way to ``b``."""
    return s[at(lay, b, LAI_CONTROLLER_EPOCH) + epoch]


@kernel
def set_leader_and_isr_controller_epoch(s, lay, b, epoch, controller_epoch):
    s[at(lay, b, LAI_CONTROLLER_EPOCH) + epoch] = controller_epoch


@kernel
def has_zombie_controller(s, lay):
    return s[lay[ZOMBIE]] != 0


@kernel
def zombie_controller_epoch(s, lay):
    return s[lay[ZOMBIE_CONTROLLER_EPOCH]]


@kernel
def zombie_leader(s, lay):
    return s[lay[ZOMBIE_LEADER]]


@kernel
def zombie_leader_epoch(s, lay):
    return s[lay[ZOMBIE_LEADER_EPOCH]]


@kernel
def zombie_isr(s, lay):
    return s[lay[ZOMBIE_ISR]]


@kernel
def set_zombie_controller(s, lay, present, controller_epoch, leader, leader_epoch, isr):
    """The deposed controller that has not noticed yet, and its (frozen) view of the partition."""
    s[lay[ZOMBIE]] = 1 if present else 0
    s[lay[ZOMBIE_CONTROLLER_EPOCH]] = controller_epoch
    s[lay[ZOMBIE_LEADER]] = leader
    s[lay[ZOMBIE_LEADER_EPOCH]] = leader_epoch
    s[lay[ZOMBIE_ISR]] = isr


@kernel
def zombie_request_pending(s, lay, b):
    """Is the zombie controller's LeaderAndIsr (its view) on its way to ``b``?"""
    return s[at(lay, b, ZLAI)] != 0


@kernel
def set_zombie_request(s, lay, b, value):
    s[at(lay, b, ZLAI)] = 1 if value else 0


# -- delayed fetch requests

@kernel
def delayed_fetches(s, lay):
    return s[lay[DELAYED_FETCHES]]


@kernel
def set_delayed_fetches(s, lay, n):
    s[lay[DELAYED_FETCHES]] = n


@kernel
def has_delayed_fetch(s, lay, f):
    """Is a fetch from ``f`` still on its way to (or parked at) a leader?"""
    return s[at(lay, f, FETCH_REQUEST)] != 0


@kernel
def delayed_fetch_leader(s, lay, f):
    return s[at(lay, f, FETCH_REQUEST_LEADER)]


@kernel
def delayed_fetch_epoch(s, lay, f):
    return s[at(lay, f, FETCH_REQUEST_EPOCH)]


@kernel
def delayed_fetch_offset(s, lay, f):
    return s[at(lay, f, FETCH_REQUEST_OFFSET)]


@kernel
def delayed_fetch_is_current(s, lay, f):
    """Was the delayed fetch sent by ``f``'s current incarnation (no restart since)?"""
    return s[at(lay, f, FETCH_REQUEST_CURRENT)] != 0


@kernel
def put_delayed_fetch(s, lay, f, leader, epoch, offset):
    s[at(lay, f, FETCH_REQUEST)] = 1
    s[at(lay, f, FETCH_REQUEST_LEADER)] = leader
    s[at(lay, f, FETCH_REQUEST_EPOCH)] = epoch
    s[at(lay, f, FETCH_REQUEST_OFFSET)] = offset
    s[at(lay, f, FETCH_REQUEST_CURRENT)] = 1


@kernel
def mark_delayed_fetch_stale(s, lay, f):
    s[at(lay, f, FETCH_REQUEST_CURRENT)] = 0


@kernel
def clear_delayed_fetch(s, lay, f):
    s[at(lay, f, FETCH_REQUEST)] = 0
    s[at(lay, f, FETCH_REQUEST_LEADER)] = 0
    s[at(lay, f, FETCH_REQUEST_EPOCH)] = 0
    s[at(lay, f, FETCH_REQUEST_OFFSET)] = 0
    s[at(lay, f, FETCH_REQUEST_CURRENT)] = 0


# -- consumer reads (the no-read-loss property's history)

@kernel
def read_offset(s, lay, record_id):
    """The offset a consumer read ``record_id`` at (-1 if no consumer could have read it; the
    row holds offset + 1, so that an unused slot is 0)."""
    return s[lay[READ_OFFSET] + record_id - 1] - 1


@kernel
def set_read_offset(s, lay, record_id, offset):
    s[lay[READ_OFFSET] + record_id - 1] = offset + 1


# -- AlterPartition (KIP-497): the leader's pending ISR change

# ALTER_SENT: the request is on its way to the controller; ALTER_ACCEPTED: the controller
# committed it, its answer (the new ISR) is on its way back; ALTER_REFUSED: INELIGIBLE_REPLICA,
# the answer tells the leader to go back to its ISR; ALTER_STUCK: an error without retry, the
# leader waits for new metadata (model/constants.py)
ALTER_NONE = 0  # no ISR change pending: the leader may propose one


@kernel
def alter_state(s, lay, b):
    return s[at(lay, b, ALTER_STATE)]


@kernel
def alter_in_flight(s, lay, b):
    """Is an ISR change of ``b``'s pending (``Partition.partitionState.isInflight``)?"""
    return s[at(lay, b, ALTER_STATE)] != ALTER_NONE


@kernel
def alter_isr(s, lay, b):
    return s[at(lay, b, ALTER_ISR)]


@kernel
def alter_leader_epoch(s, lay, b):
    return s[at(lay, b, ALTER_LEADER_EPOCH)]


@kernel
def alter_partition_epoch_current(s, lay, b):
    return s[at(lay, b, ALTER_PARTITION_EPOCH_CURRENT)] != 0


@kernel
def set_alter(s, lay, b, state, isr, leader_epoch, pe_current):
    s[at(lay, b, ALTER_STATE)] = state
    s[at(lay, b, ALTER_ISR)] = isr
    s[at(lay, b, ALTER_LEADER_EPOCH)] = leader_epoch
    s[at(lay, b, ALTER_PARTITION_EPOCH_CURRENT)] = 1 if pe_current else 0


@kernel
def clear_alter(s, lay, b):
    set_alter(s, lay, b, ALTER_NONE, 0, 0, False)


@kernel
def alter_member_epoch_current(s, lay, b):
    return s[at(lay, b, ALTER_MEMBER_EPOCH_CURRENT)] != 0


@kernel
def set_alter_member_epoch_current(s, lay, b, value):
    s[at(lay, b, ALTER_MEMBER_EPOCH_CURRENT)] = 1 if value else 0


@kernel
def partition_epoch_current(s, lay, b):
    """Is ``b``'s partition epoch the controller's (AlterPartition's INVALID_UPDATE_VERSION)?"""
    return s[at(lay, b, PARTITION_EPOCH_CURRENT)] != 0


@kernel
def set_partition_epoch_current(s, lay, b, value):
    s[at(lay, b, PARTITION_EPOCH_CURRENT)] = 1 if value else 0


@kernel
def leader_and_isr_current(s, lay, b, epoch):
    return s[at(lay, b, LAI_CURRENT) + epoch] != 0


@kernel
def set_leader_and_isr_current(s, lay, b, epoch, value):
    s[at(lay, b, LAI_CURRENT) + epoch] = 1 if value else 0


# -- KRaft: partition changes in the metadata log that keep the leader epoch

@kernel
def change_pending(s, lay, b):
    return s[at(lay, b, CHANGE)] != 0


@kernel
def change_isr(s, lay, b):
    return s[at(lay, b, CHANGE_ISR)]


@kernel
def change_leader_epoch(s, lay, b):
    return s[at(lay, b, CHANGE_LEADER_EPOCH)]


@kernel
def change_current(s, lay, b):
    return s[at(lay, b, CHANGE_CURRENT)] != 0


@kernel
def put_change(s, lay, b, leader_epoch, isr):
    """A PartitionChangeRecord (ISR only) for ``b`` to apply; a newer one replaces an older one
    (a broker that lags applies them in one delta and sees only the last)."""
    s[at(lay, b, CHANGE)] = 1
    s[at(lay, b, CHANGE_ISR)] = isr
    s[at(lay, b, CHANGE_LEADER_EPOCH)] = leader_epoch
    s[at(lay, b, CHANGE_CURRENT)] = 1


@kernel
def set_change_current(s, lay, b, value):
    s[at(lay, b, CHANGE_CURRENT)] = 1 if value else 0


@kernel
def clear_change(s, lay, b):
    s[at(lay, b, CHANGE)] = 0
    s[at(lay, b, CHANGE_ISR)] = 0
    s[at(lay, b, CHANGE_LEADER_EPOCH)] = 0
    s[at(lay, b, CHANGE_CURRENT)] = 0


@kernel
def leader_recovering(s, lay):
    """KIP-704: the partition's leader was elected uncleanly and has not confirmed recovery."""
    return s[lay[LEADER_RECOVERING]] != 0


@kernel
def set_leader_recovering(s, lay, value):
    s[lay[LEADER_RECOVERING]] = 1 if value else 0


# -- KIP-903: broker epochs (incarnations)

@kernel
def remote_is_current(s, lay, leader, follower):
    """Did ``follower``'s last fetch to ``leader`` come from its current incarnation?"""
    return s[at(lay, leader, REMOTE_CURRENT) + follower] != 0


@kernel
def set_remote_current(s, lay, leader, follower, value):
    s[at(lay, leader, REMOTE_CURRENT) + follower] = 1 if value else 0


# -- KIP-966: eligible leader replicas

@kernel
def elr(s, lay):
    return s[lay[ELR]]


@kernel
def last_known_elr(s, lay):
    return s[lay[LAST_KNOWN_ELR]]


@kernel
def set_elr(s, lay, elr_mask, last_known):
    s[lay[ELR]] = elr_mask
    s[lay[LAST_KNOWN_ELR]] = last_known


@kernel
def shut_down_cleanly(s, lay, b):
    """Did ``b`` last stop with a controlled shutdown (its clean-shutdown file)?"""
    return s[at(lay, b, CLEAN_SHUTDOWN)] != 0


@kernel
def set_shut_down_cleanly(s, lay, b, value):
    s[at(lay, b, CLEAN_SHUTDOWN)] = 1 if value else 0
