"""The inductive step asked one transition case at a time (``checker/symbolic/by_case.py``,
``kmc prove --step cases``) asks the same question as the whole step: the same verdict, and a
CTI found case by case is a step of the whole transition relation between states satisfying the
conjuncts. A mutant asker that leaves one case out is caught by the comparison."""

from __future__ import annotations

import pytest
import z3

from checker.symbolic import numbers as num
from checker.symbolic import by_case
from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.scope import symbolic_model
from checker.symbolic.state import encode, fresh
from checker.symbolic.transitions import Encoder
from model.options import config_from_options

CONFIG, _ = config_from_options(kafka_version="2.1", replication_factor=2, max_records=1)
WEAK = ["hw-le-leo"]  # too weak to prove no-acked-loss: the step has a CTI


def _is_step(config, result) -> bool:
    """The CTI's (pre, action, post) is a step of the whole transition relation."""
    enc = Encoder(symbolic_model(config))
    idx = [str(a) for a in enc.instances()].index(str(result.action))
    act = num.action_var("a")
    sv = z3.Solver()
    sv.add(enc.step(encode(enc.d, result.pre), encode(enc.d, result.post), act, exact=False),
           act == idx)
    return sv.check() == z3.sat


def test_cases_and_whole_agree_on_a_cti():
    whole = prove(CONFIG, "no-acked-loss", strengthen=WEAK, search="none", step="whole")
    cases = prove(CONFIG, "no-acked-loss", strengthen=WEAK, search="none", step="cases")
    assert whole.status == cases.status == INCONCLUSIVE
    assert whole.step["asked"] == "whole"
    assert cases.step["asked"] == "cases" and cases.step["cases"] > 10
    assert _is_step(CONFIG, cases)
    threads = prove(CONFIG, "no-acked-loss", strengthen=WEAK, search="none", step="cases", workers=2)
    assert threads.status == INCONCLUSIVE and _is_step(CONFIG, threads)


@pytest.mark.slow
def test_cases_and_whole_agree_on_a_proof():
    whole = prove(CONFIG, "no-acked-loss", strengthen=["all"], search="none", step="whole")
    cases = prove(CONFIG, "no-acked-loss", strengthen=["all"], search="none", step="cases",
                  workers=1)
    threads = prove(CONFIG, "no-acked-loss", strengthen=["all"], search="none", step="cases",
                    workers=2)
    assert whole.status == cases.status == threads.status == PROVED
    assert whole.strengthen == cases.strengthen == threads.strengthen


@pytest.mark.slow
def test_a_case_left_out_is_caught(monkeypatch):
    """A mutant asker that leaves out the cases of the actions whose steps leave the conjuncts
    (found by asking, case by case, until none is left) calls the step unsatisfiable where the
    whole step is not: the comparison above would catch such a loop."""
    dropped: set = set()
    real = by_case.StepAsker.cases

    def fewer(self):
        return [c for c in real(self) if str(self.enc.instances()[c[0]]) not in dropped]
    monkeypatch.setattr(by_case.StepAsker, "cases", fewer)
    for _ in range(40):
        mutant = prove(CONFIG, "no-acked-loss", strengthen=WEAK, search="none", step="cases")
        if mutant.status != INCONCLUSIVE:
            break
        dropped.add(str(mutant.action))
    assert mutant.status == PROVED and dropped
    whole = prove(CONFIG, "no-acked-loss", strengthen=WEAK, search="none", step="whole")
    assert whole.status == INCONCLUSIVE  # the whole step still has its CTI: the two disagree


def test_overlapping_guards_fall_back_to_the_whole_step(monkeypatch):
    """Two cases of one action that can fire together would make the split a different question
    (the whole relation mixes their next states): the asker sees the overlap and asks whole."""
    real = Encoder.all_cases

    def doubled(self, pre):
        cases = real(self, pre)
        return cases + [cases[0]]  # the same guard twice for one action
    monkeypatch.setattr(Encoder, "all_cases", doubled)
    enc = Encoder(symbolic_model(CONFIG))
    pre = fresh(enc.d, "x")
    cases = enc.all_cases(pre)
    assert by_case.exclusive(enc.d, pre, cases, z3.Solver, None) is not None
    result = prove(CONFIG, "no-acked-loss", strengthen=WEAK, search="none", step="cases")
    assert result.step["asked"] == "whole" and "overlap" in result.step


def test_guards_are_exclusive_on_the_real_encoder():
    enc = Encoder(symbolic_model(CONFIG))
    pre = fresh(enc.d, "x")
    assert by_case.exclusive(enc.d, pre, enc.all_cases(pre), z3.Solver, None) is None


def test_bad_step_mode_and_workers_are_refused():
    from model.errors import ConfigError
    with pytest.raises(ConfigError):
        prove(CONFIG, "no-acked-loss", step="halves")
    for bad in (0, -1, 1.5, True, 65):
        with pytest.raises(ConfigError):
            prove(CONFIG, "no-acked-loss", step="cases", workers=bad)
