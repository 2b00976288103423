"""From a ``ModelConfig`` to what the kernel reads: the layout, the ``cfg`` array, the symmetry
orderings and the initial row."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.config import BOUND_NAMES, ModelConfig
from model.errors import ConfigError
from model.actions import ACTION_NAMES
from model.kernel import params as P
from model.kernel.codec import encode
from model.kernel.layout import Layout, broker_orders, build_layout
from model.kernel.symmetry import SymmetryTables, symmetry_tables
from model.kernel.guards import active_mutation
from model.rules import PARAM_COUNT, RULES, fill_rule_switches
from model.state import initial_state

MAX_KERNEL_BOUND = 60
"""Every value of a row is an int8; bounds up to this keep every offset, epoch and count far
from the limit."""

_ACKS = {"0": P.ACKS_0, "1": P.ACKS_1, "all": P.ACKS_ALL}


@dataclass(frozen=True)
class KernelSpec:
    """Everything the compiled kernel needs about one configuration, as plain arrays."""

    config: ModelConfig
    layout: Layout
    cfg: np.ndarray
    symmetry: SymmetryTables
    initial: np.ndarray
    max_successors: int

    @property
    def lay(self) -> np.ndarray:
        return self.layout.array

    @property
    def width(self) -> int:
        return self.layout.width

    @property
    def sym(self) -> tuple:
        """The symmetry tables as the kernel takes them."""
        return self.symmetry.as_tuple()


def max_successors(n: int, epochs: int) -> int:
    """An upper bound on the successors of one state (for buffer sizes): per broker a handful of
    single-broker actions, per pair of brokers the ISR changes and the elections of each
    controller action, per (broker, epoch) a LeaderAndIsr from each controller."""
    per_broker = 16
    return n * per_broker + 8 * n * n + 2 * n * epochs + 16


@dataclass(frozen=True)
class Brings:
    """What a setting or a bound brings to the model when ``on(config)``: layout features
    (``layout.FEATURES``) and actions. The rules declare theirs in the rule table
    (``Rule.features``, ``Rule.actions``)."""

    what: str
    on: object
    features: tuple = ()
    actions: tuple = ()


ENVIRONMENT = (
    Brings("a crash model that loses data", lambda c: c.crash_model != "process",
           actions=("FlushLog",)),
    Brings("--hw-checkpoint interval", lambda c: c.hw_checkpoint == "interval",
           features=("hw_checkpoint",), actions=("CheckpointHighWatermark",)),
    Brings("--max-crashes", lambda c: c.bounds.max_crashes > 0,
           actions=("BrokerCrash", "BrokerRestart", "ControllerHandleBrokerFailure", "FlushLog")),
    Brings("--max-controlled-shutdowns", lambda c: c.bounds.max_controlled_shutdowns > 0,
           features=("controlled_shutdown",),
           actions=("ControllerHandleControlledShutdown", "BrokerShutdown")),
    Brings("--max-session-expiries", lambda c: c.bounds.max_session_expiries > 0,
           features=("session_expiry",), actions=("ControllerFenceBroker", "ControllerUnfenceBroker")),
    Brings("--max-controller-failovers", lambda c: c.bounds.max_controller_failovers > 0,
           features=("controller_failover",),
           actions=("ControllerFailover", "ZombieControllerSendLeaderAndIsr",
                    "BrokerHandleZombieLeaderAndIsr")),
    # KIP-380 (2.2): every control request carries the broker epoch the sending controller
    # holds; a broker that registered since the failover refuses the zombie's (issue 29bi)
    Brings("--max-controller-failovers with KIP-380's broker epoch (rule broker-epoch)",
           lambda c: c.bounds.max_controller_failovers > 0 and "broker-epoch" in c.rules,
           features=("zombie_broker_epoch",)),
    Brings("--max-delayed-fetches", lambda c: c.bounds.max_delayed_fetches > 0,
           features=("delayed_fetch",), actions=("FetchDelayed", "LeaderHandleDelayedFetch")),
    Brings("no-read-loss (consumer reads tracked)", lambda c: c.track_reads, features=("reads",)),
    Brings("--retries (the producer sends again)", lambda c: c.bounds.max_retries > 0,
           features=("producer",), actions=("ProducerRetry",)),
    Brings("--consumer-commit (a consumer processes and commits)", lambda c: bool(c.consumer_commit),
           features=("consumer",),
           actions=("ConsumerFetch", "ConsumerProcess", "ConsumerCommit", "ConsumerRestart")),
    Brings("--max-producer-epoch-bumps (the producer epoch, KIP-360)",
           lambda c: c.bounds.max_producer_epoch_bumps > 0, features=("producer_epoch",),
           actions=("ProducerBumpEpoch",)),
    Brings("--max-consumer-restarts", lambda c: c.bounds.max_consumer_restarts > 0,
           actions=("ConsumerRestart",)),
    # KAFKA-7128's check reads the start offset of the leader's epoch, which a broker that takes
    # up an epoch it has records of (only after a restart) records as its LEO then: without
    # KIP-380, a restart before the controller noticed; with controller failovers, a zombie
    # controller's request (since issue 29bi KIP-380's broker epoch refuses the zombie's request
    # to a broker that restarted after the failover; the slot is kept with failovers until a BFS
    # shows it unreachable there: docs/model.md)
    Brings("a restart into the broker's own leader epoch under KAFKA-7128's epoch-start check",
           lambda c: "isr-join-needs-epoch-start" in c.rules
           and ("broker-epoch" not in c.rules or c.bounds.max_controller_failovers > 0),
           features=("epoch_start_offset",)),
    Brings("assignment order (every release; rule unordered-leader-moves leaves it out)",
           lambda c: "unordered-leader-moves" not in c.rules, features=("assignment",),
           actions=("ControllerPreferredElection", "ControllerReassignReplicas")),
    Brings("--max-preferred-elections", lambda c: c.bounds.max_preferred_elections > 0,
           features=("preferred_election",), actions=("ControllerPreferredElection",)),
    Brings("--max-reassignments", lambda c: c.bounds.max_reassignments > 0,
           features=("reassignment",), actions=("ControllerReassignReplicas",)),
    Brings("--max-stale-metadata-reads", lambda c: c.bounds.max_stale_metadata_reads > 0,
           features=("stale_metadata",), actions=("LeaderHandleFetchOnStaleMetadata",)),
)
"""The settings and bounds that bring fields or actions (a fault bound of 0 brings neither)."""


def model_actions(config: ModelConfig) -> tuple:
    """The actions ``config``'s model has, in the kernel's order. An action some rule brings
    (``Rule.actions``) is there only if one of those rules is in force, and an action the
    environment brings (``ENVIRONMENT``) only if every setting or bound that brings it is on
    (FlushLog needs crashes and a crash model that loses data); the others cannot happen at all,
    so coverage does not list them."""
    rules = set(config.rules)
    by_rules: dict[str, bool] = {}
    for name, r in RULES.items():
        for action in r.actions:
            by_rules[action] = by_rules.get(action, False) or name in rules
    absent = {a for a, on in by_rules.items() if not on}
    for brings in ENVIRONMENT:
        if not brings.on(config):
            absent.update(brings.actions)
    return tuple(a for a in ACTION_NAMES if a not in absent)


def layout_features(config: ModelConfig) -> frozenset:
    """The optional field groups (``layout.FEATURES``) ``config`` needs: those of its rules in
    force and of its settings and bounds that are on."""
    on = {f for name in config.rules for f in RULES[name].features}
    on |= {f for brings in ENVIRONMENT if brings.on(config) for f in brings.features}
    return frozenset(on)


def kernel_spec(config: ModelConfig) -> KernelSpec:
    """The kernel's view of ``config``."""
    b = config.bounds
    for name in BOUND_NAMES:
        value = getattr(b, name)
        if value > MAX_KERNEL_BOUND:
            raise ConfigError(
                f"--{name.replace('_', '-')} {value} is beyond what the compiled engine holds "
                f"(at most {MAX_KERNEL_BOUND}); such a run could never finish anyway")
    n = config.replication_factor
    epochs = b.max_leader_epoch + 1
    features = layout_features(config)
    # a retried record may be appended again: a log holds up to max-records + retries entries
    layout = build_layout(n, b.max_records + b.max_retries, epochs, features)
    cfg = np.zeros(PARAM_COUNT, dtype=np.int32)
    cfg[P.ACKS] = _ACKS[config.acks]
    cfg[P.MIN_INSYNC_REPLICAS] = config.min_insync_replicas
    cfg[P.UNCLEAN_LEADER_ELECTION] = 1 if config.unclean_leader_election_enable else 0
    cfg[P.POWER_LOSS] = 1 if config.crash_model == "power-loss" else 0
    cfg[P.DISK_LOSS] = 1 if config.crash_model == "disk-loss" else 0
    cfg[P.MAX_RECORDS] = b.max_records
    cfg[P.MAX_LEADER_EPOCH] = b.max_leader_epoch
    cfg[P.MAX_CRASHES] = b.max_crashes
    cfg[P.MAX_UNFLUSHED_LOSSES] = b.max_unflushed_losses
    cfg[P.MAX_CONTROLLED_SHUTDOWNS] = b.max_controlled_shutdowns
    cfg[P.MAX_SESSION_EXPIRIES] = b.max_session_expiries
    cfg[P.MAX_CONTROLLER_FAILOVERS] = b.max_controller_failovers
    cfg[P.MAX_DELAYED_FETCHES] = b.max_delayed_fetches
    cfg[P.MAX_PREFERRED_ELECTIONS] = b.max_preferred_elections
    cfg[P.MAX_REASSIGNMENTS] = b.max_reassignments
    cfg[P.MAX_STALE_METADATA_READS] = b.max_stale_metadata_reads
    cfg[P.HW_CHECKPOINT_INTERVAL] = 1 if "hw_checkpoint" in features else 0
    cfg[P.TRACK_READS] = 1 if "reads" in features else 0
    cfg[P.EPOCH_START_OFFSET] = 1 if "epoch_start_offset" in features else 0
    cfg[P.FETCH_FROM_FOLLOWERS] = 1 if config.fetch_from_followers else 0
    cfg[P.MAX_RETRIES] = b.max_retries
    cfg[P.IDEMPOTENCE] = 1 if config.idempotent else 0
    cfg[P.MAX_IN_FLIGHT] = config.max_in_flight_requests_per_connection
    cfg[P.MAX_PRODUCER_EPOCH_BUMPS] = b.max_producer_epoch_bumps
    cfg[P.CONSUMER_COMMIT] = {"": 0, "before": 1, "after": 2}[config.consumer_commit]
    cfg[P.MAX_CONSUMER_RESTARTS] = b.max_consumer_restarts
    cfg[P.MUTATION] = active_mutation()  # 0 unless the mutation check skips a guard
    fill_rule_switches(cfg, config.rules)
    orders = broker_orders(n) if config.symmetry else broker_orders(n)[:1]
    start = initial_state(n)
    if "hw_checkpoint" in features:  # the checkpoint files hold the initial HW, 0
        start = start._replace(replicas=tuple(r._replace(checkpointed_hw=0) for r in start.replicas))
    if "alter_partition" in features:  # only the leader keeps a partition epoch it uses
        start = start._replace(replicas=tuple(
            r._replace(partition_epoch_current=(b == 0)) for b, r in enumerate(start.replicas)))
    if "assignment" in features:  # the replicas assigned in the order 0, 1, ...: 0 is preferred
        start = start._replace(replicas=tuple(
            r._replace(assignment_rank=b) for b, r in enumerate(start.replicas)))
    if "producer_epoch" in features:  # no record sent yet: every sequence 0
        start = start._replace(sequences=(0,) * layout.n_records)
    initial = encode(start, layout)
    symmetry = symmetry_tables(layout, orders)
    retries = n * b.max_records if b.max_retries else 0  # ProducerRetry: a record to a leader
    consumer = 4 if config.consumer_commit else 0  # one successor per consumer action at most
    stale = n if b.max_stale_metadata_reads else 0  # LeaderHandleFetchOnStaleMetadata: a follower
    sets = n << (n - 1) if "isr-shrink-out-of-sync-set" in config.rules else 0  # a leader, a set
    bumps = b.max_records if b.max_producer_epoch_bumps else 0  # ProducerBumpEpoch: a record
    return KernelSpec(config, layout, cfg, symmetry, initial,
                      max_successors(n, epochs) + retries + consumer + stale + sets + bumps)
