"""Roughly how many distinct states a configuration has, before anything is explored: so that
bounds too large to finish get a warning with a figure, not a run that never ends in silence.

The figures are measured, not guessed: ``MEASURED`` holds the distinct states of kip-320
(Kafka 2.1's rules, acks=all, min.insync.replicas=2, process crashes, symmetry on) for small
bounds, as ``python bench/state_counts.py`` prints them. A larger configuration starts from the
largest measured point below it and, one bound at a time, extrapolates with the growth measured
at that point: states ~ (bound + 1) ** slope, the slope being the local log-log slope between
the last two measured values. That slope has only steepened as bounds grew, so the figure is a
lower estimate; on the one large run measured (RF=3, 3 records, 3 epochs, 1 crash: 225 million
states with kmc 0.1's rules, docs/checker.md) today's table says 112 million. Beyond three
replicas each replica multiplies the states by ``REPLICA_STEP`` (measured from RF=3 to RF=4 at
1 record, 2 epochs, no crash, with kmc 0.1's rules; it grows with the bounds).

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
        (0, 0, 0): 1, (0, 0, 1): 9, (0, 0, 2): 33, (0, 1, 0): 9, (0, 1, 1): 68, (0, 1, 2): 209,
        (0, 2, 0): 30, (0, 2, 1): 210, (0, 2, 2): 624, (0, 3, 0): 69, (0, 3, 1): 456,
        (0, 3, 2): 1295, (1, 0, 0): 14, (1, 0, 1): 116, (1, 0, 2): 369, (1, 1, 0): 101,
        (1, 1, 1): 776, (1, 1, 2): 2417, (1, 2, 0): 408, (1, 2, 1): 2822, (1, 2, 2): 8526,
        (1, 3, 0): 1114, (1, 3, 1): 7356, (1, 3, 2): 21652, (2, 0, 0): 63, (2, 0, 1): 520,
        (2, 0, 2): 1609, (2, 1, 0): 503, (2, 1, 1): 3965, (2, 1, 2): 12471, (2, 2, 0): 2431,
        (2, 2, 1): 17202, (2, 2, 2): 52773, (2, 3, 0): 7761, (2, 3, 1): 52503, (2, 3, 2): 158236,
        (3, 0, 0): 197, (3, 0, 1): 1641, (3, 0, 2): 5055, (3, 1, 0): 1877, (3, 1, 1): 15147,
        (3, 1, 2): 47992, (3, 2, 0): 10667, (3, 2, 1): 77767, (3, 2, 2): 241817, (3, 3, 0): 39441,
        (3, 3, 1): 273858, (3, 3, 2): 840589,
    },
    3: {
        (0, 0, 0): 1, (0, 0, 1): 15, (0, 0, 2): 99, (0, 1, 0): 41, (0, 1, 1): 508, (0, 1, 2): 2392,
        (0, 2, 0): 557, (0, 2, 1): 5227, (0, 2, 2): 20918, (0, 3, 0): 3502, (0, 3, 1): 30073,
        (0, 3, 2): 113529, (1, 0, 0): 89, (1, 0, 1): 1166, (1, 0, 2): 5904, (1, 1, 0): 2488,
        (1, 1, 1): 25728, (1, 1, 2): 108399, (1, 2, 0): 28951, (1, 2, 1): 258199,
        (1, 2, 2): 985820, (1, 3, 0): 196793, (1, 3, 1): 1624517, (2, 0, 0): 1254,
        (2, 0, 1): 14848, (2, 0, 2): 67521, (2, 1, 0): 28550, (2, 1, 1): 302362,
        (2, 1, 2): 1284374, (2, 2, 0): 359893, (2, 2, 1): 3327631, (2, 3, 0): 2767688,
    },
}
REPLICA_STEP = 55.5  # RF=4 / RF=3 at (1, 2, 0): 2,032,846 / 36,618 states (--rf 4, kmc 0.1's rules)

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
