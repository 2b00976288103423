"""The strengthening invariants that rest on Kafka's ordered elections (issue 29u): they hold on
every reachable state of Kafka 2.1 at RF=3 (the library tests cover RF=2), and under the
over-approximation, which moves healthy leaders, they say nothing."""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.state import Dims, fresh
from checker.symbolic.strengthen import STRENGTHENINGS, check_of
from model import make_model
from model.options import config_from_options
from tests.conftest import LOOSE
from tests.symbolic.helpers import reachable

NEW = ("stale-leader-still-leads", "replaced-leaders-crashed", "hw-behind-epoch-leader")


def _config(*extra, rf=3):
    return config_from_options(kafka_version="2.1", replication_factor=rf,
                               rule_changes=("+reset-followers-on-epoch",) + extra)[0]


def test_they_hold_on_every_reachable_rf3_state_of_kafka_2_1():
    config = _config()
    states = reachable(make_model(config))
    assert len(states) > 5000
    for name in NEW:
        holds = check_of(name, config)
        assert all(holds(s) for s in states), name


def test_the_election_facts_are_off_under_the_over_approximation():
    loose = _config(*LOOSE, rf=2)
    d = Dims.of(loose)
    assert not d.ordered and Dims.of(_config(rf=2)).ordered
    for name in ("stale-leader-still-leads", "replaced-leaders-crashed"):
        assert z3.is_true(z3.simplify(STRENGTHENINGS[name].formula(d, fresh(d, "x"))))
    # and the over-approximation does reach states where they would be false
    states = reachable(make_model(loose))
    assert not all(check_of("stale-leader-still-leads", _config(rf=2))(s) for s in states)


@pytest.mark.slow  # the operator's moves' 18k states x the library: ``make test-slow``
def test_with_the_operators_moves_every_library_invariant_holds_on_every_reachable_state():
    # a preferred election or a reassignment moves a healthy leader: the two election facts and
    # hw-behind-epoch-leader (false here on reachable states) switch off, and the rest of the
    # library still holds (the merge of issues 29p and 29u)
    config = config_from_options(kafka_version="2.1", replication_factor=2,
                                 rule_changes=("+reset-followers-on-epoch",),
                                 max_preferred_elections=1, max_reassignments=1)[0]
    d = Dims.of(config)
    assert d.ordered and d.operators
    for name in NEW:
        assert z3.is_true(z3.simplify(STRENGTHENINGS[name].formula(d, fresh(d, "x"))))
    states = reachable(make_model(config))
    assert len(states) > 10000
    false = [name for name in STRENGTHENINGS if not all(check_of(name, config)(s) for s in states)]
    assert false == []
