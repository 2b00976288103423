"""Action records: the steps of a behaviour, named like the Kafka code paths they model.

An action is ``Action(name, args)``: a name from ``ACTION_PARAMS`` and a tuple of ints, one per
parameter. This table is the single source of truth for action names and parameters, shared by
the explicit model, trace files and the symbolic engine.
"""

from __future__ import annotations

from typing import NamedTuple

from model.errors import ConfigError

ACTION_PARAMS: dict[str, tuple[str, ...]] = {
    # The producer's PRODUCE request, handled by a broker that believes it leads.
    "ProduceRecord": ("leader",),
    # ReplicaManager.fetchMessages on the leader: record the remote LEO, maybe advance the HW.
    "LeaderHandleFetch": ("leader", "follower"),
    # ReplicaFetcherThread.processPartitionData: append, HW = min(LEO, leader HW).
    "FollowerHandleFetchResponse": ("follower",),
    # AbstractFetcherThread.truncateToEpochEndOffsets (OffsetsForLeaderEpoch), KIP-101 and later.
    "FollowerTruncate": ("follower",),
    # Partition.maybeShrinkIsr / maybeExpandIsr, written to the controller with compare-and-set.
    "LeaderShrinkIsr": ("leader", "follower"),
    "LeaderExpandIsr": ("leader", "follower"),
    # ReplicaManager.becomeLeaderOrFollower: a LeaderAndIsr request reaches its broker.
    "BecomeLeaderOrFollower": ("broker", "leader_epoch"),
    # The over-approximation unordered-leader-moves only (no Kafka release): leadership moves to
    # any live ISR member with no failure and no operator action.
    "ControllerElectLeader": ("new_leader",),
    # The controller notices a dead broker (session / heartbeat timeout) and maybe elects.
    "ControllerHandleBrokerFailure": ("broker", "new_leader"),
    "BrokerCrash": ("broker",),
    # The broker starts, recovers its log and registers; the controller sends it LeaderAndIsr.
    "BrokerRestart": ("broker",),
    # The OS writes the page cache to disk (power-loss crash model).
    "FlushLog": ("broker",),
    # ReplicaManager.checkpointHighWatermarks, every replica.high.watermark.checkpoint.interval.ms
    # (--hw-checkpoint interval).
    "CheckpointHighWatermark": ("broker",),
    # KafkaController.doControlledShutdown: leadership moves away, the broker leaves the ISR.
    "ControllerHandleControlledShutdown": ("broker", "new_leader"),
    # The broker that completed its controlled shutdown stops, its log and HW written to disk.
    "BrokerShutdown": ("broker",),
    # The controller loses a running broker (ZooKeeper session expiry, KRaft missed heartbeats)
    # and handles it as failed; the broker keeps running.
    "ControllerFenceBroker": ("broker", "new_leader"),
    # That broker registers again (a new ZooKeeper session) or heartbeats again (KRaft).
    "ControllerUnfenceBroker": ("broker",),
    # KIP-497: the controller handles a leader's AlterPartition (ReplicationControlManager).
    "ControllerHandleAlterPartition": ("leader",),
    # The controller's AlterPartition answer reaches the leader (Partition.handleAlterPartition*).
    "LeaderHandleAlterPartitionResponse": ("leader",),
    # KRaft: a broker applies a PartitionChangeRecord that keeps the leader epoch (an ISR change).
    "BrokerApplyPartitionChange": ("broker",),
    # A follower's fetch is held up in flight while the follower moves on (--max-delayed-fetches).
    "FetchDelayed": ("follower",),
    # The leader handles that fetch later, on evidence that may be stale.
    "LeaderHandleDelayedFetch": ("follower",),
    # ZooKeeper mode: another broker becomes controller; the old one is a zombie for a while.
    "ControllerFailover": (),
    # The zombie controller sends its stale view of the partition to a broker.
    "ZombieControllerSendLeaderAndIsr": ("broker",),
    # That LeaderAndIsr reaches the broker (refused with STALE_CONTROLLER_EPOCH, or applied).
    "BrokerHandleZombieLeaderAndIsr": ("broker",),
    # The producer sends a record again (Sender.canRetry / RecordAccumulator.reenqueue) after an
    # error or a request timeout, to a broker that believes it leads (--retries).
    "ProducerRetry": ("record", "leader"),
    # The consumer fetches the record at its position from the true leader, below its HW
    # (KafkaConsumer.poll; --consumer-commit).
    "ConsumerFetch": ("offset",),
    # The consumer's application processes the record it fetched.
    "ConsumerProcess": ("offset",),
    # The consumer commits its position (commitSync, or auto-commit: enable.auto.commit).
    "ConsumerCommit": ("offset",),
    # The consumer crashes and a new one resumes from the committed offset
    # (--max-consumer-restarts).
    "ConsumerRestart": (),
    # A preferred-replica election (ElectLeaders PREFERRED, auto.leader.rebalance.enable): to
    # the first replica of the assignment, if it is live and in the ISR.
    "ControllerPreferredElection": ("new_leader",),
    # AlterPartitionReassignments to the same replicas in another order (the ordering's index).
    "ControllerReassignReplicas": ("first", "ordering"),
    # KRaft 3.3+: the leader handles a follower's fetch while its own metadata cache still shows
    # the follower unfenced and not shutting down, and asks the controller to add it
    # (Partition.isReplicaIsrEligible on a lagging KRaftMetadataCache; --max-stale-metadata-reads).
    "LeaderHandleFetchOnStaleMetadata": ("leader", "follower"),
    # Partition.maybeShrinkIsr removing several out-of-sync followers in one AlterPartition
    # (``followers``: their bitmask); only where one follower per step is not exact (KIP-966's
    # ELR: rule isr-shrink-out-of-sync-set).
    "LeaderShrinkIsrSet": ("leader", "followers"),
    # The idempotent producer gives up a record whose request was answered with an error it does
    # not retry (non-retriable with retries left, OUT_OF_ORDER_SEQUENCE_NUMBER after expiry) and
    # bumps its epoch (KIP-360, 2.5+; TransactionManager.handleFailedBatch ->
    # bumpIdempotentProducerEpoch; --max-producer-epoch-bumps).
    "ProducerBumpEpoch": ("record",),
}

ACTION_NAMES: tuple[str, ...] = tuple(ACTION_PARAMS)
"""Action names in a fixed order: the compiled kernel identifies an action by its index here."""

ACTION_IDS: dict[str, int] = {name: i for i, name in enumerate(ACTION_NAMES)}


class Action(NamedTuple):
    """One step: an action name and its integer arguments (see ``ACTION_PARAMS``)."""

    name: str
    args: tuple

    def params(self) -> dict:
        """The arguments by parameter name."""
        return dict(zip(ACTION_PARAMS[self.name], self.args))

    def __str__(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.params().items())
        return f"{self.name}({inner})"

    def to_json(self) -> dict:
        return {"name": self.name, **self.params()}

    @classmethod
    def from_json(cls, data: dict) -> "Action":
        name = data.get("name")
        if name not in ACTION_PARAMS:
            raise ConfigError(f"unknown action {name!r} in trace")
        try:
            return cls(name, tuple(int(data[p]) for p in ACTION_PARAMS[name]))
        except (KeyError, TypeError, ValueError):
            raise ConfigError(
                f"action {name} needs integer parameters {', '.join(ACTION_PARAMS[name])}"
            ) from None
