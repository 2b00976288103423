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
