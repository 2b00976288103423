"""Leader moves as Kafka makes them (issue 25): the assignment order is state, every election
picks the first eligible replica in it, and a healthy leader moves only by a preferred-replica
election, to the first replica of the assignment, which a reassignment may reorder
(``PartitionLeaderElectionAlgorithms`` at 2.8.0, ``PartitionChangeBuilder`` at 3.6.0; the
docstrings of ``model/kernel/actions/controller.py`` cite the code)."""

from checker.trace import replay_actions
from model import Action, make_model
from model.config import Bounds, ModelConfig
from model.constants import ALTER_SENT
from model.describe import describe

A = Action


def kafka(version, rf=3, **bounds):
    base = dict(max_records=1, max_leader_epoch=3, max_crashes=1)
    base.update(bounds)
    return ModelConfig(kafka_version=version, replication_factor=rf, symmetry=False,
                       bounds=Bounds(**base))


def walk(cfg, *actions):
    model = make_model(cfg)
    return replay_actions(model, model.init_states()[0], [A(name, args) for name, args in actions])


def enabled(cfg, state):
    return [a for a, _ in make_model(cfg).successors(state)]


def order(state):
    ranks = [r.assignment_rank for r in state.replicas]
    return sorted(range(len(ranks)), key=ranks.__getitem__)


def test_the_partition_starts_assigned_in_broker_order_and_no_healthy_leader_moves_by_default():
    cfg = kafka("2.1")
    start = make_model(cfg).init_states()[0]
    assert order(start) == [0, 1, 2]
    names = {a.name for a in enabled(cfg, start)}
    assert not names & {"ControllerElectLeader", "ControllerPreferredElection",
                        "ControllerReassignReplicas"}


def test_a_failed_leader_is_replaced_by_the_first_live_isr_replica_of_the_assignment():
    for version in ("2.1", "3.9", "4.1"):
        cfg = kafka(version)
        crashed = walk(cfg, ("BrokerCrash", (0,))).states[-1]
        elections = [a for a in enabled(cfg, crashed) if a.name == "ControllerHandleBrokerFailure"]
        assert [a.args for a in elections] == [(0, 1)], version  # not (0, 2): 1 comes first


def test_a_reordered_assignment_changes_who_wins_the_next_election():
    cfg = kafka("2.1", max_reassignments=1)
    trace = walk(cfg, ("ControllerReassignReplicas", (2, 4)), ("BrokerCrash", (0,)),
                 ("ControllerHandleBrokerFailure", (0, 2)))
    assert order(trace.states[1]) == [2, 0, 1]
    assert trace.states[-1].controller.leader == 2
    assert "first eligible replica of the assignment [2, 0, 1]" in describe(
        trace.actions[-1], trace.states[-2], trace.states[-1])


def test_a_zookeeper_reorder_bumps_the_leader_epoch_and_keeps_the_leader():
    cfg = kafka("2.1", max_reassignments=1)
    after = walk(cfg, ("ControllerReassignReplicas", (1, 2))).states[-1]
    assert order(after) == [1, 0, 2]
    assert (after.controller.leader, after.controller.leader_epoch) == (0, 1)
    assert {(q[0], q[1]) for q in after.leader_and_isr} == {(0, 1), (1, 1), (2, 1)}
    assert after.reassignments == 1
    assert not any(a.name == "ControllerReassignReplicas" for a in enabled(cfg, after))  # bound


def test_a_kraft_reorder_moves_only_the_partition_epoch_and_fails_a_pending_alter_partition():
    cfg = kafka("3.9", max_reassignments=1)
    trace = walk(cfg, ("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1)),
                 ("ControllerReassignReplicas", (1, 2)))
    after = trace.states[-1]
    assert (after.controller.leader, after.controller.leader_epoch) == (0, 0)
    assert after.leader_and_isr == ()
    pending = after.replicas[0].alter_partition
    assert pending[0] == ALTER_SENT and pending[3] is False  # its partition epoch is stale now
    handled = walk(cfg, *[(a.name, a.args) for a in trace.actions],
                   ("ControllerHandleAlterPartition", (0,))).states[-1]
    assert handled.controller.isr == (0, 1, 2)  # INVALID_UPDATE_VERSION: nothing written


def test_a_preferred_election_moves_leadership_to_the_first_replica_only_if_live_and_in_sync():
    cfg = kafka("2.1", max_reassignments=1, max_preferred_elections=1)
    reordered = walk(cfg, ("ControllerReassignReplicas", (1, 2))).states[-1]
    moves = [a for a in enabled(cfg, reordered) if a.name == "ControllerPreferredElection"]
    assert [a.args for a in moves] == [(1,)]
    moved = walk(cfg, ("ControllerReassignReplicas", (1, 2)),
                 ("ControllerPreferredElection", (1,))).states[-1]
    assert (moved.controller.leader, moved.controller.leader_epoch) == (1, 2)
    # the preferred replica out of the ISR: no preferred election
    cfg = kafka("2.1", max_records=1, max_reassignments=1, max_preferred_elections=1)
    shrunk = walk(cfg, ("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1)),
                  ("ControllerReassignReplicas", (1, 2))).states[-1]
    assert not any(a.name == "ControllerPreferredElection" for a in enabled(cfg, shrunk))


def test_the_unordered_over_approximation_keeps_the_old_anonymous_move():
    cfg = ModelConfig(kafka_version="2.1", replication_factor=3, symmetry=False,
                      rule_changes=("+unordered-leader-moves",))
    start = make_model(cfg).init_states()[0]
    moves = [a.args for a in enabled(cfg, start) if a.name == "ControllerElectLeader"]
    assert moves == [(1,), (2,)]
    crashed = walk(cfg, ("BrokerCrash", (0,))).states[-1]
    elections = [a.args for a in enabled(cfg, crashed) if a.name == "ControllerHandleBrokerFailure"]
    assert elections == [(0, 1), (0, 2)]
