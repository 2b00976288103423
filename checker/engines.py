"""The engine registry: ``--engine`` names -> the functions that run a check.

An engine joins with one call, made by its own package when that package is imported::

    register_engine("bfs", run, "local explicit search")

``run(model, properties, *, config, max_states, time_limit, max_depth, progress, **options)``
returns a ``CheckResult``; ``config`` is the ``ModelConfig`` and ``options`` are the engine's own
(Spark's ``master`` and ``partitions``). ``checker`` registers the local engines (``bfs``, and
``bmc`` from ``checker.symbolic``); ``spark_explore`` registers ``spark``; the CLI imports every
engine package, so no engine package imports another and ``checker.check`` finds them by name.

Engines are listed (``kmc check --help``, error messages) explicit-state first, then symbolic
(``symbolic=True``), each in the order they registered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from model.errors import ConfigError


@dataclass(frozen=True)
class Engine:
    """A named way to run a check; ``description`` is its line in ``kmc check --help``."""

    name: str
    run: Callable
    description: str
    symbolic: bool = False


ENGINES: dict[str, Engine] = {}


def register_engine(name: str, run: Callable, description: str, *, symbolic: bool = False) -> Engine:
    """Make ``run`` available as ``--engine name``."""
    old = ENGINES.get(name)
    if old is not None and old.run is not run:
        raise ConfigError(f"engine {name!r} is registered twice")
    engine = Engine(name, run, description, symbolic)
    ENGINES[name] = engine
    ordered = sorted(ENGINES.values(), key=lambda e: e.symbolic)  # stable: registration order within each kind
    ENGINES.clear()
    ENGINES.update((e.name, e) for e in ordered)
    return engine


def get_engine(name: str) -> Engine:
    """The engine registered as ``name``; a ``ConfigError`` naming the choices otherwise."""
    try:
        return ENGINES[name]
    except KeyError:
        raise ConfigError(f"unknown engine {name!r}; choose one of: {', '.join(ENGINES)}") from None
