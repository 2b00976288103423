"""The actions of the partition's transition system: one function per action, each writing
every successor it enables into ``out`` (rows) and ``acts`` (action id and arguments), in a
fixed order, and returning the new successor count.

This is where kmc's rules live. Each action says which Kafka code path it models; a rule that
changed between releases is a switch read from ``cfg`` (``model/kernel/params.py``), named in
``model/rules.py`` with its KIP or JIRA. ``successors`` runs the actions in order; the order of
actions and of their arguments is part of the contract (traces are replayed by successor
index).

A successor ``t = out[k]`` starts as a copy of the state (``begin``) and is changed in place through the
accessors of ``model/kernel/fields.py``.
"""

from __future__ import annotations

import numpy as np

from model.actions import ACTION_IDS
from model.kernel.epoch_cache import leader_epoch_start_offset
from model.kernel.jit import kernel
from model.kernel.fields import (
    ACK_DONE, ACK_PENDING, NO_LEADER, append_record, believes_it_leads, broker_count,
    clear_fetch_response, controller_isr, controller_leader, controller_leader_epoch,
    controller_live, crashes, drop_all_leader_and_isr, flushed_offset, forget_remote_leos,
    has, has_fetch_response, high_watermark, is_alive, is_truncating, isr_of,
    leader_and_isr_isr, leader_and_isr_leader, leader_and_isr_pending, leader_epoch, leader_of,
    log_end_offset, records_written, remote_leo, response_count, response_epoch,
    response_fetch_offset, response_hw, response_leader, response_leo, response_record_epoch,
    response_record_id, send_fetch_response, set_ack, set_alive, set_controller,
    set_controller_isr, set_controller_live, set_crashes, set_flushed_offset, set_high_watermark,
    set_isr_of, set_leader_epoch, set_leader_of, set_records_written, set_remote_leo,
    set_truncating, set_unflushed_losses, size_of, truncate_to, unflushed_losses,
    drop_leader_and_isr, epoch_slots, UNDEFINED_EPOCH, SlotOverflow,
    checkpointed_hw, controlled_shutdowns, is_shutting_down, session_expiries,
    set_checkpointed_hw, set_controlled_shutdowns, set_session_expiries, set_shutting_down,
)
from model.kernel.params import (
    ACKS, ACKS_1, ACKS_ALL, HW_CHECKPOINT_INTERVAL, MAX_CONTROLLED_SHUTDOWNS, MAX_CRASHES,
    MAX_RECORDS, MAX_SESSION_EXPIRIES, MAX_UNFLUSHED_LOSSES,
    MIN_INSYNC_REPLICAS, POWER_LOSS, RULE_BROKER_EPOCH, RULE_FENCED_FETCH, RULE_ISR_JOIN_NEEDS_EPOCH_START,
    RULE_TRUNCATION, TRUNCATE_TO_HW, UNCLEAN_LEADER_ELECTION,
)
from model.kernel.transitions import (
    controller_register_broker, epoch_available, fail_parked_produce, finish, make_follower,
    make_leader, maybe_increment_leader_hw, offset_for_truncation, send_leader_and_isr,
    trim_flushed,
)

PRODUCE_RECORD = ACTION_IDS["ProduceRecord"]
LEADER_HANDLE_FETCH = ACTION_IDS["LeaderHandleFetch"]
FOLLOWER_HANDLE_FETCH_RESPONSE = ACTION_IDS["FollowerHandleFetchResponse"]
FOLLOWER_TRUNCATE = ACTION_IDS["FollowerTruncate"]
LEADER_SHRINK_ISR = ACTION_IDS["LeaderShrinkIsr"]
LEADER_EXPAND_ISR = ACTION_IDS["LeaderExpandIsr"]
BECOME_LEADER_OR_FOLLOWER = ACTION_IDS["BecomeLeaderOrFollower"]
CONTROLLER_ELECT_LEADER = ACTION_IDS["ControllerElectLeader"]
CONTROLLER_HANDLE_BROKER_FAILURE = ACTION_IDS["ControllerHandleBrokerFailure"]
BROKER_CRASH = ACTION_IDS["BrokerCrash"]
BROKER_RESTART = ACTION_IDS["BrokerRestart"]
FLUSH_LOG = ACTION_IDS["FlushLog"]
CHECKPOINT_HIGH_WATERMARK = ACTION_IDS["CheckpointHighWatermark"]
CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN = ACTION_IDS["ControllerHandleControlledShutdown"]
BROKER_SHUTDOWN = ACTION_IDS["BrokerShutdown"]
CONTROLLER_FENCE_BROKER = ACTION_IDS["ControllerFenceBroker"]
CONTROLLER_UNFENCE_BROKER = ACTION_IDS["ControllerUnfenceBroker"]

NO_ARG = -1


@kernel
def begin(s, out, acts, k, action, arg0, arg1):
    """Start successor ``k``: ``out[k]`` becomes a copy of ``s``, labelled with its action."""
    if k >= out.shape[0]:
        raise SlotOverflow("a state has more successors than the successor buffer holds")
    row, src = out[k].view(np.uint64), s.view(np.uint64)  # rows are whole 64-bit words
    for i in range(src.shape[0]):
        row[i] = src[i]
    acts[k, 0] = action
    acts[k, 1] = arg0
    acts[k, 2] = arg1


@kernel
def everyone(lay):
    return (1 << broker_count(lay)) - 1


# ------------------------------------------------------------------------------ the producer

@kernel
def produce_record(s, lay, cfg, out, acts, k):
    """ProduceRecord(leader): the producer's PRODUCE reaches a broker that believes it leads (a
    zombie leader accepts writes too). ``Partition.appendRecordsToLeader``: with acks=all, an
    ISR smaller than min.insync.replicas refuses the write (NOT_ENOUGH_REPLICAS, nothing
    changes); the record is appended with the leader's epoch; acks=1 is answered at once,
    acks=all parks in the purgatory until the HW passes it (``DelayedProduce``); the append
    ends with ``maybeIncrementLeaderHW`` (an ISR of one commits at once)."""
    written = records_written(s, lay)
    if written >= cfg[MAX_RECORDS]:
        return k
    acks = cfg[ACKS]
    for b in range(broker_count(lay)):
        if not believes_it_leads(s, lay, b):
            continue
        if acks == ACKS_ALL and size_of(isr_of(s, lay, b)) < cfg[MIN_INSYNC_REPLICAS]:
            continue  # NOT_ENOUGH_REPLICAS
        begin(s, out, acts, k, PRODUCE_RECORD, b, NO_ARG)
        t = out[k]
        record_id = written + 1
        offset = log_end_offset(t, lay, b)
        append_record(t, lay, b, record_id, leader_epoch(t, lay, b))
        set_records_written(t, lay, record_id)
        if acks == ACKS_1:
            set_ack(t, lay, record_id, ACK_DONE, -1, offset)
        elif acks == ACKS_ALL:
            set_ack(t, lay, record_id, ACK_PENDING, b, offset)
        maybe_increment_leader_hw(t, lay, cfg, b)
        finish(t, lay)
        k += 1
    return k


# ------------------------------------------------------------------------------ replication

@kernel
def leader_handle_fetch(s, lay, cfg, out, acts, k):
    """LeaderHandleFetch(leader, follower): ``ReplicaManager.fetchMessages`` on the leader. It
    reads its log from the follower's fetch offset (the follower's LEO), records that offset
    as the follower's remote LEO (``Partition.updateFollowerFetchState``), maybe advances its HW,
    and sends the records and its HW. A fetch offset past the leader's LEO is
    OFFSET_OUT_OF_RANGE: nothing is recorded. KIP-320 (2.1): the fetch carries the follower's
    epoch and a leader in another epoch refuses it (FENCED_LEADER_EPOCH /
    UNKNOWN_LEADER_EPOCH). A round that would change nothing (a long poll) is not an action."""
    fenced = cfg[RULE_FENCED_FETCH] != 0
    for f in range(broker_count(lay)):
        if not is_alive(s, lay, f):
            continue
        lead = leader_of(s, lay, f)
        if lead < 0 or lead == f or is_truncating(s, lay, f) or has_fetch_response(s, lay, f):
            continue
        if not believes_it_leads(s, lay, lead):
            continue  # NOT_LEADER_FOR_PARTITION
        if fenced and leader_epoch(s, lay, f) != leader_epoch(s, lay, lead):
            continue  # FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH
        offset = log_end_offset(s, lay, f)
        leader_leo = log_end_offset(s, lay, lead)
        if offset > leader_leo:
            begin(s, out, acts, k, LEADER_HANDLE_FETCH, lead, f)
            t = out[k]
            send_fetch_response(t, lay, f, lead, leader_epoch(s, lay, f), offset,
                                high_watermark(s, lay, lead), leader_leo, False)
        else:
            if (remote_leo(s, lay, lead, f) == offset and offset == leader_leo
                    and min(offset, high_watermark(s, lay, lead)) == high_watermark(s, lay, f)):
                continue  # nothing to send, nothing to learn: pruned
            begin(s, out, acts, k, LEADER_HANDLE_FETCH, lead, f)
            t = out[k]
            set_remote_leo(t, lay, lead, f, offset)
            maybe_increment_leader_hw(t, lay, cfg, lead)
            send_fetch_response(t, lay, f, lead, leader_epoch(s, lay, f), offset,
                                high_watermark(t, lay, lead), leader_leo, True)
        finish(t, lay)
        k += 1
    return k


@kernel
def follower_handle_fetch_response(s, lay, cfg, out, acts, k):
    """FollowerHandleFetchResponse(follower): ``ReplicaFetcherThread.processPartitionData``:
    append the records, HW = min(own LEO, leader HW). A response to a fetch made under another
    leader, epoch or log end is dropped. OFFSET_OUT_OF_RANGE: the leader's log is shorter,
    truncate to it (``handleOffsetOutOfRange``)."""
    for f in range(broker_count(lay)):
        if not (is_alive(s, lay, f) and has_fetch_response(s, lay, f)):
            continue
        begin(s, out, acts, k, FOLLOWER_HANDLE_FETCH_RESPONSE, f, NO_ARG)
        t = out[k]
        lead = response_leader(s, lay, f)
        offset = response_fetch_offset(s, lay, f)
        leader_leo = response_leo(s, lay, f)
        if (leader_of(s, lay, f) != lead or leader_epoch(s, lay, f) != response_epoch(s, lay, f)
                or log_end_offset(s, lay, f) != offset or is_truncating(s, lay, f)):
            pass  # stale: dropped
        elif offset > leader_leo:
            truncate_to(t, lay, f, leader_leo)
            set_high_watermark(t, lay, f, min(high_watermark(t, lay, f), log_end_offset(t, lay, f)))
            trim_flushed(t, lay, cfg, f)
        else:
            for i in range(response_count(s, lay, f)):
                append_record(t, lay, f, response_record_id(s, lay, f, i), response_record_epoch(s, lay, f, i))
            set_high_watermark(t, lay, f, min(log_end_offset(t, lay, f), response_hw(s, lay, f)))
        clear_fetch_response(t, lay, f)
        k += 1
    return k


@kernel
def follower_truncate(s, lay, cfg, out, acts, k):
    """FollowerTruncate(follower): OffsetsForLeaderEpoch to the leader and the truncation, as one
    step (``AbstractFetcherThread.truncateToEpochEndOffsets``, KIP-101 and later; before 0.11 a
    follower truncates to its HW when it becomes follower, so this action does not exist).
    KIP-320: only against a leader that has taken up the follower's epoch."""
    if cfg[RULE_TRUNCATION] == TRUNCATE_TO_HW:
        return k
    fenced = cfg[RULE_FENCED_FETCH] != 0
    for f in range(broker_count(lay)):
        if not (is_alive(s, lay, f) and is_truncating(s, lay, f)):
            continue
        lead = leader_of(s, lay, f)
        if lead < 0 or not believes_it_leads(s, lay, lead):
            continue  # NOT_LEADER_FOR_PARTITION: retried later
        if fenced and leader_epoch(s, lay, lead) != leader_epoch(s, lay, f):
            continue
        begin(s, out, acts, k, FOLLOWER_TRUNCATE, f, NO_ARG)
        t = out[k]
        truncate_to(t, lay, f, offset_for_truncation(s, lay, cfg, f, lead))
        set_high_watermark(t, lay, f, min(high_watermark(t, lay, f), log_end_offset(t, lay, f)))
        set_truncating(t, lay, f, False)
        trim_flushed(t, lay, cfg, f)
        k += 1
    return k


# ------------------------------------------------------------------------------ the ISR

@kernel
def isr_change_allowed(s, lay, leader):
    """The ISR write is a compare-and-set against the controller (ZooKeeper's ``zkVersion``,
    AlterPartition's partition epoch): it fails for a leader with a stale epoch."""
    return controller_leader(s, lay) == leader and controller_leader_epoch(s, lay) == leader_epoch(s, lay, leader)


@kernel
def leader_shrink_isr(s, lay, cfg, out, acts, k):
    """LeaderShrinkIsr(leader, follower): ``Partition.maybeShrinkIsr``: a follower whose remote
    LEO is behind the leader's LEO leaves the ISR (lag time is not modelled, so when is a free
    choice); the HW may advance on the smaller ISR."""
    n = broker_count(lay)
    for b in range(n):
        if not believes_it_leads(s, lay, b):
            continue
        isr = isr_of(s, lay, b)
        if size_of(isr) <= 1 or not isr_change_allowed(s, lay, b):
            continue
        for f in range(n):
            if f == b or not has(isr, f) or remote_leo(s, lay, b, f) >= log_end_offset(s, lay, b):
                continue
            begin(s, out, acts, k, LEADER_SHRINK_ISR, b, f)
            t = out[k]
            smaller = isr & ~(1 << f)
            set_isr_of(t, lay, b, smaller)
            set_controller_isr(t, lay, smaller)
            maybe_increment_leader_hw(t, lay, cfg, b)
            finish(t, lay)
            k += 1
    return k


@kernel
def is_follower_in_sync(s, lay, cfg, leader, follower_leo):
    """``Partition.isFollowerInSync``: may a follower rejoin the ISR? Its LEO has reached the HW;
    since KAFKA-7128 also the start of the leader's current epoch, so a lagging HW cannot
    let it in without records the leader committed in an earlier epoch."""
    if follower_leo < high_watermark(s, lay, leader):
        return False
    if cfg[RULE_ISR_JOIN_NEEDS_EPOCH_START] != 0:
        return follower_leo >= leader_epoch_start_offset(s, lay, leader)
    return True


@kernel
def leader_expand_isr(s, lay, cfg, out, acts, k):
    """LeaderExpandIsr(leader, follower): ``Partition.maybeExpandIsr``: a follower that is in
    sync again rejoins the ISR (same compare-and-set)."""
    n = broker_count(lay)
    for b in range(n):
        if not believes_it_leads(s, lay, b):
            continue
        isr = isr_of(s, lay, b)
        if size_of(isr) == n or not isr_change_allowed(s, lay, b):
            continue
        for f in range(n):
            leo = remote_leo(s, lay, b, f)
            if has(isr, f) or leo < 0 or not is_follower_in_sync(s, lay, cfg, b, leo):
                continue
            begin(s, out, acts, k, LEADER_EXPAND_ISR, b, f)
            t = out[k]
            larger = isr | (1 << f)
            set_isr_of(t, lay, b, larger)
            set_controller_isr(t, lay, larger)
            k += 1
    return k


# ------------------------------------------------------------------------------ LeaderAndIsr

@kernel
def become_leader_or_follower(s, lay, cfg, out, acts, k):
    """BecomeLeaderOrFollower(broker, leader_epoch): ``ReplicaManager.becomeLeaderOrFollower``
    applies a LeaderAndIsr request. Requests arrive late and in any order; a broker ignores one
    whose epoch is not newer than its own (those are dropped from flight)."""
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b):
            continue
        own = leader_epoch(s, lay, b)
        for e in range(epoch_slots(lay)):
            if e <= own or not leader_and_isr_pending(s, lay, b, e):
                continue
            leader = leader_and_isr_leader(s, lay, b, e)
            isr = leader_and_isr_isr(s, lay, b, e)
            begin(s, out, acts, k, BECOME_LEADER_OR_FOLLOWER, b, e)
            t = out[k]
            drop_leader_and_isr(t, lay, b, e)
            if leader == b:
                make_leader(t, lay, cfg, b, e, isr)
            else:
                make_follower(t, lay, cfg, b, e, leader)
            finish(t, lay)
            k += 1
    return k


# ------------------------------------------------------------------------------ the controller

@kernel
def controller_elect_leader(s, lay, cfg, out, acts, k):
    """ControllerElectLeader(new_leader): leadership moves to another live ISR member with no
    failure (preferred-replica election, controlled shutdown, or a zombie leader whose session
    expired); the old leader keeps running and learns of it only later. The epoch goes up and
    LeaderAndIsr goes to the live brokers."""
    leader = controller_leader(s, lay)
    if leader == NO_LEADER or not epoch_available(s, lay, cfg):
        return k
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    epoch = controller_leader_epoch(s, lay) + 1
    for n in range(broker_count(lay)):
        if n == leader or not has(isr, n) or not may_lead(s, lay, cfg, n):
            continue
        begin(s, out, acts, k, CONTROLLER_ELECT_LEADER, n, NO_ARG)
        t = out[k]
        set_controller(t, lay, n, epoch, isr, live)
        send_leader_and_isr(t, lay, live, epoch, n, isr)
        k += 1
    return k


@kernel
def may_lead(s, lay, cfg, b):
    """Can the controller hand leadership to ``b``? It must be live in the controller's view and
    not in a controlled shutdown (``ControllerContext.liveBrokerIds`` leaves out
    ``shuttingDownBrokerIds``)."""
    if not has(controller_live(s, lay), b):
        return False
    if cfg[MAX_CONTROLLED_SHUTDOWNS] > 0 and is_shutting_down(s, lay, b):
        return False
    return True


@kernel
def controller_remove_broker(s, lay, cfg, out, acts, k, action, b):
    """The controller takes broker ``b`` out of the partition, as ``onBrokerFailure`` does: out
    of its live set, out of the ISR unless it is the last member; if it led, a live ISR member
    is elected, else with unclean.leader.election.enable any live replica, else nobody
    (offline). ZooKeeper-mode controllers bump the leader epoch on every such change
    (``PartitionStateMachine``, ``ReplicaStateMachine.removeReplicasFromIsr``). Writes one
    successor per choice of new leader, labelled ``action(b, new leader)``."""
    n = broker_count(lay)
    leader = controller_leader(s, lay)
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    epoch = controller_leader_epoch(s, lay)
    still_live = live & ~(1 << b)
    if b == leader:
        if not epoch_available(s, lay, cfg):
            return k
        new_isr = isr & ~(1 << b) if size_of(isr) > 1 else isr
        candidates = 0
        for c in range(n):
            if c != b and has(new_isr, c) and may_lead(s, lay, cfg, c):
                candidates |= 1 << c
        unclean = False
        if candidates == 0 and cfg[UNCLEAN_LEADER_ELECTION] != 0:
            for c in range(n):
                if c != b and may_lead(s, lay, cfg, c):
                    candidates |= 1 << c
            unclean = candidates != 0
        if candidates == 0:
            begin(s, out, acts, k, action, b, NO_LEADER)
            t = out[k]
            set_controller(t, lay, NO_LEADER, epoch + 1, new_isr, still_live)
            send_leader_and_isr(t, lay, still_live, epoch + 1, NO_LEADER, new_isr)
            return k + 1
        for c in range(n):
            if not has(candidates, c):
                continue
            elected_isr = (1 << c) if unclean else new_isr
            begin(s, out, acts, k, action, b, c)
            t = out[k]
            set_controller(t, lay, c, epoch + 1, elected_isr, still_live)
            send_leader_and_isr(t, lay, still_live, epoch + 1, c, elected_isr)
            k += 1
        return k
    if has(isr, b) and size_of(isr) > 1:
        if not epoch_available(s, lay, cfg):
            return k
        begin(s, out, acts, k, action, b, leader)
        t = out[k]
        smaller = isr & ~(1 << b)
        set_controller(t, lay, leader, epoch + 1, smaller, still_live)
        send_leader_and_isr(t, lay, still_live, epoch + 1, leader, smaller)
        return k + 1
    begin(s, out, acts, k, action, b, leader)
    set_controller_live(out[k], lay, still_live)
    return k + 1


@kernel
def controller_handle_broker_failure(s, lay, cfg, out, acts, k):
    """ControllerHandleBrokerFailure(broker, new_leader): the controller notices a dead broker
    (ZooKeeper session / KRaft heartbeat timeout: a step of its own, so a quick restart may go
    unnoticed) and takes it out of the partition (``controller_remove_broker``). A broker in a
    controlled shutdown is done with it."""
    for b in range(broker_count(lay)):
        if not has(controller_live(s, lay), b) or is_alive(s, lay, b):
            continue
        k0 = k
        k = controller_remove_broker(s, lay, cfg, out, acts, k, CONTROLLER_HANDLE_BROKER_FAILURE, b)
        if cfg[MAX_CONTROLLED_SHUTDOWNS] > 0:
            for j in range(k0, k):
                set_shutting_down(out[j], lay, b, False)
    return k


@kernel
def controller_fence_broker(s, lay, cfg, out, acts, k):
    """ControllerFenceBroker(broker, new_leader): the controller loses a broker that is still
    running (its ZooKeeper session expires, or in KRaft its heartbeats stop reaching the
    controller, ``BrokerHeartbeatManager``) and takes it out of the partition as if it had failed.
    The broker does not know yet: a leader keeps serving as a zombie until a LeaderAndIsr reaches
    it. Bounded by max-session-expiries."""
    if cfg[MAX_SESSION_EXPIRIES] == 0 or session_expiries(s, lay) >= cfg[MAX_SESSION_EXPIRIES]:
        return k
    for b in range(broker_count(lay)):
        if not has(controller_live(s, lay), b) or not is_alive(s, lay, b):
            continue
        k0 = k
        k = controller_remove_broker(s, lay, cfg, out, acts, k, CONTROLLER_FENCE_BROKER, b)
        for j in range(k0, k):
            set_session_expiries(out[j], lay, session_expiries(s, lay) + 1)
    return k


@kernel
def controller_unfence_broker(s, lay, cfg, out, acts, k):
    """ControllerUnfenceBroker(broker): a running broker the controller had lost registers again
    (a new ZooKeeper session: ``KafkaController.onBrokerStartup``) or heartbeats again (KRaft):
    it is live again and is sent the partition's state, electing it first if the partition is
    offline and it may lead."""
    if cfg[MAX_SESSION_EXPIRIES] == 0:
        return k
    for b in range(broker_count(lay)):
        if has(controller_live(s, lay), b) or not is_alive(s, lay, b):
            continue
        begin(s, out, acts, k, CONTROLLER_UNFENCE_BROKER, b, NO_ARG)
        controller_register_broker(s, out[k], lay, cfg, b)
        k += 1
    return k


@kernel
def controller_handle_controlled_shutdown(s, lay, cfg, out, acts, k):
    """ControllerHandleControlledShutdown(broker, new_leader): the broker asks to stop
    (``controlled.shutdown.enable``) and the controller (``KafkaController.doControlledShutdown``)
    marks it shutting down, moves its leadership to another live ISR member
    (``ControlledShutdownPartitionLeaderElectionStrategy``, the ISR without it, epoch + 1) or,
    if it follows, removes it from the ISR (epoch + 1). With no other ISR member to lead, the
    controller cannot move the partition and the shutdown is not controlled: the broker
    retries, then stops anyway, which is a crash (``BrokerCrash``). The broker keeps running
    until ``BrokerShutdown``. Bounded by max-controlled-shutdowns."""
    if cfg[MAX_CONTROLLED_SHUTDOWNS] == 0 or controlled_shutdowns(s, lay) >= cfg[MAX_CONTROLLED_SHUTDOWNS]:
        return k
    n = broker_count(lay)
    leader = controller_leader(s, lay)
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    epoch = controller_leader_epoch(s, lay)
    count = controlled_shutdowns(s, lay) + 1
    for b in range(n):
        if not is_alive(s, lay, b) or not has(live, b) or is_shutting_down(s, lay, b):
            continue
        smaller = isr & ~(1 << b)
        if b == leader:
            if not epoch_available(s, lay, cfg):
                continue
            for c in range(n):
                if c == b or not has(smaller, c) or not may_lead(s, lay, cfg, c):
                    continue
                begin(s, out, acts, k, CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN, b, c)
                t = out[k]
                set_controller(t, lay, c, epoch + 1, smaller, live)
                send_leader_and_isr(t, lay, live, epoch + 1, c, smaller)
                set_shutting_down(t, lay, b, True)
                set_controlled_shutdowns(t, lay, count)
                k += 1
        elif has(isr, b) and size_of(isr) > 1:
            if not epoch_available(s, lay, cfg):
                continue
            begin(s, out, acts, k, CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN, b, leader)
            t = out[k]
            set_controller(t, lay, leader, epoch + 1, smaller, live)
            send_leader_and_isr(t, lay, live, epoch + 1, leader, smaller)
            set_shutting_down(t, lay, b, True)
            set_controlled_shutdowns(t, lay, count)
            k += 1
        else:
            begin(s, out, acts, k, CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN, b, leader)
            t = out[k]
            set_shutting_down(t, lay, b, True)
            set_controlled_shutdowns(t, lay, count)
            k += 1
    return k


# ------------------------------------------------------------------------------ crashes

@kernel
def stop_broker(t, lay, cfg, b):
    """What stopping does to a broker, however it stops: its memory is gone (role, epoch,
    followers' LEOs, fetch state, parked requests, requests on their way to it); on restart its
    HW is read back from its checkpoint file (the current HW unless --hw-checkpoint interval)."""
    set_alive(t, lay, b, False)
    hw = high_watermark(t, lay, b)
    if cfg[HW_CHECKPOINT_INTERVAL] != 0:
        hw = checkpointed_hw(t, lay, b)
    set_high_watermark(t, lay, b, min(hw, log_end_offset(t, lay, b)))
    set_leader_epoch(t, lay, b, UNDEFINED_EPOCH)
    set_leader_of(t, lay, b, NO_LEADER)
    set_isr_of(t, lay, b, 0)
    forget_remote_leos(t, lay, b)
    set_truncating(t, lay, b, False)
    clear_fetch_response(t, lay, b)
    if cfg[POWER_LOSS] == 0:
        set_flushed_offset(t, lay, b, 0)
    drop_all_leader_and_isr(t, lay, b)
    fail_parked_produce(t, lay, b)


@kernel
def broker_crash(s, lay, cfg, out, acts, k):
    """BrokerCrash(broker): the process stops (``stop_broker``); with power-loss crashes the
    records not yet flushed are lost too (bounded by max-unflushed-losses)."""
    if crashes(s, lay) >= cfg[MAX_CRASHES]:
        return k
    power_loss = cfg[POWER_LOSS] != 0
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b):
            continue
        loses = power_loss and flushed_offset(s, lay, b) < log_end_offset(s, lay, b)
        if loses and unflushed_losses(s, lay) >= cfg[MAX_UNFLUSHED_LOSSES]:
            continue
        begin(s, out, acts, k, BROKER_CRASH, b, NO_ARG)
        t = out[k]
        if loses:
            truncate_to(t, lay, b, flushed_offset(s, lay, b))
            set_unflushed_losses(t, lay, unflushed_losses(s, lay) + 1)
        stop_broker(t, lay, cfg, b)
        set_crashes(t, lay, crashes(s, lay) + 1)
        k += 1
    return k


@kernel
def broker_shutdown(s, lay, cfg, out, acts, k):
    """BrokerShutdown(broker): a broker whose controlled shutdown the controller has handled
    stops cleanly (``KafkaServer.shutdown``): its log is flushed and its HW checkpointed
    (``ReplicaManager.shutdown(checkpointHW = true)``), so nothing is lost."""
    if cfg[MAX_CONTROLLED_SHUTDOWNS] == 0:
        return k
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b) or not is_shutting_down(s, lay, b):
            continue
        begin(s, out, acts, k, BROKER_SHUTDOWN, b, NO_ARG)
        t = out[k]
        if cfg[POWER_LOSS] != 0:
            set_flushed_offset(t, lay, b, log_end_offset(t, lay, b))
        if cfg[HW_CHECKPOINT_INTERVAL] != 0:
            set_checkpointed_hw(t, lay, b, high_watermark(t, lay, b))
        stop_broker(t, lay, cfg, b)
        k += 1
    return k


@kernel
def checkpoint_high_watermark(s, lay, cfg, out, acts, k):
    """CheckpointHighWatermark(broker): the broker writes its HW to its checkpoint file
    (``ReplicaManager.checkpointHighWatermarks``, every
    ``replica.high.watermark.checkpoint.interval.ms``, 5 s by default), so any time; between two
    checkpoints a restart brings back the older HW (--hw-checkpoint interval only)."""
    if cfg[HW_CHECKPOINT_INTERVAL] == 0:
        return k
    for b in range(broker_count(lay)):
        if is_alive(s, lay, b) and checkpointed_hw(s, lay, b) != high_watermark(s, lay, b):
            begin(s, out, acts, k, CHECKPOINT_HIGH_WATERMARK, b, NO_ARG)
            set_checkpointed_hw(out[k], lay, b, high_watermark(s, lay, b))
            k += 1
    return k


@kernel
def broker_restart(s, lay, cfg, out, acts, k):
    """BrokerRestart(broker): the broker recovers its log, reads its HW from its checkpoint and
    registers; the controller sends it the partition's state (``onBrokerStartup``,
    ``controller_register_broker``). Before KIP-380 (2.2) a broker that restarts before the
    controller noticed its failure comes back as if nothing happened, in the same leader epoch;
    since, its new broker epoch tells the controller it bounced, and the controller handles the
    failure first (``processBrokerChange``: ``onBrokerFailure`` then ``onBrokerStartup``), so
    the restart follows ControllerHandleBrokerFailure."""
    live = controller_live(s, lay)
    bounce_noticed = cfg[RULE_BROKER_EPOCH] != 0
    for b in range(broker_count(lay)):
        if is_alive(s, lay, b):
            continue
        if bounce_noticed and has(live, b):
            continue  # KIP-380: the controller handles the failure first
        begin(s, out, acts, k, BROKER_RESTART, b, NO_ARG)
        t = out[k]
        set_alive(t, lay, b, True)
        set_flushed_offset(t, lay, b, log_end_offset(t, lay, b) if cfg[POWER_LOSS] != 0 else 0)
        if cfg[MAX_CONTROLLED_SHUTDOWNS] > 0:
            set_shutting_down(t, lay, b, False)
        controller_register_broker(s, t, lay, cfg, b)
        k += 1
    return k


@kernel
def flush_log(s, lay, cfg, out, acts, k):
    """FlushLog(broker): the OS writes the page cache to disk (power-loss crash model only;
    Kafka does not fsync by default, ``log.flush.interval.messages``), so any time."""
    if cfg[POWER_LOSS] == 0:
        return k
    for b in range(broker_count(lay)):
        if is_alive(s, lay, b) and flushed_offset(s, lay, b) < log_end_offset(s, lay, b):
            begin(s, out, acts, k, FLUSH_LOG, b, NO_ARG)
            t = out[k]
            set_flushed_offset(t, lay, b, log_end_offset(t, lay, b))
            k += 1
    return k


# ------------------------------------------------------------------------------ all of them

@kernel
def successors(s, lay, cfg, out, acts):
    """Every enabled action of ``s`` and the state it leads to, in the fixed order; returns how
    many were written to ``out``/``acts``."""
    k = 0
    k = produce_record(s, lay, cfg, out, acts, k)
    k = leader_handle_fetch(s, lay, cfg, out, acts, k)
    k = follower_handle_fetch_response(s, lay, cfg, out, acts, k)
    k = follower_truncate(s, lay, cfg, out, acts, k)
    k = leader_shrink_isr(s, lay, cfg, out, acts, k)
    k = leader_expand_isr(s, lay, cfg, out, acts, k)
    k = become_leader_or_follower(s, lay, cfg, out, acts, k)
    k = controller_elect_leader(s, lay, cfg, out, acts, k)
    k = controller_handle_broker_failure(s, lay, cfg, out, acts, k)
    k = broker_crash(s, lay, cfg, out, acts, k)
    k = broker_restart(s, lay, cfg, out, acts, k)
    k = flush_log(s, lay, cfg, out, acts, k)
    k = checkpoint_high_watermark(s, lay, cfg, out, acts, k)
    k = controller_handle_controlled_shutdown(s, lay, cfg, out, acts, k)
    k = broker_shutdown(s, lay, cfg, out, acts, k)
    k = controller_fence_broker(s, lay, cfg, out, acts, k)
    k = controller_unfence_broker(s, lay, cfg, out, acts, k)
    return k
