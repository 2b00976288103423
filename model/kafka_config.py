"""Kafka's own configuration files as input: ``kmc check --config server.properties ...``.

``resolve_kafka_config(config_files, kafka_version)`` reads Java properties files (broker
``server.properties``, topic-level configs, ``producer.properties``, ``consumer.properties``)
with the ``jproperties``
library (comments with ``#`` and ``!``, ``=``, ``:`` or whitespace separators, backslash escapes,
continuation lines) and returns ``(values, provenance)``: ``values`` maps ``ModelConfig`` field
names to the configuration Kafka would run with, and ``provenance`` is one line per value saying
which file (or which documented default) it came from, plus the keys kmc does not model.

What is read, and how Kafka resolves it:

- ``min.insync.replicas`` and ``unclean.leader.election.enable``: a broker default, overridden
  by the same key in a topic-level config.
- ``default.replication.factor`` (broker) is overridden by ``replication.factor`` (the topic's).
- ``acks`` (producer).
- ``log.flush.interval.messages`` (broker) is overridden by ``flush.messages`` (topic), and
  ``log.flush.interval.ms`` by ``flush.ms``: the flush policy. It matters only under power loss.
  The crash model is not read from the files: it is what the world may do to a broker, with the
  same default whatever the entry point (``process``: a crash keeps the OS page cache, so
  unflushed writes survive, as after ``kill -9`` or a JVM crash); ``--crash-model`` chooses
  another. Under ``--crash-model power-loss``, ``flush.messages=1`` fsyncs every write before it
  is acknowledged or replicated, so a power loss loses nothing a replica had: the check runs
  with process crashes and the provenance says why. Any other flush setting (Kafka's default
  never forces an fsync; ``flush.ms`` bounds the time, which kmc does not model) leaves a power
  loss taking the unflushed records. A flush key set under another crash model gets a note
  saying it does not matter there.

- ``enable.idempotence`` and ``max.in.flight.requests.per.connection`` (producer); ``retries`` is
  shown, the bound on resends being ``--retries``.
- ``enable.auto.commit``, ``auto.commit.interval.ms`` and ``isolation.level`` (consumer): checked
  as Kafka's ``ConsumerConfig`` checks them and reported, each with what of it is in force in
  the model; none of them turns the model's consumer on or picks its commit order, which is
  ``--consumer-commit`` (``_consumer_rows`` says why).

Which kind a file is (broker, topic, producer or consumer) only matters where a topic config
overrides a broker one under the same key. It is told from the keys (a ``log.*`` key,
``broker.id``, ``log.dirs``, ``listeners`` ... mean broker; ``acks``, serializers ... mean
producer; ``group.id``, deserializers, ``enable.auto.commit`` ... mean consumer;
``bootstrap.servers`` is both clients'), then from the file name (``server``/``broker``,
``producer``, ``consumer``, ``topic``); a file that shows none is a topic config. Among files of
the same level, a later file wins.

Absent keys take Kafka's documented defaults: ``min.insync.replicas=1``,
``unclean.leader.election.enable=false`` (``true`` before 0.11, KIP-106), ``acks=all`` (``1``
before 3.0, KIP-679), ``default.replication.factor=1``. kmc needs at least 2 replicas, so an
absent replication factor is an error that says what to set, unless ``-r`` gives it.

``--kafka-version X.Y`` picks the rules of that release (``model/rules.py``; versions are
parsed and checked by ``model/releases.py``) and the defaults of that version; without it, the defaults of Kafka 3.0 and later apply and the protocol
comes from ``--protocol``.

``inter.broker.protocol.version`` in a broker file (``2.0``, ``2.1-IV2``, ``0.10.2``) is the
protocol the brokers speak to each other, so it picks the rules, as ``--kafka-version`` would,
when neither ``--kafka-version`` nor ``--protocol`` is given (those win, and the provenance says
the file's value was not used). Kafka reads it as ``X.Y`` (``0.X.Y`` before 1.0) with an optional
internal sub-version ``-IVn``; a sub-version from before the replication change of its release
means the rules of the release before (``0.11.0-IV0`` and ``-IV1`` predate KIP-101's leader-epoch
fetches, which came with ``0.11.0-IV2``; ``2.1-IV0`` predates KIP-320's, ``2.1-IV1``; Kafka's
``ApiVersion.scala``). It sets the rules only: the defaults stay those of Kafka 3.0 and later,
since the software may be newer than the protocol it speaks.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from jproperties import Properties

from model.bounded import INT32_MAX, INT64_MAX, clip, parse_int, shown
from model.errors import ConfigError
from model.files import read_bytes
from model.releases import (
    KRAFT_SINCE, NEWEST_MODELLED, ZOOKEEPER_REMOVED_IN, Version, as_version, is_kraft_release,
    parse_protocol_version, parse_version, rules_release,
)
from model.rules import protocol_of, release_rules

BROKER, TOPIC, PRODUCER, CONSUMER = "broker", "topic", "producer", "consumer"

# Keys that tell a file's kind. Topic-level config names never start with "log.".
_BROKER_MARKERS = {
    "broker.id", "node.id", "process.roles", "listeners", "advertised.listeners",
    "zookeeper.connect", "controller.quorum.voters", "controller.listener.names", "log.dirs",
    "log.dir", "num.partitions", "default.replication.factor", "num.network.threads",
    "num.io.threads", "offsets.topic.replication.factor", "auto.create.topics.enable",
}
_PRODUCER_MARKERS = {
    "acks", "bootstrap.servers", "key.serializer", "value.serializer", "enable.idempotence",
    "max.in.flight.requests.per.connection", "delivery.timeout.ms", "linger.ms", "batch.size",
    "buffer.memory", "transactional.id", "retries",
}
_CONSUMER_MARKERS = {
    "group.id", "group.instance.id", "key.deserializer", "value.deserializer",
    "enable.auto.commit", "auto.commit.interval.ms", "isolation.level", "auto.offset.reset",
    "max.poll.records", "max.poll.interval.ms", "session.timeout.ms", "heartbeat.interval.ms",
    "fetch.min.bytes", "fetch.max.wait.ms", "partition.assignment.strategy", "group.protocol",
}
_CLIENT_KEYS = {"bootstrap.servers", "client.id"}
"""Keys both clients have: they tell a client file from a broker's, not which client."""

# Model field -> the Kafka keys that set it, each with its level: "topic" beats "broker"; a key
# whose level is None takes the level of the file it is in (the same name exists at both).
_SOURCES = {
    "replication_factor": (("default.replication.factor", BROKER), ("replication.factor", TOPIC)),
    "min_insync_replicas": (("min.insync.replicas", None),),
    "unclean_leader_election_enable": (("unclean.leader.election.enable", None),),
    "acks": (("acks", None),),
    "crash_model": (("log.flush.interval.messages", BROKER), ("flush.messages", TOPIC)),
}
FLUSH_MS_KEYS = (("log.flush.interval.ms", BROKER), ("flush.ms", TOPIC))
"""The time-based flush policy: read for a note only, since kmc has no clock."""
IBP_KEY = "inter.broker.protocol.version"
PRODUCER_KEYS = {"enable.idempotence": "enable_idempotence",
                 "max.in.flight.requests.per.connection": "max_in_flight_requests_per_connection"}
"""The producer's settings read from a producer file (issue 26): judged when the producer retries
(``--retries``); a file without them leaves the release's defaults, with no provenance line."""
RETRIES_KEY = "retries"
CONSUMER_KEYS = ("enable.auto.commit", "auto.commit.interval.ms", "isolation.level")
"""The consumer's settings read from a consumer file (issue 26d): reported with what of each is
in force; the model's consumer is ``--consumer-commit`` (``_consumer_rows``)."""
ISOLATION_LEVELS = ("read_committed", "read_uncommitted")  # ConsumerConfig's in(...), 2.8.0
MODELLED_KEYS = (frozenset(key for keys in _SOURCES.values() for key, _ in keys)
                 | set(PRODUCER_KEYS) | {RETRIES_KEY} | set(CONSUMER_KEYS)
                 | {key for key, _ in FLUSH_MS_KEYS}
                 | {IBP_KEY, "process.roles", "controller.quorum.voters",
                    "controller.quorum.bootstrap.servers", "zookeeper.connect",
                    "eligible.leader.replicas.enable"})
MAX_PROPERTIES_BYTES = 2**20  # Kafka's own server.properties is about 7 KB

# Kafka name of each field, for provenance lines.
KAFKA_NAMES = {
    "protocol": "protocol",
    "replication_factor": "replication.factor",
    "min_insync_replicas": "min.insync.replicas",
    "acks": "acks",
    "unclean_leader_election_enable": "unclean.leader.election.enable",
    "crash_model": "crash.model",
}

@dataclass(frozen=True)
class PropertiesFile:
    """One parsed properties file and the kind it was taken for."""

    path: str
    kind: str
    entries: dict


_BINARY_BYTE = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
"""A control character no text file holds (tab, line feed, vertical tab, form feed, carriage
return and escape may appear in one): Java's ``Properties.load`` would take a binary file's
bytes for keys and values, and every key it found would be ignored as not modelled, silently."""


def read_properties(path: str) -> dict:
    """The key/value pairs of a Java properties file (``jproperties`` parses Kafka's syntax);
    at most ``MAX_PROPERTIES_BYTES``. ``/dev/null`` or a pipe is read like any file."""
    data = read_bytes(path, what="a Kafka properties file", limit=MAX_PROPERTIES_BYTES,
                      error=_ConfigFileError)
    binary = _BINARY_BYTE.search(data)
    if binary:
        raise ConfigError(f"--config {path}: not a Kafka properties file: byte {binary.start() + 1} "
                          f"is the control character 0x{binary.group()[0]:02x} (a binary file?)")
    try:
        data.decode("utf-8")
        encoding = "utf-8"  # Kafka's tools read properties files as UTF-8 text in practice
    except UnicodeDecodeError:
        encoding = "iso-8859-1"  # what Java's Properties.load(InputStream) reads
    props = Properties()
    try:
        props.load(data, encoding)
    except Exception as e:  # the library raises its own types for malformed escapes
        said = " ".join(str(e).split()) or type(e).__name__  # the library's message, on one line
        raise ConfigError(f"--config {path}: not a valid properties file: {clip(said)}") from None
    return {key: value.data for key, value in props.items()}


class _ConfigFileError(ConfigError):
    """A ``--config`` file that cannot be read: the message names the flag and the file."""

    def __init__(self, message: str) -> None:
        super().__init__(f"--config {message}")


def file_kind(path: str, keys) -> str:
    """Broker, topic, producer or consumer config: by its keys, then by its name; topic if none
    says."""
    keys = set(keys)
    broker = bool(keys & _BROKER_MARKERS) or any(k.startswith("log.") for k in keys)
    producer = bool(keys & (_PRODUCER_MARKERS - _CLIENT_KEYS))
    consumer = bool(keys & _CONSUMER_MARKERS)
    if consumer and not broker and not producer:
        return CONSUMER
    producer = producer or bool(keys & _CLIENT_KEYS) and not consumer
    if broker != producer:
        return BROKER if broker else PRODUCER
    name = Path(path).name.lower()
    if "producer" in name:
        return PRODUCER
    if "consumer" in name:
        return CONSUMER
    if "server" in name or "broker" in name:
        return BROKER
    if broker and producer:
        return BROKER
    return TOPIC


@dataclass
class _Setting:
    field: str
    key: str
    raw: str
    level: str
    path: str
    order: int


# Kafka's ConfigDef type and validator of each modelled number (LogConfig, ServerLogConfigs and
# ReplicationConfigs at 3.9.0-rc3): (minimum, maximum); a value outside is refused as Kafka
# refuses it at start-up. replication.factor, a topic's, is kmc's name for the topic's factor
# (kafka-topics --replication-factor, an int): INT like the broker's default.
_NUMBER_LIMITS = {
    "default.replication.factor": (None, INT32_MAX),   # INT, no validator
    "replication.factor": (None, INT32_MAX),
    "min.insync.replicas": (1, INT32_MAX),             # INT, atLeast(1)
    "log.flush.interval.messages": (1, INT64_MAX),     # LONG, atLeast(1)
    "flush.messages": (1, INT64_MAX),                  # LONG, atLeast(1)
    "log.flush.interval.ms": (None, INT64_MAX),        # LONG, no validator
    "flush.ms": (0, INT64_MAX),                        # LONG, atLeast(0)
    "max.in.flight.requests.per.connection": (1, INT32_MAX),  # INT, atLeast(1)
    "auto.commit.interval.ms": (0, INT32_MAX),         # ConsumerConfig (2.8.0): INT, atLeast(0)
}


def setting_text(key: str, raw: str) -> str:
    """``key=value`` from a file, for provenance and messages: each part at most ``ECHO_LIMIT``
    characters (a file may hold a 100 kB key or value)."""
    return f"{clip(key)}={clip(raw.strip())}"


def _number(path: str, key: str, raw: str) -> int:
    """A modelled number of a properties file, within Kafka's limits for ``key``."""
    low, high = _NUMBER_LIMITS[key]
    return parse_int(raw, f"{path}: {clip(key)}", minimum=low, maximum=high,
                     error=ConfigError, why=" (Kafka's validator for it)" if low is not None else "")


def _parse_value(field: str, setting: _Setting):
    raw = setting.raw.strip()
    where = f"{setting.path}: {setting_text(setting.key, setting.raw)}"
    if field in ("replication_factor", "min_insync_replicas"):
        return _number(setting.path, setting.key, raw)
    if field == "unclean_leader_election_enable":
        if raw.lower() not in ("true", "false"):
            raise ConfigError(f"{where} must be true or false")
        return raw.lower() == "true"
    if field == "acks":
        if raw.lower() not in ("0", "1", "all", "-1"):
            raise ConfigError(f"{where} must be 0, 1, all or -1")
        return "all" if raw.lower() in ("all", "-1") else raw
    if field == "crash_model":
        return _number(setting.path, setting.key, raw) == 1  # the flush policy: every write fsynced, or not
    raise AssertionError(field)


def _show(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


KRAFT_KEYS = ("process.roles", "controller.quorum.voters", "controller.quorum.bootstrap.servers")
ZOOKEEPER_KEY = "zookeeper.connect"
ELR_KEY = "eligible.leader.replicas.enable"
NOT_SHIPPED_KEYS = ("unclean.recovery.strategy", "unclean.recovery.manager.enabled")


def _metadata_mode(files, values: dict, rows: list, protocol) -> None:
    """KRaft or ZooKeeper, from the broker files (``process.roles`` / ``zookeeper.connect``), and
    KIP-966's ``eligible.leader.replicas.enable``: rule changes with their provenance. A KRaft
    cluster without a version (``--kafka-version`` or ``inter.broker.protocol.version``) is
    checked with the newest release kmc models, and the provenance says so."""
    kraft = [(f.path, k) for f in files for k in KRAFT_KEYS if k in f.entries]
    zk = [f.path for f in files if ZOOKEEPER_KEY in f.entries]
    changes: list[str] = []  # into values["rule_changes"] only if the files ask for any
    version = values.get("kafka_version")
    if protocol is not None:
        if kraft or zk:
            rows.append(("metadata mode", "--protocol wins (the named protocols are ZooKeeper-era)"))
        return
    if kraft:
        path, key = kraft[0]
        if version is None:
            values["kafka_version"] = str(NEWEST_MODELLED)
            values["protocol"] = protocol_of(NEWEST_MODELLED)
            rows.append((f"KRaft, rules of Kafka {NEWEST_MODELLED}",
                         f"{path}: {key} (a KRaft cluster; no --kafka-version or "
                         f"{IBP_KEY}, so the newest release kmc models; --kafka-version picks another)"))
        elif is_kraft_release(parse_version(version)):
            rows.append(("KRaft", f"{path}: {key}"))
        else:
            rows.append(("ZooKeeper mode", f"{path}: {key} is set, but KRaft before {KRAFT_SINCE} "
                                           "was early access and is not modelled"))
    elif zk and version is not None and is_kraft_release(parse_version(version)):
        changes.append("-kraft")
        rows.append(("ZooKeeper mode (--rule -kraft)", f"{zk[0]}: {ZOOKEEPER_KEY}"))
    elr = [(f.path, f.entries[ELR_KEY]) for f in files if ELR_KEY in f.entries]
    if elr:
        path, raw = elr[-1]
        on = raw.strip().lower()
        if on not in ("true", "false"):
            raise ConfigError(f"{path}: {ELR_KEY}={shown(raw)} must be true or false")
        release = values.get("kafka_version")
        if release is not None and parse_version(release) >= ZOOKEEPER_REMOVED_IN:
            # KAFKA-18062: 4.0 replaced the 3.x broker key (KRaftConfigs.ELR_ENABLED_CONFIG at
            # 3.9.0-rc3) with the feature eligible.leader.replicas.version; no 4.1.2 jar has it
            rows.append((f"{ELR_KEY} ignored",
                         f"{path}: Kafka {release} has no such key (4.0 replaced it with the "
                         "feature eligible.leader.replicas.version, KAFKA-18062); "
                         "--rule +/-eligible-leader-replicas says which"))
        else:
            changes.append(("+" if on == "true" else "-") + "eligible-leader-replicas")
            rows.append((f"eligible-leader-replicas {'on' if on == 'true' else 'off'}",
                         f"{path}: {setting_text(ELR_KEY, raw)} (KIP-966; in effect with KRaft)"))
    for f in files:
        for key in NOT_SHIPPED_KEYS:
            if key in f.entries:
                rows.append((key, f"{f.path}: not modelled (KIP-966's unclean recovery has shipped "
                                  f"in no release up to {NEWEST_MODELLED})"))
    if changes:
        values.setdefault("rule_changes", []).extend(changes)


def resolve_kafka_config(config_files, kafka_version=None, *, overrides: dict | None = None,
                         protocol: str | None = None):
    """Read Kafka properties files and return ``(values, provenance_lines)``.

    ``values`` holds ``ModelConfig`` field names. ``overrides`` are the command-line flags (field
    name -> value or None); they win over the files, and the provenance says so. With no files,
    only the protocol of ``kafka_version`` is returned. ``protocol`` is ``--protocol`` if given:
    then, as with ``kafka_version``, ``inter.broker.protocol.version`` in the files is not used.
    """
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    version = parse_version(kafka_version) if kafka_version is not None else None
    values: dict = {}
    lines: list[str] = []
    if version is not None:
        values["protocol"] = protocol_of(version)
        values["kafka_version"] = str(version)
        protocol_row = (f"rules of Kafka {rules_release(version)} ({values['protocol']})",
                        f"--kafka-version {kafka_version}{_release_words(version)}")
    if not config_files:
        if version is not None:
            lines.append(f"  {protocol_row[0]}  <- {protocol_row[1]}")
        if lines:
            lines.insert(0, "configuration:")
        return values, Provenance(lines)

    files = []
    for path in config_files:
        entries = read_properties(str(path))
        files.append(PropertiesFile(str(path), file_kind(str(path), entries), entries))
    lines.insert(0, "configuration from Kafka properties files (a topic config overrides the broker's; flags override both):")
    lines.insert(1, "  files: " + ", ".join(f"{f.path} ({f.kind} config)" for f in files))

    settings: dict[str, list[_Setting]] = {field: [] for field in _SOURCES}
    for order, f in enumerate(files):
        for field, keys in _SOURCES.items():
            for key, level in keys:
                if key in f.entries:
                    lvl = level or (TOPIC if f.kind == TOPIC else BROKER)
                    settings[field].append(_Setting(field, key, f.entries[key], lvl, f.path, order))

    rows: list[tuple[str, str]] = [protocol_row] if version is not None else []
    ibp = [(f.path, f.entries[IBP_KEY]) for f in files if IBP_KEY in f.entries]
    if ibp:
        path, raw = ibp[-1]  # a later file wins, as for every other key
        flag = f"--kafka-version {kafka_version}" if version is not None else (
            f"--protocol {protocol}" if protocol is not None else None)
        if flag is None:
            try:
                rules_version, note = parse_protocol_version(raw, key=IBP_KEY)
            except ConfigError as e:
                raise ConfigError(f"--config {path}: {e}") from None
            values["protocol"] = protocol_of(rules_version)
            values["kafka_version"] = str(rules_version)
            why = f"; {note}" if note else ""
            rows.append((f"rules of Kafka {rules_release(rules_version)} ({values['protocol']})",
                         f"{path}: {setting_text(IBP_KEY, raw)} (the protocol the brokers speak{why}; "
                         "--kafka-version or --protocol would win)"))
        else:
            rows.append((setting_text(IBP_KEY, raw), f"{path}: not used, {flag} wins"))
    _metadata_mode(files, values, rows, protocol)
    if version is not None:
        defaults_of = f"Kafka {version}"
    elif ibp and protocol is None:
        # the files' inter.broker.protocol.version picks the rules checked; the brokers' and the
        # producer's own releases (whose defaults these are) may be newer, so 3.0's are assumed
        defaults_of = (f"Kafka 3.0 and later: {IBP_KEY} sets the rules checked, not the "
                       f"defaults; --kafka-version {values['kafka_version']} would set both")
    else:
        defaults_of = "Kafka 3.0 and later (no --kafka-version)"
    notes: list[str] = []
    no_replication_factor = False
    for field, found in settings.items():
        name = KAFKA_NAMES[field]
        chosen = None
        if field == "crash_model":
            value, source = _crash_model(found, files, overrides.get(field), notes)
            values[field] = value
            rows.append((f"{name}={value}", source))
            continue
        if found:
            rank = {BROKER: 0, TOPIC: 1}
            chosen = max(found, key=lambda s: (rank[s.level], s.order))
            value = _parse_value(field, chosen)
            losers = [s for s in found if s is not chosen]
            source = f"{chosen.path}: {setting_text(chosen.key, chosen.raw)}"
            if losers:
                source += " (overrides " + ", ".join(f"{setting_text(s.key, s.raw)} in {s.path}" for s in losers) + ")"
        else:
            value, source = _kafka_default(field, version, defaults_of)
        if field in overrides:
            shown = f"{_show(value)} from {source}" if value is not None else source
            rows.append((f"{name}={_show(overrides[field])}", f"command-line flag (instead of {shown})"))
            continue
        if value is None:  # replication factor: Kafka's default of 1 cannot be checked
            no_replication_factor = True  # said after every value is read: a bad one comes first
            continue
        values[field] = value
        rows.append((f"{name}={_show(value)}", source))
    rows += _producer_rows(files, values, overrides)
    rows += _consumer_rows(files, overrides)
    if no_replication_factor:
        raise ConfigError(
            f"no replication factor in --config {', '.join(f.path for f in files)}, and Kafka's default "
            "(default.replication.factor=1) leaves nothing to replicate; set "
            "default.replication.factor (broker) or replication.factor (topic), or pass -r"
        )
    width = max(len(lhs) for lhs, _ in rows)
    lines.extend(f"  {lhs:<{width}}  <- {source}" for lhs, source in rows)

    for f in files:
        ignored = sorted(k for k in f.entries if k not in MODELLED_KEYS)
        typos = {k: close for k in ignored if (close := _did_you_mean(k))}
        ignored = [k for k in ignored if k not in typos]
        if ignored:
            lines.append(f"  ignored (not modelled) in {f.path}: {', '.join(clip(k) for k in ignored)}")
        if "transactional.id" in f.entries:
            lines.append(f"  {f.path}: transactional.id: transactions are not modelled, only the "
                         "idempotent producer they build on (docs/model.md, Delivery semantics)")
        for key, close in typos.items():
            note = (f"{f.path}: {setting_text(key, f.entries[key])} is not a Kafka setting; did you mean "
                    f"{close}? (Kafka ignores an unknown key too, so {close} keeps the value "
                    "shown above)")
            lines.append(f"  {note}")
            notes.append(note)
    return values, Provenance(lines, notes)


def _release_words(version: Version) -> str:
    """What ``--kafka-version`` picks, in a parenthesis: the metadata mode and what a rule
    change can switch, from the release and rule tables."""
    if version > NEWEST_MODELLED:
        return (f" (newer than the newest release kmc models, so {NEWEST_MODELLED}'s rules: "
                "see the warning)")
    rules = release_rules(version)
    if "eligible-leader-replicas" in rules:
        return " (KRaft, with KIP-966 eligible leader replicas)"
    if version >= ZOOKEEPER_REMOVED_IN:
        return (f" (KRaft; eligible leader replicas are opt-in on {version}: "
                "--rule +eligible-leader-replicas)")
    if is_kraft_release(version):
        return " (KRaft; --rule -kraft checks ZooKeeper mode)"
    if version >= as_version("2.8"):
        return f" (ZooKeeper mode; KRaft was early access before {KRAFT_SINCE})"
    return ""


def _kafka_default(field: str, version: Version | None, defaults_of: str):
    """Kafka's documented default for ``field`` as ``(value, provenance)``."""
    if field == "replication_factor":
        return None, "Kafka's default default.replication.factor=1, which kmc cannot check"
    if field == "min_insync_replicas":
        return 1, f"Kafka's default ({defaults_of})"
    if field == "unclean_leader_election_enable":
        if version is not None and not version.at_least("0.11"):
            return True, f"Kafka's default before 0.11 (KIP-106 made it false) ({defaults_of})"
        return False, f"Kafka's default ({defaults_of})"
    if field == "acks":
        if version is not None and not version.at_least("3.0"):
            return "1", f"the producer's default before Kafka 3.0 ({defaults_of})"
        return "all", f"the producer's default since Kafka 3.0 ({defaults_of})"
    raise AssertionError(field)


class Provenance(list):
    """The provenance lines (where each value came from), with ``notes``: the lines to show
    again with the verdict (a flush setting that does not matter under the crash model checked,
    a key that looks like a typo), so that ``--json`` and the gate carry them too."""

    def __init__(self, lines=(), notes=()):
        super().__init__(lines)
        self.notes = list(notes)


# Kafka's own keys that sit close to a modelled one and must not be taken for its typo.
_KNOWN_NEIGHBOURS = frozenset({
    "log.flush.scheduler.interval.ms", "unclean.leader.election.interval.ms",
    "eligible.leader.replicas.version", "log.flush.offset.checkpoint.interval.ms",
    "log.flush.start.offset.checkpoint.interval.ms",
})


def _did_you_mean(key: str) -> str | None:
    """The modelled key ``key`` is probably a typo of (``ack`` -> ``acks``), or None."""
    if key in _KNOWN_NEIGHBOURS:
        return None
    close = difflib.get_close_matches(key, sorted(MODELLED_KEYS), n=1, cutoff=0.8)
    return close[0] if close else None


def _crash_model(found: list, files, flag: str | None, notes: list) -> tuple[str, str]:
    """The crash model and its provenance: ``--crash-model`` or kmc's default, ``process``,
    whatever the files say; the flush policy in ``found`` (``flush.messages`` and
    ``log.flush.interval.messages`` settings) turns power loss into process crashes when every
    write is fsynced. ``notes`` hears about flush settings that do not matter."""
    rank = {BROKER: 0, TOPIC: 1}
    flush = max(found, key=lambda s: (rank[s.level], s.order)) if found else None
    every_write = _parse_value("crash_model", flush) if flush is not None else False
    timed = [(f.path, key, clip(f.entries[key].strip())) for f in files for key, _ in FLUSH_MS_KEYS
             if key in f.entries]
    for f in files:  # read for a note only, but a value Kafka refuses is refused here too
        for key, _ in FLUSH_MS_KEYS:
            if key in f.entries:
                _number(f.path, key, f.entries[key])
    set_here = ([f"{setting_text(flush.key, flush.raw)} in {flush.path}"] if flush else []) + [
        f"{key}={raw} in {path}" for path, key, raw in timed]
    if flag == "power-loss":
        if every_write:
            return "process", (
                f"--crash-model power-loss with {flush.path}: {setting_text(flush.key, flush.raw)}: every "
                "write is fsynced before it is acknowledged or replicated, so a power loss loses "
                "nothing a replica had; checked as process crashes")
        why = (f"{', '.join(set_here)}: not every write is fsynced" if set_here
               else "no flush.messages / log.flush.interval.messages: Kafka's default never forces "
                    "an fsync")
        if timed:
            notes.append(f"{', '.join(f'{k}={v}' for _, k, v in timed)}: Kafka fsyncs at that "
                         "interval; kmc has no clock, so under power loss any record not yet "
                         "flushed may be lost (FlushLog is a free choice of when)")
        return "power-loss", f"command-line flag ({why}, so a power loss takes the unflushed records)"
    if set_here:
        crash = flag or "process"
        notes.append(f"{', '.join(set_here)}: the flush policy matters only under --crash-model "
                     f"power-loss (a power failure); with {crash} crashes "
                     + ("every write survives in the page cache" if crash == "process"
                        else "the disk is lost whatever was flushed"))
    if flag is not None:
        return flag, "command-line flag"
    return "process", ("kmc's default crash model, whatever the entry point: a crash keeps the OS "
                       "page cache, so unflushed writes survive (kill -9, a JVM crash); "
                       "--crash-model power-loss checks power failures")


def _producer_rows(files, values: dict, overrides: dict) -> list:
    """The producer's settings found in the files (a later file wins), into ``values``, with
    their provenance rows. ``retries`` is read for its row only: the model's bound on resends is
    ``--retries`` (Kafka's default, 2147483647, could never be explored), and a file's
    ``retries=0`` says the producer never resends."""
    rows = []
    for key, field in PRODUCER_KEYS.items():
        found = [(f.path, f.entries[key]) for f in files if key in f.entries]
        if not found:
            continue
        path, raw = found[-1]
        text = raw.strip()
        where = f"{path}: {setting_text(key, raw)}"
        if field == "enable_idempotence":
            if text.lower() not in ("true", "false"):
                raise ConfigError(f"{where} must be true or false")
            value = text.lower() == "true"
        else:
            value = _number(path, key, text)
        if overrides.get(field) is not None:
            rows.append((f"{key}={_show(overrides[field])}",
                         f"command-line flag (instead of {_show(value)} from {where})"))
            continue
        values[field] = value
        rows.append((f"{key}={_show(value)}", where + " (judged with --retries)"))
    found = [(f.path, f.entries[RETRIES_KEY]) for f in files if RETRIES_KEY in f.entries]
    if found:
        path, raw = found[-1]
        rows.append((setting_text(RETRIES_KEY, raw),
                     f"{path}: the model's bound on resends is --retries (0 unless given)"))
    return rows


def _consumer_rows(files, overrides: dict) -> list:
    """The consumer's settings found in the files (a later file wins), checked as Kafka's
    ``ConsumerConfig`` checks them (2.8.0: ``enable.auto.commit`` BOOLEAN,
    ``auto.commit.interval.ms`` INT at least 0, ``isolation.level`` one of two names), with
    rows saying what of each the model has. None sets a ``ModelConfig`` field:

    * ``enable.auto.commit`` does not fix the commit order. ``KafkaConsumer.poll`` commits, every
      ``auto.commit.interval.ms``, the positions of records *earlier* polls returned
      (``ConsumerCoordinator.maybeAutoCommitOffsetsAsync``): after processing for an
      application that processes a poll's records before it polls again, before processing
      for one that hands them to other threads. Manual commits are either too. So the order is
      ``--consumer-commit``, and without it no consumer is modelled.
    * ``auto.commit.interval.ms``: kmc has no clock; the model's consumer commits once per
      record, at the point its order allows, which the interval can only delay.
    * ``isolation.level``: no transactions are modelled, so the last stable offset is the high
      watermark and read_committed reads what read_uncommitted reads.
    """
    rows = []
    found = {key: [(f.path, f.entries[key]) for f in files if key in f.entries]
             for key in CONSUMER_KEYS}
    if not any(found.values()):
        return rows
    commit = overrides.get("consumer_commit")
    order = (f"--consumer-commit {commit} is the model's commit order" if commit
             else "no consumer is modelled without --consumer-commit before|after")
    for key in CONSUMER_KEYS:
        if not found[key]:
            continue
        path, raw = found[key][-1]
        text = raw.strip()
        where = f"{path}: {setting_text(key, raw)}"
        if key == "enable.auto.commit":
            if text.lower() not in ("true", "false"):
                raise ConfigError(f"{where} must be true or false")
            how = ("auto-commit in poll() commits what earlier polls returned: after processing "
                   "if the application processes each poll before the next, before if it hands "
                   "records off" if text.lower() == "true"
                   else "the application commits: before or after processing, as it is written")
            rows.append((f"{key}={text.lower()}", f"{where}: not modelled as such ({how}); {order}"))
        elif key == "auto.commit.interval.ms":
            _number(path, key, text)
            rows.append((setting_text(key, raw), f"{where}: not modelled (kmc has no clock: the "
                                                 "model's consumer commits once per record)"))
        else:
            if text not in ISOLATION_LEVELS:
                raise ConfigError(f"{where} must be read_committed or read_uncommitted (Kafka's "
                                  "validator for it)")
            rows.append((f"{key}={text}", f"{where}: in force, and the same as "
                         + ("read_uncommitted" if text == "read_committed" else "read_committed")
                         + " here (no transactions are modelled: the last stable offset is the "
                           "high watermark)"))
    return rows
