"""``check``: the library entry point every front end calls."""

from __future__ import annotations

import time
from copy import copy
from dataclasses import replace

from checker.compiled import default_memory_limit
from checker.engines import get_engine
from checker.interrupt import interrupted
from checker.limits import check_limit
from checker.result import INCOMPLETE, INTERRUPTED, CheckResult, CheckStats, PropertyResult
from model.config import ModelConfig
from model.errors import ConfigError
from model.estimate import config_states, family_of
from properties import acks_zero_note, get_properties, reported_only, vacuous_with_acks


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
    warn=None,
    **engine_options,
):
    """Check ``properties`` (names; all registered ones if None) on ``config`` with the engine
    registered as ``engine`` (``checker.engines``); a ``CheckResult``.

    ``progress(stats)`` is called every few seconds; ``notice(line)`` gets one-off lines (the
    kernel's first compilation); ``warn(line)`` is told, before the run starts, when the bounds
    are too large to finish (``bounds_warning``) and when the configuration is not checked as
    given (``ModelConfig.notes``: a release newer than kmc models, a setting its rules ignore);
    those lines are also kept in the result's notes.

    SIGINT or SIGTERM (``checker.interrupt``) during the run gives a result with limit
    "interrupted": the engine's own, or, for an engine that does not stop by itself, one built
    here from the last statistics it reported."""
    props = get_properties(properties)
    if any(p.history == "reads" for p in props) and not config.track_reads:
        config = replace(config, track_reads=True)  # no-read-loss: keep what consumers read
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
    too_big = None if chosen.symbolic else bounds_warning(
        config, chosen.name, memory_limit, on_disk=chosen.name == "compiled"
        and engine_options.get("disk_limit") != 0)
    if too_big and warn is not None:
        warn(too_big)
    elif warn is not None and not chosen.symbolic:
        long = long_run_estimate(config, chosen.name)
        if long:
            warn(long)
    config_notes = config.notes()  # a release kmc does not model as itself, ignored settings
    for line in config_notes if warn is not None else ():
        warn(line)
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
    for p in result.properties:  # the default set's stronger invariants: reported, not failing
        p.reported_only = reported_only(p.name, asked_by_name=bool(properties))
    if too_big:
        result.notes.insert(0, too_big)
    result.notes[:0] = config_notes
    for p in props:
        if vacuous_with_acks(p.name, config.acks):
            result.notes.append(f"note: {acks_zero_note(p.name)} (committed-consistency and "
                                "monotonic-visibility still do)")
    return result


# The nominal speed and memory of each explicit engine, for ``bounds_warning`` (docs/checker.md:
# the compiled engine explores ~530k states/s in 17-20 bytes a state; the reference engine ~9k
# states/s, and a Python dict entry and queue slot cost ~200 bytes; docs/scaling.md: Spark runs
# ~80-150k states/s per executor core and keeps 16 bytes a state on the executors). An engine
# not listed is taken to be like the reference engine.
ENGINE_PACE = {"compiled": (500_000, 20), "reference": (10_000, 200), "spark": (150_000, 16)}
IMPRACTICAL_SECONDS = 600.0  # the estimate is a lower one: ten minutes of it may well be hours
LONG_RUN_SECONDS = 60.0  # a run estimated to take longer says so before it starts


def long_run_estimate(config: ModelConfig, engine: str = "compiled") -> str | None:
    """A line announcing a run estimated (``model.estimate.config_states``, an order of magnitude) to
    take more than a minute: its states, time and memory, before it starts; None otherwise."""
    states = config_states(config)
    rate, per_state = ENGINE_PACE.get(engine, ENGINE_PACE["reference"])
    seconds = states / rate
    if seconds < LONG_RUN_SECONDS:
        return None
    return (f"estimate: about {states:.1e} distinct states ({_family_words(config)}; "
            f"model/estimate.py), so about {_duration(seconds)} and {_bytes(states * per_state)} "
            f"at the {engine} engine's ~{rate:,} states/s; smaller bounds answer sooner")


def _family_words(config: ModelConfig) -> str:
    b = config.bounds
    return (f"replication.factor={config.replication_factor}, max-records={b.max_records}, "
            f"max-leader-epoch={b.max_leader_epoch}, max-crashes={b.max_crashes}, "
            f"{family_of(config.rules)} rules, {config.crash_model} crashes")


def bounds_warning(config: ModelConfig, engine: str = "compiled", memory_limit: int | None = None,
                   on_disk: bool = False):
    """A warning line if ``config``'s bounds are estimated (``model.estimate``, an order of magnitude)
    to take over ten minutes or more memory than the run may use; None if they look practical."""
    b = config.bounds
    states = config_states(config)
    rate, per_state = ENGINE_PACE.get(engine, ENGINE_PACE["reference"])
    seconds, needed = states / rate, states * per_state
    limit = memory_limit or default_memory_limit()
    if seconds < IMPRACTICAL_SECONDS and needed < limit:
        return None
    bounds = (f"max-records={b.max_records}, max-leader-epoch={b.max_leader_epoch}, "
              f"max-crashes={b.max_crashes}")
    if needed < limit:
        over = "so give it a --time-limit"
    elif on_disk and needed >= 1e15:  # no disk holds it: "part of it goes to disk" would mislead
        over = (f"more than the memory limit of {_bytes(limit)} and far beyond any disk, so expect "
                "INCOMPLETE")
    elif on_disk:  # the compiled engine goes on on disk (checker/compiled/space.py)
        over = (f"more than the memory limit of {_bytes(limit)}, so part of it goes to disk "
                "(slower), and give it a --time-limit")
    else:
        over = f"more than the memory limit of {_bytes(limit)}, so expect INCOMPLETE (memory-limit)"
    return (f"warning: {bounds} at replication.factor={config.replication_factor} means "
            f"about {states:.1e} distinct states (an estimate extrapolated from measured smaller bounds, "
            f"model/estimate.py{'; the fault bounds add more' if b.faults() else ''}); at the {engine} engine's ~{rate:,} states/s and ~{per_state} "
            f"bytes a state that is about {_duration(seconds)} and {_bytes(needed)}, {over}; smaller "
            "bounds answer far sooner")


def _duration(seconds: float) -> str:
    if seconds >= 1000 * 365 * 86400:  # an order of magnitude: digits past it mean nothing
        return f"{seconds / (365 * 86400):.0e} years"
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.0f} s"


def _bytes(n: float) -> str:
    if n >= 1e15:  # past a petabyte: an order of magnitude, beyond any one machine's disk
        return f"{n / 1e12:.0e} TB"
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:,.0f} bytes"


def _interrupted(engine: str, config, props, stats: CheckStats, seconds: float) -> CheckResult:
    stats.seconds = seconds
    result = CheckResult(engine, config.as_dict(), [PropertyResult(p.name, INCOMPLETE) for p in props],
                         stats, INTERRUPTED)
    if stats.distinct_states:
        result.notes.append("interrupted: the statistics are those of the engine's last progress report")
    else:
        result.notes.append("interrupted before the engine reported any progress")
    return result
