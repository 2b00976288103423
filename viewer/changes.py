"""What a step changed, field by field, in Kafka words: the highlighting of every viewer.

``changes(before, after)`` lists ``Change(key, text)``; ``key`` names a field the viewers draw
(``replica.1.hw``, ``controller.isr``, ``acked`` ...) so the terminal and the HTML page highlight
the same things, and ``text`` says the change ("broker 1 HW 0 -> 1").
"""

from __future__ import annotations

from typing import NamedTuple

from model.constants import NO_LEADER
from model.describe import describe


class Change(NamedTuple):
    key: str
    text: str


def describe_step(action, before, after) -> str:
    """``describe`` (the step in Kafka words), or a plain sentence if the states do not fit the
    action: a trace file may have been edited, or written by another tool or model version, and
    a viewer must still show it (``kmc trace replay`` says whether it is a real behaviour)."""
    try:
        return describe(action, before, after)
    except Exception:  # any inconsistency of hand-made states; the viewer shows them as they are
        return f"{action} (its states do not fit the action, so kmc cannot say in words what it did)"


def fmt_set(items) -> str:
    return "{" + ",".join(str(x) for x in items) + "}"


def fmt_records(records) -> str:
    return ", ".join(f"r{rid}" for rid, _ in records) or "none"


def replica_role(b: int, r) -> str:
    """A replica's role as this broker sees it: leader, follower of whom, waiting, DOWN."""
    if not r.alive:
        return "DOWN"
    if r.leader == b:
        return f"leader e{r.leader_epoch}"
    if r.leader == NO_LEADER:
        return f"no leader e{r.leader_epoch}" if r.leader_epoch >= 0 else "waiting for LeaderAndIsr"
    return f"follower of {r.leader} e{r.leader_epoch}"


def fetch_in_flight(r) -> str:
    """The fetch response on its way to a follower, in words ('' if none)."""
    if not r.fetch_response:
        return ""
    leader, epoch, offset, records, hw, leo = r.fetch_response
    if offset > leo:
        return f"OFFSET_OUT_OF_RANGE from {leader} (e{epoch}, its LEO {leo})"
    return f"from {leader} (e{epoch}): {fmt_records(records)} at {offset}, HW {hw}"


def leader_and_isr_text(req) -> str:
    b, epoch, leader, isr = req
    who = "no leader" if leader == NO_LEADER else f"leader {leader}"
    return f"to broker {b}: epoch {epoch}, {who}, ISR {fmt_set(isr)}"


def acked_text(acked) -> str:
    return ", ".join(f"r{rid}@{off}" for rid, off in acked) or "none"


def pending_text(pending) -> str:
    return ", ".join(f"r{rid}@{off} (leader {l})" for l, rid, off in pending) or "none"


def _log_change(b: int, old, new) -> str:
    common = 0
    while common < min(len(old), len(new)) and old[common] == new[common]:
        common += 1
    parts = []
    if common < len(old):
        parts.append(f"drops {fmt_records(old[common:])} (truncated to offset {common})")
    if common < len(new):
        parts.append(f"appends {fmt_records(new[common:])} at offset {common}")
    return f"broker {b} log " + " and ".join(parts)


def changes(before, after) -> list[Change]:
    """Every field the viewers draw that differs between ``before`` and ``after``."""
    if before is None:
        return []
    out: list[Change] = []
    for b, (r0, r1) in enumerate(zip(before.replicas, after.replicas)):
        k = f"replica.{b}."
        if replica_role(b, r0) != replica_role(b, r1):
            out.append(Change(k + "role", f"broker {b}: {replica_role(b, r0)} -> {replica_role(b, r1)}"))
        if r0.log != r1.log:
            out.append(Change(k + "log", _log_change(b, r0.log, r1.log)))
        if len(r0.log) != len(r1.log):
            out.append(Change(k + "leo", f"broker {b} LEO {len(r0.log)} -> {len(r1.log)}"))
        if r0.high_watermark != r1.high_watermark:
            out.append(Change(k + "hw", f"broker {b} HW {r0.high_watermark} -> {r1.high_watermark}"))
        if r0.isr != r1.isr:
            out.append(Change(k + "isr", f"broker {b} ISR {fmt_set(r0.isr)} -> {fmt_set(r1.isr)}"))
        if r0.remote_log_end_offsets != r1.remote_log_end_offsets and r1.leader == b:
            out.append(Change(k + "remote", f"broker {b} remote LEOs {list(r0.remote_log_end_offsets)} -> {list(r1.remote_log_end_offsets)}"))
        if r0.truncating != r1.truncating:
            out.append(Change(k + "truncating", f"broker {b} {'must truncate' if r1.truncating else 'done truncating'}"))
        if r0.fetch_response != r1.fetch_response:
            text = fetch_in_flight(r1)
            out.append(Change(k + "fetch", f"fetch response to {b}: " + (text or "none in flight any more")))
        if r0.flushed_offset != r1.flushed_offset:
            out.append(Change(k + "flushed", f"broker {b} flushed to {r1.flushed_offset}"))
    c0, c1 = before.controller, after.controller
    if c0.leader != c1.leader:
        out.append(Change("controller.leader", f"controller leader {c0.leader} -> {c1.leader}"))
    if c0.leader_epoch != c1.leader_epoch:
        out.append(Change("controller.epoch", f"controller epoch {c0.leader_epoch} -> {c1.leader_epoch}"))
    if c0.isr != c1.isr:
        out.append(Change("controller.isr", f"controller ISR {fmt_set(c0.isr)} -> {fmt_set(c1.isr)}"))
    if c0.live_brokers != c1.live_brokers:
        out.append(Change("controller.live", f"controller live brokers {fmt_set(c0.live_brokers)} -> {fmt_set(c1.live_brokers)}"))
    if before.leader_and_isr != after.leader_and_isr:
        sent = [q for q in after.leader_and_isr if q not in before.leader_and_isr]
        gone = [q for q in before.leader_and_isr if q not in after.leader_and_isr]
        parts = [f"sent {leader_and_isr_text(q)}" for q in sent]
        parts += [f"delivered or dropped {leader_and_isr_text(q)}" for q in gone]
        out.append(Change("leader_and_isr", "LeaderAndIsr " + "; ".join(parts)))
    if before.pending_acks != after.pending_acks:
        out.append(Change("pending_acks", f"waiting acks=all requests: {pending_text(after.pending_acks)}"))
    if before.acked != after.acked:
        out.append(Change("acked", f"acknowledged: {acked_text(before.acked)} -> {acked_text(after.acked)}"))
    if before.consumer_visible != after.consumer_visible:
        out.append(Change("consumer_visible", "consumer-visible records: " + (", ".join(f"r{x}" for x in after.consumer_visible) or "none")))
    return out
