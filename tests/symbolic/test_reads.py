"""What consumers read in the symbolic engines (issue 29bf): ``track_reads`` and KIP-392's fetch
from followers, encoded as the kernel's ``record_reads`` (``Encoder.record_reads``,
``SState.rd``), and ``no-read-loss`` as a z3 formula.

No longer refused (``scope.require_encoded``); the formula equals the property's predicate on
every reachable state of a configuration where it is false somewhere, and two mutant formulas do
not; the cross-check's rows (``crosscheck.CONFIGS``, "fetch from followers", "what consumers
read") catch three broken encodings; BMC finds BFS's shortest counterexample (5 steps)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import z3
from click.testing import CliRunner

from checker.symbolic.crosscheck import CONFIGS, crosscheck, kernel_reachable
from checker.symbolic.formulas import true_leader_is
from checker.symbolic.scope import KernelReplayed, require_encoded, symbolic_model
from checker.symbolic.state import sel
from checker.symbolic.transitions import Encoder
from cli import cli
from model.kernel import codec
from model.kernel import params as P
from model.kernel.actions import successors
from model.options import config_from_options
from tests.symbolic.helpers import assert_formulas_agree

READ_LOSS = "no-read-loss"


def _small(**settings):
    """Kafka 2.4 with fetch from followers, RF=2, 1 record, epochs <= 2, 1 crash, unclean
    elections with min.insync.replicas=1: a consumer can read r1 below the old leader's HW that
    the uncleanly elected leader lacks (BFS: 5 steps)."""
    settings = {"max_records": 1, "max_leader_epoch": 2, "max_crashes": 1,
                "fetch_from_followers": True, "unclean_leader_election": True,
                "min_insync_replicas": 1, **settings}
    config = config_from_options(kafka_version="2.4", replication_factor=2, **settings)[0]
    return replace(config, track_reads=True)


def test_the_engines_take_what_consumers_read():
    config = _small()
    require_encoded(config)  # refused, one line, until issue 29bf
    model = symbolic_model(config)
    assert isinstance(model, KernelReplayed)  # the oracle has neither setting
    assert not model.oracle.config.track_reads and not model.oracle.config.fetch_from_followers
    enc = Encoder(model)
    assert enc.d.reads and enc.d.followers


# the mutants: the formula with one of its tests changed
def _read_loss_of_unread_records(d, s):  # "was read" dropped: a record never read counts
    return z3.And([z3.Implies(true_leader_is(s, l), z3.And([
        z3.And(s.rd[k] < s.reps[l].leo, sel(s.reps[l].log_id, s.rd[k], -1) == k + 1)
        for k in range(d.records)])) for l in range(d.n)])


def _read_loss_on_broker_0(d, s):  # judged only when broker 0 is the true leader
    return z3.Implies(true_leader_is(s, 0), z3.And([
        z3.Implies(s.rd[k] >= 0, z3.And(s.rd[k] < s.reps[0].leo,
                                        sel(s.reps[0].log_id, s.rd[k], -1) == k + 1))
        for k in range(d.records)]))


@pytest.mark.slow
def test_the_formula_agrees_with_the_predicate_on_every_reachable_state():
    config = replace(_small(), symmetry=False)
    assert_formulas_agree(config, {READ_LOSS: (_read_loss_of_unread_records,
                                               _read_loss_on_broker_0)}, 100)


@pytest.mark.slow
def test_bmc_finds_bfs_shortest_read_loss():
    args = ["--kafka-version", "2.4", "-r", "2", "--max-records", "1", "--max-leader-epoch", "2",
            "--max-crashes", "1", "--fetch-from-followers", "--unclean-leader-election",
            "--min-insync-replicas", "1", "-p", READ_LOSS, "-q"]
    bfs = CliRunner().invoke(cli, ["check", *args])
    assert bfs.exit_code == 1 and "shortest counterexample: 5 steps" in bfs.output, bfs.output
    short = CliRunner().invoke(cli, ["check", "--engine", "bmc", "--depth", "4", *args])
    assert short.exit_code == 3, short.output  # none within 4 steps: incomplete, not HOLDS
    bmc = CliRunner().invoke(cli, ["check", "--engine", "bmc", "--depth", "5", *args])
    assert bmc.exit_code == 1 and "shortest counterexample: 5 steps" in bmc.output, bmc.output


# ---------------------------------------------------------------- broken encodings


class NoReadHistory(Encoder):
    """Narrower than the kernel: nothing is ever recorded as read."""

    def record_reads(self, s):
        return s


class ReadsAboveTheHw(Encoder):
    """Wider than Kafka: a consumer reads up to the LEO, not the HW (``FetchHighWatermark``)."""

    def record_reads(self, s):
        return super().record_reads(s.put_all([r.but(hw=r.leo) for r in s.reps])).but(
            reps=s.reps)


class FollowersNeverServe(Encoder):
    """KIP-392 forgotten: only brokers that believe they lead serve consumers."""

    def __init__(self, model, **kwargs):
        super().__init__(model, **kwargs)
        self.d = replace(self.d, followers=False)


def _where_followers_decide(config):
    """The reachable states one of whose kernel successors changes when the kernel's
    ``FETCH_FROM_FOLLOWERS`` switch is turned off: where a follower's read is one no leader
    exposed (24 of 22,445 reachable states on kmc 0.1's hw-truncation row; none on the 2.4+
    rows at the cross-check's bounds)."""
    spec, rows = kernel_reachable(replace(config, symmetry=False))
    off = spec.cfg.copy()
    off[P.FETCH_FROM_FOLLOWERS] = 0
    out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
    acts = np.zeros((spec.max_successors, 3), dtype=np.int16)

    def successor_set(row, cfg):
        k = successors(row, spec.lay, cfg, out, acts)
        return {(tuple(acts[j]), out[j].tobytes()) for j in range(k)}

    keys = {row.tobytes() for row in rows if successor_set(row, spec.cfg) != successor_set(row, off)}
    assert keys
    return lambda state: codec.encode(state, spec.layout).tobytes() in keys


def _where_a_read_is_recorded(config):
    """The reachable states one of whose kernel successors records a read."""
    spec, rows = kernel_reachable(replace(config, symmetry=False))
    out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
    acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
    lay = spec.layout

    def records(row):
        before = codec.decode(row, lay).read_offsets
        k = successors(row, spec.lay, spec.cfg, out, acts)
        return any(codec.decode(out[j], lay).read_offsets != before for j in range(k))

    keys = {row.tobytes() for row in rows if records(row)}
    assert keys
    return lambda state: codec.encode(state, lay).tobytes() in keys


@pytest.mark.slow
@pytest.mark.parametrize("broken, label, aim", [
    (NoReadHistory, "--kafka-version 2.1 what consumers read", _where_a_read_is_recorded),
    (ReadsAboveTheHw, "--kafka-version 2.4 fetch from followers", None),
    (FollowersNeverServe, "hw-truncation fetch from followers", _where_followers_decide),
])
def test_a_broken_read_history_is_caught(broken, label, aim):
    config = CONFIGS[label]
    where = aim(config) if aim else None
    assert crosscheck(config, samples=6, seed=5).agrees  # the row itself agrees
    result = crosscheck(config, samples=6, seed=5, encoder=broken, where=where)
    assert not result.agrees


# ---------------------------------------------------------------- the library's two read facts


def _read_in_every_replica(d, s):  # mutant of read-in-isr: the ISR test dropped
    from checker.symbolic.strengthen.reads import holds_read

    return z3.And([z3.Implies(s.rd[k] >= 0, holds_read(s, r, k))
                   for r in s.reps for k in range(len(s.rd))])


@pytest.mark.slow
def test_the_read_facts_agree_with_their_predicates_on_reachable_states():
    # each fact false somewhere: read-in-isr under unclean election (2.4, fetch from followers),
    # read-below-writer-hw under kmc 0.1's over-approximation at epochs <= 3 (2.1; 36 of 7,356
    # states); formula = predicate on every state where the predicate is false and on every 10th
    # other one, and a mutant (read-in-isr without its ISR test) disagrees somewhere
    from checker.symbolic.state import Dims
    from checker.symbolic.strengthen.reads import STRENGTHENINGS
    from model import make_model
    from tests.symbolic.helpers import formula_evaluator, reachable

    loose = replace(config_from_options(
        kafka_version="2.1", replication_factor=2, max_records=1, max_leader_epoch=3,
        max_crashes=1, rule_changes=("+unordered-leader-moves", "-leader-and-isr-in-order"))[0],
        track_reads=True)
    facts = {st.name: st for st in STRENGTHENINGS}
    false = dict.fromkeys(facts, 0)
    caught = 0
    for config in (_small(), loose):
        config = replace(config, symmetry=False)
        states = reachable(make_model(config))
        evaluate = formula_evaluator(Dims.of(config), {
            **{n: st.formula for n, st in facts.items()}, "mutant": _read_in_every_replica})
        for i, s in enumerate(states):
            holds = {n: st.holds(s, config) for n, st in facts.items()}
            if i % 10 and all(holds.values()):
                continue
            values = evaluate(s)
            for n in facts:
                assert values[n] == holds[n], (n, s)
                false[n] += not holds[n]
            caught += values["mutant"] != holds["read-in-isr"]
    assert all(false.values()), false
    assert caught
