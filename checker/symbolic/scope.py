"""Which rule sets the symbolic engine encodes, and one line for those it does not.

The z3 encoding (``transitions.py``) has the rules of every Kafka release kmc models, 0.8 to 4.4
(``ENCODED_THROUGH``): ZooKeeper's to 3.2 and KRaft's from 3.3. That is the four protocol
presets, Kafka's ordered elections and in-order LeaderAndIsr (issue 29), kmc 0.1's two switches,
the time abstraction, the over-approximation ``unordered-leader-moves``, 2.2's ``broker-epoch``
(KIP-380, issue 29e), 2.7's ``alter-partition`` (KIP-497) and 3.1's HW on its answer
(``ALTER_PARTITION_RULES``, issue 29i; also by name on older releases: ``--kafka-version 2.1
--rule +alter-partition``), KRaft's 3.3 ISR rules ``isr-eligibility`` and
``alter-partition-shrink-bumps-leader-epoch`` (``KRAFT_RULES``, issue 29f) and the metadata log
itself, ``kraft`` (``KRAFT_LOG_RULES``, issue 29m), with 3.6's ``isr-shrink-keeps-leader-epoch``
and 3.9's ``kraft-unclean-election`` by name on 3.3 (their releases also need 3.5's
``broker-epoch-in-fetch``). The fencing rules (``FENCING_RULES``, issue 29h): KIP-903's broker
epochs in fetches, KAFKA-15221's stale fetch (a no-op without delayed fetches) and KAFKA-15583's
HW under min.insync.replicas (on any release); with the metadata log they make 3.5 to 4.0.
KIP-966's ELR (``ELR_RULES``, issue 29l; on KRaft's paths since issue 29n) makes 4.1 and 4.2
(4.3 and 4.4 have 4.2's rules). ``crosscheck.MechanismAlone`` still holds
a KRaft rule to the kernel on a ZooKeeper rule set, for mechanisms that have no release. ``kmc prove`` and ``--engine bmc`` call ``require_encoded``
before building anything, so a release it lacks gets one line naming the rules, not the
oracle's longer refusal.

Of the fault bounds it has the operator's leader moves (``OPERATOR_BOUNDS``:
``--max-preferred-elections``, ``--max-reassignments``), a fetch held up in flight
(``FAULT_BOUNDS``: ``--max-delayed-fetches``, issue 29z), controlled shutdowns and session
expiries (``--max-controlled-shutdowns``, ``--max-session-expiries``, issue 29ac) and
ZooKeeper controller failovers (``--max-controller-failovers``, issue 29ak) and a KRaft
leader's ISR expansion on a stale metadata cache (``--max-stale-metadata-reads``, issue 29bc)
and the consumer with its restarts (``--consumer-commit``, ``--max-consumer-restarts``, issue
29be; ``CONSUMER``), which the oracle lacks: for those
``symbolic_model`` gives the oracle of the configuration without them (the switches the encoding
reads) with the traces replayed in the compiled kernel instead. The same holds for the rules the
encoding has and the oracle lacks (``ORACLE_LACKS``: ``broker-epoch``, the AlterPartition rules
and ``KRAFT_RULES``). Any other fault bound gets one line naming it (``require_encoded``; none
is left since issue 29be). What consumers read (``track_reads``, the history of
``no-read-loss``) and KIP-392's fetch from followers are encoded since issue 29bf
(``Encoder.record_reads``); the oracle lacks both, so the engine is built on
``KernelReplayed`` (``without_reads``), as it is for the consumer (``without_consumer``).
All three crash models are encoded (``CRASH_MODELS``); the oracle lacks the disk loss (issue
29aj), so it too is built on ``KernelReplayed`` (``without_disk_loss``).
"""

from __future__ import annotations

from dataclasses import replace

from checker.reference import UNORDERED, make_reference_model, reference_supports
from model.errors import ConfigError
from model.releases import RELEASES, ZOOKEEPER_REMOVED_IN, as_version
from model.rules import KMC_0_1, RULES, TIMED, release_rules, rules_of

ENCODED_THROUGH = "4.4"
"""The newest Kafka release whose rule set the encoding has (``kmc prove --kafka-version``)."""


def encoded_rules() -> frozenset:
    """Every rule the encoding has: those of the releases through ``ENCODED_THROUGH``, kmc 0.1's
    and the time abstraction's switches, and the over-approximation of leader moves."""
    names = {n for v in RELEASES if v <= as_version(ENCODED_THROUGH) for n in release_rules(v)}
    return frozenset(names | set(KMC_0_1) | set(TIMED) | {"unordered-leader-moves"}
                     | set(ALTER_PARTITION_RULES) | set(KRAFT_RULES) | set(KRAFT_LOG_RULES)
                     | set(FENCING_RULES) | set(ELR_RULES))


ALTER_PARTITION_RULES = ("alter-partition", "hw-on-alter-partition-answer")
"""KIP-497's AlterPartition (Kafka 2.7) and 3.1's HW on its answer: encoded (issue 29i), so with
29e's broker epochs the releases 2.7 to 3.2 are, and by name on older releases too. The oracle
lacks them: ``symbolic_model`` replays traces in the kernel (``KernelReplayed``)."""

KRAFT_RULES = ("isr-eligibility", "alter-partition-shrink-bumps-leader-epoch")
"""The KRaft releases' (3.3-3.6) ISR rules the encoding has (issue 29f): KAFKA-15021's leader
epoch on an AlterPartition shrink (3.3-3.5) and KIP-841's ISR eligibility (3.3). Both require
``kraft`` (encoded since issue 29m, ``KRAFT_LOG_RULES``), and ``--kafka-version 2.7 --rule
+NAME`` is refused (``ModelConfig``); ``crosscheck.MechanismAlone`` also holds them to the kernel
on a ZooKeeper rule set. The oracle lacks them (``ORACLE_LACKS``)."""


KRAFT_LOG_RULES = ("kraft", "isr-shrink-keeps-leader-epoch", "kraft-unclean-election")
"""KRaft's metadata log (``kraft``, KIP-500/631, 3.3; issue 29m): each broker's pending
``PartitionChangeRecord``, BrokerApplyPartitionChange, KIP-704's leader recovery and KRaft's paths
in AlterPartition, elections and reassignments; with it 3.3's ``KRAFT_RULES`` are reached by
release, so the releases 3.3 and 3.4 are encoded. Also by name on 3.3:
``isr-shrink-keeps-leader-epoch`` (3.6, KAFKA-15021: the controller's own ISR shrink keeps the
leader epoch) and ``kraft-unclean-election`` (3.9, KAFKA-12670: KRaft honours
unclean.leader.election.enable), whose releases also need 3.5's ``broker-epoch-in-fetch``. The
oracle lacks them (``ORACLE_LACKS``)."""


ELR_RULES = ("eligible-leader-replicas", "last-known-leader-check", "isr-shrink-out-of-sync-set",
             "last-known-leader-when-leaderless")
"""KIP-966's rules (issue 29l): the eligible leader replicas and last known leader (4.1),
KAFKA-19522's check on the last known leader (4.1), 4.0's out-of-sync set in one AlterPartition
(action LeaderShrinkIsrSet) and 4.2's last known leader recorded when leaderless. All require
``kraft`` (through ``eligible-leader-replicas``); since issue 29n their controller paths follow
KRaft's, so Kafka 4.1 and 4.2 are reached by release (``crosscheck.MechanismAlone`` still holds
them on ZooKeeper rule sets); the encoding takes them with broker epochs only (``Encoder``). The oracle lacks them (``ORACLE_LACKS``)."""


FENCING_RULES = ("broker-epoch-in-fetch", "stale-fetch-rejected", "hw-needs-min-isr")
"""Fencing rules of the KRaft releases the encoding has (issue 29h): KIP-903's broker epochs in
fetches and ISR changes (3.5), KAFKA-15221's stale fetch (3.7: it acts only on a fetch held up
in flight, ``--max-delayed-fetches``, encoded since issue 29z; without it it changes nothing)
and KAFKA-15583's HW under min.insync.replicas (3.7). The first two require ``kraft`` (through ``alter-partition``
and ``broker-epoch-in-fetch``), so only ``crosscheck.MechanismAlone`` reaches them until the
metadata log is encoded; ``hw-needs-min-isr`` requires nothing and is accepted on any encoded
release (``--kafka-version 2.7 --rule +hw-needs-min-isr``). The oracle lacks all three
(``ORACLE_LACKS``)."""


def lacking_rules(config) -> list[str]:
    """The rules of ``config`` the encoding does not have, in the rule table's order. The
    producer's rules act only when the producer retries, a fault bound the engine refuses on its
    own, so they are not listed."""
    have = encoded_rules()
    if "kraft" in config.rules:  # rules encoded on ZooKeeper's paths only (NOT_WITH_KRAFT)
        have = have - set(NOT_WITH_KRAFT)
    return [n for n in config.rules if n not in have and not RULES[n].producer]


NOT_WITH_KRAFT = ()
"""Rules encoded only as mechanisms on ZooKeeper rule sets (``crosscheck.MechanismAlone``), not
together with ``kraft``, and so refused as lacking with it. Empty since issue 29n: the ELR's
controller paths (the broker failure and the unclean-shutdown restart, issue 29l) follow KRaft's
(3.6's shrink that keeps the leader epoch as a pending change, KIP-704's recovery after a
last-known-leader or unclean election; ``Encoder.shrink_without``)."""


OPERATOR_BOUNDS = ("max_preferred_elections", "max_reassignments")

FAULT_BOUNDS = ("max_delayed_fetches", "max_controlled_shutdowns", "max_session_expiries",
                "max_controller_failovers", "max_retries", "max_producer_epoch_bumps",
                "max_stale_metadata_reads", "max_consumer_restarts")
"""The world's faults the encoding has beside the crashes (issue 29z): a fetch held up in flight
(``--max-delayed-fetches``, ``Encoder._enc_FetchDelayed``); since issue 29ac a controlled
shutdown (``--max-controlled-shutdowns``, ``Encoder._enc_ControllerHandleControlledShutdown``
and ``_enc_BrokerShutdown``) and a session expiry (``--max-session-expiries``,
``Encoder._enc_ControllerFenceBroker`` and ``_enc_ControllerUnfenceBroker``); since issue 29ak a
ZooKeeper controller failover (``--max-controller-failovers``, ``Encoder._enc_ControllerFailover``,
``_enc_ZombieControllerSendLeaderAndIsr``, ``_enc_BrokerHandleZombieLeaderAndIsr``, and the
controller epoch of rule ``controller-epoch``; KRaft has no such failover, which the
configuration refuses); since issue 29aq the producer's retries without idempotence
(``--max-retries``, ``Encoder._enc_ProducerRetry`` and ``Encoder.may_send``), and since issue
29at the idempotent producer's (the leader's sequence check, ``Encoder.send_idempotent``) and
its epoch bumps (``--max-producer-epoch-bumps``, KIP-360: ``Encoder._enc_ProducerBumpEpoch``,
``Encoder.send_by_epoch``); since issue 29bc a KRaft leader's ISR expansion on a stale
metadata cache (``--max-stale-metadata-reads``, ``Encoder._enc_LeaderHandleFetchOnStaleMetadata``);
since issue 29be the consumer's restarts (``--max-consumer-restarts``, with ``--consumer-commit``:
``Encoder._enc_ConsumerRestart``; ``CONSUMER``). The oracle lacks them, so, as with ``OPERATOR_BOUNDS``, the engine is built on
``KernelReplayed``."""

CRASH_MODELS = ("process", "power-loss", "disk-loss")
"""The crash models the encoding has (``--crash-model``): all three the kernel has. The oracle
lacks ``disk-loss`` (``checker.reference.ORACLE_CRASH_MODELS``), so a disk-loss configuration is
built on ``KernelReplayed`` with the oracle of its process-crash twin (``without_disk_loss``;
issue 29aj: ``Encoder._enc_BrokerCrash``)."""

DISK_LOSS = "disk-loss"


def without_disk_loss(config):
    """``config`` with process crashes instead of disk loss: what the oracle can build. It answers
    what the encoding reads of the model (the protocol and its switches; ``power_loss`` False,
    as under disk loss no flushed offset is kept); the crash model itself the encoding reads from
    ``KernelReplayed.config``, the configuration asked for."""
    if config.crash_model != DISK_LOSS:
        return config
    return replace(config, crash_model="process")


def with_immediate_checkpoint(config):
    """``config`` with the HW checkpoint file following the HW (kmc's default): what the oracle
    can build. Under ``--hw-checkpoint interval`` the encoding reads the setting from
    ``KernelReplayed.config`` (``Dims.ckpt``; ``Encoder._enc_CheckpointHighWatermark``)."""
    if config.hw_checkpoint == "immediate":
        return config
    return replace(config, hw_checkpoint="immediate")


CONSUMER = "consumer_commit"
"""The consumer (``--consumer-commit``, issue 29be): encoded (``Encoder._enc_ConsumerFetch``,
``_enc_ConsumerProcess``, ``_enc_ConsumerCommit``, ``_enc_ConsumerRestart``; its restarts are
``FAULT_BOUNDS``). The oracle lacks it, so a configuration with a consumer is built on
``KernelReplayed`` with the oracle of the configuration without it (``without_consumer``): the
consumer changes no replica or controller state, which is all the encoding reads of the oracle."""


def without_consumer(config):
    """``config`` without the consumer (and so without its restarts, a bound only a consumer
    may have): what the oracle can build (issue 29be)."""
    if not config.consumer_commit:
        return config
    return replace(config, consumer_commit="",
                   bounds=replace(config.bounds, max_consumer_restarts=0))


def without_reads(config):
    """``config`` without what consumers read (issue 29bf): ``track_reads`` (the history
    ``no-read-loss`` judges) and ``--fetch-from-followers`` (KIP-392, which acts only on that
    history: the kernel's ``record_reads``). The oracle has neither; the encoding reads both
    from ``KernelReplayed.config`` (``Dims.reads``, ``Dims.followers``;
    ``Encoder.record_reads``)."""
    if not (config.track_reads or config.fetch_from_followers):
        return config
    return replace(config, track_reads=False, fetch_from_followers=False)


def without_operator_moves(config):
    """``config`` with the operator's bounds (and ``FAULT_BOUNDS``) at 0: what the oracle can
    build."""
    return replace(config, bounds=replace(config.bounds,
                                          **{b: 0 for b in OPERATOR_BOUNDS + FAULT_BOUNDS}))


ORACLE_LACKS = (("broker-epoch",) + ALTER_PARTITION_RULES + KRAFT_RULES + KRAFT_LOG_RULES
                + FENCING_RULES + ELR_RULES)
"""Rules the encoding has and the oracle (kmc 0.1's model) lacks: with one of them the engine is
built on ``KernelReplayed`` (the oracle of the configuration without them answers what the
encoding reads; traces replay in the compiled kernel, which has them). ``broker-epoch`` is a
guard on BrokerRestart only (``Encoder.restart_waits_for_failure``, issue 29e); the
AlterPartition rules are issue 29i's, ``KRAFT_RULES`` issue 29f's."""


def without_oracle_lacks(config):
    """``config`` without the rules of ``ORACLE_LACKS``, nor any rule that requires one of them
    (turned off by ``--rule -NAME``, a rule before the rule it requires: 3.1's HW on the answer
    before ``alter-partition``), so no ``+NAME`` of the user's is left without its requirement."""
    gone = {n for n in ORACLE_LACKS if n in config.rules}
    while True:
        more = {n for n in config.rules if n not in gone and set(RULES[n].requires) & gone}
        if not more:
            break
        gone |= more
    drop = tuple(f"-{n}" for n in reversed(list(RULES)) if n in gone)
    if not drop:
        return config
    if config.kafka_version and as_version(config.rules_release) >= ZOOKEEPER_REMOVED_IN:
        # 4.0+ refuses ``-kraft`` (no ZooKeeper mode): the same rules, named from the protocol
        # preset instead of the release (the oracle reads only the rules, never the version)
        keep = [n for n in config.rules if n not in gone]
        base = rules_of(config.protocol)
        changes = (tuple(f"-{n}" for n in reversed(base) if n not in keep)
                   + tuple(f"+{n}" for n in keep if n not in base))
        return replace(config, kafka_version="", rule_changes=changes)
    return replace(config, rule_changes=config.rule_changes + drop)


def _flag(bound: str) -> str:
    """A bound's command-line flag (``max_retries`` is also ``--retries``)."""
    return "--" + bound.replace("_", "-")


def require_encoded(config) -> None:
    """A ``ConfigError`` (one line, exit 2) if the encoding lacks a rule or a fault bound of
    ``config``. Other refusals (the lagging HW checkpoint, a mix of encoded rules no preset has)
    are the oracle's (``checker.reference.make_reference_model``)."""
    if config.crash_model not in CRASH_MODELS:
        # a crash model the encoding (``Dims.of``, ``Encoder``) lacks would be taken for a
        # process crash, narrower than the kernel (a wrong PROVED): refused, should one be added
        raise ConfigError(
            f"kmc prove and --engine bmc have the crash models {', '.join(CRASH_MODELS)}, not "
            f"{config.crash_model} (docs/symbolic.md, 'What the encoding lacks'); kmc check "
            f"explores it")
    refused = [b for b in config.bounds.faults() if b not in OPERATOR_BOUNDS + FAULT_BOUNDS]
    if refused:
        # (since issue 29be every fault bound kmc has is encoded: the line is built from the
        # lists, for a bound added to ``Bounds`` before the encoding has it)
        raise ConfigError(
            f"kmc prove and --engine bmc have the fault bounds "
            f"{', '.join(_flag(b) for b in OPERATOR_BOUNDS + FAULT_BOUNDS)} but not "
            f"{', '.join(_flag(b) for b in refused)} (docs/symbolic.md, 'What "
            f"the encoding lacks'); kmc check explores it")
    # (no setting is refused since issues 29be and 29bf: the consumer, what consumers read and
    # fetch from followers are encoded, the lagging checkpoint since the lead's change)
    config = without_reads(with_immediate_checkpoint(without_disk_loss(without_operator_moves(
        without_consumer(config)))))
    lacking = lacking_rules(config)  # first: the rules asked for, as given
    if not lacking:
        return
    try:  # a lacking rule the oracle answers (its model has it) is no refusal
        kept = without_oracle_lacks(config)
    except ConfigError:  # (4.0+: no ZooKeeper mode to take ``kraft`` away from)
        kept = None
    # ... but not one that ``without_oracle_lacks`` dropped with the rule it requires (3.5's
    # broker-epoch-in-fetch goes with ``kraft``): the oracle would then answer without it
    if (kept is not None and all(n in kept.rules for n in lacking)
            and reference_supports(with_preset_switches(kept))):
        return
    who = f"Kafka {config.kafka_version}" if config.kafka_version else "this rule set"
    raise ConfigError(
        f"kmc prove and --engine bmc encode Kafka's releases 0.8 to {ENCODED_THROUGH} (ZooKeeper "
        f"to 3.2, KRaft from 3.3); "
        f"{who} has rules the encoding lacks: {', '.join(lacking)} (docs/symbolic.md, 'What the "
        f"encoding lacks'); kmc check explores it")


KIP_320_SWITCHES = ("fenced-fetch", "epoch-cache-on-election", "truncate-on-epoch-change",
                    "isr-join-needs-epoch-start")
"""KIP-320's four fixes (Kafka 2.1), which the encoding reads from the rules as switches
(``Encoder.__init__``) and the oracle only as its ``kip-320`` preset: a rule set that differs
from its preset only by *taking away* some of them (``--kafka-version 2.1 --rule -fenced-fetch``)
is built on ``KernelReplayed``, with the oracle of the preset answering the rest (issue 29ah).

Adding one to a preset that lacks it (``--kafka-version 2.0 --rule +fenced-fetch``) is refused,
as before: the kernel reads the switch the same way, but no cross-check row covers an addition
(``checker/symbolic/crosscheck.py``), so the encoding of such a rule set is unchecked."""


def with_preset_switches(config):
    """``config`` with each rule of ``KIP_320_SWITCHES`` its protocol preset has and ``config``
    took away put back: the configuration whose oracle answers what the encoding reads besides
    those switches. A switch ``config`` added is left, so the oracle refuses it."""
    preset = set(rules_of(config.protocol))
    changes = tuple(f"+{n}" for n in KIP_320_SWITCHES if n in preset and n not in config.rules)
    return replace(config, rule_changes=config.rule_changes + changes) if changes else config


def with_preset_producer_rules(config):
    """``config`` with its producer rules (``Rule.producer``: they act only when the producer
    retries) set as its protocol preset has them, for the oracle, which has no retries (the
    bounds ``FAULT_BOUNDS`` zeroes) and reads no producer rule: 0.9's rule set is
    ``hw-truncation -in-flight-per-partition`` (KAFKA-3197, issue 29aq), which the encoding reads
    itself (``Encoder.per_partition``)."""
    preset = set(rules_of(config.protocol))
    changes = tuple(f"+{n}" for n in preset if RULES[n].producer and n not in config.rules)
    changes += tuple(f"-{n}" for n in config.rules if RULES[n].producer and n not in preset)
    return replace(config, rule_changes=config.rule_changes + changes) if changes else config


def switches_off_preset(config) -> bool:
    """Whether ``config`` took away a rule of ``KIP_320_SWITCHES`` its protocol preset has."""
    preset = set(rules_of(config.protocol))
    return any(n in preset and n not in config.rules for n in KIP_320_SWITCHES)


class KernelReplayed:
    """The model the symbolic engine is built on when the operator's leader moves are on, or a
    rule of ``ORACLE_LACKS`` (broker epochs, AlterPartition, KRaft's ISR rules): the oracle's model of
    the configuration without
    them answers what the encoding reads of it (the protocol and its switches), while ``config``
    is the configuration asked for and ``init_states``, ``next_state`` and ``canonical`` are the
    compiled kernel's, which has the moves and the rules (``bmc.decode_trace`` replays every
    trace through them)."""

    def __init__(self, config) -> None:
        from model.compiled_model import CompiledModel  # lazy: the kernel loads on first use

        self.oracle = make_reference_model(with_preset_producer_rules(with_preset_switches(
            without_oracle_lacks(without_operator_moves(without_disk_loss(
                with_immediate_checkpoint(without_reads(without_consumer(config)))))))))
        self.config = config
        self.kernel = CompiledModel(config)

    def __getattr__(self, name):
        return getattr(self.oracle, name)

    def init_states(self) -> list:
        return self.kernel.init_states()

    def next_state(self, state, act):
        return self.kernel.next_state(state, act)

    def canonical(self, state):
        return self.kernel.canonical(self.with_kernel_ranks(state))

    def with_kernel_ranks(self, state):
        """``state`` with each replica's ``assignment_rank`` the kernel's when no reassignment
        is in bounds: a state z3 decodes then carries the oracle's default ranks
        (``state.decode``), while the kernel's are the broker index, which no action changes.
        (Needed since ``broker-epoch`` builds on this class without the operator's moves.)"""
        if self.config.bounds.max_reassignments or UNORDERED in self.config.rules:
            return state  # (under ``unordered-leader-moves`` the kernel has no assignment order:
            # its ranks stay 0, as the oracle's; issue 29ah's LOOSE rows reached this)
        return state._replace(replicas=tuple(r._replace(assignment_rank=b)
                                             for b, r in enumerate(state.replicas)))


def symbolic_model(config):
    """The model ``Encoder`` and ``bmc_check`` take for ``config``: the oracle's, or, with the
    operator's leader moves or a rule the oracle lacks (``ORACLE_LACKS``), ``KernelReplayed``. Raises ``ConfigError`` for what the encoding
    lacks (``require_encoded``)."""
    require_encoded(config)
    try:
        if (any(getattr(config.bounds, b) for b in OPERATOR_BOUNDS + FAULT_BOUNDS)
                or any(n in config.rules for n in ORACLE_LACKS) or switches_off_preset(config)
                or config.crash_model == DISK_LOSS or config.hw_checkpoint != "immediate"
                or config.consumer_commit or config.track_reads
                or config.fetch_from_followers):
            return KernelReplayed(config)
        return make_reference_model(config)
    except ConfigError as e:  # the oracle's words point to --engine compiled, which kmc prove and
        # --engine bmc are not: say what the user can run instead (review s13)
        raise ConfigError(str(e).replace("need the compiled engine (--engine compiled)",
                                         "need the compiled engine: kmc check explores them")) from None
