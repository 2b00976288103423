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
from model.rules import fill_rule_params
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


def model_actions(config: ModelConfig) -> tuple:
    """The actions ``config``'s model has, in the kernel's order: those of features it leaves
    out (FlushLog without power loss, FollowerTruncate before KIP-101, the fault actions at a
    bound of 0) cannot happen at all, so coverage does not list them."""
    b = config.bounds
    rules = set(config.rules)
    absent = set()
    if config.crash_model == "process":
        absent.add("FlushLog")
    if not rules & {"epoch-truncation", "epoch-truncation-loop"}:
        absent.add("FollowerTruncate")
    if "isr-expansion-as-own-step" not in rules:
        absent.add("LeaderExpandIsr")  # Kafka expands the ISR inside LeaderHandleFetch
    if config.hw_checkpoint != "interval":
        absent.add("CheckpointHighWatermark")
    if b.max_controlled_shutdowns == 0:
        absent |= {"ControllerHandleControlledShutdown", "BrokerShutdown"}
    if b.max_session_expiries == 0:
        absent |= {"ControllerFenceBroker", "ControllerUnfenceBroker"}
    if b.max_crashes == 0:
        absent |= {"BrokerCrash", "BrokerRestart", "ControllerHandleBrokerFailure", "FlushLog"}
    if "alter-partition" not in rules:
        absent |= {"ControllerHandleAlterPartition", "LeaderHandleAlterPartitionResponse"}
    if "kraft" not in rules:
        absent.add("BrokerApplyPartitionChange")
    if b.max_delayed_fetches == 0:
        absent |= {"FetchDelayed", "LeaderHandleDelayedFetch"}
    if b.max_controller_failovers == 0:
        absent |= {"ControllerFailover", "ZombieControllerSendLeaderAndIsr",
                   "BrokerHandleZombieLeaderAndIsr"}
    return tuple(a for a in ACTION_NAMES if a not in absent)


def layout_features(config: ModelConfig) -> frozenset:
    """The optional field groups (``layout.FEATURES``) ``config`` needs."""
    b = config.bounds
    rules = set(config.rules)
    on = {
        "hw_checkpoint": config.hw_checkpoint == "interval",
        "controlled_shutdown": b.max_controlled_shutdowns > 0,
        "session_expiry": b.max_session_expiries > 0,
        "controller_failover": b.max_controller_failovers > 0,
        "delayed_fetch": b.max_delayed_fetches > 0,
        "reads": config.track_reads,
        "alter_partition": "alter-partition" in rules,
        "kraft": "kraft" in rules,
        "broker_epochs": "broker-epoch-in-fetch" in rules,
        "elr": "eligible-leader-replicas" in rules,
    }
    return frozenset(name for name, wanted in on.items() if wanted)


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
    layout = build_layout(n, b.max_records, epochs, features)
    cfg = np.zeros(P.PARAM_COUNT, dtype=np.int32)
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
    cfg[P.HW_CHECKPOINT_INTERVAL] = 1 if "hw_checkpoint" in features else 0
    cfg[P.TRACK_READS] = 1 if "reads" in features else 0
    cfg[P.FETCH_FROM_FOLLOWERS] = 1 if config.fetch_from_followers else 0
    fill_rule_params(cfg, config.rules)
    orders = broker_orders(n) if config.symmetry else broker_orders(n)[:1]
    start = initial_state(n)
    if "hw_checkpoint" in features:  # the checkpoint files hold the initial HW, 0
        start = start._replace(replicas=tuple(r._replace(checkpointed_hw=0) for r in start.replicas))
    if "alter_partition" in features:  # only the leader keeps a partition epoch it uses
        start = start._replace(replicas=tuple(
            r._replace(partition_epoch_current=(b == 0)) for b, r in enumerate(start.replicas)))
    initial = encode(start, layout)
    symmetry = symmetry_tables(layout, orders)
    return KernelSpec(config, layout, cfg, symmetry, initial, max_successors(n, epochs))
