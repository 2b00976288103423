"""KIP-966's ELR in the z3 encoding (issue 29l): the eligible leader replicas and the last known
leader (``eligible-leader-replicas``, 4.1), KAFKA-19522's check (``last-known-leader-check``,
4.1), the out-of-sync set in one AlterPartition (``isr-shrink-out-of-sync-set``, 4.0, action
LeaderShrinkIsrSet) and the last known leader when leaderless
(``last-known-leader-when-leaderless``, 4.2). Every one requires ``kraft``, which the encoding
lacks, so they are held to the kernel as mechanisms on ZooKeeper rule sets
(``crosscheck.MechanismAlone``), as issue 29f did.

``crosscheck.CONFIGS`` has rows for them (run by ``test_kernel_crosscheck.py``). Here: the engine
takes the rules by name, refuses the ELR without broker epochs, and an encoding that forgets a
part of KIP-966 is caught by the cross-check on the states where it matters."""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.crosscheck import CONFIGS, _alone, crosscheck
from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.scope import ELR_RULES, KernelReplayed, lacking_rules, symbolic_model
from checker.symbolic.state import Dims
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, check_of
from checker.symbolic.transitions import Encoder
from model import Bounds, make_model
from model.constants import ALTER_SENT
from model.errors import ConfigError
from tests.symbolic.helpers import formula_evaluator, reachable

ALONE = "--kafka-version 2.7 +eligible-leader-replicas min ISR 2 (no kraft)"
RF3 = "--kafka-version 2.7 +eligible-leader-replicas RF=3 (no kraft)"
SET = ("--kafka-version 2.7 +eligible-leader-replicas +isr-shrink-out-of-sync-set "
       "+last-known-leader-check RF=3 min ISR 2 (no kraft)")
LEADERLESS = ("--kafka-version 2.7 +eligible-leader-replicas +last-known-leader-when-leaderless "
              "+reset-followers-on-epoch (no kraft)")
UNCLEAN = "--kafka-version 3.1 +eligible-leader-replicas unclean power-loss (no kraft)"


def test_the_engine_takes_the_rules_by_name():
    for label in (ALONE, RF3, SET, LEADERLESS, UNCLEAN):
        config = CONFIGS[label]
        assert "eligible-leader-replicas" in config.rules and "kraft" not in config.rules
        assert lacking_rules(config) == []
        assert isinstance(symbolic_model(config), KernelReplayed)
        assert Dims.of(config).elr
    d = Dims.of(CONFIGS[SET])
    assert d.shrink_set and d.last_known_check and not d.leaderless
    assert Dims.of(CONFIGS[LEADERLESS]).leaderless
    assert set(ELR_RULES) <= set(CONFIGS[SET].rules) | set(CONFIGS[LEADERLESS].rules)


def test_without_broker_epochs_the_encoding_refuses_the_elr():
    """On 2.1 (no KIP-380) a restart may come before the controller handles the failure, a case
    the ELR encoding leaves out: refused in one line."""
    config = _alone(("+alter-partition", "+eligible-leader-replicas"), "2.1")
    with pytest.raises(ConfigError, match="broker epochs"):
        Encoder(symbolic_model(config))


class ForgetsTheElr(Encoder):
    """Wider and narrower: the controller keeps the ELR and last known leader as they were on
    every change (as if ``maybePopulateTargetElr`` did nothing), but still lets the ISR empty."""

    def elr_change(self, pre, nxt, new_isr, new_leader, unclean=False):
        return nxt.but(elr=list(pre.elr), lke=list(pre.lke))


class RestartKeepsItsEligibility(Encoder):
    """A restart that leaves the broker in the ELR (``handleBrokerUncleanShutdown``'s removal
    from the ELR forgotten: the kernel's ``forget_unclean_member``)."""

    def _restart_with_elr(self, s, b):
        return [(g, nxt.but(elr=[z3.Or(x, s.elr[j]) if j == b else x
                                 for j, x in enumerate(nxt.elr)]))
                for g, nxt in super()._restart_with_elr(s, b)]


class WithoutTheSet(Encoder):
    """Narrower: no LeaderShrinkIsrSet (one follower per AlterPartition, kmc's step without the
    rule)."""

    def _enc_LeaderShrinkIsrSet(self, s, b, removed):
        return []


def _shrink_below_min_pending(state) -> bool:
    """A leader's AlterPartition that takes the ISR below min ISR is on its way, or an ISR
    member has failed unnoticed: the controller's next change moves the ELR."""
    c = state.controller
    return any(r.alter_partition and r.alter_partition[0] == ALTER_SENT for r in state.replicas) \
        or any(not state.replicas[j].alive for j in c.isr)


def _elr_member_down(state) -> bool:
    """A broker in the ELR is down: its restart is an unclean shutdown."""
    return any(not state.replicas[j].alive for j in state.elr)


def _two_lagging(state) -> bool:
    """A leader with an RF=3 ISR and two followers behind its LEO, nothing pending."""
    for b, r in enumerate(state.replicas):
        if r.alive and r.leader == b and len(r.isr) == 3 and not r.alter_partition:
            behind = [f for f in r.isr if f != b and r.remote_log_end_offsets[f] < len(r.log)]
            if len(behind) >= 2:
                return True
    return False


@pytest.mark.parametrize("broken, where, labels, actions", [
    (ForgetsTheElr, _shrink_below_min_pending, (ALONE, RF3),
     {"ControllerHandleAlterPartition", "ControllerHandleBrokerFailure"}),
    # the other two (10 s each) in make test-slow, to keep make test under 25 minutes
    pytest.param(RestartKeepsItsEligibility, _elr_member_down, (ALONE, UNCLEAN), {"BrokerRestart"},
                 marks=pytest.mark.slow),
    pytest.param(WithoutTheSet, _two_lagging, (SET,), {"LeaderShrinkIsrSet"},
                 marks=pytest.mark.slow),
], ids=["elr-not-kept", "restart-not-unclean", "no-out-of-sync-set"])
def test_a_broken_encoding_of_the_elr_is_caught(broken, where, labels, actions):
    for label in labels:
        assert crosscheck(CONFIGS[label], samples=8, seed=5, where=where).agrees
        result = crosscheck(CONFIGS[label], samples=8, seed=5, encoder=broken, where=where)
        assert result.disagreements, label
        assert {d.action.name for d in result.disagreements} <= actions, label


# the invariants KIP-966 switches off, widens or adds (issue 29l)
TOUCHED = ["controller-isr-nonempty", "next-leader-from-isr", "epoch-bumps-crashed",
           "quick-restarts-crashed", "elr-isr-disjoint", "elr-empty-at-min-isr",
           "last-known-only-when-leaderless", "elr-holds-acked", "elr-holds-every-hw"]


def _small(rules, min_isr, **settings):
    """RF=2, 2 records, leader epochs <= 3, 2 crashes, on Kafka 2.7's rules with the ELR."""
    return _alone(("+eligible-leader-replicas",) + rules, "2.7", min_insync_replicas=min_isr,
                  bounds=settings.pop("bounds", Bounds(2, 3, 2, 1)), **settings)


@pytest.mark.parametrize("rules, min_isr", [  # two of three in ``make test-slow`` (docs/testing.md)
    ((), 2), pytest.param((), 1, marks=pytest.mark.slow),
    pytest.param(("+last-known-leader-when-leaderless", "+last-known-leader-check"), 1,
                 marks=pytest.mark.slow),
], ids=["min-isr-2", "min-isr-1", "leaderless-check"])
def test_every_library_invariant_holds_on_every_reachable_state(rules, min_isr):
    config = _small(rules, min_isr)
    states = reachable(make_model(config))
    assert len(states) > 6000  # 6,356 since issue 29ad (no duplicate rows; the ELR record)
    assert any(s.elr for s in states) and any(s.last_known_elr for s in states)
    assert any(not s.controller.isr for s in states)  # the ISR empties
    false = [n for n in STRENGTHENINGS if not all(check_of(n, config)(s) for s in states)]
    assert false == []
    evaluate = formula_evaluator(Dims.of(config), {n: STRENGTHENINGS[n].formula for n in TOUCHED})
    for s in states[::40]:
        values = evaluate(s)
        assert all(values.values()), [n for n, v in values.items() if not v]


def test_no_acked_loss_is_proved_under_the_elr():
    config = _small((), 1, bounds=Bounds(2, 2, 1, 1))
    result = prove(config, "no-acked-loss", strengthen=["all"], bmc_depth=0)
    assert result.status == PROVED, (result.failing, result.pre, result.action)


def test_without_the_last_known_leaders_records_the_step_stops_on_a_cti():
    """Without ``elr-holds-every-hw`` nothing says a last known leader, elected from an empty
    ISR and ELR when it restarts, holds what was committed: the step fails on a state BFS never
    reaches."""
    config = _small((), 1, bounds=Bounds(2, 2, 1, 1))
    less = [n for n in all_names() if n != "elr-holds-every-hw"]
    result = prove(config, "no-acked-loss", strengthen=less, bmc_depth=0, search="none")
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    assert not STRENGTHENINGS["elr-holds-every-hw"].holds(result.pre, config)
