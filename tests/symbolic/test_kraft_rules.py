"""The KRaft releases' rules in the z3 encoding (issue 29f): KIP-841's ISR eligibility
(``isr-eligibility``, Kafka 3.3) and KAFKA-15021's leader epoch on an AlterPartition shrink
(``alter-partition-shrink-bumps-leader-epoch``, Kafka 3.3-3.5). Built first as switches on the
ZooKeeper rule sets (``crosscheck.MechanismAlone``: the rules require ``kraft``, which the
encoding then lacked); since issue 29m encoded ``kraft``, on Kafka 3.3 itself, each alone by
turning the other off (``--rule -isr-eligibility``).

``crosscheck.CONFIGS`` has rows for it (run by ``test_kernel_crosscheck.py``). Here: the engine
takes the rules by name (the oracle lacks them: traces replay in the kernel), and an encoding
that forgets either is caught by the cross-check on the states where it matters."""

from __future__ import annotations

from dataclasses import replace

import pytest
import z3

from checker.symbolic.crosscheck import CONFIGS, _alone, _release, crosscheck
from checker.symbolic.scope import KernelReplayed, lacking_rules, symbolic_model
from checker.symbolic.state import Dims
from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, check_of
from checker.symbolic.transitions import Encoder
from model import Bounds, make_model
from model.constants import ALTER_REFUSED, ALTER_SENT
from model.errors import ConfigError
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator, reachable

RULE = "alter-partition-shrink-bumps-leader-epoch"
RF2 = "--kafka-version 3.3 -isr-eligibility"
RF3 = "--kafka-version 3.3 -isr-eligibility RF=3"
ELIGIBLE = "--kafka-version 3.3 -alter-partition-shrink-bumps-leader-epoch"
ELIGIBLE_RF3 = "--kafka-version 3.3 -alter-partition-shrink-bumps-leader-epoch RF=3"


def test_without_kraft_the_rule_is_refused_so_the_cross_check_lifts_that():
    """``--kafka-version 2.7 --rule +alter-partition-shrink-bumps-leader-epoch`` was Kafka 2.7
    unchanged (the rule requires ``kraft``: ``model.rules.without_unmet``) and is now refused in
    one line; ``MechanismAlone`` keeps the rule, for the cross-check only."""
    with pytest.raises(ConfigError, match=f"\\+{RULE} needs kraft"):
        config_from_options(kafka_version="2.7", rule_changes=(f"+{RULE}",))
    alone = _alone((f"+{RULE}",), "2.7")
    assert RULE in alone.rules and "kraft" not in alone.rules
    assert RULE in CONFIGS[RF3].rules and "kraft" in CONFIGS[RF3].rules


def test_the_engine_takes_the_rule_by_name():
    for label in (RF2, RF3):
        config = CONFIGS[label]
        assert RULE in config.rules and lacking_rules(config) == []
        assert isinstance(symbolic_model(config), KernelReplayed)
        assert Dims.of(config).shrink_bumps
    assert Dims.of(CONFIGS[ELIGIBLE]).eligibility and not Dims.of(CONFIGS[RF2]).eligibility


class ShrinkKeepsTheLeaderEpoch(Encoder):
    """Wider and narrower: the controller writes an AlterPartition shrink under the current
    leader epoch (ZooKeeper mode's behaviour, and 3.6's), as if the rule were off."""

    def __init__(self, model, **kw):
        super().__init__(model, **kw)
        self.d = replace(self.d, shrink_bumps=False)


def _shrink_pending(state) -> bool:
    """The leader's AlterPartition that removes a replica is on its way, under the current
    leader epoch: the controller will write it."""
    c = state.controller
    return any(r.alter_partition and r.alter_partition[0] == ALTER_SENT
               and set(c.isr) - set(r.alter_partition[1])
               and r.alter_partition[2] == c.leader_epoch for r in state.replicas)


class AnyoneMayJoin(Encoder):
    """Wider and narrower: the leader proposes, and the controller accepts, a follower the
    controller does not have as live (ZooKeeper mode's behaviour, as if ``isr-eligibility``
    were off)."""

    def isr_eligible(self, s, j):
        return z3.BoolVal(True)


def _ineligible_member_asked(state) -> bool:
    """A leader's AlterPartition asks for a member the controller no longer has as live (it
    failed after the leader proposed it): Kafka 3.3 answers INELIGIBLE_REPLICA. (A running
    broker is always live in the controller's view at these bounds: it re-registers on restart.)"""
    live = state.controller.live_brokers
    return any(r.alter_partition and r.alter_partition[0] == ALTER_SENT
               and set(r.alter_partition[1]) - set(live) for r in state.replicas)


@pytest.mark.parametrize("broken, where, labels", [
    (ShrinkKeepsTheLeaderEpoch, _shrink_pending, (RF2, RF3)),
    pytest.param(AnyoneMayJoin, _ineligible_member_asked, (ELIGIBLE, ELIGIBLE_RF3),
                 marks=pytest.mark.slow),  # (10 s: make test-slow, make test under 25 minutes)
], ids=["shrink-without-leader-epoch", "isr-without-eligibility"])
def test_a_broken_encoding_of_a_rule_is_caught(broken, where, labels):
    for label in labels:
        assert crosscheck(CONFIGS[label], samples=8, seed=5, where=where).agrees
        result = crosscheck(CONFIGS[label], samples=8, seed=5, encoder=broken, where=where)
        assert result.disagreements, label
        assert {d.action.name for d in result.disagreements} == {"ControllerHandleAlterPartition"}


# the invariants the two rules switch off or widen (issue 29f)
TOUCHED = ["alter-partition-never-refused", "alter-partition-on-its-leader", "epoch-bumps-crashed",
           "quick-restarts-crashed"]


OTHER = {RULE: "isr-eligibility", "isr-eligibility": RULE}


def _small(rule=None):
    """RF=2, 2 records, leader epochs <= 2, 1 crash, Kafka 3.3 with ``rule`` alone of the two
    (both with None)."""
    return _release("3.3", (f"-{OTHER[rule]}",) if rule else (), bounds=Bounds(2, 2, 1, 1))


@pytest.mark.parametrize("rule", [RULE, "isr-eligibility"])
def test_every_library_invariant_holds_on_every_reachable_state(rule):
    config = _small(rule)
    states = reachable(make_model(config))
    assert len(states) > 2000
    kinds = {r.alter_partition[0] for s in states for r in s.replicas if r.alter_partition}
    if rule == "isr-eligibility":
        assert ALTER_REFUSED in kinds  # INELIGIBLE_REPLICA happens
    else:  # an answer a leader holds with the next leader epoch
        assert any(r.alter_partition and r.alter_partition[2] == r.leader_epoch + 1
                   for s in states for r in s.replicas)
    false = [n for n in STRENGTHENINGS if not all(check_of(n, config)(s) for s in states)]
    assert false == []
    evaluate = formula_evaluator(Dims.of(config), {n: STRENGTHENINGS[n].formula for n in TOUCHED})
    for s in states[::25]:
        values = evaluate(s)
        assert all(values.values()), [n for n, v in values.items() if not v]


def test_no_acked_loss_is_proved_under_both_rules():
    config = _small()
    result = prove(config, "no-acked-loss", strengthen=["all"], bmc_depth=0)
    assert result.status == PROVED, (result.failing, result.pre, result.action)


def test_without_the_shrinks_answer_the_proof_stops_on_an_unreachable_cti():
    """The Kafka 2.7-3.2 form of alter-partition-on-its-leader (a pending request is in its
    leader's epoch) is false under the rule; without any form of it the step fails."""
    config = _small(RULE)
    less = [n for n in all_names() if n != "alter-partition-on-its-leader"]
    result = prove(config, "no-acked-loss", strengthen=less, bmc_depth=0, search="none")
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    assert not STRENGTHENINGS["alter-partition-on-its-leader"].holds(result.pre, config)
