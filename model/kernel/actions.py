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
from model.kernel.controller import (
    ELECTED_FROM_ISR, NOBODY, controller_register_broker, epoch_available, send_leader_and_isr,
    isr_after_election, isr_shrink_bumps_epoch, kraft, leader_candidates, may_lead,
    target_isr_without, write_partition,
)
from model.kernel.fields import (
    ACK_DONE, ACK_PENDING, ALTER_ACCEPTED, ALTER_REFUSED, ALTER_SENT, ALTER_STUCK, NO_LEADER,
    UNDEFINED_EPOCH, SlotOverflow, alter_in_flight, alter_isr, alter_leader_epoch,
    alter_member_epoch_current, alter_partition_epoch_current, alter_state, append_record,
    believes_it_leads, broker_count, change_current, change_isr, change_leader_epoch,
    change_pending, checkpointed_hw, clear_alter, clear_change, clear_delayed_fetch,
    clear_fetch_response, controlled_shutdowns, controller_isr, controller_leader,
    controller_leader_epoch, controller_live, crashes, delayed_fetch_epoch,
    delayed_fetch_is_current, delayed_fetch_leader, delayed_fetch_offset, delayed_fetches,
    drop_all_leader_and_isr, drop_leader_and_isr, elr, epoch_slots, flushed_offset,
    forget_remote_leos, has, has_delayed_fetch, has_fetch_response, high_watermark, is_alive,
    is_shutting_down, is_truncating, isr_of, last_known_elr, leader_and_isr_current,
    leader_and_isr_isr, leader_and_isr_leader, leader_and_isr_pending, leader_epoch, leader_of,
    log_end_offset, mark_delayed_fetch_stale, put_delayed_fetch, records_written,
    remote_is_current, remote_leo, response_count, response_epoch, response_fetch_offset,
    response_hw, response_leader, response_leo, response_record_epoch, response_record_id,
    send_fetch_response, session_expiries, set_ack, set_alive, set_alter,
    set_alter_member_epoch_current, set_checkpointed_hw, set_controlled_shutdowns,
    set_controller_isr, set_controller_live, set_crashes, set_delayed_fetches, set_elr,
    set_flushed_offset, set_high_watermark, set_isr_of, set_leader_epoch, set_leader_of,
    set_leader_recovering, set_partition_epoch_current, set_records_written,
    set_remote_current, set_remote_leo, set_session_expiries, set_shut_down_cleanly,
    set_shutting_down, set_truncating, set_unflushed_losses, shut_down_cleanly, size_of,
    truncate_to, unflushed_losses, controller_epoch, controller_epoch_seen, controller_failovers,
    has_zombie_controller, leader_and_isr_controller_epoch, set_controller_epoch,
    set_controller_epoch_seen, set_controller_failovers, set_zombie_controller,
    set_zombie_request, zombie_controller_epoch, zombie_isr, zombie_leader, zombie_leader_epoch,
    zombie_request_pending,
)
from model.kernel.intrinsics import load_word, store_word
from model.kernel.jit import kernel
from model.kernel.params import (
    ACKS, ACKS_1, ACKS_ALL, DISK_LOSS, HW_CHECKPOINT_INTERVAL, MAX_CONTROLLED_SHUTDOWNS,
    MAX_CONTROLLER_FAILOVERS, MAX_CRASHES, MAX_DELAYED_FETCHES, RULE_CONTROLLER_EPOCH, MAX_RECORDS, MAX_SESSION_EXPIRIES, MAX_UNFLUSHED_LOSSES,
    MIN_INSYNC_REPLICAS, POWER_LOSS, RULE_ALTER_PARTITION, RULE_BROKER_EPOCH,
    RULE_BROKER_EPOCH_IN_FETCH, RULE_ELR, RULE_FENCED_FETCH, RULE_ISR_ELIGIBILITY,
    RULE_ISR_EXPANSION_AS_OWN_STEP, RULE_KRAFT, RULE_STALE_FETCH_REJECTED, RULE_TRUNCATION,
    TRUNCATE_TO_HW,
)
from model.kernel.params import TRACK_READS
from model.kernel.transitions import record_reads
from model.kernel.transitions import (
    fail_parked_produce, finish, is_follower_in_sync, isr_change_allowed, make_follower,
    make_leader, maybe_expand_isr, maybe_increment_leader_hw, offset_for_truncation,
    propose_isr, trim_flushed, would_expand_isr,
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
CONTROLLER_HANDLE_ALTER_PARTITION = ACTION_IDS["ControllerHandleAlterPartition"]
LEADER_HANDLE_ALTER_PARTITION_RESPONSE = ACTION_IDS["LeaderHandleAlterPartitionResponse"]
BROKER_APPLY_PARTITION_CHANGE = ACTION_IDS["BrokerApplyPartitionChange"]
FETCH_DELAYED = ACTION_IDS["FetchDelayed"]
LEADER_HANDLE_DELAYED_FETCH = ACTION_IDS["LeaderHandleDelayedFetch"]
CONTROLLER_FAILOVER = ACTION_IDS["ControllerFailover"]
ZOMBIE_CONTROLLER_SEND_LEADER_AND_ISR = ACTION_IDS["ZombieControllerSendLeaderAndIsr"]
BROKER_HANDLE_ZOMBIE_LEADER_AND_ISR = ACTION_IDS["BrokerHandleZombieLeaderAndIsr"]

NO_ARG = -1


@kernel
def begin(s, out, acts, k, action, arg0, arg1):
    """Start successor ``k``: ``out[k]`` becomes a copy of ``s``, labelled with its action."""
    if k >= out.shape[0]:
        raise SlotOverflow("a state has more successors than the successor buffer holds")
    row = out[k]
    for i in range(s.shape[0] // 8):  # rows are whole 64-bit words
        store_word(row, i, load_word(s, i))
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
        finish(t, lay, cfg)
        k += 1
    return k


# ------------------------------------------------------------------------------ replication

@kernel
def may_fetch(s, lay, cfg, f):
    """Does follower ``f`` fetch from the leader it believes in now? It must run, follow someone,
    be done truncating and have no response on its way. A broker in a controlled shutdown has
    stopped its fetchers: ZooKeeper's controller sends it StopReplica
    (``KafkaController.doControlledShutdown``), KRaft brokers stop them themselves
    (``ReplicaManager.applyLocalFollowersDelta``)."""
    if not is_alive(s, lay, f):
        return False
    lead = leader_of(s, lay, f)
    if lead < 0 or lead == f or is_truncating(s, lay, f) or has_fetch_response(s, lay, f):
        return False
    if cfg[MAX_CONTROLLED_SHUTDOWNS] > 0 and is_shutting_down(s, lay, f):
        return False
    return True


@kernel
def leader_handle_fetch(s, lay, cfg, out, acts, k):
    """LeaderHandleFetch(leader, follower): ``ReplicaManager.fetchMessages`` on the leader. It
    reads its log from the follower's fetch offset (the follower's LEO), records that offset
    as the follower's remote LEO (``Partition.updateFollowerFetchState``), adds the follower to
    the ISR if this fetch shows it in sync (``maybeExpandIsr``, inside the fetch in every
    release), maybe advances its HW, and sends the records and its HW. A fetch offset past the
    leader's LEO is OFFSET_OUT_OF_RANGE: nothing is recorded. KIP-320 (2.1): the fetch carries
    the follower's epoch and a leader in another epoch refuses it (FENCED_LEADER_EPOCH /
    UNKNOWN_LEADER_EPOCH). A round that would change nothing (a long poll) is not an action."""
    fenced = cfg[RULE_FENCED_FETCH] != 0
    epochs = cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0
    for f in range(broker_count(lay)):
        if not may_fetch(s, lay, cfg, f):
            continue
        lead = leader_of(s, lay, f)
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
                    and min(offset, high_watermark(s, lay, lead)) == high_watermark(s, lay, f)
                    and not would_expand_isr(s, lay, cfg, lead, f, offset, True)
                    and (not epochs or remote_is_current(s, lay, lead, f))):
                continue  # nothing to send, nothing to learn: pruned
            begin(s, out, acts, k, LEADER_HANDLE_FETCH, lead, f)
            t = out[k]
            set_remote_leo(t, lay, lead, f, offset)
            if epochs:
                set_remote_current(t, lay, lead, f, True)
            maybe_expand_isr(t, lay, cfg, lead, f, True)
            maybe_increment_leader_hw(t, lay, cfg, lead)
            send_fetch_response(t, lay, f, lead, leader_epoch(s, lay, f), offset,
                                high_watermark(t, lay, lead), leader_leo, True)
        finish(t, lay, cfg)
        k += 1
    return k


@kernel
def fetch_delayed(s, lay, cfg, out, acts, k):
    """FetchDelayed(follower): the follower's fetch, as it would send it now, is held up on its
    way (or parked in the leader's fetch purgatory) while the follower moves on: it fetches
    again, truncates, crashes, restarts with another disk. The leader may handle the held
    request later (``LeaderHandleDelayedFetch``). Bounded by max-delayed-fetches."""
    if cfg[MAX_DELAYED_FETCHES] == 0 or delayed_fetches(s, lay) >= cfg[MAX_DELAYED_FETCHES]:
        return k
    for f in range(broker_count(lay)):
        if not may_fetch(s, lay, cfg, f) or has_delayed_fetch(s, lay, f):
            continue
        begin(s, out, acts, k, FETCH_DELAYED, f, NO_ARG)
        t = out[k]
        put_delayed_fetch(t, lay, f, leader_of(s, lay, f), leader_epoch(s, lay, f),
                          log_end_offset(s, lay, f))
        set_delayed_fetches(t, lay, delayed_fetches(s, lay) + 1)
        k += 1
    return k


@kernel
def leader_handle_delayed_fetch(s, lay, cfg, out, acts, k):
    """LeaderHandleDelayedFetch(follower): the leader handles a fetch the follower sent earlier
    (``Partition.updateFollowerFetchState`` with that fetch's offset): it records that offset
    as the follower's remote LEO, may add the follower to the ISR and advance its HW, on
    evidence that may be stale. The answer goes nowhere (the follower no longer waits for it).
    Refused: by a broker that no longer leads, or (KIP-320) in another epoch; since KAFKA-15221
    (3.7, with KIP-903's broker epochs) when it comes from an earlier incarnation of the follower
    (``Replica.updateFetchStateOrThrow``). KIP-903 (3.5) already keeps such a fetch from putting
    the follower in the ISR."""
    if cfg[MAX_DELAYED_FETCHES] == 0:
        return k
    fenced = cfg[RULE_FENCED_FETCH] != 0
    epochs = cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0
    for f in range(broker_count(lay)):
        if not has_delayed_fetch(s, lay, f):
            continue
        lead = delayed_fetch_leader(s, lay, f)
        offset = delayed_fetch_offset(s, lay, f)
        current = delayed_fetch_is_current(s, lay, f)
        begin(s, out, acts, k, LEADER_HANDLE_DELAYED_FETCH, f, NO_ARG)
        t = out[k]
        clear_delayed_fetch(t, lay, f)
        refused = not believes_it_leads(s, lay, lead)
        refused = refused or (fenced and delayed_fetch_epoch(s, lay, f) != leader_epoch(s, lay, lead))
        refused = refused or (cfg[RULE_STALE_FETCH_REJECTED] != 0 and not current)
        if not refused and offset <= log_end_offset(s, lay, lead):
            set_remote_leo(t, lay, lead, f, offset)
            if epochs:
                set_remote_current(t, lay, lead, f, current)
            maybe_expand_isr(t, lay, cfg, lead, f, current)
            maybe_increment_leader_hw(t, lay, cfg, lead)
        finish(t, lay, cfg)
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
        if cfg[TRACK_READS] != 0:
            record_reads(t, lay, cfg)  # a follower's HW moved: with KIP-392 it serves reads
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
def leader_shrink_isr(s, lay, cfg, out, acts, k):
    """LeaderShrinkIsr(leader, follower): ``Partition.maybeShrinkIsr``: a follower whose remote
    LEO is behind the leader's LEO leaves the ISR (lag time is not modelled, so when is a free
    choice). Before KIP-497 (2.7) the leader writes the smaller ISR itself (compare-and-set)
    and the HW may advance on it; since, it sends AlterPartition and waits for the controller's
    answer, one change at a time, the HW still counting the follower (``prepareIsrShrink``)."""
    n = broker_count(lay)
    alter = cfg[RULE_ALTER_PARTITION] != 0
    for b in range(n):
        if not believes_it_leads(s, lay, b):
            continue
        isr = isr_of(s, lay, b)
        if size_of(isr) <= 1:
            continue
        if alter:
            if alter_in_flight(s, lay, b):
                continue
        elif not isr_change_allowed(s, lay, b):
            continue
        for f in range(n):
            if f == b or not has(isr, f) or remote_leo(s, lay, b, f) >= log_end_offset(s, lay, b):
                continue
            begin(s, out, acts, k, LEADER_SHRINK_ISR, b, f)
            t = out[k]
            smaller = isr & ~(1 << f)
            if alter:
                propose_isr(t, lay, cfg, b, smaller, True)
            else:
                set_isr_of(t, lay, b, smaller)
                set_controller_isr(t, lay, smaller)
                maybe_increment_leader_hw(t, lay, cfg, b)
            finish(t, lay, cfg)
            k += 1
    return k


@kernel
def leader_expand_isr(s, lay, cfg, out, acts, k):
    """LeaderExpandIsr(leader, follower): kmc 0.1's ISR expansion as a step of its own, any time
    after a fetch (the rule ``isr-expansion-as-own-step``, in no Kafka release): a follower
    whose last fetch offset is in sync rejoins the ISR (same compare-and-set). Kafka expands the
    ISR inside the fetch that shows the follower in sync (``maybe_expand_isr``)."""
    if cfg[RULE_ISR_EXPANSION_AS_OWN_STEP] == 0:
        return k
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


@kernel
def controller_handle_alter_partition(s, lay, cfg, out, acts, k):
    """ControllerHandleAlterPartition(leader): the controller handles a leader's AlterPartition
    (``ReplicationControlManager.alterPartition``; ZooKeeper mode ``processAlterPartition``).
    In order: a request from an older leader epoch gets FENCED_LEADER_EPOCH, one from a broker
    that is not the leader INVALID_REQUEST, one with a stale partition epoch
    INVALID_UPDATE_VERSION (ZooKeeper mode answers success if the ISR asked for is already the
    ISR): the leader stays pending without retrying until new metadata reaches it. Since KIP-841
    (3.3) a fenced or shutting-down member, since KIP-903 (3.5) a member whose broker epoch is
    stale, gets INELIGIBLE_REPLICA: the leader goes back to its ISR. Otherwise the new ISR is
    committed (a ``PartitionChangeRecord``; the first one after an unclean election also marks
    the leader RECOVERED, KIP-704) and the answer carries it back."""
    if cfg[RULE_ALTER_PARTITION] == 0:
        return k
    for b in range(broker_count(lay)):
        if alter_state(s, lay, b) != ALTER_SENT:
            continue
        begin(s, out, acts, k, CONTROLLER_HANDLE_ALTER_PARTITION, b, NO_ARG)
        t = out[k]
        proposed, sent_in = alter_isr(s, lay, b), alter_leader_epoch(s, lay, b)
        leader, epoch = controller_leader(s, lay), controller_leader_epoch(s, lay)
        isr, live = controller_isr(s, lay), controller_live(s, lay)
        if sent_in < epoch or b != leader:
            set_alter(t, lay, b, ALTER_STUCK, proposed, sent_in, False)
        elif not alter_partition_epoch_current(s, lay, b):
            if not kraft(cfg) and proposed == isr:
                set_alter(t, lay, b, ALTER_ACCEPTED, isr, epoch, True)
            else:
                set_alter(t, lay, b, ALTER_STUCK, proposed, sent_in, False)
        elif not members_eligible(s, lay, cfg, b, proposed):
            set_alter(t, lay, b, ALTER_REFUSED, proposed, sent_in, False)
        else:
            if proposed != isr:
                write_partition(s, t, lay, cfg, leader, epoch, proposed, live, ELECTED_FROM_ISR)
            if kraft(cfg):
                set_leader_recovering(t, lay, False)
            set_alter(t, lay, b, ALTER_ACCEPTED, proposed, epoch, True)
        k += 1
    return k


@kernel
def members_eligible(s, lay, cfg, leader, proposed):
    """May every member of the proposed ISR be in it (AlterPartition's INELIGIBLE_REPLICA)?
    KIP-841 (3.3): registered, unfenced and not in a controlled shutdown; KIP-903 (3.5): the
    broker epoch the leader saw for an added member is still its current one."""
    if cfg[RULE_ISR_ELIGIBILITY] != 0:
        for m in range(broker_count(lay)):
            if has(proposed, m) and not may_lead(s, lay, cfg, m):
                return False
    if cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0 and not alter_member_epoch_current(s, lay, leader):
        return False
    return True


@kernel
def leader_handle_alter_partition_response(s, lay, cfg, out, acts, k):
    """LeaderHandleAlterPartitionResponse(leader): the controller's answer reaches the leader
    (``Partition.handleAlterPartitionUpdate`` / ``handleAlterPartitionError``). Success: the
    ISR it carries becomes the leader's, with its partition epoch, and the HW may move; an
    answer for another leader epoch is ignored (the leader stays pending). INELIGIBLE_REPLICA:
    back to the committed ISR, nothing retried. An answer to a state that new metadata has
    replaced in between is dropped with that state (``make_leader``)."""
    if cfg[RULE_ALTER_PARTITION] == 0:
        return k
    for b in range(broker_count(lay)):
        state = alter_state(s, lay, b)
        if not is_alive(s, lay, b) or (state != ALTER_ACCEPTED and state != ALTER_REFUSED):
            continue
        begin(s, out, acts, k, LEADER_HANDLE_ALTER_PARTITION_RESPONSE, b, NO_ARG)
        t = out[k]
        if state == ALTER_REFUSED:
            clear_alter(t, lay, b)
        elif alter_leader_epoch(s, lay, b) != leader_epoch(s, lay, b):
            set_alter(t, lay, b, ALTER_STUCK, alter_isr(s, lay, b), alter_leader_epoch(s, lay, b), False)
        else:
            set_isr_of(t, lay, b, alter_isr(s, lay, b))
            set_partition_epoch_current(t, lay, b, alter_partition_epoch_current(s, lay, b))
            clear_alter(t, lay, b)
            maybe_increment_leader_hw(t, lay, cfg, b)
        finish(t, lay, cfg)
        k += 1
    return k


# ------------------------------------------------------------------------------ LeaderAndIsr

@kernel
def become_leader_or_follower(s, lay, cfg, out, acts, k):
    """BecomeLeaderOrFollower(broker, leader_epoch): ``ReplicaManager.becomeLeaderOrFollower``
    applies a LeaderAndIsr request (KRaft: ``ReplicaManager.applyDelta`` applies the metadata
    records of a new leader epoch). Requests arrive late and in any order; a broker ignores one
    whose epoch is not newer than its own (those are dropped from flight); in KRaft a broker that
    lags applies several records at once and sees only the newest. After a ZooKeeper controller
    failover a request also carries the controller epoch: one from a newer controller with the
    same leader epoch only teaches the broker that epoch (the new controller resends the
    partition's state), and with ``controller-epoch`` one from an older controller is refused
    (STALE_CONTROLLER_EPOCH; ``finish`` drops those)."""
    failovers = cfg[MAX_CONTROLLER_FAILOVERS] > 0
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b):
            continue
        own = leader_epoch(s, lay, b)
        for e in range(epoch_slots(lay)):
            if not leader_and_isr_pending(s, lay, b, e):
                continue
            newer_controller = False
            if failovers:
                sender = leader_and_isr_controller_epoch(s, lay, b, e)
                newer_controller = sender > controller_epoch_seen(s, lay, b)
            if e <= own and not newer_controller:
                continue
            leader = leader_and_isr_leader(s, lay, b, e)
            isr = leader_and_isr_isr(s, lay, b, e)
            begin(s, out, acts, k, BECOME_LEADER_OR_FOLLOWER, b, e)
            t = out[k]
            if failovers and newer_controller:
                set_controller_epoch_seen(t, lay, b, leader_and_isr_controller_epoch(s, lay, b, e))
            if cfg[RULE_ALTER_PARTITION] != 0 and e > own:
                set_partition_epoch_current(t, lay, b, leader_and_isr_current(s, lay, b, e))
            drop_leader_and_isr(t, lay, b, e)
            if e > own:
                if leader == b:
                    make_leader(t, lay, cfg, b, e, isr)
                else:
                    make_follower(t, lay, cfg, b, e, leader)
            finish(t, lay, cfg)
            k += 1
    return k


@kernel
def broker_apply_partition_change(s, lay, cfg, out, acts, k):
    """BrokerApplyPartitionChange(broker): KRaft: a broker applies a ``PartitionChangeRecord``
    that keeps the leader epoch (an ISR change) (``Partition.makeLeader`` / ``makeFollower`` with
    only the partition epoch newer, 3.3+). A leader takes the new ISR, drops any pending
    AlterPartition state and may advance its HW; a follower keeps fetching as before."""
    if cfg[RULE_KRAFT] == 0:
        return k
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b) or not change_pending(s, lay, b):
            continue
        if change_leader_epoch(s, lay, b) != leader_epoch(s, lay, b):
            continue  # the record of its leader epoch comes first
        begin(s, out, acts, k, BROKER_APPLY_PARTITION_CHANGE, b, NO_ARG)
        t = out[k]
        set_partition_epoch_current(t, lay, b, change_current(s, lay, b))
        clear_change(t, lay, b)
        if leader_of(s, lay, b) == b:
            set_isr_of(t, lay, b, change_isr(s, lay, b))
            clear_alter(t, lay, b)
            maybe_increment_leader_hw(t, lay, cfg, b)
        finish(t, lay, cfg)
        k += 1
    return k


# ------------------------------------------------------------------------------ the controller

@kernel
def controller_elect_leader(s, lay, cfg, out, acts, k):
    """ControllerElectLeader(new_leader): leadership moves to another live ISR member with no
    failure (preferred-replica election, ``auto.leader.rebalance.enable``); the old leader keeps
    running and learns of it only later. The epoch goes up and the change reaches the live
    brokers."""
    leader = controller_leader(s, lay)
    if leader == NO_LEADER or not epoch_available(s, lay, cfg):
        return k
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    epoch = controller_leader_epoch(s, lay) + 1
    for n in range(broker_count(lay)):
        if n == leader or not has(isr, n) or not may_lead(s, lay, cfg, n):
            continue
        begin(s, out, acts, k, CONTROLLER_ELECT_LEADER, n, NO_ARG)
        write_partition(s, out[k], lay, cfg, n, epoch, isr, live, ELECTED_FROM_ISR)
        k += 1
    return k


@kernel
def controller_remove_broker(s, lay, cfg, out, acts, k, action, b, unclean_shutdown):
    """The controller takes broker ``b`` out of the partition (``onBrokerFailure``; KRaft
    ``ReplicationControlManager.handleBrokerFenced``): out of its live set and out of the ISR
    (the last member stays, but with KIP-966's ELR); if it led, a new leader is elected
    (``leader_candidates``), else nobody (offline). A leader change bumps the leader epoch, and
    so does an ISR shrink except in KRaft since 3.6 (KAFKA-15021). With ``unclean_shutdown``
    (KIP-966 at re-registration) ``b`` also leaves the ELR. Writes one successor per choice of
    new leader, labelled ``action(b, new leader)``."""
    n = broker_count(lay)
    leader = controller_leader(s, lay)
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    epoch = controller_leader_epoch(s, lay)
    still_live = live & ~(1 << b)
    if b == leader:
        if not epoch_available(s, lay, cfg):
            return k
        target = target_isr_without(cfg, isr, b)
        candidates, how = leader_candidates(s, lay, cfg, target, b)
        if candidates == 0:
            begin(s, out, acts, k, action, b, NO_LEADER)
            t = out[k]
            write_partition(s, t, lay, cfg, NO_LEADER, epoch + 1, target, still_live, NOBODY)
            forget_unclean_member(t, lay, cfg, b, unclean_shutdown)
            return k + 1
        for c in range(n):
            if not has(candidates, c):
                continue
            begin(s, out, acts, k, action, b, c)
            t = out[k]
            write_partition(s, t, lay, cfg, c, epoch + 1, isr_after_election(cfg, target, c, how),
                            still_live, how)
            forget_unclean_member(t, lay, cfg, b, unclean_shutdown)
            k += 1
        return k
    target = target_isr_without(cfg, isr, b)
    if target != isr:
        bump = isr_shrink_bumps_epoch(cfg)
        if bump and not epoch_available(s, lay, cfg):
            return k
        begin(s, out, acts, k, action, b, leader)
        t = out[k]
        write_partition(s, t, lay, cfg, leader, epoch + 1 if bump else epoch, target, still_live,
                        ELECTED_FROM_ISR)
        forget_unclean_member(t, lay, cfg, b, unclean_shutdown)
        return k + 1
    begin(s, out, acts, k, action, b, leader)
    set_controller_live(out[k], lay, still_live)
    forget_unclean_member(out[k], lay, cfg, b, unclean_shutdown)
    return k + 1


@kernel
def forget_unclean_member(t, lay, cfg, b, unclean_shutdown):
    """KIP-966: a broker whose unclean shutdown is being handled leaves the ELR (the ISR it has
    already left)."""
    if unclean_shutdown and cfg[RULE_ELR] != 0:
        set_elr(t, lay, elr(t, lay) & ~(1 << b), last_known_elr(t, lay))


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
        k = controller_remove_broker(s, lay, cfg, out, acts, k, CONTROLLER_HANDLE_BROKER_FAILURE, b, False)
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
        k = controller_remove_broker(s, lay, cfg, out, acts, k, CONTROLLER_FENCE_BROKER, b, False)
        for j in range(k0, k):
            set_session_expiries(out[j], lay, session_expiries(s, lay) + 1)
    return k


@kernel
def controller_unfence_broker(s, lay, cfg, out, acts, k):
    """ControllerUnfenceBroker(broker): a running broker the controller had lost registers again
    (a new ZooKeeper session: ``KafkaController.onBrokerStartup``) or heartbeats again (KRaft
    ``handleBrokerUnfenced``): it is live again and is sent the partition's state, electing it
    first if the partition is offline and it may lead."""
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
    (``controlled.shutdown.enable``) and the controller marks it shutting down, moves its
    leadership to another live ISR member (the ISR without it, epoch + 1) or, if it follows,
    removes it from the ISR (``KafkaController.doControlledShutdown``; KRaft
    ``handleBrokerInControlledShutdown``, KIP-841). With no other ISR member to lead, a
    ZooKeeper controller cannot move the partition and the shutdown is not controlled (the
    broker retries, then stops anyway: a crash); a KRaft controller elects as for any removal
    (``generateLeaderAndIsrUpdates``: a live ELR member, or where unclean election is allowed
    any live replica) or else leaves the partition without a leader. The broker keeps running until ``BrokerShutdown``. Bounded by
    max-controlled-shutdowns."""
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
        target = target_isr_without(cfg, isr, b)
        k0 = k
        if b == leader:
            if not epoch_available(s, lay, cfg):
                continue
            candidates, how = leader_candidates(s, lay, cfg, target, b)
            if how != ELECTED_FROM_ISR and not kraft(cfg):
                # ZooKeeper: ControlledShutdownLeaderElectionStrategy picks from the live ISR only
                candidates = 0
            if candidates == 0 and kraft(cfg):
                begin(s, out, acts, k, CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN, b, NO_LEADER)
                write_partition(s, out[k], lay, cfg, NO_LEADER, epoch + 1, target, live, NOBODY)
                k += 1
            for c in range(n):
                if not has(candidates, c):
                    continue
                # KRaft: handleBrokerInControlledShutdown runs the same PartitionChangeBuilder as
                # any removal, so an ELR member or (where allowed) an unclean candidate may win
                begin(s, out, acts, k, CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN, b, c)
                write_partition(s, out[k], lay, cfg, c, epoch + 1, isr_after_election(cfg, target, c, how),
                                live, how)
                k += 1
        elif target != isr:
            bump = isr_shrink_bumps_epoch(cfg)
            if bump and not epoch_available(s, lay, cfg):
                continue
            begin(s, out, acts, k, CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN, b, leader)
            write_partition(s, out[k], lay, cfg, leader, epoch + 1 if bump else epoch, target, live,
                            ELECTED_FROM_ISR)
            k += 1
        else:
            begin(s, out, acts, k, CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN, b, leader)
            k += 1
        for j in range(k0, k):
            set_shutting_down(out[j], lay, b, True)
            set_controlled_shutdowns(out[j], lay, count)
    return k


# ------------------------------------------------------------------------------ controller failover

@kernel
def controller_failover(s, lay, cfg, out, acts, k):
    """ControllerFailover: ZooKeeper mode: the controller's session expires and another broker
    becomes controller with the next controller epoch (``KafkaController.onControllerFailover``).
    It reads the partition's state from ZooKeeper and sends it to every live broker
    (``ReplicaStateMachine.startup``), with the same leader epoch. The deposed controller does
    not know yet: it is a zombie with its view of the partition frozen (every write it tries
    is a compare-and-set on the partition's zkVersion, and since KAFKA-6082 on the controller
    epoch's, so it cannot change the partition), but it may still send that view to brokers
    (``ZombieControllerSendLeaderAndIsr``). Bounded by max-controller-failovers; KRaft's Raft
    quorum leaves no such zombie."""
    if cfg[MAX_CONTROLLER_FAILOVERS] == 0 or controller_failovers(s, lay) >= cfg[MAX_CONTROLLER_FAILOVERS]:
        return k
    begin(s, out, acts, k, CONTROLLER_FAILOVER, NO_ARG, NO_ARG)
    t = out[k]
    leader, epoch = controller_leader(s, lay), controller_leader_epoch(s, lay)
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    set_zombie_controller(t, lay, True, controller_epoch(s, lay), leader, epoch, isr)
    for b in range(broker_count(lay)):
        set_zombie_request(t, lay, b, False)  # an older zombie's requests are superseded too
    set_controller_epoch(t, lay, controller_epoch(s, lay) + 1)
    set_controller_failovers(t, lay, controller_failovers(s, lay) + 1)
    for b in range(broker_count(lay)):
        if has(live, b) and is_alive(t, lay, b):
            send_leader_and_isr(t, lay, cfg, b, epoch, leader, isr)
    finish(t, lay, cfg)
    return k + 1


@kernel
def zombie_controller_send_leader_and_isr(s, lay, cfg, out, acts, k):
    """ZombieControllerSendLeaderAndIsr(broker): the deposed controller, still processing its
    event queue (a broker change it saw, a request it had queued), sends its stale view of the
    partition to a live broker, with its old controller epoch. Only a broker behind that view's
    leader epoch could take it."""
    if cfg[MAX_CONTROLLER_FAILOVERS] == 0 or not has_zombie_controller(s, lay):
        return k
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b) or zombie_request_pending(s, lay, b):
            continue
        if zombie_leader_epoch(s, lay) <= leader_epoch(s, lay, b):
            continue  # it would ignore it: not an action
        begin(s, out, acts, k, ZOMBIE_CONTROLLER_SEND_LEADER_AND_ISR, b, NO_ARG)
        set_zombie_request(out[k], lay, b, True)
        k += 1
    return k


@kernel
def broker_handle_zombie_leader_and_isr(s, lay, cfg, out, acts, k):
    """BrokerHandleZombieLeaderAndIsr(broker): the zombie controller's LeaderAndIsr reaches the
    broker. With ``controller-epoch`` (every release since 0.8) a broker that has obeyed the new
    controller refuses it (STALE_CONTROLLER_EPOCH); otherwise, if its leader epoch is newer than
    the broker's, the broker applies it and becomes leader or follower as the zombie's view
    says."""
    if cfg[MAX_CONTROLLER_FAILOVERS] == 0:
        return k
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b) or not zombie_request_pending(s, lay, b):
            continue
        begin(s, out, acts, k, BROKER_HANDLE_ZOMBIE_LEADER_AND_ISR, b, NO_ARG)
        t = out[k]
        set_zombie_request(t, lay, b, False)
        sender = zombie_controller_epoch(s, lay)
        stale = cfg[RULE_CONTROLLER_EPOCH] != 0 and sender < controller_epoch_seen(s, lay, b)
        epoch = zombie_leader_epoch(s, lay)
        if not stale and epoch > leader_epoch(s, lay, b):
            if sender > controller_epoch_seen(s, lay, b):
                set_controller_epoch_seen(t, lay, b, sender)
            if zombie_leader(s, lay) == b:
                make_leader(t, lay, cfg, b, epoch, zombie_isr(s, lay))
            else:
                make_follower(t, lay, cfg, b, epoch, zombie_leader(s, lay))
        finish(t, lay, cfg)
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
    if cfg[RULE_ALTER_PARTITION] != 0:
        clear_alter(t, lay, b)  # simplification: a request in flight dies with its connection
        set_partition_epoch_current(t, lay, b, False)
    if cfg[RULE_KRAFT] != 0:
        clear_change(t, lay, b)
    if cfg[MAX_CONTROLLER_FAILOVERS] > 0:  # a restarted broker has obeyed no controller yet
        set_controller_epoch_seen(t, lay, b, 0)
        set_zombie_request(t, lay, b, False)


@kernel
def broker_crash(s, lay, cfg, out, acts, k):
    """BrokerCrash(broker): the process stops (``stop_broker``); with power-loss crashes the
    records not yet flushed are lost too, with disk-loss crashes the whole disk (a replaced
    disk: log and checkpoints), each bounded by max-unflushed-losses."""
    if crashes(s, lay) >= cfg[MAX_CRASHES]:
        return k
    power_loss = cfg[POWER_LOSS] != 0
    disk_loss = cfg[DISK_LOSS] != 0
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b):
            continue
        loses = power_loss and flushed_offset(s, lay, b) < log_end_offset(s, lay, b)
        if disk_loss:
            loses = log_end_offset(s, lay, b) > 0 or high_watermark(s, lay, b) > 0
        if loses and unflushed_losses(s, lay) >= cfg[MAX_UNFLUSHED_LOSSES]:
            continue
        begin(s, out, acts, k, BROKER_CRASH, b, NO_ARG)
        t = out[k]
        if loses and disk_loss:  # the disk is replaced: log, HW checkpoint, all gone
            truncate_to(t, lay, b, 0)
            set_high_watermark(t, lay, b, 0)
            if cfg[HW_CHECKPOINT_INTERVAL] != 0:
                set_checkpointed_hw(t, lay, b, 0)
            set_unflushed_losses(t, lay, unflushed_losses(s, lay) + 1)
        elif loses:
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
        if cfg[RULE_ELR] != 0:
            set_shut_down_cleanly(t, lay, b, True)  # LogManager writes .kafka_cleanshutdown
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
        if cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0:
            new_incarnation(t, lay, cfg, b)
        if cfg[RULE_ELR] != 0:
            if not shut_down_cleanly(t, lay, b):
                handle_unclean_shutdown(t, lay, cfg, b)
            set_shut_down_cleanly(t, lay, b, False)  # the clean-shutdown file is read once
        controller_register_broker(t, t, lay, cfg, b)
        k += 1
    return k


@kernel
def new_incarnation(t, lay, cfg, b):
    """KIP-903: ``b`` registers with a new broker epoch: what leaders learnt from its earlier
    incarnation's fetches, its fetches still in flight, and ISR changes that would add it on
    that evidence all carry a stale broker epoch now."""
    for leader in range(broker_count(lay)):
        set_remote_current(t, lay, leader, b, False)
        if alter_in_flight(t, lay, leader) and has(alter_isr(t, lay, leader), b) and not has(isr_of(t, lay, leader), b):
            set_alter_member_epoch_current(t, lay, leader, False)
    if cfg[MAX_DELAYED_FETCHES] > 0:
        mark_delayed_fetch_stale(t, lay, b)


@kernel
def handle_unclean_shutdown(t, lay, cfg, b):
    """KIP-966 (4.0+): a broker that registers after an unclean shutdown (no clean-shutdown
    file: it crashed) may have lost what it had not flushed, so the controller takes it out of
    the ISR and the ELR (``ReplicationControlManager.handleBrokerUncleanShutdown``). It is not
    the leader (KIP-380: its failure was handled before it could register)."""
    isr, leader = controller_isr(t, lay), controller_leader(t, lay)
    if not has(isr, b) and not has(elr(t, lay), b):
        return
    target = target_isr_without(cfg, isr, b)
    epoch = controller_leader_epoch(t, lay)
    bump = target != isr and isr_shrink_bumps_epoch(cfg)
    if bump:
        if not epoch_available(t, lay, cfg):
            return  # the epoch bound: the change cannot be written (kept out of the search)
        epoch += 1
    write_partition(t, t, lay, cfg, leader, epoch, target, controller_live(t, lay), ELECTED_FROM_ISR)
    forget_unclean_member(t, lay, cfg, b, True)


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
    k = controller_handle_alter_partition(s, lay, cfg, out, acts, k)
    k = leader_handle_alter_partition_response(s, lay, cfg, out, acts, k)
    k = broker_apply_partition_change(s, lay, cfg, out, acts, k)
    k = fetch_delayed(s, lay, cfg, out, acts, k)
    k = leader_handle_delayed_fetch(s, lay, cfg, out, acts, k)
    k = controller_failover(s, lay, cfg, out, acts, k)
    k = zombie_controller_send_leader_and_isr(s, lay, cfg, out, acts, k)
    k = broker_handle_zombie_leader_and_isr(s, lay, cfg, out, acts, k)
    return k
