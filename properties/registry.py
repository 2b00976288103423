"""Properties as named data, and the registry ``kmc list`` reads.

A property is an invariant: a plain function of a ``ClusterState`` that returns True when the
state is fine. Register one with the decorator::

    from properties import invariant

    @invariant("leader-has-a-record", "the true leader's log is never empty once a record was acked")
    def leader_has_a_record(state):
        ...

It then appears in ``kmc list`` and can be chosen with ``kmc check --property leader-has-a-record``
(load the module that defines it with ``kmc --load my_props.py``).

A *reachability question* is the other kind: "can the partition ever get into such a state?"
(TLA+'s ``sometimes``, the negation of an invariant). ``@reachable`` registers one from a
predicate that is True in the target states; its ``check`` is the negation, so every engine
searches for it as it searches for a violation, and the shortest "counterexample" is the
shortest *witness*. Reachability questions are asked by name (``kmc check -p NAME``, ``kmc
advise``): they are not among the properties checked by default.

The default set splits in two. What Kafka promises (no acknowledged record lost, nothing a
consumer saw taken back, no divergence of the replicas' logs) fails a run. *Stronger*
invariants (``stronger=...``: committed-consistency, which Kafka's design breaks whenever a
power loss takes an ISR member's unflushed records, and the structural ones) are checked and
reported with every default run but fail it only when asked by name (``-p NAME``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from model.bounded import shown
from model.errors import ConfigError


INVARIANT = "invariant"
REACHABILITY = "reachability"


@dataclass(frozen=True)
class Property:
    """A named invariant: ``check(state)`` is True in every reachable state, or it is violated.

    For a reachability question (``kind == REACHABILITY``) ``check`` is True outside the target
    states: "violated" means *reached*, and the counterexample is a witness."""

    name: str
    description: str
    check: Callable
    explain: Callable | None = None
    compiled: bool = False  # a twin in properties/compiled.py judges it inside the kernel
    kind: str = INVARIANT
    history: str = ""  # a history the state must keep for it (kmc adds it only when asked for)
    stronger: str = ""  # why it is stronger than what Kafka promises ("" for a promise)
    by_name: bool = False  # asked by name only, never among the defaults

    @property
    def is_reachability(self) -> bool:
        return self.kind == REACHABILITY

    def __call__(self, state) -> bool:
        return bool(self.check(state))

    def why(self, state) -> str:
        """A sentence saying how ``state`` violates the property ("" if it has no explainer)."""
        if self.explain is None:
            return ""
        try:
            return self.explain(state)
        except Exception:  # an explainer must never hide the verdict
            return ""


PROPERTIES: dict[str, Property] = {}


ABOUT_ACKNOWLEDGEMENTS = frozenset({"no-acked-loss", "acked-eventually-visible",
                                    "produce-eventually-answered"})
"""The properties (safety and liveness) about acknowledged records or produce requests waiting
for an acknowledgement. With ``acks=0`` the producer waits for nothing and no record is ever
acknowledged, so each of them cannot fail and says nothing about durability: a HOLDS, PROVED or
"kept" for one is *vacuous* (``kmc check`` notes it, ``kmc prove`` says so, ``kmc advise`` never
counts it as kept). The one definition every command reads (``vacuous_with_acks``)."""


def vacuous_with_acks(name: str, acks) -> bool:
    """Whether property ``name`` cannot fail because the producer uses ``acks=0``."""
    return str(acks) == "0" and name in ABOUT_ACKNOWLEDGEMENTS


def acks_zero_note(name: str) -> str:
    """Why a result for ``name`` says nothing under ``acks=0`` (one clause, no prefix)."""
    about = ("durability" if name == "no-acked-loss"
             else "what a producer waiting for acknowledgements is promised")
    return (f"with acks=0 the producer is never acknowledged, so {name} cannot fail and says "
            f"nothing about {about}")


def invariant(name: str, description: str = "", explain: Callable | None = None,
              compiled: bool = False, history: str = "", stronger: str = "",
              by_name: bool = False) -> Callable:
    """Decorator: register ``fn(state) -> bool`` as the invariant ``name``; ``explain(state)``
    may return a sentence saying how a state violates it (shown under counterexamples).
    ``compiled`` (built-in properties only) says ``properties/compiled.py`` has its twin;
    ``history`` (built-in only) names a history the state keeps only for it (``"reads"``): such
    a property is asked by name, never among the defaults, since the history adds states.
    ``stronger`` says why the invariant is stronger than what Kafka promises: checked and
    reported by default, it fails a run only when asked by name (see the module docstring).
    ``by_name``: asked by name only, never among the defaults (the delivery properties, which
    judge what a retrying producer, ``--retries``, does: every default run would only report
    them holding trivially)."""

    def register(fn: Callable) -> Callable:
        _register(Property(name, description or _first_line(fn), fn, explain, compiled,
                           history=history, stronger=stronger, by_name=by_name))
        return fn

    return register


def reachable(name: str, description: str = "", explain: Callable | None = None,
              compiled: bool = False) -> Callable:
    """Decorator: register ``fn(state) -> bool``, True in the states to reach, as the
    reachability question ``name`` (see the module's docstring); ``explain(state)`` may say
    what a reached state shows."""

    def register(fn: Callable) -> Callable:
        @functools.wraps(fn)  # same module and name: re-registering the same function is fine
        def not_reached(state) -> bool:
            return not fn(state)

        _register(Property(name, description or _first_line(fn), not_reached, explain, compiled,
                           REACHABILITY))
        return fn

    return register


def _register(prop: Property) -> None:
    old = PROPERTIES.get(prop.name)
    if old is not None and _origin(old.check) != _origin(prop.check):
        raise ConfigError(f"property {prop.name!r} is defined twice; pick another name")
    PROPERTIES[prop.name] = prop


def _first_line(fn) -> str:
    return (fn.__doc__ or "").strip().split("\n")[0]


def _origin(fn) -> tuple:
    # the same function loaded again (e.g. the same plugin file imported twice) may re-register
    return getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)


def reported_only(name: str, asked_by_name: bool) -> bool:
    """Whether a verdict on ``name`` is reported without failing the run: a stronger invariant
    that came with the default set, not asked for by name."""
    prop = PROPERTIES.get(name)
    return not asked_by_name and prop is not None and bool(prop.stronger)


def promised() -> tuple:
    """The default invariants that fail a run: what Kafka promises (and any loaded with
    ``kmc --load``, which the user asked for by loading them)."""
    return tuple(p for p in get_properties(None) if not p.stronger)


def get_properties(names=None) -> tuple:
    """The registered properties called ``names`` (if None: every invariant, in registration
    order; reachability questions, and invariants that need a history, are asked by name
    only)."""
    if not names:
        return tuple(p for p in PROPERTIES.values()
                     if not p.is_reachability and not p.history and not p.by_name)
    out = []
    for n in names:
        if n not in PROPERTIES:
            raise ConfigError(f"unknown property {shown(n)}; choose from: {', '.join(PROPERTIES)}")
        if PROPERTIES[n] not in out:
            out.append(PROPERTIES[n])
    return tuple(out)
