"""Slot indices and one-slot accessors of a state row: GENERATED from ``model/schema.py`` by
``python model/kernel/generate.py``; do not edit (``tests/unit/test_codec.py`` checks it is up
to date, and ``model/kernel/layout.py`` refuses a stale one).

``s`` is a state row, ``lay`` the layout array (``lay[SLOT]`` is where a slot starts: in the row
for the partition's slots, in a broker's block for a broker's), ``b`` a broker id. Accessors that
carry meaning beyond one slot are written by hand in ``model/kernel/fields.py``.
"""

from model.kernel.jit import kernel

SCHEMA_DIGEST = "fdc2d9b9af8bc669"

# -- the layout array: its own entries, then where each slot starts
WIDTH = 0
N_BROKERS = 1
N_RECORDS = 2
N_EPOCHS = 3
BROKER0 = 4
BROKER_STRIDE = 5
GLOBAL_TABLE = 6
GLOBAL_COUNT = 7
BLOCK_TABLE = 8
BLOCK_COUNT = 9
FEATURE_BITS = 10
RECORDS_WRITTEN = 11
CRASHES = 12
UNFLUSHED_LOSSES = 13
CONTROLLER_LEADER = 14
CONTROLLER_LEADER_EPOCH = 15
CONTROLLER_ISR = 16
CONTROLLER_LIVE = 17
ACK_STATE = 18
ACK_LEADER = 19
ACK_OFFSET = 20
VISIBLE_LEN = 21
VISIBLE = 22
ALIVE = 23
LEADER_EPOCH = 24
LEADER = 25
HIGH_WATERMARK = 26
LOG_END_OFFSET = 27
ISR = 28
TRUNCATING = 29
FLUSHED_OFFSET = 30
REMOTE_LEO = 31
LOG_RECORD = 32
LOG_EPOCH = 33
RESPONSE = 34
RESPONSE_LEADER = 35
RESPONSE_EPOCH = 36
RESPONSE_FETCH_OFFSET = 37
RESPONSE_HW = 38
RESPONSE_LEO = 39
RESPONSE_COUNT = 40
RESPONSE_RECORD = 41
RESPONSE_EPOCHS = 42
LAI = 43
LAI_LEADER = 44
LAI_ISR = 45
CHECKPOINTED_HW = 46
SHUTTING_DOWN = 47
FETCH_REQUEST = 48
FETCH_REQUEST_LEADER = 49
FETCH_REQUEST_EPOCH = 50
FETCH_REQUEST_OFFSET = 51
FETCH_REQUEST_CURRENT = 52
ALTER_STATE = 53
ALTER_ISR = 54
ALTER_LEADER_EPOCH = 55
ALTER_PARTITION_EPOCH_CURRENT = 56
ALTER_MEMBER_EPOCH_CURRENT = 57
PARTITION_EPOCH_CURRENT = 58
CHANGE = 59
CHANGE_ISR = 60
CHANGE_LEADER_EPOCH = 61
CHANGE_CURRENT = 62
REMOTE_CURRENT = 63
CLEAN_SHUTDOWN = 64
CONTROLLER_EPOCH_SEEN = 65
ZLAI = 66
REGISTERED_SINCE_FAILOVER = 67
ASSIGNMENT_RANK = 68
EPOCH_START_OFFSET = 69
LOG_PRODUCER_EPOCH = 70
RESPONSE_PRODUCER_EPOCH = 71
CONTROLLED_SHUTDOWNS = 72
SESSION_EXPIRIES = 73
DELAYED_FETCHES = 74
LEADER_RECOVERING = 75
ELR = 76
LAST_KNOWN_ELR = 77
LAI_CURRENT = 78
CONTROLLER_EPOCH = 79
CONTROLLER_FAILOVERS = 80
ZOMBIE = 81
ZOMBIE_CONTROLLER_EPOCH = 82
ZOMBIE_LEADER = 83
ZOMBIE_LEADER_EPOCH = 84
ZOMBIE_ISR = 85
LAI_CONTROLLER_EPOCH = 86
READ_OFFSET = 87
RETRIES = 88
PRODUCER_EPOCH = 89
NEXT_SEQUENCE = 90
SEQUENCE = 91
CONSUMER_POSITION = 92
CONSUMER_COMMITTED = 93
CONSUMER_IN_HAND = 94
CONSUMER_PROCESSED = 95
CONSUMER_PROCESSED_TWICE = 96
CONSUMER_RESTARTS = 97
PREFERRED_ELECTIONS = 98
REASSIGNMENTS = 99
STALE_METADATA_READS = 100
SLOT_COUNT = 101

@kernel
def at(lay, b, slot):
    """The row position of broker ``b``'s slot ``slot``."""
    return lay[BROKER0] + b * lay[BROKER_STRIDE] + lay[slot]

@kernel
def records_written(s, lay):
    return s[lay[RECORDS_WRITTEN]]

@kernel
def set_records_written(s, lay, value):
    s[lay[RECORDS_WRITTEN]] = value

@kernel
def crashes(s, lay):
    return s[lay[CRASHES]]

@kernel
def set_crashes(s, lay, value):
    s[lay[CRASHES]] = value

@kernel
def unflushed_losses(s, lay):
    return s[lay[UNFLUSHED_LOSSES]]

@kernel
def set_unflushed_losses(s, lay, value):
    s[lay[UNFLUSHED_LOSSES]] = value

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
def set_controller_isr(s, lay, value):
    s[lay[CONTROLLER_ISR]] = value

@kernel
def controller_live(s, lay):
    return s[lay[CONTROLLER_LIVE]]

@kernel
def set_controller_live(s, lay, value):
    s[lay[CONTROLLER_LIVE]] = value

@kernel
def ack_state(s, lay, i):
    return s[lay[ACK_STATE] + i - 1]

@kernel
def ack_leader(s, lay, i):
    return s[lay[ACK_LEADER] + i - 1]

@kernel
def ack_offset(s, lay, i):
    return s[lay[ACK_OFFSET] + i - 1]

@kernel
def visible_count(s, lay):
    return s[lay[VISIBLE_LEN]]

@kernel
def set_visible_count(s, lay, value):
    s[lay[VISIBLE_LEN]] = value

@kernel
def visible_record(s, lay, i):
    return s[lay[VISIBLE] + i]

@kernel
def set_visible(s, lay, i, value):
    s[lay[VISIBLE] + i] = value

@kernel
def is_alive(s, lay, b):
    return s[at(lay, b, ALIVE)] != 0

@kernel
def set_alive(s, lay, b, value):
    s[at(lay, b, ALIVE)] = 1 if value else 0

@kernel
def leader_epoch(s, lay, b):
    return s[at(lay, b, LEADER_EPOCH)]

@kernel
def set_leader_epoch(s, lay, b, value):
    s[at(lay, b, LEADER_EPOCH)] = value

@kernel
def leader_of(s, lay, b):
    return s[at(lay, b, LEADER)]

@kernel
def set_leader_of(s, lay, b, value):
    s[at(lay, b, LEADER)] = value

@kernel
def high_watermark(s, lay, b):
    return s[at(lay, b, HIGH_WATERMARK)]

@kernel
def set_high_watermark(s, lay, b, value):
    s[at(lay, b, HIGH_WATERMARK)] = value

@kernel
def log_end_offset(s, lay, b):
    return s[at(lay, b, LOG_END_OFFSET)]

@kernel
def isr_of(s, lay, b):
    return s[at(lay, b, ISR)]

@kernel
def set_isr_of(s, lay, b, value):
    s[at(lay, b, ISR)] = value

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
def set_flushed_offset(s, lay, b, value):
    s[at(lay, b, FLUSHED_OFFSET)] = value

@kernel
def remote_leo(s, lay, b, i):
    return s[at(lay, b, REMOTE_LEO) + i]

@kernel
def set_remote_leo(s, lay, b, i, value):
    s[at(lay, b, REMOTE_LEO) + i] = value

@kernel
def record_id_at(s, lay, b, i):
    return s[at(lay, b, LOG_RECORD) + i]

@kernel
def record_epoch_at(s, lay, b, i):
    return s[at(lay, b, LOG_EPOCH) + i]

@kernel
def has_fetch_response(s, lay, b):
    return s[at(lay, b, RESPONSE)] != 0

@kernel
def response_leader(s, lay, b):
    return s[at(lay, b, RESPONSE_LEADER)]

@kernel
def response_epoch(s, lay, b):
    return s[at(lay, b, RESPONSE_EPOCH)]

@kernel
def response_fetch_offset(s, lay, b):
    return s[at(lay, b, RESPONSE_FETCH_OFFSET)]

@kernel
def response_hw(s, lay, b):
    return s[at(lay, b, RESPONSE_HW)]

@kernel
def response_leo(s, lay, b):
    return s[at(lay, b, RESPONSE_LEO)]

@kernel
def response_count(s, lay, b):
    return s[at(lay, b, RESPONSE_COUNT)]

@kernel
def response_record_id(s, lay, b, i):
    return s[at(lay, b, RESPONSE_RECORD) + i]

@kernel
def response_record_epoch(s, lay, b, i):
    return s[at(lay, b, RESPONSE_EPOCHS) + i]

@kernel
def leader_and_isr_pending(s, lay, b, i):
    return s[at(lay, b, LAI) + i] != 0

@kernel
def leader_and_isr_leader(s, lay, b, i):
    return s[at(lay, b, LAI_LEADER) + i]

@kernel
def leader_and_isr_isr(s, lay, b, i):
    return s[at(lay, b, LAI_ISR) + i]

@kernel
def checkpointed_hw(s, lay, b):
    return s[at(lay, b, CHECKPOINTED_HW)]

@kernel
def set_checkpointed_hw(s, lay, b, value):
    s[at(lay, b, CHECKPOINTED_HW)] = value

@kernel
def is_shutting_down(s, lay, b):
    return s[at(lay, b, SHUTTING_DOWN)] != 0

@kernel
def set_shutting_down(s, lay, b, value):
    s[at(lay, b, SHUTTING_DOWN)] = 1 if value else 0

@kernel
def has_delayed_fetch(s, lay, b):
    return s[at(lay, b, FETCH_REQUEST)] != 0

@kernel
def delayed_fetch_leader(s, lay, b):
    return s[at(lay, b, FETCH_REQUEST_LEADER)]

@kernel
def delayed_fetch_epoch(s, lay, b):
    return s[at(lay, b, FETCH_REQUEST_EPOCH)]

@kernel
def delayed_fetch_offset(s, lay, b):
    return s[at(lay, b, FETCH_REQUEST_OFFSET)]

@kernel
def delayed_fetch_is_current(s, lay, b):
    return s[at(lay, b, FETCH_REQUEST_CURRENT)] != 0

@kernel
def alter_state(s, lay, b):
    return s[at(lay, b, ALTER_STATE)]

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
def alter_member_epoch_current(s, lay, b):
    return s[at(lay, b, ALTER_MEMBER_EPOCH_CURRENT)] != 0

@kernel
def set_alter_member_epoch_current(s, lay, b, value):
    s[at(lay, b, ALTER_MEMBER_EPOCH_CURRENT)] = 1 if value else 0

@kernel
def partition_epoch_current(s, lay, b):
    return s[at(lay, b, PARTITION_EPOCH_CURRENT)] != 0

@kernel
def set_partition_epoch_current(s, lay, b, value):
    s[at(lay, b, PARTITION_EPOCH_CURRENT)] = 1 if value else 0

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
def set_change_current(s, lay, b, value):
    s[at(lay, b, CHANGE_CURRENT)] = 1 if value else 0

@kernel
def remote_is_current(s, lay, b, i):
    return s[at(lay, b, REMOTE_CURRENT) + i]

@kernel
def set_remote_current(s, lay, b, i, value):
    s[at(lay, b, REMOTE_CURRENT) + i] = value

@kernel
def shut_down_cleanly(s, lay, b):
    return s[at(lay, b, CLEAN_SHUTDOWN)] != 0

@kernel
def set_shut_down_cleanly(s, lay, b, value):
    s[at(lay, b, CLEAN_SHUTDOWN)] = 1 if value else 0

@kernel
def controller_epoch_seen(s, lay, b):
    return s[at(lay, b, CONTROLLER_EPOCH_SEEN)]

@kernel
def set_controller_epoch_seen(s, lay, b, value):
    s[at(lay, b, CONTROLLER_EPOCH_SEEN)] = value

@kernel
def zombie_request_pending(s, lay, b):
    return s[at(lay, b, ZLAI)] != 0

@kernel
def set_zombie_request(s, lay, b, value):
    s[at(lay, b, ZLAI)] = 1 if value else 0

@kernel
def registered_since_failover(s, lay, b):
    return s[at(lay, b, REGISTERED_SINCE_FAILOVER)] != 0

@kernel
def set_registered_since_failover(s, lay, b, value):
    s[at(lay, b, REGISTERED_SINCE_FAILOVER)] = 1 if value else 0

@kernel
def assignment_rank(s, lay, b):
    return s[at(lay, b, ASSIGNMENT_RANK)]

@kernel
def set_assignment_rank(s, lay, b, value):
    s[at(lay, b, ASSIGNMENT_RANK)] = value

@kernel
def epoch_start_offset(s, lay, b):
    return s[at(lay, b, EPOCH_START_OFFSET)]

@kernel
def set_epoch_start_offset(s, lay, b, value):
    s[at(lay, b, EPOCH_START_OFFSET)] = value

@kernel
def producer_epoch_at(s, lay, b, i):
    return s[at(lay, b, LOG_PRODUCER_EPOCH) + i]

@kernel
def response_producer_epoch_at(s, lay, b, i):
    return s[at(lay, b, RESPONSE_PRODUCER_EPOCH) + i]

@kernel
def controlled_shutdowns(s, lay):
    return s[lay[CONTROLLED_SHUTDOWNS]]

@kernel
def set_controlled_shutdowns(s, lay, value):
    s[lay[CONTROLLED_SHUTDOWNS]] = value

@kernel
def session_expiries(s, lay):
    return s[lay[SESSION_EXPIRIES]]

@kernel
def set_session_expiries(s, lay, value):
    s[lay[SESSION_EXPIRIES]] = value

@kernel
def delayed_fetches(s, lay):
    return s[lay[DELAYED_FETCHES]]

@kernel
def set_delayed_fetches(s, lay, value):
    s[lay[DELAYED_FETCHES]] = value

@kernel
def leader_recovering(s, lay):
    return s[lay[LEADER_RECOVERING]] != 0

@kernel
def set_leader_recovering(s, lay, value):
    s[lay[LEADER_RECOVERING]] = 1 if value else 0

@kernel
def elr(s, lay):
    return s[lay[ELR]]

@kernel
def last_known_elr(s, lay):
    return s[lay[LAST_KNOWN_ELR]]

@kernel
def leader_and_isr_current(s, lay, b, i):
    return s[at(lay, b, LAI_CURRENT) + i] != 0

@kernel
def set_leader_and_isr_current(s, lay, b, i, value):
    s[at(lay, b, LAI_CURRENT) + i] = 1 if value else 0

@kernel
def controller_epoch(s, lay):
    return s[lay[CONTROLLER_EPOCH]]

@kernel
def set_controller_epoch(s, lay, value):
    s[lay[CONTROLLER_EPOCH]] = value

@kernel
def controller_failovers(s, lay):
    return s[lay[CONTROLLER_FAILOVERS]]

@kernel
def set_controller_failovers(s, lay, value):
    s[lay[CONTROLLER_FAILOVERS]] = value

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
def leader_and_isr_controller_epoch(s, lay, b, i):
    return s[at(lay, b, LAI_CONTROLLER_EPOCH) + i]

@kernel
def set_leader_and_isr_controller_epoch(s, lay, b, i, value):
    s[at(lay, b, LAI_CONTROLLER_EPOCH) + i] = value

@kernel
def retries(s, lay):
    return s[lay[RETRIES]]

@kernel
def set_retries(s, lay, value):
    s[lay[RETRIES]] = value

@kernel
def producer_epoch(s, lay):
    return s[lay[PRODUCER_EPOCH]]

@kernel
def set_producer_epoch(s, lay, value):
    s[lay[PRODUCER_EPOCH]] = value

@kernel
def next_sequence(s, lay):
    return s[lay[NEXT_SEQUENCE]]

@kernel
def set_next_sequence(s, lay, value):
    s[lay[NEXT_SEQUENCE]] = value

@kernel
def sequence_of(s, lay, i):
    return s[lay[SEQUENCE] + i - 1]

@kernel
def set_sequence_of(s, lay, i, value):
    s[lay[SEQUENCE] + i - 1] = value

@kernel
def consumer_position(s, lay):
    return s[lay[CONSUMER_POSITION]]

@kernel
def set_consumer_position(s, lay, value):
    s[lay[CONSUMER_POSITION]] = value

@kernel
def consumer_committed(s, lay):
    return s[lay[CONSUMER_COMMITTED]]

@kernel
def set_consumer_committed(s, lay, value):
    s[lay[CONSUMER_COMMITTED]] = value

@kernel
def consumer_in_hand(s, lay):
    return s[lay[CONSUMER_IN_HAND]] != 0

@kernel
def set_consumer_in_hand(s, lay, value):
    s[lay[CONSUMER_IN_HAND]] = 1 if value else 0

@kernel
def consumer_processed(s, lay):
    return s[lay[CONSUMER_PROCESSED]]

@kernel
def set_consumer_processed(s, lay, value):
    s[lay[CONSUMER_PROCESSED]] = value

@kernel
def consumer_processed_twice(s, lay):
    return s[lay[CONSUMER_PROCESSED_TWICE]] != 0

@kernel
def set_consumer_processed_twice(s, lay, value):
    s[lay[CONSUMER_PROCESSED_TWICE]] = 1 if value else 0

@kernel
def consumer_restarts(s, lay):
    return s[lay[CONSUMER_RESTARTS]]

@kernel
def set_consumer_restarts(s, lay, value):
    s[lay[CONSUMER_RESTARTS]] = value

@kernel
def preferred_elections(s, lay):
    return s[lay[PREFERRED_ELECTIONS]]

@kernel
def set_preferred_elections(s, lay, value):
    s[lay[PREFERRED_ELECTIONS]] = value

@kernel
def reassignments(s, lay):
    return s[lay[REASSIGNMENTS]]

@kernel
def set_reassignments(s, lay, value):
    s[lay[REASSIGNMENTS]] = value

@kernel
def stale_metadata_reads(s, lay):
    return s[lay[STALE_METADATA_READS]]

@kernel
def set_stale_metadata_reads(s, lay, value):
    s[lay[STALE_METADATA_READS]] = value
