"""A controlled shutdown on KRaft proved by induction (issue 29bl, docs/symbolic.md "A controlled
shutdown on KRaft"): ``strengthen/controlled.py`` gives facts 29ac switched off under
``--max-controlled-shutdowns`` their forms there (a broker in a controlled shutdown let through)
and adds the facts the CTIs of Kafka 3.5 and 4.1 asked for.

Each form and fact is checked on every reachable state BFS finds (predicate and formula alike),
the forms as 29ac had them (off) and as the facts are written (false there) are the mutants, and
the proof is run with and without one of the forms (the mutant the proof catches)."""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.induction import prove
from checker.symbolic.outcome import INCONCLUSIVE, PROVED
from checker.symbolic.state import Dims, fresh
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, controlled
from checker.symbolic.strengthen.library import UNSWITCHED
from model.options import config_from_options


def _config(version="3.5", **bounds):
    bounds = {"max_controlled_shutdowns": 1, **bounds}
    return config_from_options(kafka_version=version, replication_factor=2, **bounds)[0]


FORMS = list(controlled.FORMS) + list(controlled.AS_CRASHES)
NEW = [st.name for st in controlled.STRENGTHENINGS]
KIP841 = list(controlled.KIP841)
ACTS = {"2.1": [], "3.5": list(controlled.OFF_ON_ZOOKEEPER), "3.7": list(controlled.OFF_ON_ZOOKEEPER),
        "4.1": [n for n in FORMS if n not in KIP841 and n not in controlled.RF3_FORMS]}
"""The forms that change a formula on each release and whose fact as written is false there
(the rest are the fact as written there, or, ``KIP841`` on 3.5 and 3.7, a fact off as written)."""


def test_the_forms_act_only_under_the_bound():
    # (make test: 0.6 s at load 1 to 4) without --max-controlled-shutdowns every form is the fact as
    # written and the new facts are out of `-s all`; under the bound each form that acts on the
    # release is a formula of its own, neither the fact as written nor True (29ac's switch)
    plain = config_from_options(kafka_version="4.1", replication_factor=2)[0]
    assert not set(NEW) & set(all_names(plain))
    d = Dims.of(plain)
    s = fresh(d, "plain")
    for name in FORMS:
        assert STRENGTHENINGS[name].formula(d, s).eq(UNSWITCHED[name].formula(d, s)), name
    config = _config("4.1")
    rf3 = set(controlled.RF3)  # issues 29bo, 29bp: at RF>=3 only
    assert set(NEW) - rf3 <= set(all_names(config)) and not rf3 & set(all_names(config))
    assert rf3 <= set(all_names(config_from_options(kafka_version="3.5", replication_factor=3,
                                                    max_controlled_shutdowns=1)[0]))
    d = Dims.of(config)
    s = fresh(d, "cs")
    for name in ACTS["4.1"]:
        form = STRENGTHENINGS[name].formula(d, s)
        assert not form.eq(UNSWITCHED[name].formula(d, s)), name
        assert not z3.is_true(z3.simplify(form)), name
    # on Kafka 2.1 (ZooKeeper) the two forms stay off, as 29ac had them: 2.1 stays PROVED
    d = Dims.of(_config("2.1"))
    s = fresh(d, "zk")
    for name in controlled.OFF_ON_ZOOKEEPER:
        assert z3.is_true(z3.simplify(STRENGTHENINGS[name].formula(d, s))), name


def test_the_kip841_forms_act_only_on_kraft_without_the_elr():
    # issue 29bo: the KIP-841 forms act on KRaft 3.3 to 4.0 only (off as written there); on 2.1
    # and 4.1 each is the fact as written (its formula on 2.1, True on 4.1): the PROVED rows of
    # 2.1 and 4.1 carry the same formulas
    for version, acts in (("2.1", False), ("3.7", True), ("4.1", False)):
        d = Dims.of(_config(version))
        s = fresh(d, "k" + version.replace(".", ""))
        for name in KIP841:
            form, written = STRENGTHENINGS[name].formula(d, s), UNSWITCHED[name].formula(d, s)
            if acts:
                assert z3.is_true(written), (version, name)
                assert not z3.is_true(form) and z3.is_and(form), (version, name)
            else:
                assert form.eq(written), (version, name)


def _states(config, limit):
    from tests.symbolic.test_shutdowns_expiries import _reachable

    return _reachable(config, limit)


@pytest.mark.slow  # one BFS at one record and the formulas on every 10th state
@pytest.mark.parametrize("version, total", [("2.1", None), ("3.5", None), ("3.7", None), ("4.1", None)])
def test_every_form_and_fact_holds_and_agrees_with_its_formula_on_reachable_states(version, total):
    from tests.symbolic.helpers import formula_evaluator

    config = _config(version, max_records=1)
    names = FORMS + NEW
    states = _states(config, 40_000)
    if total is not None:
        assert len(states) == total
    assert any(s.controlled_shutdowns for s in states)
    assert any(r.shutting_down for s in states for r in s.replicas)
    for s in states:
        assert all(STRENGTHENINGS[n].holds(s, config) for n in names), s
    evaluate = formula_evaluator(Dims.of(config), {n: STRENGTHENINGS[n].formula for n in names})
    for s in states[::10]:
        values = evaluate(s)
        assert all(values.values()), [n for n, v in values.items() if not v]
    # the mutants: each fact as written (no broker let through, no ELR winner alone, a clean
    # stop counted as a restart) is false on some of them, where its form acts
    false = {n: sum(1 for s in states if not UNSWITCHED[n].holds(s, config)) for n in ACTS[version]}
    assert all(false.values()), false
    if version in ("3.5", "3.7"):
        # the KIP-841 forms' exceptions are needed (issue 29bo): a leaderless partition keeps its
        # last member, which may be down and out of the live set (mutants: no exception)
        c = [s.controller for s in states]
        assert any(x.leader == -1 and x.isr and not set(x.isr) <= set(x.live_brokers) for x in c)


@pytest.mark.slow  # two proofs each (4.1 PROVED in 58.8 s at load 1.4; 3.7 in 63.2 s at load 5)
@pytest.mark.parametrize("version, needed", [
    ("3.5", "offline-isr-restarted"),  # as 29ac had it under the bound (off)
    ("4.1", "shutdown-out-of-elr-isr"),  # CTI 10 of docs/symbolic.md (issue 29bl)
    ("3.7", "controller-isr-live"),  # its KIP-841 form, True as written: 3.7's second CTI (29bo)
])
def test_a_controlled_shutdown_is_proved_and_needs_its_fact(version, needed):
    config = _config(version)
    result = prove(config, "no-acked-loss", strengthen=["all"], search="none")
    assert result.status == PROVED, (result.status, result.failing)
    # the mutant: the library without the fact (or form) that took the CTI away: a CTI
    names = [n for n in all_names(config) if n != needed]
    mutant = prove(config, "no-acked-loss", strengthen=names, search="none")
    assert mutant.status == INCONCLUSIVE and mutant.cti


def _first_rf3_cti_pre_state(request_isr=(0, 1, 2)):
    """The pre-state of 3.5's first CTI at RF=3, one record (issue 29bo; docs/symbolic.md): broker
    0, marked shutting down, still leads epoch 0 while requests of epoch 1 (leader 2) carry
    ``request_isr``."""
    from model import make_model
    from model.state import PartitionState

    config = config_from_options(kafka_version="3.5", replication_factor=3, max_records=1,
                                 max_controlled_shutdowns=1)[0]
    init = next(iter(make_model(config).init_states()))
    r0, r1, r2 = init.replicas
    r0 = r0._replace(log=((1, 0),), isr=(0, 2), remote_log_end_offsets=(-1, -1, 1), shutting_down=True,
                     alter_partition=(4, (0,), 1, False, False), partition_epoch_current=False)
    r2 = r2._replace(log=((1, 0),), leader_epoch=-1, leader=-1)
    s = init._replace(
        replicas=(r0, r1, r2), records_written=1, crashes=1, controlled_shutdowns=1,
        controller=PartitionState(leader=2, leader_epoch=2, isr=(1, 2), live_brokers=(0, 1, 2)),
        leader_and_isr=((0, 1, 2, request_isr), (0, 2, 2, (1, 2)), (1, 1, 2, (2,)), (1, 2, 2, (1, 2)),
                        (2, 1, 2, request_isr), (2, 2, 2, (1, 2))))
    return config, s


def test_the_rf3_fact_rules_out_the_first_rf3_cti():
    # issue 29bo: shutdown-leader-out-of-later-isrs (predicate and formula) rules out 3.5's first
    # RF=3 CTI, and not the same state with epoch 1's requests leaving broker 0 out (the mutant)
    from tests.symbolic.helpers import formula_evaluator

    name = "shutdown-leader-out-of-later-isrs"
    st = STRENGTHENINGS[name]
    config, bad = _first_rf3_cti_pre_state()
    _, near = _first_rf3_cti_pre_state(request_isr=(1, 2))
    assert not st.holds(bad, config) and st.holds(near, config)
    evaluate = formula_evaluator(Dims.of(config), {name: st.formula})
    assert not evaluate(bad)[name] and evaluate(near)[name]
