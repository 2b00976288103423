"""Power loss on AlterPartition and KRaft releases (issue 29w,
``checker/symbolic/strengthen/power_loss_kraft.py``).

The library's power-loss forms hold on every reachable state of Kafka 4.1 (RF=2, one record, one
power loss), where issue 29p's forms (resting on 2.2-2.6's ISR writes) are false; each new or
wrapped formula agrees with its predicate there and on states with a log cut short; the 4.1
proof ends HOLDS by exhaustive search (BFS settles its CTI). And the releases
before the ELR lose an acked record to one power loss: 3.5's HOLDS at leader epochs <= 2 is the
epoch bound (its shrink bumps the epoch), VIOLATED at 3."""

from __future__ import annotations

import functools

import pytest

from checker import HOLDS, VIOLATED, check
from checker.symbolic.induction import prove
from checker.symbolic.outcome import PROVED
from checker.symbolic.state import Dims
from checker.symbolic.strengthen import STRENGTHENINGS, all_names
from checker.symbolic.strengthen import isr_hw, power_loss, power_loss_kraft
from checker.symbolic.strengthen.reachable import false_on_reachable
from model import make_model
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator, reachable
from tests.symbolic.test_power_loss_library import _cut_short

WRAPPED = sorted(power_loss_kraft.WRAPS)
NEW = [st.name for st in power_loss_kraft.strengthenings(lambda check, with_config=False: check)]


def power_loss_config(version="4.1", rf=2, **bounds):
    bounds.setdefault("max_records", 1)
    return config_from_options(kafka_version=version, replication_factor=rf, crash_model="power-loss",
                               max_unflushed_losses=1, **bounds)[0]


@functools.lru_cache(maxsize=None)
def _states():
    return reachable(make_model(power_loss_config()))


def test_every_invariant_holds_on_every_reachable_4_1_power_loss_state():
    states, complete, false = false_on_reachable(power_loss_config())
    assert complete and states == 3135  # 2,949 before issue 29ad's ELR record (new states: its change)
    assert false == {}


def test_issue_29p_forms_are_false_there():
    """The forms 29p wrote for 2.2-2.6 are false on reachable 4.1 power-loss states (a follower
    may lose power and come back in the same leader epoch): the new forms are needed, and the
    check above can fail."""
    config = power_loss_config()
    states = _states()
    assert not all(power_loss._acked_in_isr(s) for s in states)
    assert not all(power_loss._restarted_out_of_isr(s) for s in states)
    assert not all(isr_hw._isr_remote_ge_hw(s) for s in states)
    assert not all(power_loss._kept_remote_leo_is_follower_prefix(s, config) for s in states)


def test_each_new_or_wrapped_formula_agrees_with_its_predicate():
    config = power_loss_config()
    d = Dims.of(config)
    assert d.power_loss and d.elr and d.shrink_keeps and d.fetch_epochs
    names = WRAPPED + NEW
    evaluate = formula_evaluator(d, {n: STRENGTHENINGS[n].formula for n in names})
    checked = 0
    for s in _states()[::5]:
        for t in [s, *_cut_short(s)]:
            values = evaluate(t)
            expected = {n: STRENGTHENINGS[n].holds(t, config) for n in names}
            assert values == expected, [n for n in names if values[n] != expected[n]]
            checked += 1
    assert checked > 500


def test_the_new_facts_are_in_all_only_under_power_loss():
    config = power_loss_config()
    assert set(NEW) <= set(all_names(config))
    process = config_from_options(kafka_version="4.1", replication_factor=2)[0]
    assert not set(NEW) & set(all_names(process))


def test_the_4_1_proof_is_proved():
    """Issue 29w left this proof on a CTI BFS settled; issue 29aa's facts (power_loss_fence.py)
    rule it out: PROVED."""
    config = power_loss_config()
    result = prove(config, "no-acked-loss", strengthen=["all"], bmc_depth=0)
    assert result.status == PROVED


@pytest.mark.parametrize("epochs, violated", [(2, False), (3, True)])
def test_kafka_3_5_loses_an_acked_record_to_one_power_loss_past_the_epoch_bound(epochs, violated):
    """3.5 at RF=2: HOLDS at leader epochs <= 2 only because its AlterPartition shrink bumps the
    epoch (KAFKA-15021's 3.3-3.5 rule) and the offline election and the restart need two more;
    at 3, BFS finds the 10-step loss (ack over the maximal ISR while a shrink is in flight)."""
    result = check(power_loss_config("3.5", max_leader_epoch=epochs, max_crashes=1), ["no-acked-loss"])
    if violated:
        assert result.verdict("no-acked-loss") == VIOLATED
        assert len(result.by_name("no-acked-loss").trace) == 10
    else:
        assert result.verdict("no-acked-loss") == HOLDS


@pytest.mark.parametrize("version", ["2.7", "3.2", "4.0"])
def test_the_releases_before_the_elr_lose_an_acked_record_to_one_power_loss(version):
    result = check(power_loss_config(version), ["no-acked-loss"])
    assert result.verdict("no-acked-loss") == VIOLATED
