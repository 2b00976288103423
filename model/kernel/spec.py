"""From a ``ModelConfig`` to what the kernel reads: the layout, the ``cfg`` array, the symmetry
orderings and the initial row."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.config import ModelConfig
from model.errors import ConfigError
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
    """An upper bound on the successors of one state (for buffer sizes)."""
    per_broker = 8  # produce, fetch, response, truncate, elect, crash, restart, flush
    return n * per_broker + 3 * n * n + n * epochs + 16


def kernel_spec(config: ModelConfig) -> KernelSpec:
    """The kernel's view of ``config``."""
    b = config.bounds
    for name in ("max_records", "max_leader_epoch", "max_crashes", "max_unflushed_losses"):
        value = getattr(b, name)
        if value > MAX_KERNEL_BOUND:
            raise ConfigError(
                f"--{name.replace('_', '-')} {value} is beyond what the compiled engine holds "
                f"(at most {MAX_KERNEL_BOUND}); such a run could never finish anyway")
    n = config.replication_factor
    epochs = b.max_leader_epoch + 1
    layout = build_layout(n, b.max_records, epochs)
    cfg = np.zeros(P.PARAM_COUNT, dtype=np.int32)
    cfg[P.ACKS] = _ACKS[config.acks]
    cfg[P.MIN_INSYNC_REPLICAS] = config.min_insync_replicas
    cfg[P.UNCLEAN_LEADER_ELECTION] = 1 if config.unclean_leader_election_enable else 0
    cfg[P.POWER_LOSS] = 1 if config.crash_model == "power-loss" else 0
    cfg[P.MAX_RECORDS] = b.max_records
    cfg[P.MAX_LEADER_EPOCH] = b.max_leader_epoch
    cfg[P.MAX_CRASHES] = b.max_crashes
    cfg[P.MAX_UNFLUSHED_LOSSES] = b.max_unflushed_losses
    fill_rule_params(cfg, config.rules)
    orders = broker_orders(n) if config.symmetry else broker_orders(n)[:1]
    initial = encode(initial_state(n), layout)
    symmetry = symmetry_tables(layout, orders)
    return KernelSpec(config, layout, cfg, symmetry, initial, max_successors(n, epochs))
