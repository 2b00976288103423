"""``check``: the library entry point every front end calls."""

from __future__ import annotations

from checker.compiled import compiled_bfs
from checker.compiled.warmup import ensure_compiled
from model.config import ModelConfig
from model.errors import ConfigError
from model.variants import make_reference_model
from properties import get_properties

ENGINES = ("compiled", "reference", "spark", "bmc")
ENGINE_ALIASES = {"bfs": "compiled"}  # kmc 0.1's name for the local breadth-first search


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
    """Check ``properties`` (names; all registered ones if None) on ``config``; a ``CheckResult``.

    ``progress(stats)`` is called every few seconds; ``notice(line)`` gets one-off lines (the
    kernel's first compilation)."""
    props = get_properties(properties)
    engine = ENGINE_ALIASES.get(engine, engine)
    result = _run(config, props, engine, max_states, time_limit, max_depth, memory_limit, coverage,
                  progress, notice, engine_options)
    if config.acks == "0" and any(p.name == "no-acked-loss" for p in props):
        result.notes.append(
            "note: with acks=0 the producer is never acknowledged, so no-acked-loss cannot fail "
            "and says nothing about durability (committed-consistency and monotonic-visibility "
            "still do)"
        )
    return result


def _run(config, props, engine, max_states, time_limit, max_depth, memory_limit, coverage,
         progress, notice, engine_options):
    for name, value in (("max-states", max_states), ("time-limit", time_limit), ("depth", max_depth),
                        ("memory-limit", memory_limit)):
        if value is not None and value <= 0:
            raise ConfigError(f"--{name} must be positive, got {value}")
    if coverage and engine != "compiled":
        raise ConfigError("--coverage needs the compiled engine (the default)")
    if engine == "compiled":
        ensure_compiled(notice)
        return compiled_bfs(
            config, props, max_states=max_states, time_limit=time_limit, max_depth=max_depth,
            memory_limit=memory_limit, progress=progress, coverage=coverage,
        )
    if memory_limit is not None:
        raise ConfigError("--memory-limit applies to the compiled engine (the default)")
    if engine == "reference":
        from checker.bfs import bfs

        return bfs(
            make_reference_model(config), props, max_states=max_states, time_limit=time_limit,
            max_depth=max_depth, progress=progress, engine="reference", config=config.as_dict(),
        )
    if engine == "spark":
        try:
            from spark_explore import spark_bfs
        except ImportError as e:  # pragma: no cover - depends on the installation
            raise ConfigError(f"the Spark engine is not available: {e}") from None
        # the Spark engine still runs the reference model; it moves to the kernel next
        return spark_bfs(
            make_reference_model(config), props, max_states=max_states, time_limit=time_limit,
            max_depth=max_depth, progress=progress, config=config.as_dict(), **engine_options,
        )
    if engine == "bmc":
        try:
            from checker.symbolic import bmc_check
        except ImportError as e:  # pragma: no cover
            raise ConfigError(f"the bmc engine is not available: {e}") from None
        return bmc_check(make_reference_model(config), props, max_depth=max_depth,
                         time_limit=time_limit, progress=progress, config=config.as_dict(),
                         **engine_options)
    raise ConfigError(
        f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
