"""A k-induction proof's outcome (``kmc prove``) as text: the verdict, the configuration and
bounds it covers, and the counterexample or the counterexample to induction in the trace viewer's
words."""

from __future__ import annotations

from checker.result import scope_of
from checker.symbolic.outcome import (
    FAILED, HOLDS, INCONCLUSIVE, INTERRUPTED, PROVED, UNKNOWN, VIOLATED, ProofResult,
)
from checker.symbolic.strengthen import all_names
from checker.symbolic.unbounded import scope_line
from viewer.changes import describe_step
from viewer.report import describe_config
from viewer.text import render_state, render_trace
from properties import acks_zero_note, vacuous_with_acks

PHASE_WORDS = {"base": "base case", "step": "inductive step",
               "search": "search for a real counterexample (BFS or BMC)"}


def render_proof(result: ProofResult, config) -> str:
    """The proof outcome in the trace viewer's words; ``config`` is the ``ModelConfig``."""
    if len(result.strengthen) > 4:
        with_ = f" with {len(result.strengthen)} strengthening invariants"
    else:
        with_ = f" with {', '.join(result.strengthen)}" if result.strengthen else ""
    how = " by exhaustive search" if result.status == HOLDS else ""
    head = f"{result.property_name}{with_}, {result.k}-induction: {result.status}{how}"
    lines = [f"{head} ({result.seconds:.1f} s)"]
    lines += ["  " + line for line in describe_config(config.as_dict())]
    if result.selection:
        lines.append(_chosen(result))
    if result.step.get("asked") == "cases":
        lines.append(_by_case(result.step))
    phase = PHASE_WORDS.get(result.phase, result.phase)
    if result.status == PROVED:
        lines.append("  " + (scope_line(result.unbounded, config) if result.unbounded  # issue 29y
                             else "every reachable state within these bounds satisfies it, "
                                  "however long the run"))
        if result.vacuous:  # (review 2026-11-28, finding 5)
            lines.append(_vacuous(result, config))
    elif result.status == UNKNOWN and result.search:
        lines.append(f"  nothing was proved: {result.search}")
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
                     f"steps ({result.search})")
        lines.append(render_trace(result.trace))
    elif result.status == HOLDS:
        lines.append("  it holds by exhaustive search, not by induction: the inductive step fails on "
                     "the counterexample to induction below, but")
        lines.append(f"  {result.search};")
        lines.append("  so that CTI is unreachable, and the strengthening invariants lack one that "
                     "rules it out")
        lines += _cti(result)
        lines.append(f"  HOLDS = {scope_of(config.as_dict())['holds_means']}")
        if result.vacuous:
            lines.append(_vacuous(result, config))
        lines.append(_unused(result, config))
    elif result.status == INCONCLUSIVE:
        lines.append("  the inductive step fails, so the proof is inconclusive (not a violation); "
                     "counterexample to induction:")
        lines += _cti(result)
        if result.search:
            lines.append(f"  {result.search}")
        lines.append(_unused(result, config))
    return "\n".join(lines)


def _chosen(result: ProofResult) -> str:
    """What ``--strengthen auto`` chose (``inductive_step.py``), named so a run can repeat it."""
    sel = result.selection
    rounds = len(sel["rounds"])
    seed = sel.get("seed")
    first = (f"; {seed['taken']} of them chosen first at {seed['bounds']} in {seed['rounds']} "
             f"round{'s' if seed['rounds'] != 1 else ''} ({seed['seconds']:.1f} s)") if seed else ""
    return (f"  strengthening chosen by --strengthen auto: {len(result.strengthen)} of the "
            f"{sel['candidates']} library invariants, in {rounds} round{'s' if rounds != 1 else ''} "
            f"of the inductive step{first} ({', '.join(result.strengthen) or 'none'})")


def _by_case(step: dict) -> str:
    """That the inductive step was asked one transition case at a time (``by_case.py``)."""
    when = (f", after {step['switched_at']:.0f} s of the proof without an answer to it whole"
            if "switched_at" in step else "")
    skipped = (f"; {step['skipped']} changed nothing a conjunct reads, so were not asked"
               if step.get("skipped") else "")
    return (f"  the inductive step's last transition was asked one case at a time "
            f"({step.get('cases', '?')} cases, their guards exclusive within each action{skipped}"
            f"{when})")


def _vacuous(result: ProofResult, config) -> str:
    """Why a PROVED or HOLDS says nothing here: acks=0 (nothing is ever acknowledged), or a
    formula that is true of every state of the configuration."""
    if vacuous_with_acks(result.property_name, config.acks):
        return f"  (vacuously: {acks_zero_note(result.property_name)})"
    return (f"  (vacuously: {result.property_name}'s formula is true of every state of this "
            "configuration, which lacks what it constrains, such as a fault its bounds leave out; "
            "the proof says nothing here)")


def _cti(result: ProofResult) -> list:
    """The counterexample to induction: the state, the step, the state after, what it breaks."""
    lines = ["  A state satisfying every conjunct:"]
    lines += ["  " + x for x in render_state(result.pre)]
    words = describe_step(result.action, result.pre, result.post)  # a CTI may be unreachable
    lines.append(f"  Step: {result.action}\n    -> {words}")
    lines += ["  " + x for x in render_state(result.post)]
    lines.append(f"  violates: {', '.join(result.failing)}")
    return lines


def _unused(result: ProofResult, config) -> str:
    """What may rule the CTI out: the library invariants not in use, or an invariant of one's own
    (of those ``--strengthen all`` takes for ``config``: issue 29p leaves out under power loss the
    properties a power loss breaks)."""
    unused = [n for n in all_names(config) if n not in result.strengthen and n != result.property_name]
    reach = ("to prove it by induction instead" if result.status == HOLDS
             else "it may be unreachable")
    if result.selection:  # --strengthen auto stops only on a CTI that every library invariant allows
        return (f"  {reach}: every library invariant holds on the CTI's state, so --strengthen all "
                f"meets such a CTI too; try a larger --k, or an invariant of your own that rules it out")
    if unused:
        return (f"  {reach}: {len(unused)} library invariants are not in use (`kmc list` shows "
                f"them); try --strengthen all, or a larger --k")
    return f"  {reach}: try a larger --k, or an invariant of your own that rules the CTI out"
