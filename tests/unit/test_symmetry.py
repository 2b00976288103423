"""Symmetry reduction renames brokers 1..N-1: fewer states, the same answers."""

import dataclasses
import random

from checker import check
from checker.fingerprint import fingerprint
from model import Bounds, ModelConfig, make_model
from checker.reference.symmetry import broker_permutations, permute_plain
from model.state import from_plain
from tests.conftest import LOOSE, config

# The symmetry tests run kmc's over-approximation of leader moves (LOOSE: no assignment order).
# Under Kafka's own elections the assignment order is per-broker state that tells brokers 1 and 2
# apart from the start (ranks 1 and 2), so renaming them gives a different state: the reduction
# stays exact but has little to merge, and the oracle (unordered always) counts other states.


def test_renamings_keep_broker_0_and_start_with_the_identity():
    assert broker_permutations(2) == ((0, 1),)
    assert broker_permutations(3) == ((0, 1, 2), (0, 2, 1))
    assert len(broker_permutations(5)) == 24


def test_a_renamed_state_has_the_same_canonical_form():
    for rf, renaming in ((3, (0, 2, 1)), (4, (0, 3, 1, 2)), (5, (0, 2, 1, 4, 3))):
        m = make_model(config(rf=rf, max_records=2, max_leader_epoch=2, max_crashes=2))
        rng = random.Random(rf)
        for _ in range(5):
            state = m.init_states()[0]
            for _ in range(40):
                succ = m.successors(state)
                if not succ:
                    break
                state = rng.choice(succ)[1]
                renamed = from_plain(permute_plain(state, renaming))
                assert fingerprint(m.canonical(renamed)) == fingerprint(m.canonical(state))


def test_same_verdicts_and_trace_lengths_with_and_without_symmetry():
    base = config("hw-truncation", rf=3, max_records=1, max_leader_epoch=1, max_crashes=1,
                  rule_changes=LOOSE)
    props = ["no-acked-loss", "committed-consistency", "monotonic-visibility"]
    on = check(base, props)
    off = check(dataclasses.replace(base, symmetry=False), props)
    assert {p.verdict for p in on.properties} == {"VIOLATED"}
    assert [(p.name, p.verdict) for p in on.properties] == [(p.name, p.verdict) for p in off.properties]
    for p_on, p_off in zip(on.properties, off.properties):
        assert (p_on.trace is None) == (p_off.trace is None)
        if p_on.trace is not None:
            assert len(p_on.trace) == len(p_off.trace)
    assert on.stats.distinct_states < off.stats.distinct_states


def test_the_modern_protocol_rf3_small_bounds_halves_the_state_space():
    base = config("kip-320", rf=3, max_records=1, max_leader_epoch=1, max_crashes=0,
                  rule_changes=LOOSE)
    on, off = check(base), check(dataclasses.replace(base, symmetry=False))
    assert {p.verdict for p in on.properties} == {p.verdict for p in off.properties} == {"HOLDS"}
    assert off.stats.distinct_states < 2 * on.stats.distinct_states < off.stats.distinct_states + 100


def test_both_engines_reduce_rf3_by_the_same_symmetry():
    # the readable model's canonical form must cover every field the kernel's does, extension
    # fields included (a field left out makes the two engines count different classes)
    small = ModelConfig(replication_factor=3, bounds=Bounds(max_records=1, max_leader_epoch=1, max_crashes=1),
                        rule_changes=LOOSE)
    compiled = check(small, ["no-acked-loss"], engine="compiled")
    reference = check(small, ["no-acked-loss"], engine="reference")
    assert compiled.stats.distinct_states == reference.stats.distinct_states
    assert compiled.stats.states_generated == reference.stats.states_generated
