"""Roughly how many distinct states a configuration has, before anything is explored: so that
bounds too large to finish get a warning with a figure, not a run that never ends in silence.

The figures are measured, not guessed: ``MEASURED`` holds the distinct states of kip-320
(Kafka 2.1's rules, acks=all, min.insync.replicas=2, process crashes, symmetry on) for small
bounds, as ``python bench/state_counts.py`` prints them. A larger configuration starts from the
largest measured point below it and, one bound at a time, extrapolates with the growth measured
at that point: states ~ (bound + 1) ** slope, the slope being the local log-log slope between
the last two measured values. That slope has only steepened as bounds grew (records: 4.9 then
5.8 at RF=2; epochs: 3.9 then 4.3), so the figure is a lower estimate; on the one large run
measured (RF=3, 3 records, 3 epochs, 1 crash: 225 million states, docs/checker.md) it says 133
million. Beyond three replicas each replica multiplies the states by ``REPLICA_STEP`` (measured
from RF=3 to RF=4 at 1 record, 2 epochs, no crash; it grows with the bounds).

Later releases and other crash models are larger: ``config_states`` multiplies by
``FAMILY_FACTOR`` (how many times kip-320's states each family of rules has at the replication
factor's default bounds: KRaft with ELR, Kafka 4.1, has 51 times as many at RF=3) and
``CRASH_FACTOR`` (power-loss crashes add each broker's flushed offset and the flushes: about 7
times as many states), both measured by ``python bench/state_counts.py --families``. Acks,
``min.insync.replicas`` and unclean election change the figure by small factors; an estimate is
an order of magnitude.
"""

from __future__ import annotations

import math

# python bench/state_counts.py --rf 2,3 (compiled engine, this repository's kip-320): distinct
# states by (max-records, max-leader-epoch, max-crashes); RF=3 rows that took over a minute are
# not measured
MEASURED = {
    2: {
        (0, 0, 0): 1, (0, 0, 1): 11, (0, 0, 2): 44, (0, 1, 0): 11, (0, 1, 1): 83, (0, 1, 2): 260,
        (0, 2, 0): 34, (0, 2, 1): 243, (0, 2, 2): 735, (0, 3, 0): 75, (0, 3, 1): 512,
        (0, 3, 2): 1491, (1, 0, 0): 17, (1, 0, 1): 143, (1, 0, 2): 446, (1, 1, 0): 116,
        (1, 1, 1): 908, (1, 1, 2): 2839, (1, 2, 0): 441, (1, 2, 1): 3149, (1, 2, 2): 9637,
        (1, 3, 0): 1170, (1, 3, 1): 7985, (1, 3, 2): 23884, (2, 0, 0): 73, (2, 0, 1): 612,
        (2, 0, 2): 1868, (2, 1, 0): 562, (2, 1, 1): 4520, (2, 1, 2): 14269, (2, 2, 0): 2590,
        (2, 2, 1): 18874, (2, 2, 2): 58570, (2, 3, 0): 8078, (2, 3, 1): 56217,
        (2, 3, 2): 171682, (3, 0, 0): 222, (3, 0, 1): 1880, (3, 0, 2): 5744, (3, 1, 0): 2071,
        (3, 1, 1): 17028, (3, 1, 2): 54107, (3, 2, 0): 11310, (3, 2, 1): 84636,
        (3, 2, 2): 265834, (3, 3, 0): 40935, (3, 3, 1): 291362, (3, 3, 2): 904564,
    },
    3: {
        (0, 0, 0): 1, (0, 0, 1): 26, (0, 0, 2): 197, (0, 1, 0): 69, (0, 1, 1): 809,
        (0, 1, 2): 3790, (0, 2, 0): 728, (0, 2, 1): 7044, (0, 2, 2): 29318, (0, 3, 0): 4116,
        (0, 3, 1): 37620, (0, 3, 2): 150859, (1, 0, 0): 185, (1, 0, 1): 2211, (1, 0, 2): 10466,
        (1, 1, 0): 3689, (1, 1, 1): 39017, (1, 1, 2): 165773, (1, 2, 0): 36618,
        (1, 2, 1): 344608, (1, 2, 2): 1363627, (1, 3, 0): 228803, (1, 3, 1): 2018074,
        (1, 3, 2): 7727560, (2, 0, 0): 2068, (2, 0, 1): 23697, (2, 0, 2): 105394,
        (2, 1, 0): 39892, (2, 1, 1): 430776, (2, 1, 2): 1852739, (2, 2, 0): 447069,
        (2, 2, 1): 4316913, (2, 3, 0): 3197619,
    },
}
REPLICA_STEP = 55.5  # RF=4 / RF=3 at (1, 2, 0): 2,032,846 / 36,618 states (same command, --rf 4)

FAMILY_RELEASES = {"kip-320": "2.1", "broker-epoch": "2.2", "alter-partition": "2.8",
                   "kraft": "3.9", "kraft-elr": "4.1"}
"""The release each family of rules is measured on (``family_of`` says which a rule set is)."""

# python bench/state_counts.py --families: states of the family's release / states of kip-320, at
# the replication factor's default bounds, process crashes
FAMILY_FACTOR = {
    "kip-320": {2: 1.00, 3: 1.00},  # Kafka 2.1
    "broker-epoch": {2: 0.59, 3: 0.56},  # Kafka 2.2
    "alter-partition": {2: 1.93, 3: 5.88},  # Kafka 2.8
    "kraft": {2: 8.51, 3: 46.04},  # Kafka 3.9
    "kraft-elr": {2: 8.70, 3: 50.88},  # Kafka 4.1
}
# the same command: states with power-loss / disk-loss crashes / with process crashes, RF=2
CRASH_FACTOR = {
    "kip-320": {"power-loss": 7.72, "disk-loss": 1.27},
    "broker-epoch": {"power-loss": 6.33, "disk-loss": 0.93},
    "alter-partition": {"power-loss": 7.83, "disk-loss": 1.18},
    "kraft": {"power-loss": 6.94, "disk-loss": 0.98},
    "kraft-elr": {"power-loss": 6.99, "disk-loss": 0.98},
}


def family_of(rules) -> str:
    """The family of a rule set, for ``FAMILY_FACTOR``: the newest structural change it has."""
    rules = set(rules)
    for rule, family in (("eligible-leader-replicas", "kraft-elr"), ("kraft", "kraft"),
                         ("alter-partition", "alter-partition"), ("broker-epoch", "broker-epoch")):
        if rule in rules:
            return family
    return "kip-320"


def config_states(config) -> float:
    """A lower estimate of the distinct states of ``config`` (a ``ModelConfig``): kip-320's
    (``estimated_states``) times its family's and its crash model's measured factors. The fault
    bounds add more, not counted."""
    b = config.bounds
    states = estimated_states(config.replication_factor, b.max_records, b.max_leader_epoch,
                              b.max_crashes, symmetry=config.symmetry)
    family = family_of(config.rules)
    states *= FAMILY_FACTOR.get(family, {}).get(min(config.replication_factor, 3), 1.0)
    if b.max_crashes and b.max_unflushed_losses:
        states *= CRASH_FACTOR.get(family, {}).get(config.crash_model, 1.0)
    return states


def estimated_states(replication_factor: int, max_records: int, max_leader_epoch: int,
                     max_crashes: int, *, symmetry: bool = True) -> float:
    """A lower estimate of the distinct states of these bounds (see the module docstring)."""
    table = MEASURED[min(replication_factor, 3)]
    target = (max_records, max_leader_epoch, max_crashes)
    below = [p for p in table if all(a <= b for a, b in zip(p, target))]
    base = max(below, key=table.__getitem__)
    states = float(table[base])
    for dim in range(3):
        if target[dim] > base[dim]:
            states *= ((target[dim] + 1) / (base[dim] + 1)) ** _slope(table, base, dim)
    if replication_factor > 3:
        states *= REPLICA_STEP ** (replication_factor - 3)
    if not symmetry:
        states *= math.factorial(replication_factor - 1)  # brokers 1..N-1 are no longer interchangeable
    return states


def _slope(table: dict, point: tuple, dim: int) -> float:
    """The log-log slope of the states in bound ``dim`` (plus one) just below ``point``."""
    x = point[dim]
    while x >= 1:
        lower = tuple(x - 1 if i == dim else v for i, v in enumerate(point))
        upper = tuple(x if i == dim else v for i, v in enumerate(point))
        if lower in table and upper in table:
            return math.log(table[upper] / table[lower]) / math.log((x + 1) / x)
        x -= 1
    return 1.0
