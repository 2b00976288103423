"""Stories: a few steps of the model that Kafka's code fixes, for the rule-mutation check.

A known-results row judges a property over a whole state space. Some rules and guards change
what one step does and no property of states tells the difference: an ISR shrink that keeps the
leader epoch (KAFKA-15021) leaves a state as safe as one that bumps it; a produce refused with
NOT_ENOUGH_REPLICAS is refused again by the acknowledgement that needs the ISR anyway. A
*story* pins such a step: named actions replayed from the initial state of one configuration,
and what the state after them must be (or which action must not be enabled), each with the
Kafka code it rests on, read at a release tag.

The mutation check (``gate/mutation.py``) tells a story on a mutant (a rule flipped in the
story's configuration, or a guard skipped while its model is built). The mutant is *killed*
when the story is told differently: an expectation fails, or a step is no longer enabled.
``tests/gate/test_mutation.py`` checks that each story holds on the model as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from model import Action, make_model
from model.config import Bounds, ModelConfig
from model.constants import ALTER_STUCK
from model.errors import KmcError


@dataclass(frozen=True)
class Story:
    """``steps`` (action name, args) from the initial state of ``config``, then ``expect(model,
    states)``: "" when the last state is what Kafka's code (``source``) says, else what differs.
    ``states`` are the initial state and the state after each step."""

    name: str
    source: str
    config: ModelConfig
    steps: tuple
    expect: Callable
    words: tuple = ()  # the rules and guards it is about (tried first against them)


STORIES: dict[str, Story] = {}


def story(name: str, *, source: str, config: ModelConfig, steps, expect, words=()) -> Story:
    if name in STORIES:
        raise ValueError(f"story {name!r} is defined twice")
    STORIES[name] = Story(name, source, config, tuple(steps), expect, tuple(words))
    return STORIES[name]


def tell(s: Story, config: ModelConfig | None = None) -> str:
    """Replay ``s`` on ``config`` (default: its own): "" when it goes as Kafka's code says,
    else the first difference. Build the model inside ``mutated_guards`` to tell it on a guard
    mutant."""
    model = make_model(config or s.config)
    states = [model.init_states()[0]]
    for i, (name, args) in enumerate(s.steps, 1):
        act = Action(name, tuple(args))
        nxt = model.next_state(states[-1], act)
        if nxt is None:
            return f"step {i}, {act}, is not enabled"
        states.append(nxt)
    return s.expect(model, states)


def _enabled(model, state) -> set:
    return {str(a) for a, _ in model.successors(state)}


def _kafka(version, **bounds) -> ModelConfig:
    base = dict(max_records=1, max_leader_epoch=2, max_crashes=0)
    base.update(bounds)
    return ModelConfig(kafka_version=version, replication_factor=2, symmetry=False,
                       bounds=Bounds(**base))


# ------------------------------------------------------------------------------ the stories

def _shrink_keeps_epoch(model, states) -> str:
    c = states[-1].controller
    if c.isr != (0,):
        return f"the controller's ISR is {c.isr}, not (0,)"
    if c.leader_epoch != 0:
        return f"the ISR shrink moved the leader epoch to {c.leader_epoch}; 3.6 keeps it at 0"
    return ""


story(
    "KAFKA-15021 (3.6): a fenced follower leaves the ISR in the same leader epoch",
    source="PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded at 3.6.0: the leader epoch is "
           "set (bumped) on an ISR shrink only if metadataVersion."
           "isLeaderEpochBumpRequiredOnIsrShrink() (before 3.6-IV0) or ZK migration",
    config=_kafka("3.6", max_session_expiries=1),
    steps=[("ControllerFenceBroker", (1, 0))],
    expect=_shrink_keeps_epoch,
    words=("isr-shrink-keeps-leader-epoch",))


def _produce_refused(model, states) -> str:
    if "ProduceRecord(leader=0)" in _enabled(model, states[-1]):
        return ("with acks=all the leader takes a write while its ISR (0,) is smaller than "
                "min.insync.replicas=2")
    return ""


story(
    "NOT_ENOUGH_REPLICAS (2.4): acks=all is refused while the ISR is below min.insync.replicas",
    source="Partition.appendRecordsToLeader at 2.4.0: inSyncSize < minIsr with "
           "requiredAcks == -1 throws NotEnoughReplicasException before the append",
    config=ModelConfig(kafka_version="2.4", replication_factor=2, symmetry=False, acks="all",
                       min_insync_replicas=2, bounds=Bounds(max_records=2, max_leader_epoch=2,
                                                            max_crashes=0)),
    steps=[("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1))],
    expect=_produce_refused,
    words=("produce-needs-min-isr",))


def _alter_fenced(model, states) -> str:
    leader = states[-1].replicas[0]
    if not leader.alter_partition or leader.alter_partition[0] != ALTER_STUCK:
        return (f"the controller answered an AlterIsr from leader epoch 0 after moving to epoch "
                f"{states[-1].controller.leader_epoch}: alter state {leader.alter_partition}, "
                f"not FENCED_LEADER_EPOCH (stuck)")
    return ""


story(
    "FENCED_LEADER_EPOCH (2.8, ZooKeeper): an AlterIsr from an older leader epoch is refused, "
    "even one asking for the ISR the controller already has",
    source="KafkaController.processAlterIsr at 2.8.0: newLeaderAndIsr.leaderEpoch < "
           "currentLeaderAndIsr.leaderEpoch answers FENCED_LEADER_EPOCH, checked before "
           "equalsIgnoreZk (which answers success without a write)",
    config=_kafka("2.8", max_session_expiries=1),
    steps=[("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1)),
           ("ControllerFenceBroker", (1, 0)), ("ControllerHandleAlterPartition", (0,))],
    expect=_alter_fenced,
    words=("alter-needs-current-leader",))


# Kafka 2.0 (KIP-101/KIP-279 truncation, before KIP-320's fencing): the leader of broker 0 moves
# to broker 1 by a controlled shutdown, and broker 0 applies its LeaderAndIsr before broker 1.
_HANDOVER = ModelConfig(kafka_version="2.0", replication_factor=2, symmetry=False,
                        bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=0,
                                      max_controlled_shutdowns=1, max_delayed_fetches=1))
_R1_COPIED = [("ProduceRecord", (0,)), ("LeaderHandleFetch", (0, 1)),
              ("FollowerHandleFetchResponse", (1,))]
_HANDED_OVER = [("ControllerHandleControlledShutdown", (0, 1)), ("BecomeLeaderOrFollower", (0, 1))]


def _truncation_waits(model, states) -> str:
    if "FollowerTruncate(follower=0)" in _enabled(model, states[-1]):
        return ("broker 0 truncates against broker 1's log before broker 1 has taken up "
                "leadership (it would answer NOT_LEADER_FOR_PARTITION)")
    return ""


story(
    "NOT_LEADER_FOR_PARTITION (2.0): a follower cannot truncate against a broker that does not "
    "lead yet",
    source="Partition.lastOffsetForLeaderEpoch at 2.0.0: without a local leader replica "
           "(leaderReplicaIfLocal None) the OffsetsForLeaderEpoch answer is "
           "NOT_LEADER_FOR_PARTITION with UNDEFINED_EPOCH_OFFSET; the fetcher retries",
    config=_HANDOVER,
    steps=_R1_COPIED + _HANDED_OVER,
    expect=_truncation_waits,
    words=("truncate-needs-leader",))


def _delayed_fetch_refused(model, states) -> str:
    before = states[-2].replicas[0]
    after = states[-1].replicas[0]
    if after != before:
        return (f"broker 0, no longer the leader, took broker 1's delayed fetch: HW "
                f"{before.high_watermark} -> {after.high_watermark}, remote LEOs "
                f"{before.remote_log_end_offsets} -> {after.remote_log_end_offsets}")
    return ""


story(
    "NOT_LEADER_FOR_PARTITION (2.0): a delayed fetch that reaches a broker no longer leading "
    "changes nothing there",
    source="ReplicaManager.readFromLocalLog at 2.0.0: getLeaderReplicaIfLocal throws "
           "NotLeaderForPartitionException, answered as a LogReadResult with "
           "UnknownOffsetMetadata; Partition.maybeExpandIsr and maybeIncrementLeaderHW act only "
           "with a local leader replica",
    config=_HANDOVER,
    steps=_R1_COPIED + [("FetchDelayed", (1,))] + _HANDED_OVER + [("LeaderHandleDelayedFetch", (1,))],
    expect=_delayed_fetch_refused,
    words=("delayed-fetch-needs-leader",))



def _both_in_elr(model, states) -> str:
    c = states[-1].controller
    elr = tuple(sorted(getattr(states[-1], "elr", ()) or ()))
    if tuple(sorted(c.isr)) != (0,) or elr != (1, 2):
        return (f"one AlterPartition removing brokers 1 and 2 gave ISR {tuple(sorted(c.isr))} and "
                f"ELR {elr}; Kafka's controller writes ISR (0,) and ELR (1, 2)")
    return ""


story(
    "KIP-966 (4.1): one AlterPartition takes two lagging followers out of the ISR, below "
    "min.insync.replicas, and both join the ELR",
    source="Partition.maybeShrinkIsr at 4.1.2 (isr -- getOutOfSyncReplicas, one "
           "prepareIsrShrink); PartitionChangeBuilder.maybePopulateTargetElr at 4.1.2 (the old "
           "ISR and ELR minus the target ISR when the target is below min ISR)",
    config=ModelConfig(kafka_version="4.1", replication_factor=3, symmetry=False, acks="all",
                       min_insync_replicas=2, bounds=Bounds(max_records=1, max_leader_epoch=1,
                                                            max_crashes=0)),
    steps=[("ProduceRecord", (0,)), ("LeaderShrinkIsrSet", (0, 0b110)),
           ("ControllerHandleAlterPartition", (0,))],
    expect=_both_in_elr,
    words=("isr-shrink-out-of-sync-set",))

def _fenced_last_known_leader_waits(model, states) -> str:
    c = states[-1].controller
    if c.leader != -1:
        return (f"broker 1's unclean-shutdown record emptied the ELR and elected broker {c.leader}, "
                f"the last known leader, though it is down and fenced (live {c.live_brokers})")
    return ""


story(
    "KAFKA-19522 (4.1): the record that empties the ELR does not elect a fenced last known leader",
    source="PartitionChangeBuilder.canElectLastKnownLeader at 4.1.0 (kafka-metadata "
           "4.1.0-sources.jar): the last known leader must pass isAcceptableLeader, which "
           "ReplicationControlManager.generateLeaderAndIsrUpdates builds from "
           "ClusterControlManager.isActive (not fenced); 4.0.2's bytecode skips the test",
    config=_kafka("4.1", max_leader_epoch=3, max_crashes=3),
    steps=[("BrokerCrash", (1,)), ("ControllerHandleBrokerFailure", (1, 0)),
           ("BrokerCrash", (0,)), ("ControllerHandleBrokerFailure", (0, -1)),
           ("BrokerRestart", (0,)), ("BrokerCrash", (0,)),
           ("ControllerHandleBrokerFailure", (0, -1)), ("BrokerRestart", (1,))],
    expect=_fenced_last_known_leader_waits,
    words=("last-known-leader-check",))


def _hw_waits_for_rejoining_follower(model, states) -> str:
    leader = states[-1].replicas[0]
    if leader.isr != (0,) or len(leader.log) != 1:
        return f"the leader has ISR {leader.isr} and {len(leader.log)} records, not (0,) and 1"
    if leader.high_watermark != 0:
        return (f"the HW moved to {leader.high_watermark} past broker 1, which fetched up to the "
                f"leader's log end in this leader epoch and may join the ISR")
    return ""


story(
    "KAFKA-4485 (timed, 3.6): the HW waits for a caught-up follower outside the ISR",
    source="Partition.maybeIncrementLeaderHW at 3.6.0: a remote replica outside the maximal ISR "
           "counts if shouldWaitForReplicaToJoinIsr (Replica.isCaughtUp: its last fetch reached "
           "the leader's LEO within replica.lag.time.max.ms; isReplicaIsrEligible); "
           "Partition.makeLeader resets replica state only on a new leader epoch, which a KRaft "
           "3.6 ISR shrink keeps",
    config=ModelConfig(kafka_version="3.6", replication_factor=2, symmetry=False,
                       min_insync_replicas=1, rule_changes=("+timed",),
                       bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=1)),
    steps=[("BrokerCrash", (1,)), ("ControllerHandleBrokerFailure", (1, 0)),
           ("BrokerRestart", (1,)), ("BecomeLeaderOrFollower", (1, 0)),
           ("LeaderHandleFetch", (0, 1)), ("BrokerApplyPartitionChange", (0,)),
           ("ProduceRecord", (0,))],
    expect=_hw_waits_for_rejoining_follower,
    words=("hw-waits-for-caught-up-replica",))


def _zombie_refused_after_registration(model, states) -> str:
    if "ZombieControllerSendLeaderAndIsr(broker=1)" in _enabled(model, states[-1]):
        return ("the zombie controller's LeaderAndIsr can reach broker 1, which registered since "
                "the failover with a broker epoch the zombie never saw")
    return ""


story(
    "STALE_BROKER_EPOCH (KIP-380, 2.2): a broker that restarted after the controller failover "
    "refuses the zombie controller's LeaderAndIsr",
    source="KafkaApis.handleLeaderAndIsrRequest / isBrokerEpochStale at 2.2.0 (KafkaApis.scala "
           "187-193, 2406-2416); the request's broker epoch is the sender's "
           "controllerContext.liveBrokerIdAndEpochs (ControllerChannelManager.scala 422-424), "
           "a broker's epoch the czxid of its last registration (KafkaZkClient.registerBroker); "
           "the deposed controller's Expire clears its event queue before a new session "
           "(KafkaController.scala 172-178)",
    config=_kafka("2.2", max_records=0, max_crashes=1, max_controller_failovers=1),
    steps=[("ControllerFailover", ()), ("BrokerCrash", (1,)),
           ("ControllerHandleBrokerFailure", (1, 0)), ("BrokerRestart", (1,))],
    expect=_zombie_refused_after_registration,
    words=("zombie-broker-epoch",))


def applies(s: Story, config: ModelConfig) -> bool:
    """Can the story's configuration be built (a flipped rule may make it one kmc refuses)?"""
    try:
        make_model(config)
    except KmcError:
        return False
    return True
