"""The observers without a broker: the segment-file reader on batches encoded here by Kafka's
record format (DefaultRecordBatch v2), the log-line parser on lines copied from real 4.1.2 runs,
and the Jepsen-style history check on small histories."""

from __future__ import annotations

import struct

from conformance import loglines, segments
from conformance.history import History, check


def _zigzag(n: int) -> bytes:
    v = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _record(offset_delta: int, value: bytes) -> bytes:
    body = (b"\x00" + _zigzag(0) + _zigzag(offset_delta) + _zigzag(-1) + _zigzag(len(value)) + value + _zigzag(0))
    return _zigzag(len(body)) + body


def _batch(base: int, epoch: int, values: list[bytes]) -> bytes:
    records = b"".join(_record(i, v) for i, v in enumerate(values))
    # header after BaseOffset and Length: epoch, magic, crc, attributes, lastOffsetDelta, two
    # timestamps, producer id/epoch, base sequence, record count
    rest = struct.pack(">ibIhiqqqhii", epoch, 2, 0, 0, len(values) - 1, 0, 0, -1, -1, -1, len(values)) + records
    return struct.pack(">qi", base, len(rest)) + rest


def test_segment_reader_gives_offsets_epochs_values_and_skips_a_torn_batch(tmp_path):
    pdir = tmp_path / "t-0"
    pdir.mkdir()
    data = _batch(0, 0, [b"r1"]) + _batch(1, 2, [b"r2", b"r3"])
    torn = _batch(3, 2, [b"r4"])[:-3]                  # a batch still being written
    (pdir / "00000000000000000000.log").write_bytes(data + torn)
    log = segments.read_log(pdir)
    assert [(r.offset, r.leader_epoch, r.value) for r in log] == [(0, 0, b"r1"), (1, 2, b"r2"), (2, 2, b"r3")]
    assert segments.log_end_offset(pdir) == 3
    (pdir / "leader-epoch-checkpoint").write_text("0\n2\n0 0\n2 1\n")
    assert segments.epoch_cache(pdir) == [(0, 0), (2, 1)]


def test_truncate_to_cuts_whole_batches_and_drops_indexes(tmp_path):
    pdir = tmp_path / "t-0"
    pdir.mkdir()
    seg = pdir / "00000000000000000000.log"
    seg.write_bytes(_batch(0, 0, [b"r1"]) + _batch(1, 0, [b"r2"]) + _batch(2, 1, [b"r3"]))
    (pdir / "00000000000000000000.index").write_bytes(b"x")
    assert segments.truncate_to(pdir, 2) > 0
    assert [r.value for r in segments.read_log(pdir)] == [b"r1", b"r2"]
    assert not (pdir / "00000000000000000000.index").exists()


REAL_LINES = [
    (0, "2026-11-26T15:29:16.045 INFO [kafka-0-metadata-loader-event-handler] state.change.logger [Broker id=0] "
        "Leader kmc-leo-0 with topic id Some(xNqXPe01TZKhQfUHnxXvzw) starts at leader epoch 2 from offset 2 with "
        "partition epoch 4, high watermark 1, ISR [0,1,2], adding replicas [] and removing replicas [] . Previous "
        "leader Some(0) and previous leader epoch was 0."),
    (1, "2026-11-26T15:29:14.673 INFO [kafka-1-metadata-loader-event-handler] state.change.logger [Broker id=1] "
        "Follower kmc-leo-0 starts at leader epoch 1 from offset 2 with partition epoch 2 and high watermark 1. "
        "Current leader is 2. Previous leader Some(2) and previous leader epoch was 1."),
    (0, "2026-11-26T15:29:17.996 DEBUG [data-plane-kafka-request-handler-0] kafka.cluster.Partition [Partition "
        "kmc-leo-0 broker=0] High watermark updated from (offset=1, segment=[0:77]) to (offset=2, segment=[0:147])"),
    (100, "2026-11-26T15:29:15.906 DEBUG [quorum-controller-100-event-handler] org.apache.kafka.controller."
          "ReplicationControlManager [QuorumController id=100] partition change for kmc-leo-0 with topic ID "
          "xNqXPe01TZKhQfUHnxXvzw: leader: 2 -> 0, leaderEpoch: 1 -> 2, partitionEpoch: 3 -> 4"),
    (1, "2026-11-26T15:29:15.769 INFO [ReplicaFetcherThread-0-2] kafka.server.ReplicaFetcherThread [ReplicaFetcher "
        "replicaId=1, leaderId=2, fetcherId=0] Truncating partition kmc-leo-0 with TruncationState(offset=1, "
        "completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0, "
        "endOffset=1)"),
    (0, "2026-11-26T15:29:16.043 DEBUG [kafka-0-metadata-loader-event-handler] org.apache.kafka.image.loader."
        "MetadataBatchLoader [MetadataLoader id=0] handleCommit: Generated a metadata delta between 34 and 42 from "
        "7 batch(es) in 94 us."),
]


def test_log_lines_of_a_real_run_become_typed_events():
    evs = [loglines.parse_line(node, line, "kmc-leo") for node, line in REAL_LINES]
    assert [e.kind for e in evs] == ["become-leader", "become-follower", "high-watermark", "partition-change",
                                     "truncate", "metadata-delta"]
    leader = evs[0].fields
    assert (leader["leader_epoch"], leader["previous_leader"], leader["previous_epoch"]) == ("2", "Some(0)", "0")
    assert evs[2].fields["old"] == "1" and evs[2].fields["new"] == "2"
    assert "leader: 2 -> 0" in evs[3].fields["diff"]
    assert evs[5].fields["batches"] == "7"
    assert loglines.parse_line(0, REAL_LINES[0][1], "other-topic") is None


def test_history_check_finds_lost_read_then_lost_and_inconsistent():
    h = History()
    h.add("send", value="r1")
    h.add("ack", value="r1", offset=0)
    h.add("send", value="r2")
    h.add("ack", value="r2", offset=1)
    h.add("read", label="during", records=[[0, "r1"], [1, "r2"], [2, "r3"]])
    v = check(h, [(0, "r1"), (1, "rX")])
    assert [(l["value"], l["offset"]) for l in v.lost] == [("r2", 1)]
    assert {(d["value"], d["offset"]) for d in v.read_then_lost} == {("r2", 1), ("r3", 2)}
    assert not v.ok and "lost r2@1" in v.summary()
    h2 = History()
    h2.add("send", value="r1")
    h2.add("ack", value="r1", offset=0)
    assert check(h2, [(0, "r1")]).ok
