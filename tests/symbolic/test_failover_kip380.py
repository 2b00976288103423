"""A controller failover proved with KIP-380's broker epoch (Kafka 2.2+; lead, 2026-11-29).

Since issue 29bi a broker registered after the failover refuses the deposed controller's
LeaderAndIsr. With that, thirteen of the sixteen facts ``failovers.OFF_UNDER_FAILOVERS`` switches
off after a failover hold on every reachable state again (``OFF_WITH_BROKER_EPOCH`` lists the three
that do not; four at RF=3), and five new facts (``failovers.KIP380``) take away the CTIs left, so
``no-acked-loss`` is PROVED on 2.2, 2.4, 2.7 and 3.1 at RF=2 with one failover (docs/symbolic.md,
"A controller failover proved on Kafka 2.2 to 3.1"). Kafka 2.1's failover conjunction is the one
issue 29ba proved: the new facts are out of ``-s all`` there."""

from __future__ import annotations

import pytest

from checker.symbolic.state import Dims
from model.options import config_from_options


def small(version="2.7", **bounds):
    bounds = {"max_controller_failovers": 1, "max_records": 2, "max_leader_epoch": 2,
              "max_crashes": 1, **bounds}
    return config_from_options(kafka_version=version, replication_factor=2, **bounds)[0]


def test_the_kip380_facts_are_in_all_only_with_a_failover_and_broker_epochs():
    from checker.symbolic.strengthen import all_names, failovers

    assert set(failovers.KIP380) <= set(all_names(small()))
    assert set(failovers.KIP380) <= set(all_names(small("2.2")))
    assert not set(failovers.KIP380) & set(all_names(small("2.1")))
    plain = config_from_options(kafka_version="2.7", replication_factor=2)[0]
    assert not set(failovers.KIP380) & set(all_names(plain))
    # the switch: kept on 2.7 after a failover, but for the three still false there (four at RF=3)
    assert failovers._off_with_broker_epoch("requests-to-live-brokers", 2)
    assert not failovers._off_with_broker_epoch("next-leader-from-isr", 2)
    assert failovers._off_with_broker_epoch("next-leader-from-isr", 3)
    assert not failovers._off_with_broker_epoch("leader-holds-followers-hw", 3)


@pytest.mark.slow  # BFS of 22,292 states checking 27 facts, then a sample through z3: ~1 min
def test_the_kept_and_new_facts_hold_and_match_their_formulas_on_reachable_states():
    from checker.symbolic.strengthen import STRENGTHENINGS, failovers
    from tests.symbolic.helpers import formula_evaluator
    from tests.symbolic.test_shutdowns_expiries import _reachable

    config = small()
    names = list(failovers.OFF_UNDER_FAILOVERS) + list(failovers.KIP380) + [
        "waiting-isr-members-crashed", "zombie-leader-acked-below-hw",
        "waiting-leader-requests-current"]
    states = _reachable(config, 30_000)
    after = [s for s in states if s.controller_failovers]
    assert len(after) > 1_000
    kept = [n for n in names if n not in failovers.OFF_WITH_BROKER_EPOCH]
    for s in after:
        assert all(STRENGTHENINGS[n].holds(s, config) for n in kept), s
    evaluate = formula_evaluator(Dims.of(config), {n: STRENGTHENINGS[n].formula for n in names})
    for s in states[::40]:
        values = evaluate(s)
        assert all(values.values()), [n for n, v in values.items() if not v]
    # the three left off are false after a failover as written: the switch must keep them off
    from checker.symbolic.strengthen import isr_hw

    raw = isr_hw.STRENGTHENINGS
    lic = next(st for st in raw if st.name == "leader-isr-is-controller-isr")
    assert any(not lic.holds(s, config) for s in after)


@pytest.mark.slow  # three proofs of ~12 s each on an idle machine
def test_no_acked_loss_with_a_failover_is_proved_on_2_7_and_needs_the_new_facts():
    from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
    from checker.symbolic.strengthen import all_names

    config = small()
    proved = prove(config, "no-acked-loss", strengthen=["all"], search="none")
    assert proved.status == PROVED
    # the mutant libraries without one of the new facts (the last added, and the one that
    # replaces half of isr-followers-hold-hw) stop on a CTI
    for name in ("waiting-unregistered-in-zombie-epoch", "running-leader-isr-holds-hw"):
        mutant = [n for n in all_names(config) if n != name]
        result = prove(config, "no-acked-loss", strengthen=mutant, search="none")
        assert result.status == INCONCLUSIVE, name
