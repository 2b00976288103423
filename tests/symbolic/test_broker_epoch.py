"""Broker epochs (KIP-380, Kafka 2.2) in the z3 encoding (issue 29e).

With ``broker-epoch`` a dead broker the controller still counts live cannot restart until
ControllerHandleBrokerFailure has run for it (``KafkaController.BrokerChange.process``,
``bouncedBrokerIds``, at 2.2.0; the kernel's ``broker_restart``); the encoding has it as a guard
on BrokerRestart (``Encoder.restart_waits_for_failure``). The rule only removes restarts, so
every state Kafka 2.2 reaches is one 2.1 reaches and every library invariant inductive for 2.1's
relation stays inductive for 2.2's; the tests check the first, that every library invariant
holds on every reachable state of small 2.2 configurations, that the encoding agrees with the
kernel on the states the guard is about and disagrees without it, that a 2.2 proof goes through,
and that without the guard BMC takes a restart the kernel refuses (the 7-step power-loss trace
of 2.1, which 2.2 does not have).
"""

from __future__ import annotations

import pytest

from checker import HOLDS, INCOMPLETE, VIOLATED, check
from checker.symbolic.bmc import EncodingMismatch
from checker.symbolic.crosscheck import CONFIGS, crosscheck, kernel_reachable
from checker.symbolic.induction import PROVED, prove
from checker.symbolic.scope import KernelReplayed, symbolic_model
from checker.symbolic.strengthen.reachable import false_on_reachable
from checker.symbolic.transitions import Encoder
from model.kernel import codec
from model.options import config_from_options


def kafka(version, **settings):
    return config_from_options(kafka_version=version, **settings)[0]


class RestartsUnnoticed(Encoder):
    """Kafka 2.1's restart on a 2.2 configuration: no guard, a dead broker the controller still
    counts live comes back in the epoch it left."""

    def restart_waits_for_failure(self):
        return False


def a_bounce_is_pending(state):
    """A broker is down and the controller has not handled its failure yet."""
    live = state.controller.live_brokers
    return any(not r.alive and b in live for b, r in enumerate(state.replicas))


@pytest.mark.parametrize("label", ["--kafka-version 2.2", "--kafka-version 2.2 RF=3"])
def test_without_the_guard_the_encoding_is_wider_than_the_kernel(label):
    config = CONFIGS[label]
    assert crosscheck(config, samples=3, seed=5, where=a_bounce_is_pending).agrees
    result = crosscheck(config, samples=3, seed=5, encoder=RestartsUnnoticed,
                        where=a_bounce_is_pending)
    assert {d.kind for d in result.disagreements} == {"wider"}
    assert {d.action.name for d in result.disagreements} == {"BrokerRestart"}


@pytest.mark.parametrize("rf", [2, 3])
def test_broker_epochs_only_remove_behaviour(rf):
    # the same initial state, and the rule only guards BrokerRestart: 2.2's reachable states
    # are 2.1's minus those only a quick restart reaches
    # (compared as readable states: 2.1's rows also hold the start offset of an epoch a broker
    # restarted into, which only a quick restart reaches, docs/model.md; 2.2's have no such slot)
    spec21, rows21 = kernel_reachable(kafka("2.1", replication_factor=rf))
    spec22, rows22 = kernel_reachable(kafka("2.2", replication_factor=rf))
    assert len(rows21) < 50_000  # the whole space, not its first levels
    s21 = {codec.decode(r, spec21.layout) for r in rows21}
    s22 = {codec.decode(r, spec22.layout) for r in rows22}
    assert s22 < s21
    assert any(s.replicas[b].epoch_start_offset >= 0 for s in s21 - s22 for b in range(rf))


@pytest.mark.parametrize("rf, rules", [  # RF=3 in ``make test-slow`` (docs/testing.md)
    (2, ()), pytest.param(3, (), marks=pytest.mark.slow),
    pytest.param(3, ("+reset-followers-on-epoch",), marks=pytest.mark.slow)])
def test_every_library_invariant_holds_on_every_reachable_state_of_2_2(rf, rules):
    states, complete, false = false_on_reachable(kafka("2.2", replication_factor=rf,
                                                       rule_changes=rules))
    assert complete and states > 1_000
    assert false == {}


def test_kafka_2_2_is_built_on_the_kernel_and_proved():
    config = kafka("2.2", replication_factor=2)
    model = symbolic_model(config)
    assert isinstance(model, KernelReplayed) and "broker-epoch" not in model.oracle.config.rules
    assert Encoder(model).restart_waits_for_failure()
    assert not Encoder(symbolic_model(kafka("2.1", replication_factor=2))).restart_waits_for_failure()
    assert check(config, ["no-acked-loss"]).verdict("no-acked-loss") == HOLDS
    assert prove(config, "no-acked-loss", strengthen=["all"], bmc_depth=0).status == PROVED


def test_without_the_guard_bmc_takes_a_restart_the_kernel_refuses(monkeypatch):
    # power loss, one record: Kafka 2.1 loses the acked record in 7 steps (a broker that lost
    # power restarts before the controller noticed, and leads again in the same epoch); Kafka
    # 2.2 does not (BFS), and BMC finds no violation within 7 steps
    settings = dict(replication_factor=2, crash_model="power-loss", max_records=1,
                    max_unflushed_losses=1)
    bfs21 = check(kafka("2.1", **settings), ["no-acked-loss"])
    assert bfs21.verdict("no-acked-loss") == VIOLATED
    assert len(bfs21.by_name("no-acked-loss").trace) == 7
    config = kafka("2.2", **settings)
    assert check(config, ["no-acked-loss"]).verdict("no-acked-loss") == HOLDS
    result = check(config, ["no-acked-loss"], engine="bmc", max_depth=7)
    assert result.verdict("no-acked-loss") == INCOMPLETE
    # the encoding without the guard finds 2.1's trace, whose restart the kernel does not take
    monkeypatch.setattr(Encoder, "restart_waits_for_failure", lambda self: False)
    with pytest.raises(EncodingMismatch, match="BrokerRestart"):
        check(config, ["no-acked-loss"], engine="bmc", max_depth=7)
