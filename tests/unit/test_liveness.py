"""Liveness (issue 28): P ~> Q under weak fairness, lassos, and ``kmc check -p`` of one."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from checker.liveness import check_liveness, fair_targets, lasso
from checker.result import HOLDS, INCOMPLETE, VIOLATED
from cli import cli
from model.actions import ACTION_NAMES
from model.compiled_model import CompiledModel
from model.config import Bounds, ModelConfig
from properties.liveness import FAIRNESS, FAMILIES, LIVENESS, WEAK, weakly_fair

# The mechanics below (stutter, lasso, the epoch-bound cut) are shown on the over-approximation
# of leader moves (issue 25: free moves, LeaderAndIsr in any order), whose graph has those cases;
# under Kafka's own moves the same bounds give a 300-state graph (291 before the
# epoch start slot of 2026-11-29) (last test).
LOOSE = ("+unordered-leader-moves", "-leader-and-isr-in-order")
SMALL = ModelConfig(replication_factor=2, min_insync_replicas=2, rule_changes=LOOSE,
                    bounds=Bounds(max_records=1, max_crashes=1, max_leader_epoch=3))
SMALL_FLAGS = ["-r", "2", "--min-insync-replicas", "2", "--max-records", "1", "--max-crashes", "1",
               "--max-leader-epoch", "3", "--rule", LOOSE[0], "--rule", LOOSE[1]]


def kmc(*args):
    return CliRunner().invoke(cli, list(args))


def test_every_action_has_a_family_and_every_family_a_fairness():
    assert set(FAMILIES) == set(ACTION_NAMES)
    assert set(FAMILIES.values()) <= set(FAIRNESS)
    # the environment is never forced: faults, operators and the producer
    for name in ("BrokerCrash", "BrokerRestart", "ControllerElectLeader", "ProduceRecord"):
        assert not weakly_fair(name)
    for name in ("LeaderHandleFetch", "LeaderExpandIsr", "BecomeLeaderOrFollower",
                 "ControllerHandleBrokerFailure"):
        assert FAIRNESS[FAMILIES[name]][0] == WEAK


def test_the_isr_takes_back_a_caught_up_replica_under_fairness():
    result = check_liveness(SMALL, LIVENESS["isr-eventually-complete"])
    assert result.verdict == HOLDS and result.trace is None
    assert result.states == 7466  # the whole graph, no symmetry reduction (7,356 before 2026-11-29)


def test_without_fairness_it_fails_by_stuttering_where_an_expansion_is_enabled():
    prop = LIVENESS["isr-eventually-complete"]
    result = check_liveness(SMALL, prop, fair=False)
    assert result.verdict == VIOLATED and result.stuttering
    last = result.trace.states[-1]
    assert prop.p(last) and not prop.q(last)
    enabled = [a.name for a, _ in CompiledModel(SMALL).successors(last)]
    assert any(weakly_fair(n) for n in enabled), enabled  # fairness would have forced a step


def test_a_broker_that_stays_down_is_a_fair_violation_with_a_replayable_lasso():
    prop = LIVENESS["isr-eventually-full"]
    result = check_liveness(SMALL, prop)
    assert result.verdict == VIOLATED and result.exit_code == 1
    trace = result.trace
    assert any(s.action.name == "BrokerCrash" for s in trace.steps)
    # the lasso replays through the kernel (check_liveness built it with replay_actions) and
    # its loop is fair: the state it stutters in enables no weakly fair step
    model = CompiledModel(SMALL)
    state = trace.initial
    for step in trace.steps:
        assert model.next_state(state, step.action) == step.state
        state = step.state
    assert result.stuttering and result.loop_start == len(trace.steps)
    assert not any(weakly_fair(a.name) for a, _ in model.successors(state))
    assert all(not prop.q(s) for s in trace.states[result.loop_start:])


def test_a_loop_only_at_the_leader_epoch_bound_is_incomplete_never_violated():
    result = check_liveness(SMALL, LIVENESS["leader-eventually"])
    assert result.verdict == INCOMPLETE and result.limit == "max-leader-epoch"
    assert result.exit_code == 3


def test_a_state_limit_is_incomplete():
    result = check_liveness(SMALL, LIVENESS["isr-eventually-complete"], max_states=100)
    assert result.verdict == INCOMPLETE and result.limit == "states" and result.exit_code == 3


# ---- the fairness check on hand-made graphs: kmc's kernel graphs have no cycles (every run
# ---- found ends in a state it stutters in), so the cycle code is checked here

FETCH, CRASH, OTHER = 0, 1, 2  # labels: weakly fair, a fault, weakly fair
WF = [True, False, True]
LOOP_OK = [True, False, True]


def _judge(out, p, q, fair=True):
    target, _ = fair_targets(out, p, q, WF, LOOP_OK, fair)
    return target


def test_a_cycle_that_takes_every_continuously_enabled_fair_action_is_a_fair_violation():
    # 0 -> 1 <-> 2, Q never; the cycle takes FETCH and OTHER, the only fair labels enabled
    out = [[(OTHER, 1)], [(FETCH, 2)], [(OTHER, 1)]]
    target = _judge(out, [True] * 3, [False] * 3)
    assert target[1] == {1, 2}
    stem, loop = lasso(out, [True] * 3, [False] * 3, WF, LOOP_OK, target, True)
    assert stem == [OTHER] and sorted(loop) == [FETCH, OTHER]


def test_a_cycle_that_ignores_an_always_enabled_fair_exit_is_not_fair():
    # 1 <-> 2 loops on OTHER only, but FETCH to the Q-state 3 is enabled in both: not fair
    out = [[(OTHER, 1)], [(OTHER, 2), (FETCH, 3)], [(OTHER, 1), (FETCH, 3)], []]
    q = [False, False, False, True]
    assert _judge(out, [True] * 4, q) == {}
    # without fairness, stuttering at the first P-state already violates it
    assert 0 in _judge(out, [True] * 4, q, fair=False)


def test_a_fair_exit_enabled_only_somewhere_in_the_cycle_does_not_save_it():
    out = [[(OTHER, 1)], [(OTHER, 2), (FETCH, 3)], [(OTHER, 1)], []]
    q = [False, False, False, True]
    target = _judge(out, [True] * 4, q)
    assert target.get(1) == {1, 2}
    _, loop = lasso(out, [True] * 4, q, WF, LOOP_OK, target, True)
    assert loop == [OTHER, OTHER]


def test_once_faults_stop_a_loop_of_faults_is_no_counterexample():
    # 1 <-> 2 by crashes only, FETCH to the Q-state 3 enabled in both
    out = [[(OTHER, 1)], [(CRASH, 2), (FETCH, 3)], [(CRASH, 1), (FETCH, 3)], []]
    q = [False, False, False, True]
    assert _judge(out, [True] * 4, q) == {}
    # a state where only a fault is enabled may be stayed in for ever: faults need not happen
    out[2] = [(CRASH, 1)]
    assert _judge(out, [True] * 4, q) == {2: {2}}


# ---- the command line

def test_cli_exit_codes_for_a_liveness_property():
    ok = kmc("check", *SMALL_FLAGS, "-p", "isr-eventually-complete")
    assert ok.exit_code == 0 and "HOLDS (within the bounds)" in ok.output
    bad = kmc("check", *SMALL_FLAGS, "-p", "isr-eventually-full")
    assert bad.exit_code == 1 and "stutters for ever" in bad.output and "BrokerCrash" in bad.output
    cut = kmc("check", *SMALL_FLAGS, "-p", "leader-eventually")
    assert cut.exit_code == 3 and "INCOMPLETE" in cut.output and "HOLDS" not in cut.output
    unfair = kmc("check", *SMALL_FLAGS, "--no-fairness", "-p", "isr-eventually-complete")
    assert unfair.exit_code == 1


def test_cli_json_and_refusals():
    out = kmc("check", *SMALL_FLAGS, "--json", "-p", "isr-eventually-full")
    doc = json.loads(out.output)
    assert doc["verdict"] == "VIOLATED" and doc["loop_start"] == doc["trace"]["length"]
    two = kmc("check", *SMALL_FLAGS, "-p", "isr-eventually-full", "-p", "no-acked-loss")
    assert two.exit_code == 2 and "on its own" in two.output
    depth = kmc("check", *SMALL_FLAGS, "-p", "isr-eventually-full", "--depth", "3")
    assert depth.exit_code == 2 and "--depth" in depth.output


def test_the_lasso_file_has_its_loop_and_replays(tmp_path):
    path = tmp_path / "lasso.itf.json"
    out = kmc("check", *SMALL_FLAGS, "-p", "isr-eventually-full", "--trace-out", str(path))
    assert out.exit_code == 1 and "lasso written to" in out.output
    doc = json.loads(path.read_text())
    assert doc["#meta"]["kmc"]["liveness_property"] == "isr-eventually-full"
    assert doc["loop"] == len(doc["states"]) - 1  # the last state stutters for ever
    replay = kmc("trace", "replay", str(path))
    assert replay.exit_code == 0 and "replay identically" in replay.output


@pytest.mark.parametrize("name", sorted(LIVENESS))
def test_every_builtin_liveness_property_is_documented(name):
    prop = LIVENESS[name]
    assert prop.description and prop.states


def test_under_kafkas_own_leader_moves_a_leader_eventually_comes_back():
    """Without free leader moves (issue 25; preferred elections bounded, 0 by default) the
    epochs no longer run out before a crash, and leader-eventually is decided: HOLDS."""
    kafka = ModelConfig(replication_factor=2, min_insync_replicas=2,
                        bounds=Bounds(max_records=1, max_crashes=1, max_leader_epoch=3))
    result = check_liveness(kafka, LIVENESS["leader-eventually"])
    assert result.verdict == HOLDS and result.states == 300
    assert check_liveness(kafka, LIVENESS["isr-eventually-complete"]).verdict == HOLDS


KAFKA_RF2 = ModelConfig(replication_factor=2, min_insync_replicas=2,
                        bounds=Bounds(max_records=1, max_crashes=1, max_leader_epoch=3))


def test_one_broker_down_for_good_refuses_acks_all_writes_for_ever_at_min_isr_2():
    """The issue's "RF=2, min.insync.replicas=2, one broker down stops making progress": not a
    produce left unanswered (the leader answers NOT_ENOUGH_REPLICAS), but writes never accepted
    again; with min.insync.replicas=1 and unclean election they are; with every broker back they
    are at min.insync.replicas=2 too."""
    result = check_liveness(KAFKA_RF2, LIVENESS["writes-eventually-accepted"])
    assert result.verdict == VIOLATED and result.stuttering
    last = result.trace.states[-1]
    assert sum(r.alive for r in last.replicas) == 1
    assert [s.action.name for s in result.trace.steps][0] == "BrokerCrash"
    one = ModelConfig(replication_factor=2, min_insync_replicas=1, unclean_leader_election_enable=True,
                      bounds=KAFKA_RF2.bounds)
    assert check_liveness(one, LIVENESS["writes-eventually-accepted"]).verdict == HOLDS
    back = LIVENESS["writes-accepted-once-brokers-return"]
    assert check_liveness(KAFKA_RF2, back).verdict == HOLDS
    # the weakly fair steps are what brings the ISR back: without fairness it stutters
    assert check_liveness(KAFKA_RF2, back, fair=False).verdict == VIOLATED


def test_eventually_and_always_eventually_forms(monkeypatch):
    """``<>Q`` is judged from the initial state only; ``[]<>Q`` from every state: a property
    true in the initial state only is eventually true, and not always eventually."""
    from properties.liveness import always_eventually, eventually

    monkeypatch.setattr("properties.liveness.LIVENESS", dict(LIVENESS))
    import properties.liveness as live

    def fresh(state):  # the initial state: no record written, no crash, epoch 0
        return state.controller.leader_epoch == 0 and all(r.alive for r in state.replicas)

    eventually("test-eventually-fresh", "test")(fresh)
    always_eventually("test-recurs-fresh", "test", faults_stop=False)(fresh)
    assert check_liveness(KAFKA_RF2, live.LIVENESS["test-eventually-fresh"]).verdict == HOLDS
    recurs = check_liveness(KAFKA_RF2, live.LIVENESS["test-recurs-fresh"])
    assert recurs.verdict == VIOLATED and recurs.to_json()["kind"] == "always-eventually"
    with pytest.raises(Exception, match="defined twice"):
        eventually("test-eventually-fresh", "test")(lambda s: True)


def test_a_gate_row_can_name_one_liveness_property(tmp_path):
    from gate.suite import load_suite
    from model.errors import KmcError

    suite = tmp_path / "s.toml"
    suite.write_text('name = "s"\n[[check]]\nname = "w"\n"replication.factor" = 2\nmax-crashes = 1\n'
                     'properties = ["writes-eventually-accepted"]\nexpect = "violated"\n')
    (spec,) = load_suite(str(suite)).checks
    assert spec.liveness and spec.violates == ["writes-eventually-accepted"]
    two = suite.read_text().replace('["writes-eventually-accepted"]',
                                    '["writes-eventually-accepted", "no-acked-loss"]')
    suite.write_text(two)
    with pytest.raises(KmcError, match="checked on its own"):
        load_suite(str(suite))
    suite.write_text(two.replace(', "no-acked-loss"', "") + 'engine = "reference"\n')
    with pytest.raises(KmcError, match="does not apply to a liveness property"):
        load_suite(str(suite))


def test_trace_show_marks_the_loop_and_a_broken_loop_is_refused(tmp_path):
    lasso = tmp_path / "lasso.itf.json"
    assert kmc("check", "-r", "2", "--max-records", "1", "--max-crashes", "1", "-p",
               "writes-eventually-accepted", "--trace-out", str(lasso)).exit_code == 1
    shown = kmc("trace", "show", str(lasso))
    assert shown.exit_code == 0
    assert "lasso for the liveness property writes-eventually-accepted, 3 steps, state 3 stutters" in shown.output
    assert "<> the loop: this state stutters for ever" in shown.output
    doc = json.loads(lasso.read_text())
    for loop, words in ((7, "a lasso's loop is the index of a state"),
                        (True, "a lasso's loop is the index of a state"),
                        (1, "the loop does not close")):
        doc["loop"] = loop
        bad = tmp_path / "bad.itf.json"
        bad.write_text(json.dumps(doc))
        r = kmc("trace", "show", str(bad))
        assert r.exit_code == 2 and words in r.output, r.output
    del doc["loop"]
    bad.write_text(json.dumps(doc))
    r = kmc("trace", "show", str(bad))
    assert r.exit_code == 2 and "has no 'loop'" in r.output


def test_a_returning_loop_is_read_back_from_its_itf_index():
    from viewer.trace_file import loop_start

    assert loop_start({"loop": 5}, 5) == (5, True)  # the last state stutters
    assert loop_start({"loop": 3}, 5) == (2, False)  # state 5 is state 2 again: steps 3-5 repeat
    assert loop_start({}, 5) is None


def test_since_3_7_an_acked_record_stays_unreadable_while_the_isr_is_under_min_isr():
    """acked-eventually-visible on 3.9: the 7-step lasso is the failover whose new leader may not
    advance its HW under min.insync.replicas (rule hw-needs-min-isr, KAFKA-15583); without the
    rule it needs a shrink before the crash (9 steps); nothing is lost either way."""
    config = ModelConfig(kafka_version="3.9", replication_factor=2, min_insync_replicas=2,
                         bounds=Bounds(max_records=1, max_crashes=1))
    prop = LIVENESS["acked-eventually-visible"]
    result = check_liveness(config, prop)
    assert result.verdict == VIOLATED and len(result.trace.steps) == 7
    last = result.trace.states[-1]
    leader = last.true_leader()
    assert leader == 1 and last.replicas[1].high_watermark == 0 and len(last.replicas[1].log) == 1
    without = check_liveness(replace(config, rule_changes=("-hw-needs-min-isr",)), prop)
    assert without.verdict == VIOLATED and len(without.trace.steps) == 9


def test_leader_eventually_counts_a_live_elr_member():
    """KIP-966: a live, unfenced member of the eligible leader replicas is a candidate as an ISR
    member is, so leader-eventually's P holds with the ISR empty and an ELR member running; on
    4.1 with two power losses (RF=2) the property holds."""
    from checker import check
    from properties.liveness import live_isr_member

    config = ModelConfig(kafka_version="4.1", replication_factor=2, crash_model="power-loss",
                         bounds=Bounds(max_records=1, max_crashes=2))
    trace = check(config, ["no-acked-loss"]).properties[0].trace
    both_down = next(s for s in trace.states if not s.controller.isr and len(s.elr) == 2)
    assert not live_isr_member(both_down)
    back = both_down._replace(
        replicas=(both_down.replicas[0], both_down.replicas[1]._replace(alive=True)),
        controller=both_down.controller._replace(live_brokers=(1,)))
    assert live_isr_member(back)
    assert check_liveness(config, LIVENESS["leader-eventually"]).verdict == HOLDS
