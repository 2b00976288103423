"""``check``: the library entry point every front end calls."""

from __future__ import annotations

import time
from copy import copy

from checker.engines import get_engine
from checker.interrupt import interrupted
from checker.limits import check_limit
from checker.result import INCOMPLETE, INTERRUPTED, CheckResult, CheckStats, PropertyResult
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
    check_limit("max-states", max_states, whole=True)
    check_limit("depth", max_depth, whole=True)
    check_limit("memory-limit", memory_limit, whole=True)
    check_limit("time-limit", time_limit)
    chosen = get_engine(engine)
    if max_states is not None and chosen.symbolic:
        raise ConfigError(
            f"--max-states does not apply to --engine {chosen.name}: it explores no states one by "
            "one; bound it with --depth (and --time-limit)")
    if coverage and "coverage" not in chosen.options:
        raise ConfigError("--coverage needs the compiled engine (the default)")
    if memory_limit is not None and "memory_limit" not in chosen.options:
        raise ConfigError("--memory-limit applies to the compiled engine (the default)")
    extras = {"memory_limit": memory_limit, "coverage": coverage, "notice": notice}
    last = [CheckStats()]  # the latest statistics an engine reported, for an interruption

    def tracked(stats) -> None:
        last[0] = copy(stats)
        if progress is not None:
            progress(stats)

    started = time.monotonic()
    try:
        result = chosen.run(
            config, props, max_states=max_states, time_limit=time_limit, max_depth=max_depth,
            progress=tracked, **{k: v for k, v in extras.items() if k in chosen.options},
            **engine_options,
        )
    except KeyboardInterrupt:
        # an engine that does not stop by itself (Spark, an engine of a plugin), or an interruption
        # before it started (the kernel's first compilation): every property is undecided
        result = _interrupted(chosen.name, config, props, last[0], time.monotonic() - started)
    except Exception:
        if not interrupted():
            raise
        # the interruption surfaced as another error from a library it hit mid-call (numba while
        # compiling, py4j while waiting for Spark): it is still an interruption, not a failure
        result = _interrupted(chosen.name, config, props, last[0], time.monotonic() - started)
    if config.acks == "0" and any(p.name == "no-acked-loss" for p in props):
        result.notes.append(
            "note: with acks=0 the producer is never acknowledged, so no-acked-loss cannot fail "
            "and says nothing about durability (committed-consistency and monotonic-visibility "
            "still do)"
        )
    return result


def _interrupted(engine: str, config, props, stats: CheckStats, seconds: float) -> CheckResult:
    stats.seconds = seconds
    result = CheckResult(engine, config.as_dict(), [PropertyResult(p.name, INCOMPLETE) for p in props],
                         stats, INTERRUPTED)
    if stats.distinct_states:
        result.notes.append("interrupted: the statistics are those of the engine's last progress report")
    else:
        result.notes.append("interrupted before the engine reported any progress")
    return result
