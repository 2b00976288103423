"""``check``: the library entry point every front end calls."""

from __future__ import annotations

from checker.engines import get_engine
from model.config import ModelConfig
from model.errors import ConfigError
from model.variants import make_model
from properties import get_properties


def check(
    config: ModelConfig,
    properties=None,
    *,
    engine: str = "bfs",
    max_states: int | None = None,
    time_limit: float | None = None,
    max_depth: int | None = None,
    progress=None,
    **engine_options,
):
    """Check ``properties`` (names; all registered ones if None) on ``config`` with the engine
    registered as ``engine`` (``checker.engines``); a ``CheckResult``."""
    props = get_properties(properties)
    model = make_model(config)
    for name, value in (("max-states", max_states), ("time-limit", time_limit), ("depth", max_depth)):
        if value is not None and value <= 0:
            raise ConfigError(f"--{name} must be positive, got {value}")
    result = get_engine(engine).run(
        model, props, config=config, max_states=max_states, time_limit=time_limit,
        max_depth=max_depth, progress=progress, **engine_options,
    )
    if config.acks == "0" and any(p.name == "no-acked-loss" for p in props):
        result.notes.append(
            "note: with acks=0 the producer is never acknowledged, so no-acked-loss cannot fail "
            "and says nothing about durability (committed-consistency and monotonic-visibility "
            "still do)"
        )
    return result
