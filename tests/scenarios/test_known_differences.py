"""The known differences from Kafka (docs/kraft.md, "Known differences from Kafka"), as strict
expected failures: each test asserts what Kafka does, and fails today because kmc differs. When a
change fixes one, its test passes, which ``strict=True`` turns into a failure until the ``xfail``
mark (and the paragraph in docs/kraft.md) is removed, so a fixed or moved difference is noticed.
"""



from model import make_model
from model.config import Bounds, ModelConfig


def enabled(model, state):
    return {str(a) for a, _ in model.successors(state)}


def test_a_failure_free_election_moves_leadership_only_to_the_preferred_replica():
    # docs/kraft.md known difference 1, fixed by issue 25 (was a strict xfail)
    """Kafka: one election (auto-rebalance, ElectLeaders(PREFERRED)) moves leadership only to the
    preferred replica, the first of the assignment (PartitionChangeBuilder.electPreferredLeader).
    In the initial state broker 0, the first of the assignment, already leads, so no failure-free
    election is enabled."""
    model = make_model(ModelConfig(kafka_version="4.1", replication_factor=3,
                                   bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=1)))
    moves = {a for a in enabled(model, model.init_states()[0]) if a.startswith("ControllerElectLeader")}
    assert moves == set()


def test_an_unclean_shutdown_restart_that_empties_the_elr_elects_the_last_known_leader():
    # docs/kraft.md known difference 5, fixed by issue 29ae (was a strict xfail)
    """Kafka 4.1: the record that takes a broker back from an unclean shutdown out of the ELR is
    built by PartitionChangeBuilder, which also elects (ReplicationControlManager.
    generateLeaderAndIsrUpdates -> build -> tryElection; kafka-metadata 4.1.0-sources.jar). Here
    broker 0, the last known leader, is back and unfenced while broker 1 is still in the ELR, so
    nobody is elected; broker 1's unclean-shutdown restart empties the ELR and
    canElectLastKnownLeader elects broker 0 (acceptable: active, not the broker being handled):
    an unclean election, so the ISR is [0], the ELR and last known leader are cleared and the
    leader is RECOVERING (KIP-704), in the next leader epoch. Broker 1 registers after it."""
    from tests.scenarios.test_kraft import walk

    cfg = ModelConfig(kafka_version="4.1", replication_factor=2, symmetry=False,
                      bounds=Bounds(max_records=1, max_leader_epoch=3, max_crashes=2))
    trace = walk(cfg, ("BrokerCrash", (1,)), ("ControllerHandleBrokerFailure", (1, 0)),
                 ("BrokerCrash", (0,)), ("ControllerHandleBrokerFailure", (0, -1)),
                 ("BrokerRestart", (0,)), ("BrokerRestart", (1,)))
    back = trace.states[-2]
    assert back.controller.leader == -1 and back.elr == (1,) and back.last_known_elr == (0,)
    assert 0 in back.controller.live_brokers
    after = trace.states[-1]
    assert after.controller.leader == 0  # kmc before issue 29ae: -1
    assert after.controller.leader_epoch == back.controller.leader_epoch + 1
    assert after.controller.isr == (0,) and after.elr == () and after.last_known_elr == ()
    assert after.leader_recovering
    assert 1 in after.controller.live_brokers


def test_the_record_elects_nobody_while_the_last_known_leader_is_fenced():
    """The same record with the last known leader down (its failure handled): since KAFKA-19522
    (rule last-known-leader-check, 4.1) canElectLastKnownLeader asks isAcceptableLeader, which
    refuses a fenced broker, so the partition stays leaderless; 4.0's builder (the rule off)
    elects the fenced broker 0 (``javap -c`` of 4.0.2's PartitionChangeBuilder, docs/kraft.md
    known difference 3)."""
    from tests.scenarios.test_kraft import walk

    steps = (("BrokerCrash", (1,)), ("ControllerHandleBrokerFailure", (1, 0)),
             ("BrokerCrash", (0,)), ("ControllerHandleBrokerFailure", (0, -1)),
             ("BrokerRestart", (0,)), ("BrokerCrash", (0,)),
             ("ControllerHandleBrokerFailure", (0, -1)), ("BrokerRestart", (1,)))
    bounds = Bounds(max_records=1, max_leader_epoch=3, max_crashes=3)
    checked = walk(ModelConfig(kafka_version="4.1", replication_factor=2, symmetry=False,
                               bounds=bounds), *steps).states[-1]
    assert checked.controller.leader == -1 and checked.elr == () and checked.last_known_elr == (0,)
    unchecked = walk(ModelConfig(kafka_version="4.1", replication_factor=2, symmetry=False,
                                 rule_changes=("-last-known-leader-check",), bounds=bounds),
                     *steps).states[-1]
    assert unchecked.controller.leader == 0 and 0 not in unchecked.controller.live_brokers
