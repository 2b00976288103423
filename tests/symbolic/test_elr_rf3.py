"""Kafka 4.1 at RF=3 and 4.2 in the proof (issue 29v): the ELR's facts about the leader's view.

At RF=3 the leader's ISR may still name members the controller has removed (a KRaft 3.6+ shrink
keeps the leader epoch and reaches the leader later), and the ELR is then not empty. 29v's facts
(strengthen/elr.py) say why the leader's HW still never passes a record an ELR member lacks: a
leader view at min.insync.replicas holds every ELR member (``elr-in-leader-isr``), the ISR and
ELR together keep min.insync.replicas members but for restarts (``elr-keeps-min-isr``), an
accepted answer's members left the controller's ISR only by a crash
(``answer-members-left-by-crash``), and whatever carries the current partition epoch carries the
controller's ISR (``current-partition-epoch-leader-knows-isr``). With 29q's four RF=3 KRaft facts,
now on under the ELR too, ``kmc prove --kafka-version 4.1 -r 3`` is PROVED.

The fast test checks the facts and their formulas on 4.1 RF=2's reachable states and on states
made unreachable by one change; the RF=3 proof and its CTI are ``slow``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.state import Dims
from checker.symbolic.strengthen import STRENGTHENINGS, all_names
from model import make_model
from model.config import ModelConfig
from tests.symbolic.helpers import formula_evaluator, reachable

NEW = ("elr-keeps-min-isr", "elr-in-leader-isr", "answer-members-left-by-crash",
       "current-partition-epoch-leader-knows-isr")
CHANGED = ("epoch-bumps-crashed", "quick-restarts-crashed", "kraft-past-leaders-crashed",
           "kraft-written-epochs-crashed", "kraft-leader-isr-holds-acked",
           "kraft-leader-isr-holds-every-hw")


def _kafka(version, rf):
    return ModelConfig(protocol="kip-320", replication_factor=rf, kafka_version=version)


def _elr_outside_a_leader(state, config):
    """The state with one broker outside a running leader's ISR (at min.insync.replicas, and no
    AlterPartition or change pending) put in the ELR, or None: what ``elr-in-leader-isr`` rules
    out."""
    for b, r in enumerate(state.replicas):
        if r.alive and r.leader == b and len(r.isr) >= config.min_insync_replicas \
                and not r.alter_partition and not r.partition_change:
            outside = [j for j in range(len(state.replicas)) if j not in r.isr]
            if outside:
                return state._replace(elr=(outside[0],))
    return None


def test_the_29v_facts_hold_on_4_1_rf2_and_their_formulas_agree():
    config = _kafka("4.1", 2)
    states = reachable(make_model(config))
    assert len(states) > 3000 and any(s.elr for s in states)
    names = NEW + CHANGED
    false = [n for n in names if not all(STRENGTHENINGS[n].holds(s, config) for s in states)]
    assert false == []
    evaluate = formula_evaluator(Dims.of(config), {n: STRENGTHENINGS[n].formula for n in names})
    for s in states[::25]:
        values = evaluate(s)
        assert all(values.values()), [n for n, v in values.items() if not v]
    # one change away: an ELR member outside a leader's ISR at min.insync.replicas (RF=2, min
    # ISR 2: a follower out of the leader's ISR, which then has only the leader, is not at min
    # ISR; so drop min ISR to 1, where the leader alone is)
    config1 = replace(config, min_insync_replicas=1)
    evaluate1 = formula_evaluator(Dims.of(config1), {"elr-in-leader-isr":
                                                      STRENGTHENINGS["elr-in-leader-isr"].formula})
    mutated = [m for m in (_elr_outside_a_leader(s, config1) for s in states[::25]) if m]
    assert mutated
    for m in mutated:
        assert not STRENGTHENINGS["elr-in-leader-isr"].holds(m, config1)
        assert not evaluate1(m)["elr-in-leader-isr"]


@pytest.mark.slow
def test_kafka_4_1_rf3_is_proved_at_default_bounds():
    result = prove(_kafka("4.1", 3), "no-acked-loss", strengthen=["all"], search="none")
    assert result.status == PROVED, (result.failing, result.pre, result.action)


@pytest.mark.slow
def test_without_elr_in_leader_isr_4_1_rf3_stops_on_a_cti():
    """Without ``elr-in-leader-isr`` the step of 4.1 RF=3 fails on a state BFS never reaches (a
    leader's ISR at min.insync.replicas without an ELR member) that the fact rules out."""
    config = _kafka("4.1", 3)
    less = [n for n in all_names(config) if n != "elr-in-leader-isr"]
    result = prove(config, "no-acked-loss", strengthen=less, search="none")
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    assert not STRENGTHENINGS["elr-in-leader-isr"].holds(result.pre, config)
