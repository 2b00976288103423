"""The world's faults: crashes (with what a crash model loses), the OS flushing the page cache, a
running broker's session expiring, a fetch held up in flight, and ZooKeeper controller failovers
with the zombie controller they leave behind. Each is bounded by its option (0: it never
happens).

Each action writes every successor it enables into ``out`` (rows) and ``acts`` (action id
and arguments), in a fixed order, and returns the new successor count (``step.py``); the
rules that changed between releases are switches read from ``cfg`` (``model/rules.py``).
"""

from __future__ import annotations

from model.kernel.actions.controller import controller_remove_broker
from model.kernel.actions.follower import may_fetch
from model.kernel.actions.step import (
    BROKER_CRASH, CONTROLLER_FAILOVER, CONTROLLER_FENCE_BROKER, FETCH_DELAYED, FLUSH_LOG,
    NO_ARG, ZOMBIE_CONTROLLER_SEND_LEADER_AND_ISR, begin,
)
from model.kernel.controller import refuses_zombie, send_leader_and_isr, zombie_broker_epoch
from model.kernel.fields import (
    broker_count, controller_epoch, controller_failovers, controller_isr, controller_leader,
    controller_leader_epoch, controller_live, crashes, delayed_fetches, flushed_offset, has,
    has_delayed_fetch, has_zombie_controller, high_watermark, is_alive, leader_epoch, leader_of,
    log_end_offset, put_delayed_fetch, session_expiries, set_checkpointed_hw,
    set_controller_epoch, set_controller_failovers, set_crashes, set_delayed_fetches,
    set_flushed_offset, set_high_watermark, set_session_expiries, set_unflushed_losses,
    set_zombie_controller, set_zombie_request, truncate_to, unflushed_losses,
    zombie_leader_epoch, zombie_request_pending, set_registered_since_failover,
)
from model.kernel.jit import kernel
from model.kernel.params import (
    DISK_LOSS, HW_CHECKPOINT_INTERVAL, MAX_CONTROLLER_FAILOVERS, MAX_CRASHES,
    MAX_DELAYED_FETCHES, MAX_SESSION_EXPIRIES, MAX_UNFLUSHED_LOSSES, POWER_LOSS,
)
from model.kernel.transitions import finish
from model.kernel.actions.broker import stop_broker


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
def controller_failover(s, lay, cfg, out, acts, k):
    """ControllerFailover: ZooKeeper mode: the controller's session expires and another broker
    becomes controller with the next controller epoch (``KafkaController.onControllerFailover``).
    It reads the partition's state from ZooKeeper and sends it to every live broker
    (``ReplicaStateMachine.startup``), with the same leader epoch. The deposed controller does
    not know yet: it is a zombie with its view of the partition frozen (since KAFKA-6082, 2.1,
    every write it tries is a compare-and-set on the controller epoch's zkVersion; before, on
    the partition's alone, which a zombie could pass while the new controller had not written
    the partition: not modelled, docs/model.md), but it may still send that view to brokers
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
        if zombie_broker_epoch(cfg):  # the new zombie holds every broker's current epoch
            set_registered_since_failover(t, lay, b, False)
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
    partition to a live broker, with its old controller epoch (and, since KIP-380, the broker
    epoch it holds for the broker). Only a broker behind that view's leader epoch could take it,
    and under KIP-380 not one that registered since the failover (``refuses_zombie``)."""
    if cfg[MAX_CONTROLLER_FAILOVERS] == 0 or not has_zombie_controller(s, lay):
        return k
    for b in range(broker_count(lay)):
        if not is_alive(s, lay, b) or zombie_request_pending(s, lay, b):
            continue
        if zombie_leader_epoch(s, lay) <= leader_epoch(s, lay, b):
            continue  # it would ignore it: not an action
        if refuses_zombie(s, lay, cfg, b):
            continue  # KIP-380: it would refuse it (STALE_BROKER_EPOCH): not an action either
        begin(s, out, acts, k, ZOMBIE_CONTROLLER_SEND_LEADER_AND_ISR, b, NO_ARG)
        set_zombie_request(out[k], lay, b, True)
        k += 1
    return k
