"""The engine registry: ``--engine`` names -> the functions that run a check.

An engine joins with one call when its package is imported::

    register_engine("reference", run, "the same search in pure Python, the cross-check")

``run(config, properties, *, max_states, time_limit, max_depth, progress, **options)`` explores
the ``ModelConfig`` (building whatever model it runs on) and returns a ``CheckResult``; ``options``
are the ones the engine declares in ``options`` (the compiled engine's ``memory_limit``,
``coverage`` and ``notice``, Spark's ``master`` and ``partitions``). ``checker`` registers the
local engines (compiled, reference, bmc); ``spark_explore`` registers spark; the CLI imports every
engine package, so no engine package imports another and ``checker.check`` finds them by name.

Engines are listed (``kmc check --help``, error messages) explicit-state first, then symbolic
(``symbolic=True``), each in the order they registered; an alias (``bfs``) is another name for
an engine and is listed only among ``--engine``'s choices.
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
    aliases: tuple = ()
    options: tuple = ()  # keyword options ``run`` takes beyond the common ones


ENGINES: dict[str, Engine] = {}
_ALIASES: dict[str, str] = {}


def register_engine(name: str, run: Callable, description: str, *, symbolic: bool = False,
                    aliases: tuple = (), options: tuple = ()) -> Engine:
    """Make ``run`` available as ``--engine name`` (and as each of ``aliases``)."""
    old = ENGINES.get(name)
    if old is not None and old.run is not run:
        raise ConfigError(f"engine {name!r} is registered twice")
    engine = Engine(name, run, description, symbolic, tuple(aliases), tuple(options))
    ENGINES[name] = engine
    ordered = sorted(ENGINES.values(), key=lambda e: e.symbolic)  # stable: registration order within each kind
    ENGINES.clear()
    ENGINES.update((e.name, e) for e in ordered)
    _ALIASES.update((alias, name) for alias in engine.aliases)
    return engine


def get_engine(name) -> Engine:
    """The engine registered as ``name`` or an alias of it; a ``ConfigError`` naming the choices
    otherwise."""
    engine = ENGINES.get(_ALIASES.get(name, name)) if isinstance(name, str) else None
    if engine is None:
        raise ConfigError(f"unknown engine {name!r}; choose one of: {', '.join(ENGINES)}")
    return engine


def engine_choices() -> list:
    """Every name ``--engine`` accepts: the engines, then their aliases."""
    return list(ENGINES) + list(_ALIASES)
