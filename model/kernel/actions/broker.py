"""A broker's actions: applying what the controller sent (LeaderAndIsr, KRaft partition changes, a
zombie controller's request), starting again after a stop, stopping cleanly after a controlled
shutdown, and checkpointing its HW.

Each action writes every successor it enables into ``out`` (rows) and ``acts`` (action id
and arguments), in a fixed order, and returns the new successor count (``step.py``); the
rules that changed between releases are switches read from ``cfg`` (``model/rules.py``).
"""

from __future__ import annotations

from model.kernel.actions.controller import handle_unclean_shutdown, unclean_shutdown_election
from model.kernel.actions.step import (
    BECOME_LEADER_OR_FOLLOWER, BROKER_APPLY_PARTITION_CHANGE,
    BROKER_HANDLE_ZOMBIE_LEADER_AND_ISR, BROKER_RESTART, BROKER_SHUTDOWN,
    CHECKPOINT_HIGH_WATERMARK, NO_ARG, begin,
)
from model.kernel.controller import (
    NOBODY, controller_register_broker, refuses_zombie, zombie_broker_epoch,
)
from model.kernel.fields import (
    NO_LEADER, UNDEFINED_EPOCH, alter_in_flight, alter_isr, broker_count, change_current,
    change_isr, change_leader_epoch, change_pending, checkpointed_hw, clear_alter, clear_change,
    clear_fetch_response, controller_epoch_seen, controller_live, drop_all_leader_and_isr,
    drop_leader_and_isr, epoch_slots, forget_remote_leos, has, high_watermark, is_alive,
    is_shutting_down, isr_of, leader_and_isr_controller_epoch, leader_and_isr_current,
    leader_and_isr_isr, leader_and_isr_leader, leader_and_isr_pending, leader_epoch, leader_of,
    log_end_offset, mark_delayed_fetch_stale, set_alive, set_alter_member_epoch_current,
    set_checkpointed_hw, set_controller_epoch_seen, set_flushed_offset, set_high_watermark,
    set_isr_of, set_leader_epoch, set_leader_of, set_partition_epoch_current,
    set_remote_current, set_shut_down_cleanly, set_shutting_down, set_truncating,
    set_zombie_request, shut_down_cleanly, zombie_controller_epoch, zombie_isr, zombie_leader,
    zombie_leader_epoch, zombie_request_pending,
)
from model.kernel.guards import G_LEADER_AND_ISR_NEWER_EPOCH, skipped
from model.kernel.jit import kernel
from model.kernel.params import (
    HW_CHECKPOINT_INTERVAL, MAX_CONTROLLED_SHUTDOWNS, MAX_CONTROLLER_FAILOVERS,
    MAX_DELAYED_FETCHES, MAX_SESSION_EXPIRIES, POWER_LOSS,
)
from model.kernel.transitions import (
    fail_parked_produce, finish, make_follower, make_leader, maybe_increment_leader_hw,
)
from model.rules import (
    RULE_ALTER_PARTITION, RULE_BROKER_EPOCH, RULE_BROKER_EPOCH_IN_FETCH, RULE_CONTROLLER_EPOCH,
    RULE_ELR, RULE_KRAFT, RULE_LEADER_AND_ISR_IN_ORDER,
)
from model.kernel.fields import set_epoch_start_offset, set_registered_since_failover
from model.kernel.params import EPOCH_START_OFFSET


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
    (STALE_CONTROLLER_EPOCH; ``finish`` drops those).

    With ``leader-and-isr-in-order`` (ZooKeeper mode) a broker takes the requests of one
    controller in the order it sent them (``ControllerChannelManager``: one queue and one
    ``RequestSendThread`` per broker): a request waits while an older one of the same controller
    epoch is still on its way; one of an older controller may be skipped, as a failover loses
    the old controller's queue. With ``--max-session-expiries`` kmc does not enforce the order
    (the queue an expired session drops is not tracked: the over-approximation)."""
    failovers = cfg[MAX_CONTROLLER_FAILOVERS] > 0
    in_order = (cfg[RULE_LEADER_AND_ISR_IN_ORDER] != 0 and cfg[RULE_KRAFT] == 0
                and cfg[MAX_SESSION_EXPIRIES] == 0)
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
            if e <= own and not newer_controller and not skipped(cfg, G_LEADER_AND_ISR_NEWER_EPOCH):
                continue
            if in_order and older_request_on_its_way(s, lay, b, e, own, failovers):
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
            if e > own or skipped(cfg, G_LEADER_AND_ISR_NEWER_EPOCH):
                if leader == b:
                    make_leader(t, lay, cfg, b, e, isr)
                else:
                    make_follower(t, lay, cfg, b, e, leader)
            finish(t, lay, cfg)
            k += 1
    return k


@kernel
def older_request_on_its_way(s, lay, b, e, own, failovers):
    """Is a LeaderAndIsr to ``b`` older than epoch ``e``, newer than ``b``'s own epoch and from
    the same controller (the same controller epoch, when failovers are tracked), still on its
    way? Then the request of epoch ``e`` is behind it in the controller's queue for ``b``."""
    for older in range(e):
        if older <= own or not leader_and_isr_pending(s, lay, b, older):
            continue
        if not failovers:
            return True
        if leader_and_isr_controller_epoch(s, lay, b, older) == leader_and_isr_controller_epoch(s, lay, b, e):
            return True
    return False


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


@kernel
def broker_handle_zombie_leader_and_isr(s, lay, cfg, out, acts, k):
    """BrokerHandleZombieLeaderAndIsr(broker): the zombie controller's LeaderAndIsr reaches the
    broker. With ``controller-epoch`` (every release since 0.8) a broker that has obeyed the new
    controller refuses it (STALE_CONTROLLER_EPOCH), and with ``broker-epoch`` (KIP-380, 2.2) one
    that registered since the failover (STALE_BROKER_EPOCH, ``refuses_zombie``); otherwise, if
    its leader epoch is newer than the broker's, the broker applies it and becomes leader or
    follower as the zombie's view says."""
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
        stale = stale or refuses_zombie(s, lay, cfg, b)  # KIP-380: STALE_BROKER_EPOCH
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


@kernel
def broker_restart(s, lay, cfg, out, acts, k):
    """BrokerRestart(broker): the broker recovers its log, reads its HW from its checkpoint and
    registers; the controller sends it the partition's state (``onBrokerStartup``,
    ``controller_register_broker``). Before KIP-380 (2.2) a broker that restarts before the
    controller noticed its failure comes back as if nothing happened, in the same leader epoch;
    since, its new broker epoch tells the controller it bounced, and the controller handles the
    failure first (``processBrokerChange``: ``onBrokerFailure`` then ``onBrokerStartup``), so
    the restart follows ControllerHandleBrokerFailure. Under KIP-966 the controller first
    handles an unclean shutdown (``handle_unclean_shutdown``), whose record may elect: one
    successor per choice of that election (issue 29ae; one, but under
    ``unordered-leader-moves``)."""
    live = controller_live(s, lay)
    bounce_noticed = cfg[RULE_BROKER_EPOCH] != 0
    for b in range(broker_count(lay)):
        if is_alive(s, lay, b):
            continue
        if bounce_noticed and has(live, b):
            continue  # KIP-380: the controller handles the failure first
        begin(s, out, acts, k, BROKER_RESTART, b, NO_ARG)
        start_broker(out[k], lay, cfg, b)
        candidates, how = 0, NOBODY
        if cfg[RULE_ELR] != 0 and not shut_down_cleanly(out[k], lay, b):
            candidates, how = unclean_shutdown_election(out[k], lay, cfg, b)
        if candidates == 0:
            register_restarted(out[k], lay, cfg, b, NO_LEADER, how)
            k += 1
            continue
        first = True  # one successor per choice of the election (several only when unordered)
        for c in range(broker_count(lay)):
            if not has(candidates, c):
                continue
            if not first:
                begin(s, out, acts, k, BROKER_RESTART, b, NO_ARG)
                start_broker(out[k], lay, cfg, b)
            first = False
            register_restarted(out[k], lay, cfg, b, c, how)
            k += 1
    return k


@kernel
def start_broker(t, lay, cfg, b):
    """``b`` runs again: its log recovered (under power loss, what survived is on disk), not
    shutting down, and under KIP-903 a new incarnation."""
    set_alive(t, lay, b, True)
    set_flushed_offset(t, lay, b, log_end_offset(t, lay, b) if cfg[POWER_LOSS] != 0 else 0)
    if cfg[MAX_CONTROLLED_SHUTDOWNS] > 0:
        set_shutting_down(t, lay, b, False)
    if cfg[RULE_BROKER_EPOCH_IN_FETCH] != 0:
        new_incarnation(t, lay, cfg, b)


@kernel
def register_restarted(t, lay, cfg, b, winner, how):
    """The running ``b`` registers: under KIP-966 the controller first handles an unclean
    shutdown (``handle_unclean_shutdown``, electing ``winner``, chosen ``how``, if not
    ``NO_LEADER``), then the registration itself (``controller_register_broker``)."""
    if cfg[RULE_ELR] != 0:
        if not shut_down_cleanly(t, lay, b):
            handle_unclean_shutdown(t, lay, cfg, b, winner, how)
        set_shut_down_cleanly(t, lay, b, False)  # the clean-shutdown file is read once
    controller_register_broker(t, t, lay, cfg, b)


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
    if cfg[EPOCH_START_OFFSET] != 0:
        set_epoch_start_offset(t, lay, b, -1)  # the Partition object is gone
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
        if zombie_broker_epoch(cfg):  # set again when it registers (one bit per dead broker)
            set_registered_since_failover(t, lay, b, False)


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
