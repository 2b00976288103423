"""Gate suites: TOML files of named checks, loaded and validated before anything runs.

A suite is a ``[[check]]`` array of tables, with an optional ``[defaults]`` table whose keys
every check inherits (a check's own keys win)::

    [defaults]
    "replication.factor" = 2
    max-records = 1

    [[check]]
    name = "acks=1 loses data"
    acks = "1"
    "min.insync.replicas" = 1
    expect = "violated"
    violates = "no-acked-loss"
    trace-length = 3

Keys of a check (``_`` and ``-`` are interchangeable in the non-dotted ones; an unquoted dotted
key such as ``min.insync.replicas = 2`` is read as the dotted name):

- configuration, with Kafka's names: ``protocol``, ``replication.factor``,
  ``min.insync.replicas``, ``acks``, ``unclean.leader.election.enable``, ``crash.model``;
  ``kafka-version`` (picks the protocol, as ``kmc check --kafka-version``); ``config-files``
  (Kafka properties files, relative to the suite; the check's own keys override them).
- bounds: ``max-records``, ``max-leader-epoch``, ``max-crashes``, ``max-unflushed-losses`` (or
  the same inside a ``bounds`` table).
- limits: ``max-states``, ``max-depth``, ``time-limit`` (seconds); ``engine`` (compiled, the
  default; reference; spark; bmc; ``bfs`` is another name for compiled).
- ``properties``: the properties to check (a list, or "all": every invariant, each failing the
  check if it disagrees); default: ``violates`` if given, else the default set, as ``kmc check``
  without ``-p``: what Kafka promises must agree, and the stronger invariants (``kmc list``) are
  checked and reported without failing the check.
- ``expect = "holds"``: every checked property must hold. ``expect = "violated"``: every property
  in ``violates`` (default: every checked property) must be violated and every other checked
  property must hold; ``trace-length = N`` pins the shortest counterexample's length,
  ``min-trace-length = N`` asks for at least N steps.
- ``allow-incomplete = true``: a property the search could not finish (a limit was hit) does not
  fail the gate; it is reported as incomplete.
- ``name`` (unique, required) and ``description``.
- ``rests-on``: what the expectation rests on, one ``"KIND: detail"`` string or a list of them;
  KIND is one of ``REST_KINDS``: an outside source (``kip``, ``jira``, ``jepsen``,
  ``kafka-test``, ``kafka-source`` read at a named tag, ``real-broker`` a run of docs/
  conformance.md) or ``regression-pin`` (kmc's own output, nothing outside kmc confirms it). A
  row with at least one outside source counts as resting on one; ``kmc gate`` prints the counts.
  A pinned ``trace-length`` is always kmc's own output, whatever the verdict rests on.

Anything else, a wrong type, an unknown protocol or property, or an impossible configuration
(``min.insync.replicas`` above the replication factor) is a ``SuiteError`` naming the file, the
check and the key.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import spark_explore  # noqa: F401  (joins the engine registry, so a suite can name it)
from checker.engines import get_engine
from checker.limits import MAX_COUNT, check_limit
from model.config import BOUND_NAMES, ModelConfig
from model.bounded import INT64_MAX, parse_int, shown
from model.errors import ConfigError, KmcError
from model.files import nesting_depth, read_text
from model.options import config_from_options
from model.rules import check_protocol
from properties import PROPERTIES, get_properties
from properties.liveness import LIVENESS

HOLDS, VIOLATED = "holds", "violated"

CONFIG_KEYS = {
    "protocol": "protocol",
    "replication.factor": "replication_factor",
    "min.insync.replicas": "min_insync_replicas",
    "acks": "acks",
    "unclean.leader.election.enable": "unclean_leader_election",
    "crash.model": "crash_model",
    "hw.checkpoint": "hw_checkpoint",
    "fetch.from.followers": "fetch_from_followers",
    "enable.idempotence": "enable_idempotence",
    "max.in.flight.requests.per.connection": "max_in_flight_requests_per_connection",
    "consumer.commit": "consumer_commit",
}
BOUND_KEYS = {name.replace("_", "-"): name for name in BOUND_NAMES}
GATE_KEYS = (
    "name", "description", "properties", "expect", "violates", "trace-length",
    "min-trace-length", "allow-incomplete", "max-states", "max-depth", "time-limit", "engine",
    "kafka-version", "config-files", "rules", "rests-on",
)
OUTSIDE_KINDS = ("kip", "jira", "jepsen", "kafka-test", "kafka-source", "real-broker")
REGRESSION_PIN = "regression-pin"
REST_KINDS = (*OUTSIDE_KINDS, REGRESSION_PIN)
"""What a row's expectation may rest on (``rests-on``): a source outside kmc, or kmc's own
output."""
KNOWN_KEYS = (*GATE_KEYS, *CONFIG_KEYS, *BOUND_KEYS)
TOP_LEVEL_KEYS = ("check", "defaults", "name", "description")
MAX_SUITE_BYTES = 4 * 2**20
MAX_SUITE_DEPTH = 16  # a suite nests 4 deep ([[check]] > bounds > value); TOML's parser recurses
MAX_NAME_LENGTH = 200


class SuiteError(KmcError):
    """A suite that cannot run: the message names the file, the check and the key."""


@dataclass
class CheckSpec:
    """One validated check of a suite."""

    name: str
    config: ModelConfig
    properties: list
    expect: str
    violates: list
    trace_length: int | None = None
    min_trace_length: int | None = None
    allow_incomplete: bool = False
    max_states: int | None = None
    max_depth: int | None = None
    time_limit: float | None = None
    engine: str = "compiled"
    description: str = ""
    provenance: list = field(default_factory=list)
    default_properties: bool = False  # no ``properties`` key: stronger invariants reported only
    config_files: list = field(default_factory=list)  # the properties files it reads (not written over)
    rests_on: list = field(default_factory=list)  # (kind, detail) pairs, ``REST_KINDS``
    liveness: bool = False  # its one property is a liveness property (``properties.liveness``)

    @property
    def evidence(self) -> str:
        """"outside" (some source outside kmc), "regression-pin" (kmc's own output only) or
        "unstated"."""
        kinds = {kind for kind, _ in self.rests_on}
        if kinds & set(OUTSIDE_KINDS):
            return "outside"
        return REGRESSION_PIN if kinds else "unstated"

    def identity(self) -> dict:
        """Everything that decides this check's outcome except the model's source (the cache
        key is built from it)."""
        return {
            "config": self.config.as_dict(),
            "properties": list(self.properties),
            "expect": self.expect,
            "violates": list(self.violates),
            "trace_length": self.trace_length,
            "min_trace_length": self.min_trace_length,
            "allow_incomplete": self.allow_incomplete,
            "max_states": self.max_states,
            "max_depth": self.max_depth,
            "time_limit": self.time_limit,
            "engine": self.engine,
            **({"default_properties": True} if self.default_properties else {}),
            **({"liveness": True} if self.liveness else {}),
        }

    def expected_text(self) -> str:
        if self.expect == HOLDS:
            return "holds"
        length = ""
        if self.trace_length is not None:
            length = f" ({self.trace_length} steps)"
        elif self.min_trace_length is not None:
            length = f" (>= {self.min_trace_length} steps)"
        return "violated: " + ", ".join(self.violates) + length


@dataclass
class Suite:
    path: str
    name: str
    checks: list


def _flatten(table: dict, where: "_Where", prefix: str = "") -> dict:
    """Nested TOML tables back to dotted keys: ``min.insync.replicas = 2`` (unquoted) parses as
    ``{"min": {"insync": {"replicas": 2}}}``. The same dotted name written twice (unquoted and
    quoted, ``"min.insync.replicas" = 3``) is an error, not one silently winning."""
    out: dict = {}
    for key, value in table.items():
        full = f"{prefix}{key}"
        parts = _flatten(value, where, full + ".") if isinstance(value, dict) else {full: value}
        for name, v in parts.items():
            if name in out:
                raise where.error(name, "is given twice (as a dotted key and as a quoted one); "
                                        "keep one")
            out[name] = v
    return out


def _normalise(key: str) -> str:
    if key.startswith("bounds."):
        key = key[len("bounds."):]
    return key if "." in key else key.replace("_", "-")


class _Where:
    def __init__(self, path: str, check: str):
        self.path, self.check = path, check

    def error(self, key: str | None, problem: str) -> SuiteError:
        where = f"{self.path}: {self.check}"
        return SuiteError(f"{where}: key {shown(key, 80)}: {problem}" if key else f"{where}: {problem}")


def load_suite(path: str) -> Suite:
    """Read and validate a suite; every error is a one-line ``SuiteError``."""
    p = Path(path)
    text = read_text(path, what="a suite file", limit=MAX_SUITE_BYTES, error=SuiteError)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SuiteError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        data = None
    except ValueError as e:  # an integer of more than 4,300 digits (Python's conversion limit)
        raise SuiteError(f"{path}: not a suite: {str(e).split(';')[0]}") from None
    if data is None or nesting_depth(data, stop_at=MAX_SUITE_DEPTH) > MAX_SUITE_DEPTH:
        raise SuiteError(f"{path}: arrays or tables nested more than {MAX_SUITE_DEPTH} deep; "
                         "a suite is [[check]] tables of plain keys")
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            raise SuiteError(
                f"{path}: unknown top-level key {shown(key, 80)}; a suite has [[check]] tables and an "
                "optional [defaults] table"
            )
    checks = data.get("check")
    if not isinstance(checks, list) or not checks or not all(isinstance(c, dict) for c in checks):
        raise SuiteError(f"{path}: no checks; add at least one [[check]] table")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise SuiteError(f"{path}: 'defaults' must be a table ([defaults])")
    defaults = _keys(_flatten(defaults, _Where(path, "[defaults]")), _Where(path, "[defaults]"))
    if "name" in defaults:
        raise _Where(path, "[defaults]").error("name", "every check needs its own name")
    specs, seen = [], set()
    for i, raw in enumerate(checks, start=1):
        where = _Where(path, f"check #{i}")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            raise where.error("name", "every check needs a name (a non-empty string)")
        if len(name) > MAX_NAME_LENGTH:
            raise where.error("name", f"a check name is at most {MAX_NAME_LENGTH} characters, "
                                      f"this one has {len(name):,}")
        where = _Where(path, f"check {name!r}")
        if name in seen:
            raise where.error("name", "two checks have this name; names must be unique")
        seen.add(name)
        merged = {**defaults, **_keys(_flatten(raw, where), where)}
        specs.append(_validate(merged, where, p.parent))
    suite_name = data.get("name", p.stem)
    if not isinstance(suite_name, str) or len(suite_name) > MAX_NAME_LENGTH:
        raise SuiteError(f"{path}: 'name' must be a string of at most {MAX_NAME_LENGTH} characters")
    return Suite(str(path), suite_name, specs)


def _keys(table: dict, where: _Where) -> dict:
    out: dict = {}
    spelled: dict = {}
    for key, value in table.items():
        norm = _normalise(key)
        if norm in out:  # max_records beside max-records, or beside bounds.max-records
            raise where.error(key, f"says the same as {shown(spelled[norm], 80)}; give it once")
        spelled[norm] = key
        if norm not in KNOWN_KEYS:
            close = difflib.get_close_matches(norm, KNOWN_KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(KNOWN_KEYS)}"
            raise where.error(key, f"unknown key{hint}")
        out[norm] = value
    return out


def _int(where, key, value, minimum, maximum=INT64_MAX):
    """A whole number of the suite (TOML has parsed it: booleans and floats are refused)."""
    if isinstance(value, str):  # "3": a string is not a number in a suite
        raise where.error(key, f"must be a whole number >= {minimum}, got {shown(value)}")
    try:
        return parse_int(value, "", minimum=minimum, maximum=maximum, error=SuiteError)
    except SuiteError as e:
        raise where.error(key, str(e).strip()) from None


def _names(where, key, value) -> list:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise where.error(key, f"must be a property name or a list of them, got {shown(value)}")
    return list(dict.fromkeys(value))


def _invariants() -> list:
    """What "all properties" means: every invariant (reachability questions only by name)."""
    return [p.name for p in get_properties(None)]


def _validate(d: dict, where: _Where, base: Path) -> CheckSpec:
    expect = d.get("expect")
    if expect not in (HOLDS, VIOLATED):
        raise where.error("expect", f'must be "holds" or "violated", got {shown(expect)}')

    # Properties: which are checked, and which must be violated.
    props = d.get("properties")
    default_properties = props is None and d.get("violates") is None
    if props == "all":
        props = _invariants()
    elif props is not None:
        props = _names(where, "properties", props)
    violates = d.get("violates")
    if violates is not None:
        if expect != VIOLATED:
            raise where.error("violates", 'only goes with expect = "violated"')
        violates = _names(where, "violates", violates)
    elif expect == VIOLATED and props is None:
        raise where.error("expect", 'expect = "violated" needs "violates" (or "properties") to say which property')
    if props is None:
        props = list(violates) if violates else _invariants()
    if violates is None:
        violates = list(props) if expect == VIOLATED else []
    for key, names in (("violates", violates), ("properties", props)):
        for n in names:
            if n not in PROPERTIES and n not in LIVENESS:
                raise where.error(key, f"unknown property {shown(n)}; choose from: "
                                       f"{', '.join([*PROPERTIES, *LIVENESS])}")
    liveness = any(n in LIVENESS for n in props)
    if liveness:
        if len(props) != 1:
            raise where.error("properties", "a liveness property is checked on its own: give one "
                                            "name (docs/liveness.md)")
        for key in ("engine", "max-depth"):
            if key in d:
                raise where.error(key, "does not apply to a liveness property (it is checked on "
                                       "the compiled kernel's whole behaviour graph)")
    missing = [n for n in violates if n not in props]
    if missing:
        raise where.error("violates", f"{', '.join(missing)} is not among the checked properties")

    for key in ("trace-length", "min-trace-length"):
        if key in d:
            if expect != VIOLATED:
                raise where.error(key, 'only goes with expect = "violated"')
            _int(where, key, d[key], 1)
    if "trace-length" in d and "min-trace-length" in d:
        raise where.error("min-trace-length", "give trace-length or min-trace-length, not both")
    allow_incomplete = d.get("allow-incomplete", False)
    if not isinstance(allow_incomplete, bool):
        raise where.error("allow-incomplete", f"must be true or false, got {shown(allow_incomplete)}")
    limits = {}
    for key in ("max-states", "max-depth"):
        if key in d:
            limits[key] = _int(where, key, d[key], 1)
            if limits[key] > MAX_COUNT:
                raise where.error(key, f"must be a whole number from 1 to {MAX_COUNT:,}, got {shown(d[key])}")
    if "time-limit" in d:
        t = d["time-limit"]
        try:
            check_limit("time-limit", t)
        except ConfigError:
            raise where.error("time-limit", f"must be a positive, finite number of seconds, got {shown(t)}") from None
        limits["time-limit"] = float(t)
    try:
        chosen = get_engine(d.get("engine", "compiled"))
    except ConfigError as e:
        raise where.error("engine", str(e)) from None
    engine = chosen.name
    if chosen.symbolic and "max-states" in limits:
        raise where.error("max-states", f"does not apply to engine {engine!r}, which explores no "
                                        "states one by one; bound it with max-depth")
    description = d.get("description", "")
    if not isinstance(description, str):
        raise where.error("description", "must be a string")

    rests_on = _rests_on(where, d.get("rests-on"))
    config, provenance = _config(d, where, base)
    files = d.get("config-files", [])
    files = [str(base / f) for f in ([files] if isinstance(files, str) else files)]
    return CheckSpec(
        name=d["name"], config=config, properties=props, expect=expect, violates=violates,
        trace_length=d.get("trace-length"), min_trace_length=d.get("min-trace-length"),
        allow_incomplete=allow_incomplete, max_states=limits.get("max-states"),
        max_depth=limits.get("max-depth"), time_limit=limits.get("time-limit"), engine=engine,
        description=description, provenance=provenance, default_properties=default_properties,
        config_files=files,
        rests_on=rests_on, liveness=liveness,
    )


def _rests_on(where, value) -> list:
    """``rests-on`` as (kind, detail) pairs; the kinds are a closed set (``REST_KINDS``)."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise where.error("rests-on", f'must be "KIND: detail" or a list of them, got {value!r}')
    out = []
    for item in value:
        kind, _, detail = item.partition(":")
        kind, detail = kind.strip(), detail.strip()
        if kind not in REST_KINDS:
            raise where.error("rests-on", f"{item!r}: the kind before ':' must be one of "
                                          f"{', '.join(REST_KINDS)}")
        if not detail:
            raise where.error("rests-on", f"{item!r}: say which (\"{kind}: ...\")")
        out.append((kind, detail))
    return out


def _config(d: dict, where: _Where, base: Path):
    """The ``ModelConfig`` of a check, built the way ``kmc check`` builds it from its flags."""
    options: dict = {}
    for key, option in CONFIG_KEYS.items():
        if key not in d:
            continue
        value = d[key]
        if key in ("protocol", "crash.model", "hw.checkpoint"):
            if not isinstance(value, str):
                raise where.error(key, f"must be a string, got {shown(value)}")
            if key == "protocol":
                try:
                    check_protocol(value)
                except ConfigError as e:
                    raise where.error(key, str(e)) from None
        elif key in ("replication.factor", "min.insync.replicas",
                     "max.in.flight.requests.per.connection"):
            _int(where, key, value, 1)
        elif key == "consumer.commit" and value not in ("before", "after"):
            raise where.error(key, f'must be "before" or "after", got {value!r}')
        elif key == "acks":
            if isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
            if not isinstance(value, str) or value.lower() not in ("0", "1", "all", "-1"):
                raise where.error(key, f'must be "0", "1", "all" or "-1", got {shown(d[key])}')
        elif key in ("unclean.leader.election.enable", "fetch.from.followers",
                     "enable.idempotence") and not isinstance(value, bool):
            raise where.error(key, f"must be true or false, got {shown(value)}")
        options[option] = value
    for key, option in BOUND_KEYS.items():
        if key in d:
            options[option] = _int(where, key, d[key], 0)
    rf, mir = d.get("replication.factor"), d.get("min.insync.replicas")
    if rf is not None and mir is not None and mir > rf:
        raise where.error(
            "min.insync.replicas",
            f"min.insync.replicas={mir} is larger than replication.factor={rf}: no acks=all write could succeed",
        )
    if "protocol" in d and "kafka-version" in d:
        raise where.error("kafka-version", "give protocol or kafka-version, not both")
    version = d.get("kafka-version")
    if version is not None and not isinstance(version, str):
        raise where.error("kafka-version", f'must be a string such as "2.0", got {shown(version)}')
    rules = d.get("rules", [])
    if isinstance(rules, str):
        rules = [rules]
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise where.error("rules", f'must be a list such as ["+broker-epoch", "-fenced-fetch"], got {shown(rules)}')
    options["rule_changes"] = tuple(rules)
    files = d.get("config-files", [])
    if isinstance(files, str):
        files = [files]
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise where.error("config-files", f"must be a file name or a list of them, got {shown(files)}")
    files = [str(base / f) for f in files]
    try:
        return config_from_options(kafka_version=version, config_files=files, **options)
    except ConfigError as e:
        raise where.error(_key_of(str(e)), str(e)) from None


def _key_of(message: str) -> str | None:
    """The suite key a configuration error is about, from the message's wording."""
    for words, key in (
        ("min.insync.replicas", "min.insync.replicas"), ("replication factor", "replication.factor"),
        ("--kafka-version", "kafka-version"), ("--config", "config-files"), ("acks", "acks"),
        ("crash model", "crash.model"), ("rule", "rules"), ("protocol", "protocol"),
    ):
        if words in message:
            return key
    for key in BOUND_KEYS:
        if key in message:
            return key
    return None
