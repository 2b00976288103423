"""KIP-966's ELR on KRaft's paths in the z3 encoding (issue 29n): Kafka 4.1 and 4.2 themselves.

Issue 29l encoded the ELR on ZooKeeper rule sets only: its broker failure and unclean-shutdown
restart removed a broker from the ISR with a new leader epoch, as ZooKeeper's controller does.
Under KRaft since 3.6 (``isr-shrink-keeps-leader-epoch``, KAFKA-15021) that shrink keeps the
leader epoch and reaches the leader as a pending ``PartitionChangeRecord``, and an election from
the last known leader is unclean, so KIP-704 marks the leader RECOVERING
(``Encoder.shrink_without``, ``recovering_after``). Here: the engine takes 4.1 and 4.2, and an
encoding that keeps ZooKeeper's shrink or forgets KIP-704 on the ELR's paths is caught by the
cross-check on the states where it matters. The rows themselves run in
``test_kernel_crosscheck.py``."""

from __future__ import annotations

from dataclasses import replace

import pytest
import z3

from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.scope import KernelReplayed, lacking_rules, symbolic_model
from checker.symbolic.state import Dims
from checker.symbolic.strengthen import STRENGTHENINGS, all_names
from checker.symbolic.transitions import Encoder
from model.config import ModelConfig

RF2 = "--kafka-version 4.1 min ISR 2"
RF3 = "--kafka-version 4.1 RF=3"
RF3_1 = "--kafka-version 4.1 RF=3 min ISR 1"
UNCLEAN = "--kafka-version 4.1 power-loss unclean"
LEADERLESS = "--kafka-version 4.2 min ISR 1"
BUMPING = "--kafka-version 3.4 +eligible-leader-replicas RF=3"


def test_the_engine_takes_kafka_4_1_and_4_2():
    for label in (RF2, RF3, UNCLEAN, LEADERLESS, BUMPING):
        config = CONFIGS[label]
        assert {"kraft", "eligible-leader-replicas"} <= set(config.rules)
        assert lacking_rules(config) == []
        assert isinstance(symbolic_model(config), KernelReplayed)
        Encoder(symbolic_model(config))  # no refusal
    assert Dims.of(CONFIGS[RF2]).shrink_keeps and not Dims.of(CONFIGS[BUMPING]).shrink_keeps
    assert Dims.of(CONFIGS[LEADERLESS]).leaderless


class ShrinkBumpsTheEpoch(Encoder):
    """The ELR's failure and restart paths shrink the ISR with a new leader epoch even under
    3.6+ (issue 29l's ZooKeeper behaviour, kept under ``kraft``)."""

    def shrink_without(self, s, h, target, live):
        d, self.d = self.d, replace(self.d, shrink_keeps=False)
        try:
            return super().shrink_without(s, h, target, live)
        finally:
            self.d = d


class NoRecoveryOnTheElrPaths(Encoder):
    """An election from the last known leader (or an unclean one) on the ELR's paths leaves
    KIP-704's recovery state alone."""

    def _failure_with_elr(self, s, b, new, running=False):
        return [(g, nxt.but(recovering=s.recovering))
                for g, nxt in super()._failure_with_elr(s, b, new, running)]

    def _restart_with_elr(self, s, b):
        return [(g, nxt.but(recovering=s.recovering)) for g, nxt in super()._restart_with_elr(s, b)]


def _follower_down_in_isr(state) -> bool:
    """A follower in the controller's ISR is down and the controller has not handled it yet."""
    c = state.controller
    return any(not state.replicas[j].alive and j in c.live_brokers and j != c.leader
               for j in c.isr)


def _leader_down_nothing_left(state) -> bool:
    """The controller's leader is down, unhandled, and no other ISR member is live: its failure
    elects from the ELR, the last known leader, uncleanly, or nobody; or a down broker is the
    last known leader, whose restart may elect it."""
    c = state.controller
    down = c.leader >= 0 and not state.replicas[c.leader].alive and c.leader in c.live_brokers
    return (down and all(j == c.leader or j not in c.live_brokers for j in c.isr)) or any(
        not state.replicas[j].alive for j in state.last_known_elr)


@pytest.mark.parametrize("broken, where, labels, actions", [
    (ShrinkBumpsTheEpoch, _follower_down_in_isr, (RF3, RF3_1),
     {"ControllerHandleBrokerFailure", "BrokerRestart"}),
    # (15 s: in make test-slow, to keep make test under 25 minutes)
    pytest.param(NoRecoveryOnTheElrPaths, _leader_down_nothing_left, (RF3_1, UNCLEAN),
                 {"ControllerHandleBrokerFailure", "BrokerRestart"}, marks=pytest.mark.slow),
], ids=["shrink-bumps-epoch", "no-kip-704"])
def test_a_zookeeper_path_under_kraft_is_caught(broken, where, labels, actions):
    for label in labels:
        assert crosscheck(CONFIGS[label], samples=8, seed=5, where=where).agrees, label
        result = crosscheck(CONFIGS[label], samples=8, seed=5, encoder=broken, where=where)
        assert result.disagreements, label
        assert {d.action.name for d in result.disagreements} <= actions, label


def _kafka_4_1_rf2():
    return ModelConfig(protocol="kip-320", replication_factor=2, kafka_version="4.1")


def test_kafka_4_1_rf2_is_proved_at_default_bounds():
    result = prove(_kafka_4_1_rf2(), "no-acked-loss", strengthen=["all"], search="none")
    assert result.status == PROVED, (result.failing, result.pre, result.action)


# issue 29v: 29q's four RF=3 facts, on under the ELR since, also rule out the CTI that
# kraft-running-leader-is-current was written for, so they are left out with it
@pytest.mark.parametrize("left_out", [("kraft-running-leader-is-current", "kraft-past-leaders-crashed",
                                       "kraft-written-epochs-crashed", "kraft-leader-isr-holds-acked",
                                       "kraft-leader-isr-holds-every-hw"),
                                      ("elr-holds-acked", "elr-holds-every-hw")],
                         ids=["running-leader", "elr-holds"])
def test_without_the_29n_facts_the_step_stops_on_a_cti(left_out):
    """Without ``kraft-running-leader-is-current`` (a new leader epoch under 3.6+ names a new
    leader), or without the two ``elr-holds-*`` facts (in their hw-needs-min-isr form, every ELR
    member), the step of 4.1 RF=2 fails on a state BFS never reaches and the fact rules out."""
    config = _kafka_4_1_rf2()
    less = [n for n in all_names() if n not in left_out]
    result = prove(config, "no-acked-loss", strengthen=less, search="none")
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    assert not all(STRENGTHENINGS[n].holds(result.pre, config) for n in left_out)


class NoRecordForAnElrMember(Encoder):
    """Before issue 29ad: a broker in the ELR only leaves it at its unclean-shutdown restart with
    no record (no partition epoch bump, nothing for the leader to apply)."""

    def _restart_with_elr(self, s, b):
        commit, put_change = self.commit, self.put_change
        self.commit, self.put_change = (lambda st: st), (lambda st, *a, **k: st)
        try:
            return super()._restart_with_elr(s, b)
        finally:
            self.commit, self.put_change = commit, put_change


def _handled_broker_down_in_elr(state) -> bool:
    """A down broker whose failure the controller handled is in the ELR, not the ISR: its
    restart takes it out of the ELR with a record of its own (``write_elr_change``)."""
    c = state.controller
    return any(not state.replicas[j].alive and j not in c.live_brokers and j in state.elr
               and j not in c.isr for j in range(len(state.replicas)))


@pytest.mark.slow  # 16 s; the cross-check rows of 4.1 cover the paths in make test
def test_an_elr_member_restarting_writes_a_record_in_the_encoding_too():
    """Issue 29ad: the encoding mirrors the kernel's ``write_elr_change`` (a record that bumps
    the partition epoch and reaches the leader), and the old encoding is caught on these states."""
    for label in (RF2, RF3):
        assert crosscheck(CONFIGS[label], samples=8, seed=5, where=_handled_broker_down_in_elr).agrees
        result = crosscheck(CONFIGS[label], samples=8, seed=5, encoder=NoRecordForAnElrMember,
                            where=_handled_broker_down_in_elr)
        assert result.disagreements, label
        assert {d.action.name for d in result.disagreements} == {"BrokerRestart"}, label


class NoElectionInTheUncleanShutdownRecord(Encoder):
    """Before issue 29ae: the record that handles an unclean shutdown elects nobody (Kafka's
    ``PartitionChangeBuilder.build`` runs ``tryElection`` on it too)."""

    def _unclean_shutdown_elections(self, s, kept, b, target):
        return [], z3.BoolVal(True)


def _leaderless_with_a_candidate_back(state) -> bool:
    """Leaderless; a down broker whose failure was handled is in the ELR, and a running, live
    broker is in the ELR or is the last known leader: that broker's restart may elect."""
    c = state.controller
    n = len(state.replicas)
    return c.leader == -1 and any(
        not state.replicas[j].alive and j not in c.live_brokers and j in state.elr
        for j in range(n)) and any(
        state.replicas[j].alive and j in c.live_brokers
        and (j in state.elr or j in state.last_known_elr) for j in range(n))


@pytest.mark.slow  # 13 s; the cross-check rows of 4.1 cover the paths in make test
def test_the_unclean_shutdown_record_elects_in_the_encoding_too():
    """Issue 29ae: the encoding mirrors the kernel's ``unclean_shutdown_election`` (the record
    that takes a restarting broker out of the ELR elects, e.g. the last known leader once the
    ELR is empty), and the encoding without it is caught, on BrokerRestart only."""
    for label in (RF2, RF3):
        assert crosscheck(CONFIGS[label], samples=8, seed=3,
                          where=_leaderless_with_a_candidate_back).agrees, label
        result = crosscheck(CONFIGS[label], samples=8, seed=3,
                            encoder=NoElectionInTheUncleanShutdownRecord,
                            where=_leaderless_with_a_candidate_back)
        assert result.disagreements, label
        assert {d.action.name for d in result.disagreements} == {"BrokerRestart"}, label
