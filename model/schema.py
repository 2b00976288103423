"""The state schema: every field of a partition's state, declared once.

A state is a fixed-width row of ``int8`` values, which the compiled kernel explores, and a
readable ``ClusterState`` (``model/state.py``), which traces, the viewer, ITF files and properties
written in Python read. Both come from the tables below:

* the **row** (``model/kernel/layout.py``): each field's *slots*, in table order, the partition's
  in the row's head and a broker's in its block, each of a *value* (a number, a flag, a broker id,
  a set of brokers as a bit mask) and a *width* (one value, one per record slot, per leader
  epoch or per broker), present only when its *feature* is (``FEATURES``);
* the kernel's **slot constants and one-slot accessors** (``model/kernel/slots.py``, generated
  from these tables by ``python model/kernel/generate.py``): ``high_watermark(s, lay, b)``,
  ``set_high_watermark(s, lay, b, hw)``, ``remote_leo(s, lay, leader, follower)``, ...;
* the **readable state** (``model/state.py``): one attribute per field, of the field's *type*,
  in table order; its encoding into a row and back (``model/kernel/codec.py``), its JSON
  (``model/state.py``) and ITF (``viewer/itf.py``) forms, and the oracle's renaming of brokers
  (``checker/reference/symmetry.py``) all go by the type, so a state decodes to exactly the row
  it came from.

Adding a field is one row here (``scalar("producer_epoch", INT, feature="idempotence",
doc=...)``), ``python model/kernel/generate.py``, and the code that uses it. A field of a new
*type* also needs that type's encoding in the modules above; ``tests/unit/test_codec.py`` checks
every field round-trips.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

# -- what a slot holds (its value), and so what renaming brokers does to it
INT, BOOL, BROKER, MASK = "int", "bool", "broker", "mask"
# -- how many values a slot has
ONE, RECORDS, EPOCHS, BROKERS = "one", "records", "epochs", "brokers"
# -- where a slot lives
PARTITION, BLOCK = "partition", "block"

# -- readable types of fields (model/kernel/codec.py, model/state.py, viewer/itf.py)
#    one slot:    INT, BOOL, BROKER ("broker": an id or -1), BROKERS (a sorted tuple of ids),
#                 PER_BROKER (a tuple indexed by broker id)
BROKERS_SET, PER_BROKER = "brokers", "per-broker"
LOG = "log"  # (count, ids, epochs) slots: records (id, epoch) at offsets 0, 1, ...
MESSAGE = "message"  # a message in flight: a tuple of its parts, () when there is none
RECORD = "record"  # a sub-record always present (the controller's PartitionState)
REQUESTS = "requests"  # LeaderAndIsr in flight: (broker, leader_epoch, leader, isr)
REQUEST_FLAGS = "request-flags"  # (broker, leader_epoch) pairs whose flag is set
REQUEST_VALUES = "request-values"  # (broker, leader_epoch, value) for each request in flight
ACKS_PENDING = "acks-pending"  # (leader, record, offset) parked in a purgatory
ACKS_DONE = "acks-done"  # (record, offset) acknowledged
PREFIX = "prefix"  # a sequence of record ids: (length, ids) slots
RECORD_OFFSETS = "record-offsets"  # (record, offset), the offset stored + 1 (0: none)
PRODUCER_EPOCHS = "producer-epochs"  # a log's producer epochs by offset; its length is uses[0]'s
PER_RECORD = "per-record"  # one value per record slot, by record id - 1: a tuple, () when off

ACK_NONE, ACK_PENDING, ACK_DONE = 0, 1, 2  # the ack_state slot of a record

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
    "producer",  # --retries > 0: the producer sends again (issue 26)
    "consumer",  # --consumer-commit: one consumer that processes and commits (issue 26)
    "assignment",  # every release (rule unordered-leader-moves leaves it out)
    "preferred_election",  # --max-preferred-elections > 0
    "reassignment",  # --max-reassignments > 0
    "stale_metadata",  # --max-stale-metadata-reads > 0
    "producer_epoch",  # --max-producer-epoch-bumps > 0: the producer epoch (KIP-360, issue 26g)
    "epoch_start_offset",  # rule isr-join-needs-epoch-start without broker-epoch (Kafka 2.1)
    "zombie_broker_epoch",  # --max-controller-failovers with rule broker-epoch (KIP-380, 2.2+)
)
"""Optional groups of fields (what brings each: ``model/rules.py`` and ``spec.ENVIRONMENT``). A
configuration without a feature gets rows without its slots (width 0), so a feature costs
nothing, in bytes or states, when it is off."""


@dataclass(frozen=True)
class Slot:
    """Values of one kind in a row: the unit of the layout.

    ``name`` is its name in the layout and, upper-cased, its kernel constant. ``get`` / ``set``
    name the generated accessors ("" = the slot's name / ``set_`` + it; None = none: the slot is
    read or written only through a hand-written accessor of ``model/kernel/fields.py``).
    ``index_base`` is the first index of a slot of several values (record ids start at 1).
    ``fill`` is the value of an unused entry (0, so equal states are equal rows, but for the
    acknowledgement slots, where -1 means none). ``level`` and ``feature`` default to the
    field's."""

    name: str
    value: str = INT
    width: str = ONE
    get: str | None = ""
    set: str | None = ""
    index_base: int = 0
    fill: int = 0
    level: str | None = None
    feature: str | None = None

    @property
    def constant(self) -> str:
        return self.name.upper()


@dataclass(frozen=True)
class Field:
    """One attribute of the readable state and the slots that hold it.

    ``type`` is its readable type (above); ``parts`` the sub-fields of a ``MESSAGE`` or
    ``RECORD`` (in the order of the readable tuple); ``uses`` the names of other fields' slots it
    reads (the acknowledged records share the pending ones' slots). ``default`` is its value when
    its feature is off (and what a trace file written before it existed is read as, when
    ``optional``)."""

    name: str
    type: str
    slots: tuple = ()
    feature: str | None = None
    default: object = 0
    optional: bool = False
    parts: tuple = ()
    uses: tuple = ()
    level: str = BLOCK
    doc: str = ""


def scalar(name: str, type: str = INT, *, slot: str | None = None, get="", set="",
           feature=None, default=None, optional=None, width=ONE, level=BLOCK, doc="") -> Field:
    """A field of one slot: a number, a flag, a broker id, a set of brokers, or a per-broker
    array (``PER_BROKER``)."""
    value = {INT: INT, BOOL: BOOL, BROKER: BROKER, BROKERS_SET: MASK, PER_BROKER: INT}[type]
    if type == PER_BROKER:
        width = BROKERS
    if default is None:
        default = {BOOL: False, BROKERS_SET: (), PER_BROKER: ()}.get(type, 0)
    return Field(name, type, (Slot(slot or name, value, width, get, set),), feature, default,
                 bool(feature) if optional is None else optional, level=level, doc=doc)


def part(name: str, type: str, slot: Slot) -> Field:
    """A part of a message or record: one slot (``LOG`` parts have three). A part of a feature
    of its own (``slot.feature``) reads as the type's default where the feature is off."""
    default = {BOOL: False, BROKERS_SET: ()}.get(type, 0)
    return Field(name, type, (slot,), feature=slot.feature, default=default)


# ------------------------------------------------------------------------------ a replica
# One per broker (``ReplicaState``); its slots form the broker's block.

REPLICA: tuple[Field, ...] = (
    scalar("alive", BOOL, get="is_alive", doc="the broker process runs"),
    Field("log", LOG, (
        Slot("log_end_offset", set=None),
        Slot("log_record", width=RECORDS, get="record_id_at", set=None),
        Slot("log_epoch", width=RECORDS, get="record_epoch_at", set=None),
    ), doc="records ``(record_id, leader_epoch)`` at offsets 0, 1, ...; LEO = ``len(log)``"),
    scalar("high_watermark",
           doc="records below it are committed (``UnifiedLog.highWatermark``); HW <= LEO"),
    scalar("leader_epoch", doc="the epoch of the last LeaderAndIsr request this broker applied "
                               "(-1 after a restart, when it has applied none)"),
    scalar("leader", BROKER, get="leader_of", set="set_leader_of",
           doc="the broker this one believes leads the partition (itself if it is leader)"),
    scalar("isr", BROKERS_SET, get="isr_of", set="set_isr_of",
           doc="the in-sync replicas as this broker knows them (kept by a leader, ``()`` "
               "otherwise)"),
    scalar("remote_log_end_offsets", PER_BROKER, slot="remote_leo", get="remote_leo",
           doc="on a leader, each follower's LEO as of that follower's last fetch "
               "(``Replica.logEndOffset`` on the leader; -1 = not known yet)"),
    scalar("truncating", BOOL, get="is_truncating",
           doc="a follower that must still truncate its log against the leader "
               "(OffsetsForLeaderEpoch, KIP-101 and later) before it may fetch"),
    Field("fetch_response", MESSAGE, (Slot("response", BOOL, get="has_fetch_response", set=None),),
          default=(), parts=(
              part("leader", BROKER, Slot("response_leader", BROKER, set=None)),
              part("leader_epoch", INT, Slot("response_epoch", set=None)),
              part("fetch_offset", INT, Slot("response_fetch_offset", set=None)),
              Field("records", LOG, (
                  Slot("response_count", set=None),
                  Slot("response_record", width=RECORDS, get="response_record_id", set=None),
                  Slot("response_epochs", width=RECORDS, get="response_record_epoch", set=None),
              )),
              part("leader_high_watermark", INT, Slot("response_hw", set=None)),
              part("leader_log_end_offset", INT, Slot("response_leo", set=None)),
          ), doc="a fetch response on its way to this follower, ``()`` if none, else "
                 "``(leader, leader_epoch_when_sent, fetch_offset, records, leader_hw, "
                 "leader_leo)``"),
    scalar("flushed_offset", doc="records below it are on disk (only tracked with power-loss "
                                 "crashes)"),
    scalar("checkpointed_hw", feature="hw_checkpoint", default=-1,
           doc="the HW in the broker's checkpoint file, what a restart reads back (tracked with "
               "--hw-checkpoint interval; -1 otherwise: the file follows the HW)"),
    scalar("shutting_down", BOOL, get="is_shutting_down", feature="controlled_shutdown",
           doc="the controller has handled this broker's controlled shutdown and keeps it out of "
               "elections; the broker stops next (with --max-controlled-shutdowns)"),
    Field("fetch_request", MESSAGE, (Slot("fetch_request", BOOL, get="has_delayed_fetch",
                                          set=None),),
          feature="delayed_fetch", default=(), optional=True, parts=(
              part("leader", BROKER, Slot("fetch_request_leader", BROKER, get="delayed_fetch_leader",
                                          set=None)),
              part("leader_epoch", INT, Slot("fetch_request_epoch", get="delayed_fetch_epoch",
                                             set=None)),
              part("fetch_offset", INT, Slot("fetch_request_offset", get="delayed_fetch_offset",
                                             set=None)),
              part("current", BOOL, Slot("fetch_request_current", BOOL,
                                         get="delayed_fetch_is_current", set=None)),
          ), doc="a fetch of this broker's held up in flight (--max-delayed-fetches), ``()`` if "
                 "none, else ``(leader, leader_epoch, fetch_offset, current)``; ``current`` is "
                 "false once the broker has restarted since (a new broker epoch, KIP-903)"),
    Field("alter_partition", MESSAGE, (), feature="alter_partition", default=(), optional=True,
          parts=(
              part("state", INT, Slot("alter_state", set=None)),
              part("isr", BROKERS_SET, Slot("alter_isr", MASK, set=None)),
              part("leader_epoch", INT, Slot("alter_leader_epoch", set=None)),
              part("partition_epoch_current", BOOL, Slot("alter_partition_epoch_current", BOOL,
                                                         set=None)),
              part("member_epoch_current", BOOL, Slot("alter_member_epoch_current", BOOL,
                                                      feature="broker_epochs")),
          ), doc="the leader's pending ISR change (KIP-497, 2.7+), ``()`` if none, else ``(state, "
                 "isr, leader_epoch, partition_epoch_current, member_epoch_current)``: state 1 "
                 "the request is on its way to the controller (``isr`` proposed), 2 accepted (the "
                 "answer carrying ``isr`` is on its way back), 3 refused (INELIGIBLE_REPLICA), 4 "
                 "stuck (an error without retry: waiting for new metadata)"),
    scalar("partition_epoch_current", BOOL, feature="alter_partition", default=True,
           doc="this broker knows the controller's current partition epoch"),
    Field("partition_change", MESSAGE, (Slot("change", BOOL, get="change_pending", set=None),),
          feature="kraft", default=(), optional=True, parts=(
              part("isr", BROKERS_SET, Slot("change_isr", MASK, set=None)),
              part("leader_epoch", INT, Slot("change_leader_epoch", set=None)),
              part("current", BOOL, Slot("change_current", BOOL)),
          ), doc="KRaft: a ``PartitionChangeRecord`` keeping the leader epoch still to apply, "
                 "``()`` if none, else ``(isr, leader_epoch, current)``"),
    scalar("remote_current", PER_BROKER, feature="broker_epochs", get="remote_is_current",
           doc="on a leader, per follower: its last fetch came from its current incarnation "
               "(KIP-903); ``()`` when not tracked"),
    scalar("clean_shutdown", BOOL, get="shut_down_cleanly", set="set_shut_down_cleanly",
           feature="elr", doc="its last stop was a controlled shutdown (KIP-966's "
                              "clean-shutdown file)"),
    scalar("controller_epoch_seen", feature="controller_failover",
           doc="the newest controller epoch it has obeyed (ZooKeeper mode, with "
               "--max-controller-failovers)"),
    scalar("zombie_request", BOOL, slot="zlai", get="zombie_request_pending",
           set="set_zombie_request", feature="controller_failover",
           doc="the zombie controller's LeaderAndIsr is on its way to it"),
    scalar("registered_since_failover", BOOL, feature="zombie_broker_epoch",
           doc="it registered (restart, new ZooKeeper session) since the last controller "
               "failover, so its broker epoch is newer than the one the zombie controller "
               "holds for it and it refuses the zombie's requests (KIP-380: "
               "STALE_BROKER_EPOCH); only with --max-controller-failovers and broker-epoch"),
    scalar("assignment_rank", feature="assignment",
           doc="this replica's place in the partition's replica assignment (0 = the preferred "
               "replica): the order every election reads (``PartitionLeaderElectionAlgorithms``, "
               "``PartitionChangeBuilder.electLeader``)"),
    scalar("epoch_start_offset", feature="epoch_start_offset", default=-1,
           doc="on a leader that took up an epoch it already had records of (a restart into its "
               "own epoch: before KIP-380 the controller need not notice the bounce), the start "
               "offset of its epoch as ``Partition.makeLeader`` recorded it (its LEO then, "
               "``leaderEpochStartOffsetOpt``); -1 otherwise, where that offset is read off the "
               "log (its first record of the epoch, else its LEO: the same number)"),
    Field("log_producer_epochs", PRODUCER_EPOCHS, (
        Slot("log_producer_epoch", width=RECORDS, get="producer_epoch_at", set=None),
    ), feature="producer_epoch", default=(), optional=True, uses=("log_end_offset",),
          doc="the producer epoch each batch of ``log`` was written with, by offset (KIP-360; "
              "with --max-producer-epoch-bumps, ``()`` otherwise): kept in step with ``log`` by "
              "its writers, as Kafka keeps it in each batch's header"),
    Field("response_producer_epochs", PRODUCER_EPOCHS, (
        Slot("response_producer_epoch", width=RECORDS, get="response_producer_epoch_at", set=None),
    ), feature="producer_epoch", default=(), optional=True, uses=("response_count",),
          doc="the producer epochs of the fetch response's records, by position (with "
              "--max-producer-epoch-bumps, ``()`` otherwise)"),
)

# ------------------------------------------------------------------------------ the controller
# The controller's record of the partition (``PartitionState``).

CONTROLLER: tuple[Field, ...] = (
    part("leader", BROKER, Slot("controller_leader", BROKER, set=None)),
    part("leader_epoch", INT, Slot("controller_leader_epoch", set=None)),
    part("isr", BROKERS_SET, Slot("controller_isr", MASK)),
    part("live_brokers", BROKERS_SET, Slot("controller_live", MASK)),
)

# ------------------------------------------------------------------------------ the partition
# ``ClusterState``: the replicas, the controller, and what concerns the whole partition.

CLUSTER: tuple[Field, ...] = (
    Field("controller", RECORD, parts=CONTROLLER, level=PARTITION,
          doc="the controller's ``PartitionState``"),
    Field("leader_and_isr", REQUESTS, (
        Slot("lai", BOOL, EPOCHS, get="leader_and_isr_pending", set=None, level=BLOCK),
        Slot("lai_leader", BROKER, EPOCHS, get="leader_and_isr_leader", set=None, level=BLOCK),
        Slot("lai_isr", MASK, EPOCHS, get="leader_and_isr_isr", set=None, level=BLOCK),
    ), default=(), level=PARTITION,
          doc="LeaderAndIsr requests sent and not yet applied, sorted tuples ``(broker, "
              "leader_epoch, leader, isr)``; a request whose epoch is not newer than its "
              "target's is dropped (the broker would ignore it); kept in its target's block"),
    Field("pending_acks", ACKS_PENDING, (
        Slot("ack_state", width=RECORDS, index_base=1, set=None),
        Slot("ack_leader", BROKER, RECORDS, index_base=1, set=None, fill=-1),
        Slot("ack_offset", width=RECORDS, index_base=1, set=None, fill=-1),
    ), default=(), level=PARTITION,
          doc="acks=all produce requests waiting in a leader's purgatory for the HW, "
              "``(leader, record_id, offset)``"),
    Field("acked", ACKS_DONE, uses=("ack_state", "ack_offset"), default=(), level=PARTITION,
          doc="records the producer got a successful acknowledgement for, ``(record_id, "
              "offset)``"),
    Field("consumer_visible", PREFIX, (
        Slot("visible_len", get="visible_count", set="set_visible_count"),
        Slot("visible", width=RECORDS, get="visible_record", set="set_visible"),
    ), default=(), level=PARTITION,
          doc="record ids a consumer could have read (below a true leader's HW), as the "
              "longest such prefix seen so far; history kept for ``monotonic-visibility``"),
    scalar("records_written", level=PARTITION,
           doc="how many records the producer has sent (the next record id is this + 1)"),
    scalar("crashes", level=PARTITION, doc="how many broker crashes have happened (a bound)"),
    scalar("unflushed_losses", level=PARTITION,
           doc="crashes that lost unflushed records (a bound, power-loss only)"),
    scalar("controlled_shutdowns", feature="controlled_shutdown", level=PARTITION,
           doc="controlled shutdowns the controller has handled (a bound)"),
    scalar("session_expiries", feature="session_expiry", level=PARTITION,
           doc="times the controller lost a running broker (a bound)"),
    scalar("delayed_fetches", feature="delayed_fetch", level=PARTITION,
           doc="fetches held up in flight so far (a bound)"),
    scalar("leader_recovering", BOOL, feature="kraft", level=PARTITION,
           doc="KIP-704: the leader was elected uncleanly and has not yet had an AlterPartition "
               "accepted (KRaft)"),
    scalar("elr", BROKERS_SET, feature="elr", set=None, level=PARTITION,
           doc="KIP-966's eligible leader replicas (sorted ids)"),
    scalar("last_known_elr", BROKERS_SET, feature="elr", set=None, level=PARTITION,
           doc="KIP-966's last known ELR (sorted ids)"),
    Field("leader_and_isr_current", REQUEST_FLAGS, (
        Slot("lai_current", BOOL, EPOCHS, get="leader_and_isr_current",
             set="set_leader_and_isr_current", level=BLOCK),
    ), feature="alter_partition", default=(), optional=True, level=PARTITION,
          doc="the LeaderAndIsr requests in flight that carry the controller's latest record, "
              "``(broker, leader_epoch)`` pairs (partition epochs, see "
              "``model/kernel/controller.py``)"),
    scalar("controller_epoch", feature="controller_failover", level=PARTITION,
           doc="the active controller's epoch (ZooKeeper mode)"),
    scalar("controller_failovers", feature="controller_failover", level=PARTITION,
           doc="controller failovers so far (a bound)"),
    Field("zombie_controller", MESSAGE, (Slot("zombie", BOOL, get="has_zombie_controller",
                                              set=None),),
          feature="controller_failover", default=(), optional=True, level=PARTITION, parts=(
              part("controller_epoch", INT, Slot("zombie_controller_epoch", set=None)),
              part("leader", BROKER, Slot("zombie_leader", BROKER, set=None)),
              part("leader_epoch", INT, Slot("zombie_leader_epoch", set=None)),
              part("isr", BROKERS_SET, Slot("zombie_isr", MASK, set=None)),
          ), doc="the deposed controller that has not noticed, ``()`` if none, else "
                 "``(controller_epoch, leader, leader_epoch, isr)``: its frozen view of the "
                 "partition"),
    Field("leader_and_isr_controller_epochs", REQUEST_VALUES, (
        Slot("lai_controller_epoch", width=EPOCHS, get="leader_and_isr_controller_epoch",
             set="set_leader_and_isr_controller_epoch", level=BLOCK),
    ), feature="controller_failover", default=(), optional=True, uses=("lai",), level=PARTITION,
          doc="the controller epoch each LeaderAndIsr in flight carries, ``(broker, "
              "leader_epoch, controller_epoch)`` triples"),
    Field("read_offsets", RECORD_OFFSETS, (
        Slot("read_offset", width=RECORDS, get=None, set=None),
    ), feature="reads", default=(), optional=True, level=PARTITION,
          doc="history for ``no-read-loss`` (kept only when that property is checked): "
              "``(record, offset)`` for every record a consumer could have read, at the offset "
              "it was first readable"),
    scalar("retries", feature="producer", level=PARTITION,
           doc="produce requests the producer has sent again after an error or a timeout (a "
               "bound: --retries)"),
    scalar("producer_epoch", feature="producer_epoch", level=PARTITION,
           doc="the idempotent producer's epoch (KIP-360: bumped by "
               "``TransactionManager.bumpIdempotentProducerEpoch``; the number of bumps so far, a "
               "bound: --max-producer-epoch-bumps)"),
    scalar("next_sequence", feature="producer_epoch", level=PARTITION,
           doc="the sequence the producer gives the next record it sends for the first time, at "
               "its current epoch (``TxnPartitionEntry.nextSequence``)"),
    Field("sequences", PER_RECORD, (
        Slot("sequence", width=RECORDS, index_base=1, get="sequence_of", set="set_sequence_of"),
    ), feature="producer_epoch", default=(), optional=True, level=PARTITION,
          doc="each record's sequence as last sent, by record id - 1 (0 for a record not sent "
              "yet; -1 for a record the producer gave up, which it never sends again); every "
              "record it still sends carries ``producer_epoch``"),
    scalar("consumer_position", feature="consumer", level=PARTITION,
           doc="the consumer's position: the offset of the next record it fetches"),
    scalar("consumer_committed", feature="consumer", level=PARTITION,
           doc="the group's committed offset (in ``__consumer_offsets``; it survives a "
               "consumer restart)"),
    scalar("consumer_in_hand", BOOL, feature="consumer", level=PARTITION,
           doc="the consumer holds a fetched record (at offset position - 1) it has not "
               "processed yet"),
    scalar("consumer_processed", feature="consumer", level=PARTITION,
           doc="the consumer's processing has reached this offset: every offset below it was "
               "processed (at least once)"),
    scalar("consumer_processed_twice", BOOL, feature="consumer", level=PARTITION,
           doc="some offset was processed a second time (history for ``at-most-once``)"),
    scalar("consumer_restarts", feature="consumer", level=PARTITION,
           doc="consumer crashes and restarts so far (a bound: --max-consumer-restarts)"),
    scalar("preferred_elections", feature="preferred_election", level=PARTITION,
           doc="preferred-replica elections so far (a bound)"),
    scalar("reassignments", feature="reassignment", level=PARTITION,
           doc="replica reorderings so far (a bound)"),
    scalar("stale_metadata_reads", feature="stale_metadata", level=PARTITION,
           doc="ISR expansions a leader proposed on a stale metadata cache so far (a bound)"),
)

ROW_FIRST = (
    # the partition's
    "records_written", "crashes", "unflushed_losses", "controller_leader",
    "controller_leader_epoch", "controller_isr", "controller_live", "ack_state", "ack_leader",
    "ack_offset", "visible_len", "visible",
    # a broker's
    "alive", "leader_epoch", "leader", "high_watermark", "log_end_offset", "isr", "truncating",
    "flushed_offset", "remote_leo", "log_record", "log_epoch", "response", "response_leader",
    "response_epoch", "response_fetch_offset", "response_hw", "response_leo", "response_count",
    "response_record", "response_epochs", "lai", "lai_leader", "lai_isr",
)
"""The slots a row holds first, in this order; the others follow in the tables' order. The
canonical form compares two brokers slot by slot (``model/kernel/symmetry.py``), so the slots
that tell brokers apart soonest (alive, leader epoch, leader, HW, LEO) come first: measured
about 6% faster than the tables' order on ``bench.py``'s rf3-r2 row."""

META = ("width", "n_brokers", "n_records", "n_epochs", "broker0", "broker_stride",
        "global_table", "global_count", "block_table", "block_count", "feature_bits")
"""The layout array's own entries, before the slots' positions (``model/kernel/layout.py``)."""


# ------------------------------------------------------------------------------ derived

def _with_level(s: Slot, level: str, feature) -> Slot:
    return replace(s, level=s.level or level, feature=s.feature or feature)


def field_slots(f: Field, level: str | None = None, feature=None) -> list[Slot]:
    """Every slot of ``f``, its parts' included, with its level and feature resolved."""
    level = level or f.level
    feature = feature or f.feature
    out = [_with_level(s, level, feature) for s in f.slots]
    for p in f.parts:
        out += field_slots(p, level, feature)
    return out


def all_slots() -> tuple[Slot, ...]:
    """Every slot, in layout order: ``ROW_FIRST``, then the replica's fields and the
    partition's (whose slots may live in the broker blocks: the LeaderAndIsr requests) in the
    tables' order."""
    out: list[Slot] = []
    for f in REPLICA:
        out += field_slots(f, BLOCK)
    for f in CLUSTER:
        out += field_slots(f)
    names = [s.name for s in out]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ValueError(f"slots declared twice: {sorted(duplicates)}")
    unknown = set(ROW_FIRST) - set(names)
    if unknown:
        raise ValueError(f"ROW_FIRST names no slot: {sorted(unknown)}")
    first = {name: i for i, name in enumerate(ROW_FIRST)}
    return tuple(sorted(out, key=lambda s: first.get(s.name, len(first))))


SLOTS: tuple[Slot, ...] = all_slots()
SLOT_NAMES: tuple[str, ...] = META + tuple(s.name for s in SLOTS)
SLOT_INDEX: dict[str, int] = {name: i for i, name in enumerate(SLOT_NAMES)}
"""The index of every entry of the layout array: what the kernel's constants are."""


def kind_of(s: Slot) -> str:
    """What a renaming of brokers does to the slot (``model/kernel/layout.py``'s kinds)."""
    if s.width == BROKERS:
        return "per-broker"
    return {BROKER: "broker", MASK: "mask"}.get(s.value, "plain")


def digest() -> str:
    """A hash of what the generated ``model/kernel/slots.py`` depends on."""
    text = repr((META, [(s.name, s.value, s.width, s.get, s.set, s.index_base, s.level)
                        for s in SLOTS]))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
