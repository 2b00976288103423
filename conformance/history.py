"""A real client's history and a Jepsen-style check of it.

The producer is kafka-python's ``KafkaProducer`` (idempotent with acks=all, as Kafka's own
default; plain with acks=1 and acks=0), one record per request (``linger_ms=0``), each record a
distinct value ``r<n>`` so that kmc's record ids are the values. Every send, acknowledgement
(with the offset the leader gave) and failure goes into the history with a wall-clock time; a
consumer (``assign``, no group) reads the partition back, as far as the high watermark, at
chosen moments and at the end.

The check, independent of kmc (what Jepsen's Kafka workload checks on client histories):

* **lost**: an acknowledged ``(value, offset)`` that the final read does not return at that
  offset (kmc's ``no-acked-loss``);
* **read then lost**: a ``(value, offset)`` some read returned that the final read does not
  (kmc's ``no-read-loss``: consumers read below the high watermark only);
* **inconsistent offsets**: two reads, or an ack and a read, that put different values at one
  offset.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from kafka import KafkaConsumer, KafkaProducer, TopicPartition


@dataclass
class History:
    events: list[dict] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, kind: str, **data) -> dict:
        ev = {"ts": time.time(), "source": "client", "kind": kind, **data}
        with self._lock:
            self.events.append(ev)
        return ev

    def acked(self) -> dict[str, int]:
        return {e["value"]: e["offset"] for e in self.events if e["kind"] == "ack"}

    def sent(self) -> list[str]:
        return [e["value"] for e in self.events if e["kind"] == "send"]

    def reads(self) -> list[dict]:
        return [e for e in self.events if e["kind"] == "read"]


class Producer:
    """Sends ``r1, r2, ...`` and records each outcome in the history."""

    def __init__(self, bootstrap: str, topic: str, history: History, *, acks: str = "all",
                 request_timeout_ms: int = 30000, delivery_timeout_ms: int | None = None) -> None:
        acks_value = {"all": "all", "-1": "all", "1": 1, "0": 0}[str(acks)]
        self.topic = topic
        self.history = history
        self.acks = str(acks)
        self.count = 0
        self.futures = []
        self._producer = KafkaProducer(
            bootstrap_servers=bootstrap, acks=acks_value, enable_idempotence=(acks_value == "all"),
            linger_ms=0, request_timeout_ms=request_timeout_ms,
            delivery_timeout_ms=delivery_timeout_ms or (request_timeout_ms + 10000),
            max_block_ms=30000, retry_backoff_ms=200, client_id="kmc-conformance-producer")

    def send(self, value: str | None = None):
        self.count += 1
        value = value or f"r{self.count}"
        self.history.add("send", value=value, acks=self.acks)
        fut = self._producer.send(self.topic, value=value.encode(), partition=0)
        fut.add_callback(lambda md, v=value: self.history.add("ack", value=v, offset=md.offset))
        fut.add_errback(lambda exc, v=value: self.history.add("fail", value=v, error=type(exc).__name__))
        self.futures.append((value, fut))
        return fut

    def wait(self, timeout: float) -> None:
        """Wait (bounded) for every send to be acknowledged or failed."""
        deadline = time.monotonic() + timeout
        for _value, fut in self.futures:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                fut.get(timeout=remaining)
            except Exception:  # noqa: BLE001 - the errback recorded it
                pass

    def close(self) -> None:
        """Close the client, and stop its network thread even when the cluster is gone.

        kafka-python's ``close`` flushes first and, when the flush times out, raises before it
        stops its network thread; a thread left running loops at full speed once the brokers are
        stopped (seen in the test suite: one core for 20 minutes). So on any failure the thread
        is stopped by force, as ``close`` itself does after its own timeout."""
        try:
            self._producer.close(timeout=2)
        except Exception:  # noqa: BLE001 - stopped by force below
            sender = getattr(self._producer, "_sender", None)
            if sender is not None and sender.is_alive():
                sender.force_close()
                sender.join(2)


def read_partition(bootstrap: str, topic: str, history: History | None = None, *,
                   timeout: float = 20.0, label: str = "read") -> list[tuple[int, str]]:
    """Read partition 0 from offset 0 up to its end offset (the high watermark), once; record
    the read in the history. Returns ``[(offset, value), ...]``."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                             auto_offset_reset="earliest", consumer_timeout_ms=1000,
                             request_timeout_ms=int(timeout * 1000) + 5000, client_id="kmc-conformance-reader")
    tp = TopicPartition(topic, 0)
    out: list[tuple[int, str]] = []
    try:
        consumer.assign([tp])
        end = consumer.end_offsets([tp])[tp]
        consumer.seek(tp, 0)
        deadline = time.monotonic() + timeout
        while consumer.position(tp) < end and time.monotonic() < deadline:
            for msgs in consumer.poll(timeout_ms=500).values():
                for m in msgs:
                    out.append((m.offset, m.value.decode("utf-8", "replace") if m.value is not None else None))
    finally:
        consumer.close()
    if history is not None:
        history.add("read", label=label, end_offset=end, records=[[o, v] for o, v in out])
    return out


@dataclass
class Verdict:
    lost: list[dict]
    read_then_lost: list[dict]
    inconsistent: list[dict]
    acked: int
    sent: int
    final_records: int

    @property
    def ok(self) -> bool:
        return not (self.lost or self.read_then_lost or self.inconsistent)

    def summary(self) -> str:
        if self.ok:
            return f"no loss: {self.acked} of {self.sent} sends acknowledged, all read back"
        parts = []
        if self.lost:
            parts.append("lost " + ", ".join(f"{l['value']}@{l['offset']}" for l in self.lost[:5])
                         + (f" (+{len(self.lost) - 5})" if len(self.lost) > 5 else ""))
        if self.read_then_lost:
            parts.append(f"{len(self.read_then_lost)} read then lost")
        if self.inconsistent:
            parts.append(f"{len(self.inconsistent)} inconsistent offsets")
        return "; ".join(parts)

    def as_dict(self) -> dict:
        return {"ok": self.ok, "lost": self.lost, "read_then_lost": self.read_then_lost,
                "inconsistent": self.inconsistent, "acked": self.acked, "sent": self.sent,
                "final_records": self.final_records, "summary": self.summary()}


def check(history: History, final: list[tuple[int, str]]) -> Verdict:
    """Judge a history against the final read (see the module docstring)."""
    at = {o: v for o, v in final}
    lost = [{"value": v, "offset": o, "found": at.get(o)} for v, o in sorted(history.acked().items(), key=lambda x: x[1])
            if at.get(o) != v]
    seen: dict[int, str] = {}
    inconsistent, read_then_lost = [], []
    for v, o in history.acked().items():
        seen.setdefault(o, v)
    for r in history.reads():
        for o, v in r["records"]:
            if o in seen and seen[o] != v:
                inconsistent.append({"offset": o, "values": [seen[o], v]})
            seen.setdefault(o, v)
            if at.get(o) != v and r.get("label") != "final":
                read_then_lost.append({"value": v, "offset": o, "found": at.get(o)})
    dedup = {(d["value"], d["offset"]): d for d in read_then_lost}
    return Verdict(lost, list(dedup.values()), inconsistent, len(history.acked()), len(history.sent()), len(final))
