"""A liveness result (``checker/liveness.py``) as text: the verdict and, when violated, the
lasso: the stem, then the loop repeated for ever (or the last state stuttering for ever)."""

from __future__ import annotations

from model.describe import describe
from viewer.text import render_state

_LIMITS = {
    "states": "the --max-states limit (the behaviour graph is held in memory)",
    "time": "the --time-limit",
    "max-leader-epoch": "the --max-leader-epoch bound",
    "max-depth": "the --depth bound (the lasso search of --engine bmc: not a proof)",
    "interrupted": "a signal (SIGINT or SIGTERM)",
}


def render_liveness(result) -> str:
    fairness = "weak fairness for the protocol's own steps" if result.fair else "no fairness"
    if getattr(result, "engine", "graph") == "bmc":
        searched = (f"lasso search (bmc), lengths 0-{result.states}" if result.trace is None
                    else f"lasso search (bmc), shortest lasso: {result.states} steps")
        size = f"{searched}, {result.seconds:.1f} s"
    else:
        size = (f"{result.states:,} states, {result.edges:,} edges, "
                f"{result.components:,} components, {result.seconds:.1f} s")
    lines = [f"Liveness: {result.property_name}: {result.description}",
             f"  under {fairness}; {size}"]
    if result.verdict == "INCOMPLETE":
        lines.append(f"INCOMPLETE: stopped by {_LIMITS.get(result.limit, result.limit)}")
    else:
        lines.append("HOLDS (within the bounds)" if result.verdict == "HOLDS" else result.verdict)
    lines += [f"note: {n}" for n in result.notes]
    trace = result.trace
    if trace is None:
        return "\n".join(lines)
    lines.append("Initial state:")
    lines += render_state(trace.initial)
    before = trace.initial
    for i, step in enumerate(trace.steps, 1):
        if i == result.loop_start + 1:
            lines.append(f"--- loop: steps {i}-{len(trace.steps)} repeat for ever, back to state {result.loop_start} ---")
        lines.append(f"Step {i}: {step.action}")
        lines.append(f"  -> {describe(step.action, before, step.state)}")
        lines += render_state(step.state)
        before = step.state
    if result.stuttering:
        lines.append(f"--- loop: state {len(trace.steps)} stutters for ever: "
                     + ("no step the property's fairness requires is enabled in it ---"
                        if result.fair else "nothing forces a step (no fairness) ---"))
    lines.append(f"=> {result.property_name} is violated: the loop never reaches the state it "
                 "waits for")
    return "\n".join(lines)
