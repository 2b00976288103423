"""The RF=3 proof of Kafka 2.1 with ``+reset-followers-on-epoch`` (issue 29r): the invariants it
needed hold on every reachable RF=3 state, the proof goes through with them, and without each one
it stops again on a counterexample to induction whose step leaves a fact every reachable state
has (so the CTI is unreachable: what the invariant rules out)."""

from __future__ import annotations

import pytest

from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.state import Dims
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, check_of
from model import make_model
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator, reachable

NEW = ("fetch-hw-on-later-isr", "epoch-bumps-crashed", "running-leaders-kept-leading",
       "named-leader-holds-its-records", "requested-leaders-hold-hw",
       "leaderless-isr-is-last-leader", "controller-isr-live")


def _config(**bounds):
    return config_from_options(kafka_version="2.1", replication_factor=3,
                               rule_changes=("+reset-followers-on-epoch",), **bounds)[0]


CONFIG = _config()  # 1 record, epochs <= 2, 1 crash: 7,911 states


@pytest.fixture(scope="module")
def states():
    return reachable(make_model(CONFIG))


def test_every_library_invariant_holds_on_every_reachable_rf3_state(states):
    assert len(states) > 7000
    false = [name for name in STRENGTHENINGS if not all(check_of(name, CONFIG)(s) for s in states)]
    assert false == []
    # and the new formulas say what their predicates say there
    d = Dims.of(CONFIG)
    evaluate = formula_evaluator(d, {n: STRENGTHENINGS[n].formula for n in NEW})
    for s in states[::40]:
        assert all(evaluate(s).values()), s


def test_the_rf3_proof_of_no_acked_loss_goes_through():
    result = prove(CONFIG, "no-acked-loss", strengthen=["all"], bmc_depth=0)
    assert result.status == PROVED, (result.failing, result.pre, result.action)


# the one the default bounds need; the others came from CTIs at 3 records, epochs <= 3 and 2
# crashes, where one inductive step takes minutes (docs/symbolic.md)
@pytest.mark.parametrize("left_out", ["fetch-hw-on-later-isr"])
def test_without_it_the_rf3_proof_stops_on_an_unreachable_cti(left_out, states):
    less = [n for n in all_names() if n != left_out]
    result = prove(CONFIG, "no-acked-loss", strengthen=less, bmc_depth=0)
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    # the step leaves an invariant that holds on every reachable state (the test above), so the
    # state it starts in is unreachable; the left-out invariant is false there
    assert not STRENGTHENINGS[left_out].holds(result.pre, CONFIG)
    assert all(check_of(n, CONFIG)(s) for n in result.failing for s in states)
