"""``check``: the library entry point every front end calls."""

from __future__ import annotations

from model.config import ModelConfig
from model.errors import ConfigError
from model.variants import make_model
from properties import get_properties

ENGINES = ("bfs", "spark", "bmc")


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
    """Check ``properties`` (names; all registered ones if None) on ``config``; a ``CheckResult``."""
    props = get_properties(properties)
    model = make_model(config)
    result = _run(config, props, model, engine, max_states, time_limit, max_depth, progress, engine_options)
    if config.acks == "0" and any(p.name == "no-acked-loss" for p in props):
        result.notes.append(
            "note: with acks=0 the producer is never acknowledged, so no-acked-loss cannot fail "
            "and says nothing about durability (committed-consistency and monotonic-visibility "
            "still do)"
        )
    return result


def _run(config, props, model, engine, max_states, time_limit, max_depth, progress, engine_options):
    for name, value in (("max-states", max_states), ("time-limit", time_limit), ("depth", max_depth)):
        if value is not None and value <= 0:
            raise ConfigError(f"--{name} must be positive, got {value}")
    if engine == "bfs":
        from checker.bfs import bfs

        return bfs(
            model, props, max_states=max_states, time_limit=time_limit, max_depth=max_depth,
            progress=progress, engine="bfs", config=config.as_dict(),
        )
    if engine == "spark":
        try:
            from spark_explore import spark_bfs
        except ImportError as e:  # pragma: no cover - depends on the installation
            raise ConfigError(f"the Spark engine is not available: {e}") from None
        return spark_bfs(
            model, props, max_states=max_states, time_limit=time_limit, max_depth=max_depth,
            progress=progress, config=config.as_dict(), **engine_options,
        )
    if engine == "bmc":
        try:
            from checker.symbolic import bmc_check
        except ImportError as e:  # pragma: no cover
            raise ConfigError(f"the bmc engine is not available: {e}") from None
        return bmc_check(model, props, max_depth=max_depth, time_limit=time_limit,
                         progress=progress, config=config.as_dict(), **engine_options)
    raise ConfigError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
