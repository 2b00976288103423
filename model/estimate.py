"""Roughly how many distinct states a configuration has, before anything is explored: so that
bounds too large to finish get a warning with a figure, not a run that never ends in silence.

The figures are measured, not guessed: ``MEASURED`` holds the distinct states of kip-320
(Kafka 2.1's rules, acks=all, min.insync.replicas=2, process crashes, symmetry on) for small
bounds, as ``python bench/state_counts.py`` prints them. A larger configuration starts from the
largest measured point below it and, one bound at a time, extrapolates with the growth measured
at that point: states ~ (bound + 1) ** slope, the slope being the local log-log slope between
the last two measured values. Checked beyond the table (kmc check -r 2 --protocol kip-320 -p
hw-le-leo, 2026-11-27): 4 records, 3 epochs, 2 crashes 120,666 states, estimated 105,535 (0.87x);
3, 3, 3: 169,890, estimated 184,914 (1.09x); 4, 4, 3: 701,480, estimated 549,875 (0.78x). So the
figure is an order of magnitude, usually somewhat low (tests/unit/test_estimate.py keeps it within
a factor of two there). RF=3 with 3 records, 3 epochs and 2 crashes is measured (8,430,828 states;
11,592,164 with ``--rule +kmc-0.1``). Beyond three replicas each replica multiplies the states by
``REPLICA_STEP`` (measured from RF=3 to RF=4 at 1 record, 2 epochs, 1 crash; it grows with the
bounds).

Leader moves decide the size more than anything else. Kafka moves a leader only for a cause
(a crash, a session expiry, a shutdown, a preferred election, a reassignment) and a broker applies
LeaderAndIsr in order; kmc 0.1 let any ISR member take over at any time and requests arrive in
any order. Under those free moves (``+unordered-leader-moves``, what ``make bench`` runs, to
keep its figures comparable) the same bounds have up to a hundred times more states (RF=3 at
the default bounds: 258,199 against 7,534; at 3 records, 3 epochs, 2 crashes with
``+kmc-0.1``: about 1e9 against 11.6 million), so they have their own table,
``MEASURED_UNORDERED``, measured the same way before today's leader moves existed.

Later releases and other crash models are larger: ``config_states`` multiplies by
``FAMILY_FACTOR`` (how many times kip-320's states each family of rules has at the replication
factor's default bounds) and ``CRASH_FACTOR`` (power-loss crashes add each broker's flushed
offset and the flushes), both measured by ``python bench/state_counts.py --families``. Acks,
``min.insync.replicas`` and unclean election change the figure by small factors; an estimate is
an order of magnitude.
"""

from __future__ import annotations

import math

# python bench/state_counts.py --rf 2,3 (compiled engine, this repository's kip-320 with Kafka's
# own leader moves, 2026-11-27): distinct states by (max-records, max-leader-epoch, max-crashes)
MEASURED = {
    2: {
        (0, 0, 0): 1, (0, 0, 1): 9, (0, 0, 2): 33, (0, 1, 0): 1, (0, 1, 1): 25, (0, 1, 2): 117,
        (0, 2, 0): 1, (0, 2, 1): 25, (0, 2, 2): 176, (0, 3, 0): 1, (0, 3, 1): 25, (0, 3, 2): 188,
        (1, 0, 0): 14, (1, 0, 1): 116, (1, 0, 2): 369, (1, 1, 0): 14, (1, 1, 1): 278,
        (1, 1, 2): 1294, (1, 2, 0): 14, (1, 2, 1): 291, (1, 2, 2): 1998, (1, 3, 0): 14,
        (1, 3, 1): 291, (1, 3, 2): 2177, (2, 0, 0): 63, (2, 0, 1): 520, (2, 0, 2): 1609,
        (2, 1, 0): 63, (2, 1, 1): 1239, (2, 1, 2): 6017, (2, 2, 0): 63, (2, 2, 1): 1313,
        (2, 2, 2): 9677, (2, 3, 0): 63, (2, 3, 1): 1313, (2, 3, 2): 10723, (3, 0, 0): 197,
        (3, 0, 1): 1641, (3, 0, 2): 5055, (3, 1, 0): 197, (3, 1, 1): 4037, (3, 1, 2): 20607,
        (3, 2, 0): 197, (3, 2, 1): 4314, (3, 2, 2): 34569, (3, 3, 0): 197, (3, 3, 1): 4314,
        (3, 3, 2): 38868,
    },
    3: {
        (0, 0, 0): 1, (0, 0, 1): 23, (0, 0, 2): 177, (0, 1, 0): 1, (0, 1, 1): 94, (0, 1, 2): 935,
        (0, 2, 0): 1, (0, 2, 1): 94, (0, 2, 2): 1758, (0, 3, 0): 1, (0, 3, 1): 94, (0, 3, 2): 1816,
        (1, 0, 0): 164, (1, 0, 1): 2248, (1, 0, 2): 11585, (1, 1, 0): 164, (1, 1, 1): 7217,
        (1, 1, 2): 53646, (1, 2, 0): 164, (1, 2, 1): 7534, (1, 2, 2): 96962, (1, 3, 0): 164,
        (1, 3, 1): 7534, (1, 3, 2): 104407, (2, 0, 0): 2443, (2, 0, 1): 29304, (2, 0, 2): 134017,
        (2, 1, 0): 2443, (2, 1, 1): 84758, (2, 1, 2): 616885, (2, 2, 0): 2443, (2, 2, 1): 89116,
        (2, 2, 2): 1127995, (2, 3, 0): 2443, (2, 3, 1): 89116, (2, 3, 2): 1226250,
        (3, 0, 0): 16526, (3, 0, 1): 193059, (3, 0, 2): 853230, (3, 1, 0): 16526,
        (3, 1, 1): 552188, (3, 1, 2): 4116231, (3, 2, 0): 16526, (3, 2, 1): 583167,
        (3, 2, 2): 7695994, (3, 3, 0): 16526, (3, 3, 1): 583167, (3, 3, 2): 8430828,
    },
}
# python bench/state_counts.py --rf 2,3 --unordered --time-limit 120 (2026-11-27, re-run on today's
# kernel: every row measured before is unchanged, and RF=3 gained 11 rows up to 26 million states):
# the same under kmc 0.1's free leader moves (+unordered-leader-moves -leader-and-isr-in-order, what
# make bench runs); RF=3 rows that took over two minutes on a shared machine are not measured
MEASURED_UNORDERED = {
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
        (1, 2, 2): 985820, (1, 3, 0): 196793, (1, 3, 1): 1624517, (1, 3, 2): 5920867,
        (2, 0, 0): 1254, (2, 0, 1): 14848, (2, 0, 2): 67521, (2, 1, 0): 28550, (2, 1, 1): 302362,
        (2, 1, 2): 1284374, (2, 2, 0): 359893, (2, 2, 1): 3327631, (2, 2, 2): 13020918,
        (2, 3, 0): 2767688, (2, 3, 1): 23616892, (3, 0, 0): 8368, (3, 0, 1): 97181,
        (3, 0, 2): 428335, (3, 1, 0): 198731, (3, 1, 1): 2156797, (3, 1, 2): 9273736,
        (3, 2, 0): 2744894, (3, 2, 1): 26332391, (3, 3, 0): 23662450,
    },
}
# RF=4 / RF=3 at (1, 2, 1), kip-320: 215,843 / 7,534 states (kmc check -r 4 / -r 3 --protocol kip-320
# --max-records 1 --max-leader-epoch 2 --max-crashes 1 -p hw-le-leo)
REPLICA_STEP = 28.6
REPLICA_STEP_UNORDERED = 55.5  # RF=4 / RF=3 at (1, 2, 0): 2,032,846 / 36,618 states (kmc 0.1's rules)

ISR_EXPANSION_STEP = {"ordered": 1.37, "unordered": 1.29}
"""How many times the states grow with ``isr-expansion-as-own-step`` (kmc 0.1's ISR expansion as a
step of its own, half of ``--rule +kmc-0.1``; the other half, ``reset-followers-on-epoch``, shrinks
them by ~5%): RF=3 with Kafka's moves at (3, 3, 2), 11,592,164 / 8,430,828 states (``--rule
+kmc-0.1`` against none); with the free moves at (2, 2, 2), 16,761,490 / 13,020,918 (1.23 at
(2, 2, 1), 1.10 at (2, 3, 1): it varies with the bounds; applied by ``config_states`` to the
warning, not to the compiled engine's table sizing)."""

FAMILY_RELEASES = {"kip-320": "2.1", "broker-epoch": "2.2", "alter-partition": "2.8",
                   "kraft": "3.9", "kraft-elr": "4.1"}
"""The release each family of rules is measured on (``family_of`` says which a rule set is)."""

# python bench/state_counts.py --families (2026-11-27, Kafka's own leader moves): states of the
# family's release / states of kip-320, at the replication factor's default bounds, process crashes;
# applied to MEASURED_UNORDERED too (not measured under free moves)
FAMILY_FACTOR = {
    "kip-320": {2: 1.00, 3: 1.00},  # Kafka 2.1
    "broker-epoch": {2: 0.79, 3: 0.83},  # Kafka 2.2
    "alter-partition": {2: 1.87, 3: 3.49},  # Kafka 2.8
    "kraft": {2: 3.23, 3: 6.60},  # Kafka 3.9
    "kraft-elr": {2: 2.98, 3: 6.88},  # Kafka 4.1
}
# the same command: states with power-loss / disk-loss crashes / with process crashes, RF=2
CRASH_FACTOR = {
    "kip-320": {"power-loss": 6.60, "disk-loss": 1.02},
    "broker-epoch": {"power-loss": 6.02, "disk-loss": 0.84},
    "alter-partition": {"power-loss": 7.08, "disk-loss": 0.97},
    "kraft": {"power-loss": 7.02, "disk-loss": 0.97},
    "kraft-elr": {"power-loss": 7.23, "disk-loss": 1.01},
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
    """An estimate of the distinct states of ``config`` (a ``ModelConfig``): kip-320's
    (``estimated_states``) times its family's and its crash model's measured factors. The fault
    bounds add more, not counted."""
    b = config.bounds
    states = estimated_states(config.replication_factor, b.max_records, b.max_leader_epoch,
                              b.max_crashes, symmetry=config.symmetry,
                              unordered=unordered_moves(config.rules))
    if "isr-expansion-as-own-step" in set(config.rules):
        states *= ISR_EXPANSION_STEP["unordered" if unordered_moves(config.rules) else "ordered"]
    family = family_of(config.rules)
    states *= FAMILY_FACTOR.get(family, {}).get(min(config.replication_factor, 3), 1.0)
    if b.max_crashes and b.max_unflushed_losses:
        states *= CRASH_FACTOR.get(family, {}).get(config.crash_model, 1.0)
    return states


def unordered_moves(rules) -> bool:
    """Whether a rule set has kmc 0.1's free leader moves (``MEASURED_UNORDERED`` applies)."""
    return "unordered-leader-moves" in set(rules)


def estimated_states(replication_factor: int, max_records: int, max_leader_epoch: int,
                     max_crashes: int, *, symmetry: bool = True, unordered: bool = False) -> float:
    """An estimate of the distinct states of these bounds (see the module docstring):
    ``unordered`` for kmc 0.1's free leader moves."""
    table = (MEASURED_UNORDERED if unordered else MEASURED)[min(replication_factor, 3)]
    target = (max_records, max_leader_epoch, max_crashes)
    below = [p for p in table if all(a <= b for a, b in zip(p, target))]
    base = max(below, key=table.__getitem__)
    states = float(table[base])
    for dim in range(3):
        if target[dim] > base[dim]:
            states *= ((target[dim] + 1) / (base[dim] + 1)) ** _slope(table, base, dim)
    if replication_factor > 3:
        step = REPLICA_STEP_UNORDERED if unordered else REPLICA_STEP
        states *= step ** (replication_factor - 3)
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
