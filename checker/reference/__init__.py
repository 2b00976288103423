"""The oracle: kmc 0.1's pure-Python model of the four 2018-era protocols, and its BFS.

kmc's model is the compiled kernel (``model/kernel/``). This package keeps the earlier,
independent definition of the same rules for the rule sets it has, as a cross-check:
``tests/unit/test_kernel_equivalence.py`` and ``bench/engines.py`` compare the two state by
state and engine by engine, ``--engine reference`` runs it (``bfs.py``), and the z3 engine
(``checker/symbolic``), whose encoding mirrors it action by action, replays its traces through it.
It is frozen: a rule added to kmc goes into the kernel and ``model/rules.py`` only.

One class per protocol preset (``base.py`` the transition system, each later one a subclass
overriding the hooks its release changed), with its logs (``log.py``, ``LeaderEpochFileCache``)
and symmetry (``symmetry.py``) over the readable ``ClusterState``.
"""

from checker.reference.base import ReplicationModel, action
from checker.reference.hw_truncation import HwTruncationModel
from checker.reference.kip101 import Kip101Model
from checker.reference.kip279 import Kip279Model
from checker.reference.kip320 import Kip320Model
from model.errors import ConfigError
from model.rules import KMC_0_1, RULES, TIMED, rules_of

REFERENCE_MODELS: dict[str, type] = {
    cls.name: cls for cls in (HwTruncationModel, Kip101Model, Kip279Model, Kip320Model)
}
"""The oracle's model of each protocol preset it has (``--protocol NAME``)."""

ORACLE_SWITCHES = frozenset(KMC_0_1) | frozenset(TIMED)  # the switches the oracle has too
ORACLE_CRASH_MODELS = ("process", "power-loss")  # not disk-loss: the kernel's alone

__all__ = ["REFERENCE_MODELS", "ReplicationModel", "action", "make_reference_model",
           "oracle_notes", "reference_supports"]


def reference_supports(config) -> bool:
    """Whether the oracle has ``config``'s rules: one of its protocol presets, with or without
    either of kmc 0.1's rules (``isr-expansion-as-own-step``, ``reset-followers-on-epoch``) and
    the time abstraction (``replica-lag-time``),
    with or without ``unordered-leader-moves`` and ``leader-and-isr-in-order`` (the oracle always
    moves leaders without an assignment order and delivers requests in any order: see
    ``oracle_notes``),
    and none of the later environment features (fault bounds, the lagging HW checkpoint,
    fetches from followers, a disk lost with the crash), which exist only in the kernel. The producer's rules
    (``Rule.producer``) act only when the producer retries, which the oracle refuses, so they
    are left out of the comparison: 0.9's rules match the hw-truncation preset (0.10's), which
    has ``in-flight-per-partition`` (KAFKA-3197) besides."""
    if (config.bounds.faults() or config.hw_checkpoint != "immediate" or config.fetch_from_followers
            or config.track_reads or config.consumer_commit
            or config.crash_model not in ORACLE_CRASH_MODELS):
        return False
    if config.protocol not in REFERENCE_MODELS:
        return False
    looser = {UNORDERED, IN_ORDER} | {name for name, r in RULES.items() if r.producer}
    return set(config.rules) - ORACLE_SWITCHES - looser == set(rules_of(config.protocol)) - looser


UNORDERED = "unordered-leader-moves"
IN_ORDER = "leader-and-isr-in-order"


def oracle_notes(config) -> list[str]:
    """What a result of the oracle's engines must say when ``config`` has Kafka's ordered
    elections: the oracle models leader moves as the over-approximation
    ``unordered-leader-moves`` (it has no assignment order), so its HOLDS also holds for Kafka's
    ordered elections, but a counterexample may take a leader move Kafka does not make."""
    notes = []
    if UNORDERED not in config.rules:
        notes.append(
            f"this engine models leader moves as the over-approximation {UNORDERED} (any ISR "
            f"member may win, ControllerElectLeader moves a healthy leader): a HOLDS also holds "
            f"for Kafka's elections in assignment order; a counterexample may take a move Kafka "
            f"does not make (check it with --engine compiled)")
    if IN_ORDER in config.rules:
        notes.append(
            f"this engine lets a broker apply LeaderAndIsr requests in any order ({IN_ORDER} "
            f"off): a HOLDS also holds for Kafka's in-order delivery; a counterexample may skip "
            f"a request Kafka delivers (check it with --engine compiled)")
    return notes


def make_reference_model(config):
    """The oracle's model of ``config``: the pure-Python definition of the 2018-era
    protocols, kept as the cross-check of the compiled kernel.

    It has the four protocols' rule sets, and two switches: whether a leader adds a caught-up
    follower to the ISR inside its fetch (Kafka's rule) or in a step of its own
    (``isr-expansion-as-own-step``, kmc 0.1's), and whether a leader forgets its followers' LEOs
    only when newly leader (Kafka's) or on every new epoch (``reset-followers-on-epoch``, kmc
    0.1's). Any other rule set exists only in the kernel: the engines built on this model
    (reference, bmc, k-induction) refuse it with a ``ConfigError`` rather than check a different model."""
    if (config.bounds.faults() or config.hw_checkpoint != "immediate" or config.fetch_from_followers
            or config.track_reads or config.consumer_commit
            or config.crash_model not in ORACLE_CRASH_MODELS):
        raise ConfigError(
            "this engine models neither the fault bounds (--max-controlled-shutdowns, "
            "--max-session-expiries, --max-controller-failovers, --max-delayed-fetches, "
            "--max-stale-metadata-reads, the operator bounds, the producer's --retries) nor "
            "--hw-checkpoint interval, --fetch-from-followers, --consumer-commit, no-read-loss or "
            "--crash-model disk-loss; "
            "they need the "
            "compiled engine "
            "(--engine compiled)")
    if not reference_supports(config):
        preset = rules_of(config.protocol)
        wanted = ", ".join(config.rules) or "none"
        raise ConfigError(
            f"this engine models only the named protocols' rule sets (protocol "
            f"{config.protocol}: {', '.join(preset) or 'no rules'}, with or without "
            f"{' and '.join(sorted(KMC_0_1, reverse=True))}); the rules asked for ({wanted}) need "
            f"the compiled engine (--engine compiled)")
    return REFERENCE_MODELS[config.protocol](config)
