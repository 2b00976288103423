"""When the follower-LEO run calls an acknowledged record lost (conformance/follower_leo.judge).

The runs kept from issue 23 were judged on one read of the new leader 0.4 s after the last
election; in 17 of 19 of them two of the three replicas' segment files still held r1 when the
cluster was killed. A record still in some replica's files can come back with an election, so
"lost" must need the record gone from the final read *and* from every replica."""

from __future__ import annotations

from conformance.follower_leo import judge

WARMUP = (0, b"r0-warmup")


def test_a_record_still_on_two_replicas_is_not_lost_even_if_the_leader_read_misses_it():
    # the state the issue-23 harness called "lost": leader 1 truncated, 0 and 2 not yet
    logs = {0: [WARMUP, (1, b"r1")], 1: [WARMUP], 2: [WARMUP, (1, b"r1")]}
    j = judge("r1", 1, [(0, "r0-warmup")], logs)
    assert j["lost"] is False
    assert j["replicas_holding"] == [0, 2]
    assert j["in_final_read"] is False


def test_a_record_gone_from_every_replica_and_overwritten_at_its_offset_is_lost():
    logs = {b: [WARMUP, (1, b"r3")] for b in (0, 1, 2)}
    j = judge("r1", 1, [(0, "r0-warmup"), (1, "r3")], logs)
    assert j["lost"] is True
    assert j["replicas_holding"] == []
    assert j["offset_now_holds"] == "r3"


def test_a_record_read_back_at_its_offset_is_not_lost():
    logs = {b: [WARMUP, (1, b"r1")] for b in (0, 1, 2)}
    j = judge("r1", 1, [(0, "r0-warmup"), (1, "r1")], logs)
    assert j["lost"] is False and j["in_final_read"] is True


def test_an_unacknowledged_record_is_never_lost():
    logs = {b: [WARMUP] for b in (0, 1, 2)}
    assert judge("r1", None, [(0, "r0-warmup")], logs)["lost"] is False


def test_a_record_at_another_offset_on_a_replica_still_counts_as_held():
    # a value is unique per run: anywhere in a replica's log means the record survives there
    logs = {0: [WARMUP, (1, b"r3"), (2, b"r1")], 1: [WARMUP, (1, b"r3")], 2: [WARMUP, (1, b"r3")]}
    j = judge("r1", 1, [(0, "r0-warmup"), (1, "r3")], logs)
    assert j["lost"] is False and j["replicas_holding"] == [0]
