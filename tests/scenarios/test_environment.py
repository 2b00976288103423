"""The environment beyond crashes: the lagging HW checkpoint, controlled shutdown, and the
controller losing a running broker (session expiry / missed heartbeats).

Each is off unless asked for (--hw-checkpoint interval, --max-controlled-shutdowns,
--max-session-expiries) and costs nothing then; these tests replay the story each one adds and
pin what a small exploration finds.
"""

from dataclasses import replace

from checker import HOLDS
from checker.trace import replay_actions
from model import Action, make_model
from model.config import Bounds, ModelConfig
from properties import PROPERTIES
from tests.conftest import LOOSE, config as _config, run


def config(*args, rule_changes=(), **kw):
    """The stories and counts of this file as first pinned: under kmc's over-approximation of
    leader moves and request order (docs/model.md, "Leader moves"); the environment they test
    is orthogonal to it."""
    return _config(*args, rule_changes=tuple(rule_changes) + LOOSE, **kw)

A = Action


def walk(cfg, *actions):
    model = make_model(cfg)
    return replay_actions(model, model.init_states()[0], [A(name, args) for name, args in actions])


# ---------------------------------------------------------------- the HW checkpoint file

def test_a_restart_brings_back_the_checkpointed_hw_not_the_last_one():
    # the leader commits r1 (HW 1) but crashes before its next checkpoint: it restarts with HW 0
    cfg = replace(config("kip-320", acks="all", min_isr=2), hw_checkpoint="interval")
    trace = walk(cfg, ("ProduceRecord", (0,)), ("LeaderHandleFetch", (0, 1)),
                 ("FollowerHandleFetchResponse", (1,)), ("LeaderHandleFetch", (0, 1)),
                 ("BrokerCrash", (0,)))
    assert trace.states[4].replicas[0].high_watermark == 1
    assert trace.states[4].replicas[0].checkpointed_hw == 0
    assert trace.states[-1].replicas[0].high_watermark == 0


def test_a_checkpoint_makes_the_hw_survive_the_crash():
    cfg = replace(config("kip-320"), hw_checkpoint="interval")
    trace = walk(cfg, ("ProduceRecord", (0,)), ("LeaderHandleFetch", (0, 1)),
                 ("FollowerHandleFetchResponse", (1,)), ("LeaderHandleFetch", (0, 1)),
                 ("CheckpointHighWatermark", (0,)), ("BrokerCrash", (0,)))
    assert trace.states[-1].replicas[0].high_watermark == 1


def test_immediate_checkpoints_track_nothing_and_cost_nothing():
    cfg = config("kip-320")
    assert not make_model(cfg).spec.layout.has("hw_checkpoint")
    assert make_model(replace(cfg, hw_checkpoint="interval")).spec.layout.has("hw_checkpoint")
    assert run(cfg, "no-acked-loss").stats.distinct_states == 17926


def test_the_lagging_checkpoint_keeps_kip_320_safe_at_rf2():
    result = run(replace(config("kip-320"), hw_checkpoint="interval"))
    assert {p.verdict for p in result.properties} == {HOLDS}
    assert result.stats.distinct_states == 69672


# ---------------------------------------------------------------- controlled shutdown

def shutdowns(cfg, n=1):
    return cfg.with_bounds(max_controlled_shutdowns=n)


def test_a_controlled_shutdown_moves_leadership_then_the_broker_stops_clean():
    cfg = shutdowns(replace(config("kip-320", crash="power-loss"), symmetry=False))
    trace = walk(cfg, ("ProduceRecord", (0,)),
                 ("ControllerHandleControlledShutdown", (0, 1)), ("BrokerShutdown", (0,)))
    after_request, stopped = trace.states[2], trace.states[3]
    assert after_request.controller.leader == 1 and after_request.controller.isr == (1,)
    assert after_request.replicas[0].shutting_down and after_request.replicas[0].alive
    # a clean stop flushes the log: power loss cannot take r1 from a broker that shut down
    assert not stopped.replicas[0].alive and stopped.replicas[0].log == ((1, 0),)
    assert stopped.replicas[0].flushed_offset == 1
    assert stopped.controlled_shutdowns == 1 and stopped.crashes == 0


def test_a_broker_in_controlled_shutdown_is_never_elected():
    # under the over-approximation any live ISR member may win a failure-free move: not 1
    cfg = shutdowns(config("kip-320", rf=3, max_records=1))
    model = make_model(cfg)
    state = walk(cfg, ("ControllerHandleControlledShutdown", (1, 0))).states[-1]
    elected = {a.args[0] for a, _ in model.successors(state) if a.name == "ControllerElectLeader"}
    assert elected == {2}
    # with the assignment order, a preferred election to broker 1 waits for its shutdown to end
    cfg = shutdowns(_config("kip-320", rf=3, max_records=1, max_reassignments=1,
                            max_preferred_elections=1, max_leader_epoch=3))
    model = make_model(cfg)
    state = walk(cfg, ("ControllerReassignReplicas", (1, 2)),
                 ("ControllerHandleControlledShutdown", (1, 0))).states[-1]
    assert not any(a.name == "ControllerPreferredElection" for a, _ in model.successors(state))


def test_the_sole_isr_member_cannot_shut_down_under_control():
    # with no other ISR member to lead, the controller cannot move the partition: the broker
    # would retry and then stop anyway (a crash), so no controlled shutdown is offered
    cfg = shutdowns(config("kip-320", min_isr=1))
    state = walk(cfg, ("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1))).states[-1]
    offered = [a for a, _ in make_model(cfg).successors(state)
               if a.name == "ControllerHandleControlledShutdown" and a.args[0] == 0]
    assert offered == []


def test_controlled_shutdowns_keep_kafka_2_2_safe_at_rf2():
    cfg = shutdowns(ModelConfig(replication_factor=2, kafka_version="2.2", rule_changes=LOOSE))
    result = run(cfg)
    assert {p.verdict for p in result.properties} == {HOLDS}
    assert result.stats.distinct_states == 39634  # a shutting-down broker stops fetching


# ---------------------------------------------------------------- a running broker fenced

def expiries(cfg, n=1):
    return cfg.with_bounds(max_session_expiries=n)


def test_a_fenced_leader_is_a_zombie_that_still_takes_writes():
    cfg = expiries(replace(config("kip-320", acks="1", min_isr=1), symmetry=False))
    trace = walk(cfg, ("ControllerFenceBroker", (0, 1)), ("BecomeLeaderOrFollower", (1, 1)),
                 ("ProduceRecord", (0,)))
    zombie = trace.states[-1]
    assert zombie.controller.leader == 1 and 0 not in zombie.controller.live_brokers
    assert zombie.replicas[0].alive and zombie.replicas[0].leader == 0  # it has not heard
    assert zombie.acked == ((1, 0),)  # acks=1: the zombie acknowledges ...
    assert not PROPERTIES["no-acked-loss"](zombie)  # ... a record the true leader lacks


def test_unfencing_sends_the_broker_the_partition_state():
    cfg = expiries(replace(config("kip-320"), symmetry=False))
    trace = walk(cfg, ("ControllerFenceBroker", (1, 0)), ("ControllerUnfenceBroker", (1,)))
    fenced, back = trace.states[1], trace.states[2]
    assert fenced.controller.isr == (0,) and fenced.controller.leader_epoch == 1
    assert 1 in back.controller.live_brokers
    assert (1, 1, 0, (0,)) in back.leader_and_isr


def test_unfencing_a_broker_already_in_the_leader_epoch_leaves_no_request_it_would_ignore():
    """Issue 29ae (review s11 finding 4): since 3.6 (KAFKA-15021) fencing a follower shrinks the
    ISR in the same leader epoch, so the state its unfencing resends is of the epoch the broker
    has, which it ignores (ReplicaManager.becomeLeaderOrFollower applies only a newer leader
    epoch). The kernel drops such a request at once (``finish``), as after a broker's own steps;
    it used to stay in the state until a later step ran ``finish``."""
    cfg = ModelConfig(kafka_version="3.6", replication_factor=2, symmetry=False,
                      bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=0,
                                    max_session_expiries=1))
    trace = walk(cfg, ("ControllerFenceBroker", (1, 0)), ("ControllerUnfenceBroker", (1,)))
    fenced, back = trace.states[1], trace.states[2]
    assert fenced.controller.isr == (0,) and fenced.controller.leader_epoch == 0
    assert 1 in back.controller.live_brokers and back.replicas[1].leader_epoch == 0
    assert [q for q in back.leader_and_isr if q[0] == 1] == []  # before: (1, 0, 0, (0,))


def test_session_expiry_of_a_running_broker_keeps_kafka_2_2_safe_at_rf2():
    result = run(expiries(ModelConfig(replication_factor=2, kafka_version="2.2", rule_changes=LOOSE)))
    assert {p.verdict for p in result.properties} == {HOLDS}
    assert result.stats.distinct_states == 44031  # 48,296 before issue 29ae (a request ignored at unfencing)


def test_the_reference_engine_refuses_environment_features():
    from model.errors import ConfigError
    from checker.reference import make_reference_model
    import pytest

    for cfg in (expiries(config()), shutdowns(config()), replace(config(), hw_checkpoint="interval")):
        with pytest.raises(ConfigError, match="compiled engine"):
            make_reference_model(cfg)


# ---------------------------------------------------------------- what consumers read

def test_no_read_loss_keeps_a_history_only_when_asked_for():
    from properties import BUILT_IN, OPT_IN

    assert "no-read-loss" in OPT_IN and "no-read-loss" not in BUILT_IN
    plain = run(config("hw-truncation"), "monotonic-visibility")
    reads = run(config("hw-truncation"), "no-read-loss", "monotonic-visibility")
    assert reads.config["track.reads"] and not plain.config["track.reads"]
    # a follower truncates to its stale HW what a consumer could read, then leads (KIP-101 scenario 1)
    assert reads.verdict("no-read-loss") == "VIOLATED"
    trace = reads.by_name("no-read-loss").trace
    assert len(trace) == 9 and (1, 0) in trace.states[4].read_offsets


def test_a_record_below_a_serving_brokers_hw_is_readable_there():
    cfg = replace(config("kip-320"), track_reads=True)
    walked = walk(cfg, ("ProduceRecord", (0,)), ("LeaderHandleFetch", (0, 1)),
                  ("FollowerHandleFetchResponse", (1,)), ("LeaderHandleFetch", (0, 1)))
    assert walked.states[3].read_offsets == ()  # HW 0: nothing readable yet
    assert walked.states[-1].read_offsets == ((1, 0),)  # readable at leader 0 once its HW is 1
