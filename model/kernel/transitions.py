"""Pieces of behaviour several actions share, named after the Kafka methods they model.

Each works in place on a successor row ``t`` (a copy of the state being expanded).
"""

from __future__ import annotations

from model.kernel.guards import G_HW_MIN_OVER_ISR, G_ISR_JOIN_NEEDS_HW, skipped
from model.kernel.jit import kernel

from model.kernel.epoch_cache import offset_for_truncation_0_11, offset_for_truncation_loop
from model.kernel.fields import (
    controller_epoch_seen, leader_and_isr_controller_epoch, set_zombie_request,
    zombie_controller_epoch, zombie_leader_epoch, zombie_request_pending,
)
from model.kernel.fields import (
    ACK_DONE, ACK_NONE, ACK_PENDING, NO_LEADER, ack_leader, ack_offset, ack_state, broker_count,
    clear_fetch_response, drop_leader_and_isr, flushed_offset, forget_remote_leos, has,
    high_watermark, is_alive, is_shutting_down, isr_of, leader_and_isr_pending, leader_epoch, leader_of,
    log_end_offset, record_id_at, record_slots, remote_leo, set_ack, set_remote_leo,
    set_flushed_offset, set_high_watermark, set_isr_of, set_leader_epoch, set_leader_of,
    set_truncating, set_visible, set_visible_count, size_of, true_leader, truncate_to,
    visible_count, visible_record, epoch_slots, controller_leader,
    controller_leader_epoch, set_controller_isr,
    ALTER_SENT, alter_in_flight, alter_isr, change_leader_epoch, change_pending, clear_alter,
    clear_change, partition_epoch_current, set_alter, set_alter_member_epoch_current,
    set_partition_epoch_current,
    set_remote_current,
)
from model.kernel.controller import may_lead, refuses_zombie
from model.kernel.fields import read_offset, set_read_offset
from model.kernel.params import EPOCH_START_OFFSET, FETCH_FROM_FOLLOWERS, TRACK_READS
from model.kernel.params import (
    MAX_CONTROLLED_SHUTDOWNS, MAX_CONTROLLER_FAILOVERS, MIN_INSYNC_REPLICAS, POWER_LOSS, TRUNCATE_BY_EPOCH_0_11,
    TRUNCATE_BY_EPOCH_LOOP, TRUNCATE_TO_HW,
)
from model.rules import (
    RULE_ALTER_PARTITION, RULE_BROKER_EPOCH_IN_FETCH, RULE_CONTROLLER_EPOCH,
    RULE_EPOCH_CACHE_ON_ELECTION, RULE_EPOCH_TRUNCATION, RULE_EPOCH_TRUNCATION_LOOP,
    RULE_HW_NEEDS_MIN_ISR, RULE_HW_WAITS_FOR_CAUGHT_UP_REPLICA, RULE_ISR_ELIGIBILITY, RULE_ISR_EXPANSION_AS_OWN_STEP,
    RULE_ISR_JOIN_NEEDS_EPOCH_START, RULE_ISR_SHRINK_KEEPS_LEADER_EPOCH, RULE_KRAFT,
    RULE_RESET_FOLLOWERS_ON_EPOCH, RULE_TRUNCATE_ON_EPOCH_CHANGE,
)
from model.kernel.fields import remote_is_current
from model.kernel.epoch_cache import first_offset_of_epoch, leader_epoch_start_offset
from model.kernel.fields import set_epoch_start_offset
from model.kernel.fields import UNDEFINED_EPOCH


@kernel
def isr_change_allowed(s, lay, leader):
    """The ISR write is a compare-and-set against the controller (ZooKeeper's ``zkVersion``,
    AlterPartition's partition epoch): it fails for a leader with a stale epoch."""
    return controller_leader(s, lay) == leader and controller_leader_epoch(s, lay) == leader_epoch(s, lay, leader)


@kernel
def is_follower_in_sync(s, lay, cfg, leader, follower_leo):
    """``Partition.isFollowerInSync`` (2.4+; inline in ``maybeExpandIsr`` at 2.1.0): may a
    follower rejoin the ISR? Its LEO has reached the HW;
    since KAFKA-7128 also the start of the leader's current epoch, so a lagging HW cannot
    let it in without records the leader committed in an earlier epoch."""
    if follower_leo < high_watermark(s, lay, leader) and not skipped(cfg, G_ISR_JOIN_NEEDS_HW):
        return False
    if cfg[RULE_ISR_JOIN_NEEDS_EPOCH_START] != 0:
        return follower_leo >= leader_epoch_start_offset(s, lay, cfg, leader)
    return True


@kernel
def would_expand_isr(s, lay, cfg, leader, f, fetch_offset, current_incarnation):
    """Would a fetch from ``f`` at ``fetch_offset`` make ``leader`` add ``f`` to its ISR
    (``Partition.maybeExpandIsr``)? Not under kmc 0.1's rule, where expansion is a step of its
    own. Before KIP-497 the leader writes the ISR itself (compare-and-set); since, it asks the
    controller, one change at a time; since KIP-841 (3.3) not for a fenced or shutting-down
    follower (``isReplicaIsrEligible``), since KIP-903 (3.5) not on a fetch from an earlier
    incarnation of the follower (``isBrokerEpochIsrEligible``)."""
    if cfg[RULE_ISR_EXPANSION_AS_OWN_STEP] != 0 or has(isr_of(s, lay, leader), f):
        return False
    if cfg[RULE_ALTER_PARTITION] != 0:
        if alter_in_flight(s, lay, leader):
            return False
    elif not isr_change_allowed(s, lay, leader):
        return False
    if cfg[RULE_ISR_ELIGIBILITY] != 0 and not may_lead(s, lay, cfg, f):
        return False
    if cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0 and not current_incarnation:
        return False
    return is_follower_in_sync(s, lay, cfg, leader, fetch_offset)


@kernel
def maybe_expand_isr(t, lay, cfg, leader, f, current_incarnation):
    """``Partition.maybeExpandIsr``, run inside the leader's handling of ``f``'s fetch (after
    the fetch offset became ``f``'s remote LEO): a follower in sync again rejoins the ISR: the
    leader writes it (compare-and-set) or, since KIP-497, proposes it to the controller."""
    if not would_expand_isr(t, lay, cfg, leader, f, remote_leo(t, lay, leader, f), current_incarnation):
        return
    larger = isr_of(t, lay, leader) | (1 << f)
    if cfg[RULE_ALTER_PARTITION] != 0:
        propose_isr(t, lay, cfg, leader, larger, current_incarnation)
        return
    set_isr_of(t, lay, leader, larger)
    set_controller_isr(t, lay, larger)


@kernel
def propose_isr(t, lay, cfg, leader, proposed, member_epoch_current):
    """KIP-497: the leader sends AlterPartition(leader epoch, partition epoch, ``proposed``) and
    waits (``prepareIsrExpand`` / ``prepareIsrShrink`` from 3.2.0; ``expandIsr`` / ``shrinkIsr``
    with ``PendingExpandIsr`` / ``PendingShrinkIsr`` at 2.7.0); with KIP-903 the request carries the
    broker epoch the leader saw for an added member."""
    set_alter(t, lay, leader, ALTER_SENT, proposed, leader_epoch(t, lay, leader),
              partition_epoch_current(t, lay, leader))
    if cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0:
        set_alter_member_epoch_current(t, lay, leader, member_epoch_current)


@kernel
def maximal_isr(t, lay, cfg, leader):
    """The ISR the leader's HW waits for (``PartitionState.maximalIsr``): its ISR, and while an
    AlterPartition is pending, a member it is adding too (one it is removing still counts)."""
    isr = isr_of(t, lay, leader)
    if cfg[RULE_ALTER_PARTITION] != 0 and alter_in_flight(t, lay, leader):
        isr |= alter_isr(t, lay, leader)
    return isr


@kernel
def maybe_increment_leader_hw(t, lay, cfg, leader):
    """``Partition.maybeIncrementLeaderHW``: HW = max(HW, min LEO over the (maximal) ISR and,
    with the timed rule ``hw-waits-for-caught-up-replica``, the caught-up followers outside it
    (``waits_for_caught_up``)), then complete the parked acks=all requests the new HW
    satisfies. Since KAFKA-15583 (3.7) not while the ISR is smaller than min.insync.replicas
    (``isUnderMinIsr``), whatever acks the producer uses."""
    if cfg[RULE_HW_NEEDS_MIN_ISR] != 0 and size_of(isr_of(t, lay, leader)) < cfg[MIN_INSYNC_REPLICAS]:
        return  # the committed ISR (Partition.isUnderMinIsr)
    isr = maximal_isr(t, lay, cfg, leader)
    waits = cfg[RULE_HW_WAITS_FOR_CAUGHT_UP_REPLICA] != 0
    new_hw = log_end_offset(t, lay, leader)
    for f in range(broker_count(lay)):
        if f == leader:
            continue
        if has(isr, f):
            if skipped(cfg, G_HW_MIN_OVER_ISR):
                continue
        elif not (waits and waits_for_caught_up(t, lay, cfg, leader, f)):
            continue
        leo = remote_leo(t, lay, leader, f)
        if leo < new_hw:
            new_hw = leo
    if new_hw <= high_watermark(t, lay, leader):
        return
    set_high_watermark(t, lay, leader, new_hw)
    complete_delayed_produce(t, lay, cfg, leader)


@kernel
def waits_for_caught_up(t, lay, cfg, leader, f):
    """Does ``leader``'s HW wait for ``f``, a follower outside its (maximal) ISR, as caught up?
    Kafka's ``maybeIncrementLeaderHW`` also holds the HW at the LEO of a follower that fetched
    up to the leader's LEO within ``replica.lag.time.max.ms`` (KAFKA-4485, 0.10.2.0:
    ``lastCaughtUpTimeMs``; ``Replica.isCaughtUp`` at 3.5.0), so that a follower catching up
    is not outrun by the HW and can rejoin the ISR; since KAFKA-15021 (3.6.0,
    ``shouldWaitForReplicaToJoinIsr``) only if it may join the ISR (``isReplicaIsrEligible``:
    not fenced, not shutting down, the broker epoch of its fetch the registered one).

    kmc has no clock, so "within the lag time" is read as ``replica-lag-time`` reads it (the
    timed group, docs/model.md "Time"): a follower that the leader has heard from in this
    leadership (a known remote LEO: ``make_leader`` forgets the others, as Kafka's
    ``resetReplicaState`` sets their ``lastCaughtUpTimeMs`` to 0) and that cannot have stayed
    behind (``may_stay_behind``: it runs and follows the leader in its epoch, so it fetches up
    to the LEO every few hundred milliseconds) is caught up; one that can have stayed behind
    is taken as past the lag time, as LeaderShrinkIsr takes it. The untimed default never
    waits: there a follower may stall past the lag time before any step, and then Kafka does
    not wait either. The eligibility check reads 3.6's switch of the same commit
    (``isr-shrink-keeps-leader-epoch``, KRaft)."""
    if remote_leo(t, lay, leader, f) < 0 or may_stay_behind(t, lay, cfg, leader, f):
        return False
    if cfg[RULE_ISR_SHRINK_KEEPS_LEADER_EPOCH] != 0:  # KAFKA-15021: isReplicaIsrEligible
        if not may_lead(t, lay, cfg, f):
            return False
        if cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0 and not remote_is_current(t, lay, leader, f):
            return False
    return True


@kernel
def may_stay_behind(s, lay, cfg, b, f):
    """Can follower ``f`` stay behind leader ``b``'s log end for ``replica.lag.time.max.ms``
    (30 s by default; 10 s before 2.5, KIP-537) without a stall of its own? Kafka removes a
    follower from the ISR only when it has not fetched up to the leader's LEO for that long
    (``Replica.isCaughtUp`` / ``getOutOfSyncReplicas``; a new leader restarts every ISR
    follower's clock, ``Partition.makeLeader``). A follower that runs and follows ``b`` in
    ``b``'s leader epoch fetches every few hundred milliseconds (``replica.fetch.wait.max.ms``,
    500 ms) and within kmc's bounds is caught up in two rounds, long before that. So it can stay
    behind only if it is down (stopped, or in a controlled shutdown with its fetchers stopped),
    or does not follow ``b`` in ``b``'s epoch: its metadata lags (the LeaderAndIsr request or
    the metadata record has not reached it; Kafka bounds neither by a timeout), or it follows
    someone else. A follower that runs but stalls for longer than the lag time (a GC pause, a
    network cut between it and the leader alone, Jepsen 2013's partition) is outside this
    abstraction, which is why it is the rule ``replica-lag-time`` (group ``timed``) and not
    kmc's default (docs/model.md, "Time")."""
    if not is_alive(s, lay, f):
        return True
    if cfg[MAX_CONTROLLED_SHUTDOWNS] > 0 and is_shutting_down(s, lay, f):
        return True
    return leader_of(s, lay, f) != b or leader_epoch(s, lay, f) != leader_epoch(s, lay, b)



@kernel
def complete_delayed_produce(t, lay, cfg, leader):
    """``DelayedProduce.tryComplete``: a parked request whose record is below the HW is answered;
    success only if the (maximal) ISR still has ``min.insync.replicas`` members
    (``checkEnoughReplicasReachOffset``), else NOT_ENOUGH_REPLICAS_AFTER_APPEND (the record
    stays in the log)."""
    hw = high_watermark(t, lay, leader)
    enough = size_of(maximal_isr(t, lay, cfg, leader)) >= cfg[MIN_INSYNC_REPLICAS]
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
def finish(t, lay, cfg):
    """Bookkeeping after a step that can change a leader's HW or a broker's epoch: drop the
    LeaderAndIsr requests their broker would now ignore (an epoch not newer than its own), and
    extend the consumer-visible history if the true leader's HW grew past it."""
    failovers = cfg[MAX_CONTROLLER_FAILOVERS] > 0
    for b in range(broker_count(lay)):
        own = leader_epoch(t, lay, b)
        for e in range(epoch_slots(lay)):
            if not leader_and_isr_pending(t, lay, b, e):
                continue
            ignored = e <= own
            if failovers:
                sender, seen = leader_and_isr_controller_epoch(t, lay, b, e), controller_epoch_seen(t, lay, b)
                if sender > seen:
                    ignored = False  # it still teaches the broker the newer controller epoch
                elif cfg[RULE_CONTROLLER_EPOCH] != 0 and sender < seen:
                    ignored = True  # STALE_CONTROLLER_EPOCH
            if ignored:
                drop_leader_and_isr(t, lay, b, e)
        if failovers and zombie_request_pending(t, lay, b):
            stale = cfg[RULE_CONTROLLER_EPOCH] != 0 and zombie_controller_epoch(t, lay) < controller_epoch_seen(t, lay, b)
            stale = stale or refuses_zombie(t, lay, cfg, b)  # KIP-380: STALE_BROKER_EPOCH
            if stale or zombie_leader_epoch(t, lay) <= own:
                set_zombie_request(t, lay, b, False)
        if cfg[RULE_KRAFT] != 0 and change_pending(t, lay, b) and change_leader_epoch(t, lay, b) < own:
            clear_change(t, lay, b)  # superseded by a record of a newer leader epoch
    if cfg[TRACK_READS] != 0:
        record_reads(t, lay, cfg)
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
def record_reads(t, lay, cfg):
    """History for ``no-read-loss``: every record below the HW of a broker that serves
    consumers is readable, at that offset. Brokers that serve: one that believes it leads (the
    true leader, and a zombie leader to a consumer whose metadata is stale: before KIP-320 a
    consumer's fetch carried no leader epoch, and since, a stale consumer still sends the old
    one) and, with KIP-392 fetch from follower (``replica.selector.class``), a follower, up to
    its own HW."""
    followers = cfg[FETCH_FROM_FOLLOWERS] != 0
    for b in range(broker_count(lay)):
        if not is_alive(t, lay, b):
            continue
        lead = leader_of(t, lay, b)
        if lead != b and not (followers and lead >= 0):
            continue
        for o in range(high_watermark(t, lay, b)):
            r = record_id_at(t, lay, b, o)
            if read_offset(t, lay, r) < 0:
                set_read_offset(t, lay, r, o)


@kernel
def truncation(cfg):
    """How a new follower finds where to cut its log: to its own HW (before 0.11), by one
    OffsetsForLeaderEpoch (KIP-101, 0.11) or by iterating it until leader and follower agree
    on an epoch (KIP-279, 2.0)."""
    if cfg[RULE_EPOCH_TRUNCATION_LOOP] != 0:
        return TRUNCATE_BY_EPOCH_LOOP
    if cfg[RULE_EPOCH_TRUNCATION] != 0:
        return TRUNCATE_BY_EPOCH_0_11
    return TRUNCATE_TO_HW


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
    if truncation(cfg) == TRUNCATE_BY_EPOCH_0_11:
        return offset_for_truncation_0_11(t, lay, follower, leader, cache_epoch)
    return offset_for_truncation_loop(t, lay, follower, leader, cache_epoch)


@kernel
def make_leader(t, lay, cfg, b, epoch, isr):
    """``Partition.makeLeader``: take the epoch and the ISR; forget the followers' LEOs when a
    different broker led before (``isNewLeader``: ``Replica.resetReplicaState`` from 3.3.0,
    ``updateLogReadResult(UnknownLogReadResult)`` in ``makeLeader`` at 2.1.0), or on
    every new epoch under kmc 0.1's stricter rule; then advance the HW if the ISR allows it.

    A broker that led before keeps what it knew of its followers (every Kafka since 1.0). Kept
    LEOs of followers outside the new ISR are forgotten all the same: Kafka uses them for
    nothing until that follower's next fetch overwrites them (the HW reads ISR members only,
    and ``maybeExpandIsr`` runs inside the fetch), while kmc's LeaderExpandIsr is a step of its
    own that must not readmit a follower on a LEO from before its truncation."""
    was_leader = leader_of(t, lay, b) == b
    if not was_leader or cfg[RULE_RESET_FOLLOWERS_ON_EPOCH] != 0:
        forget_remote_leos(t, lay, b)
        if cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0:  # brokerEpoch := None
            for f in range(broker_count(lay)):
                set_remote_current(t, lay, b, f, False)
    else:
        for f in range(broker_count(lay)):
            if not has(isr, f):
                set_remote_leo(t, lay, b, f, -1)
                if cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0:
                    set_remote_current(t, lay, b, f, False)
    if cfg[RULE_ALTER_PARTITION] != 0:
        clear_alter(t, lay, b)  # a pending ISR change is replaced by the new state
    if cfg[EPOCH_START_OFFSET] != 0:  # leaderEpochStartOffsetOpt = its LEO now
        start = log_end_offset(t, lay, b)
        set_epoch_start_offset(t, lay, b, start if first_offset_of_epoch(t, lay, b, epoch) < start else -1)
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
    if cfg[RULE_ALTER_PARTITION] != 0:
        clear_alter(t, lay, b)
        set_partition_epoch_current(t, lay, b, False)  # a follower never uses it
    set_leader_epoch(t, lay, b, epoch)
    set_leader_of(t, lay, b, leader)
    if cfg[EPOCH_START_OFFSET] != 0:
        set_epoch_start_offset(t, lay, b, -1)  # leaderEpochStartOffsetOpt = None
    set_isr_of(t, lay, b, 0)
    forget_remote_leos(t, lay, b)
    clear_fetch_response(t, lay, b)
    if leader == NO_LEADER:
        set_truncating(t, lay, b, False)
    elif new_leader or cfg[RULE_TRUNCATE_ON_EPOCH_CHANGE] != 0:
        if truncation(cfg) == TRUNCATE_TO_HW:
            truncate_to(t, lay, b, high_watermark(t, lay, b))
            set_truncating(t, lay, b, False)
        else:
            set_truncating(t, lay, b, log_end_offset(t, lay, b) > 0)
        trim_flushed(t, lay, cfg, b)
    fail_parked_produce(t, lay, b)
