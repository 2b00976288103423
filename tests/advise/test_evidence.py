"""What advise's verdicts rest on (issue 22): every setting's goal is checked at the bounds of the
losses the known-results suite finds, so the settings kmc 0.1's sweep recommended at RF=3 are
refuted; and the one dominance the sweep uses (a process-crash counterexample refutes the
power-loss twin) holds on every loss of the suite."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advise.core import Advice, _goal_evidence
from advise.evidence import corners
from advise.recommend import BROKEN
from advise.settings import Release, Settings
from advise.sweep import GOAL, run_cell
from checker import check
from gate.known import known_losses
from model import ModelConfig
from model.config import default_bounds

KAFKA_41 = Release("4.1", "kip-320")
BASE = ModelConfig(kafka_version="4.1", replication_factor=3)


def _evidence(s: Settings):
    rf = s.replication_factor
    advice = Advice(s, ["no-acked-loss"], [rf], [s.release], [], {rf: default_bounds(rf)},
                    cells=[s])
    advice.corners = {rf: corners(["no-acked-loss"], rf, default_bounds(rf))}
    return _goal_evidence(s, BASE, advice, ["no-acked-loss"],
                          lambda s, kind, cfg, names=None: run_cell(s, kind, cfg, names=names))


def test_the_rf3_corners_reach_the_known_losses_of_each_weak_setting():
    found = {c.short() for c in corners(["no-acked-loss"], 3, default_bounds(3))}
    # two crashes (unclean election; covers the default bounds and min.insync=1 under power
    # loss), leader epochs up to 3 with two records (the follower-LEO finding), and one crash
    # with the operator's moves (KAFKA-14139's rows, at 3 replicas since issue 29ad: at 2 the
    # ELR record of Kafka 4.1 answers the stale AlterPartition first)
    assert found == {"(1,2,2)", "(2,3,0)", "(1,2,1,1,1)"}


@pytest.mark.parametrize("settings, corner", [
    # what kmc 0.1's sweep (leader epochs up to 1) listed as keeping no-acked-loss at RF=3
    # refuted at the cheapest corner with a loss: one crash, the operator's moves (issue 29ad)
    (Settings(3, "all", 1, False, "power-loss", KAFKA_41), "(1,2,1,1,1)"),
    (Settings(3, "all", 2, True, "process", KAFKA_41), "(1,2,2)"),
])
def test_the_settings_kmc_0_1_recommended_at_rf3_are_refuted(settings, corner):
    evidence = _evidence(settings)
    assert evidence.status == BROKEN
    assert evidence.refuted_at.corner.short() == corner
    assert evidence.refuted_at.violated[0].trace_length >= 5


PROCESS_LOSSES = [loss for loss in known_losses()
                  if loss.config.crash_model == "process" and loss.config.replication_factor == 2]


@pytest.mark.parametrize("loss", PROCESS_LOSSES, ids=lambda loss: loss.name[:50])
def test_a_process_crash_counterexample_refutes_the_power_loss_twin(loss):
    # advise's dominance (docs/advise.md): flush, then crash, is a process crash under the
    # power-loss model, so whatever process crashes reach, power-loss crashes reach too
    twin = replace(loss.config, crash_model="power-loss")
    result = check(twin, [loss.prop])
    assert result.by_name(loss.prop).verdict == "VIOLATED", loss.name


def test_a_goal_check_that_hits_a_limit_never_keeps_the_goal():
    s = Settings(2, "all", 2, False, "process", Release("2.1", "kip-320"))
    cell = run_cell(s, GOAL, s.config(ModelConfig(), default_bounds(2)), names=["no-acked-loss"],
                    max_states=100)
    assert cell.limit == "max-states" and cell.verdicts["no-acked-loss"].verdict == "INCOMPLETE"


@pytest.mark.parametrize("version, rf", [("2.1", 2), ("4.1", 2), ("3.7", 2), ("0.8", 2)])
def test_without_crashes_unclean_election_and_the_flush_policy_change_nothing(version, rf):
    # advise's equivalence (docs/advise.md): with max-crashes=0 (and no session expiry or
    # controlled shutdown) no broker is ever down, the controller never elects from outside
    # the ISR, and no flush matters: the four settings have the same verdicts and counterexamples
    from model import Bounds

    answers = set()
    for unclean in (False, True):
        for crash in ("process", "power-loss"):
            config = ModelConfig(kafka_version=version, replication_factor=rf, min_insync_replicas=1,
                                 unclean_leader_election_enable=unclean, crash_model=crash,
                                 bounds=Bounds(2, 3, 0, 1))
            result = check(config, ["no-acked-loss", "log-matching", "monotonic-visibility"])
            answers.add(tuple((p.name, p.verdict, len(p.trace) if p.trace else None)
                              for p in result.properties))
    assert len(answers) == 1, answers
