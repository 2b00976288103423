"""The HW checkpoint file in the z3 encoding: ``--hw-checkpoint interval``.

kmc's default abstraction has the checkpoint file follow the HW; with ``--hw-checkpoint
interval`` the kernel keeps each broker's ``checkpointed_hw``, written by CheckpointHighWatermark
at any time (Kafka writes it every ``replica.high.watermark.checkpoint.interval.ms``) and read
back when the broker stops, so a restart can bring back an older HW than the one it had. The
encoding has the same field (``SReplica.ckpt``) and action (``Encoder._enc_CheckpointHighWatermark``);
the cross-check rows (``crosscheck.CONFIGS``, "hw checkpoint interval") hold it to the kernel in
both directions, two of them here (test_kernel_crosscheck) and the rest in ``make crosscheck``.
Here: three deliberately broken encodings are caught where they matter, the engines take the
setting, and BMC finds BFS's shortest counterexample (Kafka 0.10, two crashes). The library
(strengthen/hw_checkpoint.py): the three facts a crash's HW moving back breaks are each false on a
reachable state of Kafka 2.1 with the setting, as written, and hold in the form the library uses;
the two new facts hold on every reachable state and agree with their formulas, also one change
away where they are false; ``kmc prove`` of ``no-acked-loss`` on 2.1 RF=2 with the setting is
PROVED, and without the new facts it is not.
"""

from __future__ import annotations

import pytest
import z3
from click.testing import CliRunner

from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.state import Dims
from checker.symbolic.strengthen import hw_checkpoint
from checker.symbolic.strengthen.library import STRENGTHENINGS, UNSWITCHED, all_names
from checker.symbolic.transitions import Encoder
from cli import cli
from model import make_model
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator, reachable

ROW_010 = "hw-truncation hw checkpoint interval"
ROW_SHUTDOWN = "--kafka-version 2.1 controlled shutdowns hw checkpoint interval"


class CrashKeepsTheLastHw(Encoder):
    """Narrower and wider: a crash brings back the HW the broker had, not its checkpoint's (the
    default abstraction applied under the setting)."""

    def hw_on_disk(self, r):
        return r.hw


class CheckpointAnyTime(Encoder):
    """Wider: CheckpointHighWatermark also when the file already holds the HW (the kernel has no
    such step: it would change nothing)."""

    def _enc_CheckpointHighWatermark(self, s, b):
        r = s.reps[b]
        return [(r.alive, s.put(b, r.but(ckpt=r.hw)))]


class ShutdownWithoutCheckpoint(Encoder):
    """Narrower and wider: a controlled shutdown that does not write the HW to the file
    (``ReplicaManager.shutdown(checkpointHW = true)`` forgotten)."""

    def _enc_BrokerShutdown(self, s, b):
        return [(g, x.put(b, x.reps[b].but(ckpt=s.reps[b].ckpt)))
                for g, x in super()._enc_BrokerShutdown(s, b)]


def _lagging_live_broker(state) -> bool:
    """A running broker whose file lags its HW, and a crash left in the bound."""
    return state.crashes < 2 and any(r.alive and r.checkpointed_hw < r.high_watermark
                                     for r in state.replicas)


def _in_sync_file(state) -> bool:
    return any(r.alive and r.checkpointed_hw == r.high_watermark for r in state.replicas)


def _stopping_lagging(state) -> bool:
    return any(r.alive and r.shutting_down and r.checkpointed_hw != r.high_watermark
               for r in state.replicas)


@pytest.mark.parametrize("broken, label, where, actions", [
    # the crash's reading of the file in make test (about 6 s); the other two in make test-slow
    (CrashKeepsTheLastHw, ROW_010, _lagging_live_broker, {"BrokerCrash"}),
    pytest.param(CheckpointAnyTime, ROW_010, _in_sync_file, {"CheckpointHighWatermark"},
                 marks=pytest.mark.slow),
    pytest.param(ShutdownWithoutCheckpoint, ROW_SHUTDOWN, _stopping_lagging, {"BrokerShutdown"},
                 marks=pytest.mark.slow),
])
def test_a_broken_checkpoint_is_caught(broken, label, where, actions):
    assert crosscheck(CONFIGS[label], samples=4, seed=5, where=where).agrees
    result = crosscheck(CONFIGS[label], samples=4, seed=5, encoder=broken, where=where)
    assert result.disagreements
    assert {d.action.name for d in result.disagreements} == actions


@pytest.mark.slow  # about 18 s of z3
def test_bmc_finds_bfs_shortest_loss_with_a_lagging_checkpoint():
    # Kafka 0.10 (KIP-101's scenario, two crashes): BFS's shortest loss is 10 steps with the
    # lagging file as without it (kmc check -q --kafka-version 0.10 -r 2 --max-crashes 2
    # --hw-checkpoint interval -p no-acked-loss); BMC must find one of the same length, replayed
    # in the kernel, and none shorter
    args = ["--kafka-version", "0.10", "-r", "2", "--max-crashes", "2", "--hw-checkpoint",
            "interval", "-p", "no-acked-loss", "-q"]
    bfs = CliRunner().invoke(cli, ["check", *args])
    assert bfs.exit_code == 1 and "shortest counterexample: 10 steps" in bfs.output, bfs.output
    bmc = CliRunner().invoke(cli, ["check", "--engine", "bmc", "--depth", "10", *args])
    assert bmc.exit_code == 1 and "shortest counterexample: 10 steps" in bmc.output, bmc.output


def test_the_engines_take_the_setting():
    # no longer refused (one line, exit 2, until this change); the other settings still are
    out = CliRunner().invoke(cli, ["check", "--engine", "bmc", "--depth", "4", "-r", "2",
                                   "--kafka-version", "2.1", "--hw-checkpoint", "interval",
                                   "-p", "no-acked-loss", "-q"])
    assert out.exit_code == 3, out.output  # bounded: no violation within depth 4, not HOLDS
    # (--fetch-from-followers was the example until issue 29bf encoded it; a KIP-320 fix added
    # to an older release is still refused, issue 29ah)
    out = CliRunner().invoke(cli, ["prove", "-r", "2", "-p", "no-acked-loss", "--kafka-version",
                                   "2.0", "--rule", "+fenced-fetch"])
    assert out.exit_code == 2 and "kmc check explores them" in out.output, out.output


LAGGING = config_from_options(kafka_version="2.1", replication_factor=2,
                              hw_checkpoint="interval")[0]
NEW = tuple(st.name for st in hw_checkpoint.STRENGTHENINGS)


@pytest.fixture(scope="module")
def states_2_1():
    return reachable(make_model(LAGGING))


def _one_change_away(state):
    """A broker's checkpoint file one higher or one lower, a fetch response's HW one lower, a
    broker's log cut by one record."""
    out = []
    for b, r in enumerate(state.replicas):
        if r.log:
            reps = list(state.replicas)
            reps[b] = r._replace(log=r.log[:-1], high_watermark=min(r.high_watermark, len(r.log) - 1))
            out.append(state._replace(replicas=tuple(reps)))
        for delta in (1, -1):
            if r.checkpointed_hw + delta >= 0:
                reps = list(state.replicas)
                reps[b] = r._replace(checkpointed_hw=r.checkpointed_hw + delta)
                out.append(state._replace(replicas=tuple(reps)))
        if r.fetch_response and r.fetch_response[4] > 0:
            fr = r.fetch_response
            reps = list(state.replicas)
            reps[b] = r._replace(fetch_response=fr[:4] + (fr[4] - 1,) + fr[5:])
            out.append(state._replace(replicas=tuple(reps)))
    return out


@pytest.mark.slow  # about 25 s: every fact on 5,025 states and one change away
def test_the_library_under_a_lagging_checkpoint(states_2_1):
    config, states = LAGGING, states_2_1
    assert len(states) == 5025
    # the three switched facts: false as written on a reachable state, true in the library's form
    for name in hw_checkpoint.OFF_UNDER_LAGGING_CHECKPOINT:
        assert not all(UNSWITCHED[name].holds(s, config) for s in states), name
        assert all(STRENGTHENINGS[name].holds(s, config) for s in states), name
    d = Dims.of(config)
    evaluate = formula_evaluator(d, {n: STRENGTHENINGS[n].formula
                                     for n in NEW + (hw_checkpoint.WITHOUT_HW,)})
    for s in states:
        assert all(evaluate(s).values()), s
        for n in NEW:
            assert STRENGTHENINGS[n].holds(s, config), (n, s)
    falses = {n: 0 for n in NEW}
    for s in states[::9]:
        for m in _one_change_away(s):
            got = evaluate(m)
            for n in NEW + (hw_checkpoint.WITHOUT_HW,):
                holds = STRENGTHENINGS[n].holds(m, config)
                assert got[n] == holds, (n, m)
                falses[n] = falses.get(n, 0) + (not holds)
    assert all(falses[n] > 0 for n in NEW), falses
    # in --strengthen all with the setting, not without it
    assert set(NEW) <= set(all_names(config))
    plain = config_from_options(kafka_version="2.1", replication_factor=2)[0]
    assert not set(NEW) & set(all_names(plain))


# Issue 29bb: Kafka 4.1 (KIP-966's ELR, hw-needs-min-isr) at RF=2 under the setting. The CTIs the
# 4.1 proof stopped on (docs/symbolic.md, "The lagging HW checkpoint on Kafka 4.1") each led to a
# fact: a fetch response's HW is on the ELR (``fetch-hw-on-elr``), the records below a broker's
# file are on the ISR and the ELR (``checkpoint-committed``), a file covers a record of the
# controller's epoch only if that epoch's leader's HW does (``checkpoint-behind-epoch-leader``),
# and ``checkpoint-behind-running-hw`` bounds a running leader's file by its HW or its epoch's start
# offset (a restarted broker's by its HW, a follower's by its LEO).
LAGGING_41 = config_from_options(kafka_version="4.1", replication_factor=2,
                                 hw_checkpoint="interval")[0]
NEW_29BB = ("fetch-hw-on-elr", "checkpoint-committed", "checkpoint-behind-epoch-leader")


def _one_change_away_29bb(state):
    """``_one_change_away``, and a fetch response's HW one higher (within its leader's LEO)."""
    out = _one_change_away(state)
    for b, r in enumerate(state.replicas):
        if r.fetch_response and r.fetch_response[4] < r.fetch_response[5]:
            fr = r.fetch_response
            reps = list(state.replicas)
            reps[b] = r._replace(fetch_response=fr[:4] + (fr[4] + 1,) + fr[5:])
            out.append(state._replace(replicas=tuple(reps)))
    return out


def test_the_29bb_facts_only_under_the_setting():
    # in --strengthen all with the setting, left out without it, and true by definition there
    assert set(NEW_29BB) <= set(all_names(LAGGING_41))
    plain = config_from_options(kafka_version="4.1", replication_factor=2)[0]
    assert not set(NEW_29BB) & set(all_names(plain))
    d = Dims.of(plain)
    from checker.symbolic.state import fresh
    s = fresh(d, "plain")
    for n in NEW_29BB + ("checkpoint-behind-running-hw",):
        assert STRENGTHENINGS[n].formula(d, s).eq(z3.BoolVal(True)), n


@pytest.mark.slow  # 817 s at 29bb (07:18-07:32, load 7 to 9, 2 cores): every fact on 8,188 states and one change away
def test_the_29bb_facts_on_kafka_4_1():
    config = LAGGING_41
    states = reachable(make_model(config))
    assert len(states) == 8188
    names = NEW_29BB + NEW
    d = Dims.of(config)
    evaluate = formula_evaluator(d, {n: STRENGTHENINGS[n].formula for n in names})
    for s in states:
        for n in names:
            assert STRENGTHENINGS[n].holds(s, config), (n, s)
    for s in states[::3]:
        assert all(evaluate(s).values()), s
    falses = {n: 0 for n in names}
    for s in states[::7]:
        for m in _one_change_away_29bb(s):
            got = evaluate(m)
            for n in names:
                holds = STRENGTHENINGS[n].holds(m, config)
                assert got[n] == holds, (n, m)
                falses[n] += not holds
    assert all(falses[n] > 0 for n in NEW_29BB + ("checkpoint-behind-running-hw",)), falses


@pytest.mark.slow  # two proofs each: about 25 s (2.1), 83 s (4.1, at 29bb, load 7 to 9)
@pytest.mark.parametrize("version, config, new", [("2.1", LAGGING, NEW),
                                                  ("4.1", LAGGING_41, NEW_29BB)])
def test_prove_with_a_lagging_checkpoint_and_without_its_facts(version, config, new):
    args = ["prove", "--kafka-version", version, "-r", "2", "-p", "no-acked-loss",
            "--hw-checkpoint", "interval", "-q"]
    out = CliRunner().invoke(cli, [*args, "-s", "all"])
    assert out.exit_code == 0 and "PROVED" in out.output, out.output
    # the mutant: the library without the facts only the lagging checkpoint needs (2.1: the
    # lead's two; 4.1: also 29bb's three)
    without = [n for n in all_names(config) if n not in new]
    out = CliRunner().invoke(cli, [*args] + [x for n in without for x in ("-s", n)])
    assert out.exit_code == 0 and "HOLDS by exhaustive search" in out.output, out.output
