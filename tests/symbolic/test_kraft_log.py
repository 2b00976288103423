"""KRaft's metadata log in the z3 encoding (issue 29m): rule ``kraft`` (KIP-500/631, Kafka 3.3),
so the releases 3.3 and 3.4 themselves, and 3.6's ``isr-shrink-keeps-leader-epoch`` and 3.9's
``kraft-unclean-election`` by name on 3.3.

``crosscheck.CONFIGS`` has rows for them (run by ``test_kernel_crosscheck.py``). Here: the engine
takes the releases and the rules; an encoding that forgets a piece of the metadata log is caught
by the cross-check on the states where it matters; the library (with its KRaft invariants) holds
on every reachable state of 3.3 at RF=2; ``no-acked-loss`` is proved there, and without the KRaft
invariants the inductive step stops on an unreachable counterexample."""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.scope import KernelReplayed, lacking_rules, symbolic_model
from checker.symbolic.state import Dims
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, check_of
from checker.symbolic.strengthen.kraft import STRENGTHENINGS as KRAFT_INVARIANTS
from checker.symbolic.transitions import Encoder
from model import Bounds, make_model
from model.constants import ALTER_SENT
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator, reachable

RF2 = "--kafka-version 3.3"
MOVES = "--kafka-version 3.3 preferred elections and reassignments"
KEEPS = "--kafka-version 3.3 +isr-shrink-keeps-leader-epoch"
UNCLEAN = "--kafka-version 3.3 +kraft-unclean-election unclean"


def test_the_engine_takes_3_3_and_3_4_and_the_later_rules_by_name():
    for label in (RF2, "--kafka-version 3.4 RF=3", KEEPS, UNCLEAN):
        config = CONFIGS[label]
        assert "kraft" in config.rules and lacking_rules(config) == []
        assert isinstance(symbolic_model(config), KernelReplayed)
        assert Dims.of(config).kraft
    assert Dims.of(CONFIGS[KEEPS]).shrink_keeps and Dims.of(CONFIGS[UNCLEAN]).kraft_unclean
    # 3.3's KRaft controller ignores unclean.leader.election.enable (the kernel's unclean_allowed)
    assert not Encoder(symbolic_model(CONFIGS["--kafka-version 3.3 power-loss unclean (ignored)"])).unclean
    assert Encoder(symbolic_model(CONFIGS[UNCLEAN])).unclean


class StaleChangeStaysCurrent(Encoder):
    """A new record leaves a pending change's partition-epoch bit set (the kernel's ``commit``
    clears it): the leader applying it later would hold a stale partition epoch as current."""

    def commit(self, s):
        out = super().commit(s)
        return out.but(reps=[r.but(chg_cur=old.chg_cur) for r, old in zip(out.reps, s.reps)])


class ChangeBeforeItsEpoch(Encoder):
    """A broker applies a change of a leader epoch it has not applied yet (the kernel waits for
    the record that starts the epoch)."""

    def _enc_BrokerApplyPartitionChange(self, s, b):
        r = s.reps[b]
        ahead = s.put(b, r.but(lep=r.chg_ep))  # as if it had the record's leader epoch
        cases = super()._enc_BrokerApplyPartitionChange(ahead, b)
        return [(g, nxt.put(b, nxt.reps[b].but(lep=r.lep))) for g, nxt in cases]


class ZooKeeperShortcut(Encoder):
    """ZooKeeper mode's answer to a stale partition epoch asking for the ISR the partition has
    already (success) kept under KRaft, which answers INVALID_UPDATE_VERSION."""

    def _enc_ControllerHandleAlterPartition(self, s, b):
        self.kraft = False
        try:
            cases = super()._enc_ControllerHandleAlterPartition(s, b)
        finally:
            self.kraft = True
        return cases


def _current_change_and_a_failure(state) -> bool:
    """A change holding the current partition epoch waits, and a broker the controller still
    counts live has failed: handling the failure is a new record."""
    c = state.controller
    return (any(r.partition_change and r.partition_change[2] for r in state.replicas)
            and any(b in c.live_brokers and not r.alive for b, r in enumerate(state.replicas)))


def _change_ahead(state) -> bool:
    return any(r.partition_change and r.partition_change[1] > r.leader_epoch for r in state.replicas)


def _stale_request_for_the_isr(state) -> bool:
    """The leader asks for the ISR the partition has already, with a stale partition epoch (3.6's
    controller shrank the ISR on a failure, under the same leader epoch, while the leader's own
    shrink was on its way)."""
    c = state.controller
    return any(r.alter_partition and r.alter_partition[0] == ALTER_SENT
               and not r.alter_partition[3] and tuple(r.alter_partition[1]) == c.isr
               and r.alter_partition[2] == c.leader_epoch and c.leader == b
               for b, r in enumerate(state.replicas))


@pytest.mark.parametrize("broken, label, where, action", [
    (StaleChangeStaysCurrent, RF2, _current_change_and_a_failure, None),
    (ChangeBeforeItsEpoch, MOVES, _change_ahead, "BrokerApplyPartitionChange"),
    (ZooKeeperShortcut, KEEPS, _stale_request_for_the_isr, "ControllerHandleAlterPartition"),
], ids=["change-keeps-partition-epoch", "change-before-its-epoch", "zookeeper-same-isr-shortcut"])
def test_a_broken_encoding_of_the_metadata_log_is_caught(broken, label, where, action):
    config = CONFIGS[label]
    assert crosscheck(config, samples=6, seed=5, where=where).agrees
    result = crosscheck(config, samples=6, seed=5, encoder=broken, where=where)
    assert result.disagreements
    if action:
        assert {d.action.name for d in result.disagreements} == {action}


def _small(version="3.3", rules=(), **settings):
    return config_from_options(kafka_version=version, replication_factor=2, max_records=2,
                               max_leader_epoch=2, max_crashes=1, rule_changes=rules, **settings)[0]


def test_every_library_invariant_holds_on_every_reachable_state_of_3_3():
    config = _small()
    states = reachable(make_model(config))
    assert len(states) > 5000
    # the changes the invariants speak of happen: pending, stale, and on a leader behind them
    changes = [r.partition_change for s in states for r in s.replicas if r.partition_change]
    assert changes and any(not c[2] for c in changes)
    false = [n for n in STRENGTHENINGS if not all(check_of(n, config)(s) for s in states)]
    assert false == []
    evaluate = formula_evaluator(Dims.of(config), {st.name: st.formula for st in KRAFT_INVARIANTS})
    for s in states[::20]:
        values = evaluate(s)
        assert all(values.values()), [n for n, v in values.items() if not v]


def test_no_acked_loss_is_proved_on_3_3():
    result = prove(_small(), "no-acked-loss", strengthen=["all"], bmc_depth=0)
    assert result.status == PROVED, (result.failing, result.pre, result.action)


def test_without_the_kraft_invariants_the_proof_stops_on_an_unreachable_cti():
    config = _small()
    less = [n for n in all_names() if n not in {st.name for st in KRAFT_INVARIANTS}]
    result = prove(config, "no-acked-loss", strengthen=less, bmc_depth=0, search="none")
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    assert not all(st.holds(result.pre, config) for st in KRAFT_INVARIANTS)
