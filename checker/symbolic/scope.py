"""Which rule sets the symbolic engine encodes, and one line for those it does not.

The z3 encoding (``transitions.py``) has the rules of Kafka's ZooKeeper releases 0.8 to 2.1:
the four protocol presets, Kafka's ordered elections and in-order LeaderAndIsr (issue 29), kmc
0.1's two switches, the time abstraction and the over-approximation ``unordered-leader-moves``.
Kafka 2.2 adds ``broker-epoch`` (KIP-380), which it does not have, nor anything after it
(docs/symbolic.md, "What the encoding lacks for newer rule sets"). ``kmc prove`` and ``--engine
bmc`` call ``require_encoded`` before building anything, so a release it lacks gets one line
naming the rules, not the oracle's longer refusal.
"""

from __future__ import annotations

from checker.reference import reference_supports
from model.errors import ConfigError
from model.releases import RELEASES, as_version
from model.rules import KMC_0_1, RULES, TIMED, release_rules

ENCODED_THROUGH = "2.1"
"""The newest Kafka release whose rule set the encoding has (``kmc prove --kafka-version``)."""


def encoded_rules() -> frozenset:
    """Every rule the encoding has: those of the releases through ``ENCODED_THROUGH``, kmc 0.1's
    and the time abstraction's switches, and the over-approximation of leader moves."""
    names = {n for v in RELEASES if v <= as_version(ENCODED_THROUGH) for n in release_rules(v)}
    return frozenset(names | set(KMC_0_1) | set(TIMED) | {"unordered-leader-moves"})


def lacking_rules(config) -> list[str]:
    """The rules of ``config`` the encoding does not have, in the rule table's order. The
    producer's rules act only when the producer retries, a fault bound the engine refuses on its
    own, so they are not listed."""
    have = encoded_rules()
    return [n for n in config.rules if n not in have and not RULES[n].producer]


def require_encoded(config) -> None:
    """A ``ConfigError`` (one line, exit 2) if the encoding lacks a rule of ``config``. Other
    refusals (fault bounds, a mix of encoded rules no preset has) are the oracle's
    (``checker.reference.make_reference_model``)."""
    if reference_supports(config):
        return
    lacking = lacking_rules(config)
    if not lacking:
        return
    who = f"Kafka {config.kafka_version}" if config.kafka_version else "this rule set"
    raise ConfigError(
        f"kmc prove and --engine bmc encode Kafka's ZooKeeper releases 0.8 to {ENCODED_THROUGH}; "
        f"{who} has rules the encoding lacks: {', '.join(lacking)} (docs/symbolic.md, 'What the "
        f"encoding lacks'); kmc check explores it")
