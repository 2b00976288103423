"""KIP-380's broker epoch in the zombie controller's LeaderAndIsr (issue 29bi).

Since Kafka 2.2 every control request carries the broker epoch the sending controller holds for
its target (``ControllerChannelManager.sendRequestsToBrokers`` at 2.2.0), and a broker refuses
one older than its own registration (``KafkaApis.handleLeaderAndIsrRequest`` /
``isBrokerEpochStale``: STALE_BROKER_EPOCH). The zombie controller's view of the brokers froze
at the failover, so a broker that registered since (a restart, a new ZooKeeper session) refuses
its requests; on 2.1 it takes them. The kernel's ``refuses_zombie`` (model/kernel/controller.py)
and the guard ``zombie-broker-epoch`` (the mutant: the refusal switched off).
"""

from __future__ import annotations

from model import Action, Bounds, ModelConfig, make_model
from model.kernel.guards import mutated_guards

SEND, HANDLE = "ZombieControllerSendLeaderAndIsr", "BrokerHandleZombieLeaderAndIsr"


def _config(version, **bounds):
    base = dict(max_records=0, max_leader_epoch=2, max_crashes=1, max_controller_failovers=1)
    base.update(bounds)
    return ModelConfig(kafka_version=version, replication_factor=2, symmetry=False,
                       bounds=Bounds(**base))


def _replay(model, steps):
    state = model.init_states()[0]
    for name, args in steps:
        nxt = model.next_state(state, Action(name, tuple(args)))
        assert nxt is not None, f"{name}{args} is not enabled"
        state = nxt
    return state


# the failover first (the zombie's view: broker 0 leads epoch 0), then broker 1 crashes, the new
# controller handles it, and broker 1 restarts and registers: after the failover
RESTART_AFTER_FAILOVER = [("ControllerFailover", ()), ("BrokerCrash", (1,)),
                          ("ControllerHandleBrokerFailure", (1, 0)), ("BrokerRestart", (1,))]


def _zombie_taken_after_restart(version) -> bool:
    """Can the zombie's request reach the restarted broker 1 and make it a follower of its
    frozen view (leader 0, epoch 0)?"""
    model = make_model(_config(version))
    state = _replay(model, RESTART_AFTER_FAILOVER)
    assert state.replicas[1].alive and state.replicas[1].leader_epoch == -1
    sent = model.next_state(state, Action(SEND, (1,)))
    if sent is None:
        return False
    taken = model.next_state(sent, Action(HANDLE, (1,)))
    return taken.replicas[1].leader_epoch == 0 and taken.replicas[1].leader == 0


def test_a_broker_restarted_after_the_failover_refuses_the_zombie_on_2_2_and_takes_it_on_2_1():
    assert not _zombie_taken_after_restart("2.2")
    assert _zombie_taken_after_restart("2.1")
    with mutated_guards("zombie-broker-epoch"):  # the refusal switched off: 2.2 takes it too
        assert _zombie_taken_after_restart("2.2")


def test_a_pending_zombie_request_to_a_broker_that_registered_since_is_refused():
    """The request on its way (the state built by hand: a registration since the failover and
    the zombie's request pending) changes nothing but its slot on 2.2, and is taken on 2.1."""
    for version, refused in (("2.2", True), ("2.1", False)):
        model = make_model(_config(version))
        state = _replay(model, RESTART_AFTER_FAILOVER)
        r1 = state.replicas[1]._replace(zombie_request=True)
        assert r1.registered_since_failover is (version == "2.2")
        state = state._replace(replicas=(state.replicas[0], r1))
        after = model.next_state(state, Action(HANDLE, (1,)))
        assert not after.replicas[1].zombie_request
        assert (after.replicas[1] == r1._replace(zombie_request=False)) is refused, version


def test_a_broker_registered_before_the_failover_still_takes_the_zombie_request():
    """The zombie handled that registration as the active controller: it holds the broker's
    current epoch, so only the controller epoch can refuse its request, as before 2.2."""
    model = make_model(_config("2.2"))
    state = _replay(model, [("BrokerCrash", (1,)), ("ControllerHandleBrokerFailure", (1, 0)),
                            ("BrokerRestart", (1,)), ("ControllerFailover", ())])
    assert not state.replicas[1].registered_since_failover
    assert model.next_state(state, Action(SEND, (1,))) is not None


def test_a_new_session_since_the_failover_makes_the_broker_refuse_a_request_on_its_way():
    """A session expiry: the broker registers again (``RegisterBrokerAndReelect`` at 2.2.0: a new
    czxid), and the zombie's request already on its way to it is dropped on 2.2, kept on 2.1."""
    for version, kept in (("2.2", False), ("2.1", True)):
        model = make_model(_config(version, max_crashes=0, max_session_expiries=1))
        state = _replay(model, [("ControllerFenceBroker", (1, 0)), ("ControllerFailover", ()),
                                (SEND, (1,))])
        assert state.replicas[1].zombie_request
        state = _replay_from(model, state, [("ControllerUnfenceBroker", (1,))])
        assert state.replicas[1].zombie_request is kept, version


def _replay_from(model, state, steps):
    for name, args in steps:
        nxt = model.next_state(state, Action(name, tuple(args)))
        assert nxt is not None, f"{name}{args} is not enabled"
        state = nxt
    return state
