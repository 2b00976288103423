"""The leader epoch cache (``LeaderEpochFileCache``), derived from a log's records.

Kafka keeps ``EpochEntry(epoch, startOffset)`` entries on disk; here they are read off the
records' epochs (one entry where the epoch changes), plus, on a leader that assigns its epoch
up front (KAFKA-7415, Kafka 2.1), an entry for its current epoch at its LEO. Only a prefix of
``length`` records is read, so the KIP-279 loop can truncate a follower's log in thought
without touching the row. ``checker/reference/log.py`` (the oracle) has the same functions over readable logs, tested
against ``LeaderEpochFileCache.endOffsetFor``'s cases.
"""

from __future__ import annotations

from model.kernel.jit import kernel
from model.kernel.params import EPOCH_START_OFFSET

from model.kernel.fields import (
    UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, epoch_start_offset, high_watermark, latest_epoch,
    leader_epoch, log_end_offset, record_epoch_at,
)


@kernel
def _scan(s, lay, b, length, requested, current_leader_epoch):
    """One pass over the cache's entries: (entries, first epoch, last epoch, whether an entry
    with epoch <= requested exists and the last such epoch, the start offset of the first entry
    with epoch > requested or -1)."""
    entries = 0
    first = UNDEFINED_EPOCH
    last = UNDEFINED_EPOCH
    has_previous = False
    previous = UNDEFINED_EPOCH
    subsequent_start = -1
    for offset in range(length):
        epoch = record_epoch_at(s, lay, b, offset)
        if epoch != last:
            if entries == 0:
                first = epoch
            entries += 1
            last = epoch
            if epoch <= requested:
                has_previous = True
                previous = epoch
            elif subsequent_start < 0:
                subsequent_start = offset
    if current_leader_epoch > last:  # the entry a leader assigns when it takes up its epoch
        if entries == 0:
            first = current_leader_epoch
        entries += 1
        last = current_leader_epoch
        if current_leader_epoch <= requested:
            has_previous = True
            previous = current_leader_epoch
        elif subsequent_start < 0:
            subsequent_start = length
    return entries, first, last, has_previous, previous, subsequent_start


@kernel
def end_offset_for_epoch(s, lay, b, length, requested, current_leader_epoch):
    """``LeaderEpochFileCache.endOffsetFor`` as of Kafka 2.0 (KIP-279): ``(epoch, end offset)``,
    the largest epoch <= ``requested`` and where it ends; UNDEFINED for an undefined or too-new
    epoch; ``(requested, start of the first epoch)`` for one older than every entry."""
    entries, first, last, has_previous, previous, subsequent_start = _scan(
        s, lay, b, length, requested, current_leader_epoch)
    if requested == UNDEFINED_EPOCH or entries == 0:
        return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
    if last == requested:
        return requested, length
    if subsequent_start < 0:
        return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
    if not has_previous:
        return requested, subsequent_start
    return previous, subsequent_start


@kernel
def end_offset_for_epoch_v0_11(s, lay, b, length, requested, current_leader_epoch):
    """``LeaderEpochFileCache.endOffsetFor`` as of Kafka 0.11 (KIP-101): an offset only; the LEO
    for the latest epoch, else the start of the first epoch above it; UNDEFINED when there is
    none or the epoch is older than every entry (the follower then falls back to its HW)."""
    entries, first, last, has_previous, previous, subsequent_start = _scan(
        s, lay, b, length, requested, current_leader_epoch)
    if requested == UNDEFINED_EPOCH or entries == 0:
        return UNDEFINED_EPOCH_OFFSET
    if last == requested:
        return length
    if subsequent_start < 0 or requested < first:
        return UNDEFINED_EPOCH_OFFSET
    return subsequent_start


@kernel
def first_offset_of_epoch(s, lay, b, epoch):
    """``b``'s first record of ``epoch``, or its LEO if it has none."""
    leo = log_end_offset(s, lay, b)
    for offset in range(leo):
        if record_epoch_at(s, lay, b, offset) == epoch:
            return offset
    return leo


@kernel
def leader_epoch_start_offset(s, lay, cfg, leader):
    """The offset the leader's current epoch started at, ``Partition.leaderEpochStartOffsetOpt``:
    ``makeLeader`` records the LEO when the broker takes up the epoch (Partition.scala lines
    380-386 at 2.1.0; from 3.3.0 only for an epoch newer than the ``Partition`` object knew,
    which on a restarted broker's fresh object every epoch is). A leader appends only in its
    own epoch, so that LEO is its first record of the epoch, or its LEO while it has none,
    except where it already had records of the epoch when it took it up: a broker restarting
    into its own epoch, which ``make_leader`` stores in the ``epoch_start_offset`` slot. The slot
    is there (``spec.ENVIRONMENT``) with rule ``isr-join-needs-epoch-start``, the only rule that
    reads the offset, and where such a restart can happen: without KIP-380 (a restart the
    controller did not notice) or with controller failovers (a zombie controller's request)."""
    if cfg[EPOCH_START_OFFSET] != 0 and epoch_start_offset(s, lay, leader) >= 0:
        return epoch_start_offset(s, lay, leader)
    return first_offset_of_epoch(s, lay, leader, leader_epoch(s, lay, leader))


@kernel
def offset_for_truncation_0_11(s, lay, follower, leader, cache_epoch):
    """KIP-101 (0.11 - 1.1): OffsetsForLeaderEpoch(the follower's latest epoch); truncate to
    min(answer, own LEO), or to its own HW when the answer is undefined (the 0.11 fallback)."""
    leo = log_end_offset(s, lay, follower)
    answer = end_offset_for_epoch_v0_11(
        s, lay, leader, log_end_offset(s, lay, leader), latest_epoch(s, lay, follower, leo), cache_epoch)
    if answer == UNDEFINED_EPOCH_OFFSET:
        return high_watermark(s, lay, follower)
    return min(answer, leo)


@kernel
def offset_for_truncation_loop(s, lay, follower, leader, cache_epoch):
    """KIP-279 (2.0 and later): the leader answers (largest epoch <= asked, its end offset); a
    follower without that epoch truncates to the end of its largest epoch below it and asks
    again, until both agree; then it truncates to where their logs stop agreeing
    (``AbstractFetcherThread``'s ``OffsetTruncationState`` loop, one step here)."""
    length = log_end_offset(s, lay, follower)
    leader_leo = log_end_offset(s, lay, leader)
    for _ in range(length + 2):  # every round truncates, so this ends
        requested = latest_epoch(s, lay, follower, length)
        le, lend = end_offset_for_epoch(s, lay, leader, leader_leo, requested, cache_epoch)
        if lend == UNDEFINED_EPOCH_OFFSET:
            return min(high_watermark(s, lay, follower), length)
        if le == UNDEFINED_EPOCH:
            return min(lend, length)
        fe, fend = end_offset_for_epoch(s, lay, follower, length, le, UNDEFINED_EPOCH)
        if fend == UNDEFINED_EPOCH_OFFSET:
            return min(lend, length)
        if fe != le:
            length = min(fend, length)
            continue
        return min(lend, fend, length)
    return length
