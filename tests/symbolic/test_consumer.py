"""The consumer in the z3 encoding (issue 29be): ``--consumer-commit`` and
``--max-consumer-restarts``.

The engines take the consumer (``scope.require_encoded`` refused both before) and replay their
traces in the kernel (``scope.KernelReplayed``: the oracle has no consumer). z3's successors
equal the kernel's on sampled states where each consumer action is enabled, and four broken
encodings are caught there: a fetch past the leader's HW (reading what is not committed), a
commit after processing taken while the record is still in hand, a restart that keeps the
position, a second processing not marked. The formulas of ``at-least-once`` and ``at-most-once``
equal their predicates on every reachable state of a configuration where each is false
somewhere, and a mutant of each disagrees somewhere. The cross-check rows themselves are in
``checker/symbolic/crosscheck.py`` (``CONFIGS``, "consumer commit"); the BMC and proof results
on the known-results rows are in docs/symbolic.md, "The consumer in the proof (issue 29be)".
"""

from __future__ import annotations

import pytest
import z3

from checker.symbolic import numbers as num
from checker.symbolic.crosscheck import crosscheck
from checker.symbolic.formulas import DEFAULT_FORMULAS, FORMULAS
from checker.symbolic.scope import KernelReplayed, require_encoded, symbolic_model
from checker.symbolic.state import fresh
from checker.symbolic.transitions import Encoder
from model import Bounds
from model.actions import Action
from model.options import config_from_options
from tests.symbolic.helpers import assert_formulas_agree

CONSUMER_ACTIONS = ("ConsumerFetch", "ConsumerProcess", "ConsumerCommit", "ConsumerRestart")


def consumer(order, restarts=1, version="2.1", **settings):
    settings = {"max_records": 2, "max_leader_epoch": 2, "max_crashes": 1, **settings}
    return config_from_options(kafka_version=version, replication_factor=2,
                               consumer_commit=order, max_consumer_restarts=restarts,
                               **settings)[0]


# ---------------------------------------------------------------------------- broken encodings

class FetchBelowLeo(Encoder):
    """Wider than the kernel: the consumer reads the true leader's log below its LEO, not its HW
    (records not yet committed: ``Partition.fetchRecords`` limits a consumer to the HW)."""

    def _enc_ConsumerFetch(self, s, offset):
        if not self.d.consumer:
            return []
        base = [z3.Not(s.chand), s.ccom == s.cpos, s.cpos == offset]
        nxt = s.but(cpos=num.val(offset + 1), chand=z3.BoolVal(True))
        return [(z3.And(base + [self.is_true_leader(s, l), offset < s.reps[l].leo]), nxt)
                for l in range(self.n)]


class CommitInEitherOrder(Encoder):
    """Wider than the kernel: a commit whenever the position is not committed, whatever the
    configured order (the record in hand or not)."""

    def _enc_ConsumerCommit(self, s, offset):
        if not self.d.consumer:
            return []
        return [(z3.And(s.cpos == offset, s.ccom != s.cpos), s.but(ccom=num.val(offset)))]


class RestartKeepsPosition(Encoder):
    """A wrong effect: the new consumer resumes at the old one's position, not the committed
    offset."""

    def _enc_ConsumerRestart(self, s):
        return [(g, x.but(cpos=s.cpos)) for g, x in super()._enc_ConsumerRestart(s)]


class SecondProcessingUnmarked(Encoder):
    """A wrong effect: processing an offset below where processing had reached is not recorded
    as a second processing."""

    def _enc_ConsumerProcess(self, s, offset):
        return [(g, x.but(ctwice=s.ctwice)) for g, x in super()._enc_ConsumerProcess(s, offset)]


def _leader_log(state):
    leader = state.true_leader()
    return None if leader < 0 else state.replicas[leader]


def _may_fetch_uncommitted(state):
    """Where FetchBelowLeo differs: the consumer may poll, and the true leader has a record at
    its position above its HW."""
    r = _leader_log(state)
    return (r is not None and not state.consumer_in_hand
            and state.consumer_committed == state.consumer_position
            and r.high_watermark <= state.consumer_position < len(r.log))


def _holding_uncommitted(state):
    return state.consumer_in_hand and state.consumer_committed != state.consumer_position


def _restart_moves_back(state):
    return (state.consumer_restarts == 0
            and state.consumer_committed != state.consumer_position)


def _processes_again(state):
    return (state.consumer_in_hand
            and state.consumer_position - 1 < state.consumer_processed)


MUTANTS = {
    "fetch below the LEO": (FetchBelowLeo, "after", _may_fetch_uncommitted),
    "commit in either order": (CommitInEitherOrder, "after", _holding_uncommitted),
    "restart keeps the position": (RestartKeepsPosition, "after", _restart_moves_back),
    "second processing unmarked": (SecondProcessingUnmarked, "after", _processes_again),
}


# ---------------------------------------------------------------------------- tests

def test_the_engine_takes_the_consumer_and_replays_in_the_kernel():
    for order in ("before", "after"):
        config = consumer(order)
        require_encoded(config)  # refused before issue 29be
        model = symbolic_model(config)
        assert isinstance(model, KernelReplayed)
        assert not model.oracle.config.consumer_commit  # the oracle's configuration has none
        names = {a.name for a in Encoder(model).instances()}
        assert set(CONSUMER_ACTIONS) <= names
    # without a consumer the three with an offset have no instance and the restart no case
    # (as ControllerFailover, an action without parameters has its one instance everywhere);
    # without restarts, no restart case
    plain = Encoder(symbolic_model(config_from_options(kafka_version="2.1",
                                                       replication_factor=2)[0]))
    assert {a.name for a in plain.instances()} & set(CONSUMER_ACTIONS) == {"ConsumerRestart"}
    assert plain.cases(fresh(plain.d, "p"), Action("ConsumerRestart", ())) == []
    no_restart = Encoder(symbolic_model(consumer("after", restarts=0)))
    assert no_restart.cases(fresh(no_restart.d, "p"), Action("ConsumerRestart", ())) == []


@pytest.mark.slow
@pytest.mark.parametrize("label", list(MUTANTS))
def test_the_encoding_agrees_where_each_consumer_action_decides_and_each_mutant_is_caught(label):
    mutant, order, where = MUTANTS[label]
    config = consumer(order)
    right = crosscheck(config, samples=12, seed=3, where=where)
    assert right.agrees, "\n".join(str(d) for d in right.disagreements[:3])
    assert right.states == 13
    wrong = crosscheck(config, samples=12, seed=3, encoder=mutant, where=where)
    assert wrong.disagreements, label
    assert {d.action.name for d in wrong.disagreements} <= set(CONSUMER_ACTIONS)


# the formulas: each false somewhere on these configurations (the order Kafka does not promise
# it for, and a restart), equal to the predicate on every reachable state; the mutants drop the
# exception for the record in hand (at-least-once) and read "processed twice" as "the position
# is below where processing reached" (at-most-once)
def _least_without_in_hand(d, s):
    return s.ccom <= s.cproc


def _most_by_position(d, s):
    return z3.Not(z3.And(s.chand, s.cpos <= s.cproc))


CASES = {
    "commit before, a restart": (consumer("before", max_crashes=0, max_records=1),
                                 {"at-least-once": (_least_without_in_hand,)}),
    "commit after, a restart": (consumer("after", max_crashes=0, max_records=1),
                                {"at-most-once": (_most_by_position,)}),
}


@pytest.mark.parametrize("label", [label if label == "commit before, a restart"
                                   else pytest.param(label, marks=pytest.mark.slow)
                                   for label in CASES])
def test_the_consumer_formulas_agree_with_their_predicates_on_every_reachable_state(label):
    config, asked = CASES[label]
    assert_formulas_agree(config, asked, 20)


def test_the_consumer_formulas_are_asked_by_name_only():
    # each is false for one commit order by design (KafkaConsumer javadoc): no proof assumes it
    assert {"at-least-once", "at-most-once"} <= set(FORMULAS)
    assert not {"at-least-once", "at-most-once"} & set(DEFAULT_FORMULAS)


# ---------------------------------------------------------------------------- the proofs

FACTS = ("consumer-position-near-committed", "consumer-before-processed-at-committed",
         "consumer-after-processed-past-committed")
PROMISED = {"before": ("at-most-once", FACTS[1]), "after": ("at-least-once", FACTS[2])}


def _strict_before(s, config):
    """A mutant of the before-order fact: processing strictly below the committed offset (false
    once a record is processed: processing then reaches the committed offset)."""
    return config.consumer_commit != "before" or s.consumer_processed < s.consumer_committed


@pytest.mark.parametrize("order", ["before", "after"])
def test_the_consumer_facts_hold_on_every_reachable_state_and_a_mutant_does_not(order):
    from checker.symbolic.strengthen.base import Strengthening
    from checker.symbolic.strengthen.library import STRENGTHENINGS
    from checker.symbolic.strengthen.reachable import false_on_reachable

    config = consumer(order, max_crashes=0, max_records=1)
    n, complete, false = false_on_reachable(config, FACTS)
    assert complete and n > 20 and not false, false
    if order == "before":  # the check can fail: a mutant fact is false on reachable states
        mutant = Strengthening("mutant", "", _strict_before, None, uses_config=True)
        try:
            STRENGTHENINGS["mutant"] = mutant
            _, _, false = false_on_reachable(config, ["mutant"])
        finally:
            del STRENGTHENINGS["mutant"]
        assert false["mutant"][0] > 0


@pytest.mark.slow
@pytest.mark.parametrize("order", ["before", "after"])
def test_the_promised_order_is_proved_with_its_fact_and_the_other_violated(order):
    from checker.symbolic.induction import HOLDS, PROVED, VIOLATED, prove

    config = consumer(order)
    promised, fact = PROMISED[order]
    assert prove(config, promised, strengthen=[FACTS[0], fact]).status == PROVED
    # without its fact the step fails, and only the search settles it (the fact is needed)
    assert prove(config, promised, strengthen=[FACTS[0]]).status == HOLDS
    other = "at-least-once" if promised == "at-most-once" else "at-most-once"
    assert prove(config, other, strengthen=list(FACTS)).status == VIOLATED
