"""A session expiry proved by induction (issue 29bd, docs/symbolic.md "A session expiry proved by
induction"): ``strengthen/expiries.py`` keeps what 29ac switched off where it still holds (until
the first expiry, with the expiries counted as crashes, in a weaker form after it), turns three of
29ba's facts on under session expiries, and adds the facts the CTIs of Kafka 2.1 and 3.5 asked
for.

Each fact and form is checked on every reachable state BFS finds (predicate and formula alike),
and the proof is run with and without one of the new facts (the mutant the proof catches)."""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.induction import prove
from checker.symbolic.outcome import INCONCLUSIVE, PROVED
from checker.symbolic.state import Dims, fresh
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, expiries
from checker.symbolic.strengthen.library import UNSWITCHED
from model.options import config_from_options


def _config(version="2.1", **bounds):
    bounds = {"max_session_expiries": 1, **bounds}
    return config_from_options(kafka_version=version, replication_factor=2, **bounds)[0]


NEW = [st.name for st in expiries.STRENGTHENINGS]
CHANGED = list(expiries.UNTIL_EXPIRY) + list(expiries.AS_CRASHES) + list(expiries.BACK_ON) + list(expiries.LONE)


def test_the_expiry_facts_are_in_all_only_under_the_bound_and_leave_other_formulas_alone():
    # (make test: 0.1 s) without --max-session-expiries nothing changes: the new facts and 29ba's
    # lone-leader facts are out of `-s all`, and every switched fact has its formula as written
    plain = config_from_options(kafka_version="2.1", replication_factor=2)[0]
    assert not (set(NEW) | set(expiries.LONE)) & set(all_names(plain))
    assert set(NEW) | set(expiries.LONE) <= set(all_names(_config()))
    d = Dims.of(plain)
    s = fresh(d, "plain")
    for name in CHANGED:
        if name in UNSWITCHED:
            assert STRENGTHENINGS[name].formula(d, s).eq(UNSWITCHED[name].formula(d, s)), name
        else:  # 29ba's: True without failovers or expiries
            assert z3.is_true(z3.simplify(STRENGTHENINGS[name].formula(d, s))), name
    # under the bound, the until-expiry form is the fact while no expiry has happened, and True
    # after one where the fact is false: the formula reads the counter
    d = Dims.of(_config())
    s = fresh(d, "exp")
    form = STRENGTHENINGS["running-leaders-kept-leading"].formula(d, s)
    solver = z3.Solver()
    solver.add(s.sexp == 0, z3.Not(form), UNSWITCHED["running-leaders-kept-leading"].formula(d, s))
    assert solver.check() == z3.unsat  # before an expiry: the fact itself


def _states(config, limit):
    from tests.symbolic.test_shutdowns_expiries import _reachable

    return _reachable(config, limit)


@pytest.mark.slow  # 562 s (2.1) and 197 s (3.5) at load 6 to 8 (the formulas on every 10th state)
@pytest.mark.parametrize("version, records, total", [
    ("2.1", 2, 18_352),  # 17,416 before the epoch-start slot (c5e2b61 and before)
    ("3.5", 1, 9_987),
    ("4.1", 1, 10_081),  # issue 29bg: the ELR forms and 4.1's facts
])
def test_every_new_fact_and_form_holds_and_agrees_with_its_formula_on_reachable_states(
        version, records, total):
    from tests.symbolic.helpers import formula_evaluator

    config = _config(version, max_records=records)
    names = NEW + CHANGED
    states = _states(config, 20_000)
    assert len(states) == total  # every reachable state (kmc check's count)
    assert any(s.session_expiries for s in states) and any(not s.session_expiries for s in states)
    for s in states:
        assert all(STRENGTHENINGS[n].holds(s, config) for n in names), s
    evaluate = formula_evaluator(Dims.of(config), {n: STRENGTHENINGS[n].formula for n in names})
    for s in states[::10]:
        values = evaluate(s)
        assert all(values.values()), [n for n, v in values.items() if not v]
    if version != "2.1":
        return
    # each new fact bites: on a reachable state changed one way, predicate and formula both
    # say false
    s = next(s for s in states if s.session_expiries and any(
        r.alive and r.leader == b and len(r.isr) == 2 for b, r in enumerate(s.replicas)))
    b = next(b for b, r in enumerate(s.replicas) if r.alive and r.leader == b)
    other = 1 - b
    c = s.controller
    moved = s._replace(controller=c._replace(leader=other, leader_epoch=s.replicas[b].leader_epoch + 1,
                                             isr=(0, 1)))
    lone = s._replace(replicas=tuple(r._replace(isr=(b,)) if i == b else r
                                     for i, r in enumerate(s.replicas)),
                      controller=moved.controller)
    cases = {"moved-leader-out-of-later-isrs": moved, "lone-leader-keeps-later-epochs": lone}
    for name, bad in cases.items():
        assert not STRENGTHENINGS[name].holds(bad, config), name
        assert not formula_evaluator(Dims.of(config), {"f": STRENGTHENINGS[name].formula})(bad)["f"]


@pytest.mark.slow  # 50 s at load 6 to 8 (two proofs)
def test_kafka_2_1_with_a_session_expiry_is_proved_and_needs_the_new_facts():
    config = _config()
    result = prove(config, "no-acked-loss", strengthen=["all"], search="none")
    assert result.status == PROVED, (result.status, result.failing)
    # the mutant: the library without moved-leader-out-of-later-isrs stops on a CTI
    names = [n for n in all_names(config) if n != "moved-leader-out-of-later-isrs"]
    mutant = prove(config, "no-acked-loss", strengthen=names, search="none")
    assert mutant.status == INCONCLUSIVE and mutant.cti


@pytest.mark.slow  # 84 s at load 6 to 8 (two proofs)
def test_kafka_3_5_with_a_session_expiry_is_proved_and_needs_eligible_isr_live():
    config = _config("3.5")
    result = prove(config, "no-acked-loss", strengthen=["all"], search="none")
    assert result.status == PROVED, (result.status, result.failing)
    names = [n for n in all_names(config) if n != "eligible-isr-live"]
    mutant = prove(config, "no-acked-loss", strengthen=names, search="none")
    assert mutant.status == INCONCLUSIVE and mutant.cti


@pytest.mark.slow  # 369 s and 154 s at load 2 to 7 (two proofs; issue 29bj)
def test_kafka_4_1_with_a_session_expiry_is_proved_and_needs_elr_leaderless_isr_empty():
    config = _config("4.1")
    result = prove(config, "no-acked-loss", strengthen=["all"], search="none")
    assert result.status == PROVED, (result.status, result.failing)
    # the mutant: without elr-leaderless-isr-empty the step stops on 29bj's fifteenth CTI
    names = [n for n in all_names(config) if n != "elr-leaderless-isr-empty"]
    mutant = prove(config, "no-acked-loss", strengthen=names, search="none")
    assert mutant.status == INCONCLUSIVE and mutant.cti


@pytest.mark.slow  # one BFS of 4.1 at one record (10,081 states; issue 29bg)
def test_the_elr_forms_hold_on_kafka_4_1_where_the_forms_as_first_written_do_not(monkeypatch):
    # issue 29bg: 29bd's three facts were off under KIP-966's ELR, false as written on 4.1's
    # reachable states; their ELR forms hold there. The mutant is the form as written (the ELR
    # treated as absent): the reachable states catch it
    config = _config("4.1", max_records=1)
    names = ["moved-leader-out-of-later-isrs", "lone-leader-keeps-later-epochs",
             "leaderless-after-running-leader-counted"]
    states = _states(config, 20_000)
    assert len(states) == 10_081
    assert all(STRENGTHENINGS[n].holds(s, config) for s in states for n in names)
    monkeypatch.setattr(expiries, "_no_elr", lambda config: True)
    false = {n: sum(1 for s in states if not STRENGTHENINGS[n].holds(s, config)) for n in names}
    assert all(false.values()), false


def _cti_states(config):
    """The two pre-states of 4.1's thirteenth CTI (issue 29bj; ControllerFenceBroker into
    leader-isr-is-controller-isr, before any expiry), built from the initial state: broker
    ``runner`` runs in the controller's leaderless epoch 2 with no fault of its own (the one crash
    was the other broker's, which has restarted and waits for the leaderless request of epoch 2)."""
    from model import make_model

    init = next(iter(make_model(config).init_states()))
    out = []
    # 29bg's form (main at 3bb0d98): broker 0, which led epoch 1, is the ISR {0}
    # main's form (0f1607a): broker 1, which led epoch 0, is the ISR {1}; 0 led epoch 1
    for runner, logs in ((0, (((1, 0), (2, 1)), ((1, 0),))), (1, (((1, 0),), ((1, 0), (2, 0))))):
        waiting = 1 - runner if runner == 0 else 1
        reps = []
        for b, r in enumerate(init.replicas):
            reps.append(r._replace(alive=True, log=logs[b], leader=-1, isr=(),
                                   leader_epoch=2 if b != waiting else -1,
                                   remote_log_end_offsets=(-1, -1), high_watermark=0))
        c = init.controller._replace(leader=-1, leader_epoch=2, isr=(runner,), live_brokers=(0, 1))
        out.append(init._replace(replicas=tuple(reps), controller=c,
                                 leader_and_isr=((waiting, 2, -1, (runner,)),), records_written=2,
                                 crashes=1, session_expiries=0, elr=(), last_known_elr=()))
    return out


@pytest.mark.slow  # a few seconds: the formulas built once over a symbolic state
def test_the_thirteenth_cti_of_kafka_4_1_is_ruled_out_by_the_crash_or_fence_counts():
    # issue 29bj: the CTI's pre-states need a fault more than the state has (leadership left a
    # running broker that neither crashed nor was fenced); the two counts with each expiry beside
    # the crashes say so, predicate and formula alike. The mutant: the same counts against the
    # crashes alone of an expiry later (the state with one expiry more holds them)
    from tests.symbolic.helpers import formula_evaluator

    config = _config("4.1")
    names = ["kraft-past-leaders-crashed-or-fenced", "leaderless-live-member-counted"]
    evaluate = formula_evaluator(Dims.of(config), {n: STRENGTHENINGS[n].formula for n in names})
    for k, s in enumerate(_cti_states(config)):
        assert not STRENGTHENINGS["kraft-past-leaders-crashed-or-fenced"].holds(s, config), k
        assert not evaluate(s)["kraft-past-leaders-crashed-or-fenced"], k
        if k == 0:  # 29bg's form: its waiting broker is a crash the other terms do not count
            assert not STRENGTHENINGS["leaderless-live-member-counted"].holds(s, config)
            assert not evaluate(s)["leaderless-live-member-counted"]
        later = s._replace(session_expiries=1)  # one fault more: nothing to rule out
        assert STRENGTHENINGS["kraft-past-leaders-crashed-or-fenced"].holds(later, config), k
        assert evaluate(later)["kraft-past-leaders-crashed-or-fenced"], k
    # without the bound (and on 3.5, before 3.6's rule) the new facts say nothing
    for plain in (config_from_options(kafka_version="4.1", replication_factor=2)[0], _config("3.5")):
        for s in _cti_states(config):
            assert STRENGTHENINGS["kraft-past-leaders-crashed-or-fenced"].holds(s, plain)
            assert STRENGTHENINGS["kraft-written-epochs-crashed-or-fenced"].holds(s, plain)


@pytest.mark.slow  # a few seconds: the formula built once over a symbolic state
def test_the_fourteenth_cti_of_kafka_4_1_is_ruled_out_by_new_epoch_isr_lacks_a_replica():
    # issue 29bj: a restarted broker 0 with requests of epochs 0 ({0}) and 2 ({0, 1}) naming it
    # leader; the request of epoch 2 carries every replica though its leader has not taken it.
    # The mutant: the same state with that request's ISR {0} holds the fact
    from model import make_model
    from tests.symbolic.helpers import formula_evaluator

    config = _config("4.1")
    name = "new-epoch-isr-lacks-a-replica"
    init = next(iter(make_model(config).init_states()))
    r0, r1 = init.replicas
    reps = (r0._replace(alive=True, leader_epoch=-1, leader=-1, isr=()),
            r1._replace(alive=True, leader_epoch=2, leader=0, isr=()))
    c = init.controller._replace(leader=0, leader_epoch=2, isr=(0, 1), live_brokers=(0, 1))
    s = init._replace(replicas=reps, controller=c, crashes=1, session_expiries=1,
                      leader_and_isr=((0, 0, 0, (0,)), (0, 2, 0, (0, 1))))
    evaluate = formula_evaluator(Dims.of(config), {name: STRENGTHENINGS[name].formula})
    assert not STRENGTHENINGS[name].holds(s, config) and not evaluate(s)[name]
    fine = s._replace(leader_and_isr=((0, 0, 0, (0,)), (0, 2, 0, (0,))),
                      controller=c._replace(isr=(0,)))
    assert STRENGTHENINGS[name].holds(fine, config) and evaluate(fine)[name]
