"""A pending KRaft PartitionChangeRecord across a new leader epoch (issue 29q): the invariant
``kraft-stale-change-has-next-epoch`` (checker/symbolic/strengthen/kraft_epochs.py) holds on every
reachable state of 3.6 at RF=2 with the operator's moves (where a change does outlive its epoch),
its formula agrees with its predicate there, and with it ``no-acked-loss`` is proved on 3.7 at
RF=2; without it the inductive step stops on the CTI 29m left (a leader applies a change older
than the LeaderAndIsr requests still on their way to it)."""

from __future__ import annotations

import pytest

from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.state import Dims
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, check_of
from checker.symbolic.strengthen.kraft_epochs import STRENGTHENINGS as EPOCH_INVARIANTS
from model import make_model
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator, reachable

NAME = "kraft-stale-change-has-next-epoch"


def _small(version, **settings):
    return config_from_options(kafka_version=version, replication_factor=2, max_records=2,
                               max_leader_epoch=2, max_crashes=1, **settings)[0]


@pytest.mark.slow  # 18k states x the whole library: ``make test-slow`` (docs/testing.md)
def test_the_invariant_holds_and_agrees_with_its_formula_where_changes_outlive_their_epoch():
    config = _small("3.6", max_preferred_elections=1, max_reassignments=1)
    states = reachable(make_model(config))

    def stale(s):
        return any(r.partition_change and r.partition_change[1] < s.controller.leader_epoch
                   for r in s.replicas)

    old = [s for s in states if stale(s)]
    assert len(old) > 1000  # a preferred election moves the epoch under a pending change
    false = [n for n in STRENGTHENINGS if not all(check_of(n, config)(s) for s in states)]
    assert false == []
    evaluate = formula_evaluator(Dims.of(config), {NAME: STRENGTHENINGS[NAME].formula})
    assert all(evaluate(s)[NAME] for s in old[::25])
    # and on a mutant: the next epoch's request delivered, the stale change left behind
    t = old[0]._replace(leader_and_isr=())
    assert not check_of(NAME, config)(t) and not evaluate(t)[NAME]


def test_no_acked_loss_is_proved_on_3_7():
    result = prove(_small("3.7"), "no-acked-loss", strengthen=["all"], bmc_depth=0)
    assert result.status == PROVED, (result.failing, result.pre, result.action)


def test_without_the_invariant_the_proof_of_3_7_stops_on_an_unreachable_cti():
    config = _small("3.7")
    # (29n's kraft-running-leader-is-current, merged after, also rules this CTI out: both go)
    gone = {st.name for st in EPOCH_INVARIANTS} | {"kraft-running-leader-is-current"}
    less = [n for n in all_names(config) if n not in gone]
    result = prove(config, "no-acked-loss", strengthen=less, bmc_depth=0, search="none")
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    assert result.action.name == "BrokerApplyPartitionChange"
    assert not all(st.holds(result.pre, config) for st in EPOCH_INVARIANTS)


def test_past_leaders_crashed_holds_and_agrees_with_its_formula_on_3_7():
    name = "kraft-past-leaders-crashed"
    config = _small("3.7")
    states = reachable(make_model(config))
    assert all(check_of(name, config)(s) for s in states)
    evaluate = formula_evaluator(Dims.of(config), {name: STRENGTHENINGS[name].formula})
    moved = [s for s in states if s.controller.leader_epoch > 0]
    assert moved and all(evaluate(s)[name] for s in moved[::10])
    # a new epoch with no crash behind it is what the fact rules out
    t = moved[0]._replace(crashes=0)
    assert not check_of(name, config)(t) and not evaluate(t)[name]
    # without 3.6's rule a follower's failure makes an epoch too: the fact is not claimed
    assert check_of(name, _small("3.5"))(t)
