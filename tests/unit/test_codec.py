"""Rows and readable states: the layout, encode/decode round trips, and states that do not fit
their slots refused, never cut."""

from __future__ import annotations

import numpy as np
import pytest

from model import Bounds, ModelConfig, make_model
from model.kernel import layout as L
from model.kernel.actions import begin
from model.kernel.codec import decode, encode
from model.kernel.fields import SlotOverflow, append_record, put_leader_and_isr, leader_and_isr_isr, truncate_to
from model.kernel.spec import kernel_spec
from model.state import initial_state


def reachable(config, limit=3000):
    model = make_model(config)
    seen, frontier = set(), list(model.init_states())
    states = []
    while frontier and len(states) < limit:
        s = frontier.pop()
        key = model.canonical(s)
        if key in seen:
            continue
        seen.add(key)
        states.append(s)
        frontier.extend(t for _, t in model.successors(s))
    return states


def test_rows_are_whole_words_and_blocks_start_on_words():
    for n, records, epochs in ((2, 2, 3), (3, 1, 3), (5, 3, 4)):
        lay = L.build_layout(n, records, epochs)
        assert lay.width % 8 == 0
        assert lay.array[L.BROKER0] % 8 == 0 and lay.array[L.BROKER_STRIDE] % 8 == 0
        assert lay.width == lay.array[L.BROKER0] + n * lay.array[L.BROKER_STRIDE]


@pytest.mark.parametrize("features", [(), L.FEATURES])
def test_fields_do_not_overlap(features):
    lay = L.build_layout(4, 3, 4, features)
    taken = np.zeros(lay.width, dtype=int)
    for f in lay.global_fields:
        taken[f.offset:f.offset + f.count] += 1
    for b in range(4):
        for f in lay.block_fields:
            start = lay.block_start(b) + f.offset
            taken[start:start + f.count] += 1
    assert taken.max() == 1


@pytest.mark.parametrize("protocol,rf,crash", [
    ("kip-320", 2, "power-loss"), ("hw-truncation", 3, "process"), ("kip-101", 4, "process"),
])
def test_decode_encode_round_trip_on_reachable_states(protocol, rf, crash):
    config = ModelConfig(protocol=protocol, replication_factor=rf, crash_model=crash,
                         min_insync_replicas=1, acks="all",
                         bounds=Bounds(max_records=2, max_leader_epoch=2, max_crashes=1))
    layout = kernel_spec(config).layout
    states = reachable(config)
    assert len(states) >= 1000
    for s in states:
        row = encode(s, layout)
        assert decode(row, layout) == s
        assert encode(decode(row, layout), layout).tobytes() == row.tobytes()


EVERY_FEATURE = [
    # KRaft 4.1 with ELR, a replaced disk, Kafka's HW checkpoint and every KRaft-side fault
    ModelConfig(kafka_version="4.1", replication_factor=3, crash_model="disk-loss",
                hw_checkpoint="interval",
                bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=1,
                              max_controlled_shutdowns=1, max_session_expiries=1,
                              max_delayed_fetches=1)),
    # ZooKeeper 2.8 (AlterPartition) with a controller failover
    ModelConfig(kafka_version="2.8", replication_factor=2, crash_model="power-loss",
                bounds=Bounds(max_records=2, max_leader_epoch=2, max_crashes=1,
                              max_controller_failovers=1, max_delayed_fetches=1)),
    # an idempotent producer that retries and bumps its epoch (KIP-360; issue 26g): the logs'
    # and fetch responses' producer epochs, truncated and copied by the kernel's log writers
    ModelConfig(kafka_version="4.1", replication_factor=2, acks="all",
                bounds=Bounds(max_records=2, max_leader_epoch=2, max_crashes=1, max_retries=1,
                              max_producer_epoch_bumps=1)),
]


@pytest.mark.parametrize("config", EVERY_FEATURE,
                         ids=["kraft-4.1-all-faults", "zk-2.8-failover", "producer-epoch-4.1"])
def test_round_trip_with_every_optional_field(config):
    layout = kernel_spec(config).layout
    states = reachable(config, limit=4000)
    assert len(states) >= 4000
    for s in states:
        row = encode(s, layout)
        assert decode(row, layout) == s
        assert encode(decode(row, layout), layout).tobytes() == row.tobytes()
    # every optional field took a non-default value somewhere (the search reached it)
    from model import schema
    used = {f.name for f in schema.CLUSTER if f.feature
            and any(getattr(s, f.name) != f.default for s in states)}
    used |= {f.name for f in schema.REPLICA if f.feature
             for s in states for r in s.replicas if getattr(r, f.name) != f.default}
    assert len(used) >= 8
    if layout.has("producer_epoch"):  # a bumped epoch reached a log and a fetch response
        assert any(1 in r.log_producer_epochs for s in states for r in s.replicas)
        assert any(1 in r.response_producer_epochs for s in states for r in s.replicas)


def test_a_state_with_a_feature_the_layout_lacks_does_not_fit():
    spec = kernel_spec(ModelConfig(replication_factor=2))
    s = initial_state(2)._replace(elr=(1,))
    with pytest.raises(SlotOverflow, match="elr"):
        encode(s, spec.layout)


def test_the_initial_row_is_the_initial_state():
    spec = kernel_spec(ModelConfig(replication_factor=3))
    start = initial_state(3)  # the replicas assigned in broker order (issue 25's assignment_rank)
    start = start._replace(replicas=tuple(r._replace(assignment_rank=b)
                                          for b, r in enumerate(start.replicas)))
    assert decode(spec.initial, spec.layout) == start
    unordered = kernel_spec(ModelConfig(replication_factor=3,
                                        rule_changes=("+unordered-leader-moves",)))
    assert decode(unordered.initial, unordered.layout) == initial_state(3)


def _spec():
    return kernel_spec(ModelConfig(replication_factor=2, bounds=Bounds(max_records=1, max_leader_epoch=1)))


def test_a_state_whose_log_does_not_fit_is_refused():
    spec = _spec()
    s = initial_state(2)
    r0 = s.replicas[0]._replace(log=((1, 0), (2, 0)))
    with pytest.raises(SlotOverflow, match="log holds 2 records"):
        encode(s._replace(replicas=(r0, s.replicas[1])), spec.layout)


def test_a_request_beyond_the_epoch_slots_is_refused():
    spec = _spec()
    s = initial_state(2)._replace(leader_and_isr=((1, 5, 0, (0, 1)),))
    with pytest.raises(SlotOverflow, match="epoch 5"):
        encode(s, spec.layout)


def test_a_value_beyond_a_slot_is_refused():
    spec = _spec()
    s = initial_state(2)
    r0 = s.replicas[0]._replace(high_watermark=300)
    with pytest.raises(SlotOverflow):
        encode(s._replace(replicas=(r0, s.replicas[1])), spec.layout)


def test_the_kernel_refuses_to_append_past_the_record_slots():
    spec = _spec()
    row = spec.initial.copy()
    append_record(row, spec.lay, 0, 1, 0, 0)
    with pytest.raises(SlotOverflow, match="record slots"):
        append_record(row, spec.lay, 0, 2, 0, 0)


def test_the_kernel_refuses_two_leaders_for_one_broker_and_epoch():
    spec = _spec()
    row = spec.initial.copy()
    put_leader_and_isr(row, spec.lay, 1, 1, 1, 0b11)
    put_leader_and_isr(row, spec.lay, 1, 1, 1, 0b11)  # the same request again: fine
    with pytest.raises(SlotOverflow, match="different leaders for one epoch"):
        put_leader_and_isr(row, spec.lay, 1, 1, 0, 0b11)
    with pytest.raises(SlotOverflow, match="leader with different ISRs"):
        put_leader_and_isr(row, spec.lay, 1, 1, 1, 0b10)
    put_leader_and_isr(row, spec.lay, 0, 1, 1, 0b11)  # to a follower, a newer ISR replaces the older
    put_leader_and_isr(row, spec.lay, 0, 1, 1, 0b10)
    assert leader_and_isr_isr(row, spec.lay, 0, 1) == 0b10


def test_truncation_zeroes_the_freed_slots():
    spec = kernel_spec(ModelConfig(replication_factor=2, bounds=Bounds(max_records=3)))
    row = spec.initial.copy()
    for rid in (1, 2, 3):
        append_record(row, spec.lay, 1, rid, 0, 0)
    truncate_to(row, spec.lay, 1, 1)
    fresh = spec.initial.copy()
    append_record(fresh, spec.lay, 1, 1, 0, 0)
    assert row.tobytes() == fresh.tobytes()


def test_a_state_with_more_successors_than_the_buffer_is_an_error():
    spec = _spec()
    out = np.zeros((1, spec.width), dtype=np.int8)
    acts = np.zeros((1, 3), dtype=np.int16)
    with pytest.raises(SlotOverflow, match="more successors"):
        begin(spec.initial, out, acts, 1, 0, 0, 0)


# -- one schema (model/schema.py): the layout, the accessors and the readable state come from it

def test_the_generated_slots_module_is_up_to_date():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "model/kernel/generate.py", "--check"], cwd=root,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_readable_state_has_one_attribute_per_schema_field_and_every_slot_one_owner():
    from model import schema
    from model.state import ClusterState, PartitionState, ReplicaState

    assert ReplicaState._fields == tuple(f.name for f in schema.REPLICA)
    assert PartitionState._fields == tuple(f.name for f in schema.CONTROLLER)
    assert ClusterState._fields == ("replicas",) + tuple(f.name for f in schema.CLUSTER)
    owned = [s.name for f in schema.REPLICA + schema.CLUSTER for s in schema.field_slots(f)]
    assert sorted(owned) == sorted(s.name for s in schema.SLOTS) and len(set(owned)) == len(owned)
    lay = L.build_layout(3, 2, 3, L.FEATURES)  # every slot is in the layout, at its own place
    assert {f.name for f in lay.global_fields + lay.block_fields} == set(owned)


def test_a_field_of_a_feature_the_layout_leaves_out_does_not_fit():
    spec = kernel_spec(ModelConfig(protocol="kip-320", replication_factor=2))
    s = initial_state(2)
    with pytest.raises(SlotOverflow, match="the state uses hw checkpoint"):
        encode(s._replace(replicas=(s.replicas[0]._replace(checkpointed_hw=0), s.replicas[1])),
               spec.layout)
    assert decode(encode(s, spec.layout), spec.layout).replicas[0].checkpointed_hw == -1
