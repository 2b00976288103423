"""The known differences from Kafka (docs/kraft.md, "Known differences from Kafka"), as strict
expected failures: each test asserts what Kafka does, and fails today because kmc differs. When a
change fixes one, its test passes, which ``strict=True`` turns into a failure until the ``xfail``
mark (and the paragraph in docs/kraft.md) is removed, so a fixed or moved difference is noticed.
"""


import pytest

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


@pytest.mark.xfail(strict=True, reason="docs/kraft.md known difference 5 (issue 29ad)")
def test_an_unclean_shutdown_restart_that_empties_the_elr_elects_the_last_known_leader():
    """Kafka 4.1: the record that takes a broker back from an unclean shutdown out of the ELR is
    built by PartitionChangeBuilder, which also elects (ReplicationControlManager.
    generateLeaderAndIsrUpdates -> build -> tryElection; kafka-metadata 4.1.0-sources.jar). Here
    broker 0, the last known leader, is back and unfenced while broker 1 is still in the ELR, so
    nobody is elected; broker 1's unclean-shutdown restart empties the ELR and
    canElectLastKnownLeader elects broker 0 (acceptable: active, not the broker being handled).
    kmc elects only at a broker's own registration, and only that broker, so the partition stays
    leaderless."""
    from tests.scenarios.test_kraft import walk

    cfg = ModelConfig(kafka_version="4.1", replication_factor=2, symmetry=False,
                      bounds=Bounds(max_records=1, max_leader_epoch=3, max_crashes=2))
    trace = walk(cfg, ("BrokerCrash", (1,)), ("ControllerHandleBrokerFailure", (1, 0)),
                 ("BrokerCrash", (0,)), ("ControllerHandleBrokerFailure", (0, -1)),
                 ("BrokerRestart", (0,)), ("BrokerRestart", (1,)))
    back = trace.states[-2]
    assert back.controller.leader == -1 and back.elr == (1,) and back.last_known_elr == (0,)
    assert 0 in back.controller.live_brokers
    assert trace.states[-1].controller.leader == 0  # Kafka; kmc: -1
