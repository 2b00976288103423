"""Shared helpers for kmc's tests: small configurations and a one-call checker."""

from __future__ import annotations

from pathlib import Path

import pytest

from checker import check
from model import Bounds, ModelConfig, make_model


SLOW_LIST = Path(__file__).with_name("slow_tests.txt")


def slow_list() -> set[str]:
    """The node ids tests/slow_tests.txt names: tests a measured make test found over its
    threshold (bench/slow_tests.py writes it; docs/testing.md, "The fourth trim")."""
    ids = set()
    for line in SLOW_LIST.read_text().splitlines():
        nid = line.split("  # ")[0].strip()
        if nid and not nid.startswith("#"):
            ids.add(nid)
    return ids


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` every test the measured list names, before ``-m 'not slow'`` deselects."""
    listed = slow_list()
    for item in items:
        if item.nodeid in listed:
            item.add_marker(pytest.mark.slow)


LOOSE = ("+unordered-leader-moves", "-leader-and-isr-in-order")
"""kmc's over-approximation of leader moves and request order (the oracle's model): tests that
pin the engines against each other, or findings as first told, run under it."""


def config(protocol="kip-320", rf=2, acks="all", min_isr=2, unclean=False, crash="process",
           rule_changes=(), **bounds):
    """A ModelConfig from short keyword names; bounds default to RF=2's defaults."""
    base = dict(max_records=2, max_leader_epoch=2, max_crashes=1, max_unflushed_losses=1)
    base.update(bounds)
    return ModelConfig(
        protocol=protocol, replication_factor=rf, acks=acks, min_insync_replicas=min_isr,
        unclean_leader_election_enable=unclean, crash_model=crash, bounds=Bounds(**base),
        rule_changes=tuple(rule_changes),
    )


@pytest.fixture(autouse=True)
def _property_registry_restored():
    """A test that registers a property (``kmc --load plugin.py`` run in-process by click's
    CliRunner) leaves the registry as it found it: a user's property left behind joins every
    later run's default set (a test of a memory limit once saw exit 1, a plugin's violation,
    instead of 3, in the full suite only)."""
    from properties.registry import PROPERTIES
    before = dict(PROPERTIES)
    yield
    PROPERTIES.clear()
    PROPERTIES.update(before)


def run(cfg, *props, **limits):
    return check(cfg, list(props) or None, **limits)


@pytest.fixture
def kip320_rf2():
    return make_model(config())


def default_sigint() -> None:
    """``preexec_fn`` for a child a test will Ctrl-C: SIGINT back to its default action, as in a
    terminal. A suite started in the background by a shell without job control (``make test &``
    from a script) runs with SIGINT ignored, every child inherits that, and kmc keeps a SIGINT
    its parent ignored (checker/interrupt.py), so the interruption tests would see runs finish
    instead of stop."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)
