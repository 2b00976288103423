"""The controller's decisions: who may lead, how an election picks, and how a partition change
is written and reaches the brokers. Every controller action (``actions/``) goes through here.

Two controllers are modelled, by release (``model/rules.py``):

* **ZooKeeper mode** (to 3.x): the partition state is a znode written with compare-and-set;
  every controller-side change bumps the leader epoch (``ReplicaStateMachine``,
  ``PartitionStateMachine``) and reaches brokers as LeaderAndIsr requests, late and in any order.
* **KRaft** (rule ``kraft``, 3.3+): the partition state is a ``PartitionRegistration`` in one
  metadata log; every change is a ``PartitionChangeRecord`` that bumps the partition epoch
  (``PartitionRegistration.merge``) and brokers apply the log in order, a lagging broker several
  records at once. Records that change the leader epoch travel in the LeaderAndIsr slots (a
  broker skips to the newest, as a batched delta does); records that keep it (an ISR change)
  travel as a *change* per broker, the newest replacing an older one. Raft itself is abstracted
  as one linearizable log: the controller's state here is the log's committed end.

Partition epochs are compared only for equality (AlterPartition's INVALID_UPDATE_VERSION), so
kmc keeps, instead of the number, one bit per holder: "this is the current partition epoch".
Every new record clears them all (``commit``) and sets them on what carries the new record.
That is exact for equality tests and keeps the state space finite.
"""

from __future__ import annotations

from model.kernel.guards import (
    G_CLEAN_ELECTION_FROM_ISR, G_LEADER_AND_ISR_NEWER_EPOCH, G_ZOMBIE_BROKER_EPOCH, skipped,
)
from model.kernel.jit import kernel

from model.kernel.fields import controller_epoch, set_leader_and_isr_controller_epoch
from model.kernel.fields import (
    NO_LEADER, broker_count, controller_isr, controller_leader,
    controller_leader_epoch, controller_live, elr, epoch_slots, has, is_alive, is_shutting_down,
    last_known_elr, put_change, put_leader_and_isr, set_alter,
    alter_isr, alter_leader_epoch, alter_state, ALTER_NONE, set_controller, set_elr,
    set_leader_and_isr_current, set_leader_recovering, set_partition_epoch_current, size_of,
    change_pending, set_change_current, assignment_rank, drop_leader_and_isr, leader_and_isr_isr,
    leader_and_isr_leader, leader_and_isr_pending, leader_epoch,
)
from model.kernel.fields import (
    has_zombie_controller, registered_since_failover, set_registered_since_failover,
)
from model.kernel.params import (
    MAX_CONTROLLED_SHUTDOWNS, MAX_CONTROLLER_FAILOVERS, MAX_LEADER_EPOCH, MIN_INSYNC_REPLICAS,
    UNCLEAN_LEADER_ELECTION,
)
from model.rules import (
    RULE_ALTER_PARTITION, RULE_BROKER_EPOCH, RULE_ELR, RULE_ISR_SHRINK_KEEPS_LEADER_EPOCH, RULE_KRAFT,
    RULE_KRAFT_UNCLEAN_ELECTION, RULE_LAST_KNOWN_LEADER_CHECK,
    RULE_LAST_KNOWN_LEADER_WHEN_LEADERLESS, RULE_UNORDERED_LEADER_MOVES,
)

# how a leader was chosen
ELECTED_FROM_ISR = 0
ELECTED_FROM_ELR = 1  # KIP-966: an eligible leader replica, the ISR being empty
ELECTED_UNCLEAN = 2  # not from the ISR (nor the ELR): unclean.leader.election.enable, or the
#                      KIP-966 last known leader
NOBODY = 3


@kernel
def kraft(cfg):
    return cfg[RULE_KRAFT] != 0


@kernel
def epoch_available(s, lay, cfg):
    """May the controller start another leader epoch (the max-leader-epoch bound)?"""
    return controller_leader_epoch(s, lay) < cfg[MAX_LEADER_EPOCH]


@kernel
def may_lead(s, lay, cfg, b):
    """Can the controller hand leadership to ``b``? It must be live in the controller's view (ZK:
    registered; KRaft: registered and unfenced) and not in a controlled shutdown
    (``ControllerContext.liveBrokerIds`` leaves out ``shuttingDownBrokerIds``; KRaft:
    ``ClusterControlManager.isActive``)."""
    if not has(controller_live(s, lay), b):
        return False
    if cfg[MAX_CONTROLLED_SHUTDOWNS] > 0 and is_shutting_down(s, lay, b):
        return False
    return True


@kernel
def unclean_allowed(cfg):
    """``unclean.leader.election.enable``, as the controller honours it: ZooKeeper mode always;
    the KRaft controller ignored it in 3.0-3.8 and honours it since 3.9 (KAFKA-12670)."""
    if cfg[UNCLEAN_LEADER_ELECTION] == 0:
        return False
    return not kraft(cfg) or cfg[RULE_KRAFT_UNCLEAN_ELECTION] != 0


@kernel
def isr_shrink_bumps_epoch(cfg):
    """Does the controller bump the leader epoch when it removes a replica from the ISR? Always
    in ZooKeeper mode (``removeReplicasFromIsr``) and KRaft before metadata version 3.6; not
    since (KAFKA-15021: only the partition epoch moves)."""
    return not (kraft(cfg) and cfg[RULE_ISR_SHRINK_KEEPS_LEADER_EPOCH] != 0)


@kernel
def target_isr_without(cfg, isr, b):
    """The ISR with ``b`` removed. Without ELR the last member stays (ZooKeeper's
    ``removeReplicasFromIsr``; KRaft's ``PartitionChangeBuilder`` writes no empty ISR); with
    KIP-966 the ISR may become empty."""
    smaller = isr & ~(1 << b)
    if smaller == 0 and cfg[RULE_ELR] == 0:
        return isr
    return smaller


@kernel
def ordered(cfg):
    """Do elections read the assignment order (every release), or is it the over-approximation
    ``unordered-leader-moves``?"""
    return cfg[RULE_UNORDERED_LEADER_MOVES] == 0


@kernel
def preferred_replica(s, lay):
    """The first replica of the assignment (``assignment.head``, ``targetReplicas.get(0)``)."""
    for b in range(broker_count(lay)):
        if assignment_rank(s, lay, b) == 0:
            return b
    return NO_LEADER


@kernel
def first_in_assignment(s, lay, cfg, mask):
    """The member of ``mask`` that comes first in the assignment, as a one-broker mask (all of
    ``mask`` under ``unordered-leader-moves``)."""
    if not ordered(cfg) or mask == 0:
        return mask
    best, best_rank = NO_LEADER, 127
    for b in range(broker_count(lay)):
        if has(mask, b) and assignment_rank(s, lay, b) < best_rank:
            best, best_rank = b, assignment_rank(s, lay, b)
    return 1 << best


@kernel
def leader_candidates(s, lay, cfg, isr, exclude):
    """The brokers an election may pick, and how (``PartitionChangeBuilder.electLeader``, the
    ZooKeeper strategies): live ISR members; with KIP-966, if the ISR is empty, live eligible
    leader replicas, then the last known leader; then, where unclean election is allowed, any
    live replica. ``exclude`` is the broker being removed (never acceptable). Kafka takes the
    first acceptable replica in assignment order (``assignment.find(...)`` in
    ``PartitionLeaderElectionAlgorithms``; ``targetReplicas.stream().filter(...).findFirst()``
    in ``PartitionChangeBuilder.electAnyLeader``), so the mask holds that one replica; under the
    over-approximation ``unordered-leader-moves`` it holds every candidate (each a choice).
    Returns ``(mask, how)``."""
    n = broker_count(lay)
    mask = 0
    for c in range(n):
        if c != exclude and (has(isr, c) or skipped(cfg, G_CLEAN_ELECTION_FROM_ISR)) and may_lead(s, lay, cfg, c):
            mask |= 1 << c
    if mask != 0:
        return first_in_assignment(s, lay, cfg, mask), ELECTED_FROM_ISR
    if cfg[RULE_ELR] != 0 and isr == 0:
        eligible = elr(s, lay)
        for c in range(n):
            if c != exclude and has(eligible, c) and may_lead(s, lay, cfg, c):
                mask |= 1 << c
        if mask != 0:
            return first_in_assignment(s, lay, cfg, mask), ELECTED_FROM_ELR
        last = last_known_elr(s, lay)
        if eligible == 0 and size_of(last) == 1:
            for c in range(n):
                if has(last, c):
                    # KAFKA-19522: 3.7-4.0 elect it even when it is not acceptable
                    if cfg[RULE_LAST_KNOWN_LEADER_CHECK] == 0 or (c != exclude and may_lead(s, lay, cfg, c)):
                        return 1 << c, ELECTED_UNCLEAN
    if unclean_allowed(cfg):
        for c in range(n):
            if c != exclude and may_lead(s, lay, cfg, c):
                mask |= 1 << c
        if mask != 0:
            return first_in_assignment(s, lay, cfg, mask), ELECTED_UNCLEAN
    return 0, NOBODY


@kernel
def isr_after_election(cfg, target_isr, winner, how):
    """The ISR that goes with a winner: the target ISR for a clean election, just the winner
    otherwise (``PartitionChangeBuilder.tryElection``; ZooKeeper's unclean election)."""
    if how == ELECTED_FROM_ISR or winner == NO_LEADER:
        return target_isr
    return 1 << winner


@kernel
def commit(t, lay, cfg):
    """A new partition record: every partition epoch known so far is stale (brokers' views,
    AlterPartition requests and answers, records still on their way)."""
    if cfg[RULE_ALTER_PARTITION] == 0:
        return
    for b in range(broker_count(lay)):
        set_partition_epoch_current(t, lay, b, False)
        if alter_state(t, lay, b) != ALTER_NONE:
            set_alter(t, lay, b, alter_state(t, lay, b), alter_isr(t, lay, b),
                      alter_leader_epoch(t, lay, b), False)
        for e in range(epoch_slots(lay)):
            set_leader_and_isr_current(t, lay, b, e, False)
        if kraft(cfg) and change_pending(t, lay, b):
            set_change_current(t, lay, b, False)


@kernel
def update_elr(s, t, lay, cfg, old_isr, new_isr, new_leader, unclean_shutdown):
    """KIP-966's bookkeeping for a change of the ISR from ``old_isr`` to ``new_isr``
    (``PartitionChangeBuilder.maybePopulateTargetElr``, ``maybeUpdateLastKnownLeader``): with the
    ISR at least min.insync.replicas the ELR and last known ELR are empty; below it, members
    leaving the ISR join the ELR (a broker whose unclean shutdown is being handled does not).
    The last known ELR becomes the old leader when the ISR first becomes empty (4.0, 4.1.0) or,
    with the rule ``last-known-leader-when-leaderless`` (4.1.1 and 4.2+, PR #20629), when the
    change leaves the partition without a leader and no last known leader is recorded yet; it
    is cleared once the partition has a leader again."""
    if cfg[RULE_ELR] == 0:
        return
    recorded = last_known_elr(s, lay)
    eligible, last = elr(s, lay), recorded
    if size_of(new_isr) >= cfg[MIN_INSYNC_REPLICAS]:
        eligible, last = 0, 0
    else:
        eligible = (eligible | old_isr) & ~new_isr & ~unclean_shutdown
    old_leader = controller_leader(s, lay)
    if cfg[RULE_LAST_KNOWN_LEADER_WHEN_LEADERLESS] != 0:
        if new_leader == NO_LEADER and old_leader != NO_LEADER and recorded == 0:
            last = 1 << old_leader
    elif new_isr == 0 and old_isr != 0 and old_leader != NO_LEADER:
        last = 1 << old_leader
    if new_leader != NO_LEADER:
        last = 0
    set_elr(t, lay, eligible, last)


@kernel
def write_partition(s, t, lay, cfg, leader, epoch, isr, live, how):
    """The controller writes the partition's new state (a znode update or a
    ``PartitionChangeRecord``) into ``t`` and sends it on: a new leader epoch as LeaderAndIsr to
    every live broker; in KRaft a change that keeps the leader epoch as a metadata change to
    every live broker (ZooKeeper mode sends none: only the leader's AlterPartition answer
    carries it). ``how`` is how the leader was elected (``ELECTED_*``), for the ELR and KIP-704."""
    old_leader, old_epoch, old_isr = controller_leader(s, lay), controller_leader_epoch(s, lay), controller_isr(s, lay)
    changed = leader != old_leader or epoch != old_epoch or isr != old_isr
    if changed:
        commit(t, lay, cfg)
    if how == ELECTED_UNCLEAN and cfg[RULE_ELR] != 0:
        set_elr(t, lay, 0, 0)  # maybeUpdateRecordElr: an unclean election clears both
    elif isr != old_isr or leader != old_leader:
        # an ELR winner has ISR = [it] and so leaves the ELR (tryElection)
        update_elr(s, t, lay, cfg, old_isr, isr, leader, 0)
    if how == ELECTED_UNCLEAN and kraft(cfg):
        set_leader_recovering(t, lay, True)  # KIP-704
    set_controller(t, lay, leader, epoch, isr, live)
    if not changed:
        return
    if epoch != old_epoch:
        publish_leader_change(t, lay, cfg, live, epoch, leader, isr)
    elif kraft(cfg) and leader != NO_LEADER and has(live, leader) and is_alive(t, lay, leader):
        # Every broker applies the record, but only the leader acts on an ISR change (a
        # follower keeps fetching, ``makeFollower`` with only the partition epoch newer), and a
        # follower becomes leader only with a record of a newer leader epoch: kmc sends the
        # change to the leader alone.
        put_change(t, lay, leader, epoch, isr)


@kernel
def write_elr_change(t, lay, cfg):
    """KIP-966: the controller writes a ``PartitionChangeRecord`` that changes only the ELR (the
    ELR in ``t`` is already the new one). Like every record it bumps the partition epoch
    (``PartitionRegistration.merge``; ``PartitionChangeBuilder.changeRecordIsNoOp`` is false
    for a record with ``eligibleLeaderReplicas`` set: kafka-metadata 4.1.0-sources.jar), so
    an AlterPartition in flight is answered INVALID_UPDATE_VERSION (``commit``), and the
    leader, applying it, learns the new partition epoch: it travels as a change that keeps
    the leader epoch (as in ``write_partition``). Issue 29ad."""
    commit(t, lay, cfg)
    leader = controller_leader(t, lay)
    if kraft(cfg) and leader != NO_LEADER and has(controller_live(t, lay), leader) and is_alive(t, lay, leader):
        put_change(t, lay, leader, controller_leader_epoch(t, lay), controller_isr(t, lay))


@kernel
def publish_leader_change(t, lay, cfg, targets, epoch, leader, isr):
    """LeaderAndIsr(epoch, leader, isr) to the live brokers among ``targets``: the latest record."""
    for b in range(broker_count(lay)):
        if has(targets, b) and is_alive(t, lay, b):
            send_leader_and_isr(t, lay, cfg, b, epoch, leader, isr)


@kernel
def send_leader_and_isr(t, lay, cfg, b, epoch, leader, isr):
    """One LeaderAndIsr(epoch, leader, isr) of the active controller to ``b``, carrying the
    controller's epoch, and (AlterPartition) whether it holds the latest partition epoch; only
    a leader uses its partition epoch (in its AlterPartition requests).

    A newer controller's request replaces an older one's in the (broker, leader epoch) slot.
    With the same leader and ISR that was always so (only the controller epoch differs); it
    also holds when the two make ``b`` leader with different ISRs (``replaces_read_only_isr``),
    which two ZooKeeper failovers reach (issue 29am)."""
    if replaces_read_only_isr(t, lay, cfg, b, epoch, leader, isr):
        drop_leader_and_isr(t, lay, b, epoch)
    put_leader_and_isr(t, lay, b, epoch, leader, isr)
    if cfg[RULE_ALTER_PARTITION] != 0 and b == leader:
        set_leader_and_isr_current(t, lay, b, epoch, True)
    if cfg[MAX_CONTROLLER_FAILOVERS] > 0:
        set_leader_and_isr_controller_epoch(t, lay, b, epoch, controller_epoch(t, lay))


@kernel
def replaces_read_only_isr(t, lay, cfg, b, epoch, leader, isr):
    """May the active controller's LeaderAndIsr(epoch, b, isr) to ``b`` replace one still on its
    way that makes ``b`` leader in the same epoch with another ISR? Two ZooKeeper controller
    failovers reach this: the first new controller resends the partition's state, the leader
    (already in that epoch) shrinks or expands the ISR, which keeps the leader epoch
    (``Partition.updateIsr``, 2.1.0), and the second new controller resends the new ISR while
    the first's request is still in the slot. Issue 29am.

    Only when ``b``'s own leader epoch is at least ``epoch`` (always so here: a leader-driven
    ISR change needs ``b`` leading in ``epoch``, and a stop drops every request to ``b``).
    ``ReplicaManager.becomeLeaderOrFollower`` (2.1.0) then ignores the partition's state in both
    requests (``requestLeaderEpoch > currentLeaderEpoch`` fails) and takes from each only the
    controller epoch, the older's lower. What the replacement loses is the state where ``b``
    took the older request and not yet the newer: ``b`` has seen the older controller epoch
    ``c1`` instead of ``c0 < c1``, and holds inert requests of ``c1``. No property reads the
    controller epoch a broker has seen; it decides only whether the zombie (controller ``c1``
    once the second failover deposes it) is refused, and the zombie's request is refused alike
    under ``c0`` and ``c1`` (STALE_CONTROLLER_EPOCH needs a seen epoch above ``c1``), and
    taken by ``b`` only with a leader epoch above ``b``'s, which the zombie's view (``epoch``)
    is not. So the same futures follow: exact, not an over-approximation (docs/model.md,
    "Controller failovers"). Any other collision still raises ``SlotOverflow``, as does the
    mutation that lets a broker apply a request of its own epoch."""
    if epoch < 0 or epoch >= epoch_slots(lay) or leader != b:
        return False
    if not leader_and_isr_pending(t, lay, b, epoch) or leader_and_isr_leader(t, lay, b, epoch) != b:
        return False
    if leader_and_isr_isr(t, lay, b, epoch) == isr or epoch > leader_epoch(t, lay, b):
        return False
    return not skipped(cfg, G_LEADER_AND_ISR_NEWER_EPOCH)


@kernel
def zombie_broker_epoch(cfg):
    """Is the broker epoch of the zombie controller's requests tracked (``--max-controller-
    failovers`` with rule ``broker-epoch``: layout feature ``zombie_broker_epoch``)?"""
    return cfg[RULE_BROKER_EPOCH] != 0 and cfg[MAX_CONTROLLER_FAILOVERS] > 0


@kernel
def refuses_zombie(s, lay, cfg, b):
    """KIP-380 (Kafka 2.2, rule ``broker-epoch``): does ``b`` refuse the zombie controller's
    LeaderAndIsr for its broker epoch (STALE_BROKER_EPOCH)? Read at 2.2.0: the controller puts
    in every control request the broker epoch it holds for the target
    (``ControllerChannelManager.sendRequestsToBrokers``, ControllerChannelManager.scala 422-424:
    ``controllerContext.liveBrokerIdAndEpochs(broker)``), a broker's epoch is the czxid of the
    ephemeral node of its last registration (``KafkaZkClient.registerBroker``, KafkaZkClient.scala
    95-100: at start, KafkaServer.scala 260, and on every new session,
    ``RegisterBrokerAndReelect``, KafkaController.scala 1636-1641), and the broker answers
    STALE_BROKER_EPOCH, before reading anything else of the request, to one whose epoch is
    older than its own (``KafkaApis.handleLeaderAndIsrRequest`` 187-193, ``isBrokerEpochStale``
    2406-2416). The zombie's view of the brokers froze when its session expired: the event
    that resigns it (``Expire``) is put at the head of a cleared queue before a new session can
    be made (KafkaController.scala 172-178), so it never reads a registration made after the
    failover. A broker that registered since (``registered_since_failover``) therefore refuses
    it; one registered before, whose registration the zombie handled as active controller
    (kmc's restart registers atomically, ``controller_register_broker``), does not."""
    return (zombie_broker_epoch(cfg) and registered_since_failover(s, lay, b)
            and not skipped(cfg, G_ZOMBIE_BROKER_EPOCH))


@kernel
def controller_register_broker(s, t, lay, cfg, b):
    """The controller learns that broker ``b`` is up (``KafkaController.onBrokerStartup``; KRaft
    registration and unfencing, ``handleBrokerUnfenced``): ``b`` joins its live set and is sent
    the partition's state; if the partition has no leader and ``b`` may lead (``leader_candidates``:
    an ISR member; with KIP-966 an eligible or the last known leader; with unclean election any
    broker), ``b`` is elected first and every live broker told. With a zombie controller about
    and KIP-380, ``b`` now holds a broker epoch the zombie never saw (``refuses_zombie``). Reads
    the controller's state from ``s`` (which may be ``t`` itself) and writes ``t``."""
    leader = controller_leader(s, lay)
    isr, live = controller_isr(s, lay), controller_live(s, lay)
    epoch = controller_leader_epoch(s, lay)
    if zombie_broker_epoch(cfg) and has_zombie_controller(s, lay):
        set_registered_since_failover(t, lay, b, True)  # a broker epoch the zombie never saw
    if not has(live, b):
        new_live = live | (1 << b)
        if leader == NO_LEADER and epoch_available(s, lay, cfg):
            set_controller(t, lay, leader, epoch, isr, new_live)  # candidates see b live
            candidates, how = leader_candidates(t, lay, cfg, isr, NO_LEADER)
            if has(candidates, b):
                set_controller(t, lay, leader, epoch, isr, live)
                write_partition(s, t, lay, cfg, b, epoch + 1, isr_after_election(cfg, isr, b, how),
                                new_live, how)
                return
        set_controller(t, lay, leader, epoch, isr, new_live)
    send_leader_and_isr(t, lay, cfg, b, epoch, leader, isr)  # the partition's current state
    if kraft(cfg) and b == leader:  # a leader already at this epoch catches up with the latest
        put_change(t, lay, b, epoch, isr)
