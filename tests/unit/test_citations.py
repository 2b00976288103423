"""Every rule's source and every known-results row that cites Kafka code names the release tag
(or the release's sources jar) the citation was read at, so that a reader can check it with
``git show <tag>:<path>`` or the jar, and a citation of a method that a release does not have
(issue 25: ``isFollowerInSync`` for 2.1, ``prepareIsrExpand`` for 2.8) is visibly dated."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from model.releases import RELEASES, as_version
from model.rules import RULES

ROOT = Path(__file__).resolve().parents[2]

TAG = re.compile(r"\b(\d+)\.(\d+)\.\d+(?:\.\d+)?(?:-rc\d+)?\b")
"""A Kafka release tag as the apache/kafka repository spells it (2.1.0, 0.11.0.0, 3.9.0-rc3) or
a jar's version (kafka-metadata 4.1.2-sources.jar)."""

KAFKA_CODE = re.compile(r"\b[A-Z][A-Za-z]+\.(?!md\b|py\b|toml\b)[a-z][A-Za-z]+\b")
"""A Kafka class and member (``Partition.maybeExpandIsr``; not a file such as DESIGN.md): a
citation of code."""


def tags_named(text: str) -> list[str]:
    """The release tags ``text`` names whose release line kmc knows."""
    return [m.group(0) for m in TAG.finditer(text)
            if as_version(f"{m.group(1)}.{m.group(2)}") in RELEASES]


def uncited(text: str) -> bool:
    """Does ``text`` cite Kafka code without naming the tag it was read at?"""
    return bool(KAFKA_CODE.search(text)) and not tags_named(text)


def test_the_check_catches_a_citation_without_a_tag():
    assert uncited("KAFKA-7128 (Partition.isFollowerInSync)")
    assert not uncited("KAFKA-7128 (Partition.maybeExpandIsr at 2.1.0)")
    assert not uncited("a rule that names no code; DESIGN.md says why")
    assert uncited("Replica.resetReplicaState at 9.9.9")  # no such release line


@pytest.mark.parametrize("name", list(RULES))
def test_every_rule_names_the_tag_it_was_read_at(name):
    source = RULES[name].source
    assert tags_named(source), f"rule {name}: its source names no release tag: {source!r}"


def test_every_known_results_row_citing_kafka_code_names_a_tag():
    suite = tomllib.loads((ROOT / "scenarios" / "known-results.toml").read_text())
    missing = [row["name"] for row in suite["check"]
               if uncited(" ".join(str(row.get(k, "")) for k in ("name", "description")))]
    assert not missing, f"rows citing Kafka code without a release tag: {missing}"
