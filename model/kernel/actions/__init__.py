"""The actions of the partition's transition system, grouped by who takes them: the producer
(``producer.py``), the consumer (``consumer.py``), a leader (``leader.py``), a follower (``follower.py``), a broker applying the
controller's decisions, starting and stopping (``broker.py``), the controller (``controller.py``)
and the world's faults (``faults.py``). Each action says which Kafka code path it models; a rule
that changed between releases is a switch read from ``cfg``, named in ``model/rules.py`` with its
KIP or JIRA. ``successors`` runs them all, in the fixed order traces are replayed in.

Behaviour several actions share lives beside them: ``model/kernel/transitions.py`` (named after
Kafka's methods: ``make_leader``, ``maybe_increment_leader_hw``, ...) and
``model/kernel/controller.py`` (elections and partition changes).
"""

from __future__ import annotations

from model.kernel.actions.broker import (
    become_leader_or_follower, broker_apply_partition_change, broker_handle_zombie_leader_and_isr,
    broker_restart, broker_shutdown, checkpoint_high_watermark,
)
from model.kernel.actions.consumer import (
    consumer_commit, consumer_fetch, consumer_process, consumer_restart,
)
from model.kernel.actions.controller import (
    controller_elect_leader, controller_handle_alter_partition, controller_handle_broker_failure,
    controller_handle_controlled_shutdown, controller_preferred_election,
    controller_reassign_replicas, controller_unfence_broker,
)
from model.kernel.actions.faults import (
    broker_crash, controller_failover, controller_fence_broker, fetch_delayed, flush_log,
    zombie_controller_send_leader_and_isr,
)
from model.kernel.actions.follower import follower_handle_fetch_response, follower_truncate
from model.kernel.actions.leader import (
    leader_expand_isr, leader_handle_alter_partition_response, leader_handle_delayed_fetch,
    leader_handle_fetch, leader_handle_fetch_on_stale_metadata, leader_shrink_isr, leader_shrink_isr_set,
)
from model.kernel.actions.producer import produce_record, producer_bump_epoch, producer_retry
from model.kernel.actions.step import begin  # noqa: F401  (tests build successors with it)
from model.kernel.controller import ordered
from model.kernel.jit import kernel
from model.kernel.params import (
    CONSUMER_COMMIT, HW_CHECKPOINT_INTERVAL, MAX_CONTROLLED_SHUTDOWNS, MAX_CONTROLLER_FAILOVERS,
    MAX_DELAYED_FETCHES, MAX_PREFERRED_ELECTIONS, MAX_PRODUCER_EPOCH_BUMPS, MAX_REASSIGNMENTS,
    MAX_RETRIES, MAX_SESSION_EXPIRIES, MAX_STALE_METADATA_READS, POWER_LOSS, TRUNCATE_TO_HW,
)
from model.kernel.transitions import truncation
from model.rules import (
    RULE_ALTER_PARTITION, RULE_ISR_EXPANSION_AS_OWN_STEP, RULE_ISR_SHRINK_OUT_OF_SYNC_SET, RULE_KRAFT,
)


@kernel
def successors(s, lay, cfg, out, acts):
    """Every enabled action of ``s`` and the state it leads to, in the fixed order; returns how
    many were written to ``out``/``acts``.

    An action that only a setting, a bound or a rule brings into the model (a fault with its
    bound at 0, the consumer, AlterPartition, ...) is not called at all when the configuration
    leaves it out: each such test here is the first test of the action itself, which would
    return at once, and skipping the call saves its cost (the row, layout, configuration and
    both output arrays passed on every call: about 12 ns each, a third of successor generation
    in kmc 0.1's configurations; ``bench/profile_actions.py``)."""
    ordered_moves = ordered(cfg)
    failovers = cfg[MAX_CONTROLLER_FAILOVERS] != 0
    consumer = cfg[CONSUMER_COMMIT] != 0
    alter_partition = cfg[RULE_ALTER_PARTITION] != 0
    k = 0
    k = produce_record(s, lay, cfg, out, acts, k)
    k = leader_handle_fetch(s, lay, cfg, out, acts, k)
    k = follower_handle_fetch_response(s, lay, cfg, out, acts, k)
    if truncation(cfg) != TRUNCATE_TO_HW:
        k = follower_truncate(s, lay, cfg, out, acts, k)
    k = leader_shrink_isr(s, lay, cfg, out, acts, k)
    if cfg[RULE_ISR_EXPANSION_AS_OWN_STEP] != 0:
        k = leader_expand_isr(s, lay, cfg, out, acts, k)
    k = become_leader_or_follower(s, lay, cfg, out, acts, k)
    if not ordered_moves:
        k = controller_elect_leader(s, lay, cfg, out, acts, k)
    if ordered_moves and cfg[MAX_PREFERRED_ELECTIONS] != 0:
        k = controller_preferred_election(s, lay, cfg, out, acts, k)
    if ordered_moves and cfg[MAX_REASSIGNMENTS] != 0:
        k = controller_reassign_replicas(s, lay, cfg, out, acts, k)
    k = controller_handle_broker_failure(s, lay, cfg, out, acts, k)
    k = broker_crash(s, lay, cfg, out, acts, k)
    k = broker_restart(s, lay, cfg, out, acts, k)
    if cfg[POWER_LOSS] != 0:
        k = flush_log(s, lay, cfg, out, acts, k)
    if cfg[HW_CHECKPOINT_INTERVAL] != 0:
        k = checkpoint_high_watermark(s, lay, cfg, out, acts, k)
    if cfg[MAX_CONTROLLED_SHUTDOWNS] != 0:
        k = controller_handle_controlled_shutdown(s, lay, cfg, out, acts, k)
        k = broker_shutdown(s, lay, cfg, out, acts, k)
    if cfg[MAX_SESSION_EXPIRIES] != 0:
        k = controller_fence_broker(s, lay, cfg, out, acts, k)
        k = controller_unfence_broker(s, lay, cfg, out, acts, k)
    if alter_partition:
        k = controller_handle_alter_partition(s, lay, cfg, out, acts, k)
        k = leader_handle_alter_partition_response(s, lay, cfg, out, acts, k)
    if cfg[RULE_KRAFT] != 0:
        k = broker_apply_partition_change(s, lay, cfg, out, acts, k)
    if cfg[MAX_DELAYED_FETCHES] != 0:
        k = fetch_delayed(s, lay, cfg, out, acts, k)
        k = leader_handle_delayed_fetch(s, lay, cfg, out, acts, k)
    if failovers:
        k = controller_failover(s, lay, cfg, out, acts, k)
        k = zombie_controller_send_leader_and_isr(s, lay, cfg, out, acts, k)
        k = broker_handle_zombie_leader_and_isr(s, lay, cfg, out, acts, k)
    if cfg[MAX_RETRIES] != 0:
        k = producer_retry(s, lay, cfg, out, acts, k)
    if cfg[MAX_PRODUCER_EPOCH_BUMPS] != 0:
        k = producer_bump_epoch(s, lay, cfg, out, acts, k)
    if consumer:
        k = consumer_fetch(s, lay, cfg, out, acts, k)
        k = consumer_process(s, lay, cfg, out, acts, k)
        k = consumer_commit(s, lay, cfg, out, acts, k)
        k = consumer_restart(s, lay, cfg, out, acts, k)
    if cfg[MAX_STALE_METADATA_READS] != 0:
        k = leader_handle_fetch_on_stale_metadata(s, lay, cfg, out, acts, k)
    if cfg[RULE_ISR_SHRINK_OUT_OF_SYNC_SET] != 0:
        k = leader_shrink_isr_set(s, lay, cfg, out, acts, k)  # last: earlier successors keep their index
    return k
