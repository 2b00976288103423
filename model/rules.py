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
    """

    name: str
    source: str
    since: str
    summary: str
    param: int
    value: int = 1


RULES: dict[str, Rule] = {}


def _rule(*args, **kwargs) -> Rule:
    r = Rule(*args, **kwargs)
    RULES[r.name] = r
    return r


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
BROKER_EPOCH = _rule(
    "broker-epoch", "KIP-380 (KafkaController.processBrokerChange: bounced brokers)", "2.2",
    "a restarted broker is handled as failed, then started, even if its session never expired",
    P.RULE_BROKER_EPOCH)
HW_NEEDS_MIN_ISR = _rule(
    "hw-needs-min-isr", "KAFKA-15583 (Partition.maybeIncrementLeaderHW: isUnderMinIsr)", "3.7",
    "the high watermark does not advance while the ISR is smaller than min.insync.replicas",
    P.RULE_HW_NEEDS_MIN_ISR)

# Releases in which some rule first appeared, oldest first ("0.8" has none of them).
RELEASES: tuple[str, ...] = ("0.8", "0.11", "2.0", "2.1", "2.2", "3.7")


def _version_key(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def release_rules(version: str) -> tuple[str, ...]:
    """The rules Kafka ``version`` ("X.Y") has: every rule whose ``since`` is not later, in
    the table's order. Rules no release has (``since == ""``) are never included."""
    key = _version_key(version)
    return tuple(r.name for r in RULES.values() if r.since and _version_key(r.since) <= key)


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


def check_rule_name(name: str) -> Rule:
    try:
        return RULES[name]
    except KeyError:
        raise ConfigError(
            f"unknown rule {name!r}; the rules are: {', '.join(RULES)} (kmc list shows them)"
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
        if change.startswith("+"):
            chosen.add(name)
        else:
            chosen.discard(name)
    return tuple(name for name in RULES if name in chosen)


def fill_rule_params(cfg, rule_names) -> None:
    """Set the kernel switches of ``rule_names`` in ``cfg`` (in the table's order: a later rule
    that sets the same switch wins, as epoch-truncation-loop does over epoch-truncation)."""
    for name in RULES:
        if name in rule_names:
            rule = RULES[name]
            cfg[rule.param] = rule.value
