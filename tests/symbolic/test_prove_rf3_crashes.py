"""The RF=3 proof of Kafka 2.1 with ``+reset-followers-on-epoch`` and 2 crashes (issue 29c): the
invariants it needed hold on reachable states with 2 crashes, the proof goes through with them at
the smallest bounds that need them (1 record, epochs <= 2, 2 crashes), and without
``fetch-hw-on-later-leaders`` it stops on a counterexample to induction whose first state breaks
a fact every reachable state has (so the CTI is unreachable: what the invariant rules out)."""

from __future__ import annotations

import pytest

from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.state import Dims
from checker.symbolic.strengthen import STRENGTHENINGS, all_names
from model import make_model
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator
from checker.symbolic.strengthen.reachable import false_on_reachable

NEW = ("quick-restarts-crashed", "fetch-hw-on-later-leaders")
NEEDED = "fetch-hw-on-later-leaders"  # the one the proof at CONFIG needs (the other speeds it)

# 1 record, epochs <= 2, 2 crashes: 103,419 states
CONFIG = config_from_options(kafka_version="2.1", replication_factor=3, max_crashes=2,
                             rule_changes=("+reset-followers-on-epoch",))[0]
FIRST = 30_000  # the first states in BFS order, about a third of the space (the whole: ~20 s)


@pytest.fixture(scope="module")
def checked():
    return false_on_reachable(CONFIG, NEW, max_states=FIRST)


def test_the_new_invariants_hold_on_reachable_states_with_two_crashes(checked):
    n, _, false = checked
    assert n == FIRST and false == {}


def test_their_formulas_say_what_their_predicates_say():
    d = Dims.of(CONFIG)
    evaluate = formula_evaluator(d, {n: STRENGTHENINGS[n].formula for n in NEW})
    model = make_model(CONFIG)
    frontier, seen, states = model.init_states(), set(), []
    while frontier and len(states) < 3000:  # the first levels, then every 10th state
        states += frontier
        nxt = []
        for s in frontier:
            for _, t in model.successors(s):
                if model.canonical(t) not in seen:
                    seen.add(model.canonical(t))
                    nxt.append(t)
        frontier = nxt
    # unreachable ones: a crash forgotten, a log emptied
    fewer = [s._replace(crashes=s.crashes - 1) for s in states if s.crashes]
    emptied = [s._replace(replicas=s.replicas[:b] + (r._replace(log=(), high_watermark=0),)
                          + s.replicas[b + 1:])
               for s in states for b, r in enumerate(s.replicas) if r.log]
    # every 10th, and every mutant that breaks one (the mutants must break each)
    broken = {n: [s for s in fewer + emptied if not STRENGTHENINGS[n].holds(s, CONFIG)] for n in NEW}
    assert all(broken.values()), {n: len(b) for n, b in broken.items()}
    for s in states[::10] + fewer[::10] + emptied[::10] + broken[NEW[0]][::10] + broken[NEW[1]]:
        want = {n: STRENGTHENINGS[n].holds(s, CONFIG) for n in NEW}
        assert evaluate(s) == want, s


@pytest.mark.slow  # RF=3 with 2 crashes: ``make test-slow`` (docs/testing.md)
def test_the_rf3_proof_with_two_crashes_goes_through():
    result = prove(CONFIG, "no-acked-loss", strengthen=["all"], bmc_depth=0)
    assert result.status == PROVED, (result.failing, result.pre, result.action)


@pytest.mark.slow  # RF=3 with 2 crashes: ``make test-slow`` (docs/testing.md)
def test_without_it_the_proof_stops_on_an_unreachable_cti(checked):
    less = [n for n in all_names() if n != NEEDED]
    result = prove(CONFIG, "no-acked-loss", strengthen=less, search="none")
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    # its first state breaks the invariant, which holds on reachable states (the first test: the
    # first 30,000; all 103,419 by `python -m checker.symbolic.strengthen.reachable`, docs/symbolic.md)
    assert not STRENGTHENINGS[NEEDED].holds(result.pre, CONFIG)
