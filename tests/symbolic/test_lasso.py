"""Liveness in BMC (issue 29, item 1): the lasso search of ``checker/symbolic/lasso.py``.

* The ``P`` and ``Q`` formulas of every liveness property (``liveness_formulas.py``) agree with
  their Python predicates on every reachable state of three configurations, and mutant formulas
  (one test dropped) disagree somewhere.
* The known-results rows: BMC's shortest lasso has the row's pinned length, which is the compiled
  engine's, and the kernel judges it a fair violating lasso; on one configuration, every
  property with and without fairness: the graph check's verdict and length.
* The search's parts can fail: with fairness dropped from the query z3 offers a shorter lasso
  that the kernel's judgement rejects (a weakly fair step enabled where it stutters), and with
  the loop's closure dropped, a "loop" the judgement rejects as not closing.
* No lasso up to K is INCOMPLETE (exit 3), never HOLDS, also where the compiled engine proves
  the property.
"""

from __future__ import annotations

import pytest
import z3
from click.testing import CliRunner

import checker.symbolic.lasso as lasso_mod
from checker.liveness import check_liveness
from checker.result import HOLDS, INCOMPLETE, VIOLATED
from checker.symbolic.lasso import judge, lasso_check
from checker.symbolic.liveness_formulas import LIVENESS_FORMULAS, accepts_writes, has_leader
from checker.symbolic.scope import symbolic_model
from checker.symbolic.state import Dims
from cli import cli
from gate.suite import load_suite
from model import make_model
from model.options import config_from_options
from properties.liveness import LIVENESS, get_liveness
from tests.symbolic.helpers import formula_evaluator, reachable

SUITE = "scenarios/known-results.toml"


def _row(part: str):
    rows = [c for c in load_suite(SUITE).checks if part in c.name]
    assert len(rows) == 1, [c.name for c in rows]
    return rows[0]


# acks=all, min.insync.replicas=2: produce waits and acknowledgements, writes refused after a
# crash (KAFKA-15583's row, Kafka 3.9); and KRaft 3.8's offline partition with unclean
# election on and min.insync.replicas=1 (KAFKA-12670's row), with a controlled shutdown
CONFIGS = {
    "3.9 min.insync=2": config_from_options(kafka_version="3.9", replication_factor=2,
                                            max_records=1, max_crashes=1)[0],
    "3.8 unclean min.insync=1 shutdown": config_from_options(
        kafka_version="3.8", replication_factor=2, max_records=1, max_crashes=1,
        min_insync_replicas=1, unclean_leader_election=True, max_controlled_shutdowns=1)[0],
    # KIP-966's ELR (4.1): leader-eventually's P counts an ELR member
    "4.1 ELR": config_from_options(kafka_version="4.1", replication_factor=2, max_records=1,
                                   max_crashes=1)[0],
}



def _readable_ignoring_hw(d, s):  # mutant: a record past the HW counted readable
    from checker.symbolic.formulas import true_leader_is
    from checker.symbolic.state import sel

    out = [z3.And(z3.Not(has_leader(d, s)), z3.Not(z3.Or(s.acked)))]
    for l in range(d.n):
        r = s.reps[l]
        out.append(z3.And([true_leader_is(s, l)] + [
            z3.Implies(s.acked[k], z3.And(s.acked_off[k] < r.leo,
                                          sel(r.log_id, s.acked_off[k], -1) == k + 1))
            for k in range(d.records)]))
    return z3.Or(out)


MUTANTS = {  # name -> (property, "p" or "q", formula(d, config) -> s -> BoolRef)
    "writes accepted without min.insync": (
        "writes-eventually-accepted", "q", lambda d, c: lambda s: has_leader(d, s)),
    "writes accepted with a larger min.insync": (
        "writes-eventually-accepted", "q",
        lambda d, c: lambda s: accepts_writes(d, s, "all", c.min_insync_replicas + 1)),
    "readable past the high watermark": (
        "acked-eventually-visible", "q", lambda d, c: lambda s: _readable_ignoring_hw(d, s)),
}


# the built-in ones (other tests register their own in the same registry)
BUILT_IN = {name: prop for name, prop in LIVENESS.items()
            if {prop.p.__module__, prop.q.__module__} == {"properties.liveness"}}


def test_every_liveness_property_has_formulas():
    assert len(BUILT_IN) == 7 and set(LIVENESS_FORMULAS) == set(BUILT_IN)


# the 3.8 configuration (23 s) in make test-slow: make test under 25 minutes
@pytest.mark.parametrize("label", [pytest.param(n, marks=pytest.mark.slow) if n.startswith("3.8")
                                   else n for n in CONFIGS])
def test_p_and_q_formulas_agree_with_the_predicates_on_every_reachable_state(label):
    config = CONFIGS[label]
    states = reachable(make_model(config))
    assert len(states) > 300
    d = Dims.of(config)
    formulas, predicates = {}, {}
    for name, prop in BUILT_IN.items():
        p, q = LIVENESS_FORMULAS[name](d, config)
        p_of, q_of = prop.predicates(config)
        formulas[f"{name} Q"] = lambda d_, s, q=q: q(s)
        predicates[f"{name} Q"] = q_of
        if p is not None:
            formulas[f"{name} P"] = lambda d_, s, p=p: p(s)
            predicates[f"{name} P"] = p_of
    for m, (name, which, build) in MUTANTS.items():
        formulas[m] = lambda d_, s, f=build(d, config): f(s)
    evaluate = formula_evaluator(d, formulas)
    true = {n: 0 for n in predicates}
    caught = {m: 0 for m in MUTANTS}
    for s in states:
        values = evaluate(s)
        for n, pred in predicates.items():
            holds = bool(pred(s))
            assert values[n] == holds, (n, s)
            true[n] += holds
        for m, (name, which, _) in MUTANTS.items():
            caught[m] += values[m] != bool(predicates[f"{name} {which.upper()}"](s))
    # the formulas the four known-results rows read are decided both ways here
    for n in ("writes-eventually-accepted Q", "acked-eventually-visible Q",
              "produce-eventually-answered Q", "leader-eventually Q"):
        assert 0 < true[n] < len(states), (n, true[n], len(states))
    if label == "3.9 min.insync=2":  # acks=all and min.insync=2: every mutant shows
        assert all(caught.values()), caught


@pytest.mark.parametrize("part", [
    "one broker down for good refuses acks=all",  # 3 steps
    "KAFKA-13091: Kafka 3.0 leaves",  # 6 steps
])
def test_a_liveness_row_has_its_pinned_length_and_the_compiled_engines(part):
    row = _row(part)
    prop = get_liveness(row.violates[0])
    result = lasso_check(symbolic_model(row.config), prop, max_depth=row.trace_length,
                         kernel_config=row.config)
    assert result.verdict == VIOLATED
    assert len(result.trace) == row.trace_length == result.states
    compiled = check_liveness(row.config, prop)
    assert compiled.verdict == VIOLATED and len(compiled.trace) == len(result.trace)
    assert result.stuttering and compiled.stuttering
    # judged again here, on the kernel's trace the search returned
    assert judge(row.config, prop, result.trace, result.loop_start) == ""
    # one step shorter: no lasso, INCOMPLETE, never HOLDS
    short = lasso_check(symbolic_model(row.config), prop, max_depth=row.trace_length - 1,
                        kernel_config=row.config)
    assert short.verdict == INCOMPLETE and short.limit == "max-depth"
    assert any("not a proof" in n for n in short.notes)


ACKS_1 = config_from_options(kafka_version="2.1", replication_factor=2, max_records=1,
                             max_crashes=1, acks="1", min_insync_replicas=1)[0]


@pytest.mark.parametrize("fair", [True, pytest.param(False, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_bmc_and_the_graph_check_agree_on_every_property(name, fair):
    # (without fairness in make test-slow: make test under 25 minutes)
    # Kafka 2.1, acks=1: with fairness three properties are violated (3 to 5 steps) and four
    # hold on the graph; without it six are violated (1 to 4 steps) and one holds
    prop = BUILT_IN[name]
    graph = check_liveness(ACKS_1, prop, fair=fair)
    depth = len(graph.trace) if graph.trace else 5
    result = lasso_check(symbolic_model(ACKS_1), prop, max_depth=depth, fair=fair)
    if graph.verdict == VIOLATED:
        assert result.verdict == VIOLATED and len(result.trace) == len(graph.trace)
        assert result.stuttering == graph.stuttering
    else:
        assert graph.verdict == HOLDS and result.verdict == INCOMPLETE


def test_fairness_dropped_finds_a_lasso_the_kernel_rejects():
    row = _row("one broker down for good refuses acks=all")
    prop = get_liveness(row.violates[0])
    unfair = lasso_check(symbolic_model(row.config), prop, max_depth=3, fair=False,
                         kernel_config=row.config, judged=False)
    assert unfair.verdict == VIOLATED and len(unfair.trace) < row.trace_length
    from checker.symbolic.settle import in_kernel

    replayed, _ = in_kernel(row.config, unfair.trace)
    why = judge(row.config, prop, replayed, unfair.loop_start, fair=True)
    assert "enabled (weakly fair)" in why, why
    assert judge(row.config, prop, replayed, unfair.loop_start, fair=False) == ""
    # the compiled engine without fairness: the same length
    assert len(check_liveness(row.config, prop, fair=False).trace) == len(unfair.trace)


def test_the_loop_closure_dropped_finds_a_loop_the_kernel_rejects(monkeypatch):
    # kmc's behaviour graphs have no cycle (every counter and epoch only grows), so every lasso
    # stutters; with s_k = s_j dropped the query may "loop" over any stretch of the path
    row = _row("one broker down for good refuses acks=all")
    prop = get_liveness(row.violates[0])
    monkeypatch.setattr(lasso_mod, "eq", lambda a, b: z3.BoolVal(True))
    wide = lasso_check(symbolic_model(row.config), prop, max_depth=3, kernel_config=row.config,
                       judged=False)
    assert wide.verdict == VIOLATED and not wide.stuttering and len(wide.trace) < row.trace_length
    from checker.symbolic.settle import in_kernel

    replayed, _ = in_kernel(row.config, wide.trace)
    assert "does not close" in judge(row.config, prop, replayed, wide.loop_start)


def test_where_the_compiled_engine_holds_bmc_is_incomplete_never_holds():
    row = _row("KAFKA-13091 fixed")
    prop = get_liveness(row.properties[0])
    assert check_liveness(row.config, prop).verdict == HOLDS
    result = lasso_check(symbolic_model(row.config), prop, max_depth=6, kernel_config=row.config)
    assert result.verdict == INCOMPLETE and result.exit_code == 3


def test_the_cli_exit_codes():
    args = ["check", "--protocol", "kip-320", "-r", "2", "--max-crashes", "1", "-p",
            "writes-eventually-accepted", "--engine", "bmc"]
    out = CliRunner().invoke(cli, args + ["--depth", "3"])
    assert out.exit_code == 1, out.output
    assert "shortest lasso: 3 steps" in out.output and "stutters for ever" in out.output
    out = CliRunner().invoke(cli, args + ["--depth", "2"])
    assert out.exit_code == 3, out.output
    assert "not a proof" in out.output and "HOLDS" not in out.output
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 2 and "needs --depth" in out.output
    # a rule set the encoding refuses (retries are encoded since issue 29aq, the idempotent
    # producer's since issue 29at, the periodic HW checkpoint since, fetch from followers since
    # issue 29bf; a KIP-320 fix added to an older release is not, issue 29ah)
    out = CliRunner().invoke(cli, [a for a in args if a not in ("--protocol", "kip-320")]
                             + ["--kafka-version", "2.0", "--rule", "+fenced-fetch", "--depth", "3"])
    assert out.exit_code == 2 and "kmc check explores them" in out.output, out.output
    assert "Traceback" not in out.output
    for bad in ("-1", "0"):  # (review s14: --depth -1 searched nothing and exited 3)
        out = CliRunner().invoke(cli, args + ["--depth", bad])
        assert out.exit_code == 2 and "--depth must be a whole number" in out.output, out.output


def test_kmc_prove_of_a_liveness_property_says_where_it_is_checked():
    # (review s14: it said "unknown property or strengthening invariant")
    out = CliRunner().invoke(cli, ["prove", "-p", "writes-eventually-accepted"])
    assert out.exit_code == 2 and "is a liveness property" in out.output, out.output
    assert "--engine bmc" in out.output and "Traceback" not in out.output
