"""Protocol rules: each behaviour that changed in some Kafka release, named, with its source.

A *protocol* is a set of rules. The named protocols (``--protocol kip-320``) are presets; the
compiled kernel reads the rules as switches in its ``cfg`` array (``model/kernel/params.py``),
so turning a rule on or off needs no recompilation.
"""

from __future__ import annotations

from dataclasses import dataclass

from model.errors import ConfigError
from model.kernel import params as P


@dataclass(frozen=True)
class Rule:
    """One versioned behaviour of Kafka.

    Attributes:
        name: the rule's name (``--rule +NAME`` / ``-NAME``).
        source: the KIP or JIRA that introduced it, and the Kafka code that has it.
        since: the first Kafka release with it ("" for a rule no Kafka release has).
        summary: what it changes, in one line.
        param: the kernel switch it sets.
        value: the value it sets the switch to when on.
        requires: rules it only makes sense with (KRaft-only rules require ``kraft``); a rule
            whose requirements are off is dropped from the rule set, and ``kmc list`` says so.
    """

    name: str
    source: str
    since: str
    summary: str
    param: int
    value: int = 1
    requires: tuple = ()


RULES: dict[str, Rule] = {}


def _rule(*args, **kwargs) -> Rule:
    r = Rule(*args, **kwargs)
    RULES[r.name] = r
    return r


CONTROLLER_EPOCH = _rule(
    "controller-epoch",
    "Kafka 0.8 controller design (KafkaController epoch; ReplicaManager.becomeLeaderOrFollower "
    "answers STALE_CONTROLLER_EPOCH)", "0.8",
    "a broker refuses LeaderAndIsr from a controller older than one it has obeyed (matters with "
    "--max-controller-failovers, ZooKeeper mode)", P.RULE_CONTROLLER_EPOCH)
EPOCH_TRUNCATION = _rule(
    "epoch-truncation", "KIP-101 (AbstractFetcherThread, OffsetsForLeaderEpoch)", "0.11",
    "a new follower truncates by OffsetsForLeaderEpoch, not to its own high watermark",
    P.RULE_TRUNCATION, P.TRUNCATE_BY_EPOCH_0_11)
EPOCH_TRUNCATION_LOOP = _rule(
    "epoch-truncation-loop", "KIP-279 (OffsetsForLeaderEpoch returns the epoch)", "2.0",
    "leader and follower iterate OffsetsForLeaderEpoch until they agree on an epoch",
    P.RULE_TRUNCATION, P.TRUNCATE_BY_EPOCH_LOOP)
FENCED_FETCH = _rule(
    "fenced-fetch", "KIP-320 (currentLeaderEpoch in Fetch and OffsetsForLeaderEpoch)", "2.1",
    "a leader serves fetches and OffsetsForLeaderEpoch only in the follower's epoch",
    P.RULE_FENCED_FETCH)
EPOCH_CACHE_ON_ELECTION = _rule(
    "epoch-cache-on-election", "KAFKA-7415 (Partition.makeLeader assigns the epoch start offset)",
    "2.1", "a new leader's epoch cache holds its epoch before it writes in it",
    P.RULE_EPOCH_CACHE_ON_ELECTION)
TRUNCATE_ON_EPOCH_CHANGE = _rule(
    "truncate-on-epoch-change", "KIP-320 (Partition.makeFollower restarts the fetcher)", "2.1",
    "a follower truncates again on every new leader epoch, not only on a new leader",
    P.RULE_TRUNCATE_ON_EPOCH_CHANGE)
ISR_JOIN_NEEDS_EPOCH_START = _rule(
    "isr-join-needs-epoch-start", "KAFKA-7128 (Partition.isFollowerInSync)", "2.1",
    "a follower rejoins the ISR only once it reached the leader epoch's start offset",
    P.RULE_ISR_JOIN_NEEDS_EPOCH_START)
RESET_FOLLOWERS_ON_EPOCH = _rule(
    "reset-followers-on-epoch", "kmc 0.1 (stricter than Replica.resetReplicaState)", "",
    "a leader forgets its followers' LEOs on every new epoch, not only when it is newly leader",
    P.RULE_RESET_FOLLOWERS_ON_EPOCH)
ISR_EXPANSION_AS_OWN_STEP = _rule(
    "isr-expansion-as-own-step", "kmc 0.1 (looser than Partition.updateFollowerFetchState)", "",
    "a leader adds a caught-up follower to the ISR in a step of its own, any time after its fetch",
    P.RULE_ISR_EXPANSION_AS_OWN_STEP)
BROKER_EPOCH = _rule(
    "broker-epoch", "KIP-380 (KafkaController.processBrokerChange: bounced brokers)", "2.2",
    "a restarted broker is handled as failed, then started, even if its session never expired",
    P.RULE_BROKER_EPOCH)
HW_NEEDS_MIN_ISR = _rule(
    "hw-needs-min-isr", "KAFKA-15583 (Partition.maybeIncrementLeaderHW: isUnderMinIsr)", "3.7",
    "the high watermark does not advance while the ISR is smaller than min.insync.replicas",
    P.RULE_HW_NEEDS_MIN_ISR)

ALTER_PARTITION = _rule(
    "alter-partition",
    "KIP-497 (AlterIsr / AlterPartition, Partition.prepareIsrExpand/prepareIsrShrink, IBP 2.7-IV2)",
    "2.7", "the leader asks the controller to change the ISR and waits for the answer, counting "
    "a follower it adds in the HW meanwhile (maximal ISR)", P.RULE_ALTER_PARTITION)
KRAFT = _rule(
    "kraft", "KIP-500/KIP-631 (QuorumController, metadata log; production-ready in 3.3, KIP-833)",
    "3.3", "the controller is a Raft quorum: partition changes are records of one metadata log "
    "that brokers apply in order, and brokers register and heartbeat", P.RULE_KRAFT)
ISR_ELIGIBILITY = _rule(
    "isr-eligibility",
    "KIP-841 (Partition.isReplicaIsrEligible, ReplicationControlManager INELIGIBLE_REPLICA)",
    "3.3", "a fenced or shutting-down broker cannot join the ISR: the leader does not ask, the "
    "controller refuses", P.RULE_ISR_ELIGIBILITY, requires=("kraft", "alter-partition"))
BROKER_EPOCH_IN_FETCH = _rule(
    "broker-epoch-in-fetch",
    "KIP-903 (Fetch ReplicaEpoch, AlterPartition NewIsrWithEpochs, metadata.version 3.5-IV1)",
    "3.5", "fetches and ISR changes carry broker epochs: a replica's earlier incarnation cannot "
    "put it in the ISR", P.RULE_BROKER_EPOCH_IN_FETCH, requires=("kraft", "alter-partition"))
STALE_FETCH_REJECTED = _rule(
    "stale-fetch-rejected", "KAFKA-15221 (Replica.updateFetchStateOrThrow)", "3.7",
    "a leader ignores a fetch from an earlier incarnation of the follower (its broker epoch is "
    "older than the registered one)", P.RULE_STALE_FETCH_REJECTED,
    requires=("broker-epoch-in-fetch",))
ISR_SHRINK_KEEPS_LEADER_EPOCH = _rule(
    "isr-shrink-keeps-leader-epoch",
    "KAFKA-15021 (PartitionChangeBuilder, metadata.version 3.6-IV0)", "3.6",
    "the controller removes a replica from the ISR without bumping the leader epoch (only the "
    "partition epoch)", P.RULE_ISR_SHRINK_KEEPS_LEADER_EPOCH, requires=("kraft",))
KRAFT_UNCLEAN_ELECTION = _rule(
    "kraft-unclean-election",
    "KAFKA-12670 (ConfigurationControlManager, QuorumController.maybeElectUncleanLeaders)",
    "3.9", "the KRaft controller honours unclean.leader.election.enable (3.0-3.8 ignore it)",
    P.RULE_KRAFT_UNCLEAN_ELECTION, requires=("kraft",))
ELIGIBLE_LEADER_REPLICAS = _rule(
    "eligible-leader-replicas",
    "KIP-966 (PartitionChangeBuilder ELR, ReplicationControlManager.handleBrokerUncleanShutdown; "
    "4.0 with eligible.leader.replicas.version=1, default on new 4.1 clusters)", "4.1",
    "replicas leaving an ISR below min.insync.replicas stay eligible to lead; a broker that "
    "restarts after an unclean shutdown leaves the ISR and the ELR", P.RULE_ELR,
    requires=("kraft", "alter-partition"))
LAST_KNOWN_LEADER_CHECK = _rule(
    "last-known-leader-check", "KAFKA-19522 (PartitionChangeBuilder.canElectLastKnownLeader)",
    "4.1", "the last known leader is elected from an empty ISR and ELR only if it is not fenced "
    "(3.7-4.0 elected it anyway)", P.RULE_LAST_KNOWN_LEADER_CHECK,
    requires=("eligible-leader-replicas",))

MANDATORY_SINCE = {"kraft": "4.0"}
"""Rules that a release cannot run without: Kafka 4.0 removed ZooKeeper mode (KIP-833)."""


def _release_lines() -> tuple[str, ...]:
    """Releases in which some rule first appeared, oldest first, from 0.8 (once, though its
    ``controller-epoch`` rule names it as its ``since`` too)."""
    since = {r.since for r in RULES.values() if r.since} - {"0.8"}
    return ("0.8",) + tuple(sorted(since, key=_version_key))


def _version_key(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


RELEASES: tuple[str, ...] = _release_lines()


def release_rules(version: str) -> tuple[str, ...]:
    """The rules Kafka ``version`` ("X.Y") has: every rule whose ``since`` is not later, in
    the table's order. Rules no release has (``since == ""``) are never included."""
    key = _version_key(version)
    return tuple(r.name for r in RULES.values() if r.since and _version_key(r.since) <= key)


def without_unmet(rule_names) -> tuple[str, ...]:
    """``rule_names`` without the rules whose requirements are not among them (a KRaft-only
    rule in ZooKeeper mode), repeated until nothing more drops."""
    chosen = list(rule_names)
    while True:
        kept = [n for n in chosen if all(req in chosen for req in RULES[n].requires)]
        if kept == chosen:
            return tuple(kept)
        chosen = kept


def check_mandatory(version: str, rule_names) -> None:
    """A ``ConfigError`` if ``version`` cannot run without a rule that was turned off."""
    for name, since in MANDATORY_SINCE.items():
        if _version_key(version) >= _version_key(since) and name not in rule_names:
            raise ConfigError(
                f"Kafka {version} has no ZooKeeper mode (removed in 4.0, KIP-833); "
                f"--rule -{name} applies to 3.x and earlier only")


# The named protocols are the rule sets of the release that introduced each, so
# ``--protocol kip-320`` is Kafka 2.1 exactly.
PRESETS: dict[str, tuple[str, ...]] = {
    "hw-truncation": release_rules("0.10"),
    "kip-101": release_rules("0.11"),
    "kip-279": release_rules("2.0"),
    "kip-320": release_rules("2.1"),
}


def rules_of(protocol: str) -> tuple[str, ...]:
    """The rules of a named protocol."""
    try:
        return PRESETS[protocol]
    except KeyError:
        raise ConfigError(
            f"unknown protocol {protocol!r}; choose one of: {', '.join(PRESETS)}") from None


KMC_0_1 = ("isr-expansion-as-own-step", "reset-followers-on-epoch")
"""kmc 0.1's abstractions that no Kafka release has, kept as rules so that the reference engine
and the z3 engine (which model exactly these) can cross-check the kernel: ``--rule +kmc-0.1``
turns both on."""

GROUPS: dict[str, tuple[str, ...]] = {"kmc-0.1": KMC_0_1}


def check_rule_name(name: str) -> Rule | None:
    """The rule called ``name`` (None for a group of rules, ``GROUPS``)."""
    if name in GROUPS:
        return None
    try:
        return RULES[name]
    except KeyError:
        raise ConfigError(
            f"unknown rule {name!r}; the rules are: {', '.join(RULES)}, and the group "
            f"{', '.join(GROUPS)} (kmc list shows them)"
        ) from None


def parse_rule_change(text: str) -> str:
    """``"+fenced-fetch"`` / ``"-fenced-fetch"`` checked and normalised; a ``ConfigError``
    that says how to write it otherwise."""
    text = str(text).strip()
    if len(text) < 2 or text[0] not in "+-":
        raise ConfigError(
            f"--rule {text!r}: write +NAME to turn a rule on or -NAME to turn it off, "
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


def fill_rule_params(cfg, rule_names) -> None:
    """Set the kernel switches of ``rule_names`` in ``cfg`` (in the table's order: a later rule
    that sets the same switch wins, as epoch-truncation-loop does over epoch-truncation)."""
    for name in RULES:
        if name in rule_names:
            rule = RULES[name]
            cfg[rule.param] = rule.value
