"""Kafka 2.1's epoch start offset on a leader that restarts into its own epoch.

``Partition.makeLeader`` (Partition.scala lines 380-386 at 2.1.0) records the leader's LEO as the
start offset of its epoch, and ``maybeExpandIsr`` (line 511) admits a follower only once it
fetches from there (KAFKA-7128). Before KIP-380 (2.2) a broker may restart before the controller
noticed its failure and take its old epoch up again, with records of that epoch below its LEO:
the start offset is then that LEO, not its first record of the epoch. Until 2026-11-29 the kernel
read the offset off the log, and the walk below (the first nine steps of the loss that
``kmc check --kafka-version 2.1 -r 3 --rule +reset-followers-on-epoch --max-crashes 2
--hw-checkpoint interval -p no-acked-loss`` printed then) let follower 1 back into the ISR with
an empty log; leader 0's second crash then lost the acknowledged r1. That check now HOLDS."""

from model import Action, make_model
from model.options import config_from_options

A = Action

RESTART_INTO_OWN_EPOCH = (
    A("ProduceRecord", (0,)),
    A("LeaderHandleFetch", (0, 2)),
    A("FollowerHandleFetchResponse", (2,)),
    A("LeaderHandleFetch", (0, 2)),
    A("LeaderShrinkIsr", (0, 1)),  # HW 0 -> 1, r1 acknowledged; the checkpoint file still says 0
    A("BrokerCrash", (0,)),
    A("BrokerRestart", (0,)),  # before the controller handled the crash: no KIP-380 in 2.1
    A("BecomeLeaderOrFollower", (0, 0)),  # its own epoch 0 again, LEO 1, HW 0 (the checkpoint)
)


def _walk(config, actions):
    model = make_model(config)
    state = model.init_states()[0]
    for act in actions:
        state = model.next_state(state, act)
        assert state is not None, f"{act} should be enabled"
    return model, state


def _config(version="2.1"):
    config, _ = config_from_options(kafka_version=version, replication_factor=3,
                                    rule_changes=("+reset-followers-on-epoch",),
                                    hw_checkpoint="interval", max_crashes=2)
    return config


def test_a_leader_restarted_into_its_own_epoch_starts_it_at_its_leo():
    model, s = _walk(_config(), RESTART_INTO_OWN_EPOCH)
    leader = s.replicas[0]
    assert (leader.leader, leader.leader_epoch, len(leader.log), leader.high_watermark) == (0, 0, 1, 0)
    assert leader.epoch_start_offset == 1  # not 0, where its record of epoch 0 is
    # follower 1 (LEO 0) has reached the HW (0) but not the epoch's start: it stays out
    s = model.next_state(s, A("LeaderHandleFetch", (0, 1)))
    assert 1 not in s.replicas[0].isr
    # ... until it has fetched r1
    s = model.next_state(s, A("FollowerHandleFetchResponse", (1,)))
    s = model.next_state(s, A("LeaderHandleFetch", (0, 1)))
    assert 1 in s.replicas[0].isr


def test_the_recorded_start_goes_with_the_broker_s_memory():
    model, s = _walk(_config(), RESTART_INTO_OWN_EPOCH + (A("BrokerCrash", (0,)),))
    assert s.replicas[0].epoch_start_offset == -1


def test_kafka_2_2_has_no_such_restart_and_no_such_slot():
    """KIP-380: the restart waits for ControllerHandleBrokerFailure, so a leader's epoch is
    always newer than its records before it (the slot is left out: ``spec.ENVIRONMENT``)."""
    model = make_model(_config("2.2"))
    s = model.init_states()[0]
    for act in RESTART_INTO_OWN_EPOCH[:6]:
        s = model.next_state(s, act)
    assert model.next_state(s, A("BrokerRestart", (0,))) is None
