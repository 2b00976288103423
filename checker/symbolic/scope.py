"""Which rule sets the symbolic engine encodes, and one line for those it does not.

The z3 encoding (``transitions.py``) has the rules of Kafka's ZooKeeper releases 0.8 to 2.1:
the four protocol presets, Kafka's ordered elections and in-order LeaderAndIsr (issue 29), kmc
0.1's two switches, the time abstraction and the over-approximation ``unordered-leader-moves``.
Kafka 2.2 adds ``broker-epoch`` (KIP-380), which it does not have, nor anything after it
(docs/symbolic.md, "What the encoding lacks for newer rule sets") but KIP-497's AlterPartition
(2.7) and 3.1's HW on its answer (``ALTER_PARTITION_RULES``, issue 29i), which it has by name:
``--kafka-version 2.1 --rule +alter-partition`` is in. ``kmc prove`` and ``--engine
bmc`` call ``require_encoded`` before building anything, so a release it lacks gets one line
naming the rules, not the oracle's longer refusal.

Of the fault bounds it has the operator's leader moves (``OPERATOR_BOUNDS``:
``--max-preferred-elections``, ``--max-reassignments``), which the oracle lacks: for those
``symbolic_model`` gives the oracle of the configuration without them (the switches the encoding
reads) with the traces replayed in the compiled kernel instead. Any other fault bound gets one
line naming it (``require_encoded``).
"""

from __future__ import annotations

from dataclasses import replace

from checker.reference import make_reference_model, reference_supports
from model.errors import ConfigError
from model.releases import RELEASES, as_version
from model.rules import KMC_0_1, RULES, TIMED, release_rules

ENCODED_THROUGH = "2.1"
"""The newest Kafka release whose rule set the encoding has (``kmc prove --kafka-version``)."""


def encoded_rules() -> frozenset:
    """Every rule the encoding has: those of the releases through ``ENCODED_THROUGH``, kmc 0.1's
    and the time abstraction's switches, and the over-approximation of leader moves."""
    names = {n for v in RELEASES if v <= as_version(ENCODED_THROUGH) for n in release_rules(v)}
    return frozenset(names | set(KMC_0_1) | set(TIMED) | {"unordered-leader-moves"}
                     | set(ALTER_PARTITION_RULES))


ALTER_PARTITION_RULES = ("alter-partition", "hw-on-alter-partition-answer")
"""KIP-497's AlterPartition (Kafka 2.7) and 3.1's HW on its answer: encoded (issue 29i), by
name, ahead of ``ENCODED_THROUGH`` (the releases between 2.1 and 2.7 add KIP-380's broker epochs,
which the encoding gets from issue 29e). The oracle lacks them: ``symbolic_model`` replays
traces in the kernel (``KernelReplayed``)."""


def without_alter_partition(config):
    """``config`` without KIP-497's rules: what the oracle can build (it answers the protocol
    and the switches the encoding reads; the encoding reads the AlterPartition rules from
    ``config`` itself, ``Dims.of``)."""
    present = [n for n in reversed(ALTER_PARTITION_RULES) if n in config.rules]
    if not present:
        return config
    return replace(config, rule_changes=config.rule_changes + tuple(f"-{n}" for n in present))


def lacking_rules(config) -> list[str]:
    """The rules of ``config`` the encoding does not have, in the rule table's order. The
    producer's rules act only when the producer retries, a fault bound the engine refuses on its
    own, so they are not listed."""
    have = encoded_rules()
    return [n for n in config.rules if n not in have and not RULES[n].producer]


OPERATOR_BOUNDS = ("max_preferred_elections", "max_reassignments")
"""The fault bounds the encoding has: the operator's leader moves (issue 29)."""


def without_operator_moves(config):
    """``config`` with the operator's bounds at 0: what the oracle can build."""
    return replace(config, bounds=replace(config.bounds, **{b: 0 for b in OPERATOR_BOUNDS}))


def require_encoded(config) -> None:
    """A ``ConfigError`` (one line, exit 2) if the encoding lacks a rule or a fault bound of
    ``config``. Other refusals (the lagging HW checkpoint, a mix of encoded rules no preset has)
    are the oracle's (``checker.reference.make_reference_model``)."""
    refused = [b for b in config.bounds.faults() if b not in OPERATOR_BOUNDS]
    if refused:
        raise ConfigError(
            f"kmc prove and --engine bmc have the operator's leader moves "
            f"(--max-preferred-elections, --max-reassignments) but not "
            f"{', '.join('--' + b.replace('_', '-') for b in refused)} (docs/symbolic.md, 'What "
            f"the encoding lacks'); kmc check explores it")
    config = without_operator_moves(config)
    if reference_supports(without_alter_partition(config)):
        return
    lacking = lacking_rules(config)
    if not lacking:
        return
    who = f"Kafka {config.kafka_version}" if config.kafka_version else "this rule set"
    raise ConfigError(
        f"kmc prove and --engine bmc encode Kafka's ZooKeeper releases 0.8 to {ENCODED_THROUGH}; "
        f"{who} has rules the encoding lacks: {', '.join(lacking)} (docs/symbolic.md, 'What the "
        f"encoding lacks'); kmc check explores it")


class KernelReplayed:
    """The model the symbolic engine is built on when the operator's leader moves are on: the
    oracle's model of the configuration without them answers what the encoding reads of it
    (the protocol and its switches), while ``config`` is the configuration asked for and
    ``init_states``, ``next_state`` and ``canonical`` are the compiled kernel's, which has the
    moves (``bmc.decode_trace`` replays every trace through them)."""

    def __init__(self, config) -> None:
        from model.compiled_model import CompiledModel  # lazy: the kernel loads on first use

        self.oracle = make_reference_model(without_alter_partition(without_operator_moves(config)))
        self.config = config
        self.kernel = CompiledModel(config)

    def __getattr__(self, name):
        return getattr(self.oracle, name)

    def init_states(self) -> list:
        return self.kernel.init_states()

    def next_state(self, state, act):
        return self.kernel.next_state(state, act)

    def canonical(self, state):
        return self.kernel.canonical(state)


def symbolic_model(config):
    """The model ``Encoder`` and ``bmc_check`` take for ``config``: the oracle's, or, with the
    operator's leader moves, ``KernelReplayed``. Raises ``ConfigError`` for what the encoding
    lacks (``require_encoded``)."""
    require_encoded(config)
    if any(getattr(config.bounds, b) for b in OPERATOR_BOUNDS):
        return KernelReplayed(config)
    if any(n in config.rules for n in ALTER_PARTITION_RULES):
        return KernelReplayed(config)
    return make_reference_model(config)
