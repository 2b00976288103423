"""What an operator controls, as one point of ``kmc advise``'s sweep, and the Kafka releases it
sweeps.

``Settings`` is one choice of the replication factor, the producer's ``acks``,
``min.insync.replicas``, ``unclean.leader.election.enable``, the flush policy and the Kafka
release. The flush policy is the crash model: ``flush.messages=1`` fsyncs every write, so a
crash loses nothing a replica had (crash model ``process``); Kafka's default leaves flushing to
the OS, so a broker that loses power loses its unflushed records (``power-loss``).

Settings are partially ordered from weak to strong, coordinate by coordinate: fewer replicas,
``acks`` 0 < 1 < all, a smaller ``min.insync.replicas``, unclean election on, the default flush.
Two settings of different releases are not compared (a release is not a setting one weakens).

The releases come from the rule table (``model.rules``): every release at which some rule starts
or stops, so a release added there (KRaft, 4.x) is swept without a change here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from model.config import Bounds, ModelConfig
from model.errors import ConfigError
from model.releases import is_kraft_release, parse_version
from model.rules import change_releases, protocol_of

ACKS = ("0", "1", "all")  # weak to strong
FLUSH_WORDS = {"power-loss": "default", "process": "every write"}
FLUSH_KAFKA = {
    "power-loss": "log.flush.interval.messages / flush.messages unset (Kafka's default: the OS flushes)",
    "process": "flush.messages=1 (fsync every write)",
}
CRASH_MODELS = ("power-loss", "process")  # weak to strong


@dataclass(frozen=True)
class Release:
    """The protocol rules a cell runs: a Kafka release (``kafka_version``), or a named protocol
    preset when the user gave ``--protocol`` and no version."""

    kafka_version: str
    protocol: str

    @property
    def label(self) -> str:
        return f"Kafka {self.kafka_version}" if self.kafka_version else f"protocol {self.protocol}"

    @property
    def mode(self) -> str:
        """How a release's brokers replicate, in a word: KRaft from 3.3, else the protocol
        generation (``kip-320`` ...)."""
        if self.kafka_version and is_kraft_release(parse_version(self.kafka_version)):
            return "KRaft"
        return self.protocol

    def to_json(self) -> dict:
        return {"kafka_version": self.kafka_version or None, "protocol": self.protocol}


def releases() -> tuple[Release, ...]:
    """Every release at which some protocol rule starts or stops (``model.rules``), oldest
    first."""
    return tuple(Release(str(v), protocol_of(v)) for v in change_releases())


def release_of(config: ModelConfig) -> Release:
    return Release(config.kafka_version, config.protocol)


@dataclass(frozen=True)
class Settings:
    """One cell of the sweep."""

    replication_factor: int
    acks: str
    min_insync_replicas: int
    unclean_leader_election_enable: bool
    crash_model: str
    release: Release

    @classmethod
    def of(cls, config: ModelConfig) -> "Settings":
        return cls(config.replication_factor, config.acks, config.min_insync_replicas,
                   config.unclean_leader_election_enable, config.crash_model, release_of(config))

    def config(self, base: ModelConfig, bounds: Bounds) -> ModelConfig:
        """``base`` (its rule changes and symmetry) with these settings and ``bounds``. A
        producer with ``acks`` other than all cannot be idempotent (Kafka's producer refuses
        ``enable.idempotence=true`` with it: ``ProducerConfig``'s ConfigException), nor under a
        release whose producer refuses it as configured (before 0.11, or 0.11 with more than one
        request in flight), so a user's ``enable.idempotence=true`` is dropped from those cells:
        without ``--retries`` the producer is not part of the state and nothing else changes;
        with it, those cells judge a producer without idempotence, as Kafka's would be."""
        if not base.enable_idempotence:
            return self._config(base, bounds, base.enable_idempotence)
        try:
            return self._config(base, bounds, True)
        except ConfigError:  # check_producer, run by ModelConfig: this cell's producer refuses it
            return self._config(base, bounds, False)

    def _config(self, base: ModelConfig, bounds: Bounds, idempotence) -> ModelConfig:
        return replace(
            base, replication_factor=self.replication_factor, acks=self.acks,
            enable_idempotence=idempotence,
            min_insync_replicas=self.min_insync_replicas,
            unclean_leader_election_enable=self.unclean_leader_election_enable,
            crash_model=self.crash_model, kafka_version=self.release.kafka_version,
            protocol=self.release.protocol, bounds=bounds)

    def but(self, **changes) -> "Settings":
        return replace(self, **changes)

    @property
    def flush(self) -> str:
        return FLUSH_WORDS[self.crash_model]

    def words(self, *, release: bool = False) -> str:
        text = (f"RF={self.replication_factor} acks={self.acks} "
                f"min.insync.replicas={self.min_insync_replicas} "
                f"unclean.leader.election.enable={str(self.unclean_leader_election_enable).lower()} "
                f"flush={self.flush}")
        return text + (f" ({self.release.label})" if release else "")

    def slug(self) -> str:
        """A file-name-safe name, e.g. ``rf3-acks-all-isr2-clean-flush-default-kafka-2.1``."""
        rel = (f"kafka-{self.release.kafka_version}" if self.release.kafka_version
               else self.release.protocol)
        return (f"rf{self.replication_factor}-acks-{self.acks}-isr{self.min_insync_replicas}-"
                f"{'unclean' if self.unclean_leader_election_enable else 'clean'}-"
                f"flush-{'default' if self.crash_model == 'power-loss' else 'every-write'}-{rel}")

    def strength(self) -> tuple:
        """Coordinates for the weak-to-strong order (each larger is stronger)."""
        return (self.replication_factor, ACKS.index(self.acks), self.min_insync_replicas,
                0 if self.unclean_leader_election_enable else 1, CRASH_MODELS.index(self.crash_model))

    def at_most(self, other: "Settings") -> bool:
        """Is this no stronger than ``other`` in every coordinate (same release)?"""
        return self.release == other.release and all(
            a <= b for a, b in zip(self.strength(), other.strength()))

    def to_json(self) -> dict:
        return {
            "replication.factor": self.replication_factor,
            "acks": self.acks,
            "min.insync.replicas": self.min_insync_replicas,
            "unclean.leader.election.enable": self.unclean_leader_election_enable,
            "flush": self.flush,
            "crash.model": self.crash_model,
            **self.release.to_json(),
        }


def grid(replication_factor: int, release: Release) -> list[Settings]:
    """Every operator setting at one replication factor and release, weakest first."""
    return [
        Settings(replication_factor, acks, mir, unclean, crash, release)
        for acks in ACKS
        for mir in range(1, replication_factor + 1)
        for unclean in (True, False)
        for crash in CRASH_MODELS
    ]
