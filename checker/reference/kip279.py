"""``kip-279``: Kafka 2.0, OffsetsForLeaderEpoch returns the epoch too.

The leader answers ``(largest epoch <= requested, its end offset)``. If the follower does not have
that epoch it truncates to the end of the largest epoch it has below it and asks again, until both
agree on an epoch; then it truncates to where their logs stop agreeing (``OffsetTruncationState``
with ``truncationCompleted = false`` loops, ``AbstractFetcherThread`` 2.0). The loop is one step
here. Fetches are still not fenced by epoch, so a follower can truncate against, or be counted by,
a leader in another epoch (found by Jason Gustafson's TLA+ spec; the reason for KIP-320).
"""

from __future__ import annotations

from model.constants import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from checker.reference.log import end_offset_for_epoch, latest_epoch, truncate_to
from model.state import ReplicaState
from checker.reference.kip101 import Kip101Model


class Kip279Model(Kip101Model):
    name = "kip-279"

    def truncation_offset(self, follower: ReplicaState, leader: ReplicaState) -> int:
        log = follower.log
        for _ in range(len(log) + 2):  # each round truncates, so this always ends
            requested = latest_epoch(log)
            leader_epoch, leader_end = end_offset_for_epoch(leader.log, requested, self.leader_cache_epoch(leader))
            if leader_end == UNDEFINED_EPOCH_OFFSET:
                return min(follower.high_watermark, len(log))
            if leader_epoch == UNDEFINED_EPOCH:
                return min(leader_end, len(log))
            follower_epoch, follower_end = end_offset_for_epoch(log, leader_epoch)
            if follower_end == UNDEFINED_EPOCH_OFFSET:
                return min(leader_end, len(log))
            if follower_epoch != leader_epoch:
                log = truncate_to(log, min(follower_end, len(log)))
                continue
            return min(leader_end, follower_end, len(log))
        return len(log)
