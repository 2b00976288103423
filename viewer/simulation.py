"""A ``SimulationResult`` as text: what was run, how fast, what each action did, the verdicts,
and the shortened counterexample."""

from __future__ import annotations

from checker.result import VIOLATED
from viewer.report import describe_config
from viewer.text import render_trace

STOPPED = {
    "violation": "stopped at the first violation",
    "walks": "stopped after the --walks limit",
    "time-limit": "stopped at the --time-limit",
    "interrupted": "stopped by an interruption",
}


def progress_line(result) -> str:
    """One line for stderr while walks run."""
    taken = sum(1 for _, _, t in result.coverage if t)
    never = [a for a, _, t in result.coverage if not t]
    return (f"progress: {result.walks:,} walks, {result.steps:,} steps, "
            f"{result.steps_per_second:,.0f} steps/s, {taken}/{len(result.coverage)} actions taken"
            + (f" (never: {', '.join(never)})" if never else "") + f", {result.seconds:.1f} s")


def render_simulation(result, *, with_trace: bool = True) -> str:
    lines = describe_config(result.config)
    mean = result.steps / result.walks if result.walks else 0.0
    lines.append(
        f"simulate: seed {result.seed}, depth {result.depth}: {result.walks:,} walks, "
        f"{result.steps:,} steps in {result.seconds:.1f} s ({result.steps_per_second:,.0f} steps/s), "
        f"{mean:.1f} steps a walk on average; {result.deadlocks:,} walks ended with no action enabled")
    lines.append(STOPPED.get(result.limit, result.limit) + f" (rerun with --seed {result.seed} for the same walks)")
    lines.extend(result.notes)
    lines.extend(render_walk_coverage(result.coverage))
    lines.append("")
    findings = {f.property_name: f for f in result.findings}
    width = max(len(p.name) for p in result.properties)
    for p in result.properties:
        if p.verdict == VIOLATED:
            f = findings.get(p.name)
            if f is None:
                extra = "  in the initial state"
            elif f.shortened_length < f.walk_length:
                extra = (f"  walk {f.walk:,} reached it in {f.walk_length} steps; shortened to "
                         f"{f.shortened_length} steps by delta debugging ({f.replays} replays)")
            else:
                extra = f"  walk {f.walk:,} reached it in {f.walk_length} steps"
        else:
            extra = f"  (not violated in {result.walks:,} walks: random walks are not a proof)"
        lines.append(f"  {p.name:<{width}}  {p.verdict}{extra}")
    if with_trace:
        for p in result.properties:
            if p.trace is not None:
                lines.append("")
                shortened = " (shortened: 1-minimal, not necessarily the shortest; kmc check finds that)" \
                    if p.name in findings and findings[p.name].shortened_length < findings[p.name].walk_length else ""
                lines.append(f"Counterexample for {p.name} ({len(p.trace)} steps){shortened}:")
                lines.append(render_trace(p.trace))
                break
    return "\n".join(lines)


def render_walk_coverage(coverage) -> list:
    """Per action: the states along the walks in which it was enabled and the steps that took
    it; an action no walk took is flagged."""
    if not coverage:
        return []
    width = max(len(a) for a, *_ in coverage)
    lines = ["coverage (per action: states it was enabled in, steps that took it):"]
    for action, enabled, taken in coverage:
        flag = "  <- never taken" if taken == 0 else ""
        lines.append(f"  {action:<{width}}  {enabled:>13,} {taken:>13,}{flag}")
    never = [a for a, _, t in coverage if t == 0]
    if never:
        lines.append(f"  {len(never)} action(s) never taken: expected where the configuration rules "
                     "them out (e.g. FlushLog without power loss); otherwise walk longer or deeper")
    return lines
