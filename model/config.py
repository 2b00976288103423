"""``ModelConfig``: the Kafka configuration being checked and the bounds of the exploration.

Field names are Kafka's configuration keys in snake_case (``min.insync.replicas`` ->
``min_insync_replicas``). ``from_kafka_properties`` accepts the dotted names.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace

from model.constants import ACKS_CHOICES, CRASH_MODELS, HW_CHECKPOINT_MODES
from model.errors import ConfigError
from model.releases import parse_version, release_notes, rules_release
from model.rules import (
    GROUPS, RULES, apply_rule_changes, check_mandatory, check_protocol, ignored_settings,
    parse_rule_change, release_rules, rules_of, without_unmet,
)

MAX_REPLICATION_FACTOR = 5
MAX_BOUND = 60
"""The largest bound any engine takes: the compiled kernel holds every value in an int8 and the
symbolic engine in 8-bit arithmetic, with room for the ``+ 1``s; a bound near it could never be
explored anyway (``model.estimate`` says how large a space is)."""


def _bound(default: int, help: str, *, fault: bool = False):
    """A bound's field: its default and its one-line help (the CLI option, the gate key and
    the docs are all generated from these). A *fault* bound counts an environment event that
    kmc leaves out unless asked (0 by default: such events cost nothing when off)."""
    return field(default=default, metadata={"help": help, "fault": fault})


@dataclass(frozen=True)
class Bounds:
    """Explicit limits of the explored behaviours; every result prints them.

    Each field is a CLI option (``--max-records``), a gate key (``max-records``) and a key of
    the result's ``bounds``; adding a field here adds all three.

    Attributes:
        max_records: records the producer sends in total.
        max_leader_epoch: the highest leader epoch the controller may reach (the partition starts
            in epoch 0, so this is the number of elections and controller ISR changes).
        max_crashes: broker crashes in total.
        max_unflushed_losses: crashes that lose unflushed records (power-loss crash model only).
        max_controlled_shutdowns: brokers stopped cleanly through the controller (fault bound).
        max_session_expiries: times the controller declares a running broker dead (ZooKeeper
            session expiry, KRaft missed heartbeats) (fault bound).
        max_controller_failovers: ZooKeeper-mode controller failovers, each leaving a zombie
            controller behind (fault bound).
        max_delayed_fetches: fetch requests that stay in flight while their sender moves on
            (crashes, truncates, restarts) and reach the leader later (fault bound).
        max_retries: produce requests the producer sends again after an error or a timeout, in
            total (Kafka's ``retries`` and ``delivery.timeout.ms``, abstracted as a bound; 0: every
            record is sent once, as before) (fault bound; ``--retries`` on the command line).
        max_preferred_elections: preferred-replica elections, manual (``ElectLeaders``
            PREFERRED) or automatic (``auto.leader.rebalance.enable``) (operator bound).
        max_reassignments: reassignments that put the same replicas in another order
            (``AlterPartitionReassignments``), which change who the preferred replica is and the
            order every election reads (operator bound).
        max_consumer_restarts: consumer crashes, each followed by a new consumer of the group
            resuming from the committed offset (fault bound; only with a consumer:
            ``ModelConfig.consumer_commit``).
        max_producer_epoch_bumps: times the idempotent producer gives up a record (a batch
            answered with an error it does not retry: non-retriable with retries left, or
            OUT_OF_ORDER_SEQUENCE_NUMBER) and bumps its epoch (KIP-360, 2.5+:
            ``TransactionManager.bumpIdempotentProducerEpoch``), with the in-flight records'
            sequences rewritten from 0 at the new epoch (fault bound; needs enable.idempotence and
            ``--retries``).
        max_stale_metadata_reads: times a KRaft leader (3.3+) asks the controller to add a
            follower to the ISR on its own lagging metadata cache, which still shows the follower
            unfenced and not in a controlled shutdown while the controller has fenced it or has
            it shutting down (``Partition.isReplicaIsrEligible``; the controller refuses it,
            INELIGIBLE_REPLICA) (fault bound).
    """

    max_records: int = _bound(2, "records the producer sends")
    max_leader_epoch: int = _bound(
        2, "highest leader epoch (elections and controller-side ISR changes)")
    max_crashes: int = _bound(1, "broker crashes")
    max_unflushed_losses: int = _bound(
        1, "crashes that lose data (power-loss: unflushed records; disk-loss: the whole disk)")
    max_controlled_shutdowns: int = _bound(
        0, "brokers stopped cleanly through the controller (controlled shutdown)", fault=True)
    max_session_expiries: int = _bound(
        0, "times the controller declares a running broker dead (ZooKeeper session expiry / "
           "KRaft missed heartbeats)", fault=True)
    max_controller_failovers: int = _bound(
        0, "ZooKeeper controller failovers, each leaving a zombie controller", fault=True)
    max_delayed_fetches: int = _bound(
        0, "fetch requests delayed in flight while their sender moves on", fault=True)
    max_retries: int = _bound(
        0, "produce requests sent again after an error or a timeout (the producer's retries)",
        fault=True)
    max_preferred_elections: int = _bound(
        0, "preferred-replica elections (ElectLeaders PREFERRED, or auto.leader.rebalance.enable)",
        fault=True)
    max_reassignments: int = _bound(
        0, "reassignments that reorder the partition's replicas (AlterPartitionReassignments)",
        fault=True)
    max_consumer_restarts: int = _bound(
        0, "consumer crashes, each resumed from the committed offset (with --consumer-commit)",
        fault=True)
    max_producer_epoch_bumps: int = _bound(
        0, "idempotent producer epoch bumps after a batch fails (KIP-360, 2.5+; with "
           "enable.idempotence and --retries)", fault=True)
    max_stale_metadata_reads: int = _bound(
        0, "KRaft ISR expansions a leader proposes on its lagging metadata cache (a follower the "
           "controller has fenced or has shutting down)", fault=True)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_BOUND:
                raise ConfigError(
                    f"bound {f.name.replace('_', '-')} must be a whole number from 0 to {MAX_BOUND}, "
                    f"got {value!r}"
                )

    def as_dict(self) -> dict:
        return asdict(self)

    def faults(self) -> dict:
        """The fault bounds that are on (non-zero), by name."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.metadata.get("fault") and getattr(self, f.name)}


MAX_IDEMPOTENT_IN_FLIGHT = 5
"""The producer refuses enable.idempotence with more requests in flight (KAFKA-5494, 1.0: the
broker keeps the last 5 batches of each producer, ``ProducerStateEntry.NumBatchesToRetain``)."""


def check_producer(config: "ModelConfig") -> None:
    """A ``ConfigError`` for producer settings the Kafka producer itself refuses
    (``ProducerConfig.postProcessAndValidateIdempotenceConfigs``), or a release without them."""
    inflight = config.max_in_flight_requests_per_connection
    if not isinstance(inflight, int) or isinstance(inflight, bool) or not 1 <= inflight <= MAX_BOUND:
        raise ConfigError(f"max.in.flight.requests.per.connection must be a whole number from 1 "
                          f"to {MAX_BOUND}, got {inflight!r}")
    if config.enable_idempotence not in (None, True, False):
        raise ConfigError(f"enable.idempotence must be true or false, got {config.enable_idempotence!r}")
    lacking = (f"which Kafka {config.kafka_version} does not have" if config.kafka_version
               else "which these rules do not have")
    if config.bounds.max_producer_epoch_bumps:
        if "idempotent-epoch-bump" not in config.rules:
            raise ConfigError(f"--max-producer-epoch-bumps needs the idempotent producer's epoch "
                              f"bump (KIP-360, Kafka 2.5), {lacking}"
                              + ("" if config.kafka_version else "; use --kafka-version 2.5 or later"))
        missing = []
        if not config.idempotent:
            missing.append("enable.idempotence is off (Kafka's default before 3.0; "
                           "--enable-idempotence turns it on)")
        if not config.bounds.max_retries:
            missing.append("the producer never retries (--retries N, N >= 1)")
        if missing:
            raise ConfigError("--max-producer-epoch-bumps needs an idempotent producer that "
                              "retries: " + "; ".join(missing))
    if not config.enable_idempotence:
        return
    if "idempotent-producer" not in config.rules:
        raise ConfigError(f"enable.idempotence needs the idempotent producer (KIP-98, Kafka 0.11), "
                          f"{lacking}")
    if config.acks != "all":
        raise ConfigError(f"enable.idempotence=true needs acks=all, got acks={config.acks} (the "
                          "Kafka producer refuses it: ConfigException)")
    most = MAX_IDEMPOTENT_IN_FLIGHT if "producer-state-five-batches" in config.rules else 1
    if inflight > most:
        why = ("KAFKA-5494, 1.0: the broker checks the last 5 batches of a producer"
               if most > 1 else "0.11 checks only the last batch of a producer; 1.0 allows 5, "
                                "KAFKA-5494")
        raise ConfigError(f"enable.idempotence=true needs max.in.flight.requests.per.connection <= "
                          f"{most}, got {inflight} ({why}; the Kafka producer refuses it)")


CONSUMER_COMMITS = ("before", "after")
"""When the model's consumer commits its position: before or after processing the record."""


def check_consumer(config: "ModelConfig") -> None:
    """A ``ConfigError`` for a consumer setting the model cannot take."""
    if config.consumer_commit not in ("",) + CONSUMER_COMMITS:
        raise ConfigError(f"consumer commit must be before or after (processing), got "
                          f"{config.consumer_commit!r}")
    if config.bounds.max_consumer_restarts and not config.consumer_commit:
        raise ConfigError("--max-consumer-restarts needs a consumer: give --consumer-commit "
                          "before or after")


BOUND_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Bounds))
"""Every bound, in order: ``max_records`` ... (the option is ``--max-records``)."""

BOUND_HELP: dict[str, str] = {f.name: f.metadata["help"] for f in fields(Bounds)}


def default_bounds(replication_factor: int) -> Bounds:
    """The default bounds for a replication factor: the smallest that still reproduce the
    known-results rows for it, chosen so that ``kmc check`` with defaults answers within about a
    minute on a laptop-sized machine (see ``docs/model.md``, "Bounds")."""
    if replication_factor <= 2:
        return Bounds(max_records=2, max_leader_epoch=2, max_crashes=1, max_unflushed_losses=1)
    return Bounds(max_records=1, max_leader_epoch=2, max_crashes=1, max_unflushed_losses=1)


@dataclass(frozen=True)
class ModelConfig:
    """One partition's configuration.

    Attributes:
        protocol: the replication protocol variant (``kmc list`` shows them).
        replication_factor: number of replicas, 2 to 5.
        min_insync_replicas: ``min.insync.replicas``.
        acks: the producer's ``acks``: "0", "1" or "all" ("-1" is accepted as "all").
        unclean_leader_election_enable: ``unclean.leader.election.enable``.
        crash_model: "process" (a crash keeps the log), "power-loss" (unflushed records are
            lost) or "disk-loss" (the disk is replaced: the whole log is lost).
        bounds: the exploration bounds.
        symmetry: explore states that differ only by renaming brokers 1..N-1 once (see
            ``model/kernel/symmetry.py``); turn off for properties that single out a broker.
        kafka_version: the Kafka release ("X.Y") whose rules apply, or "" for the rules of
            ``protocol`` (a named preset).
        rule_changes: ``+NAME`` / ``-NAME`` changes to those rules (``--rule``), in order.
        hw_checkpoint: "immediate" (kmc's default abstraction: the HW checkpoint file always
            holds the current HW) or "interval" (Kafka's behaviour: it is written every
            ``replica.high.watermark.checkpoint.interval.ms``, so a restart can bring back an
            older HW).
        fetch_from_followers: consumers may read from followers (KIP-392, Kafka 2.4+, with
            ``replica.selector.class`` set); judged by the ``no-read-loss`` property.
        track_reads: the state keeps the history of what consumers could read (set by
            ``check`` when ``no-read-loss`` is asked for).
        enable_idempotence: the producer's ``enable.idempotence`` (KIP-98); None = the release's
            default (on since 3.0, KIP-679, unless acks or max.in.flight conflict: KAFKA-13598).
            Judged only when the producer retries (``--retries``/``max_retries`` > 0): a
            record sent once cannot be written twice either way.
        max_in_flight_requests_per_connection: the producer's
            ``max.in.flight.requests.per.connection``: produce requests it has sent and not yet
            had answered (only with ``max_retries`` > 0; without, records are sent one after the
            other with no limit, as before).
        consumer_commit: "" (no consumer is modelled, as before), "before" (the consumer commits
            its position before it processes the record: at-most-once) or "after" (it
            processes, then commits: at-least-once); auto-commit is either, by whether the
            application finishes a poll's records before the next poll (see
            ``model/kernel/actions/consumer.py``); its crashes are a bound,
            ``bounds.max_consumer_restarts``.
    """

    protocol: str = "kip-320"
    replication_factor: int = 3
    min_insync_replicas: int = 2
    acks: str = "all"
    unclean_leader_election_enable: bool = False
    crash_model: str = "process"
    bounds: Bounds = Bounds()
    symmetry: bool = True
    kafka_version: str = ""
    rule_changes: tuple = ()
    hw_checkpoint: str = "immediate"
    fetch_from_followers: bool = False
    track_reads: bool = False
    enable_idempotence: bool | None = None
    max_in_flight_requests_per_connection: int = 5
    consumer_commit: str = ""

    def __post_init__(self) -> None:
        acks = str(self.acks).strip().lower()
        if acks == "-1":
            acks = "all"
        if acks not in ACKS_CHOICES:
            raise ConfigError(f"acks must be 0, 1, all or -1, got {self.acks!r}")
        object.__setattr__(self, "acks", acks)
        rf = self.replication_factor
        if not isinstance(rf, int) or not 2 <= rf <= MAX_REPLICATION_FACTOR:
            raise ConfigError(
                f"replication factor must be between 2 and {MAX_REPLICATION_FACTOR}, got {rf!r}"
            )
        mir = self.min_insync_replicas
        if not isinstance(mir, int) or mir < 1:
            raise ConfigError(f"min.insync.replicas must be >= 1, got {mir!r}")
        if mir > rf:
            raise ConfigError(
                f"min.insync.replicas={mir} is larger than the replication factor {rf}: "
                "no acks=all write could ever succeed; lower it or raise --replication-factor"
            )
        if self.crash_model not in CRASH_MODELS:
            raise ConfigError(
                f"unknown crash model {self.crash_model!r}; choose one of {', '.join(CRASH_MODELS)}"
            )
        if self.hw_checkpoint not in HW_CHECKPOINT_MODES:
            raise ConfigError(f"unknown HW checkpoint mode {self.hw_checkpoint!r}; choose one of "
                              f"{', '.join(HW_CHECKPOINT_MODES)}")
        check_protocol(self.protocol)  # raises ConfigError naming the known protocols
        object.__setattr__(self, "rule_changes", tuple(
            parse_rule_change(c) for c in self.rule_changes))
        if self.kafka_version:
            object.__setattr__(self, "kafka_version", str(parse_version(self.kafka_version)))
            check_mandatory(self.kafka_version, self.rules)
        self._check_added_rules_apply()
        if self.bounds.max_controller_failovers and "kraft" in self.rules:
            raise ConfigError(
                "--max-controller-failovers models ZooKeeper-mode controllers; a KRaft "
                "controller is a Raft quorum whose deposed leader cannot commit (use --rule "
                "-kraft for a 3.x cluster in ZooKeeper mode)")
        check_producer(self)
        check_consumer(self)

    def _check_added_rules_apply(self) -> None:
        """A ``ConfigError`` if a rule turned on with ``--rule +NAME`` would be dropped because a
        rule it requires is not in force (a KRaft-only rule on a ZooKeeper release): it would
        look in force in the command line and not be. A rule dropped because the user turned
        its requirement off (``--rule -kraft`` on 3.3) is what was asked for, and stays quiet."""
        base = release_rules(self.kafka_version) if self.kafka_version else rules_of(self.protocol)
        asked = apply_rule_changes(base, self.rule_changes)
        in_force = set(self.rules)
        for change in self.rule_changes:
            if not change.startswith("+"):
                continue
            for name in GROUPS.get(change[1:], (change[1:],)):
                if name in asked and name not in in_force:
                    missing = [r for r in RULES[name].requires if r not in in_force]
                    off = [m for m in missing if m in base]
                    if off:
                        raise ConfigError(
                            f"--rule +{name} needs {', '.join(off)}, which "
                            f"{' '.join('--rule -' + m for m in off)} turned off")
                    where = (f"Kafka {self.kafka_version}" if self.kafka_version
                             else f"--protocol {self.protocol}")
                    raise ConfigError(
                        f"--rule +{name} needs {', '.join(missing)}, which {where} does not "
                        f"have: add {' '.join('--rule +' + m for m in missing)} or pick a "
                        f"release that has it")

    @property
    def idempotent(self) -> bool:
        """Is the idempotent producer in force (KIP-98)? ``enable_idempotence`` if given, else
        the release's default: on since 3.0 (KIP-679, rule ``idempotence-by-default``) unless
        acks is not all or more than 5 requests may be in flight, which turn the default off
        (KAFKA-13598, 3.0.1/3.1.1/3.2)."""
        if self.enable_idempotence is not None:
            return self.enable_idempotence
        return ("idempotence-by-default" in self.rules and self.acks == "all"
                and self.max_in_flight_requests_per_connection <= MAX_IDEMPOTENT_IN_FLIGHT)

    @property
    def rules(self) -> tuple:
        """The protocol rules in force (``model/rules.py``): those of ``kafka_version`` if given,
        else of the ``protocol`` preset, with ``rule_changes`` applied."""
        if self.kafka_version:
            base = release_rules(self.kafka_version)
        else:
            base = rules_of(self.protocol)
        return without_unmet(apply_rule_changes(base, self.rule_changes))

    @property
    def rules_release(self) -> str:
        """The release whose rules are used: ``kafka_version``, or the newest release kmc
        models for a newer one ("" without a version)."""
        return str(rules_release(parse_version(self.kafka_version))) if self.kafka_version else ""

    @property
    def ignored(self) -> dict:
        """The settings given that the rules in force ignore, by Kafka name, each with why
        (``model.rules.ignored_settings``: the KRaft controller before 3.9 and
        ``unclean.leader.election.enable``). A setting left at its default is not listed."""
        out = {}
        for setting, rule in ignored_settings(self.rules):
            if getattr(self, setting):
                out[setting.replace("_", ".")] = (
                    f"the rule {rule.name} (Kafka {rule.releases}, {rule.source.split(' (')[0]}) "
                    "is off")
        return out

    def notes(self) -> list[str]:
        """Lines every result of this configuration carries: a release kmc does not model as
        itself (checked with the newest modelled release's rules), and settings its rules
        ignore (checked as if at their defaults)."""
        lines = release_notes(parse_version(self.kafka_version)) if self.kafka_version else []
        where = f" in Kafka {self.kafka_version}" if self.kafka_version else ""
        for setting, why in self.ignored.items():
            lines.append(f"warning: {setting}=true is not in force{where}: {why}, so the "
                         "setting is ignored and the check runs as if it were false")
        return lines

    @property
    def broker_ids(self) -> tuple:
        return tuple(range(self.replication_factor))

    def with_bounds(self, **changes: int) -> "ModelConfig":
        return replace(self, bounds=replace(self.bounds, **changes))

    def as_dict(self) -> dict:
        """Kafka-named configuration and bounds, for results and trace files."""
        return {
            "protocol": self.protocol,
            "replication.factor": self.replication_factor,
            "min.insync.replicas": self.min_insync_replicas,
            "acks": self.acks,
            "unclean.leader.election.enable": self.unclean_leader_election_enable,
            "crash.model": self.crash_model,
            "bounds": self.bounds.as_dict(),
            "symmetry": self.symmetry,
            "kafka.version": self.kafka_version,
            "rule.changes": list(self.rule_changes),
            "rules": list(self.rules),
            **({"rules.release": self.rules_release}
               if self.rules_release != self.kafka_version else {}),
            **({"ignored": sorted(self.ignored)} if self.ignored else {}),
            "hw.checkpoint": self.hw_checkpoint,
            "fetch.from.followers": self.fetch_from_followers,
            "track.reads": self.track_reads,
            **self._producer_dict(),
            **({"consumer.commit": self.consumer_commit} if self.consumer_commit else {}),
        }

    def _producer_dict(self) -> dict:
        """The producer's settings, when they matter (the producer retries) or were given: so
        the results and trace files of runs without retries read as before."""
        if not (self.bounds.max_retries or self.enable_idempotence is not None
                or self.max_in_flight_requests_per_connection != 5):
            return {}
        return {"enable.idempotence": self.enable_idempotence,
                "idempotent": self.idempotent,
                "max.in.flight.requests.per.connection": self.max_in_flight_requests_per_connection}

    @classmethod
    def from_dict(cls, data: dict) -> "ModelConfig":
        """Inverse of ``as_dict`` (trace files store the configuration this way)."""
        try:
            return cls(
                protocol=data["protocol"],
                replication_factor=int(data["replication.factor"]),
                min_insync_replicas=int(data["min.insync.replicas"]),
                acks=str(data["acks"]),
                unclean_leader_election_enable=bool(data["unclean.leader.election.enable"]),
                crash_model=data["crash.model"],
                bounds=_bounds_from_dict(data),
                symmetry=bool(data.get("symmetry", True)),
                kafka_version=str(data.get("kafka.version", "") or ""),
                rule_changes=tuple(data.get("rule.changes", ()) or ()),
                hw_checkpoint=str(data.get("hw.checkpoint", "immediate")),
                fetch_from_followers=bool(data.get("fetch.from.followers", False)),
                track_reads=bool(data.get("track.reads", False)),
                enable_idempotence=data.get("enable.idempotence"),
                max_in_flight_requests_per_connection=int(
                    data.get("max.in.flight.requests.per.connection", 5)),
                consumer_commit=str(data.get("consumer.commit", "") or ""),
            )
        except (KeyError, TypeError) as e:
            raise ConfigError(f"configuration is missing or has a malformed field: {e}") from None


def _bounds_from_dict(data: dict) -> Bounds:
    """``data["bounds"]`` as ``Bounds``. Trace files written before the consumer's restart bound
    became a bound (issue 26d) keep it beside the bounds, as ``max.consumer.restarts``."""
    bounds = dict(data["bounds"])
    if "max.consumer.restarts" in data and "max_consumer_restarts" not in bounds:
        bounds["max_consumer_restarts"] = int(data["max.consumer.restarts"])
    return Bounds(**bounds)
