"""Accessors with Kafka's names over a state row: the kernel's vocabulary.

``s`` is a state row (``int8``), ``lay`` the layout array, ``b`` a broker id. Every action reads
and writes state only through these, so an action reads like the protocol
(``set_high_watermark(t, lay, b, log_end_offset(t, lay, b))``) and never names a position.

The one-slot accessors (``high_watermark``, ``set_high_watermark``, ``remote_leo``,
``leader_and_isr_pending``, ...) are generated from the state schema into
``model/kernel/slots.py`` and re-exported here; this module adds those that carry meaning:
appending and truncating a log, sending and clearing a message, the controller's record as
one write, sets of brokers. They are tiny numba functions that LLVM inlines.
"""

from __future__ import annotations

from model.constants import ALTER_ACCEPTED, ALTER_REFUSED, ALTER_SENT, ALTER_STUCK  # noqa: F401
from model.kernel.jit import kernel
from model.kernel.slots import *  # noqa: F401,F403  (the generated one-slot accessors and slots)
from model.kernel.slots import (
    ALTER_ISR, ALTER_LEADER_EPOCH, ALTER_MEMBER_EPOCH_CURRENT, ALTER_PARTITION_EPOCH_CURRENT,
    ALTER_STATE, CHANGE, CHANGE_CURRENT, CHANGE_ISR, CHANGE_LEADER_EPOCH, CONTROLLER_ISR,
    CONTROLLER_LEADER, CONTROLLER_LEADER_EPOCH, CONTROLLER_LIVE, ELR, FETCH_REQUEST,
    FETCH_REQUEST_CURRENT, FETCH_REQUEST_EPOCH, FETCH_REQUEST_LEADER, FETCH_REQUEST_OFFSET,
    FEATURE_BITS, LAI, LAI_ISR, LAI_LEADER, LAST_KNOWN_ELR, LOG_END_OFFSET, LOG_EPOCH,
    LOG_PRODUCER_EPOCH, LOG_RECORD, N_BROKERS, RESPONSE_PRODUCER_EPOCH,
    N_EPOCHS, N_RECORDS, READ_OFFSET, REMOTE_LEO, RESPONSE, RESPONSE_COUNT, RESPONSE_EPOCH,
    RESPONSE_EPOCHS, RESPONSE_FETCH_OFFSET, RESPONSE_HW, RESPONSE_LEADER, RESPONSE_LEO,
    RESPONSE_RECORD, ZOMBIE, ZOMBIE_CONTROLLER_EPOCH, ZOMBIE_ISR, ZOMBIE_LEADER,
    ZOMBIE_LEADER_EPOCH, ACK_LEADER, ACK_OFFSET, ACK_STATE, at, is_alive, leader_epoch,
    leader_of, record_epoch_at, record_id_at,
)
from model.schema import ACK_DONE, ACK_NONE, ACK_PENDING, FEATURES  # noqa: F401

NO_LEADER = -1
UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


PRODUCER_EPOCH_BIT = 1 << FEATURES.index("producer_epoch")
"""The layout's feature bit of the producer epoch: a log keeps each batch's producer epoch only
with it (``model/schema.py``), so the log writers below write that slot only then."""

BROKER_EPOCHS_BIT = 1 << FEATURES.index("broker_epochs")
"""The layout's feature bit of KIP-903's broker epochs (rule ``broker-epoch-in-fetch``, 3.5): the
AlterPartition's member-epoch bit has a slot only with it."""


class SlotOverflow(Exception):
    """A state did not fit its fixed slots (raised by the kernel; never a silent wrong count)."""


# ------------------------------------------------------------------------------ sizes and sets

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
def believes_it_leads(s, lay, b):
    """Alive and leader in its own view (a zombie leader too)."""
    return is_alive(s, lay, b) and leader_of(s, lay, b) == b


@kernel
def forget_remote_leos(s, lay, b):
    """``Replica.resetReplicaState`` (3.3.0+; inline in ``Partition.makeLeader`` before) for
    every follower: their LEOs become unknown."""
    base = at(lay, b, REMOTE_LEO)
    for f in range(lay[N_BROKERS]):
        s[base + f] = -1


# ------------------------------------------------------------------------------ a log

@kernel
def keeps_producer_epochs(lay):
    """Does this layout keep each batch's producer epoch (``--max-producer-epoch-bumps``)?"""
    return lay[FEATURE_BITS] & PRODUCER_EPOCH_BIT != 0


@kernel
def append_record(s, lay, b, record_id, epoch, producer_epoch):
    """``UnifiedLog.append``: the record goes at the LEO, which moves up by one. The batch
    carries the leader epoch it was written in and, when the layout keeps it, the producer epoch
    it was sent with (the batch header's ``producerEpoch``, from which Kafka rebuilds the
    producer state: ``ProducerStateManager``)."""
    leo = s[at(lay, b, LOG_END_OFFSET)]
    if leo >= lay[N_RECORDS]:
        raise SlotOverflow("a log grew past its record slots (max-records)")
    s[at(lay, b, LOG_RECORD) + leo] = record_id
    s[at(lay, b, LOG_EPOCH) + leo] = epoch
    if keeps_producer_epochs(lay):
        s[at(lay, b, LOG_PRODUCER_EPOCH) + leo] = producer_epoch
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
    if keeps_producer_epochs(lay):
        pe = at(lay, b, LOG_PRODUCER_EPOCH)
        for o in range(target_offset, leo):
            s[pe + o] = 0
    s[at(lay, b, LOG_END_OFFSET)] = target_offset


@kernel
def latest_epoch(s, lay, b, length):
    """``LeaderEpochFileCache.latestEpoch`` of the log's first ``length`` records."""
    if length == 0:
        return UNDEFINED_EPOCH
    return s[at(lay, b, LOG_EPOCH) + length - 1]


# ------------------------------------------------------------------------------ a fetch response

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
    if keeps_producer_epochs(lay):
        pe = at(lay, f, RESPONSE_PRODUCER_EPOCH)
        for i in range(count):
            s[pe + i] = 0


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
        if keeps_producer_epochs(lay):
            pe, lpe = at(lay, f, RESPONSE_PRODUCER_EPOCH), at(lay, leader, LOG_PRODUCER_EPOCH)
            for i in range(count):
                s[pe + i] = s[lpe + fetch_offset + i]


# ------------------------------------------------------------------------------ LeaderAndIsr

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
def set_controller(s, lay, leader, epoch, isr, live):
    """The controller's record of the partition, written as one (a znode, a partition record)."""
    s[lay[CONTROLLER_LEADER]] = leader
    s[lay[CONTROLLER_LEADER_EPOCH]] = epoch
    s[lay[CONTROLLER_ISR]] = isr
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


# ------------------------------------------------------------------------------ acknowledgements

@kernel
def set_ack(s, lay, record_id, state, leader, offset):
    """The producer's view of ``record_id``: ACK_NONE, ACK_PENDING (parked in ``leader``'s
    purgatory at ``offset``) or ACK_DONE (acknowledged at ``offset``); -1 for none."""
    s[lay[ACK_STATE] + record_id - 1] = state
    s[lay[ACK_LEADER] + record_id - 1] = leader
    s[lay[ACK_OFFSET] + record_id - 1] = offset


# ------------------------------------------------------------------------------ optional fields
# Each group below exists only in layouts with its feature (``model/schema.py``); an action
# touches them only under the switch that turns the feature on (``model/rules.py``).

# -- controller failover (ZooKeeper): the zombie controller

@kernel
def set_zombie_controller(s, lay, present, controller_epoch, leader, leader_epoch, isr):
    """The deposed controller that has not noticed yet, and its (frozen) view of the partition."""
    s[lay[ZOMBIE]] = 1 if present else 0
    s[lay[ZOMBIE_CONTROLLER_EPOCH]] = controller_epoch
    s[lay[ZOMBIE_LEADER]] = leader
    s[lay[ZOMBIE_LEADER_EPOCH]] = leader_epoch
    s[lay[ZOMBIE_ISR]] = isr


# -- delayed fetch requests

@kernel
def put_delayed_fetch(s, lay, f, leader, epoch, offset):
    s[at(lay, f, FETCH_REQUEST)] = 1
    s[at(lay, f, FETCH_REQUEST_LEADER)] = leader
    s[at(lay, f, FETCH_REQUEST_EPOCH)] = epoch
    s[at(lay, f, FETCH_REQUEST_OFFSET)] = offset
    s[at(lay, f, FETCH_REQUEST_CURRENT)] = 1


@kernel
def mark_delayed_fetch_stale(s, lay, f):
    """Its sender has restarted since it sent it (a new broker epoch)."""
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
def alter_in_flight(s, lay, b):
    """Is an ISR change of ``b``'s pending (``Partition.partitionState.isInflight``)?"""
    return s[at(lay, b, ALTER_STATE)] != ALTER_NONE


@kernel
def set_alter(s, lay, b, state, isr, leader_epoch, pe_current):
    s[at(lay, b, ALTER_STATE)] = state
    s[at(lay, b, ALTER_ISR)] = isr
    s[at(lay, b, ALTER_LEADER_EPOCH)] = leader_epoch
    s[at(lay, b, ALTER_PARTITION_EPOCH_CURRENT)] = 1 if pe_current else 0


@kernel
def clear_alter(s, lay, b):
    """No ISR change pending: every part of the request is cleared, KIP-903's member-epoch bit
    too (no request, nothing to say about it; left behind it made equal states differ, issue
    29ad)."""
    set_alter(s, lay, b, ALTER_NONE, 0, 0, False)
    if lay[FEATURE_BITS] & BROKER_EPOCHS_BIT != 0:
        s[at(lay, b, ALTER_MEMBER_EPOCH_CURRENT)] = 0


# -- KRaft: partition changes in the metadata log that keep the leader epoch

@kernel
def put_change(s, lay, b, leader_epoch, isr):
    """A PartitionChangeRecord (ISR only) for ``b`` to apply; a newer one replaces an older one
    (a broker that lags applies them in one delta and sees only the last)."""
    s[at(lay, b, CHANGE)] = 1
    s[at(lay, b, CHANGE_ISR)] = isr
    s[at(lay, b, CHANGE_LEADER_EPOCH)] = leader_epoch
    s[at(lay, b, CHANGE_CURRENT)] = 1


@kernel
def clear_change(s, lay, b):
    s[at(lay, b, CHANGE)] = 0
    s[at(lay, b, CHANGE_ISR)] = 0
    s[at(lay, b, CHANGE_LEADER_EPOCH)] = 0
    s[at(lay, b, CHANGE_CURRENT)] = 0


# -- KIP-966: eligible leader replicas

@kernel
def set_elr(s, lay, elr_mask, last_known):
    s[lay[ELR]] = elr_mask
    s[lay[LAST_KNOWN_ELR]] = last_known
