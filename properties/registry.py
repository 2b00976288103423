"""Properties as named data, and the registry ``kmc list`` reads.

A property is an invariant: a plain function of a ``ClusterState`` that returns True when the
state is fine. Register one with the decorator::

    from properties import invariant

    @invariant("leader-has-a-record", "the true leader's log is never empty once a record was acked")
    def leader_has_a_record(state):
        ...

It then appears in ``kmc list`` and can be chosen with ``kmc check --property leader-has-a-record``
(load the module that defines it with ``kmc --load my_props.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from model.errors import ConfigError


@dataclass(frozen=True)
class Property:
    """A named invariant: ``check(state)`` is True in every reachable state, or it is violated."""

    name: str
    description: str
    check: Callable
    explain: Callable | None = None
    compiled: bool = False  # a twin in properties/compiled.py judges it inside the kernel

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


def invariant(name: str, description: str = "", explain: Callable | None = None,
              compiled: bool = False) -> Callable:
    """Decorator: register ``fn(state) -> bool`` as the invariant ``name``; ``explain(state)``
    may return a sentence saying how a state violates it (shown under counterexamples).
    ``compiled`` (built-in properties only) says ``properties/compiled.py`` has its twin."""

    def register(fn: Callable) -> Callable:
        old = PROPERTIES.get(name)
        if old is not None and _origin(old.check) != _origin(fn):
            raise ConfigError(f"property {name!r} is defined twice; pick another name")
        PROPERTIES[name] = Property(
            name, description or (fn.__doc__ or "").strip().split("\n")[0], fn, explain, compiled
        )
        return fn

    return register


def _origin(fn) -> tuple:
    # the same function loaded again (e.g. the same plugin file imported twice) may re-register
    return getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)


def get_properties(names=None) -> tuple:
    """The registered properties called ``names`` (all of them, in registration order, if None)."""
    if not names:
        return tuple(PROPERTIES.values())
    out = []
    for n in names:
        if n not in PROPERTIES:
            raise ConfigError(f"unknown property {n!r}; choose from: {', '.join(PROPERTIES)}")
        if PROPERTIES[n] not in out:
            out.append(PROPERTIES[n])
    return tuple(out)
