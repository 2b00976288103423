"""The plain-text state printout shows a KRaft broker's pending PartitionChangeRecord (issue 29q):
one line per broker with a change, its ISR, leader epoch and whether it is current; none without
``kraft``."""

from __future__ import annotations

from model import make_model
from model.options import config_from_options
from tests.symbolic.helpers import reachable
from viewer.text import render_state


def _states(version):
    config = config_from_options(kafka_version=version, replication_factor=2, max_records=1,
                                 max_leader_epoch=1, max_crashes=1)[0]
    return reachable(make_model(config))


def test_a_pending_change_gets_a_line_of_its_own():
    states = _states("3.6")
    pending = [s for s in states if any(r.partition_change for r in s.replicas)]
    assert pending
    for s in pending[:50]:
        lines = [line for line in render_state(s) if "PartitionChangeRecord" in line]
        want = [(b, r.partition_change) for b, r in enumerate(s.replicas) if r.partition_change]
        assert len(lines) == len(want)
        for line, (b, (isr, epoch, current)) in zip(lines, want):
            assert line.startswith(f"  broker {b}: PartitionChangeRecord(ISR {{{','.join(map(str, isr))}}}, "
                                   f"leader epoch {epoch}")
            assert (", current)" in line) == bool(current)


def test_no_line_without_the_metadata_log():
    assert not any("PartitionChangeRecord" in line for s in _states("3.2") for line in render_state(s))
