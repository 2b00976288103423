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


def _ineligible_isr_members(state) -> list:
    """Members of a controller ISR of two or more that are fenced (not live in the controller's
    view) or in a controlled shutdown."""
    isr = state.controller.isr
    if len(isr) < 2:
        return []
    live = state.controller.live_brokers
    return [b for b in isr if b not in live or state.replicas[b].shutting_down]


def _why_ineligible(state) -> str:
    bad = _ineligible_isr_members(state)
    if not bad:
        return ""
    b = bad[0]
    what = "fenced" if b not in state.controller.live_brokers else "in a controlled shutdown"
    return f"broker {b} is in the controller's ISR {set(state.controller.isr)} while {what}"


@invariant(
    "isr-members-eligible",
    "every member of an ISR of two or more is registered, unfenced and not in a controlled "
    "shutdown (KIP-841, KRaft 3.3+; the last member of an ISR stays in it, fenced or not)",
    explain=_why_ineligible,
    compiled=True, by_name=True,
    stronger="a protocol invariant of KRaft since 3.3 (KIP-841), not a promise to clients: "
             "ZooKeeper mode and KRaft before 3.3 let a leader add a fenced or shutting-down "
             "follower back",
)
def isr_members_eligible(state) -> bool:
    """KIP-841 (3.3): the KRaft controller removes a fenced or shutting-down broker from every
    ISR it is not the last member of (``ReplicationControlManager.handleBrokerFenced``: "we
    remove this broker from any non-singleton ISR"; ``handleBrokerInControlledShutdown``; a
    ``PartitionChangeBuilder`` never writes an empty ISR) and refuses an AlterPartition that
    would put one back (``ineligibleReplicasForIsr``: "not registered", "shutting down",
    "fenced" answer INELIGIBLE_REPLICA); all read at 3.3.0. So a fenced or shutting-down broker
    is in an ISR only as its last member. With KIP-966 (4.1) the ISR may even become empty,
    which changes nothing here."""
    return not _ineligible_isr_members(state)


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


# ------------------------------------------------------------------------------ delivery
# What the producer's retries can do to the committed log (issue 26). With each record sent once
# (no --retries) they hold trivially. Kafka promises them only with the idempotent producer
# (KIP-98): without it, retries are at-least-once delivery, a duplicate or a reordering is the
# documented price. So they are stronger invariants: reported with every default run, failing
# a run only when asked by name; and since they say nothing without --retries, they are asked
# by name only (-p NAME), never among the defaults.

_IDEMPOTENT_ONLY = ("Kafka promises it only with enable.idempotence=true (KIP-98; the default "
                    "since 3.0, KIP-679); without, a producer that retries gets at-least-once "
                    "delivery, so a retried send may be written twice")


def _committed_ids(state) -> list:
    """The record ids of the true leader's log below its HW: the committed log consumers read."""
    leader = state.true_leader()
    if leader == NO_LEADER:
        return []
    r = state.replicas[leader]
    return [rid for rid, _ in r.log[: r.high_watermark]]


def _duplicated(state) -> list:
    ids, acked = _committed_ids(state), sorted({rid for rid, _ in state.acked})
    return [rid for rid in acked if ids.count(rid) > 1]


def _out_of_order(state):
    """The first pair (earlier send, later send) of acknowledged records whose first copies in
    the committed log are the other way round, or None."""
    ids, acked = _committed_ids(state), {rid for rid, _ in state.acked}
    firsts = [(ids.index(rid), rid) for rid in sorted(acked) if rid in ids]
    for (o1, r1), (o2, r2) in zip(firsts, firsts[1:]):
        if o2 < o1:
            return r1, r2
    return None


def _why_duplicates(state) -> str:
    ids = _committed_ids(state)
    return "; ".join(f"acknowledged r{rid} is at offsets "
                     f"{', '.join(str(o) for o, x in enumerate(ids) if x == rid)} of the "
                     f"committed log (leader {state.true_leader()})" for rid in _duplicated(state))


def _why_order(state) -> str:
    pair = _out_of_order(state)
    if pair is None:
        return ""
    ids = _committed_ids(state)
    r1, r2 = pair
    return (f"r{r1} was sent before r{r2}, both acknowledged, but the committed log of leader "
            f"{state.true_leader()} has r{r2} at offset {ids.index(r2)} and r{r1} only at "
            f"offset {ids.index(r1)}")


@invariant(
    "no-duplicates",
    "an acknowledged send appears at most once in the committed log (the true leader's log "
    "below its HW)",
    explain=_why_duplicates, compiled=True, stronger=_IDEMPOTENT_ONLY, by_name=True,
)
def no_duplicates(state) -> bool:
    return not _duplicated(state)


@invariant(
    "in-order",
    "acknowledged sends appear in the committed log in the order they were sent (first copies)",
    explain=_why_order, compiled=True, by_name=True,
    stronger="Kafka promises it only with enable.idempotence=true or "
             "max.in.flight.requests.per.connection=1; with more requests in flight and no "
             "idempotence, a retried send can land after a later one",
)
def in_order(state) -> bool:
    return _out_of_order(state) is None


@invariant(
    "exactly-once-to-log",
    "every acknowledged send appears in the committed log at most once and in send order "
    "(no-duplicates and in-order)",
    explain=lambda s: "; ".join(x for x in (_why_duplicates(s), _why_order(s)) if x),
    compiled=True, stronger=_IDEMPOTENT_ONLY, by_name=True,
)
def exactly_once_to_log(state) -> bool:
    return not _duplicated(state) and _out_of_order(state) is None


# ------------------------------------------------------------------------------ the consumer
# What a consumer that commits before or after processing gets (--consumer-commit; issue 26).
# Without a consumer they hold trivially, so they are asked by name only. The KafkaConsumer
# javadoc ("Manual Offset Control") promises at-least-once to a consumer that commits after
# processing and at-most-once to one that commits before: each is a promise for one order only.

def _skipped_offset(state):
    """The first offset the group's committed offset has passed that was never processed, or
    None. Processing goes offset by offset from the committed offset, so ``consumer_processed``
    is where it has reached; the record the consumer holds right now, already committed (commit
    before processing), is not skipped yet: it is being processed."""
    c, p = state.consumer_committed, state.consumer_processed
    if c <= p:
        return None
    if state.consumer_in_hand and c == state.consumer_position == p + 1:
        return None
    return p


@invariant(
    "at-least-once",
    "the consumer group's committed offset never passes a record the consumer did not process "
    "(with --consumer-commit)",
    explain=lambda s: (f"the committed offset is {s.consumer_committed} but offset "
                       f"{_skipped_offset(s)} was never processed: a new consumer resumes past it"
                       if _skipped_offset(s) is not None else ""),
    compiled=True, by_name=True,
    stronger="Kafka promises it to a consumer that commits after processing (KafkaConsumer "
             "javadoc, Manual Offset Control); one that commits first (auto-commit) may skip",
)
def at_least_once(state) -> bool:
    return _skipped_offset(state) is None


@invariant(
    "at-most-once",
    "the consumer never processes an offset twice (with --consumer-commit)",
    explain=lambda s: ("an offset below where processing had reached was processed again"
                       if s.consumer_processed_twice else ""),
    compiled=True, by_name=True,
    stronger="Kafka promises it to a consumer that commits before processing; one that commits "
             "after processing reprocesses what it had not committed when it crashed",
)
def at_most_once(state) -> bool:
    return not state.consumer_processed_twice
