"""Kafka's releases as kmc knows them: the one table of versions, and the one parser.

Everything in kmc that reads a Kafka version goes through here: ``--kafka-version``, a gate
suite's ``kafka-version``, ``inter.broker.protocol.version`` in a properties file, the releases
``kmc advise`` sweeps and ``kmc list`` prints, and the ``since`` / ``until`` of every rule in
``model/rules.py``. The facts are data:

* ``RELEASES``: every Kafka release line (``X.Y``) there has been, oldest first. A new release
  is one more entry; a version not listed is refused (``--kafka-version 4.9``: there is no such
  release), unless it can only be a release newer than this table (the next minor or the next
  major), which is checked with a warning.
* ``NEWEST_MODELLED``: the newest release whose rules kmc has. A newer release is checked with
  the rules of this one, and every result says so (``release_notes``).
* ``KRAFT_SINCE``: KRaft is production-ready from 3.3 (KIP-833), so ``--kafka-version 3.3`` and
  later check a KRaft cluster; ``ZOOKEEPER_REMOVED_IN``: 4.0 has no ZooKeeper mode.
* ``IBP_SUB_VERSIONS``: ``inter.broker.protocol.version`` sub-versions that predate the
  replication change of their release (Kafka's ``ApiVersion.scala`` / ``MetadataVersion``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from model.bounded import shown
from model.errors import ConfigError


@dataclass(frozen=True, order=True)
class Version:
    """A Kafka release line, ``major.minor`` (a patch number is accepted and not used)."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def at_least(self, other) -> bool:
        """Is this release ``other`` (a ``Version`` or ``"X.Y"``) or later?"""
        return self >= as_version(other)


def as_version(text) -> Version:
    """``"X.Y"`` of this table or of a rule (trusted text, not user input) as a ``Version``."""
    if isinstance(text, Version):
        return text
    major, minor = str(text).split(".")[:2]
    return Version(int(major), int(minor))


RELEASES: tuple[Version, ...] = tuple(as_version(v) for v in (
    "0.8", "0.9", "0.10", "0.11", "1.0", "1.1",
    "2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8",
    "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9",
    "4.0", "4.1", "4.2", "4.3", "4.4",
))
"""Every Kafka release line, oldest first (4.2 to 4.4 per /work/shared/research/kafka-4.2-4.4.md:
released 2026-02-17, 2026-05-22 and on Maven Central)."""

NEWEST_MODELLED = as_version("4.4")
"""The newest release whose rules ``model/rules.py`` has: a newer one runs these rules. 4.2 to
4.4 were read in kafka-metadata's sources jars (4.2.0, 4.3.0 from Maven Central) and 4.4.0's
bytecode (``javap -c``): their one change on kmc's paths is the rule
``last-known-leader-when-leaderless`` (4.2; docs/kraft.md, "Kafka 4.2 to 4.4")."""

KRAFT_SINCE = as_version("3.3")
"""KRaft production-ready (KIP-833): ``--kafka-version 3.3`` and later check a KRaft cluster
(KRaft before 3.3 was early access and is not modelled)."""

ZOOKEEPER_REMOVED_IN = as_version("4.0")
"""Kafka 4.0 removed ZooKeeper mode (KIP-833)."""

IBP_SUB_VERSIONS: dict[Version, int] = {as_version("0.11"): 2, as_version("2.1"): 1}
"""``inter.broker.protocol.version`` X.Y-IVn: below ``IVn`` the release's replication change is
not in force and the brokers speak the release before's protocol (``0.11.0-IV0``/``-IV1``
predate KIP-101's leader-epoch fetches, which came with ``0.11.0-IV2``; ``2.1-IV0`` predates
KIP-320's, ``2.1-IV1``; Kafka's ``ApiVersion.scala``)."""

_SYNTAX = re.compile(r"\s*(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4})){0,2}\s*")


def parse_version(text, *, what: str = "--kafka-version") -> Version:
    """``"2.8"``, ``"0.10.2"``, ``"0.10.2.1"`` or ``"3.7.1"`` -> the release line; a
    ``ConfigError`` naming ``what`` for anything that is not a version (an empty one included)
    or a release there never was."""
    m = _SYNTAX.fullmatch(str(text))
    if not m or (int(m.group(1)) > 0 and str(text).strip().count(".") > 2):
        raise ConfigError(
            f"{what} {shown(text)} is not a Kafka version; write it as X.Y, e.g. 0.10, 2.0, 3.7")
    version = Version(int(m.group(1)), int(m.group(2)))
    if version in RELEASES or _future(version):
        return version
    lines = [v for v in RELEASES if v.major == version.major]
    if not lines:
        raise ConfigError(f"{what} {text}: there is no Kafka {version.major}.x")
    raise ConfigError(
        f"{what} {text}: there is no Kafka {version} (the {version.major}.x releases are "
        f"{lines[0]} to {lines[-1]})")


def _future(version: Version) -> bool:
    """Can ``version`` only be a release newer than this table knows: the next minor of the
    newest line, or the first of the next major?"""
    newest = RELEASES[-1]
    return version in (Version(newest.major, newest.minor + 1), Version(newest.major + 1, 0))


def known(version: Version) -> bool:
    """Is ``version`` a release of this table (not a future one)?"""
    return version in RELEASES


def rules_release(version: Version) -> Version:
    """The release whose rules ``version`` is checked with: itself, or ``NEWEST_MODELLED`` for a
    newer one."""
    return min(version, NEWEST_MODELLED)


def release_notes(version: Version) -> list[str]:
    """Warning lines for a version kmc does not model as itself (empty for one it does)."""
    if version <= NEWEST_MODELLED:
        return []
    newest = RELEASES[-1]
    if known(version):
        why = f"kmc models Kafka up to {NEWEST_MODELLED}"
    else:
        why = (f"Kafka {version} is newer than every release kmc knows (the newest is {newest}); "
               f"kmc models Kafka up to {NEWEST_MODELLED}")
    return [f"warning: {why}, so Kafka {version} is checked with the rules of Kafka "
            f"{NEWEST_MODELLED}; what later releases change is not modelled"]


def is_kraft_release(version: Version) -> bool:
    """Does ``version`` run KRaft by default (``KRAFT_SINCE``)?"""
    return version >= KRAFT_SINCE


def parse_protocol_version(text, *, key: str = "inter.broker.protocol.version") -> tuple[Version, str]:
    """``inter.broker.protocol.version`` (``2.0``, ``2.1-IV2``, ``0.10.2``) -> (the release whose
    rules the brokers run, a note); a ``ConfigError`` for a value Kafka would refuse too."""
    raw = str(text).strip()
    m = re.fullmatch(r"(\d{1,4}(?:\.\d{1,4}){1,3})(?:-IV(\d{1,3}))?", raw)
    if not m:
        raise ConfigError(
            f"{key}={shown(raw)} is not a protocol version; Kafka writes it as X.Y or X.Y-IVn "
            "(0.X.Y before 1.0), e.g. 2.1 or 0.11.0-IV2")
    try:
        version = parse_version(m.group(1))
    except ConfigError as e:
        raise ConfigError(f"{key}={shown(raw)}: {str(e).split(': ', 1)[-1]}") from None
    sub, change = m.group(2), IBP_SUB_VERSIONS.get(version)
    if sub is not None and change is not None and int(sub) < change:
        before = RELEASES[RELEASES.index(version) - 1]
        return before, (f"sub-version IV{sub} comes before Kafka {version}'s replication change "
                        f"(IV{change}), so the rules of Kafka {before}")
    return version, ""
