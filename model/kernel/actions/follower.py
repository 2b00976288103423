"""A follower's actions: when it may fetch, handling the fetch response, and truncating its log by
OffsetsForLeaderEpoch (KIP-101 and later).

Each action writes every successor it enables into ``out`` (rows) and ``acts`` (action id
and arguments), in a fixed order, and returns the new successor count (``step.py``); the
rules that changed between releases are switches read from ``cfg`` (``model/rules.py``).
"""

from __future__ import annotations

from model.kernel.actions.step import (
    FOLLOWER_HANDLE_FETCH_RESPONSE, FOLLOWER_TRUNCATE, NO_ARG, begin,
)
from model.kernel.fields import (
    append_record, believes_it_leads, broker_count, clear_fetch_response, has_fetch_response,
    high_watermark, is_alive, is_shutting_down, is_truncating, keeps_producer_epochs,
    leader_epoch, leader_of, log_end_offset, response_count, response_producer_epoch_at, response_epoch, response_fetch_offset, response_hw,
    response_leader, response_leo, response_record_epoch, response_record_id,
    set_high_watermark, set_truncating, truncate_to,
)
from model.kernel.guards import G_TRUNCATE_NEEDS_LEADER, skipped
from model.kernel.jit import kernel
from model.kernel.params import MAX_CONTROLLED_SHUTDOWNS, TRACK_READS, TRUNCATE_TO_HW
from model.kernel.transitions import offset_for_truncation, record_reads, trim_flushed, truncation
from model.rules import RULE_FENCED_FETCH


@kernel
def may_fetch(s, lay, cfg, f):
    """Does follower ``f`` fetch from the leader it believes in now? It must run, follow someone,
    be done truncating and have no response on its way. A broker in a controlled shutdown has
    stopped its fetchers: ZooKeeper's controller sends it StopReplica
    (``KafkaController.doControlledShutdown``), KRaft brokers stop them themselves
    (``ReplicaManager.applyLocalFollowersDelta``)."""
    if not is_alive(s, lay, f):
        return False
    lead = leader_of(s, lay, f)
    if lead < 0 or lead == f or is_truncating(s, lay, f) or has_fetch_response(s, lay, f):
        return False
    if cfg[MAX_CONTROLLED_SHUTDOWNS] > 0 and is_shutting_down(s, lay, f):
        return False
    return True


@kernel
def follower_handle_fetch_response(s, lay, cfg, out, acts, k):
    """FollowerHandleFetchResponse(follower): ``ReplicaFetcherThread.processPartitionData``:
    append the records, HW = min(own LEO, leader HW). A response to a fetch made under another
    leader, epoch or log end is dropped. OFFSET_OUT_OF_RANGE: the leader's log is shorter,
    truncate to it (``handleOffsetOutOfRange``)."""
    for f in range(broker_count(lay)):
        if not (is_alive(s, lay, f) and has_fetch_response(s, lay, f)):
            continue
        begin(s, out, acts, k, FOLLOWER_HANDLE_FETCH_RESPONSE, f, NO_ARG)
        t = out[k]
        lead = response_leader(s, lay, f)
        offset = response_fetch_offset(s, lay, f)
        leader_leo = response_leo(s, lay, f)
        if (leader_of(s, lay, f) != lead or leader_epoch(s, lay, f) != response_epoch(s, lay, f)
                or log_end_offset(s, lay, f) != offset or is_truncating(s, lay, f)):
            pass  # stale: dropped
        elif offset > leader_leo:
            truncate_to(t, lay, f, leader_leo)
            set_high_watermark(t, lay, f, min(high_watermark(t, lay, f), log_end_offset(t, lay, f)))
            trim_flushed(t, lay, cfg, f)
        else:
            keeps = keeps_producer_epochs(lay)
            for i in range(response_count(s, lay, f)):
                producer_epoch = response_producer_epoch_at(s, lay, f, i) if keeps else 0
                append_record(t, lay, f, response_record_id(s, lay, f, i),
                              response_record_epoch(s, lay, f, i), producer_epoch)
            set_high_watermark(t, lay, f, min(log_end_offset(t, lay, f), response_hw(s, lay, f)))
        clear_fetch_response(t, lay, f)
        if cfg[TRACK_READS] != 0:
            record_reads(t, lay, cfg)  # a follower's HW moved: with KIP-392 it serves reads
        k += 1
    return k


@kernel
def follower_truncate(s, lay, cfg, out, acts, k):
    """FollowerTruncate(follower): OffsetsForLeaderEpoch to the leader and the truncation, as one
    step (``AbstractFetcherThread.truncateToEpochEndOffsets``, KIP-101 and later; before 0.11 a
    follower truncates to its HW when it becomes follower, so this action does not exist).
    KIP-320: only against a leader that has taken up the follower's epoch."""
    if truncation(cfg) == TRUNCATE_TO_HW:
        return k
    fenced = cfg[RULE_FENCED_FETCH] != 0
    for f in range(broker_count(lay)):
        if not (is_alive(s, lay, f) and is_truncating(s, lay, f)):
            continue
        lead = leader_of(s, lay, f)
        if lead < 0 or (not believes_it_leads(s, lay, lead) and not skipped(cfg, G_TRUNCATE_NEEDS_LEADER)):
            continue  # NOT_LEADER_FOR_PARTITION: retried later
        if fenced and leader_epoch(s, lay, lead) != leader_epoch(s, lay, f):
            continue
        begin(s, out, acts, k, FOLLOWER_TRUNCATE, f, NO_ARG)
        t = out[k]
        truncate_to(t, lay, f, offset_for_truncation(s, lay, cfg, f, lead))
        set_high_watermark(t, lay, f, min(high_watermark(t, lay, f), log_end_offset(t, lay, f)))
        set_truncating(t, lay, f, False)
        trim_flushed(t, lay, cfg, f)
        k += 1
    return k
