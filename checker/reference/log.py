"""A replica's log, as pure functions on tuples.

A log is a tuple of records; a record is ``(record_id, leader_epoch)``: the producer's record and
the leader epoch in which a leader appended it (Kafka stores the epoch in every record batch since
message format v2, KIP-101). Offsets are positions in the tuple, counted from 0, so the
**log end offset** (LEO) is ``len(log)``: the offset the next record will be written at.

The leader epoch cache (``LeaderEpochFileCache``) is not stored: it is derived from the records,
``epoch_entries(log)`` giving the ``EpochEntry(epoch, start_offset)`` list Kafka keeps on disk. A
leader additionally holds an entry for its own current epoch starting at its LEO from the moment
it becomes leader (``UnifiedLog.maybeAssignEpochStartOffset`` in ``Partition.makeLeader``), which
``end_offset_for_epoch`` takes as ``current_leader_epoch``.
"""

from __future__ import annotations

from typing import NamedTuple

from model.constants import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET

Record = tuple  # (record_id, leader_epoch)
Log = tuple  # tuple[Record, ...]


class EpochEntry(NamedTuple):
    """One entry of the leader epoch cache: ``epoch`` started at ``start_offset``."""

    epoch: int
    start_offset: int


def log_end_offset(log: Log) -> int:
    """LEO: the offset of the next record to be written (the log's length)."""
    return len(log)


def truncate_to(log: Log, target_offset: int) -> Log:
    """``UnifiedLog.truncateTo``: keep the records at offsets ``< target_offset``."""
    if target_offset >= len(log):
        return log
    return log[: max(target_offset, 0)]


def record_ids(log: Log) -> tuple:
    """The record ids of a log, offset by offset."""
    return tuple(record_id for record_id, _ in log)


def latest_epoch(log: Log) -> int:
    """The epoch of the last record (``LeaderEpochFileCache.latestEpoch`` for a follower)."""
    return log[-1][1] if log else UNDEFINED_EPOCH


def epoch_entries(log: Log, current_leader_epoch: int = UNDEFINED_EPOCH) -> tuple:
    """The leader epoch cache derived from the log: one ``EpochEntry`` per epoch, in order.

    ``current_leader_epoch`` adds the entry a leader assigns when it takes up its epoch (at its
    LEO), if its log holds no record of that epoch yet.
    """
    entries = []
    last = UNDEFINED_EPOCH
    for offset, (_, epoch) in enumerate(log):
        if epoch != last:
            entries.append(EpochEntry(epoch, offset))
            last = epoch
    if current_leader_epoch > last:
        entries.append(EpochEntry(current_leader_epoch, len(log)))
    return tuple(entries)


def end_offset_for_epoch(
    log: Log, requested_epoch: int, current_leader_epoch: int = UNDEFINED_EPOCH
) -> tuple[int, int]:
    """``LeaderEpochFileCache.endOffsetFor`` as of Kafka 2.0 (KIP-279): ``(epoch, end_offset)``.

    The answer is the largest epoch the leader knows that is ``<= requested_epoch`` and the end
    offset of that epoch (the start offset of the next higher epoch, or the LEO if the requested
    epoch is the latest). A requested epoch below every known epoch gets ``(requested_epoch,
    start of the first epoch)``; an undefined or a too-new epoch gets ``UNDEFINED``.
    """
    entries = epoch_entries(log, current_leader_epoch)
    if requested_epoch == UNDEFINED_EPOCH or not entries:
        return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
    if entries[-1].epoch == requested_epoch:
        return requested_epoch, len(log)
    previous = [e for e in entries if e.epoch <= requested_epoch]
    subsequent = [e for e in entries if e.epoch > requested_epoch]
    if not subsequent:
        return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
    if not previous:
        return requested_epoch, subsequent[0].start_offset
    return previous[-1].epoch, subsequent[0].start_offset


def end_offset_for_epoch_v0_11(
    log: Log, requested_epoch: int, current_leader_epoch: int = UNDEFINED_EPOCH
) -> int:
    """``LeaderEpochFileCache.endOffsetFor`` as of Kafka 0.11 (KIP-101): an offset only.

    The LEO if ``requested_epoch`` is the latest epoch, else the start offset of the first epoch
    above it; ``UNDEFINED_EPOCH_OFFSET`` if there is none or the requested epoch is older than
    every known epoch (the follower then falls back to its high watermark).
    """
    entries = epoch_entries(log, current_leader_epoch)
    if requested_epoch == UNDEFINED_EPOCH or not entries:
        return UNDEFINED_EPOCH_OFFSET
    if entries[-1].epoch == requested_epoch:
        return len(log)
    subsequent = [e for e in entries if e.epoch > requested_epoch]
    if not subsequent or requested_epoch < entries[0].epoch:
        return UNDEFINED_EPOCH_OFFSET
    return subsequent[0].start_offset
