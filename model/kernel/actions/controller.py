"""The controller's actions: a leader move with no failure, handling a failed or a returning
broker, a controlled shutdown and a leader's AlterPartition, through the decisions of
``model/kernel/controller.py``.

Each action writes every successor it enables into ``out`` (rows) and ``acts`` (action id
and arguments), in a fixed order, and returns the new successor count (``step.py``); the
rules that changed between releases are switches read from ``cfg`` (``model/rules.py``).
"""

from __future__ import annotations

from model.kernel.actions.step import (
    CONTROLLER_ELECT_LEADER, CONTROLLER_HANDLE_ALTER_PARTITION,
    CONTROLLER_HANDLE_BROKER_FAILURE, CONTROLLER_HANDLE_CONTROLLED_SHUTDOWN,
    CONTROLLER_PREFERRED_ELECTION, CONTROLLER_REASSIGN_REPLICAS, CONTROLLER_UNFENCE_BROKER,
    NO_ARG, begin,
)
from model.kernel.controller import (
    ELECTED_FROM_ISR, NOBODY, commit, controller_register_broker, epoch_available,
    isr_after_election, isr_shrink_bumps_epoch, kraft, leader_candidates, may_lead, ordered,
    preferred_replica, target_isr_without, write_elr_change, write_partition,
)
from model.kernel.fields import (
    ALTER_ACCEPTED, ALTER_REFUSED, ALTER_SENT, ALTER_STUCK, NO_LEADER, alter_isr,
    alter_leader_epoch, alter_member_epoch_current, alter_partition_epoch_current, alter_state,
    broker_count, controlled_shutdowns, controller_isr, controller_leader,
    controller_leader_epoch, controller_live, elr, has, is_alive, is_shutting_down,
    last_known_elr, set_alter, set_controlled_shutdowns, set_controller_live, set_elr,
    set_leader_recovering, set_shutting_down, assignment_rank, set_assignment_rank,
    preferred_elections, set_preferred_elections, reassignments, set_reassignments, put_change,
)
from model.kernel.guards import G_ALTER_NEEDS_CURRENT_LEADER, skipped
from model.kernel.jit import kernel
from model.kernel.transitions import finish
from model.kernel.params import (
    MAX_CONTROLLED_SHUTDOWNS, MAX_PREFERRED_ELECTIONS, MAX_REASSIGNMENTS, MAX_SESSION_EXPIRIES,
)
from model.rules import (
    RULE_ALTER_PARTITION, RULE_ALTER_PARTITION_SHRINK_BUMPS_LEADER_EPOCH,
    RULE_BROKER_EPOCH_IN_FETCH, RULE_ELR, RULE_ISR_ELIGIBILITY,
)


@kernel
def controller_elect_leader(s, lay, cfg, out, acts, k):
    """ControllerElectLeader(new_leader), the over-approximation ``unordered-leader-moves`` only
    (no Kafka release): leadership moves to any other live ISR member with no failure and no
    operator action. Kafka moves a healthy leader only by a preferred-replica election
    (``controller_preferred_election``) to the first replica of the assignment, which a
    reassignment may reorder (``controller_reassign_replicas``). The epoch goes up and the
    change reaches the live brokers."""
    if ordered(cfg):
        return k
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
def controller_preferred_election(s, lay, cfg, out, acts, k):
    """ControllerPreferredElection(new_leader): a preferred-replica election, asked for by an
    operator (``ElectLeaders`` with ``ElectionType.PREFERRED``, ``kafka-leader-election.sh``) or
    by the controller itself (``auto.leader.rebalance.enable``: the preferred replica leads no
    partition of its own above ``leader.imbalance.per.broker.percentage``, checked every
    ``leader.imbalance.check.interval.seconds``; for one partition led elsewhere that is 100%).
    Leadership moves to the first replica of the assignment only if it is live and in the ISR
    (ZooKeeper: ``PartitionLeaderElectionAlgorithms.preferredReplicaPartitionLeaderElection``,
    ``assignment.headOption.filter(live && isr)``; KRaft:
    ``PartitionChangeBuilder.electPreferredLeader``, ``targetReplicas.get(0)`` if
    ``isValidNewLeader``, else the current leader stays and no record is written): leader epoch
    + 1, the ISR unchanged, LeaderAndIsr to the live brokers. Bounded by
    max-preferred-elections."""
    if not ordered(cfg) or cfg[MAX_PREFERRED_ELECTIONS] == 0:
        return k
    if preferred_elections(s, lay) >= cfg[MAX_PREFERRED_ELECTIONS]:
        return k
    leader = controller_leader(s, lay)
    preferred = preferred_replica(s, lay)
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    if leader == NO_LEADER or preferred == leader or preferred == NO_LEADER:
        return k
    if not has(isr, preferred) or not may_lead(s, lay, cfg, preferred):
        return k
    if not epoch_available(s, lay, cfg):
        return k
    begin(s, out, acts, k, CONTROLLER_PREFERRED_ELECTION, preferred, NO_ARG)
    t = out[k]
    write_partition(s, t, lay, cfg, preferred, controller_leader_epoch(s, lay) + 1, isr, live,
                    ELECTED_FROM_ISR)
    set_preferred_elections(t, lay, preferred_elections(s, lay) + 1)
    return k + 1


@kernel
def order_of(n, index):
    """The ``index``-th ordering of brokers ``0..n-1`` in lexicographic order (a Lehmer code:
    0 is (0, 1, 2), 1 is (0, 2, 1), ...), packed four bits a place (``place``)."""
    used, packed = 0, 0
    f = 1
    for i in range(2, n):
        f *= i  # (n - 1)!
    for i in range(n):
        digit = index // f
        index = index % f
        if n - 1 - i > 0:
            f = f // (n - 1 - i)
        seen = -1
        for b in range(n):
            if (used >> b) & 1:
                continue
            seen += 1
            if seen == digit:
                packed |= b << (4 * i)
                used |= 1 << b
                break
    return packed


@kernel
def place(packed, i):
    """The broker at place ``i`` of a packed ordering."""
    return (packed >> (4 * i)) & 15


@kernel
def controller_reassign_replicas(s, lay, cfg, out, acts, k):
    """ControllerReassignReplicas(first, ordering): an operator reassigns the partition to the
    same replicas in another order (``AlterPartitionReassignments``,
    ``kafka-reassign-partitions.sh``), which changes the preferred replica and the order every
    later election reads; ``ordering`` numbers the new order (lexicographic), ``first`` is its
    preferred replica. No replica is added or removed, so no data moves:

    * ZooKeeper mode (``KafkaController.onPartitionReassignment``): the new assignment is
      written, and the leader, still in the replica set and alive, gets a new leader epoch with
      the same ISR (``moveReassignedPartitionLeaderIfRequired`` ->
      ``updateLeaderEpochAndSendRequest``), sent to the replicas as LeaderAndIsr. (A reassignment
      started while a replica is out of the ISR bumps the epoch once more when it completes;
      kmc writes the one bump.)
    * KRaft (``ReplicationControlManager.alterPartitionReassignments`` ->
      ``PartitionChangeBuilder``): the target replicas contain the old ones, so
      ``triggerLeaderEpochBumpIfNeeded`` leaves the leader epoch alone and the current leader,
      still acceptable, stays (``electAnyLeader``): one ``PartitionChangeRecord`` with the new
      ``replicas`` that moves only the partition epoch (a pending AlterPartition of the leader
      is now stale: INVALID_UPDATE_VERSION).

    The leader stays where it is; a preferred-replica election moves it. Bounded by
    max-reassignments."""
    if not ordered(cfg) or cfg[MAX_REASSIGNMENTS] == 0:
        return k
    if reassignments(s, lay) >= cfg[MAX_REASSIGNMENTS]:
        return k
    n = broker_count(lay)
    leader = controller_leader(s, lay)
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    epoch = controller_leader_epoch(s, lay)
    if not kraft(cfg):
        if leader == NO_LEADER or not has(live, leader) or not epoch_available(s, lay, cfg):
            return k
    total = 1
    for i in range(2, n + 1):
        total *= i
    for index in range(total):
        order = order_of(n, index)
        same = True
        for i in range(n):
            if assignment_rank(s, lay, place(order, i)) != i:
                same = False
        if same:
            continue
        begin(s, out, acts, k, CONTROLLER_REASSIGN_REPLICAS, place(order, 0), index)
        t = out[k]
        for i in range(n):
            set_assignment_rank(t, lay, place(order, i), i)
        set_reassignments(t, lay, reassignments(s, lay) + 1)
        if kraft(cfg):
            commit(t, lay, cfg)
            if leader != NO_LEADER and has(live, leader) and is_alive(t, lay, leader):
                put_change(t, lay, leader, epoch, isr)
        else:
            write_partition(s, t, lay, cfg, leader, epoch + 1, isr, live, ELECTED_FROM_ISR)
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
def unclean_shutdown_election(t, lay, cfg, b):
    """The election in the record that handles ``b``'s unclean shutdown (KIP-966, 4.0+; issue
    29ae): Kafka builds that record with ``PartitionChangeBuilder`` like any other change, and
    ``build`` runs ``tryElection`` (``ReplicationControlManager.generateLeaderAndIsrUpdates``
    with ``brokerWithUncleanShutdown = b``, whose ``isAcceptableLeader`` leaves out ``b`` and
    takes only active brokers, ``ClusterControlManager.isActive``; kafka-metadata
    4.1.0-sources.jar, the same in 4.1.1 and 4.2.0). A current leader that is still valid
    (``electAnyLeader``: ``isValidNewLeader(partition.leader)``, in the target ISR and
    acceptable) stays; otherwise the first acceptable member of the target ISR, or, that ISR
    empty, of the ELR without ``b``; then ``canElectLastKnownLeader`` (the ISR and that ELR
    empty: the one last known leader, if acceptable since KAFKA-19522); then, where unclean
    election is allowed, any acceptable replica (``leader_candidates``). So the record that
    empties the ELR of a leaderless partition elects the last known leader when it is back and
    unfenced: before issue 29ae kmc elected nobody there (docs/kraft.md, known difference 5).
    Returns ``(candidates, how)``, ``(0, NOBODY)`` when the record elects nobody new: ``b`` in
    neither the ISR nor the ELR (no record), a valid leader, or no leader epoch left under
    the max-leader-epoch bound (then the record is written without the election, as a
    registration at the bound elects nobody, ``controller_register_broker``)."""
    isr, leader = controller_isr(t, lay), controller_leader(t, lay)
    eligible, last = elr(t, lay), last_known_elr(t, lay)
    if not has(isr, b) and not has(eligible, b):
        return 0, NOBODY
    target = target_isr_without(cfg, isr, b)
    if leader != NO_LEADER and leader != b and has(target, leader) and may_lead(t, lay, cfg, leader):
        return 0, NOBODY
    if not epoch_available(t, lay, cfg):
        return 0, NOBODY
    set_elr(t, lay, eligible & ~(1 << b), last)  # the target ELR leaves b out
    candidates, how = leader_candidates(t, lay, cfg, target, b)
    set_elr(t, lay, eligible, last)
    return candidates, how


@kernel
def handle_unclean_shutdown(t, lay, cfg, b, winner, how):
    """KIP-966 (4.0+): a broker that registers after an unclean shutdown (no clean-shutdown
    file: it crashed) may have lost what it had not flushed, so the controller takes it out of
    the ISR and the ELR (``ReplicationControlManager.handleBrokerUncleanShutdown``). Kafka 4.1
    looks only at partitions with ``b`` in the ISR or the ELR (``handleBrokerShutdown`` iterates
    ``brokersToIsrs`` and ``brokersToElrs``, and ``BrokersToElrs`` tracks the ELR alone), so a
    last known leader that restarts stays the last known leader (kafka-metadata
    4.1.0-sources.jar). The record also elects (``unclean_shutdown_election``, issue 29ae):
    ``winner`` (``NO_LEADER`` for nobody), chosen ``how``, gets the next leader epoch; a leader
    that is no longer valid (only ``b`` itself, elected while fenced under
    ``-last-known-leader-check``) with nobody to replace it leaves the partition leaderless.
    Otherwise, when ``b`` is in the ELR only, the record sets only the ELR, and still bumps the
    partition epoch (``write_elr_change``; issue 29ad: before, no record). ``b`` is not the
    leader otherwise (KIP-380: its failure was handled before it could register)."""
    isr, leader = controller_isr(t, lay), controller_leader(t, lay)
    if not has(isr, b) and not has(elr(t, lay), b):
        return
    target = target_isr_without(cfg, isr, b)
    epoch = controller_leader_epoch(t, lay)
    lost = False  # a leader that is no longer valid, nobody to replace it
    if leader != NO_LEADER and winner == NO_LEADER and epoch_available(t, lay, cfg):
        lost = leader == b or not has(target, leader) or not may_lead(t, lay, cfg, leader)
    if winner != NO_LEADER or lost:
        write_partition(t, t, lay, cfg, winner, epoch + 1, isr_after_election(cfg, target, winner, how),
                        controller_live(t, lay), how)
        forget_unclean_member(t, lay, cfg, b, True)
        return
    if target == isr:  # b is in the ELR, not the ISR: a record that changes only the ELR
        forget_unclean_member(t, lay, cfg, b, True)
        write_elr_change(t, lay, cfg)
        return
    bump = target != isr and isr_shrink_bumps_epoch(cfg)
    if bump:
        if not epoch_available(t, lay, cfg):
            return  # the epoch bound: the change cannot be written (kept out of the search)
        epoch += 1
    write_partition(t, t, lay, cfg, leader, epoch, target, controller_live(t, lay), ELECTED_FROM_ISR)
    forget_unclean_member(t, lay, cfg, b, True)


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
def controller_unfence_broker(s, lay, cfg, out, acts, k):
    """ControllerUnfenceBroker(broker): a running broker the controller had lost registers again
    (a new ZooKeeper session: ``KafkaController.onBrokerStartup``) or heartbeats again (KRaft
    ``handleBrokerUnfenced``): it is live again and is sent the partition's state, electing it
    first if the partition is offline and it may lead. The state sent to a broker already in
    the current leader epoch (a follower fenced by a shrink that kept the leader epoch, 3.6+)
    carries nothing new, and the broker ignores it: ZooKeeper mode
    (``ReplicaManager.becomeLeaderOrFollower`` at 2.2.0 and 3.8.0) applies a LeaderAndIsr only
    if its leader epoch is newer than the partition's, and answers one that matches it
    STALE_CONTROLLER_EPOCH; in KRaft the broker already has the registration (a fenced broker
    keeps replaying the metadata log, and unfencing writes only a
    ``BrokerRegistrationChangeRecord``, ``ReplicationControlManager.handleBrokerUnfenced`` at
    4.1.0). ``finish`` drops such a request, as after a broker's own steps (issue 29ae; review
    s11 finding 4: it stayed in the state until a later step ran ``finish``)."""
    if cfg[MAX_SESSION_EXPIRIES] == 0:
        return k
    for b in range(broker_count(lay)):
        if has(controller_live(s, lay), b) or not is_alive(s, lay, b):
            continue
        begin(s, out, acts, k, CONTROLLER_UNFENCE_BROKER, b, NO_ARG)
        controller_register_broker(s, out[k], lay, cfg, b)
        finish(out[k], lay, cfg)
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
    the leader RECOVERED, KIP-704) and the answer carries it back. KRaft before metadata.version
    3.6-IV0 (3.3-3.5) bumps the leader epoch on a shrink (``triggerLeaderEpochBumpIfNeeded``):
    the change goes to every live broker as a new leader epoch, and the answer, which carries
    that epoch, is ignored by the leader until it has applied it."""
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
        if (sent_in < epoch or b != leader) and not skipped(cfg, G_ALTER_NEEDS_CURRENT_LEADER):
            set_alter(t, lay, b, ALTER_STUCK, proposed, sent_in, False)
        elif not alter_partition_epoch_current(s, lay, b):
            if not kraft(cfg) and proposed == isr:
                set_alter(t, lay, b, ALTER_ACCEPTED, isr, epoch, True)
            else:
                set_alter(t, lay, b, ALTER_STUCK, proposed, sent_in, False)
        elif not members_eligible(s, lay, cfg, b, proposed):
            set_alter(t, lay, b, ALTER_REFUSED, proposed, sent_in, False)
        else:
            if cfg[RULE_ALTER_PARTITION_SHRINK_BUMPS_LEADER_EPOCH] != 0 and (isr & ~proposed) != 0:
                if not epoch_available(s, lay, cfg):
                    continue  # the max-leader-epoch bound: the change cannot be written
                epoch += 1  # 3.3-3.5: any ISR shrink is a leader epoch (KAFKA-15021)
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
