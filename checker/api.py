"""``check``: the library entry point every front end calls."""

from __future__ import annotations

from checker.engines import get_engine
from model.config import ModelConfig
from model.errors import ConfigError
from properties import get_properties


def check(
    config: ModelConfig,
    properties=None,
    *,
    engine: str = "compiled",
    max_states: int | None = None,
    time_limit: float | None = None,
    max_depth: int | None = None,
    memory_limit: int | None = None,
    coverage: bool = False,
    progress=None,
    notice=None,
    **engine_options,
):
    """Check ``properties`` (names; all registered ones if None) on ``config`` with the engine
    registered as ``engine`` (``checker.engines``); a ``CheckResult``.

    ``progress(stats)`` is called every few seconds; ``notice(line)`` gets one-off lines (the
    kernel's first compilation)."""
    props = get_properties(properties)
    for name, value in (("max-states", max_states), ("time-limit", time_limit), ("depth", max_depth),
                        ("memory-limit", memory_limit)):
        if value is not None and value <= 0:
            raise ConfigError(f"--{name} must be positive, got {value}")
    chosen = get_engine(engine)
    if coverage and "coverage" not in chosen.options:
        raise ConfigError("--coverage needs the compiled engine (the default)")
    if memory_limit is not None and "memory_limit" not in chosen.options:
        raise ConfigError("--memory-limit applies to the compiled engine (the default)")
    extras = {"memory_limit": memory_limit, "coverage": coverage, "notice": notice}
    result = chosen.run(
        config, props, max_states=max_states, time_limit=time_limit, max_depth=max_depth,
        progress=progress, **{k: v for k, v in extras.items() if k in chosen.options},
        **engine_options,
    )
    if config.acks == "0" and any(p.name == "no-acked-loss" for p in props):
        result.notes.append(
            "note: with acks=0 the producer is never acknowledged, so no-acked-loss cannot fail "
            "and says nothing about durability (committed-consistency and monotonic-visibility "
            "still do)"
        )
    return result
