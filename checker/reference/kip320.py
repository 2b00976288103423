"""``kip-320``: Kafka 2.1 and later, epochs fence everything.

On top of KIP-279:

* a follower's fetch and OffsetsForLeaderEpoch carry its current leader epoch, and the leader
  serves them only in that same epoch (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH otherwise);
* a follower restarts truncation on every new epoch, not only on a new leader
  (``Partition.makeFollower``);
* (kmc 0.1 only, with the rule ``reset-followers-on-epoch``) a leader forgets remote LEOs learnt
  in an older epoch, so its HW advances only once every ISR member has fetched in its current
  epoch; Kafka forgets them only when a broker is newly leader, as every variant does;
* a new leader's epoch cache holds its epoch from the start (KAFKA-7415), so OffsetsForLeaderEpoch
  answers for an epoch it has not written in yet;
* a follower rejoins the ISR only once its LEO has reached both the HW and the start offset of the
  leader's current epoch (``Partition.isFollowerInSync``, KAFKA-7128), so committed data of an
  earlier epoch cannot be lost through a lagging HW.
"""

from __future__ import annotations

from model.state import ReplicaState
from checker.reference.kip279 import Kip279Model


def leader_epoch_start_offset(leader: ReplicaState) -> int:
    """The offset the leader's current epoch started at (its LEO when it took the epoch)."""
    for offset, (_, epoch) in enumerate(leader.log):
        if epoch == leader.leader_epoch:
            return offset
    return len(leader.log)


class Kip320Model(Kip279Model):
    name = "kip-320"

    fetch_fenced = True
    leader_cache_has_current_epoch = True  # KAFKA-7415, Kafka 2.1
    truncate_on_every_epoch = True

    def is_caught_up_for_isr(self, leader: ReplicaState, follower_leo: int) -> bool:
        return follower_leo >= leader.high_watermark and follower_leo >= leader_epoch_start_offset(
            leader
        )
