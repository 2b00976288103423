"""The producer's action: a PRODUCE request reaching a broker that believes it leads.

Each action writes every successor it enables into ``out`` (rows) and ``acts`` (action id
and arguments), in a fixed order, and returns the new successor count (``step.py``); the
rules that changed between releases are switches read from ``cfg`` (``model/rules.py``).
"""

from __future__ import annotations

from model.kernel.actions.step import NO_ARG, PRODUCE_RECORD, begin
from model.kernel.fields import (
    ACK_DONE, ACK_PENDING, append_record, believes_it_leads, broker_count, isr_of, leader_epoch,
    log_end_offset, records_written, set_ack, set_records_written, size_of,
)
from model.kernel.jit import kernel
from model.kernel.params import ACKS, ACKS_1, ACKS_ALL, MAX_RECORDS, MIN_INSYNC_REPLICAS
from model.kernel.transitions import finish, maybe_increment_leader_hw


@kernel
def produce_record(s, lay, cfg, out, acts, k):
    """ProduceRecord(leader): the producer's PRODUCE reaches a broker that believes it leads (a
    zombie leader accepts writes too). ``Partition.appendRecordsToLeader``: with acks=all, an
    ISR smaller than min.insync.replicas refuses the write (NOT_ENOUGH_REPLICAS, nothing
    changes); the record is appended with the leader's epoch; acks=1 is answered at once,
    acks=all parks in the purgatory until the HW passes it (``DelayedProduce``); the append
    ends with ``maybeIncrementLeaderHW`` (an ISR of one commits at once)."""
    written = records_written(s, lay)
    if written >= cfg[MAX_RECORDS]:
        return k
    acks = cfg[ACKS]
    for b in range(broker_count(lay)):
        if not believes_it_leads(s, lay, b):
            continue
        if acks == ACKS_ALL and size_of(isr_of(s, lay, b)) < cfg[MIN_INSYNC_REPLICAS]:
            continue  # NOT_ENOUGH_REPLICAS
        begin(s, out, acts, k, PRODUCE_RECORD, b, NO_ARG)
        t = out[k]
        record_id = written + 1
        offset = log_end_offset(t, lay, b)
        append_record(t, lay, b, record_id, leader_epoch(t, lay, b))
        set_records_written(t, lay, record_id)
        if acks == ACKS_1:
            set_ack(t, lay, record_id, ACK_DONE, -1, offset)
        elif acks == ACKS_ALL:
            set_ack(t, lay, record_id, ACK_PENDING, b, offset)
        maybe_increment_leader_hw(t, lay, cfg, b)
        finish(t, lay, cfg)
        k += 1
    return k
