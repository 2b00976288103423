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

from model.state import ClusterState, ReplicaState
from checker.reference.base import _put
from checker.reference.kip279 import Kip279Model


def first_offset_of_epoch(replica: ReplicaState, epoch: int) -> int:
    """The replica's first record of ``epoch``, or its LEO if it has none."""
    for offset, (_, record_epoch) in enumerate(replica.log):
        if record_epoch == epoch:
            return offset
    return len(replica.log)


def leader_epoch_start_offset(leader: ReplicaState) -> int:
    """The offset the leader's current epoch started at: its LEO when it took the epoch up
    (``Partition.makeLeader``, 2.1.0). That is its first record of the epoch (or its LEO while
    it has none) unless it had records of the epoch already: a restart into its own epoch,
    where ``_make_leader`` keeps the LEO in ``epoch_start_offset``."""
    if leader.epoch_start_offset >= 0:
        return leader.epoch_start_offset
    return first_offset_of_epoch(leader, leader.leader_epoch)


class Kip320Model(Kip279Model):
    name = "kip-320"

    fetch_fenced = True
    leader_cache_has_current_epoch = True  # KAFKA-7415, Kafka 2.1
    truncate_on_every_epoch = True

    def _make_leader(self, s: ClusterState, b: int, epoch: int, isr: tuple) -> ClusterState:
        r = s.replicas[b]
        start = len(r.log) if first_offset_of_epoch(r, epoch) < len(r.log) else -1
        s = s._replace(replicas=_put(s.replicas, b, r._replace(epoch_start_offset=start)))
        return super()._make_leader(s, b, epoch, isr)

    def _make_follower(self, s: ClusterState, b: int, epoch: int, leader: int) -> ClusterState:
        r = s.replicas[b]
        s = s._replace(replicas=_put(s.replicas, b, r._replace(epoch_start_offset=-1)))
        return super()._make_follower(s, b, epoch, leader)

    def is_caught_up_for_isr(self, leader: ReplicaState, follower_leo: int) -> bool:
        return follower_leo >= leader.high_watermark and follower_leo >= leader_epoch_start_offset(
            leader
        )
