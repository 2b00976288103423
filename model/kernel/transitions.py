"""Pieces of behaviour several actions share, named after the Kafka methods they model.

Each works in place on a successor row ``t`` (a copy of the state being expanded).
"""

from __future__ import annotations

from model.kernel.jit import kernel

from model.kernel.epoch_cache import offset_for_truncation_0_11, offset_for_truncation_loop
from model.kernel.fields import (
    ACK_DONE, ACK_NONE, ACK_PENDING, NO_LEADER, ack_leader, ack_offset, ack_state, broker_count,
    clear_fetch_response, drop_leader_and_isr, flushed_offset, forget_remote_leos, has,
    high_watermark, is_alive, isr_of, leader_and_isr_pending, leader_epoch, leader_of,
    log_end_offset, put_leader_and_isr, record_id_at, record_slots, remote_leo, set_ack, set_remote_leo,
    set_flushed_offset, set_high_watermark, set_isr_of, set_leader_epoch, set_leader_of,
    set_truncating, set_visible, set_visible_count, size_of, true_leader, truncate_to,
    visible_count, visible_record, epoch_slots, controller_isr, controller_leader,
    controller_leader_epoch, controller_live, set_controller,
)
from model.kernel.params import (
    MAX_LEADER_EPOCH, MIN_INSYNC_REPLICAS, POWER_LOSS, UNCLEAN_LEADER_ELECTION, RULE_EPOCH_CACHE_ON_ELECTION, RULE_HW_NEEDS_MIN_ISR, RULE_RESET_FOLLOWERS_ON_EPOCH,
    RULE_TRUNCATE_ON_EPOCH_CHANGE, RULE_TRUNCATION, TRUNCATE_BY_EPOCH_0_11, TRUNCATE_TO_HW,
)
from model.kernel.fields import UNDEFINED_EPOCH


@kernel
def epoch_available(s, lay, cfg):
    """May the controller start another leader epoch (the max-leader-epoch bound)?"""
    return controller_leader_epoch(s, lay) < cfg[MAX_LEADER_EPOCH]


@kernel
def controller_register_broker(s, t, lay, cfg, b):
    """The controller learns that broker ``b`` is up (``KafkaController.onBrokerStartup``, a
    KRaft registration or unfencing): ``b`` joins its live set and is sent the partition's
    state; if the partition is offline and ``b`` may lead (an ISR member, or any broker with
    unclean.leader.election.enable), ``b`` is elected first and every live broker told. Reads
    the controller's state from ``s`` and writes ``t``."""
    leader = controller_leader(s, lay)
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    epoch = controller_leader_epoch(s, lay)
    c_leader, c_epoch, c_isr, c_live, targets = leader, epoch, isr, live, 1 << b
    if not has(live, b):
        c_live = live | (1 << b)
        if leader == NO_LEADER and epoch_available(s, lay, cfg):
            if has(isr, b):
                c_leader, c_epoch, targets = b, epoch + 1, c_live
            elif cfg[UNCLEAN_LEADER_ELECTION] != 0:
                c_leader, c_epoch, c_isr, targets = b, epoch + 1, 1 << b, c_live
    set_controller(t, lay, c_leader, c_epoch, c_isr, c_live)
    send_leader_and_isr(t, lay, targets, c_epoch, c_leader, c_isr)


@kernel
def maybe_increment_leader_hw(t, lay, cfg, leader):
    """``Partition.maybeIncrementLeaderHW``: HW = max(HW, min LEO over the ISR), then complete
    the parked acks=all requests the new HW satisfies. Since KAFKA-15583 (3.7) not while the ISR
    is smaller than min.insync.replicas (``isUnderMinIsr``), whatever acks the producer uses."""
    isr = isr_of(t, lay, leader)
    if cfg[RULE_HW_NEEDS_MIN_ISR] != 0 and size_of(isr) < cfg[MIN_INSYNC_REPLICAS]:
        return
    new_hw = log_end_offset(t, lay, leader)
    for f in range(broker_count(lay)):
        if f != leader and has(isr, f):
            leo = remote_leo(t, lay, leader, f)
            if leo < new_hw:
                new_hw = leo
    if new_hw <= high_watermark(t, lay, leader):
        return
    set_high_watermark(t, lay, leader, new_hw)
    complete_delayed_produce(t, lay, cfg, leader)


@kernel
def complete_delayed_produce(t, lay, cfg, leader):
    """``DelayedProduce.tryComplete``: a parked request whose record is below the HW is answered;
    success only if the ISR still has ``min.insync.replicas`` members, else
    NOT_ENOUGH_REPLICAS_AFTER_APPEND (the record stays in the log)."""
    hw = high_watermark(t, lay, leader)
    enough = size_of(isr_of(t, lay, leader)) >= cfg[MIN_INSYNC_REPLICAS]
    for r in range(1, record_slots(lay) + 1):
        if ack_state(t, lay, r) == ACK_PENDING and ack_leader(t, lay, r) == leader:
            offset = ack_offset(t, lay, r)
            if offset < hw:
                if enough:
                    set_ack(t, lay, r, ACK_DONE, -1, offset)
                else:
                    set_ack(t, lay, r, ACK_NONE, -1, -1)


@kernel
def fail_parked_produce(t, lay, broker):
    """A broker that stops leading (or crashes) answers its parked produce requests with an
    error (NOT_LEADER_OR_FOLLOWER): they are no longer pending, and not acknowledged."""
    for r in range(1, record_slots(lay) + 1):
        if ack_state(t, lay, r) == ACK_PENDING and ack_leader(t, lay, r) == broker:
            set_ack(t, lay, r, ACK_NONE, -1, -1)


@kernel
def trim_flushed(t, lay, cfg, b):
    """After a truncation the flushed offset cannot lie past the LEO (power-loss model)."""
    if cfg[POWER_LOSS] != 0 and flushed_offset(t, lay, b) > log_end_offset(t, lay, b):
        set_flushed_offset(t, lay, b, log_end_offset(t, lay, b))


@kernel
def send_leader_and_isr(t, lay, targets, epoch, leader, isr):
    """Queue LeaderAndIsr to the live brokers among ``targets`` (a mask): a request to a dead
    broker is lost with its connection, and a restarted broker is sent fresh state."""
    for b in range(broker_count(lay)):
        if has(targets, b) and is_alive(t, lay, b):
            put_leader_and_isr(t, lay, b, epoch, leader, isr)


@kernel
def finish(t, lay):
    """Bookkeeping after a step that can change a leader's HW or a broker's epoch: drop the
    LeaderAndIsr requests their broker would now ignore (an epoch not newer than its own), and
    extend the consumer-visible history if the true leader's HW grew past it."""
    for b in range(broker_count(lay)):
        own = leader_epoch(t, lay, b)
        for e in range(epoch_slots(lay)):
            if e > own:
                break
            if leader_and_isr_pending(t, lay, b, e):
                drop_leader_and_isr(t, lay, b, e)
    leader = true_leader(t, lay)
    if leader == NO_LEADER:
        return
    hw = high_watermark(t, lay, leader)
    seen = visible_count(t, lay)
    if hw <= seen:
        return
    for i in range(seen):
        if record_id_at(t, lay, leader, i) != visible_record(t, lay, i):
            return  # the leader's log no longer starts with what was visible
    for i in range(seen, hw):
        set_visible(t, lay, i, record_id_at(t, lay, leader, i))
    set_visible_count(t, lay, hw)


@kernel
def truncation_cache_epoch(t, lay, cfg, leader):
    """The current-epoch entry of the leader's epoch cache, where the release has one: since
    Kafka 2.1 (KAFKA-7415) ``makeLeader`` assigns the new epoch at the LEO up front; before, a
    leader's cache learnt an epoch only from a record it appended in it."""
    if cfg[RULE_EPOCH_CACHE_ON_ELECTION] != 0:
        return leader_epoch(t, lay, leader)
    return UNDEFINED_EPOCH


@kernel
def offset_for_truncation(t, lay, cfg, follower, leader):
    """Where a truncating follower cuts its log, per the release's OffsetsForLeaderEpoch."""
    cache_epoch = truncation_cache_epoch(t, lay, cfg, leader)
    if cfg[RULE_TRUNCATION] == TRUNCATE_BY_EPOCH_0_11:
        return offset_for_truncation_0_11(t, lay, follower, leader, cache_epoch)
    return offset_for_truncation_loop(t, lay, follower, leader, cache_epoch)


@kernel
def make_leader(t, lay, cfg, b, epoch, isr):
    """``Partition.makeLeader``: take the epoch and the ISR; forget the followers' LEOs when a
    different broker led before (``Replica.resetReplicaState`` with ``isNewLeader``), or on
    every new epoch under kmc 0.1's stricter rule; then advance the HW if the ISR allows it.

    A broker that led before keeps what it knew of its followers (every Kafka since 1.0). Kept
    LEOs of followers outside the new ISR are forgotten all the same: Kafka uses them for
    nothing until that follower's next fetch overwrites them (the HW reads ISR members only,
    and ``maybeExpandIsr`` runs inside the fetch), while kmc's LeaderExpandIsr is a step of its
    own that must not readmit a follower on a LEO from before its truncation."""
    was_leader = leader_of(t, lay, b) == b
    if not was_leader or cfg[RULE_RESET_FOLLOWERS_ON_EPOCH] != 0:
        forget_remote_leos(t, lay, b)
    else:
        for f in range(broker_count(lay)):
            if not has(isr, f):
                set_remote_leo(t, lay, b, f, -1)
    set_leader_epoch(t, lay, b, epoch)
    set_leader_of(t, lay, b, b)
    set_isr_of(t, lay, b, isr)
    set_truncating(t, lay, b, False)
    clear_fetch_response(t, lay, b)
    maybe_increment_leader_hw(t, lay, cfg, b)


@kernel
def make_follower(t, lay, cfg, b, epoch, leader):
    """``Partition.makeFollower``: follow ``leader`` in ``epoch``; a leader stepping down fails its
    parked produce requests; what happens to the log depends on the release: truncate to the
    HW at once (before 0.11), or start the fetcher in the truncating state (OffsetsForLeaderEpoch,
    0.11 and later), on a new leader only or on every new epoch (2.1, KIP-320)."""
    new_leader = leader_of(t, lay, b) != leader
    set_leader_epoch(t, lay, b, epoch)
    set_leader_of(t, lay, b, leader)
    set_isr_of(t, lay, b, 0)
    forget_remote_leos(t, lay, b)
    clear_fetch_response(t, lay, b)
    if leader == NO_LEADER:
        set_truncating(t, lay, b, False)
    elif new_leader or cfg[RULE_TRUNCATE_ON_EPOCH_CHANGE] != 0:
        if cfg[RULE_TRUNCATION] == TRUNCATE_TO_HW:
            truncate_to(t, lay, b, high_watermark(t, lay, b))
            set_truncating(t, lay, b, False)
        else:
            set_truncating(t, lay, b, log_end_offset(t, lay, b) > 0)
        trim_flushed(t, lay, cfg, b)
    fail_parked_produce(t, lay, b)
