"""A disk lost with the crash in the z3 encoding (``--crash-model disk-loss``, issue 29aj).

The kernel's BrokerCrash under disk loss (model/kernel/actions/faults.py ``broker_crash``) empties
the broker's log (and with it its epoch cache) and its HW, counted as a loss up to
``--max-unflushed-losses``; a broker with nothing on its disk crashes as a process does. The
encoding (``Encoder.lose_disk``) is held to the kernel on states where a disk can be lost, on a
ZooKeeper release, KRaft without and with KIP-903, and the ELR; an encoding that keeps the log on
a disk loss, or counts the crash of an empty disk as a loss, is caught there. (One that keeps the
HW is not: the HW is capped at the LEO when the broker stops, ``stop_broker``, so the state is
the same; under ``--hw-checkpoint interval`` the lost file is the encoding's ``ckpt``, held to
the kernel by the row "--kafka-version 3.5 disk-loss hw checkpoint interval".) BMC's
shortest counterexample equals BFS's, ``kmc prove`` answers as BFS does, and the library's facts
a replaced disk breaks are off under it (strengthen/disk_loss.py), each false on a reachable
state without the switch.
"""

from __future__ import annotations

import pytest
import z3

from checker import HOLDS as BFS_HOLDS
from checker import VIOLATED as BFS_VIOLATED
from checker import check
from checker.symbolic import numbers as num
from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.induction import prove
from checker.symbolic.outcome import PROVED, VIOLATED
from checker.symbolic.scope import KernelReplayed, symbolic_model
from checker.symbolic.strengthen import disk_loss
from checker.symbolic.strengthen.library import STRENGTHENINGS, UNSWITCHED, all_names
from checker.symbolic.strengthen.reachable import false_on_reachable
from checker.symbolic.transitions import Encoder
from model.options import config_from_options

ROWS = ("--kafka-version 2.1 disk-loss", "--kafka-version 3.3 disk-loss",
        "--kafka-version 4.1 disk-loss")


def a_disk_to_lose(config):
    """States where BrokerCrash may lose a disk: a crash and a loss left, a running broker with
    records."""
    b = config.bounds

    def where(state):
        return (state.crashes < b.max_crashes and state.unflushed_losses < b.max_unflushed_losses
                and any(r.alive and r.log for r in state.replicas))
    return where


def an_empty_disk_to_crash(config):
    """States where a running broker with nothing on its disk may crash."""
    b = config.bounds

    def where(state):
        return (state.crashes < b.max_crashes
                and any(r.alive and not r.log and r.high_watermark == 0 for r in state.replicas))
    return where


class KeepsTheLog(Encoder):
    """A disk loss read as a process crash that forgets the HW: the log survives."""

    def lose_disk(self, r):
        return r.but(hw=num.val(0))


class CountsAnEmptyDisk(Encoder):
    """Counts the crash of a broker whose disk holds nothing as a disk loss."""

    def _enc_BrokerCrash(self, s, b):
        cases = super()._enc_BrokerCrash(s, b)
        if len(cases) != 2:
            return cases
        (plain_guard, plain), (lossy_guard, lossy) = cases
        r = s.reps[b]
        empty = z3.And(r.leo == 0, r.hw == 0)
        counted = lossy.but(losses=s.losses + 1)
        return [(z3.And(plain_guard, z3.Not(empty)), plain),
                (lossy_guard, lossy),
                (z3.And(plain_guard, empty, s.losses < self.d.max_losses), counted)]


@pytest.mark.parametrize("label", ROWS)
def test_the_encoding_loses_a_disk_as_the_kernel_does(label):
    config = CONFIGS[label]
    assert isinstance(symbolic_model(config), KernelReplayed)  # the oracle has no disk loss
    result = crosscheck(config, samples=8, seed=5, where=a_disk_to_lose(config))
    assert result.agrees, "\n".join(str(d) for d in result.disagreements[:3])
    assert result.transitions["BrokerCrash"] >= 8  # every sampled state can lose a disk


@pytest.mark.parametrize("label", ROWS)
def test_an_encoding_that_keeps_the_log_is_caught(label):
    config = CONFIGS[label]
    result = crosscheck(config, samples=4, seed=5, where=a_disk_to_lose(config),
                        encoder=KeepsTheLog)
    assert {d.kind for d in result.disagreements} == {"wider", "narrower"}
    assert {d.action.name for d in result.disagreements} == {"BrokerCrash"}


def test_an_encoding_that_counts_an_empty_disk_is_caught():
    config = CONFIGS["--kafka-version 2.1 disk-loss"]
    where = an_empty_disk_to_crash(config)
    assert crosscheck(config, samples=4, seed=5, where=where).agrees
    result = crosscheck(config, samples=4, seed=5, where=where, encoder=CountsAnEmptyDisk)
    assert "wider" in {d.kind for d in result.disagreements}
    assert {d.action.name for d in result.disagreements} == {"BrokerCrash"}


# Kafka 2.1: the leader loses its disk, restarts, is sent its old epoch again (no broker epochs
# before 2.2) and leads with an empty log (7 steps). Kafka 4.1 at min.insync.replicas=1 (KRaft,
# the ELR; 8 steps, 30 s of CPU: ``make test-slow``): the ISR shrinks to the leader, which loses
# its disk and, the partition leaderless, is elected again on restart with an empty log
@pytest.mark.parametrize("version, min_isr, steps", [
    ("2.1", 2, 7), pytest.param("4.1", 1, 8, marks=pytest.mark.slow)])
def test_bmc_finds_bfs_shortest_loss(version, min_isr, steps):
    # BMC's trace (replayed in the kernel: KernelReplayed) has BFS's length
    config = config_from_options(kafka_version=version, replication_factor=2,
                                 min_insync_replicas=min_isr, crash_model="disk-loss")[0]
    explicit = check(config, ["no-acked-loss"])
    assert explicit.verdict("no-acked-loss") == BFS_VIOLATED
    length = len(explicit.by_name("no-acked-loss").trace)
    symbolic = check(config, ["no-acked-loss"], engine="bmc", max_depth=length)
    result = symbolic.by_name("no-acked-loss")
    assert result.verdict == BFS_VIOLATED and len(result.trace) == length == steps
    assert "BrokerCrash" in {a.name for a in result.trace.actions}
    assert symbolic.exit_code == 1


def test_prove_on_kip_903_proves():
    # Kafka 3.5 (KIP-903: the restarted broker's new epoch keeps its empty replica out of the
    # ISR) holds at RF=2, and with issue 29av's facts the induction closes: PROVED, within the
    # bounds (leader epochs <= 2: at 3 the same release loses an acked record, next tests)
    config = config_from_options(kafka_version="3.5", replication_factor=2,
                                 crash_model="disk-loss")[0]
    assert check(config, ["no-acked-loss"]).verdict("no-acked-loss") == BFS_HOLDS
    names = all_names(config)
    assert "committed-consistency" not in names
    result = prove(config, "no-acked-loss", strengthen=["all"], search="none")
    assert result.status == PROVED, result


# the mutant: without the fact that says a restarted (empty) broker is named leader only from
# epoch 3, the step stops on a CTI (BFS then says HOLDS), never PROVED (about 15 s)
@pytest.mark.slow
def test_prove_on_kip_903_needs_the_epoch_fact():
    config = config_from_options(kafka_version="3.5", replication_factor=2,
                                 crash_model="disk-loss")[0]
    names = [n for n in all_names(config) if n != "restarted-broker-led-late"]
    result = prove(config, "no-acked-loss", strengthen=names, search="none")
    assert result.status != PROVED and result.cti, result


# at epochs <= 3 Kafka 3.5 loses an acked record to one disk loss (the leader shrinks the ISR to
# itself, loses its disk and is elected again, the last member): VIOLATED with BFS's 10 steps,
# never PROVED on the same library (about 30 s)
@pytest.mark.slow
def test_prove_on_kip_903_at_epoch_3_is_violated():
    config = config_from_options(kafka_version="3.5", replication_factor=2, crash_model="disk-loss",
                                 max_leader_epoch=3)[0]
    result = prove(config, "no-acked-loss", strengthen=["all"])
    assert result.status == VIOLATED and len(result.trace) == 10, result


# Kafka 4.1 (the ELR) at one crash: with issue 29az's acked-record facts on within one crash the
# induction closes, PROVED; without them the step stops on a CTI (r1 acked in no log) and BFS
# says HOLDS (about 25 s of CPU for the two: make test-slow)
@pytest.mark.slow
def test_prove_under_the_elr_within_one_crash_proves():
    config = config_from_options(kafka_version="4.1", replication_factor=2, crash_model="disk-loss",
                                 max_records=1)[0]
    result = prove(config, "no-acked-loss", strengthen=["all"], search="none")
    assert result.status == PROVED, result
    acked = {"acked-on-isr-of-several", "acked-copies-past-losses", "controller-leader-holds-acked"}
    names = [n for n in all_names(config) if n not in acked]
    result = prove(config, "no-acked-loss", strengthen=names, search="none")
    assert result.status != PROVED and result.cti, result


def test_prove_never_proves_a_lost_record():
    config = config_from_options(kafka_version="2.1", replication_factor=2,
                                 crash_model="disk-loss")[0]
    result = prove(config, "no-acked-loss", strengthen=["all"])
    assert result.status == VIOLATED


SMALL = dict(replication_factor=2, crash_model="disk-loss", max_records=1, max_leader_epoch=2,
             max_crashes=2, max_unflushed_losses=1)


# Kafka 2.1 here, 3.3 (KRaft, 35 s) in ``make test-slow``
@pytest.mark.parametrize("version", ["2.1", pytest.param("3.3", marks=pytest.mark.slow)])
def test_the_library_holds_under_disk_loss_and_each_switch_is_needed(version):
    config = config_from_options(kafka_version=version, **SMALL)[0]
    names = [n for n in STRENGTHENINGS]
    _, complete, false = false_on_reachable(config, names)
    assert complete and not false, sorted(false)
    # the switch is needed: unswitched, the facts the module names are false on reachable states
    off = [n for n in disk_loss.OFF_UNDER_DISK_LOSS if n in UNSWITCHED]
    unswitched = {n: UNSWITCHED[n] for n in off}
    import checker.symbolic.strengthen.reachable as reach
    saved = reach.STRENGTHENINGS
    reach.STRENGTHENINGS = unswitched
    try:
        _, _, false = false_on_reachable(config, off)
    finally:
        reach.STRENGTHENINGS = saved
    column = ("2.1", "2.7", "3.3", "3.5", "4.1").index(version)
    expected = {n for n, counts in disk_loss.FALSE_ON.items() if counts[column]}
    assert set(false) <= expected
    # one record instead of the module's two: only the facts about two records of one epoch
    # (2.1's epoch cache) cannot show (2.1: 19 of 21 show, 3.3: all 19)
    assert expected - set(false) <= {"epoch-anchors-prefix", "epoch-offset-names-one-record"}
