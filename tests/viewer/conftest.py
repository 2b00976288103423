"""Fixtures for the viewer's tests: one real counterexample (KIP-101 scenario 1: hw-truncation,
RF=2, acks=all, min.insync.replicas=2 loses an acknowledged record), as a trace and as a file."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checker import check
from model import Bounds, ModelConfig
from viewer.trace_file import write_trace

KIP101_CONFIG = ModelConfig(
    protocol="hw-truncation", replication_factor=2, min_insync_replicas=2, acks="all",
    bounds=Bounds(max_records=2, max_leader_epoch=2, max_crashes=2, max_unflushed_losses=1),
)
"""Two crashes: the KIP's own story (broker 1 restarts and truncates, then broker 0 dies). With one
crash it HOLDS since issue 25: kmc no longer moves a healthy leader for free."""


def kmc(*args):
    from cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="session")
def violated_result():
    result = check(KIP101_CONFIG, ["no-acked-loss"])
    assert result.exit_code == 1
    return result


@pytest.fixture(scope="session")
def violated_trace(violated_result):
    return violated_result.by_name("no-acked-loss").trace


@pytest.fixture
def trace_path(tmp_path, violated_trace, violated_result):
    path = tmp_path / "kip101.itf.json"
    write_trace(str(path), violated_trace, violated_result)
    return path


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def save(path, doc):
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")


@pytest.fixture(autouse=True)
def _no_forced_colour(monkeypatch):
    """The plain-output tests mean 'not a terminal'; a CI's FORCE_COLOR would override that."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
