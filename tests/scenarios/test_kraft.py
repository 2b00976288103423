"""AlterPartition (2.7+), KRaft (3.3+) and KIP-966 (4.x), mechanism by mechanism: each test
replays the story a rule adds and checks the state Kafka's code says it leads to
(docs/kraft.md cites the code)."""

from dataclasses import replace

import pytest

from checker import HOLDS, VIOLATED
from checker.trace import replay_actions
from model import Action, make_model
from model.config import Bounds, ModelConfig
from model.constants import ALTER_ACCEPTED, ALTER_REFUSED, ALTER_SENT, ALTER_STUCK
from model.describe import describe
from model.errors import KmcError
from tests.conftest import run

A = Action


def walk(cfg, *actions):
    model = make_model(cfg)
    return replay_actions(model, model.init_states()[0], [A(name, args) for name, args in actions])


def kafka(version, rf=2, **kw):
    bounds = kw.pop("bounds", Bounds(max_records=2, max_leader_epoch=2, max_crashes=1))
    return ModelConfig(kafka_version=version, replication_factor=rf, symmetry=False, bounds=bounds, **kw)


REPLICATE_R1 = (("ProduceRecord", (0,)), ("LeaderHandleFetch", (0, 1)),
                ("FollowerHandleFetchResponse", (1,)))


# ---------------------------------------------------------------- AlterPartition (KIP-497)

def test_a_shrink_waits_for_the_controller_and_the_hw_keeps_counting_the_follower():
    trace = walk(kafka("2.8"), ("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1)))
    pending = trace.states[-1]
    assert pending.replicas[0].alter_partition[0] == ALTER_SENT
    assert pending.replicas[0].isr == (0, 1) and pending.controller.isr == (0, 1)
    assert pending.replicas[0].high_watermark == 0  # the follower still counts (maximal ISR)
    answer = (("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1)),
              ("ControllerHandleAlterPartition", (0,)), ("LeaderHandleAlterPartitionResponse", (0,)))
    trace = walk(kafka("2.8"), *answer)
    answered, done = trace.states[-2], trace.states[-1]
    assert answered.controller.isr == (0,) and answered.replicas[0].alter_partition[0] == ALTER_ACCEPTED
    assert done.replicas[0].isr == (0,) and done.replicas[0].alter_partition == ()
    # KAFKA-13091: before 3.1 the answer commits the ISR and nothing more (handleAlterIsrResponse
    # at 2.8.1); the HW waits for the next fetch or produce
    assert done.replicas[0].high_watermark == 0 and done.pending_acks  # r1's produce still waits
    # since 3.1 (handleAlterIsrUpdate: maybeIncrementLeaderHW) the ISR of one commits r1 at once
    fixed = walk(kafka("3.1"), *answer).states[-1]
    assert fixed.replicas[0].isr == (0,) and fixed.replicas[0].high_watermark == 1
    assert not fixed.pending_acks  # and the produce is answered


def test_the_isr_grows_inside_the_fetch_that_shows_the_follower_in_sync():
    cfg = kafka("2.8")
    shrunk = walk(cfg, ("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1)),
                  ("ControllerHandleAlterPartition", (0,)), ("LeaderHandleAlterPartitionResponse", (0,)),
                  ("LeaderHandleFetch", (0, 1)), ("FollowerHandleFetchResponse", (1,)),
                  ("LeaderHandleFetch", (0, 1)))
    asking = shrunk.states[-1]
    assert asking.replicas[0].alter_partition[:2] == (ALTER_SENT, (0, 1))
    assert asking.controller.isr == (0,)  # not before the controller says so


def test_a_request_from_an_older_leader_epoch_is_fenced_and_the_leader_waits():
    cfg = kafka("2.8", bounds=Bounds(max_records=2, max_leader_epoch=2, max_crashes=1,
                                     max_reassignments=1, max_preferred_elections=1))
    trace = walk(cfg, ("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1)),
                 ("ControllerReassignReplicas", (1, 1)), ("ControllerPreferredElection", (1,)),
                 ("ControllerHandleAlterPartition", (0,)))
    assert trace.states[-1].controller.isr == (0, 1)  # FENCED_LEADER_EPOCH: nothing written
    assert trace.states[-1].replicas[0].alter_partition[0] == 4  # stuck until new metadata


# ---------------------------------------------------------------- KRaft

def test_kraft_3_6_shrinks_a_fenced_follower_without_bumping_the_leader_epoch():
    cfg = kafka("3.6", bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=1,
                                     max_session_expiries=1))
    trace = walk(cfg, ("ControllerFenceBroker", (1, 0)))
    after = trace.states[-1]
    assert after.controller.leader_epoch == 0 and after.controller.isr == (0,)  # KAFKA-15021
    assert after.replicas[0].partition_change == ((0,), 0, True)  # the record on its way
    applied = walk(cfg, ("ControllerFenceBroker", (1, 0)), ("BrokerApplyPartitionChange", (0,)))
    assert applied.states[-1].replicas[0].isr == (0,)
    before_3_6 = walk(kafka("3.5", bounds=cfg.bounds), ("ControllerFenceBroker", (1, 0))).states[-1]
    assert before_3_6.controller.leader_epoch == 1  # 3.3-3.5 bump it


def test_kraft_3_3_to_3_5_bumps_the_leader_epoch_on_an_alter_partition_shrink():
    shrink = ("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1)), ("ControllerHandleAlterPartition", (0,))
    for version in ("3.3", "3.5"):
        trace = walk(kafka(version), *shrink, ("LeaderHandleAlterPartitionResponse", (0,)),
                     ("BecomeLeaderOrFollower", (0, 1)))
        answered, ignored, applied = trace.states[-3:]
        assert answered.controller.leader_epoch == 1 and answered.controller.isr == (0,)
        assert (0, 1, 0, (0,)) in answered.leader_and_isr and (1, 1, 0, (0,)) in answered.leader_and_isr
        assert ignored.replicas[0].alter_partition[0] == 4  # the answer's epoch is not its own
        assert ignored.replicas[0].isr == (0, 1)
        assert applied.replicas[0].leader_epoch == 1 and applied.replicas[0].isr == (0,)
        assert applied.replicas[0].alter_partition == () and applied.replicas[0].high_watermark == 1
        said = describe(trace.steps[2].action, trace.states[2], answered)
        assert "accepted, ISR {0}, in a new leader epoch 1" in said
    kept = walk(kafka("3.6"), *shrink).states[-1]  # metadata.version 3.6-IV0: the partition epoch only
    assert kept.controller.leader_epoch == 0 and kept.replicas[0].partition_change == ((0,), 0, True)
    # an expansion never bumps it: the ISR of the record contains the old one
    grown = walk(kafka("3.5"), *shrink, ("LeaderHandleAlterPartitionResponse", (0,)),
                 ("BecomeLeaderOrFollower", (0, 1)), ("BecomeLeaderOrFollower", (1, 1)),
                 ("LeaderHandleFetch", (0, 1)), ("FollowerHandleFetchResponse", (1,)),
                 ("LeaderHandleFetch", (0, 1)), ("ControllerHandleAlterPartition", (0,))).states[-1]
    assert grown.controller.isr == (0, 1) and grown.controller.leader_epoch == 1


def test_kraft_before_3_9_never_elects_uncleanly():
    cfg = kafka("3.7", min_insync_replicas=1, unclean_leader_election_enable=True)
    assert run(cfg, "no-acked-loss").verdict("no-acked-loss") == HOLDS
    later = kafka("3.9", min_insync_replicas=1, unclean_leader_election_enable=True)
    assert run(later, "no-acked-loss").verdict("no-acked-loss") == VIOLATED


def test_kip_903_refuses_a_member_whose_broker_epoch_went_stale():
    # broker 1 catches up and is proposed for the ISR, then loses its disk and registers again
    bounds = Bounds(max_records=1, max_leader_epoch=2, max_crashes=1)
    steps = REPLICATE_R1 + (("LeaderShrinkIsr", (0, 1)), ("ControllerHandleAlterPartition", (0,)),
                            ("LeaderHandleAlterPartitionResponse", (0,)), ("LeaderHandleFetch", (0, 1)),
                            ("BrokerCrash", (1,)), ("ControllerHandleBrokerFailure", (1, 0)),
                            ("BrokerRestart", (1,)), ("ControllerHandleAlterPartition", (0,)))
    # min.insync.replicas=1: broker 1 is not in the ELR, so its restart writes no record and the
    # request's partition epoch stays current (at min ISR 2 the ELR record answers it
    # INVALID_UPDATE_VERSION first: the test after "the kernel's gaps" below)
    fixed = walk(kafka("4.1", crash_model="disk-loss", bounds=bounds, min_insync_replicas=1),
                 *steps).states[-1]
    assert fixed.replicas[1].log == ()
    assert fixed.replicas[0].alter_partition[0] == ALTER_REFUSED and fixed.controller.isr == (0,)
    broken = walk(kafka("4.1", crash_model="disk-loss", bounds=bounds, min_insync_replicas=1,
                        rule_changes=("-broker-epoch-in-fetch",)), *steps).states[-1]
    assert broken.controller.isr == (0, 1)  # KAFKA-14139: the empty broker is in the ISR


# ---------------------------------------------------------------- KIP-966

def test_a_replica_leaving_an_isr_below_min_isr_stays_eligible_and_is_elected():
    cfg = kafka("4.1", crash_model="power-loss")
    trace = walk(cfg, *REPLICATE_R1, ("LeaderShrinkIsr", (0, 1)),
                 ("ControllerHandleAlterPartition", (0,)), ("BrokerCrash", (0,)),
                 ("ControllerHandleBrokerFailure", (0, 1)))
    shrunk, elected = trace.states[5], trace.states[-1]
    assert shrunk.controller.isr == (0,) and shrunk.elr == (1,)
    assert elected.controller.leader == 1 and elected.controller.isr == (1,) and elected.elr == (0,)


def test_an_unclean_shutdown_takes_a_broker_out_of_isr_and_elr_on_registration():
    cfg = kafka("4.1", crash_model="power-loss")
    trace = walk(cfg, ("BrokerCrash", (1,)), ("ControllerHandleBrokerFailure", (1, 0)),
                 ("BrokerRestart", (1,)))
    assert trace.states[2].controller.isr == (0,)  # removed at failure already (ISR above 1 member)
    clean = walk(cfg.with_bounds(max_controlled_shutdowns=1),
                 ("ControllerHandleControlledShutdown", (1, 0)), ("BrokerShutdown", (1,)))
    assert clean.states[-1].replicas[1].clean_shutdown


def test_a_controlled_shutdown_of_the_last_isr_member_elects_from_the_elr():
    # ReplicationControlManager.handleBrokerInControlledShutdown builds the same
    # PartitionChangeBuilder as any removal: with the target ISR empty, a live ELR member wins
    cfg = kafka("4.1", bounds=Bounds(max_records=2, max_leader_epoch=2, max_crashes=1,
                                      max_controlled_shutdowns=1))
    trace = walk(cfg, *REPLICATE_R1, ("LeaderShrinkIsr", (0, 1)),
                 ("ControllerHandleAlterPartition", (0,)),
                 ("ControllerHandleControlledShutdown", (0, 1)))
    shrunk, moved = trace.states[5], trace.states[-1]
    assert shrunk.controller.isr == (0,) and shrunk.elr == (1,)
    assert moved.controller.leader == 1 and moved.controller.isr == (1,)
    assert 1 not in moved.elr


def test_without_elr_the_last_isr_member_stays_and_leads_again():
    cfg = kafka("3.7", crash_model="power-loss")
    trace = walk(cfg, *REPLICATE_R1, ("LeaderShrinkIsr", (0, 1)),
                 ("ControllerHandleAlterPartition", (0,)), ("BrokerCrash", (0,)),
                 ("ControllerHandleBrokerFailure", (0, -1)))
    assert trace.states[-1].controller.leader == -1 and trace.states[-1].controller.isr == (0,)


# ---------------------------------------------------------------- ZooKeeper controller failover

def test_the_new_controller_resends_the_state_and_a_zombie_request_is_refused():
    cfg = ModelConfig(kafka_version="2.2", replication_factor=2, symmetry=False,
                      bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=1,
                                    max_controller_failovers=1))
    trace = walk(cfg, ("ControllerFailover", ()), ("BecomeLeaderOrFollower", (1, 0)))
    failed_over, learnt = trace.states[1], trace.states[2]
    assert failed_over.controller_epoch == 1 and failed_over.zombie_controller == (0, 0, 0, (0, 1))
    assert learnt.replicas[1].controller_epoch_seen == 1  # same leader epoch: only the controller's
    assert learnt.replicas[1].leader_epoch == 0
    # a broker restarted since the failover has obeyed no controller; on 2.2 (KIP-380) its new
    # registration makes the zombie's broker epoch stale (STALE_BROKER_EPOCH, KafkaApis.scala at
    # 2.2.0), so the zombie's request cannot reach it (issue 29bi) ...
    restart = (("ControllerFailover", ()), ("BrokerCrash", (1,)),
               ("ControllerHandleBrokerFailure", (1, 0)), ("BrokerRestart", (1,)))
    with pytest.raises(KmcError, match="not enabled"):
        walk(cfg, *restart, ("ZombieControllerSendLeaderAndIsr", (1,)))
    # ... while on 2.1, without broker epochs, it takes the zombie's (older) view
    old = ModelConfig(kafka_version="2.1", replication_factor=2, symmetry=False, bounds=cfg.bounds)
    restarted = walk(old, *restart, ("ZombieControllerSendLeaderAndIsr", (1,)),
                     ("BrokerHandleZombieLeaderAndIsr", (1,))).states[-1]
    assert restarted.replicas[1].leader_epoch == 0 and restarted.replicas[1].leader == 0


def test_a_zombie_controller_loses_nothing_with_or_without_the_controller_epoch():
    # every partition write is a compare-and-set on its zkVersion, so the zombie can only send
    # its frozen view, whose leader epoch is never newer than what the new controller sends
    cfg = ModelConfig(kafka_version="2.2", replication_factor=2,
                      bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=1,
                                    max_controller_failovers=1))
    for changes in ((), ("-controller-epoch",)):
        result = run(ModelConfig(**{**cfg.__dict__, "rule_changes": changes}),
                     "no-acked-loss", "committed-consistency")
        assert {p.verdict for p in result.properties} == {HOLDS}


# ---------------------------------------------------------------- a leader's lagging metadata cache

STALE = Bounds(max_records=1, max_leader_epoch=2, max_crashes=1, max_session_expiries=1,
               max_stale_metadata_reads=1)
# broker 1 falls out of the ISR, the controller then fences it (missed heartbeats) while it runs
FENCED_OUT = (("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 1)),
              ("ControllerHandleAlterPartition", (0,)), ("LeaderHandleAlterPartitionResponse", (0,)),
              ("ControllerFenceBroker", (1, 0)), ("LeaderHandleFetch", (0, 1)),
              ("FollowerHandleFetchResponse", (1,)))


def test_a_leader_on_a_stale_cache_proposes_a_fenced_follower_and_the_controller_refuses():
    cfg = kafka("3.6", bounds=STALE)
    model = make_model(cfg)
    trace = walk(cfg, *FENCED_OUT)
    before = trace.states[-1]
    assert before.controller.isr == (0,) and 1 not in before.controller.live_brokers
    nexts = {a.name: after for a, after in model.successors(before)}
    assert not nexts["LeaderHandleFetch"].replicas[0].alter_partition  # fresh view: not eligible
    assert "LeaderHandleFetchOnStaleMetadata" in nexts
    stale = walk(cfg, *FENCED_OUT, ("LeaderHandleFetchOnStaleMetadata", (0, 1)),
                 ("ControllerHandleAlterPartition", (0,)))
    asking, answered = stale.states[-2], stale.states[-1]
    assert asking.replicas[0].alter_partition[0] == ALTER_SENT
    assert asking.replicas[0].alter_partition[1] == (0, 1)  # its maximal ISR counts broker 1
    assert answered.replicas[0].alter_partition[0] == ALTER_REFUSED  # INELIGIBLE_REPLICA
    assert answered.controller.isr == (0,)
    step = stale.actions()[-2] if callable(stale.actions) else stale.actions[-2]
    assert "the controller has fenced it" in describe(step, stale.states[-3], asking)
    # the bound is spent: no second stale read
    again = walk(cfg, *FENCED_OUT, ("LeaderHandleFetchOnStaleMetadata", (0, 1)),
                 ("ControllerHandleAlterPartition", (0,)), ("LeaderHandleAlterPartitionResponse", (0,)))
    assert "LeaderHandleFetchOnStaleMetadata" not in [a.name for a, _ in model.successors(again.states[-1])]


def test_without_the_bound_or_before_kip_841_there_is_no_stale_read():
    for version, bounds in (("3.6", replace(STALE, max_stale_metadata_reads=0)), ("3.2", STALE)):
        cfg = kafka(version, bounds=bounds)
        state = walk(cfg, *FENCED_OUT).states[-1]
        assert 1 not in state.controller.live_brokers
        assert all(a.name != "LeaderHandleFetchOnStaleMetadata" for a, _ in make_model(cfg).successors(state))


def test_at_3_6_with_min_isr_3_the_maximal_isr_turns_an_acknowledgement():
    # committed ISR {0, 1}, fenced broker 2 counted on a stale view: 3 >= min.insync.replicas
    bounds = Bounds(max_records=1, max_leader_epoch=2, max_crashes=0, max_session_expiries=1,
                    max_stale_metadata_reads=1)
    cfg = kafka("3.6", rf=3, bounds=bounds, min_insync_replicas=3)
    shrunk = (("ProduceRecord", (0,)), ("LeaderShrinkIsr", (0, 2)),
              ("ControllerHandleAlterPartition", (0,)), ("LeaderHandleAlterPartitionResponse", (0,)),
              ("ControllerFenceBroker", (2, 0)), ("LeaderHandleFetch", (0, 2)),
              ("FollowerHandleFetchResponse", (2,)))
    follower_1 = (("LeaderHandleFetch", (0, 1)), ("FollowerHandleFetchResponse", (1,)),
                  ("LeaderHandleFetch", (0, 1)))
    stale = walk(cfg, *shrunk, ("LeaderHandleFetchOnStaleMetadata", (0, 2)), *follower_1).states[-1]
    assert stale.replicas[0].isr == (0, 1) and stale.replicas[0].high_watermark == 1
    assert stale.acked == ((1, 0),)  # acknowledged: Errors.NONE
    fresh = walk(cfg, *shrunk, ("LeaderHandleFetch", (0, 2)), *follower_1).states[-1]
    assert fresh.replicas[0].high_watermark == 1 and fresh.acked == ()  # NOT_ENOUGH_REPLICAS_AFTER_APPEND


def test_the_stale_read_bound_on_rules_without_kip_841_is_one_line_and_exit_2():
    """Asked for a ZooKeeper-mode release the bound would change nothing: refused, not ignored.
    (Configurations derived for advise's release sweep keep it: only the user's release is
    checked here.)"""
    from click.testing import CliRunner

    from cli import cli

    r = CliRunner().invoke(cli, ["check", "-q", "--kafka-version", "2.8", "--max-stale-metadata-reads", "1"])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    assert "--max-stale-metadata-reads models a KRaft leader" in r.output


# ---------------------------------------------------------------- the kernel's gaps (issue 29ad)

def test_an_unclean_shutdown_of_an_elr_member_writes_a_record_that_fences_alter_partition():
    # ReplicationControlManager.handleBrokerShutdown (kafka-metadata 4.1.0): broker 2, in the ELR
    # only, registers after an unclean shutdown; the record that takes it out of the ELR bumps the
    # partition epoch, so the leader's shrink in flight is answered INVALID_UPDATE_VERSION
    cfg = kafka("4.1", rf=3, min_insync_replicas=3,
                bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=1))
    trace = walk(cfg, ("ProduceRecord", (0,)), ("BrokerCrash", (2,)),
                 ("ControllerHandleBrokerFailure", (2, 0)), ("BrokerApplyPartitionChange", (0,)),
                 ("LeaderShrinkIsr", (0, 1)), ("BrokerRestart", (2,)),
                 ("ControllerHandleAlterPartition", (0,)))
    sent, restarted, answered = trace.states[-3], trace.states[-2], trace.states[-1]
    assert sent.elr == (2,) and sent.replicas[0].alter_partition[:4] == (ALTER_SENT, (0,), 0, True)
    assert restarted.elr == () and restarted.controller.isr == (0, 1)
    assert restarted.replicas[0].alter_partition[3] is False  # its partition epoch is stale now
    assert restarted.replicas[0].partition_change == ((0, 1), 0, True)  # the record, to apply
    assert answered.replicas[0].alter_partition[0] == ALTER_STUCK  # INVALID_UPDATE_VERSION
    assert answered.controller.isr == (0, 1)
