"""The rule table: each behaviour that changed between Kafka releases, named, with its source,
the releases that have it and the kernel switch it owns.

A rule is one row (``rule(...)``): its name (``--rule +NAME`` / ``-NAME``), the KIP or JIRA and
the Kafka code it rests on, ``since`` (the first release with it) and ``until`` (the first
release without it; "" while the newest still has it), what it changes, the rules it needs, the
layout features and actions it brings (``spec.layout_features``, ``spec.model_actions``) and the
settings a release ignores without it (``honours``). The row's value is the rule's *switch*: its
index in the kernel's ``cfg`` array, which the kernel reads as ``cfg[RULE_X] != 0``. Rules are
run-time data, so turning one on or off needs no recompilation.

A release's rules are the rows it falls in (``release_rules``); a named protocol
(``--protocol kip-320``) is a name for one release's rules (``PROTOCOLS``). Versions come from
``model/releases.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from model.bounded import shown
from model.errors import ConfigError
from model.kernel import params as P
from model.releases import (
    NEWEST_MODELLED, RELEASES, ZOOKEEPER_REMOVED_IN, Version, as_version, rules_release,
)


@dataclass(frozen=True)
class Rule:
    """One versioned behaviour of Kafka (see the module docstring for the fields)."""

    name: str
    source: str
    since: str
    summary: str
    switch: int
    until: str = ""
    requires: tuple = ()
    features: tuple = ()
    actions: tuple = ()
    honours: tuple = ()
    producer: bool = False
    unobservable: str = ""  # why no configuration of kmc's model shows it, written down

    def in_release(self, version: Version) -> bool:
        """Does Kafka ``version`` have this rule? (Never for a rule no release has.)"""
        if not self.since:
            return False
        version = rules_release(version)
        return version >= as_version(self.since) and (not self.until or version < as_version(self.until))

    @property
    def releases(self) -> str:
        """The releases that have it, in words: "2.1+", "3.3-3.5", or "no Kafka"."""
        if not self.since:
            return "no Kafka"
        if not self.until:
            return f"{self.since}+"
        last = max(v for v in RELEASES if v < as_version(self.until))
        return f"{self.since}-{last}"


RULES: dict[str, Rule] = {}


def rule(name: str, *, since: str, source: str, summary: str, until: str = "", requires=(),
         features=(), actions=(), honours=(), producer: bool = False, unobservable: str = "") -> int:
    """Add a row to the table; returns the rule's kernel switch (its ``cfg`` index).
    ``producer``: the rule changes only what a retrying producer meets (judged with
    ``--retries`` > 0), so ``change_releases`` leaves its release out unless asked.
    ``unobservable``: for a rule no configuration of the model can tell from its absence (an
    equivalent mutant, or one no property of kmc judges), the reason, written down: the
    rule-mutation check (``gate/mutation.py``) reports it instead of failing on it."""
    if name in RULES:
        raise ValueError(f"rule {name!r} is in the table twice")
    for release in filter(None, (since, until)):
        if as_version(release) not in RELEASES:
            raise ValueError(f"rule {name!r}: Kafka {release} is not in model/releases.py")
    switch = P.SETTING_COUNT + len(RULES)
    RULES[name] = Rule(name, source, since, summary, switch, until, tuple(requires),
                       tuple(features), tuple(actions), tuple(honours), producer, unobservable)
    return switch


# ------------------------------------------------------------------------------ the table

RULE_CONTROLLER_EPOCH = rule(
    "controller-epoch", since="0.8",
    source="Kafka 0.8 controller design (KafkaController epoch; "
           "ReplicaManager.becomeLeaderOrFollower answers StaleControllerEpochCode; read at "
           "0.8.0)",
    summary="a broker refuses LeaderAndIsr from a controller older than one it has obeyed "
            "(matters with --max-controller-failovers, ZooKeeper mode)",
    unobservable="an equivalent mutant in kmc's model: the new controller resends the partition "
                 "at the zombie's leader epoch and only raises it, and a stop forgets both "
                 "epochs, so a broker that has heard from the newer controller is already at "
                 "or past every leader epoch an older controller sent, and the leader-epoch "
                 "check refuses what this check refuses. In Kafka it matters where a deposed "
                 "controller's write lands: before 2.1 a partition update was a compare-and-set "
                 "on the partition's zkVersion alone (KafkaZkClient.updateLeaderAndIsr at "
                 "2.0.0), KAFKA-6082 added the controller epoch's (2.1.0); kmc's zombie never "
                 "writes (docs/testing.md)")
RULE_EPOCH_TRUNCATION = rule(
    "epoch-truncation", since="0.11",
    source="KIP-101 (AbstractFetcherThread.maybeTruncate, "
           "ReplicaFetcherThread OffsetsForLeaderEpoch; read at 0.11.0.0)",
    summary="a new follower truncates by OffsetsForLeaderEpoch, not to its own high watermark",
    actions=("FollowerTruncate",))
RULE_EPOCH_TRUNCATION_LOOP = rule(
    "epoch-truncation-loop", since="2.0",
    source="KIP-279 (OffsetsForLeaderEpoch returns the epoch; "
           "AbstractFetcherThread.getOffsetTruncationState at 2.0.0)",
    summary="leader and follower iterate OffsetsForLeaderEpoch until they agree on an epoch",
    actions=("FollowerTruncate",))
RULE_FENCED_FETCH = rule(
    "fenced-fetch", since="2.1",
    source="KIP-320 (currentLeaderEpoch in FetchRequest and OffsetsForLeaderEpoch; "
           "Partition.localReplicaWithEpochOrException at 2.1.0)",
    summary="a leader serves fetches and OffsetsForLeaderEpoch only in the follower's epoch")
RULE_EPOCH_CACHE_ON_ELECTION = rule(
    "epoch-cache-on-election", since="2.1",
    source="KAFKA-7415 (Partition.makeLeader assigns the epoch start offset: "
           "epochCache.assign(leaderEpoch, leaderEpochStartOffset) at 2.1.0)",
    summary="a new leader's epoch cache holds its epoch before it writes in it")
RULE_TRUNCATE_ON_EPOCH_CHANGE = rule(
    "truncate-on-epoch-change", since="2.1",
    source="KIP-320, KAFKA-7164 (Partition.makeFollower on a new leader epoch, "
           "ReplicaManager.makeFollowers restarts the fetcher; read at 2.1.0; 2.0.0 only on a "
           "new leader)",
    summary="a follower truncates again on every new leader epoch, not only on a new leader")
RULE_ISR_JOIN_NEEDS_EPOCH_START = rule(
    "isr-join-needs-epoch-start", since="2.1",
    source="KAFKA-7128 (Partition.maybeExpandIsr at 2.1.0: "
           "leaderEpochStartOffsetOpt.exists(fetchOffset >= _); isFollowerInSync from 2.4.0)",
    summary="a follower rejoins the ISR only once it reached the leader epoch's start offset")
RULE_RESET_FOLLOWERS_ON_EPOCH = rule(
    "reset-followers-on-epoch", since="",
    source="kmc 0.1 (stricter than Partition.makeLeader at 2.1.0, which resets remote LEOs "
           "only if isNewLeader; Replica.resetReplicaState from 3.3.0)",
    summary="a leader forgets its followers' LEOs on every new epoch, not only when it is newly "
            "leader")
RULE_ISR_EXPANSION_AS_OWN_STEP = rule(
    "isr-expansion-as-own-step", since="",
    source="kmc 0.1 (looser than Partition.maybeExpandIsr inside the fetch: "
           "Partition.updateReplicaLogReadResult at 2.1.0, updateFollowerFetchState from 2.4.0)",
    summary="a leader adds a caught-up follower to the ISR in a step of its own, any time after "
            "its fetch",
    actions=("LeaderExpandIsr",))
RULE_BROKER_EPOCH = rule(
    "broker-epoch", since="2.2",
    source="KIP-380 (KafkaController.processBrokerChange: bouncedBrokerIds; read at 2.2.0)",
    summary="a restarted broker is handled as failed, then started, even if its session never "
            "expired")
RULE_HW_NEEDS_MIN_ISR = rule(
    "hw-needs-min-isr", since="3.7",
    source="KAFKA-15583 (Partition.maybeIncrementLeaderHW: isUnderMinIsr, at 3.7.0 and "
           "not at 3.6.0)",
    summary="the high watermark does not advance while the ISR is smaller than "
            "min.insync.replicas")
RULE_ALTER_PARTITION = rule(
    "alter-partition", since="2.7",
    source="KIP-497 (AlterIsr at 2.7.0: Partition.expandIsr/shrinkIsr send "
           "PendingExpandIsr/PendingShrinkIsr, maximalIsr, ApiVersion.isAlterIsrSupported = "
           "IBP 2.7-IV2; AlterPartition and prepareIsrExpand/prepareIsrShrink from 3.2.0)",
    summary="the leader asks the controller to change the ISR and waits for the answer, "
            "counting a follower it adds in the HW meanwhile (maximal ISR)",
    features=("alter_partition",),
    actions=("ControllerHandleAlterPartition", "LeaderHandleAlterPartitionResponse"))
RULE_KRAFT = rule(
    "kraft", since="3.3",
    source="KIP-500/KIP-631 (QuorumController, metadata log, read at 3.3.0; production-ready "
           "in 3.3, KIP-833)",
    summary="the controller is a Raft quorum: partition changes are records of one metadata log "
            "that brokers apply in order, and brokers register and heartbeat",
    features=("kraft",), actions=("BrokerApplyPartitionChange",))
RULE_ISR_ELIGIBILITY = rule(
    "isr-eligibility", since="3.3",
    source="KIP-841 (Partition.isReplicaIsrEligible, ReplicationControlManager "
           "INELIGIBLE_REPLICA; read at 3.3.0)",
    summary="a fenced or shutting-down broker cannot join the ISR: the leader does not ask, the "
            "controller refuses",
    requires=("kraft", "alter-partition"))
RULE_BROKER_EPOCH_IN_FETCH = rule(
    "broker-epoch-in-fetch", since="3.5",
    source="KIP-903 (FetchRequest.json ReplicaEpoch, ReplicationControlManager "
           "newIsrWithEpochs, MetadataVersion IBP_3_5_IV1; read at 3.5.0)",
    summary="fetches and ISR changes carry broker epochs: a replica's earlier incarnation cannot "
            "put it in the ISR",
    requires=("kraft", "alter-partition"), features=("broker_epochs",))
RULE_STALE_FETCH_REJECTED = rule(
    "stale-fetch-rejected", since="3.7",
    source="KAFKA-15221 (Replica.updateFetchStateOrThrow; read at 3.7.0)",
    summary="a leader ignores a fetch from an earlier incarnation of the follower (its broker "
            "epoch is older than the registered one)",
    requires=("broker-epoch-in-fetch",))
RULE_ISR_SHRINK_KEEPS_LEADER_EPOCH = rule(
    "isr-shrink-keeps-leader-epoch", since="3.6",
    source="KAFKA-15021 (PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded, "
           "metadata.version 3.6-IV0; read at 3.6.0)",
    summary="the controller removes a replica from the ISR without bumping the leader epoch "
            "(only the partition epoch)",
    requires=("kraft",))
RULE_ALTER_PARTITION_SHRINK_BUMPS_LEADER_EPOCH = rule(
    "alter-partition-shrink-bumps-leader-epoch", since="3.3", until="3.6",
    source="KAFKA-15021 (PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded: every ISR "
           "shrink until metadata.version 3.6-IV0; ReplicationControlManager.alterPartition "
           "answers with the new leader epoch; read at 3.3.0 and 3.6.0)",
    summary="the KRaft controller bumps the leader epoch when a leader's AlterPartition removes "
            "a replica from the ISR (not when it adds one); the leader ignores the answer and "
            "waits for the new metadata",
    requires=("kraft", "alter-partition"))
RULE_KRAFT_UNCLEAN_ELECTION = rule(
    "kraft-unclean-election", since="3.9",
    source="KAFKA-12670 (ConfigurationControlManager, "
           "QuorumController.maybeElectUncleanLeaders: at 3.9.0-rc3, not at 3.8.0)",
    summary="the KRaft controller honours unclean.leader.election.enable (3.0-3.8 ignore it)",
    requires=("kraft",), honours=("unclean_leader_election_enable",))
RULE_ELR = rule(
    "eligible-leader-replicas", since="4.1",
    source="KIP-966 (PartitionChangeBuilder ELR, "
           "ReplicationControlManager.handleBrokerUncleanShutdown: kafka-metadata "
           "4.1.2-sources.jar, whose record PartitionChangeBuilder.build also elects, tryElection "
           "at 4.1.0; 4.0 with eligible.leader.replicas.version=1, default on new 4.1 clusters)",
    summary="replicas leaving an ISR below min.insync.replicas stay eligible to lead; a broker "
            "that restarts after an unclean shutdown leaves the ISR and the ELR, by a record "
            "that may elect (the last known leader, once the ELR is empty)",
    requires=("kraft", "alter-partition"), features=("elr",))
RULE_LAST_KNOWN_LEADER_CHECK = rule(
    "last-known-leader-check", since="4.1",
    source="KAFKA-19522 (PartitionChangeBuilder.canElectLastKnownLeader: kafka-metadata "
           "4.1.0-sources.jar; 4.0.0's tests isAcceptableLeader the wrong way round)",
    summary="the last known leader is elected from an empty ISR and ELR only if it is not fenced "
            "(3.7-4.0 elected it anyway)",
    requires=("eligible-leader-replicas",))
RULE_ISR_SHRINK_OUT_OF_SYNC_SET = rule(
    "isr-shrink-out-of-sync-set", since="4.0",
    source="Partition.maybeShrinkIsr / getOutOfSyncReplicas (one AlterPartition without every "
           "out-of-sync follower: kafka_2.13 4.0.2-sources.jar and 4.1.2-sources.jar) and "
           "KIP-966 PartitionChangeBuilder.maybePopulateTargetElr (every replica leaving an ISR "
           "below min.insync.replicas joins the ELR: kafka-metadata 4.0.2-sources.jar and "
           "4.1.2-sources.jar)",
    summary="a leader may remove several lagging followers in one AlterPartition; kmc adds "
            "that step only where one follower per step is not exact: with the ELR on, when "
            "the removal takes the ISR from above min.insync.replicas to below it (every removed "
            "follower joins the ELR; one-follower steps would clear it on the way). Kafka "
            "removes the set in every release; without the ELR the one-follower steps are exact "
            "(docs/model.md)",
    requires=("kraft", "alter-partition"), actions=("LeaderShrinkIsrSet",))

# -- the producer (issue 26): judged only when the producer retries (--retries N)
RULE_IN_FLIGHT_PER_PARTITION = rule(
    "in-flight-per-partition", since="0.10", producer=True,
    source="KAFKA-3197 (Sender.run mutes every partition it drains when "
           "max.in.flight.requests.per.connection=1, RecordAccumulator.mutePartition, at "
           "0.10.0.0; 0.9.0.1 counted requests per broker only: NetworkClient.canSendRequest, "
           "InFlightRequests.canSendMore)",
    summary="with max.in.flight.requests.per.connection=1 a partition's next record waits until "
            "the one in flight is answered, whichever broker it went to; before (0.8-0.9) the "
            "limit was per connection, so after a leader change a later record could reach the "
            "new leader while an earlier one still waited at the old one: reordered")
RULE_IDEMPOTENT_PRODUCER = rule(
    "idempotent-producer", since="0.11", producer=True,
    source="KIP-98 (ProducerStateManager, ProducerAppendInfo.checkSequence, "
           "Log.analyzeAndValidateProducerState at 0.11.0.0)",
    summary="the broker checks the idempotent producer's sequence numbers: a batch it already "
            "has is acknowledged at its first offset (DuplicateSequence), one that leaves a gap "
            "is refused (OutOfOrderSequence); enable.idempotence")
RULE_PRODUCER_STATE_FIVE_BATCHES = rule(
    "producer-state-five-batches", since="1.0", producer=True,
    source="KAFKA-5494 (ProducerStateEntry.NumBatchesToRetain = 5 at 1.0.0; 0.11.0.0 kept only "
           "the last batch, ProducerIdEntry)",
    summary="the broker remembers the last 5 batches of each producer, so an idempotent "
            "producer may have up to 5 requests in flight (0.11: the last batch, and 1)",
    requires=("idempotent-producer",),
    unobservable="an equivalent mutant on every configuration valid without it: with one "
                 "request in flight a retried record is the last of any log that holds it, so "
                 "a window of 1 and of 5 find it alike; with more in flight the configuration "
                 "is refused without the rule (exit 2; tests/scenarios/test_delivery.py "
                 "checks both sides; docs/testing.md)")
RULE_UNKNOWN_PRODUCER_ACCEPTS_ANY_SEQUENCE = rule(
    "unknown-producer-accepts-any-sequence", since="2.5", producer=True,
    source="KIP-360 (ProducerStateManager.checkSequence at 2.5.0: no current producer epoch, "
           "any sequence is accepted; 2.4.0 threw UnknownProducerIdException)",
    summary="a leader with no state for the producer (none of its batches in the log) accepts "
            "whatever sequence comes; before, a sequence other than 0 failed with "
            "UNKNOWN_PRODUCER_ID",
    requires=("idempotent-producer",),
    unobservable="it decides only which unacknowledged records reach an empty log (a record "
                 "acknowledged before the log emptied is already lost on both sides), and no "
                 "property of kmc judges a record never acknowledged; what makes KIP-360 "
                 "matter in Kafka, the producer epoch bump that resends a refused record after "
                 "a later one, is not modelled (docs/testing.md)")
RULE_IDEMPOTENT_EPOCH_BUMP = rule(
    "idempotent-epoch-bump", since="2.5", producer=True, actions=("ProducerBumpEpoch",),
    source="KIP-360 (TransactionManager.handleFailedBatch -> requestEpochBumpForPartition, "
           "bumpIdempotentProducerEpoch at 2.5.0; ProducerStateManager.checkProducerEpoch / "
           "checkSequence at 2.5.0: a new epoch starts at sequence 0)",
    summary="an idempotent producer whose batch fails with an error it does not retry (a "
            "non-retriable error while retries are left, OUT_OF_ORDER_SEQUENCE_NUMBER) bumps its "
            "producer epoch and goes on at sequence 0, instead of failing for good "
            "(--max-producer-epoch-bumps)",
    requires=("idempotent-producer",),
    unobservable="an equivalent mutant on every configuration valid without it: the bump is "
                 "the only thing it brings, --max-producer-epoch-bumps 0 (the default) leaves "
                 "it out, and a bound above 0 without the rule is refused (exit 2: the bump "
                 "needs KIP-360, 2.5); what the bump does is judged through "
                 "epoch-bump-rewrites-in-flight's rows (tests/scenarios/test_delivery.py "
                 "checks the refusal)")
RULE_EPOCH_BUMP_REWRITES_IN_FLIGHT = rule(
    "epoch-bump-rewrites-in-flight", since="2.5", producer=True,
    source="KAFKA-14034 (TransactionManager.handleFailedBatch calls requestEpochBumpForPartition "
           "for a failed batch while earlier ones are in flight, and bumpIdempotentProducerEpoch "
           "-> startSequencesAtBeginning rewrites them at the new epoch from sequence 0: read at "
           "2.5.0 and 3.8.0; the fix, 5b75e1bcf2c (PR #13796: markSequenceUnresolved, bump once "
           "the in-flight batches complete), is on no release tag)",
    summary="the epoch bump does not wait for the records still in flight: it gives them new "
            "sequences at the new epoch, so a record already in a log but not yet acknowledged "
            "is written again when retried (KAFKA-14034, unfixed); without the rule the bump "
            "waits until no other record is in flight",
    requires=("idempotent-epoch-bump",))
RULE_IDEMPOTENCE_BY_DEFAULT = rule(
    "idempotence-by-default", since="3.0", producer=True,
    source="KIP-679 (ProducerConfig: enable.idempotence=true and acks=all by default at 3.0.0; "
           "KAFKA-13598: a conflicting acks or max.in.flight turns the default off)",
    summary="the producer is idempotent unless told otherwise",
    requires=("idempotent-producer",))

RULE_REPLICA_LAG_TIME = rule(
    "replica-lag-time", since="",
    source="replica.lag.time.max.ms (Partition.getOutOfSyncReplicas and "
           "Replica.lastCaughtUpTimeMs at 2.1.0, Replica.isCaughtUp at 3.7.0; "
           "Partition.makeLeader restarts the clock)",
    summary="time, abstractly (group timed): a leader removes a follower from the ISR only if "
            "it can have stayed behind for the lag time: it is down, shutting down or not "
            "following the leader in its epoch (assumes no running follower stalls that long; "
            "docs/model.md, \"Time\")")

RULE_LAST_KNOWN_LEADER_WHEN_LEADERLESS = rule(
    "last-known-leader-when-leaderless", since="4.2",
    source="PR #20629 (PartitionChangeBuilder.maybeUpdateLastKnownLeader: kafka-metadata "
           "4.2.0-sources.jar; 4.1.0-sources.jar has the older trigger, 4.1.1 and 4.1.2 the new)",
    summary="the last known leader is recorded when a change leaves the partition without a "
            "leader and none is recorded yet, not when the ISR becomes empty (a recorded one is "
            "never overwritten; the 4.1.1 patch has it too)",
    requires=("eligible-leader-replicas",),
    unobservable="an equivalent mutant in kmc's model, argued from the kernel: the two triggers "
                 "differ only on a change that leaves the partition leaderless with an ISR "
                 "member left, or that empties the ISR while a last known leader is recorded "
                 "and a leader exists. The second cannot be: every election clears the record. "
                 "The first needs every other ISR member unable to lead (fenced or shutting "
                 "down), but such a member has left every ISR of two or more "
                 "(isr-members-eligible, KIP-841) and with KIP-966 a last member leaves too. "
                 "Probes (issue 32d): leaderless with a non-empty ISR is unreachable on 4.2 RF=2 "
                 "(1 record, a crash, a session expiry, a controlled shutdown, power loss: "
                 "493,718 states; with 2 crashes, min ISR 1 and unclean election: 1,376,213), "
                 "and the mutant changes no state there (493,718 and 704,884 with 2 records, "
                 "either way). RF=3 not searched")

RULE_UNORDERED_LEADER_MOVES = rule(
    "unordered-leader-moves", since="",
    source="kmc 0.1 to 0.24 (looser than PartitionLeaderElectionAlgorithms at 2.8.0 and "
           "PartitionChangeBuilder.electLeader at 3.6.0, which pick the first eligible replica "
           "of the assignment)",
    summary="the over-approximation of leader moves: no assignment order, an election may pick "
            "any eligible replica, and ControllerElectLeader moves leadership to any live ISR "
            "member with no failure and no operator action (the oracle and the z3 engine model "
            "this)",
    actions=("ControllerElectLeader",))
RULE_LEADER_AND_ISR_IN_ORDER = rule(
    "leader-and-isr-in-order", since="0.8", until="4.0",
    source="ControllerChannelManager (one queue and one RequestSendThread per broker, each "
           "request awaiting its response before the next; KafkaController.onControllerFailover "
           "and onBrokerFailure drop a queue with its controller or its broker; read at 2.8.0)",
    summary="ZooKeeper mode: a broker gets the controller's LeaderAndIsr requests in the order "
            "they were sent; it skips one only when a controller failover lost it (with "
            "--max-session-expiries, kmc still lets a broker skip: the over-approximation of the "
            "queue an expired session drops). KRaft brokers apply the metadata log in order, a "
            "lagging one several records at once")
RULE_HW_ON_ALTER_PARTITION_ANSWER = rule(
    "hw-on-alter-partition-answer", since="3.1",
    source="KAFKA-13091 (PR #11245, commit 26ee78f3923: Partition.handleAlterIsrUpdate calls "
           "maybeIncrementLeaderHW and submitAlterIsr then tryCompleteDelayedRequests, at 3.1.0; "
           "handleAlterIsrResponse at 2.8.1, 3.0.0 and 3.0.2 commits the ISR and returns)",
    summary="the leader tries to advance its high watermark when the controller's answer to an "
            "ISR shrink arrives; 2.7-3.0 waited for the next fetch or produce, so with the "
            "removed follower gone an acks=all produce could wait for ever",
    requires=("alter-partition",))
RULE_HW_WAITS_FOR_CAUGHT_UP_REPLICA = rule(
    "hw-waits-for-caught-up-replica", since="",
    source="KAFKA-4485 (Partition.maybeIncrementLeaderHW at 0.10.2.0: a replica whose "
           "lastCaughtUpTimeMs is within replica.lag.time.max.ms counts, in the ISR or not; not "
           "at 0.10.1.0; Replica.isCaughtUp at 3.5.0) and KAFKA-15021 (commit 8ad0ed3e618, "
           "shouldWaitForReplicaToJoinIsr: only if isReplicaIsrEligible, at 3.6.0 and 3.7.0)",
    summary="time, abstractly (group timed): the leader's HW also waits for a caught-up follower "
            "outside the ISR: one it has heard from in this leadership that runs and follows it "
            "in its epoch (it fetches up to the LEO well within the lag time); with 3.6's "
            "isr-shrink-keeps-leader-epoch (KRaft) only one that may join the ISR. Untimed, a "
            "follower may have stalled past the lag time, and the HW waits for none "
            "(docs/model.md, \"Time\")",
    requires=("replica-lag-time",))
PARAM_COUNT = P.SETTING_COUNT + len(RULES)
"""The length of the kernel's ``cfg`` array: the settings and bounds, then one switch per rule."""

MANDATORY = {"kraft": ZOOKEEPER_REMOVED_IN}
"""Rules a release cannot run without: Kafka 4.0 removed ZooKeeper mode (KIP-833)."""

KMC_0_1 = ("isr-expansion-as-own-step", "reset-followers-on-epoch")
"""kmc 0.1's abstractions that no Kafka release has, kept as rules so that the reference engine
and the z3 engine (which model exactly these) can cross-check the kernel: ``--rule +kmc-0.1``
turns both on."""

TIMED = ("replica-lag-time", "hw-waits-for-caught-up-replica")
"""Time, abstractly (``--rule +timed``): every rule that reads a timeout as a condition on the
state, so that an action Kafka takes only after a timeout is enabled only where the timeout can
have run out, and a wait Kafka keeps up until a timeout holds where it cannot have run out
(docs/model.md, "Time"). Off by default: kmc's default is the untimed
over-approximation, which also covers a running broker that stalls past a timeout. A later
timeout (a producer's request or delivery timeout) adds its rule here."""

GROUPS: dict[str, tuple[str, ...]] = {"kmc-0.1": KMC_0_1, "timed": TIMED}


# ------------------------------------------------------------------------------ releases

def release_rules(version) -> tuple[str, ...]:
    """The rules Kafka ``version`` (a ``Version`` or "X.Y") has, in the table's order: those
    whose ``since``/``until`` range holds it; a release newer than ``NEWEST_MODELLED`` has that
    release's rules. Rules no release has (``since == ""``) are never included."""
    version = as_version(version)
    return tuple(r.name for r in RULES.values() if r.in_release(version))


def change_releases(producer: bool = False) -> tuple[Version, ...]:
    """The releases at which some rule starts or stops, oldest first, from 0.8 (what
    ``kmc advise`` sweeps and ``kmc list`` prints); the producer's rules count only with
    ``producer`` (``kmc advise --goal no-duplicates``)."""
    points = {RELEASES[0]} | {as_version(v) for r in RULES.values() for v in (r.since, r.until)
                              if v and (producer or not r.producer)}
    return tuple(sorted(v for v in points if v <= NEWEST_MODELLED))


def without_unmet(rule_names) -> tuple[str, ...]:
    """``rule_names`` without the rules whose requirements are not among them (a KRaft-only
    rule in ZooKeeper mode), repeated until nothing more drops."""
    chosen = list(rule_names)
    while True:
        kept = [n for n in chosen if all(req in chosen for req in RULES[n].requires)]
        if kept == chosen:
            return tuple(kept)
        chosen = kept


def check_mandatory(version, rule_names) -> None:
    """A ``ConfigError`` if ``version`` cannot run without a rule that was turned off."""
    for name, since in MANDATORY.items():
        if as_version(version) >= since and name not in rule_names:
            raise ConfigError(
                f"Kafka {version} has no ZooKeeper mode (removed in {since}, KIP-833); "
                f"--rule -{name} applies to 3.x and earlier only")


def ignored_settings(rule_names) -> list[tuple[str, Rule]]:
    """The settings the rules ``rule_names`` ignore, each with the rule that would honour it:
    a rule's ``honours`` are ignored where its requirements are in force and it is not (the
    KRaft controller before 3.9 and unclean.leader.election.enable, KAFKA-12670)."""
    chosen = set(rule_names)
    return [(setting, r) for r in RULES.values() for setting in r.honours
            if r.name not in chosen and all(req in chosen for req in r.requires)]


# ------------------------------------------------------------------------------ named protocols

@dataclass(frozen=True)
class Protocol:
    """A named protocol (``--protocol NAME``): a name for the rule set of the release that
    introduced it, so ``--protocol kip-320`` is Kafka 2.1 exactly. It is a row of this table,
    not a model of its own: every protocol runs in the compiled kernel."""

    name: str
    release: str
    versions: str
    summary: str


PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (
    Protocol("hw-truncation", "0.10", "0.8 - 0.10.2",
             "a new follower truncates its log to its own high watermark"),
    Protocol("kip-101", "0.11", "0.11 - 1.1",
             "truncate to the leader's end offset for the follower's latest epoch"),
    Protocol("kip-279", "2.0", "2.0",
             "iterate OffsetsForLeaderEpoch until leader and follower agree on an epoch"),
    Protocol("kip-320", "2.1", "2.1",
             "fetch, truncation, HW and ISR changes fenced by the current leader epoch"),
)}

PRESETS: dict[str, tuple[str, ...]] = {
    name: release_rules(p.release) for name, p in PROTOCOLS.items()}
"""The rules of each named protocol."""

PLUGIN_GROUP = "kmc.protocols"
"""The entry-point group through which kmc 0.1 loaded third-party protocol classes. kmc's model
is the compiled kernel now, which a plugin cannot extend, so the group is no longer read."""


def protocol_of(version) -> str:
    """The named protocol a release's replication descends from: the newest preset whose
    release is not later (``kip-320`` for 2.1 and everything after)."""
    version = as_version(version)
    return max((p for p in PROTOCOLS.values() if as_version(p.release) <= version),
               key=lambda p: as_version(p.release), default=next(iter(PROTOCOLS.values()))).name


def check_protocol(name: str) -> None:
    """A ``ConfigError`` unless ``name`` is a named protocol. If installed packages still
    register protocols through the old ``kmc.protocols`` entry point, the error says that kmc no
    longer loads them: such a protocol has no rules in the kernel, and running it would check
    none."""
    if name in PROTOCOLS:
        return
    choices = ", ".join(PROTOCOLS)
    try:
        from importlib.metadata import entry_points  # only on this error path
        plugins = list(entry_points(group=PLUGIN_GROUP))
    except Exception:  # a broken installation's metadata must not hide the real error
        plugins = []
    if plugins:
        named = ", ".join(f"{ep.name} ({ep.value})" for ep in plugins)
        raise ConfigError(
            f"unknown protocol {shown(name)}: installed packages register protocols through the "
            f"{PLUGIN_GROUP} entry point ({named}), which kmc no longer loads: its model is the "
            f"compiled kernel, which a plugin cannot extend (docs/model.md); use --kafka-version "
            f"and --rule, or one of: {choices}")
    raise ConfigError(f"unknown protocol {shown(name)}; choose one of: {choices}")


def rules_of(protocol: str) -> tuple[str, ...]:
    """The rules of a named protocol."""
    check_protocol(protocol)
    return PRESETS[protocol]


# ------------------------------------------------------------------------------ --rule

def check_rule_name(name: str) -> Rule | None:
    """The rule called ``name`` (None for a group of rules, ``GROUPS``)."""
    if name in GROUPS:
        return None
    try:
        return RULES[name]
    except KeyError:
        raise ConfigError(
            f"unknown rule {shown(name)}; the rules are: {', '.join(RULES)}, and the group "
            f"{', '.join(GROUPS)} (kmc list shows them)"
        ) from None


def parse_rule_change(text: str) -> str:
    """``"+fenced-fetch"`` / ``"-fenced-fetch"`` checked and normalised; a ``ConfigError``
    that says how to write it otherwise."""
    text = str(text).strip()
    if len(text) < 2 or text[0] not in "+-":
        raise ConfigError(
            f"--rule {shown(text)}: write +NAME to turn a rule on or -NAME to turn it off, "
            "e.g. --rule -fenced-fetch")
    check_rule_name(text[1:])
    return text


def apply_rule_changes(base: tuple[str, ...], changes: tuple[str, ...]) -> tuple[str, ...]:
    """``base`` with each ``+NAME`` added and each ``-NAME`` removed (a later change wins),
    in the rule table's order."""
    chosen = set(base)
    for change in changes:
        name = parse_rule_change(change)[1:]
        for one in GROUPS.get(name, (name,)):
            if change.startswith("+"):
                chosen.add(one)
            else:
                chosen.discard(one)
    return tuple(name for name in RULES if name in chosen)


def fill_rule_switches(cfg, rule_names) -> None:
    """Turn on the kernel switch of each rule in ``rule_names`` (every other stays 0)."""
    for name in rule_names:
        cfg[RULES[name].switch] = 1
