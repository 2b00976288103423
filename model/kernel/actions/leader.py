"""A leader's actions: handling its followers' fetches (and fetches that were held up in flight),
changing the ISR (a write of its own before KIP-497, an AlterPartition request since) and taking
the controller's answer.

Each action writes every successor it enables into ``out`` (rows) and ``acts`` (action id
and arguments), in a fixed order, and returns the new successor count (``step.py``); the
rules that changed between releases are switches read from ``cfg`` (``model/rules.py``).
"""

from __future__ import annotations

from model.kernel.actions.follower import may_fetch
from model.kernel.actions.step import (
    LEADER_EXPAND_ISR, LEADER_HANDLE_ALTER_PARTITION_RESPONSE, LEADER_HANDLE_DELAYED_FETCH,
    LEADER_HANDLE_FETCH, LEADER_HANDLE_FETCH_ON_STALE_METADATA, LEADER_SHRINK_ISR, LEADER_SHRINK_ISR_SET,
    NO_ARG, begin,
)
from model.kernel.fields import (
    ALTER_ACCEPTED, ALTER_REFUSED, ALTER_STUCK, alter_in_flight, alter_isr, alter_leader_epoch,
    alter_partition_epoch_current, alter_state, believes_it_leads, broker_count, clear_alter,
    clear_delayed_fetch, delayed_fetch_epoch, delayed_fetch_is_current, delayed_fetch_leader,
    delayed_fetch_offset, has, has_delayed_fetch, high_watermark, is_alive,
    isr_of, leader_epoch, leader_of, log_end_offset, remote_is_current, remote_leo, send_fetch_response,
    set_alter, set_controller_isr, set_isr_of, set_partition_epoch_current, set_remote_current,
    set_remote_leo, set_stale_metadata_reads, size_of, stale_metadata_reads,
)
from model.kernel.guards import (
    G_DELAYED_FETCH_NEEDS_LEADER, G_FETCH_NEEDS_LEADER, G_ONE_ALTER_IN_FLIGHT, G_SHRINK_ONLY_LAGGING,
    skipped,
)
from model.kernel.jit import kernel
from model.kernel.controller import may_lead
from model.kernel.params import (
    MAX_DELAYED_FETCHES, MAX_STALE_METADATA_READS, MIN_INSYNC_REPLICAS,
)
from model.kernel.transitions import (
    finish, is_follower_in_sync, isr_change_allowed, may_stay_behind, maybe_expand_isr,
    maybe_increment_leader_hw, propose_isr, would_expand_isr,
)
from model.rules import (
    RULE_ALTER_PARTITION, RULE_BROKER_EPOCH_IN_FETCH, RULE_ELR, RULE_FENCED_FETCH,
    RULE_HW_ON_ALTER_PARTITION_ANSWER, RULE_ISR_ELIGIBILITY, RULE_ISR_SHRINK_OUT_OF_SYNC_SET,
    RULE_ISR_EXPANSION_AS_OWN_STEP, RULE_REPLICA_LAG_TIME, RULE_STALE_FETCH_REJECTED,
)


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
        if not believes_it_leads(s, lay, lead) and not skipped(cfg, G_FETCH_NEEDS_LEADER):
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
        refused = not believes_it_leads(s, lay, lead) and not skipped(cfg, G_DELAYED_FETCH_NEEDS_LEADER)
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
def leader_shrink_isr(s, lay, cfg, out, acts, k):
    """LeaderShrinkIsr(leader, follower): ``Partition.maybeShrinkIsr``: a follower whose remote
    LEO is behind the leader's LEO leaves the ISR: at any time (the untimed over-approximation,
    kmc's default), or with the rule ``replica-lag-time`` only if it can have stayed behind for
    ``replica.lag.time.max.ms`` (``may_stay_behind``). Before KIP-497 (2.7) the
    leader writes the smaller ISR itself (compare-and-set) and the HW may advance on it; since,
    it sends AlterPartition and waits for the controller's answer, one change at a time, the HW
    still counting the follower (``prepareIsrShrink``)."""
    n = broker_count(lay)
    alter = cfg[RULE_ALTER_PARTITION] != 0
    for b in range(n):
        if not believes_it_leads(s, lay, b):
            continue
        isr = isr_of(s, lay, b)
        if size_of(isr) <= 1:
            continue
        if alter:
            if alter_in_flight(s, lay, b) and not skipped(cfg, G_ONE_ALTER_IN_FLIGHT):
                continue
        elif not isr_change_allowed(s, lay, b):
            continue
        for f in range(n):
            if f == b or not has(isr, f):
                continue
            if not may_leave_isr(s, lay, cfg, b, f):
                continue  # caught up; or (timed) it fetches up to the LEO long before the lag time
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
def may_leave_isr(s, lay, cfg, b, f):
    """May leader ``b``'s ISR follower ``f`` be found out of sync (``LeaderShrinkIsr``'s test)?"""
    if remote_leo(s, lay, b, f) >= log_end_offset(s, lay, b) and not skipped(cfg, G_SHRINK_ONLY_LAGGING):
        return False
    return cfg[RULE_REPLICA_LAG_TIME] == 0 or may_stay_behind(s, lay, cfg, b, f)


@kernel
def leader_shrink_isr_set(s, lay, cfg, out, acts, k):
    """LeaderShrinkIsrSet(leader, followers): ``Partition.maybeShrinkIsr`` proposes the ISR
    without *every* follower ``getOutOfSyncReplicas`` finds (read at 4.0.2 and 4.1.2), in one
    AlterPartition. kmc's ``LeaderShrinkIsr`` removes one per step, which is exact except under
    KIP-966 (rule ``eligible-leader-replicas``): ``PartitionChangeBuilder.maybePopulateTargetElr``
    puts every replica leaving an ISR below min.insync.replicas into the ELR, but clears the ELR
    while the ISR is at least min.insync.replicas, so one step {0,1,2} -> {0} (min ISR 2) gives
    ELR {1,2} and kmc's two steps only {1} or {2}. This action is that one step, written only
    where it differs from the one-follower steps: a set ``followers`` of two or more lagging
    followers whose removal takes an ISR whose one-follower shrinks stay at min.insync.replicas
    or more to one below it (elsewhere the steps reach the same ISR and ELR). Same guards as
    ``LeaderShrinkIsr``; the HW still counts the whole old ISR while the proposal is pending
    (``PendingShrinkIsr.maximalIsr``). Rule ``isr-shrink-out-of-sync-set``."""
    if cfg[RULE_ISR_SHRINK_OUT_OF_SYNC_SET] == 0 or cfg[RULE_ELR] == 0 or cfg[RULE_ALTER_PARTITION] == 0:
        return k
    n = broker_count(lay)
    need = cfg[MIN_INSYNC_REPLICAS]
    for b in range(n):
        if not believes_it_leads(s, lay, b):
            continue
        isr = isr_of(s, lay, b)
        if size_of(isr) - 1 < need:
            continue  # already the first one-follower step is below min ISR: the steps are exact
        if alter_in_flight(s, lay, b) and not skipped(cfg, G_ONE_ALTER_IN_FLIGHT):
            continue
        lagging = 0
        for f in range(n):
            if f != b and has(isr, f) and may_leave_isr(s, lay, cfg, b, f):
                lagging |= 1 << f
        for removed in range(1, 1 << n):
            if (removed & ~lagging) != 0 or size_of(removed) < 2:
                continue
            smaller = isr & ~removed
            if size_of(smaller) >= need:
                continue  # the ISR stays at min ISR or more: the one-follower steps reach it
            begin(s, out, acts, k, LEADER_SHRINK_ISR_SET, b, removed)
            t = out[k]
            propose_isr(t, lay, cfg, b, smaller, True)
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
def leader_handle_alter_partition_response(s, lay, cfg, out, acts, k):
    """LeaderHandleAlterPartitionResponse(leader): the controller's answer reaches the leader
    (``Partition.handleAlterPartitionUpdate`` / ``handleAlterPartitionError``). Success: the
    ISR it carries becomes the leader's, with its partition epoch, and the HW may move; an
    answer for another leader epoch is ignored (the leader stays pending). The HW moves only
    since 3.1 (rule ``hw-on-alter-partition-answer``, KAFKA-13091: ``handleAlterIsrUpdate`` calls
    ``maybeIncrementLeaderHW`` at 3.1.0; ``handleAlterIsrResponse`` at 3.0.0 does not): it matters
    after a shrink, whose pending state still counted the removed follower (an expansion's
    maximal ISR already counted the added one). INELIGIBLE_REPLICA:
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
            if cfg[RULE_HW_ON_ALTER_PARTITION_ANSWER] != 0:
                maybe_increment_leader_hw(t, lay, cfg, b)
        finish(t, lay, cfg)
        k += 1
    return k


@kernel
def leader_handle_fetch_on_stale_metadata(s, lay, cfg, out, acts, k):
    """LeaderHandleFetchOnStaleMetadata(leader, follower): KRaft 3.3+ (KIP-841), a fault bounded
    by ``--max-stale-metadata-reads``. The leader handles a follower's fetch as LeaderHandleFetch
    does, but its own metadata cache lags the controller: ``Partition.isReplicaIsrEligible`` reads
    ``KRaftMetadataCache.isBrokerFenced`` / ``isBrokerShuttingDown`` (3.3.0), which still show the
    follower unfenced and not shutting down, while the controller has already fenced it (or has
    it in a controlled shutdown). So the leader proposes adding it (``maybeExpandIsr`` ->
    ``prepareIsrExpand``, 3.3.0), and while that AlterPartition is pending its maximal ISR counts
    the follower: the HW waits for it, and ``checkEnoughReplicasReachOffset`` (3.3.0) compares
    min.insync.replicas with the maximal ISR's size. The controller refuses the request as
    before (INELIGIBLE_REPLICA, ``ReplicationControlManager.ineligibleReplicasForIsr``, 3.3.0;
    ``members_eligible``). kmc keeps no history of the follower's fencing, so it lets the leader
    take the stale view of any running follower the controller does not let lead (an
    over-approximation argued in docs/model.md, "The smaller deviations"); KIP-903's broker-epoch
    check (3.5+) is kept: the fetch is from the follower's current incarnation."""
    if cfg[MAX_STALE_METADATA_READS] == 0 or cfg[RULE_ISR_ELIGIBILITY] == 0:
        return k
    if cfg[RULE_ALTER_PARTITION] == 0 or stale_metadata_reads(s, lay) >= cfg[MAX_STALE_METADATA_READS]:
        return k
    fenced = cfg[RULE_FENCED_FETCH] != 0
    epochs = cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0
    for f in range(broker_count(lay)):
        if not may_fetch(s, lay, cfg, f) or may_lead(s, lay, cfg, f):
            continue  # an eligible follower: LeaderHandleFetch already expands on a fresh view
        lead = leader_of(s, lay, f)
        if not believes_it_leads(s, lay, lead) and not skipped(cfg, G_FETCH_NEEDS_LEADER):
            continue
        if fenced and leader_epoch(s, lay, f) != leader_epoch(s, lay, lead):
            continue
        offset = log_end_offset(s, lay, f)
        if offset > log_end_offset(s, lay, lead):
            continue
        if has(isr_of(s, lay, lead), f) or alter_in_flight(s, lay, lead):
            continue
        if not is_follower_in_sync(s, lay, cfg, lead, offset):
            continue
        begin(s, out, acts, k, LEADER_HANDLE_FETCH_ON_STALE_METADATA, lead, f)
        t = out[k]
        set_remote_leo(t, lay, lead, f, offset)
        if epochs:
            set_remote_current(t, lay, lead, f, True)
        propose_isr(t, lay, cfg, lead, isr_of(s, lay, lead) | (1 << f), True)
        set_stale_metadata_reads(t, lay, stale_metadata_reads(s, lay) + 1)
        maybe_increment_leader_hw(t, lay, cfg, lead)
        send_fetch_response(t, lay, f, lead, leader_epoch(s, lay, f), offset,
                            high_watermark(t, lay, lead), log_end_offset(s, lay, lead), True)
        finish(t, lay, cfg)
        k += 1
    return k
