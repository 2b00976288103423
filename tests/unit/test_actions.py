"""Each action's guard (when it is enabled) and effect (what it changes), on small states."""

from model import Action, make_model
from tests.conftest import config

A = Action
UNORDERED = ("+unordered-leader-moves",)  # the over-approximation with ControllerElectLeader


def walk(model, *actions):
    state = model.init_states()[0]
    for act in actions:
        nxt = model.next_state(state, act)
        assert nxt is not None, f"{act} should be enabled"
        state = nxt
    return state


def enabled(model, state):
    return {str(a) for a, _ in model.successors(state)}


# ---------------------------------------------------------------- producer

def test_produce_appends_at_the_leo_with_the_leaders_epoch():
    m = make_model(config(acks="all", min_isr=2))
    s = walk(m, A("ProduceRecord", (0,)))
    assert s.replicas[0].log == ((1, 0),)
    assert s.pending_acks == ((0, 1, 0),) and s.acked == ()


def test_acks_all_refuses_with_not_enough_replicas_when_the_isr_is_too_small():
    m = make_model(config(acks="all", min_isr=2))
    s = walk(m, A("ProduceRecord", (0,)), A("LeaderShrinkIsr", (0, 1)))
    assert s.replicas[0].isr == (0,)
    assert "ProduceRecord(leader=0)" not in enabled(m, s)


def test_acks_all_fails_after_append_when_the_isr_shrank_before_commit():
    m = make_model(config(acks="all", min_isr=2))
    s = walk(m, A("ProduceRecord", (0,)), A("LeaderShrinkIsr", (0, 1)))
    # the HW advanced on the leader alone, the request left purgatory with an error
    assert s.replicas[0].high_watermark == 1
    assert s.pending_acks == () and s.acked == ()
    assert s.replicas[0].log == ((1, 0),)  # NOT_ENOUGH_REPLICAS_AFTER_APPEND: the record stays


def test_acks_1_acknowledges_on_append_and_acks_0_never():
    assert walk(make_model(config(acks="1", min_isr=1)), A("ProduceRecord", (0,))).acked == ((1, 0),)
    s0 = walk(make_model(config(acks="0", min_isr=1)), A("ProduceRecord", (0,)))
    assert s0.acked == () and s0.pending_acks == ()


def test_the_record_bound_stops_the_producer():
    m = make_model(config(max_records=1))
    s = walk(m, A("ProduceRecord", (0,)))
    assert "ProduceRecord(leader=0)" not in enabled(m, s)


# ---------------------------------------------------------------- fetch

def test_a_fetch_that_would_change_nothing_is_not_an_action():
    m = make_model(config())
    assert "LeaderHandleFetch(leader=0, follower=1)" not in enabled(m, m.init_states()[0])


def test_a_follower_has_one_fetch_in_flight():
    m = make_model(config())
    s = walk(m, A("ProduceRecord", (0,)), A("LeaderHandleFetch", (0, 1)))
    assert s.replicas[1].fetch_response
    assert "LeaderHandleFetch(leader=0, follower=1)" not in enabled(m, s)


def test_a_response_from_an_older_epoch_is_dropped():
    m = make_model(config("kip-101", rule_changes=UNORDERED))
    s = walk(
        m, A("ProduceRecord", (0,)), A("LeaderHandleFetch", (0, 1)),
        A("ControllerElectLeader", (1,)), A("BecomeLeaderOrFollower", (0, 1)),
    )
    s = walk_from(m, s, A("BecomeLeaderOrFollower", (1, 1)))
    assert s.replicas[1].fetch_response == ()  # becoming leader drops the fetcher


def walk_from(model, state, *actions):
    for act in actions:
        state = model.next_state(state, act)
        assert state is not None, f"{act} should be enabled"
    return state


def test_kip320_fences_a_fetch_from_another_epoch_and_earlier_protocols_do_not():
    for protocol, fenced in (("kip-279", False), ("kip-320", True)):
        m = make_model(config(protocol, rf=3, max_records=1))
        # broker 2 dies; the controller drops it from the ISR (epoch 1, leader still 0); broker 1
        # applies epoch 1 before the leader does
        s = walk(m, A("ProduceRecord", (0,)), A("BrokerCrash", (2,)),
                 A("ControllerHandleBrokerFailure", (2, 0)), A("BecomeLeaderOrFollower", (1, 1)))
        assert s.replicas[1].leader_epoch == 1 and s.replicas[0].leader_epoch == 0
        can_fetch = "LeaderHandleFetch(leader=0, follower=1)" in enabled(m, s)
        assert can_fetch is (not fenced), protocol


def test_kip320_leader_serves_only_followers_in_its_epoch():
    m = make_model(config("kip-320", rule_changes=UNORDERED))
    s = walk(m, A("ProduceRecord", (0,)), A("ControllerElectLeader", (1,)),
             A("BecomeLeaderOrFollower", (1, 1)))
    # broker 0 still leads epoch 0 in its own view and broker 1 leads epoch 1: nobody follows
    # anyone in a shared epoch, so no fetch is enabled at all
    assert not any(a.startswith("LeaderHandleFetch") for a in enabled(m, s))


# ---------------------------------------------------------------- ISR

def test_shrink_only_a_lagging_follower_and_expand_once_caught_up():
    m = make_model(config())
    s0 = m.init_states()[0]
    assert "LeaderShrinkIsr(leader=0, follower=1)" not in enabled(m, s0)  # not lagging
    s = walk(m, A("ProduceRecord", (0,)), A("LeaderShrinkIsr", (0, 1)))
    assert s.controller.isr == (0,)  # written to the controller too
    s = walk_from(m, s, A("LeaderHandleFetch", (0, 1)))
    assert s.replicas[0].isr == (0,)  # this fetch at offset 0 < HW 1 does not show it in sync
    s = walk_from(m, s, A("FollowerHandleFetchResponse", (1,)), A("LeaderHandleFetch", (0, 1)))
    # the fetch at offset 1 does: Partition.updateFollowerFetchState -> maybeExpandIsr
    assert s.replicas[0].isr == s.controller.isr == (0, 1)
    assert not any(a.startswith("LeaderExpandIsr") for a in enabled(m, s))


def test_kmc_0_1_expanded_the_isr_in_a_step_of_its_own():
    m = make_model(config(rule_changes=("+isr-expansion-as-own-step",)))
    s = walk(m, A("ProduceRecord", (0,)), A("LeaderShrinkIsr", (0, 1)))
    assert "LeaderExpandIsr(leader=0, follower=1)" not in enabled(m, s)  # remote LEO 0 < HW 1
    s = walk_from(m, s, A("LeaderHandleFetch", (0, 1)), A("FollowerHandleFetchResponse", (1,)),
                  A("LeaderHandleFetch", (0, 1)))
    assert s.replicas[0].isr == (0,)  # the fetch alone does not expand under this rule
    s = walk_from(m, s, A("LeaderExpandIsr", (0, 1)))
    assert s.replicas[0].isr == s.controller.isr == (0, 1)


def test_a_stale_leader_cannot_change_the_isr():
    m = make_model(config(rule_changes=UNORDERED))
    s = walk(m, A("ProduceRecord", (0,)), A("ControllerElectLeader", (1,)))
    # broker 0 still believes it leads epoch 0, the controller is at epoch 1: compare-and-set fails
    assert "LeaderShrinkIsr(leader=0, follower=1)" not in enabled(m, s)


# ---------------------------------------------------------------- controller and LeaderAndIsr

def test_an_election_bumps_the_epoch_and_sends_leader_and_isr_to_live_brokers():
    m = make_model(config(rule_changes=UNORDERED))
    s = walk(m, A("ControllerElectLeader", (1,)))
    assert s.controller.leader == 1 and s.controller.leader_epoch == 1
    assert s.leader_and_isr == ((0, 1, 1, (0, 1)), (1, 1, 1, (0, 1)))


def test_leader_and_isr_requests_apply_in_any_order_without_the_in_order_rule():
    m = make_model(config(max_leader_epoch=2, rule_changes=UNORDERED + ("-leader-and-isr-in-order",)))
    s = walk(m, A("ControllerElectLeader", (1,)), A("ControllerElectLeader", (0,)))
    assert {q[1] for q in s.leader_and_isr} == {1, 2}
    s = walk_from(m, s, A("BecomeLeaderOrFollower", (1, 2)))
    # broker 1 applied epoch 2: its epoch-1 request would be ignored, so it is gone
    assert all(not (q[0] == 1 and q[1] == 1) for q in s.leader_and_isr)
    s = walk_from(m, s, A("BecomeLeaderOrFollower", (0, 1)))  # broker 0 applies the stale epoch 1
    assert s.replicas[0].leader == 1 and s.replicas[0].leader_epoch == 1


def test_zookeeper_mode_delivers_one_controllers_leader_and_isr_requests_in_order():
    # ControllerChannelManager: one queue per broker; the epoch-2 request waits for epoch 1
    m = make_model(config(max_leader_epoch=2, rule_changes=UNORDERED))
    s = walk(m, A("ControllerElectLeader", (1,)), A("ControllerElectLeader", (0,)))
    assert {q[1] for q in s.leader_and_isr} == {1, 2}
    assert "BecomeLeaderOrFollower(broker=1, leader_epoch=2)" not in enabled(m, s)
    s = walk_from(m, s, A("BecomeLeaderOrFollower", (1, 1)), A("BecomeLeaderOrFollower", (1, 2)))
    assert s.replicas[1].leader_epoch == 2 and s.replicas[1].leader == 0


def test_failure_detection_is_a_step_of_its_own():
    m = make_model(config())
    s = walk(m, A("BrokerCrash", (0,)))
    assert s.controller.leader == 0  # the controller does not know yet
    s = walk_from(m, s, A("ControllerHandleBrokerFailure", (0, 1)))
    assert s.controller.leader == 1 and s.controller.isr == (1,)


def test_no_clean_candidate_means_offline_unless_unclean_election_is_enabled():
    for unclean, leader in ((False, -1), (True, 1)):
        m = make_model(config(unclean=unclean, min_isr=1))
        s = walk(m, A("ProduceRecord", (0,)), A("LeaderShrinkIsr", (0, 1)), A("BrokerCrash", (0,)),
                 A("ControllerHandleBrokerFailure", (0, leader)))
        assert s.controller.leader == leader


def test_a_restarted_broker_is_sent_the_current_state():
    m = make_model(config(max_crashes=1))
    s = walk(m, A("BrokerCrash", (1,)), A("BrokerRestart", (1,)))
    assert s.replicas[1].alive and s.replicas[1].leader_epoch == -1
    assert s.leader_and_isr == ((1, 0, 0, (0, 1)),)


# ---------------------------------------------------------------- truncation per protocol

def test_hw_truncation_truncates_to_the_followers_own_hw():
    m = make_model(config("hw-truncation", max_crashes=1))
    s = walk(m, A("ProduceRecord", (0,)), A("LeaderHandleFetch", (0, 1)),
             A("FollowerHandleFetchResponse", (1,)), A("BrokerCrash", (1,)), A("BrokerRestart", (1,)),
             A("BecomeLeaderOrFollower", (1, 0)))
    assert s.replicas[1].log == () and not s.replicas[1].truncating


def test_power_loss_keeps_only_what_was_flushed():
    m = make_model(config(crash="power-loss"))
    s = walk(m, A("ProduceRecord", (0,)), A("FlushLog", (0,)), A("ProduceRecord", (0,)),
             A("BrokerCrash", (0,)))
    assert s.replicas[0].log == ((1, 0),) and s.unflushed_losses == 1


def test_process_crashes_keep_the_log_and_flush_is_not_an_action():
    m = make_model(config())
    s = walk(m, A("ProduceRecord", (0,)), A("BrokerCrash", (0,)))
    assert s.replicas[0].log == ((1, 0),)
    assert not any(a.startswith("FlushLog") for a in enabled(m, s))


def test_with_every_broker_down_unclean_election_leaves_the_partition_offline():
    m = make_model(config(unclean=True, min_isr=1, max_crashes=2))
    s = walk(m, A("BrokerCrash", (1,)), A("ControllerHandleBrokerFailure", (1, 0)),
             A("BrokerCrash", (0,)), A("ControllerHandleBrokerFailure", (0, -1)))
    assert s.controller.leader == -1 and s.controller.isr == (0,)


def test_every_action_has_a_describer():
    from model.actions import ACTION_PARAMS
    from model.describe import DESCRIBERS

    assert set(DESCRIBERS) == set(ACTION_PARAMS)
