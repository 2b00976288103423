"""``kip-101``: Kafka 0.11, truncation by leader epoch.

A new follower asks the leader ``OffsetsForLeaderEpoch(its latest epoch)``; the leader answers
the end offset of that epoch in its own log (the start offset of the next higher epoch, or its LEO
if the epoch is its latest: ``LeaderEpochFileCache.endOffsetFor`` in 0.11); the follower truncates
to ``min(answer, own LEO)``, or to its HW when the answer is undefined. It no longer throws away
committed records on restart, but when leadership moves before LeaderAndIsr is applied the
answer can point past a divergence and the logs stay different (KIP-279's scenario).
"""

from __future__ import annotations

from model.constants import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from checker.reference.log import end_offset_for_epoch_v0_11, latest_epoch
from model.state import ReplicaState
from checker.reference.base import ReplicationModel


class Kip101Model(ReplicationModel):
    name = "kip-101"

    def truncate_on_become_follower(self, replica: ReplicaState) -> ReplicaState:
        # the fetcher starts in the "truncating" state; an empty log has nothing to truncate
        return replica._replace(truncating=bool(replica.log))

    leader_cache_has_current_epoch = False
    """Before Kafka 2.1 (KAFKA-7415) a new leader's epoch cache got an entry for its epoch only
    when it appended a record in it; ``Partition.makeLeader`` assigns it up front since."""

    def leader_cache_epoch(self, leader: ReplicaState) -> int:
        """The current-epoch entry of the leader's cache, if this Kafka version has one."""
        return leader.leader_epoch if self.leader_cache_has_current_epoch else UNDEFINED_EPOCH

    def truncation_offset(self, follower: ReplicaState, leader: ReplicaState) -> int:
        answer = end_offset_for_epoch_v0_11(
            leader.log, latest_epoch(follower.log), self.leader_cache_epoch(leader)
        )
        if answer == UNDEFINED_EPOCH_OFFSET:
            return follower.high_watermark  # the 0.11 fallback
        return min(answer, len(follower.log))
