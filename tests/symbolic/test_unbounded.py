"""``kmc prove --unbounded crashes`` (issue 29y): a proof for every number of broker crashes.

The encoding drops BrokerCrash's guard and lets the crash counters saturate (``unbounded.py``
has the argument). These tests check that the guard is really gone (z3 reaches more crashes than
the bound), that the counter saturates instead of wrapping, that ``well_formed`` (what the
inductive step assumes of every state) holds on states reached with more crashes than the bound,
that a fast configuration is PROVED, and that an invariant true only because of the bound is not:
its proof past the bound fails on a CTI with two brokers down, and the search, which explores
the bounds only, cannot make that HOLDS (INCONCLUSIVE), while a real counterexample within the
search's bounds still ends VIOLATED."""

from __future__ import annotations

from dataclasses import replace

import pytest
import z3
from click.testing import CliRunner

from checker import HOLDS as BFS_HOLDS, VIOLATED as BFS_VIOLATED, check
from checker.symbolic import numbers as num
from checker.symbolic.bmc import unroll_init
from checker.symbolic.induction import HOLDS, INCONCLUSIVE, PROVED, VIOLATED, prove
from checker.symbolic.scope import symbolic_model
from checker.symbolic.state import count, fresh, well_formed_values
from checker.symbolic.strengthen import Strengthening
from checker.symbolic.strengthen import library
from checker.symbolic.transitions import Encoder
from cli import cli
from model import Bounds, ModelConfig, make_model
from model.actions import Action
from model.errors import ConfigError
from tests.symbolic.helpers import reachable

# kmc 0.1's kip-320 at RF=2, default bounds (2 records, epochs <= 2, 1 crash): the library
# proves no-acked-loss there (tests/symbolic/test_induction.py)
KIP320 = ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=2,
                     bounds=Bounds(2, 2, 1, 1), rule_changes=("+kmc-0.1",))


def _down(s) -> int:
    return sum(1 for r in s.replicas if not r.alive or r.leader_epoch == -1)


# True within --max-crashes 1 (a broker down or restarted without an epoch has crashed, and
# crashes-counted counts them), false with two crashes: an invariant that rests on the bound
AT_MOST_ONE_DOWN = Strengthening(
    "test-at-most-one-down", "at most one broker is down or restarted without an epoch",
    lambda s: _down(s) <= 1,
    lambda d, s: count([z3.Or(z3.Not(r.alive), r.lep == -1) for r in s.reps]) <= 1)


@pytest.fixture
def one_down(monkeypatch):
    monkeypatch.setitem(library.STRENGTHENINGS, AT_MOST_ONE_DOWN.name, AT_MOST_ONE_DOWN)
    return AT_MOST_ONE_DOWN.name


def _crashes_reachable(enc, steps: int, crashes: int):
    """Can ``steps`` steps of ``enc`` from the initial state reach ``crashes`` crashes?"""
    d = enc.d
    states = [fresh(d, f"u{j}") for j in range(steps + 1)]
    sv = z3.Solver()
    sv.add(unroll_init(enc, states[0]))
    for j in range(steps):
        sv.add(enc.step(states[j], states[j + 1], num.var(f"ua{j}"), tag=f"ut{j}"))
    sv.add(states[-1].crashes == crashes)
    return sv.check() == z3.sat


def test_the_crash_guard_is_gone_and_only_then():
    config = replace(KIP320, bounds=Bounds(1, 2, 1, 1))
    model = symbolic_model(config)
    assert not _crashes_reachable(Encoder(model), 2, 2)  # the bound holds in the bounded one
    assert _crashes_reachable(Encoder(model, unbounded=frozenset({"crashes"})), 2, 2)


def test_the_crash_counter_saturates_instead_of_wrapping():
    enc = Encoder(symbolic_model(KIP320), unbounded=frozenset({"crashes"}))
    s = fresh(enc.d, "sat")
    [(guard, nxt)] = enc.cases(s, Action("BrokerCrash", (0,)))
    sv = z3.Solver()
    sv.add(guard, s.crashes == num.TOP, nxt.crashes != num.TOP)
    assert sv.check() == z3.unsat
    sv = z3.Solver()
    sv.add(guard, s.crashes == 5, nxt.crashes != 6)
    assert sv.check() == z3.unsat


def test_well_formed_holds_with_more_crashes_than_the_bound():
    """The inductive step assumes ``well_formed`` of every state; past the bound it must hold on
    states reached with any number of crashes (here every reachable state with up to 3, judged
    by the Dims of a 1-crash configuration without the crash bound)."""
    small = replace(KIP320, bounds=Bounds(1, 2, 1, 1))
    d = replace(Encoder(symbolic_model(small)).d, unbounded_crashes=True)
    states = reachable(make_model(replace(small, bounds=Bounds(1, 2, 3, 1))))
    assert all(well_formed_values(d, s) for s in states)
    most = max(s.crashes for s in states)
    assert most == 3 and len(states) > 1000


def test_kip320_no_acked_loss_is_proved_for_every_number_of_crashes():
    result = prove(KIP320, "no-acked-loss", strengthen=["all"], unbounded=("crashes",),
                   search="none")
    assert result.status == PROVED and result.unbounded == ("crashes",)


def test_an_invariant_resting_on_the_bound_is_proved_within_it_and_not_past_it(one_down):
    within = prove(KIP320, one_down, strengthen=["crashes-counted"], search="none")
    assert within.status == PROVED
    past = prove(KIP320, one_down, strengthen=["crashes-counted"], unbounded=("crashes",),
                 search="none")
    assert past.status == INCONCLUSIVE and past.action.name == "BrokerCrash"
    assert _down(past.post) == 2 and one_down in past.failing


# KIP-101's scenario 1 (hw-truncation, before KIP-101): the loss needs two crashes, so within
# --max-crashes 1 no-acked-loss holds (BFS, computed in the test) and past it it does not
HW_TRUNCATION = ModelConfig(protocol="hw-truncation", replication_factor=2, min_insync_replicas=2,
                            bounds=Bounds(2, 2, 1, 1))


def test_bfs_within_the_bounds_does_not_settle_a_question_past_them():
    """BFS explores --max-crashes 1 and finds no loss: within the bounds that is HOLDS, past
    them INCONCLUSIVE (the loss needs a second crash)."""
    assert check(HW_TRUNCATION, ["no-acked-loss"]).verdict("no-acked-loss") == BFS_HOLDS
    within = prove(HW_TRUNCATION, "no-acked-loss", search="bfs")
    assert within.status == HOLDS
    past = prove(HW_TRUNCATION, "no-acked-loss", unbounded=("crashes",), search="bfs")
    assert past.status == INCONCLUSIVE and past.settled_by == "" and past.exit_code == 3
    assert [(r.engine, r.outcome) for r in past.searches] == [("bfs", "holds")]
    assert "not every number of crashes" in past.search


def test_a_real_counterexample_found_by_the_search_stands():
    """With --max-crashes 2 BFS reaches KIP-101's loss: a real trace, so VIOLATED, BFS's length."""
    config = replace(HW_TRUNCATION, bounds=Bounds(2, 2, 2, 1))
    bfs = check(config, ["no-acked-loss"])
    assert bfs.verdict("no-acked-loss") == BFS_VIOLATED
    result = prove(config, "no-acked-loss", unbounded=("crashes",), search="bfs")
    assert result.status == VIOLATED and result.exit_code == 1
    assert len(result.trace) == len(bfs.by_name("no-acked-loss").trace)
    assert result.trace.states[-1].crashes == 2


def test_refusals_are_one_line_exit_2():
    runner = CliRunner()
    for flags, words in ((["--unbounded", "leader-epochs"], "size of its state"),
                         (["--unbounded", "records"], "checker.symbolic.cutoff"),
                         (["--unbounded", "crash"], "--unbounded takes crashes"),
                         (["--unbounded", "crashes", "--max-crashes", "0"], "no crash"),
                         (["--unbounded", "crashes", "-p", "crashes-counted"], "reads crashes")):
        args = ["prove", "-r", "2", "-p", "no-acked-loss", "-q"] + flags
        if "-p" in flags:
            args = ["prove", "-r", "2", "-q"] + flags
        out = runner.invoke(cli, args)
        assert out.exit_code == 2, (flags, out.output)
        assert words in out.output and "Traceback" not in out.output
        assert len(out.output.strip().splitlines()) == 1, out.output
    with pytest.raises(ConfigError):
        prove(KIP320, "no-acked-loss", unbounded=("leader-epochs",))


def test_a_base_case_trace_past_the_bound_is_replayed_and_real(one_down):
    """With --k 3 the base case looks 2 steps deep in the unguarded encoding: two crashes in a
    row, past --max-crashes 1, a real trace of the model without the bound; it is replayed in
    the kernel with the bound raised (``unbounded.replay_config``) and ends FAILED."""
    config = replace(KIP320, bounds=Bounds(1, 2, 1, 1))
    result = prove(config, one_down, unbounded=("crashes",), k=3, search="none")
    assert result.status == "FAILED" and result.exit_code == 1
    assert [s.action.name for s in result.trace.steps] == ["BrokerCrash", "BrokerCrash"]
    assert result.trace.states[-1].crashes == 2
