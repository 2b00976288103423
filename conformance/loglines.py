"""The brokers' and the controller's log lines as typed events.

Each pattern is a message Kafka writes where a variable of kmc's state changes; the strings were
checked against the classes in the 4.0.2, 4.1.2 and 4.4.0 jars (``strings`` on
``kafka/cluster/Partition.class`` and friends) and against real runs of each
(docs/conformance.md). Levels are raised per logger in ``nodeconfig.LOGGERS``. Lines are matched
on their message text, not on logger names, because classes move between Scala and Java
packages across releases (``UnifiedLog`` already logs under ``org.apache.kafka...`` in 4.1).

Parser pitfall kept from Kafka's code: ``makeFollower`` assigns the new leader and epoch *before*
logging, so its "Previous leader ... previous leader epoch" print the **new** values;
``makeLeader`` logs before assigning, so there they are the broker's previous view. A
``makeLeader`` line with ``Previous leader Some(<itself>)`` and a previous epoch below the new
one minus one is a broker that kept leading across an epoch it never applied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}) (\w+) \[([^\]]*)\] (\S+) (.*)$")

PATTERNS: list[tuple[str, re.Pattern]] = [(k, re.compile(p)) for k, p in [
    # kmc BecomeLeaderOrFollower on the leader (Partition.makeLeader, state.change.logger)
    ("become-leader", r"Leader (?P<partition>\S+) with topic id \S+ starts at leader epoch (?P<leader_epoch>\d+) "
                      r"from offset (?P<start_offset>\d+) with partition epoch (?P<partition_epoch>\d+), "
                      r"high watermark (?P<high_watermark>\d+), ISR \[(?P<isr>[\d,]*)\].*Previous leader "
                      r"(?P<previous_leader>\S+) and previous leader epoch was (?P<previous_epoch>-?\d+)"),
    # kmc BecomeLeaderOrFollower on a follower (Partition.makeFollower)
    ("become-follower", r"Follower (?P<partition>\S+) starts at leader epoch (?P<leader_epoch>\d+) from offset "
                        r"(?P<start_offset>\d+) with partition epoch (?P<partition_epoch>\d+) and high watermark "
                        r"(?P<high_watermark>\d+)\. Current leader is (?P<leader>-?\d+)"),
    # kmc BrokerApplyPartitionChange (KAFKA-13790: same leader epoch)
    ("skip-become-leader", r"Skipped the become-leader state change for (?P<partition>\S+) .*"),
    # HW advance on the leader (Partition.maybeIncrementLeaderHW, DEBUG)
    ("high-watermark", r"\[Partition (?P<partition>\S+) broker=(?P<broker>\d+)\] High watermark updated from "
                       r"\(offset=(?P<old>\d+).* to \(offset=(?P<new>\d+)"),
    # kmc LeaderHandleFetch: the leader records a follower's LEO (DEBUG)
    ("remote-leo", r"\[Partition (?P<partition>\S+) broker=(?P<broker>\d+)\] Recorded replica (?P<follower>\d+) "
                   r"log end offset \(LEO\) position (?P<offset>\d+)"),
    ("isr-shrink", r"\[Partition (?P<partition>\S+) broker=(?P<broker>\d+)\] Shrinking ISR from (?P<old>[\d,]*) to (?P<new>[\d,]*)"),
    ("isr-updated", r"\[Partition (?P<partition>\S+) broker=(?P<broker>\d+)\] ISR updated to (?P<isr>[\d,]*)"),
    # kmc FollowerTruncate
    ("truncate", r"Truncating partition (?P<partition>\S+) with TruncationState\(offset=(?P<offset>\d+)"),
    ("truncate-hw", r"Truncating partition (?P<partition>\S+) with .* due to local high watermark"),
    # the controller's PartitionChangeRecord (ReplicationControlManager, DEBUG; UNCLEAN at INFO)
    ("partition-change", r"(?P<unclean>UNCLEAN )?partition change for (?P<partition>\S+) with topic ID \S+: (?P<diff>.*)"),
    ("fence", r"Fencing broker (?P<broker>\d+)"),
    ("unfenced", r"The broker has been unfenced"),
    ("controlled-shutdown", r"Beginning controlled shutdown"),
    ("metadata-delta", r"handleCommit: Generated a metadata delta between (?P<from>\d+) and (?P<to>\d+) from (?P<batches>\d+) batch"),
    ("started", r"Kafka Server started"),
]]

NOISY = {"metadata-delta", "remote-leo"}
"""Kinds written every few hundred milliseconds: kept in the stream only when they concern the
run's topic (remote LEO) or carry more than one batch (a broker catching up on metadata)."""


@dataclass
class LogEvent:
    ts: float
    node: int
    kind: str
    fields: dict
    line: str

    def as_dict(self) -> dict:
        return {"ts": self.ts, "source": f"node{self.node}", "kind": self.kind, **self.fields, "line": self.line}


def _ts(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def parse_line(node: int, raw: str, topic: str | None = None) -> LogEvent | None:
    m = LINE.match(raw)
    if not m:
        return None
    msg = m.group(5)
    for kind, rx in PATTERNS:
        hit = rx.search(msg)
        if not hit:
            continue
        fields = {k: v for k, v in hit.groupdict().items() if v is not None}
        if topic is not None and "partition" in fields and not fields["partition"].startswith(topic):
            return None
        if kind == "metadata-delta" and fields.get("batches") == "1":
            return None
        return LogEvent(_ts(m.group(1)), node, kind, fields, msg[:800])
    return None


def parse_file(node: int, path: Path, topic: str | None = None, offset: int = 0) -> list[LogEvent]:
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            text = f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return []
    return [ev for raw in text.splitlines() if (ev := parse_line(node, raw, topic))]
