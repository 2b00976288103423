"""Actions in Kafka words, for traces: ``describe(action, before, after)``.

One describer per action (``@describes("ActionName")``), grouped as the kernel's actions are
(``model/kernel/actions/``: the producer, a leader, a follower, a broker, the controller, the
world's faults). A describer reads the readable states before and after the step and says what
happened in one sentence; ``tests/unit/test_actions.py`` checks every action has one.
"""

from __future__ import annotations

from typing import Callable

from model.actions import Action
from model.constants import ALTER_ACCEPTED, ALTER_REFUSED, ALTER_STUCK, NO_LEADER

DESCRIBERS: dict[str, Callable] = {}
"""The describer of each action, by name: ``describer(params, before, after) -> str``."""


def describes(*names: str):
    """Decorator: register a describer for the actions ``names``."""
    def register(describer: Callable) -> Callable:
        for name in names:
            DESCRIBERS[name] = describer
        return describer
    return register


def describe(act: Action, before, after) -> str:
    """One sentence saying what ``act`` did between the two states."""
    describer = DESCRIBERS.get(act.name)
    return describer(act.params(), before, after) if describer else str(act)


def _records(records) -> str:
    return ", ".join(f"r{rid}" for rid, _ in records) or "no records"


# ------------------------------------------------------------------------------ the producer

@describes("ProduceRecord")
def _produce_record(p, before, after) -> str:
    rid = after.records_written
    return f"the producer sends r{rid}; " + _handled(p["leader"], rid, before, after)


@describes("ProducerRetry")
def _producer_retry(p, before, after) -> str:
    rid, b = p["record"], p["leader"]
    waiting = [x for x in before.pending_acks if x[1] == rid]
    why = (f"its request timed out while broker {waiting[0][0]} held it (request.timeout.ms; "
           "the producer cannot tell whether it will be committed)" if waiting
           else "its request failed")
    return f"the producer retries r{rid}: {why}; " + _handled(b, rid, before, after)


@describes("ProducerBumpEpoch")
def _producer_bump_epoch(p, before, after) -> str:
    rid = p["record"]
    acked = {x for x, _ in after.acked}
    rewritten = [f"r{q} -> sequence {after.sequences[q - 1]}"
                 for q in range(1, after.records_written + 1)
                 if q != rid and q not in acked and after.sequences[q - 1] >= 0]
    text = (f"r{rid}'s request was answered with an error, taken as one the producer does not "
            f"retry (non-retriable, or OUT_OF_ORDER_SEQUENCE_NUMBER after delivery.timeout.ms), "
            f"so the producer gives r{rid} up; it bumps its epoch {before.producer_epoch} -> "
            f"{after.producer_epoch} (KIP-360)")
    if rewritten:
        text += ("; the records still in flight get new sequences at the new epoch: "
                 + ", ".join(rewritten))
    return text


# ------------------------------------------------------------------------------ the consumer

@describes("ConsumerFetch")
def _consumer_fetch(p, before, after) -> str:
    o = p["offset"]
    leader = before.true_leader()
    rid = before.replicas[leader].log[o][0] if leader is not None and leader >= 0 else "?"
    return f"the consumer polls r{rid} at offset {o} from leader {leader} (below its HW)"


@describes("ConsumerProcess")
def _consumer_process(p, before, after) -> str:
    o = p["offset"]
    again = " again: it was processed before" if o < before.consumer_processed else ""
    return f"the consumer's application processes offset {o}{again}"


@describes("ConsumerCommit")
def _consumer_commit(p, before, after) -> str:
    when = ("before processing it" if before.consumer_in_hand else "after processing it")
    return f"the consumer commits offset {p['offset']} to the group ({when})"


@describes("ConsumerRestart")
def _consumer_restart(p, before, after) -> str:
    lost = " (the record it held unprocessed is dropped)" if before.consumer_in_hand else ""
    return (f"the consumer crashes{lost}; a new one resumes from the committed offset "
            f"{before.consumer_committed}")


def _sequence(state, rid: int) -> int:
    """Record ``rid``'s sequence as last sent: ``rid - 1`` unless the producer has an epoch."""
    return state.sequences[rid - 1] if state.sequences else rid - 1


def _handled(b: int, rid: int, before, after) -> str:
    """What broker ``b`` did with record ``rid``: appended it, or, for an idempotent producer,
    answered with the offset it already has it at, or refused it."""
    r0, r1 = before.replicas[b], after.replicas[b]
    lead = f"broker {b} (leader in epoch {r0.leader_epoch})"
    if len(r1.log) > len(r0.log):
        text = f"{lead} appends it at offset {len(r0.log)}"
        earlier = [o for o, (x, _) in enumerate(r0.log) if x == rid]
        if after.sequences and earlier:
            o = earlier[-1]
            text += (f" (producer epoch {after.producer_epoch}, sequence {_sequence(after, rid)}: "
                     f"no duplicate of the batch at offset {o}, which has producer epoch "
                     f"{r0.log_producer_epochs[o]}; a duplicate is looked for within one epoch)")
    else:
        at = [o for o, (x, _) in enumerate(r0.log) if x == rid]
        acked = [o for x, o in after.acked if x == rid] + [o for _, x, o in after.pending_acks if x == rid]
        if acked and at:
            text = (f"{lead} already has it at offset {acked[0]} (DUPLICATE_SEQUENCE_NUMBER: "
                    "nothing appended, answered with the original offset)")
        elif r0.log and after.sequences and r0.log_producer_epochs[-1] != after.producer_epoch:
            text = (f"{lead} refuses it: OUT_OF_ORDER_SEQUENCE_NUMBER (producer epoch "
                    f"{after.producer_epoch} is new to its log, whose last batch has epoch "
                    f"{r0.log_producer_epochs[-1]}, so it must start at sequence 0, not "
                    f"{_sequence(after, rid)})")
        elif r0.log:
            last = r0.log[-1][0]
            text = (f"{lead} refuses it: OUT_OF_ORDER_SEQUENCE_NUMBER (sequence "
                    f"{_sequence(after, rid)}, but its log's last batch r{last} has sequence "
                    f"{_sequence(before, last)})")
        else:
            text = (f"{lead} refuses it: UNKNOWN_PRODUCER_ID (no batch of the producer in its "
                    f"log, and sequence {_sequence(after, rid)} is not 0)")
    if r1.high_watermark != r0.high_watermark:
        text += f"; HW {r0.high_watermark} -> {r1.high_watermark}"
    return text + _ack_changes(before, after, rid)


# ------------------------------------------------------------------------------ a leader

@describes("LeaderHandleFetch")
def _leader_handle_fetch(p, before, after) -> str:
    lead, f = p["leader"], p["follower"]
    r0, r1 = before.replicas[lead], after.replicas[lead]
    resp = after.replicas[f].fetch_response
    offset = len(before.replicas[f].log)
    if resp and resp[2] > resp[5]:
        return (
            f"broker {lead} answers broker {f}'s fetch at offset {offset} with "
            f"OFFSET_OUT_OF_RANGE (its log ends at {resp[5]})"
        )
    text = (
        f"broker {lead} handles broker {f}'s fetch at offset {offset}: remote LEO of {f} = "
        f"{offset}"
    )
    if r1.high_watermark != r0.high_watermark:
        text += f", HW {r0.high_watermark} -> {r1.high_watermark}"
    else:
        text += f", HW stays {r1.high_watermark}"
    if r1.isr != r0.isr:
        text += f", ISR {_set(r1.isr)}"
    elif r1.alter_partition and not r0.alter_partition:
        text += f", asks the controller for ISR {_set(r1.alter_partition[1])}"
    text += f"; it sends {_records(resp[3])} and HW {resp[4]}"
    return text + _ack_changes(before, after)


@describes("LeaderHandleFetchOnStaleMetadata")
def _leader_handle_fetch_on_stale_metadata(p, before, after) -> str:
    lead, f = p["leader"], p["follower"]
    r0, r1 = before.replicas[lead], after.replicas[lead]
    offset = len(before.replicas[f].log)
    text = (f"broker {lead} handles broker {f}'s fetch at offset {offset} on its lagging metadata "
            f"cache, which still shows {f} unfenced (the controller has fenced it or has it "
            f"shutting down): remote LEO of {f} = {offset}, asks the controller for ISR "
            f"{_set(r1.alter_partition[1])}")
    if r1.high_watermark != r0.high_watermark:
        text += f", HW {r0.high_watermark} -> {r1.high_watermark} (its maximal ISR counts {f})"
    return text + _ack_changes(before, after)


@describes("LeaderHandleDelayedFetch")
def _leader_handle_delayed_fetch(p, before, after) -> str:
    f = p["follower"]
    req = before.replicas[f].fetch_request
    lead = req[0]
    r0, r1 = before.replicas[lead], after.replicas[lead]
    if r0.remote_log_end_offsets == r1.remote_log_end_offsets:
        return f"broker {lead} gets broker {f}'s delayed fetch at offset {req[2]} and refuses it"
    stale = "" if req[3] else " (sent by an earlier incarnation of the broker)"
    text = (f"broker {lead} handles broker {f}'s delayed fetch at offset {req[2]}{stale}: "
            f"remote LEO of {f} = {req[2]}")
    if r1.isr != r0.isr or r1.alter_partition != r0.alter_partition:
        text += f"; ISR {_set(r1.isr)}" + (" (asked)" if r1.alter_partition else "")
    if r1.high_watermark != r0.high_watermark:
        text += f"; HW {r0.high_watermark} -> {r1.high_watermark}"
    return text + _ack_changes(before, after)


def _why_behind(before, lead: int, f: int) -> str:
    """Why follower ``f`` can have stayed behind leader ``lead`` for replica.lag.time.max.ms
    (the time abstraction, docs/model.md "Time"), or that only the untimed rules allow it."""
    r, leader = before.replicas[f], before.replicas[lead]
    if not r.alive:
        return f"broker {f} is down"
    if getattr(r, "shutting_down", False):
        return f"broker {f} is shutting down, its fetchers stopped"
    if r.leader == f:
        return f"broker {f} still believes it leads epoch {r.leader_epoch}: its metadata lags"
    if r.leader != lead:
        follows = "no leader" if r.leader == NO_LEADER else f"broker {r.leader}"
        return f"broker {f} still follows {follows}: its metadata lags"
    if r.leader_epoch != leader.leader_epoch:
        return f"broker {f} is still in epoch {r.leader_epoch}: its metadata lags"
    return (f"broker {f} fetches from it in its epoch: in Kafka only after it stalled for "
            f"replica.lag.time.max.ms, e.g. a GC pause or a network cut; not with --rule +timed")


@describes("LeaderShrinkIsrSet")
def _leader_shrink_isr_set(p, before, after) -> str:
    lead, removed = p["leader"], p["followers"]
    names = [f for f in range(len(before.replicas)) if removed >> f & 1]
    why = "; ".join(f"{f}: {_why_behind(before, lead, f)}" for f in names)
    r1 = after.replicas[lead]
    asked = _set(r1.alter_partition[1]) if r1.alter_partition else "?"
    return (f"broker {lead} asks the controller to remove lagging brokers "
            f"{' and '.join(map(str, names))} from the ISR in one AlterPartition ({why}): "
            f"AlterPartition(ISR {asked}); accepted, every one of them joins the ELR (KIP-966)")


@describes("LeaderShrinkIsr")
def _leader_shrink_isr(p, before, after) -> str:
    lead, f = p["leader"], p["follower"]
    r0, r1 = before.replicas[lead], after.replicas[lead]
    why = _why_behind(before, lead, f)
    if r1.alter_partition and not r0.alter_partition:
        return (f"broker {lead} asks the controller to remove lagging broker {f} from the ISR "
                f"({why}): AlterPartition(ISR {_set(r1.alter_partition[1])})")
    return _isr_written(f"broker {lead} removes lagging broker {f} from the ISR ({why})", r0, r1,
                        before, after)


@describes("LeaderExpandIsr")
def _leader_expand_isr(p, before, after) -> str:
    lead, f = p["leader"], p["follower"]
    r0, r1 = before.replicas[lead], after.replicas[lead]
    return _isr_written(f"broker {lead} adds caught-up broker {f} to the ISR", r0, r1, before, after)


def _isr_written(text: str, r0, r1, before, after) -> str:
    text += f": {_set(r1.isr)}"
    if r1.high_watermark != r0.high_watermark:
        text += f"; HW {r0.high_watermark} -> {r1.high_watermark}"
    return text + _ack_changes(before, after)


@describes("LeaderHandleAlterPartitionResponse")
def _leader_handle_alter_partition_response(p, before, after) -> str:
    b = p["leader"]
    r0, r1 = before.replicas[b], after.replicas[b]
    resp = r0.alter_partition
    if resp and resp[0] == ALTER_REFUSED:
        return f"broker {b} gets INELIGIBLE_REPLICA back and keeps its ISR {_set(r1.isr)}"
    if r1.alter_partition:
        return f"broker {b} ignores an answer for leader epoch {resp[2]} (it is in epoch {r1.leader_epoch})"
    text = f"broker {b} takes the ISR the controller committed: {_set(r1.isr)}"
    if r1.high_watermark != r0.high_watermark:
        text += f"; HW {r0.high_watermark} -> {r1.high_watermark}"
    return text + _ack_changes(before, after)


# ------------------------------------------------------------------------------ a follower

@describes("FollowerHandleFetchResponse")
def _follower_handle_fetch_response(p, before, after) -> str:
    f = p["follower"]
    r0, r1 = before.replicas[f], after.replicas[f]
    resp = r0.fetch_response
    if r1.log == r0.log and r1.high_watermark == r0.high_watermark and not resp[3]:
        if resp[2] == len(r0.log) and r0.leader == resp[0] and r0.leader_epoch == resp[1]:
            return f"broker {f} handles the fetch response: nothing changes"
        return f"broker {f} drops a stale fetch response from broker {resp[0]}"
    if resp[2] > resp[5]:
        return f"broker {f} truncates its log to the leader's log end offset {resp[5]} (offset out of range)"
    return (
        f"broker {f} appends {_records(resp[3])} from broker {resp[0]}'s response: LEO "
        f"{len(r0.log)} -> {len(r1.log)}, HW = min(LEO {len(r1.log)}, leader HW {resp[4]}) = "
        f"{r1.high_watermark}"
    )


@describes("FollowerTruncate")
def _follower_truncate(p, before, after) -> str:
    f = p["follower"]
    r0, r1 = before.replicas[f], after.replicas[f]
    lost = len(r0.log) - len(r1.log)
    return (
        f"broker {f} asks leader {r0.leader} OffsetsForLeaderEpoch(epoch "
        f"{r0.log[-1][1] if r0.log else -1}) and truncates its log to offset {len(r1.log)}"
        + (f" (drops {_records(r0.log[len(r1.log):])})" if lost else " (nothing to drop)")
    )


# ------------------------------------------------------------------------------ a broker applying what the controller sent, starting and stopping

@describes("BecomeLeaderOrFollower")
def _become_leader_or_follower(p, before, after) -> str:
    b, epoch = p["broker"], p["leader_epoch"]
    r0, r1 = before.replicas[b], after.replicas[b]
    if r1.leader == b:
        text = f"broker {b} applies LeaderAndIsr(epoch {epoch}) and becomes leader, ISR {_set(r1.isr)}"
        if r1.high_watermark != r0.high_watermark:
            text += f"; HW {r0.high_watermark} -> {r1.high_watermark}"
        return text + _ack_changes(before, after)
    who = "no leader" if r1.leader == NO_LEADER else f"leader {r1.leader}"
    text = f"broker {b} applies LeaderAndIsr(epoch {epoch}, {who}) and becomes follower"
    if len(r1.log) < len(r0.log):
        text += (
            f" and truncates its log to its high watermark {len(r1.log)}"
            f" (drops {_records(r0.log[len(r1.log):])})"
        )
    elif r1.truncating:
        text += "; it must truncate before fetching"
    return text + _ack_changes(before, after)


@describes("BrokerApplyPartitionChange")
def _broker_apply_partition_change(p, before, after) -> str:
    b = p["broker"]
    r0, r1 = before.replicas[b], after.replicas[b]
    isr = r0.partition_change[0] if r0.partition_change else ()
    text = f"broker {b} applies a PartitionChangeRecord (ISR {_set(isr)}, same leader epoch)"
    if r1.high_watermark != r0.high_watermark:
        text += f"; HW {r0.high_watermark} -> {r1.high_watermark}"
    return text + _ack_changes(before, after)


@describes("BrokerHandleZombieLeaderAndIsr")
def _broker_handle_zombie_leader_and_isr(p, before, after) -> str:
    b = p["broker"]
    z = before.zombie_controller
    r0, r1 = before.replicas[b], after.replicas[b]
    if r1.leader_epoch == r0.leader_epoch and r1.leader == r0.leader:
        return (f"broker {b} refuses the zombie controller's LeaderAndIsr "
                f"(STALE_CONTROLLER_EPOCH: it has obeyed controller epoch {r0.controller_epoch_seen})")
    role = "leader" if r1.leader == b else f"follower of {r1.leader}"
    return f"broker {b} applies the zombie controller's LeaderAndIsr(epoch {z[2]}) and becomes {role}"


@describes("BrokerRestart")
def _broker_restart(p, before, after) -> str:
    b = p["broker"]
    c0, c = before.controller, after.controller
    text = f"broker {b} restarts with its log (LEO {len(after.replicas[b].log)}, HW {after.replicas[b].high_watermark})"
    if c.leader_epoch != c0.leader_epoch:
        text += f"; the controller elects it leader: epoch {c.leader_epoch}, ISR {_set(c.isr)}"
    return text + "; the controller sends it LeaderAndIsr"


@describes("BrokerShutdown")
def _broker_shutdown(p, before, after) -> str:
    b = p["broker"]
    return f"broker {b} completes its controlled shutdown and stops (log flushed, HW checkpointed)"


@describes("CheckpointHighWatermark")
def _checkpoint_high_watermark(p, before, after) -> str:
    b = p["broker"]
    return (f"broker {b} writes its HW {after.replicas[b].checkpointed_hw} to its checkpoint "
            f"file (was {before.replicas[b].checkpointed_hw})")


# ------------------------------------------------------------------------------ the controller

@describes("ControllerElectLeader")
def _controller_elect_leader(p, before, after) -> str:
    c = after.controller
    return (
        f"the controller moves leadership to broker {c.leader} with no failure (the "
        f"over-approximation unordered-leader-moves: no Kafka mechanism moves a leader to any "
        f"ISR member): epoch {c.leader_epoch}, ISR {_set(c.isr)}"
    )


@describes("ControllerPreferredElection")
def _controller_preferred_election(p, before, after) -> str:
    c = after.controller
    return (
        f"a preferred-replica election (ElectLeaders PREFERRED or auto.leader.rebalance.enable) "
        f"moves leadership to broker {c.leader}, the first replica of the assignment "
        f"{_order(after)}: epoch {c.leader_epoch}, ISR {_set(c.isr)}"
    )


@describes("ControllerReassignReplicas")
def _controller_reassign_replicas(p, before, after) -> str:
    c0, c = before.controller, after.controller
    text = (f"an operator reassigns the partition to the same replicas in a new order "
            f"{_order(after)} (was {_order(before)}; AlterPartitionReassignments)")
    if c.leader_epoch != c0.leader_epoch:
        return text + (f": the ZooKeeper controller keeps leader {c.leader} and bumps the leader "
                       f"epoch to {c.leader_epoch} (updateLeaderEpochAndSendRequest)")
    return text + (f": a PartitionChangeRecord with the new replicas, partition epoch only; "
                   f"leader {c.leader} stays in epoch {c.leader_epoch}")


def _order(state) -> str:
    """The assignment as Kafka prints it, ``[1, 0, 2]`` (first = preferred)."""
    ranks = [r.assignment_rank for r in state.replicas]
    return "[" + ", ".join(str(b) for b in sorted(range(len(ranks)), key=ranks.__getitem__)) + "]"


def _ordered(state) -> bool:
    return len({r.assignment_rank for r in state.replicas}) == len(state.replicas) > 1


def _how_elected(before, after) -> str:
    """Which election picked the new leader, as Kafka names it, with the order it read."""
    if not _ordered(after):
        return ""
    return f" (the first eligible replica of the assignment {_order(after)})"


@describes("ControllerHandleBrokerFailure")
def _controller_handle_broker_failure(p, before, after) -> str:
    b = p["broker"]
    c0, c = before.controller, after.controller
    text = f"the controller notices broker {b} is dead"
    if c.leader_epoch != c0.leader_epoch:
        if c.leader != c0.leader:
            kind = "unclean " if c.leader != NO_LEADER and c.leader not in c0.isr else ""
            who = "no leader (offline)" if c.leader == NO_LEADER else f"{kind}leader {c.leader}"
            if c.leader != NO_LEADER:
                who += _how_elected(before, after)
            text += f" and elects {who}"
        text += f": epoch {c.leader_epoch}, ISR {_set(c.isr)}"
    return text


@describes("ControllerUnfenceBroker")
def _controller_unfence_broker(p, before, after) -> str:
    b = p["broker"]
    c0, c = before.controller, after.controller
    text = f"broker {b} registers (heartbeats) again; the controller sends it LeaderAndIsr"
    if c.leader_epoch != c0.leader_epoch:
        text += f" after electing it leader: epoch {c.leader_epoch}, ISR {_set(c.isr)}"
    return text


@describes("ControllerHandleControlledShutdown")
def _controller_handle_controlled_shutdown(p, before, after) -> str:
    b = p["broker"]
    c0, c = before.controller, after.controller
    text = f"broker {b} asks for a controlled shutdown; the controller marks it shutting down"
    if c.leader != c0.leader:
        text += f" and moves leadership to broker {c.leader}"
        if c.leader != NO_LEADER:
            text += _how_elected(before, after)
    if c.leader_epoch != c0.leader_epoch:
        text += f": epoch {c.leader_epoch}, ISR {_set(c.isr)}"
    return text


@describes("ControllerHandleAlterPartition")
def _controller_handle_alter_partition(p, before, after) -> str:
    b = p["leader"]
    req = before.replicas[b].alter_partition
    got = after.replicas[b].alter_partition
    asked = _set(req[1]) if req else "?"
    text = f"the controller handles broker {b}'s AlterPartition(ISR {asked})"
    outcome = got[0] if got else 0
    if outcome == ALTER_ACCEPTED:
        c0, c = before.controller, after.controller
        text += f": accepted, ISR {_set(c.isr)}" if c.isr != c0.isr else ": accepted (no change)"
        if c.leader_epoch != c0.leader_epoch:  # KRaft 3.3-3.5: a shrink is a new leader epoch
            text += f", in a new leader epoch {c.leader_epoch} sent to every live broker"
    elif outcome == ALTER_REFUSED:
        text += ": INELIGIBLE_REPLICA (a member is fenced, shutting down or of a stale broker epoch)"
    elif outcome == ALTER_STUCK:
        if req and req[2] < before.controller.leader_epoch:
            text += f": FENCED_LEADER_EPOCH (sent in epoch {req[2]}, the partition is at {before.controller.leader_epoch})"
        else:
            text += ": INVALID_UPDATE_VERSION (a stale partition epoch); the leader waits for metadata"
    return text


# ------------------------------------------------------------------------------ the world's faults

@describes("BrokerCrash")
def _broker_crash(p, before, after) -> str:
    b = p["broker"]
    r0, r1 = before.replicas[b], after.replicas[b]
    text = f"broker {b} crashes"
    if len(r1.log) < len(r0.log):
        text += (f" and loses {_records(r0.log[len(r1.log):])}: not on the disk it restarts "
                 "with (a power loss before a flush, or a replaced disk)")
    return text


@describes("FlushLog")
def _flush_log(p, before, after) -> str:
    b = p["broker"]
    return f"broker {b} flushes its log to disk up to offset {after.replicas[b].flushed_offset}"


@describes("FetchDelayed")
def _fetch_delayed(p, before, after) -> str:
    f = p["follower"]
    req = after.replicas[f].fetch_request
    return (f"broker {f}'s fetch at offset {req[2]} to broker {req[0]} is held up on its way "
            "(it will arrive later)")


@describes("ControllerFailover")
def _controller_failover(p, before, after) -> str:
    c = after.controller
    z = after.zombie_controller
    return (f"the controller fails over: controller epoch {after.controller_epoch}; the new "
            f"controller reads the partition from ZooKeeper (leader {c.leader}, epoch "
            f"{c.leader_epoch}) and sends it to every live broker; the old controller "
            f"(epoch {z[0]}) does not know yet")


@describes("ControllerFenceBroker")
def _controller_fence_broker(p, before, after) -> str:
    b = p["broker"]
    c0, c = before.controller, after.controller
    text = (f"the controller loses broker {b}, which is still running (its ZooKeeper session "
            f"expires / its heartbeats stop arriving), and handles it as failed")
    if c.leader_epoch != c0.leader_epoch:
        if c.leader != c0.leader:
            who = "no leader (offline)" if c.leader == NO_LEADER else f"leader {c.leader}"
            if c.leader != NO_LEADER:
                who += _how_elected(before, after)
            text += f"; it elects {who}"
        text += f": epoch {c.leader_epoch}, ISR {_set(c.isr)}"
    return text


@describes("ZombieControllerSendLeaderAndIsr")
def _zombie_controller_send_leader_and_isr(p, before, after) -> str:
    b = p["broker"]
    z = after.zombie_controller
    return (f"the zombie controller (epoch {z[0]}) sends broker {b} its stale view: "
            f"LeaderAndIsr(epoch {z[2]}, leader {z[1]})")


def _set(items) -> str:
    return "{" + ",".join(str(x) for x in items) + "}"


def _ack_changes(before, after, retried: int = 0) -> str:
    new = [a for a in after.acked if a not in before.acked]
    failed = [
        p for p in before.pending_acks
        if p not in after.pending_acks and (p[1], p[2]) not in after.acked and p[1] != retried
    ]
    out = ""
    if new:
        out += "; acknowledged: " + ", ".join(f"r{rid}@{off}" for rid, off in new)
    if failed:
        out += "; failed to the producer: " + ", ".join(f"r{rid}" for _, rid, _ in failed)
    return out
