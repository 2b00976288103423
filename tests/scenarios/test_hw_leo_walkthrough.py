"""The seed's HW/LEO walkthrough (reference/seeds/hw-leo-update-walkthrough.txt), replayed.

One partition, replication factor 2, one record, two fetch rounds: after each phase, the leader's
LEO and HW, the follower's remote LEO on the leader, and the follower's LEO and HW must be the
values of the seed's tables (copied as data into tests/data/hw-leo-walkthrough.json).
"""

import json
from pathlib import Path

import pytest

from model import Action, make_model
from tests.conftest import config

PHASES = json.loads((Path(__file__).parent.parent / "data" / "hw-leo-walkthrough.json").read_text())["phases"]

LEADER, FOLLOWER = 0, 1
STEPS = [
    Action("ProduceRecord", (LEADER,)),
    Action("LeaderHandleFetch", (LEADER, FOLLOWER)),  # fetch round 1, leader side
    Action("FollowerHandleFetchResponse", (FOLLOWER,)),  # fetch round 1, follower side
    Action("LeaderHandleFetch", (LEADER, FOLLOWER)),  # fetch round 2, leader side
    Action("FollowerHandleFetchResponse", (FOLLOWER,)),  # fetch round 2, follower side
]


def observed(state) -> dict:
    leader, follower = state.replicas[LEADER], state.replicas[FOLLOWER]
    return {
        "leader_leo": leader.log_end_offset,
        "remote_leo": leader.remote_log_end_offsets[FOLLOWER],
        "leader_hw": leader.high_watermark,
        "follower_leo": follower.log_end_offset,
        "follower_hw": follower.high_watermark,
    }


@pytest.mark.parametrize("protocol", ["hw-truncation", "kip-101", "kip-279", "kip-320"])
@pytest.mark.parametrize("acks", ["1", "all"])
def test_every_value_of_the_seed_tables(protocol, acks):
    model = make_model(config(protocol=protocol, acks=acks, min_isr=1))
    state = model.init_states()[0]
    expected = [{k: v for k, v in phase.items() if k != "after"} for phase in PHASES]
    got = [observed(state)]
    for act in STEPS:
        state = model.next_state(state, act)
        assert state is not None, f"{act} is not enabled"
        got.append(observed(state))
    assert got == expected


def test_the_record_is_acknowledged_with_acks_all_only_when_the_hw_passes_it():
    model = make_model(config(acks="all", min_isr=2))
    state = model.init_states()[0]
    acked_after = []
    for act in STEPS:
        state = model.next_state(state, act)
        acked_after.append(bool(state.acked))
    # acknowledged in fetch round 2 on the leader side, when the leader HW moves to 1
    assert acked_after == [False, False, False, True, True]


def test_the_record_becomes_visible_to_consumers_when_the_leader_hw_passes_it():
    model = make_model(config())
    state = model.init_states()[0]
    for act in STEPS[:3]:
        state = model.next_state(state, act)
    assert state.consumer_visible == ()
    state = model.next_state(state, STEPS[3])
    assert state.consumer_visible == (1,)
