"""Kafka's sentinel values and enumerations, under Kafka's names."""

from __future__ import annotations

NO_LEADER = -1
"""``LeaderAndIsr.NoLeader``: the partition is offline."""

UNDEFINED_EPOCH = -1
"""``RecordBatch.NO_PARTITION_LEADER_EPOCH`` / ``UNDEFINED_EPOCH``."""

UNDEFINED_EPOCH_OFFSET = -1
"""``UNDEFINED_EPOCH_OFFSET``: OffsetsForLeaderEpoch found no answer."""

UNKNOWN_OFFSET = -1
"""A remote LEO the leader has not learned yet (``LogOffsetMetadata.UnknownOffsetMetadata``)."""

ACKS_CHOICES = ("0", "1", "all")
CRASH_MODELS = ("process", "power-loss", "disk-loss")
HW_CHECKPOINT_MODES = ("immediate", "interval")

# AlterPartition (KIP-497) states of a leader's pending ISR change (``ReplicaState.alter_partition``)
ALTER_SENT, ALTER_ACCEPTED, ALTER_REFUSED, ALTER_STUCK = 1, 2, 3, 4
