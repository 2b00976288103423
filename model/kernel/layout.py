"""Where each field of a cluster state lives in its fixed-width row.

A state is one row of ``int8`` values (every value kmc stores is a small integer: broker ids,
offsets, epochs, record ids, bit masks of brokers, counters). The row's width follows from the
configuration's bounds (replication factor, records, leader epochs), so one compiled kernel
serves every configuration: the kernel never knows field positions, it reads them from the
*layout array* ``lay``, where ``lay[HIGH_WATERMARK]`` is the position of the high watermark
within a broker's block, ``lay[CONTROLLER_LEADER]`` the position of the controller's leader in
the row, and so on. The names below are those slots; ``model/kernel/fields.py`` wraps them in
accessors named after Kafka (``high_watermark(s, lay, b)``), and actions use only those.

A row is the partition's global fields followed by one block per broker (``lay[BROKER0] +
b * lay[BROKER_STRIDE]``). Every field has a *kind* saying what a renaming of brokers does to
it (``model/kernel/symmetry.py`` is generic over these tables, so a new field needs no new
symmetry code):

=============  ===============================================================================
``PLAIN``      not about brokers (an offset, an epoch, a flag): copied as is
``BROKER``     a broker id, or -1 for none: renamed
``MASK``       a set of brokers as a bit mask (bit b = broker b): its bits renamed
``PER_BROKER`` an array indexed by broker id (a leader's remote LEOs): its entries moved
=============  ===============================================================================

Requests addressed to a broker (LeaderAndIsr) live in the target's block, so a renaming moves
them with their broker. Unused slots (a log's tail past its LEO, an absent response) are always
zero: equal states must be equal rows, or they would get different fingerprints.

Later protocol generations add fields by appending to the tables below (with a width of 0 when
a configuration does not use them); nothing else in the layout machinery changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import numpy as np

PLAIN, BROKER, MASK, PER_BROKER = 0, 1, 2, 3
KIND_NAMES = {PLAIN: "plain", BROKER: "broker", MASK: "mask", PER_BROKER: "per-broker"}

_slot_names: list[str] = []


def _slot(name: str) -> int:
    _slot_names.append(name)
    return len(_slot_names) - 1


# -- sizes and the field tables
WIDTH = _slot("width")  # bytes per row (a multiple of 8)
N_BROKERS = _slot("n_brokers")
N_RECORDS = _slot("n_records")  # record slots: records the producer may send (ids 1..n)
N_EPOCHS = _slot("n_epochs")  # leader epochs 0..n-1 a request can carry
BROKER0 = _slot("broker0")  # where broker 0's block starts
BROKER_STRIDE = _slot("broker_stride")  # the width of one broker's block
GLOBAL_TABLE = _slot("global_table")  # where the global field table starts in lay
GLOBAL_COUNT = _slot("global_count")
BLOCK_TABLE = _slot("block_table")  # where the broker-block field table starts in lay
BLOCK_COUNT = _slot("block_count")
FEATURE_BITS = _slot("feature_bits")  # bit i: FEATURES[i] is in this layout

# -- the partition: producer, bounds' counters, controller, acknowledgements, consumers
RECORDS_WRITTEN = _slot("records_written")
CRASHES = _slot("crashes")
UNFLUSHED_LOSSES = _slot("unflushed_losses")
CONTROLLER_LEADER = _slot("controller_leader")
CONTROLLER_LEADER_EPOCH = _slot("controller_leader_epoch")
CONTROLLER_ISR = _slot("controller_isr")
CONTROLLER_LIVE = _slot("controller_live")  # the brokers the controller believes alive
ACK_STATE = _slot("ack_state")  # per record: 0 none, 1 parked in a leader's purgatory, 2 acked
ACK_LEADER = _slot("ack_leader")  # per record: the leader whose purgatory holds it (-1 if none)
ACK_OFFSET = _slot("ack_offset")  # per record: its offset when parked or acked (-1 if neither)
VISIBLE_LEN = _slot("visible_len")  # consumer-visible history: length of the prefix ...
VISIBLE = _slot("visible")  # ... and its record ids

# -- one broker's block: its replica and its view of the partition
ALIVE = _slot("alive")
LEADER_EPOCH = _slot("leader_epoch")
LEADER = _slot("leader")  # who this broker believes leads (-1: none)
HIGH_WATERMARK = _slot("high_watermark")
LOG_END_OFFSET = _slot("log_end_offset")
ISR = _slot("isr")  # a leader's ISR (0 on a follower)
TRUNCATING = _slot("truncating")
FLUSHED_OFFSET = _slot("flushed_offset")
REMOTE_LEO = _slot("remote_leo")  # on a leader, per follower: its LEO at its last fetch (-1)
LOG_RECORD = _slot("log_record")  # per offset: the record id
LOG_EPOCH = _slot("log_epoch")  # per offset: the leader epoch it was written in
RESPONSE = _slot("response")  # a fetch response on its way to this follower: 1 if any
RESPONSE_LEADER = _slot("response_leader")
RESPONSE_EPOCH = _slot("response_epoch")  # the follower's epoch when it fetched
RESPONSE_FETCH_OFFSET = _slot("response_fetch_offset")
RESPONSE_HW = _slot("response_hw")
RESPONSE_LEO = _slot("response_leo")
RESPONSE_COUNT = _slot("response_count")  # records carried
RESPONSE_RECORD = _slot("response_record")
RESPONSE_EPOCHS = _slot("response_epochs")
LAI = _slot("lai")  # per leader epoch: 1 if a LeaderAndIsr for that epoch is on its way here
LAI_LEADER = _slot("lai_leader")
LAI_ISR = _slot("lai_isr")

# -- optional fields: present only when the configuration uses the feature (``FEATURES``)
CONTROLLED_SHUTDOWNS = _slot("controlled_shutdowns")  # counter (a bound)
SESSION_EXPIRIES = _slot("session_expiries")  # counter (a bound)
CONTROLLER_FAILOVERS = _slot("controller_failovers")  # counter (a bound)
DELAYED_FETCHES = _slot("delayed_fetches")  # counter (a bound)
CONTROLLER_EPOCH = _slot("controller_epoch")  # the active controller's epoch (ZooKeeper)
ZOMBIE = _slot("zombie")  # 1 while a deposed controller still believes it is the controller
ZOMBIE_CONTROLLER_EPOCH = _slot("zombie_controller_epoch")
ZOMBIE_LEADER = _slot("zombie_leader")  # the zombie's (stale) view of the partition ...
ZOMBIE_LEADER_EPOCH = _slot("zombie_leader_epoch")
ZOMBIE_ISR = _slot("zombie_isr")
READ_OFFSET = _slot("read_offset")  # per record: the offset a consumer read it at (-1: never)
CHECKPOINTED_HW = _slot("checkpointed_hw")  # the HW in the broker's checkpoint file
SHUTTING_DOWN = _slot("shutting_down")  # the controller has handled its controlled shutdown
CONTROLLER_EPOCH_SEEN = _slot("controller_epoch_seen")  # the newest controller epoch it obeyed
LAI_CONTROLLER_EPOCH = _slot("lai_controller_epoch")  # per leader epoch: the sender's epoch
ZLAI = _slot("zlai")  # 1: the zombie controller's LeaderAndIsr (its view) is on its way here
FETCH_REQUEST = _slot("fetch_request")  # a delayed fetch from this broker, on its way: 1 if any
FETCH_REQUEST_LEADER = _slot("fetch_request_leader")  # the broker it was sent to
FETCH_REQUEST_EPOCH = _slot("fetch_request_epoch")  # the sender's leader epoch when it sent it
FETCH_REQUEST_OFFSET = _slot("fetch_request_offset")  # its fetch offset (the sender's LEO then)
FETCH_REQUEST_CURRENT = _slot("fetch_request_current")  # 1 while its sender has not restarted since
# AlterPartition (KIP-497): the leader's ISR change on its way, and the controller's answer
ALTER_STATE = _slot("alter_state")  # ALTER_NONE / SENT / ACCEPTED / REFUSED / STUCK
ALTER_ISR = _slot("alter_isr")  # the proposed ISR (SENT, STUCK), or the committed one (ACCEPTED)
ALTER_LEADER_EPOCH = _slot("alter_leader_epoch")  # the leader epoch it was sent in / answered
ALTER_PARTITION_EPOCH_CURRENT = _slot("alter_pe_current")  # its partition epoch is the current one
ALTER_MEMBER_EPOCH_CURRENT = _slot("alter_member_current")  # KIP-903: the added member's epoch
PARTITION_EPOCH_CURRENT = _slot("pe_current")  # this broker's partition epoch is the controller's
# KRaft: ISR-only partition changes on their way in the metadata log
CHANGE = _slot("change")  # 1: a PartitionChangeRecord with the same leader epoch to apply
CHANGE_ISR = _slot("change_isr")
CHANGE_LEADER_EPOCH = _slot("change_leader_epoch")
CHANGE_CURRENT = _slot("change_current")  # it is the latest record
LAI_CURRENT = _slot("lai_current")  # per leader epoch: that request holds the latest record
REMOTE_CURRENT = _slot("remote_current")  # on a leader, per follower: its last fetch came from
#                                           the follower's current incarnation (KIP-903)
CLEAN_SHUTDOWN = _slot("clean_shutdown")  # its last stop was a controlled shutdown (KIP-966)
LEADER_RECOVERING = _slot("leader_recovering")  # KIP-704: RECOVERING after an unclean election
ELR = _slot("elr")  # KIP-966: eligible leader replicas
LAST_KNOWN_ELR = _slot("last_known_elr")

SLOT_COUNT = len(_slot_names)
SLOT_NAMES = tuple(_slot_names)

FEATURES = (
    "hw_checkpoint",  # --hw-checkpoint interval
    "controlled_shutdown",  # --max-controlled-shutdowns > 0
    "session_expiry",  # --max-session-expiries > 0
    "controller_failover",  # --max-controller-failovers > 0
    "delayed_fetch",  # --max-delayed-fetches > 0
    "reads",  # consumer reads tracked (the no-read-loss property)
    "alter_partition",  # rule alter-partition (KIP-497, 2.7+)
    "kraft",  # rule kraft (KRaft metadata log, 3.3+)
    "broker_epochs",  # rule broker-epoch-in-fetch (KIP-903, 3.5+)
    "elr",  # rule eligible-leader-replicas (KIP-966)
)
"""Optional groups of fields. A configuration that does not use a feature gets rows without its
fields (width 0), so a feature costs nothing, in bytes or states, when it is off."""


def _global_fields(n: int, records: int, epochs: int, on) -> tuple:
    return (
        (RECORDS_WRITTEN, 1, PLAIN),
        (CRASHES, 1, PLAIN),
        (UNFLUSHED_LOSSES, 1, PLAIN),
        (CONTROLLER_LEADER, 1, BROKER),
        (CONTROLLER_LEADER_EPOCH, 1, PLAIN),
        (CONTROLLER_ISR, 1, MASK),
        (CONTROLLER_LIVE, 1, MASK),
        (ACK_STATE, records, PLAIN),
        (ACK_LEADER, records, BROKER),
        (ACK_OFFSET, records, PLAIN),
        (VISIBLE_LEN, 1, PLAIN),
        (VISIBLE, records, PLAIN),
        (CONTROLLED_SHUTDOWNS, on("controlled_shutdown"), PLAIN),
        (SESSION_EXPIRIES, on("session_expiry"), PLAIN),
        (CONTROLLER_FAILOVERS, on("controller_failover"), PLAIN),
        (DELAYED_FETCHES, on("delayed_fetch"), PLAIN),
        (CONTROLLER_EPOCH, on("controller_failover"), PLAIN),
        (ZOMBIE, on("controller_failover"), PLAIN),
        (ZOMBIE_CONTROLLER_EPOCH, on("controller_failover"), PLAIN),
        (ZOMBIE_LEADER, on("controller_failover"), BROKER),
        (ZOMBIE_LEADER_EPOCH, on("controller_failover"), PLAIN),
        (ZOMBIE_ISR, on("controller_failover"), MASK),
        (READ_OFFSET, records * on("reads"), PLAIN),
        (LEADER_RECOVERING, on("kraft"), PLAIN),
        (ELR, on("elr"), MASK),
        (LAST_KNOWN_ELR, on("elr"), MASK),
    )


def _block_fields(n: int, records: int, epochs: int, on) -> tuple:
    return (
        (ALIVE, 1, PLAIN),
        (LEADER_EPOCH, 1, PLAIN),
        (LEADER, 1, BROKER),
        (HIGH_WATERMARK, 1, PLAIN),
        (LOG_END_OFFSET, 1, PLAIN),
        (ISR, 1, MASK),
        (TRUNCATING, 1, PLAIN),
        (FLUSHED_OFFSET, 1, PLAIN),
        (REMOTE_LEO, n, PER_BROKER),
        (LOG_RECORD, records, PLAIN),
        (LOG_EPOCH, records, PLAIN),
        (RESPONSE, 1, PLAIN),
        (RESPONSE_LEADER, 1, BROKER),
        (RESPONSE_EPOCH, 1, PLAIN),
        (RESPONSE_FETCH_OFFSET, 1, PLAIN),
        (RESPONSE_HW, 1, PLAIN),
        (RESPONSE_LEO, 1, PLAIN),
        (RESPONSE_COUNT, 1, PLAIN),
        (RESPONSE_RECORD, records, PLAIN),
        (RESPONSE_EPOCHS, records, PLAIN),
        (LAI, epochs, PLAIN),
        (LAI_LEADER, epochs, BROKER),
        (LAI_ISR, epochs, MASK),
        (CHECKPOINTED_HW, on("hw_checkpoint"), PLAIN),
        (SHUTTING_DOWN, on("controlled_shutdown"), PLAIN),
        (CONTROLLER_EPOCH_SEEN, on("controller_failover"), PLAIN),
        (LAI_CONTROLLER_EPOCH, epochs * on("controller_failover"), PLAIN),
        (ZLAI, on("controller_failover"), PLAIN),
        (FETCH_REQUEST, on("delayed_fetch"), PLAIN),
        (FETCH_REQUEST_LEADER, on("delayed_fetch"), BROKER),
        (FETCH_REQUEST_EPOCH, on("delayed_fetch"), PLAIN),
        (FETCH_REQUEST_OFFSET, on("delayed_fetch"), PLAIN),
        (FETCH_REQUEST_CURRENT, on("delayed_fetch"), PLAIN),
        (ALTER_STATE, on("alter_partition"), PLAIN),
        (ALTER_ISR, on("alter_partition"), MASK),
        (ALTER_LEADER_EPOCH, on("alter_partition"), PLAIN),
        (ALTER_PARTITION_EPOCH_CURRENT, on("alter_partition"), PLAIN),
        (ALTER_MEMBER_EPOCH_CURRENT, on("broker_epochs"), PLAIN),
        (PARTITION_EPOCH_CURRENT, on("alter_partition"), PLAIN),
        (CHANGE, on("kraft"), PLAIN),
        (CHANGE_ISR, on("kraft"), MASK),
        (CHANGE_LEADER_EPOCH, on("kraft"), PLAIN),
        (CHANGE_CURRENT, on("kraft"), PLAIN),
        (LAI_CURRENT, epochs * on("alter_partition"), PLAIN),
        (REMOTE_CURRENT, n * on("broker_epochs"), PER_BROKER),
        (CLEAN_SHUTDOWN, on("elr"), PLAIN),
    )


@dataclass(frozen=True)
class FieldSpec:
    """One field: its slot name, where it starts (in the row, or in a broker's block), how many
    values it has, and its kind."""

    name: str
    offset: int
    count: int
    kind: int


@dataclass(frozen=True)
class Layout:
    """The layout of a configuration's rows: ``array`` is what the kernel reads (``lay``)."""

    array: np.ndarray
    width: int
    n_brokers: int
    n_records: int
    n_epochs: int
    global_fields: tuple = field(default=())
    block_fields: tuple = field(default=())
    features: frozenset = field(default=frozenset())

    def has(self, feature: str) -> bool:
        """Does this layout hold ``feature``'s fields (``FEATURES``)?"""
        return feature in self.features

    def position(self, slot: int, broker: int | None = None) -> int:
        """The row position of a field (for a broker field, of that broker's copy)."""
        if broker is None:
            return int(self.array[slot])
        return int(self.array[BROKER0] + broker * self.array[BROKER_STRIDE] + self.array[slot])

    def block_start(self, broker: int) -> int:
        """Where broker ``broker``'s block starts in the row."""
        return int(self.array[BROKER0] + broker * self.array[BROKER_STRIDE])

    def describe(self) -> list[str]:
        """One line per field: position, size and kind (for ``docs`` and debugging)."""
        lines = [f"row: {self.width} bytes; broker blocks of {int(self.array[BROKER_STRIDE])} "
                 f"bytes from {int(self.array[BROKER0])}"]
        for f in self.global_fields:
            lines.append(f"  {f.offset:>4}  {f.name:<24} x{f.count:<3} {KIND_NAMES[f.kind]}")
        for f in self.block_fields:
            lines.append(f"  b+{f.offset:<3} {f.name:<24} x{f.count:<3} {KIND_NAMES[f.kind]}")
        return lines


def build_layout(n_brokers: int, n_records: int, n_epochs: int, features=()) -> Layout:
    """The layout for ``n_brokers`` replicas, ``n_records`` record slots, leader epochs
    ``0 .. n_epochs - 1`` carried by requests, and the optional ``features``."""
    features = frozenset(features)
    unknown = features - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown layout features {sorted(unknown)}")

    def on(feature: str) -> int:
        return 1 if feature in features else 0

    lay = np.zeros(SLOT_COUNT, dtype=np.int32)
    lay[N_BROKERS], lay[N_RECORDS], lay[N_EPOCHS] = n_brokers, n_records, n_epochs
    lay[FEATURE_BITS] = sum(1 << i for i, name in enumerate(FEATURES) if name in features)
    global_specs, block_specs = [], []
    pos = 0
    for slot, count, kind in _global_fields(n_brokers, n_records, n_epochs, on):
        lay[slot] = pos
        global_specs.append(FieldSpec(SLOT_NAMES[slot], pos, count, kind))
        pos += count
    pos = (pos + 7) // 8 * 8  # blocks start on a 64-bit word, so a renaming moves them by words
    lay[BROKER0] = pos
    inner = 0
    for slot, count, kind in _block_fields(n_brokers, n_records, n_epochs, on):
        lay[slot] = inner
        block_specs.append(FieldSpec(SLOT_NAMES[slot], inner, count, kind))
        inner += count
    inner = (inner + 7) // 8 * 8  # whole 64-bit words
    lay[BROKER_STRIDE] = inner
    width = pos + n_brokers * inner  # whole 64-bit words, for hashing, comparing and moving
    lay[WIDTH] = width
    tables = []
    lay[GLOBAL_TABLE] = SLOT_COUNT
    lay[GLOBAL_COUNT] = len(global_specs)
    for f in global_specs:
        tables += [f.offset, f.count, f.kind]
    lay[BLOCK_TABLE] = SLOT_COUNT + len(tables)
    lay[BLOCK_COUNT] = len(block_specs)
    for f in block_specs:
        tables += [f.offset, f.count, f.kind]
    array = np.concatenate([lay, np.array(tables, dtype=np.int32)]).astype(np.int32)
    return Layout(array, width, n_brokers, n_records, n_epochs, tuple(global_specs),
                  tuple(block_specs), features)


def broker_orders(n_brokers: int) -> np.ndarray:
    """Every ordering of brokers ``1 .. n-1`` (broker 0 is never renamed: it leads the initial
    state), one per row: the renamings symmetry reduction chooses among."""
    rest = range(1, n_brokers)
    orders = list(permutations(rest)) or [()]
    return np.array(orders, dtype=np.int32).reshape(len(orders), max(n_brokers - 1, 0))


READS_BIT = 1 << FEATURES.index("reads")
