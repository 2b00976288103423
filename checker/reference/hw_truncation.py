"""``hw-truncation``: Kafka before 0.11.

A broker that becomes follower of a new leader truncates its log to its own high watermark
(``ReplicaManager.makeFollowers`` -> ``logManager.truncateTo(highWatermark)``) and starts
fetching. Because a follower's HW lags the leader's by one fetch round, a follower that restarts
can throw away a committed record; if it is then elected, the record is gone (KIP-101,
scenario 1). With power-loss crashes the logs can also diverge (KIP-101, scenario 2).
"""

from __future__ import annotations

from checker.reference.log import truncate_to
from model.state import ReplicaState
from checker.reference.base import ReplicationModel


class HwTruncationModel(ReplicationModel):
    name = "hw-truncation"

    def truncate_on_become_follower(self, replica: ReplicaState) -> ReplicaState:
        log = truncate_to(replica.log, replica.high_watermark)
        return replica._replace(log=log, truncating=False)

    follower_truncate = None  # no OffsetsForLeaderEpoch before 0.11
