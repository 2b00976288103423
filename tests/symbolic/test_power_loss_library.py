"""The strengthening library under ``--crash-model power-loss`` (issue 29p,
``checker/symbolic/strengthen/power_loss.py``).

Each power-loss form holds on every reachable state of small Kafka 2.2 configurations and its z3
formula agrees with its Python predicate on them and on states with a log cut short (which is
what a power loss does); process crashes keep the library's formulas unchanged; with the forms
``no-acked-loss`` is PROVED for Kafka 2.2 at RF=2 with one record and one power loss (BFS: HOLDS,
707 states), and without ``acked-on-min-isr`` the inductive step stops on a
counterexample that the new fact rules out."""

from __future__ import annotations

from checker.compiled import compiled_bfs
from properties import get_properties

import dataclasses

import pytest

from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.state import Dims, fresh
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, library
from checker.symbolic.strengthen import power_loss
from checker.symbolic.strengthen.reachable import false_on_reachable
from model import make_model
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator, reachable

SWITCHED = sorted(set(power_loss.FORMS) | set(power_loss.CONFIG_FORMS) | set(power_loss.UNTIL_A_LOSS))
NEW = [st.name for st in power_loss.STRENGTHENINGS]


def kafka_2_2(rf=2, rules=(), **bounds):
    bounds.setdefault("max_records", 1)
    return config_from_options(kafka_version="2.2", replication_factor=rf, rule_changes=tuple(rules),
                               crash_model="power-loss", max_unflushed_losses=1, **bounds)[0]


@pytest.mark.parametrize("rules", [(), ("+reset-followers-on-epoch",)])
def test_every_invariant_holds_on_every_reachable_power_loss_state(rules):
    config = kafka_2_2(rules=rules)
    states, complete, false = false_on_reachable(config)
    # every reachable state: the compiled engine (kmc check's) counts the same space (707 states
    # on 2026-11-28), so the library was checked on all of it, not on a part
    bfs = compiled_bfs(config, get_properties(["no-acked-loss"]))
    assert complete and states == bfs.stats.distinct_states > 500
    assert false == {}


def test_the_process_crash_forms_are_false_there():
    """The library as it was (process crashes) is false on reachable power-loss states: the
    forms are needed, and the check can fail."""
    config = kafka_2_2()
    process = dataclasses.replace(config, crash_model="process")
    model = make_model(config)
    states = reachable(model)
    false = {n for n in SWITCHED if not all(STRENGTHENINGS[n].holds(s, process) for s in states)}
    assert {"acked-in-isr", "epoch-leader-holds-its-records", "isr-holds-every-hw",
            "kept-remote-leo-is-follower-prefix"} <= false


def _cut_short(state):
    """Each replica's log cut by one record (HW and flushed offset kept within it): unreachable
    states of the kind a power loss makes."""
    for b, r in enumerate(state.replicas):
        if r.log:
            log = r.log[:-1]
            cut = r._replace(log=log, high_watermark=min(r.high_watermark, len(log)),
                             flushed_offset=min(r.flushed_offset, len(log)))
            yield state._replace(replicas=state.replicas[:b] + (cut,) + state.replicas[b + 1:])


def test_each_formula_agrees_with_its_predicate():
    config = kafka_2_2()
    d = Dims.of(config)
    assert d.power_loss
    names = SWITCHED + NEW
    evaluate = formula_evaluator(d, {n: STRENGTHENINGS[n].formula for n in names})
    states = reachable(make_model(config))
    checked = 0
    for s in states[::7]:
        for t in [s, *_cut_short(s)]:
            values = evaluate(t)
            expected = {n: STRENGTHENINGS[n].holds(t, config) for n in names}
            assert values == expected, [n for n in names if values[n] != expected[n]]
            checked += 1
    assert checked > 100


def test_process_crashes_keep_the_library_formulas():
    config = config_from_options(kafka_version="2.2", replication_factor=2)[0]
    d = Dims.of(config)
    assert not d.power_loss
    s = fresh(d, "same")
    for name in SWITCHED:
        st = STRENGTHENINGS[name]
        original = next(x for topic in library.TOPICS for x in topic.STRENGTHENINGS if x.name == name)
        assert st.formula(d, s).eq(original.formula(d, s)), name
    for name in NEW:
        assert str(STRENGTHENINGS[name].formula(d, s)) == "True", name
    # --strengthen all: committed-consistency and not the power-loss facts for process crashes,
    # the other way round under power loss
    assert "committed-consistency" in all_names(config) and not set(NEW) & set(all_names(config))
    assert "committed-consistency" not in all_names(kafka_2_2()) and set(NEW) <= set(all_names(kafka_2_2()))


def test_no_acked_loss_is_proved_under_power_loss():
    result = prove(kafka_2_2(), "no-acked-loss", strengthen=["all"], bmc_depth=0, search="none")
    assert result.status == PROVED, (result.failing, result.pre, result.action)


def test_without_the_new_fact_the_step_stops_on_a_cti_it_rules_out():
    config = kafka_2_2()
    less = [n for n in all_names(config) if n != "acked-on-min-isr"]
    result = prove(config, "no-acked-loss", strengthen=less, bmc_depth=0, search="none")
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    assert not STRENGTHENINGS["acked-on-min-isr"].holds(result.pre, config)
