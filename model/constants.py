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
CRASH_MODEL_MEANING = {
    "process": "a crash keeps every write, flushed or not: the OS page cache survives kill -9 or "
               "a JVM crash",
    "power-loss": "a crash loses the records not yet fsynced: Kafka's default flush leaves them to "
                  "the OS, flush.messages=1 fsyncs every write",
    "disk-loss": "a crash may lose the whole log: the disk is replaced",
}
"""Each crash model in one phrase, in Kafka's terms (docs/model.md, "The environment")."""
HW_CHECKPOINT_MODES = ("immediate", "interval")

# AlterPartition (KIP-497) states of a leader's pending ISR change (``ReplicaState.alter_partition``)
ALTER_SENT, ALTER_ACCEPTED, ALTER_REFUSED, ALTER_STUCK = 1, 2, 3, 4
