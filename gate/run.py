"""Running a suite's checks and judging each result against its expectation.

A check's status is one of:

- ``pass``: every checked property got the expected verdict (and trace length);
- ``FAIL``: at least one did not (the reasons say which, in Kafka words);
- ``INCOMPLETE``: nothing mismatched, but a limit stopped the search before a property was
  decided, and the check does not allow that;
- ``pass (incomplete allowed)``: the same, in a check with ``allow-incomplete = true``;
- ``cached``: skipped, because the same check passed before on the same model source;
- ``ERROR``: the check could not run (e.g. its engine is not installed), or its run raised an
  unexpected exception (``Outcome.internal``: a bug in kmc, its traceback written to a file);
- ``INTERRUPTED``: SIGINT or SIGTERM stopped the gate during this check, or before it (the rest
  of the suite is not run; a cancelled CI job gets a report of what did run).

The gate's exit code: 3 if it was interrupted (whatever had run: a gate that was asked to stop is
not a verdict), else 70 if a check's run raised an unexpected exception (a bug in kmc: no verdict
of the gate can be trusted then), else 1 if any check FAILed, else 2 if any had an ERROR, else 3
if any is INCOMPLETE, else 0.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import checker  # checker.check is looked up at each run (tests replace it)
from checker.crash import internal_error_line, write_crash_report
from checker.interrupt import interrupted
from checker.result import EXIT_INTERNAL, HOLDS, INCOMPLETE, VIOLATED
from gate.known import beyond
from gate.suite import CheckSpec
from model.errors import KmcError

PASS, FAIL, INCOMPLETE_STATUS, ALLOWED, CACHED, ERROR, INTERRUPTED_STATUS = (
    "pass", "FAIL", "INCOMPLETE", "pass (incomplete allowed)", "cached", "ERROR", "INTERRUPTED",
)
GREEN = (PASS, ALLOWED, CACHED)

LIMIT_WORDS = {"max-states": "max-states", "time-limit": "time-limit", "max-depth": "max-depth"}


@dataclass
class Outcome:
    """The judged outcome of one check."""

    spec: CheckSpec
    status: str
    got: str
    reasons: list = field(default_factory=list)
    result: object = None          # checker.result.CheckResult, None when cached or errored
    result_json: dict | None = None
    states: int | None = None
    seconds: float = 0.0
    cached_at: str | None = None
    shown_traces: list = field(default_factory=list)  # (property, trace) worth printing
    internal: bool = False  # an ERROR that is a bug in kmc (an unexpected exception)

    @property
    def green(self) -> bool:
        return self.status in GREEN


def judge(spec: CheckSpec, result) -> Outcome:
    """Compare a ``CheckResult`` with what ``spec`` expects."""
    reasons, shown, incomplete, reported = [], [], [], []
    for p in result.properties:
        want = VIOLATED if p.name in spec.violates else HOLDS
        if getattr(p, "reported_only", False):
            if p.verdict == VIOLATED:  # a stronger invariant of the default set: reported only
                reported.append(f"{p.name} is violated ({len(p.trace)} steps): reported, not "
                                "failing (stronger than what Kafka promises; list it in "
                                "'properties' to fail on it)")
            continue
        if p.verdict == INCOMPLETE:
            incomplete.append(p.name)
            continue
        if p.verdict != want:
            if p.verdict == VIOLATED:
                reasons.append(
                    f"{p.name} is violated (shortest counterexample: {len(p.trace)} steps), "
                    "expected to hold"
                )
                shown.append((p.name, p.trace))
            else:
                reasons.append(
                    f"{p.name} holds, expected violated: the model changed, or the bounds are too "
                    "small to reach the counterexample"
                )
            continue
        if p.verdict == VIOLATED:
            n = len(p.trace)
            if spec.trace_length is not None and n != spec.trace_length:
                reasons.append(
                    f"{p.name} is violated as expected, but its shortest counterexample has {n} "
                    f"steps, expected {spec.trace_length}"
                )
                shown.append((p.name, p.trace))
            elif spec.min_trace_length is not None and n < spec.min_trace_length:
                reasons.append(
                    f"{p.name} is violated with a shortest counterexample of {n} steps, expected at "
                    f"least {spec.min_trace_length}"
                )
                shown.append((p.name, p.trace))
    mismatched = bool(reasons)
    if incomplete:
        limit = result.limit or "a limit"
        reasons.append(
            f"{', '.join(incomplete)} not decided: the search stopped at {limit} with "
            f"{result.stats.queue:,} states left to explore"
        )
    if mismatched:
        status = FAIL
    elif incomplete:
        status = ALLOWED if spec.allow_incomplete else INCOMPLETE_STATUS
    else:
        status = PASS
    reasons += reported
    return Outcome(
        spec=spec, status=status, got=got_text(result), reasons=reasons, result=result,
        result_json=result.to_json(), states=result.stats.distinct_states,
        seconds=result.stats.seconds, shown_traces=shown,
    )


def got_text(result) -> str:
    """What a run found, in the summary table's words."""
    def reported(p) -> bool:
        return getattr(p, "reported_only", False)

    violated = [f"{p.name} ({len(p.trace)} steps)" for p in result.properties
                if p.verdict == VIOLATED and not reported(p)]
    incomplete = [p.name for p in result.properties if p.verdict == INCOMPLETE and not reported(p)]
    parts = []
    if violated:
        parts.append("violated: " + ", ".join(violated))
    if incomplete:
        parts.append(f"incomplete ({result.limit or 'limit'}): " + ", ".join(incomplete))
    text = "; ".join(parts) or "holds"
    also = [f"{p.name} ({len(p.trace)} steps)" for p in result.properties
            if p.verdict == VIOLATED and reported(p)]
    if also:
        text += "; reported, not failing: " + ", ".join(also) + " violated"
    return text


def run_check(spec: CheckSpec, warn: Callable[[str], None] | None = None) -> Outcome:
    """Run one check with the checker library and judge it (``warn`` hears about bounds too
    large to finish, before the check starts)."""
    started = time.monotonic()
    try:
        if spec.liveness:
            result = _check_liveness(spec)
        else:
            result = checker.check(
                spec.config, None if spec.default_properties else spec.properties,
                engine=spec.engine, max_states=spec.max_states,
                time_limit=spec.time_limit, max_depth=spec.max_depth,
                warn=None if warn is None else (lambda line: warn(f"{spec.name}: {line}")),
            )
    except KmcError as e:
        return Outcome(spec=spec, status=ERROR, got="error", reasons=[str(e)],
                       seconds=time.monotonic() - started)
    except Exception as e:
        if interrupted():
            raise  # the interruption surfaced as another error: run_suite reports it
        return Outcome(spec=spec, status=ERROR, got="internal error", internal=True,
                       reasons=[internal_error_line(e, write_crash_report(e))],
                       seconds=time.monotonic() - started)
    if result.interrupted:
        return interrupted_outcome(spec, result, time.monotonic() - started)
    result.known_beyond = beyond(spec.config, [p.name for p in result.properties if p.verdict == HOLDS])
    result.notes += [f"note: {n}" for n in getattr(spec.provenance, "notes", ())]  # from its files
    return judge(spec, result)


def _check_liveness(spec: CheckSpec):
    """A liveness row (one property of ``properties.liveness``): its own check on the behaviour
    graph, answered as a ``CheckResult`` (lazy import: networkx)."""
    from checker.liveness import as_check_result, check_liveness
    from properties.liveness import get_liveness

    live = check_liveness(spec.config, get_liveness(spec.properties[0]),
                          max_states=spec.max_states, time_limit=spec.time_limit)
    return as_check_result(live, spec.config)


def interrupted_outcome(spec: CheckSpec, result=None, seconds: float = 0.0) -> Outcome:
    """The outcome of a check the gate's interruption stopped (``result``: what it had found)
    or never started (``result`` None)."""
    if result is None:
        return Outcome(spec=spec, status=INTERRUPTED_STATUS, got="not run",
                       reasons=["not run: the gate was interrupted (SIGINT or SIGTERM) before it"])
    s = result.stats
    return Outcome(
        spec=spec, status=INTERRUPTED_STATUS, got="interrupted",
        reasons=[f"interrupted (SIGINT or SIGTERM) after {seconds:.1f} s, {s.distinct_states:,} "
                 f"distinct states, depth {s.depth}: not finished, nothing verified"],
        result=result, result_json=result.to_json(), states=s.distinct_states, seconds=seconds,
    )


def run_suite(suite, *, cache=None, progress: Callable[[int, int, Outcome], None] | None = None,
              warn: Callable[[str], None] | None = None) -> list:
    """Run every check of ``suite`` in order (from ``cache`` when it holds a green run).

    SIGINT or SIGTERM stops the suite: the check under way and every later one are INTERRUPTED,
    and the outcomes so far are returned (so the report can still be written). ``warn(line)``
    hears about cache entries that could not be read or written (the check then simply runs)."""
    outcomes = []
    total = len(suite.checks)
    for i, spec in enumerate(suite.checks, start=1):
        started = time.monotonic()
        try:
            outcome = cache.lookup(spec, warn=warn) if cache is not None else None
            if outcome is None:
                outcome = run_check(spec, warn=warn)
                if cache is not None and outcome.green and not interrupted():
                    cache.store(spec, outcome, warn=warn)
        except KeyboardInterrupt:
            outcome = interrupted_outcome(spec, None, time.monotonic() - started)
            outcome.got, outcome.reasons = "interrupted", [
                f"interrupted (SIGINT or SIGTERM) after {time.monotonic() - started:.1f} s: not finished"]
        outcomes.append(outcome)
        stop = outcome.status == INTERRUPTED_STATUS or interrupted()
        if progress is not None:
            try:
                progress(i, total, outcome)
            except KeyboardInterrupt:
                stop = True
        if stop:
            outcomes += [interrupted_outcome(later) for later in suite.checks[i:]]
            break
    return outcomes


def was_interrupted(outcomes) -> bool:
    return any(o.status == INTERRUPTED_STATUS for o in outcomes)


def exit_code(outcomes) -> int:
    statuses = {o.status for o in outcomes}
    if INTERRUPTED_STATUS in statuses:
        return 3
    if any(o.internal for o in outcomes):
        return EXIT_INTERNAL
    if FAIL in statuses:
        return 1
    if ERROR in statuses:
        return 2
    if INCOMPLETE_STATUS in statuses:
        return 3
    return 0
