"""The z3 formulas of the properties asked by name (issue 29ai, checker/symbolic/formulas.py):
``isr-members-eligible`` (KIP-841) and the two reachability questions agree with their Python
predicates on every reachable state (one per class of broker renamings; the formulas treat
every broker alike) of small configurations where each is true somewhere and false somewhere,
and a mutant formula, one test dropped, disagrees on some reachable state. Then the engines on
them: BMC equals BFS on the known-results row "without KIP-841" (7 steps, the kernel replays
it), ``kmc prove`` ends VIOLATED there and PROVED with KIP-841, and ``--strengthen all`` does not
assume the formulas asked by name."""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.formulas import DEFAULT_FORMULAS, FORMULAS, holds_every_acked
from checker.symbolic.induction import PROVED, VIOLATED, prove
from checker.symbolic.state import count
from checker.symbolic.strengthen import all_names
from model.options import config_from_options
from properties import BUILT_IN
from tests.symbolic.helpers import assert_formulas_agree

ELIGIBLE = "isr-members-eligible"
ACKED = "acked-without-a-down-broker"
OFFLINE = "offline-with-a-live-broker"


def _small(version, **settings):
    settings = {"max_records": 1, "max_leader_epoch": 2, "max_crashes": 1, **settings}
    return config_from_options(kafka_version=version, replication_factor=2, **settings)[0]


# the mutants: each formula with one of its tests dropped
def _eligible_without_shutting_down(d, s):
    return z3.Implies(count(s.c_isr) >= 2, z3.And([z3.Implies(s.c_isr[b], s.c_live[b])
                                                   for b in range(d.n)]))


def _eligible_without_fencing(d, s):
    return z3.Implies(count(s.c_isr) >= 2, z3.And([z3.Implies(s.c_isr[b], z3.Not(s.reps[b].sd))
                                                   for b in range(d.n)]))


def _eligible_for_every_isr(d, s):  # the last member's exception dropped
    return z3.And([z3.Implies(s.c_isr[b], z3.And(s.c_live[b], z3.Not(s.reps[b].sd)))
                   for b in range(d.n)])


def _acked_on_every_broker(d, s):  # the "down" test dropped
    return z3.And([holds_every_acked(d, s, r) for r in s.reps])


def _offline_whoever_runs(d, s):  # the "while a broker runs" test dropped
    return s.c_leader != -1


CASES = {
    # KRaft 3.9 without KIP-841: the controller accepts a shutting-down broker back
    "3.9 -isr-eligibility, a controlled shutdown": (
        _small("3.9", rule_changes=("-isr-eligibility",), max_controlled_shutdowns=1),
        {ELIGIBLE: (_eligible_without_shutting_down, _eligible_for_every_isr)}),
    # ZooKeeper mode: a broker whose session expired stays in the ISR (fenced, not shutting down)
    "2.8, a session expiry": (
        _small("2.8", max_session_expiries=1),
        {ELIGIBLE: (_eligible_without_fencing,)}),
    # acks=1: a follower crashes without a record its leader acknowledged; two crashes take
    # every broker down, leaderless
    "2.1 acks=1, two crashes": (
        _small("2.1", acks="1", max_records=2, max_crashes=2),
        {ACKED: (_acked_on_every_broker,), OFFLINE: (_offline_whoever_runs,)}),
}


# make test keeps the quickest (16 s); the two others (27 s and 16 s) run in make test-slow, to
# keep CI's run under 25 minutes
IN_MAKE_TEST = {"2.8, a session expiry"}


@pytest.mark.parametrize("label", [label if label in IN_MAKE_TEST
                                   else pytest.param(label, marks=pytest.mark.slow)
                                   for label in CASES])
def test_each_formula_agrees_with_its_predicate_on_every_reachable_state(label):
    config, asked = CASES[label]
    assert_formulas_agree(config, asked, 1000)


def test_the_formulas_asked_by_name_are_not_in_the_library():
    # a proof may assume only what holds on every reachable state of the configurations
    # --strengthen all is used on: isr-members-eligible is false on ZooKeeper mode by design
    assert set(DEFAULT_FORMULAS) == set(BUILT_IN) <= set(FORMULAS)
    assert {ELIGIBLE, ACKED, OFFLINE} <= set(FORMULAS)
    names = all_names(_small("3.9", max_controlled_shutdowns=1))
    assert not {ELIGIBLE, ACKED, OFFLINE} & set(names)
    assert "no-acked-loss" in names


def test_without_kip_841_prove_finds_bfs_trace_and_with_it_proves_by_1_induction():
    off = _small("3.9", rule_changes=("-isr-eligibility",), max_controlled_shutdowns=1,
                 max_records=2)
    result = prove(off, ELIGIBLE, strengthen=[], search="bmc", bmc_depth=7)
    assert result.status == VIOLATED
    assert len(result.trace) == 7  # BFS's length, the known-results row's pin
    on = _small("3.9", max_controlled_shutdowns=1, max_records=2)
    # KIP-841's rule alone is 1-inductive: no strengthening needed
    result = prove(on, ELIGIBLE, strengthen=[], search="none")
    assert result.status == PROVED, (result.failing, result.pre, result.action)
