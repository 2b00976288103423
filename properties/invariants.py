"""kmc's built-in properties of a partition's replication state.

"True leader" below is the controller's leader once it has taken up the controller's epoch and is
alive (``ClusterState.true_leader``): the broker clients would find and whose log *is* the
partition. A zombie that still believes it leads does not count.
"""

from __future__ import annotations

from model.constants import NO_LEADER
from properties.registry import invariant, reachable


def _why_acked_loss(state) -> str:
    leader = state.true_leader()
    log = state.replicas[leader].log
    for rid, offset in state.acked:
        if offset >= len(log):
            return f"r{rid} was acknowledged at offset {offset}, but leader {leader}'s log ends at {len(log)}"
        if log[offset][0] != rid:
            return f"r{rid} was acknowledged at offset {offset}, but leader {leader} has r{log[offset][0]} there"
    return ""


def _why_committed(state) -> str:
    leader = state.true_leader()
    committed = state.replicas[leader].log[: state.replicas[leader].high_watermark]
    for b in state.controller.isr:
        log = state.replicas[b].log
        for offset, rec in enumerate(committed):
            if offset >= len(log) or log[offset] != rec:
                return (f"r{rec[0]} is below leader {leader}'s HW at offset {offset}, but ISR member "
                        f"{b} " + ("does not have it" if offset >= len(log) else f"has r{log[offset][0]} there"))
    return ""


def _why_log_matching(state) -> str:
    logs = [r.log for r in state.replicas]
    for i in range(len(logs)):
        for j in range(i + 1, len(logs)):
            a, b = logs[i], logs[j]
            for offset in range(min(len(a), len(b)) - 1, -1, -1):
                if a[offset][1] == b[offset][1]:
                    for o in range(offset + 1):
                        if a[o] != b[o]:
                            return (f"brokers {i} and {j} both hold epoch {a[offset][1]} at offset "
                                    f"{offset}, but differ at offset {o} (r{a[o][0]} vs r{b[o][0]})")
                    break
    return ""


def _why_visibility(state) -> str:
    leader = state.true_leader()
    log = state.replicas[leader].log
    for offset, rid in enumerate(state.consumer_visible):
        if offset >= len(log) or log[offset][0] != rid:
            return (f"consumers could read r{rid} at offset {offset}, but leader {leader} "
                    + ("has no record there" if offset >= len(log) else f"has r{log[offset][0]} there"))
    return ""


@invariant(
    "no-acked-loss",
    "every acknowledged record is in the true leader's log, at the offset it was acknowledged at",
    explain=_why_acked_loss,
    compiled=True,
)
def no_acked_loss(state) -> bool:
    leader = state.true_leader()
    if leader == NO_LEADER or not state.acked:
        return True
    log = state.replicas[leader].log
    return all(offset < len(log) and log[offset][0] == rid for rid, offset in state.acked)


@invariant(
    "committed-consistency",
    "every record below the true leader's HW is in the log of every ISR member at the same "
    "offset (StrongIsr in Gustafson's TLA+ spec)",
    explain=_why_committed,
    compiled=True,
    stronger="Kafka does not promise it: an ISR member may lack a committed record for a while "
             "(with no fsync per write, Kafka's default flush, a power loss takes it; the member "
             "refetches it when it restarts); what clients are promised is no-acked-loss and "
             "monotonic-visibility",
)
def committed_consistency(state) -> bool:
    leader = state.true_leader()
    if leader == NO_LEADER:
        return True
    lr = state.replicas[leader]
    committed = lr.log[: lr.high_watermark]
    if not committed:
        return True
    for b in state.controller.isr:
        if state.replicas[b].log[: len(committed)] != committed:
            return False
    return True


@invariant(
    "log-matching",
    "two logs that hold a record of the same leader epoch at the same offset agree on every "
    "record up to it",
    explain=_why_log_matching,
    compiled=True,
)
def log_matching(state) -> bool:
    logs = [r.log for r in state.replicas]
    for i in range(len(logs)):
        a = logs[i]
        for j in range(i + 1, len(logs)):
            b = logs[j]
            for offset in range(min(len(a), len(b)) - 1, -1, -1):
                if a[offset][1] == b[offset][1]:
                    if a[: offset + 1] != b[: offset + 1]:
                        return False
                    break
    return True


@invariant(
    "monotonic-visibility",
    "a record once visible to consumers (below a true leader's HW) never disappears from, or "
    "changes in, any later true leader's log",
    explain=_why_visibility,
    compiled=True,
)
def monotonic_visibility(state) -> bool:
    leader = state.true_leader()
    visible = state.consumer_visible
    if leader == NO_LEADER or not visible:
        return True
    log = state.replicas[leader].log
    return len(log) >= len(visible) and tuple(r[0] for r in log[: len(visible)]) == visible


@invariant(
    "leader-in-isr",
    "the controller's leader is in the controller's ISR, and a broker that believes it leads is "
    "in its own ISR",
    compiled=True,
    stronger="structural: a sanity check of the model's state, not a promise to clients",
)
def leader_in_isr(state) -> bool:
    c = state.controller
    if c.leader != NO_LEADER and c.leader not in c.isr:
        return False
    return all(
        r.leader != b or b in r.isr for b, r in enumerate(state.replicas) if r.alive
    )


@invariant("hw-le-leo", "every replica's high watermark is at most its log end offset", compiled=True,
           stronger="structural: a sanity check of the model's state, not a promise to clients")
def hw_le_leo(state) -> bool:
    return all(r.high_watermark <= len(r.log) for r in state.replicas)


# ------------------------------------------------------------------------------ reachability
# Questions about availability, for kmc advise: "can the partition get into such a state?"
# (True in the target states; the explorer's shortest "counterexample" is a shortest witness.)


def _ack_missing_on_a_down_broker(state):
    """(broker, record id, offset) of a down broker whose log lacks an acknowledged record."""
    for b, r in enumerate(state.replicas):
        if r.alive:
            continue
        for rid, offset in state.acked:
            if offset >= len(r.log) or r.log[offset][0] != rid:
                return b, rid, offset
    return None


def _why_acked_without(state) -> str:
    found = _ack_missing_on_a_down_broker(state)
    if found is None:
        return ""
    b, rid, offset = found
    return f"broker {b} is down and its log lacks r{rid}, acknowledged at offset {offset}"


@reachable(
    "acked-without-a-down-broker",
    "reachability: a broker is down and its log lacks an acknowledged record: the partition "
    "acknowledged a write without it, or it had lost the record (kmc advise tells the two apart "
    "by replay; ask with process crashes, as a power loss can itself drop the record)",
    explain=_why_acked_without,
    compiled=True,
)
def acked_without_a_down_broker(state) -> bool:
    return _ack_missing_on_a_down_broker(state) is not None


def _why_offline(state) -> str:
    alive = [b for b, r in enumerate(state.replicas) if r.alive]
    return f"the controller has no leader for the partition while broker(s) {alive} run" if alive else ""


@reachable(
    "offline-with-a-live-broker",
    "reachability: the partition has no leader (offline) while a broker is running",
    explain=_why_offline,
    compiled=True,
)
def offline_with_a_live_broker(state) -> bool:
    return state.controller.leader == NO_LEADER and any(r.alive for r in state.replicas)


def _why_read_loss(state) -> str:
    leader = state.true_leader()
    log = state.replicas[leader].log
    for rid, offset in state.read_offsets:
        if offset >= len(log) or log[offset][0] != rid:
            return (f"a consumer could read r{rid} at offset {offset}, but leader {leader} "
                    + ("has no record there" if offset >= len(log) else f"has r{log[offset][0]} there"))
    return ""


@invariant(
    "no-read-loss",
    "every record a consumer could have read (below the HW of a broker serving it: the true "
    "leader, a zombie leader to a consumer with stale metadata, with --fetch-from-followers a "
    "follower) is in the true leader's log at the offset it was read at",
    explain=_why_read_loss,
    compiled=True,
    history="reads",
)
def no_read_loss(state) -> bool:
    leader = state.true_leader()
    if leader == NO_LEADER or not state.read_offsets:
        return True
    log = state.replicas[leader].log
    return all(offset < len(log) and log[offset][0] == rid for rid, offset in state.read_offsets)
