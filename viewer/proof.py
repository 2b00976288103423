"""A k-induction proof's outcome (``kmc prove``) as text: the verdict, the configuration and
bounds it covers, and the counterexample or the counterexample to induction in the trace viewer's
words."""

from __future__ import annotations

from checker.symbolic.induction import (
    FAILED, INCONCLUSIVE, INTERRUPTED, PROVED, UNKNOWN, VIOLATED, ProofResult,
)
from checker.symbolic.strengthen import all_names
from viewer.changes import describe_step
from viewer.report import describe_config
from viewer.text import render_state, render_trace

PHASE_WORDS = {"base": "base case", "step": "inductive step",
               "search": "search for a real counterexample (BMC)"}


def render_proof(result: ProofResult, config) -> str:
    """The proof outcome in the trace viewer's words; ``config`` is the ``ModelConfig``."""
    if len(result.strengthen) > 4:
        with_ = f" with {len(result.strengthen)} strengthening invariants"
    else:
        with_ = f" with {', '.join(result.strengthen)}" if result.strengthen else ""
    head = f"{result.property_name}{with_}, {result.k}-induction: {result.status}"
    lines = [f"{head} ({result.seconds:.1f} s)"]
    lines += ["  " + line for line in describe_config(config.as_dict())]
    phase = PHASE_WORDS.get(result.phase, result.phase)
    if result.status == PROVED:
        lines.append("  every reachable state within these bounds satisfies it, however long the run")
    elif result.status == UNKNOWN:
        lines.append(f"  z3 gave up in the {phase} (time limit?): nothing was proved")
    elif result.status == INTERRUPTED:
        lines.append(f"  interrupted in the {phase}: nothing was proved")
    elif result.status == FAILED:
        lines.append(f"  the base case fails: a real counterexample of {len(result.trace)} steps "
                     f"violates {', '.join(result.failing)}")
        lines.append(render_trace(result.trace))
    elif result.status == VIOLATED:
        lines.append(f"  the inductive step fails, and a real counterexample exists: {len(result.trace)} "
                     f"steps ({result.search}; replayed in the compiled model)")
        lines.append(render_trace(result.trace))
    elif result.status == INCONCLUSIVE:
        lines.append("  the inductive step fails, so the proof is inconclusive (not a violation); "
                     "counterexample to induction:")
        lines.append("  A state satisfying every conjunct:")
        lines += ["  " + x for x in render_state(result.pre)]
        words = describe_step(result.action, result.pre, result.post)  # a CTI may be unreachable
        lines.append(f"  Step: {result.action}\n    -> {words}")
        lines += ["  " + x for x in render_state(result.post)]
        lines.append(f"  violates: {', '.join(result.failing)}")
        if result.search:
            lines.append(f"  {result.search}")
        unused = [n for n in all_names() if n not in result.strengthen and n != result.property_name]
        if unused:
            lines.append(f"  it may be unreachable: {len(unused)} library invariants are not in use "
                         f"(`kmc list` shows them); try --strengthen all, or a larger --k")
        else:
            lines.append("  it may be unreachable: try a larger --k, or an invariant of your own "
                         "that rules it out")
    return "\n".join(lines)
