"""Named properties of the replication state; ``invariant`` adds your own."""

from properties.registry import (
    ABOUT_ACKNOWLEDGEMENTS, INVARIANT, PROPERTIES, REACHABILITY, Property, acks_zero_note,
    get_properties, invariant, promised, reachable, reported_only, vacuous_with_acks,
)
from properties import invariants as _builtin  # noqa: F401  (registers the built-ins)

BUILT_IN = tuple(name for name, p in PROPERTIES.items()
                 if not p.is_reachability and not p.history and not p.by_name)
"""The names of kmc's own invariants checked by default (before any ``--load``ed module adds
its own); ``OPT_IN`` are those asked by name (they make the state keep a history, or judge
what only a retrying producer does: the delivery properties)."""

OPT_IN = tuple(name for name, p in PROPERTIES.items() if p.history or p.by_name)

STRONGER = tuple(name for name in BUILT_IN if PROPERTIES[name].stronger)
"""Built-in invariants stronger than what Kafka promises: reported by default, failing a run
only when asked by name; the rest of ``BUILT_IN`` is what Kafka promises."""

REACHABILITY_QUESTIONS = tuple(name for name, p in PROPERTIES.items() if p.is_reachability)
"""The names of kmc's own reachability questions (``kmc advise`` asks them)."""

__all__ = ["ABOUT_ACKNOWLEDGEMENTS", "acks_zero_note", "vacuous_with_acks", "BUILT_IN", "OPT_IN", "INVARIANT", "PROPERTIES", "Property", "REACHABILITY",
           "REACHABILITY_QUESTIONS", "STRONGER", "get_properties", "invariant", "promised",
           "reachable", "reported_only"]
