"""Cross-validation of the z3 encoding against the explicit model, state by state.

For sampled reachable states of small RF=2 configurations of every protocol, z3 enumerates every
successor the symbolic transition relation allows (blocking each one found); that set of
``(action, next state)`` must equal the explicit model's successors exactly: no action encoded
wider (an extra successor) or narrower (a missing one) than the Python. The property formulas
must also agree with the Python predicates on every sampled state.

The oracle moves leaders without an assignment order and delivers requests in any order, so the
comparison with it runs under that over-approximation (``LOOSE``); the encoding of Kafka's own
elections and request order is compared with the compiled kernel instead
(``test_kernel_crosscheck.py``).
"""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.crosscheck import symbolic_successors
from checker.symbolic.formulas import FORMULAS
from checker.symbolic.state import Dims, encode
from checker.symbolic.transitions import Encoder
from model import Bounds, ModelConfig
from properties import get_properties
from tests.conftest import LOOSE
from tests.symbolic.helpers import sample_states

CONFIGS = [
    ModelConfig(protocol="hw-truncation", replication_factor=2, min_insync_replicas=2,
                crash_model="power-loss", rule_changes=LOOSE, bounds=Bounds(2, 2, 1, 1)),
    ModelConfig(protocol="kip-101", replication_factor=2, min_insync_replicas=1, acks="1",
                rule_changes=LOOSE, bounds=Bounds(2, 2, 1, 1)),
    ModelConfig(protocol="kip-279", replication_factor=2, min_insync_replicas=1,
                rule_changes=LOOSE, bounds=Bounds(2, 2, 1, 1)),
    ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=2,
                rule_changes=LOOSE, bounds=Bounds(2, 2, 1, 1)),
    ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=1, acks="0",
                unclean_leader_election_enable=True, crash_model="power-loss",
                rule_changes=LOOSE, bounds=Bounds(1, 2, 2, 1)),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.protocol}-{c.acks}-{c.crash_model}")
def test_symbolic_successors_equal_explicit_ones(config):
    model, states = sample_states(config, 10)
    enc = Encoder(model)
    for state in states:
        explicit = {(a, model.canonical(t)) for a, t in model.successors(state)}
        symbolic = symbolic_successors(enc, state, model.canonical)
        assert symbolic - explicit == set(), f"encoded wider than the model in {state}"
        assert explicit - symbolic == set(), f"encoded narrower than the model in {state}"


@pytest.mark.parametrize("config", CONFIGS[:4], ids=lambda c: c.protocol)
def test_every_explicit_successor_satisfies_its_action_formula(config):
    model, states = sample_states(config, 8, seed=11)
    enc = Encoder(model)
    for state in states:
        pre = encode(enc.d, state)
        for act, nxt in model.successors(state):
            f = enc.action_formula(pre, encode(enc.d, nxt), act)
            assert z3.is_true(z3.simplify(f)), f"{act} from {state}"


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.protocol}-{c.acks}-{c.crash_model}")
def test_property_formulas_agree_with_the_predicates(config):
    model, states = sample_states(config, 150, seed=3)
    d = Dims.of(config)
    props = get_properties(list(FORMULAS))
    for state in states:
        s = encode(d, state)
        for p in props:
            value = z3.simplify(FORMULAS[p.name](d, s))
            assert z3.is_true(value) == p.check(state), f"{p.name} on {state}"


def test_property_formulas_see_violations():
    """The agreement test above is not vacuous: violated states are recognised too."""
    config = CONFIGS[0]  # hw-truncation with power-loss: several properties fail
    model, states = sample_states(config, 400, seed=5)
    d = Dims.of(config)
    violated = set()
    for state in states:
        for p in get_properties(list(FORMULAS)):
            if not p.check(state):
                violated.add(p.name)
                assert z3.is_false(z3.simplify(FORMULAS[p.name](d, encode(d, state))))
    assert {"no-acked-loss", "log-matching"} <= violated
