"""Replaying a trace file against the current model: is it still a behaviour of this model?

Replay starts from the model's initial state equal to the file's first state, applies each
recorded action with ``model.next_state`` and compares every resulting state with the file's,
field by field, on their ITF encodings after ``viewer.itf.normalise`` (so the comparison is exact,
and a file another ITF tool wrote, with ``#bigint`` integers or sets in another order, compares
equal to the same values as kmc writes them). It also
compares the model fingerprint the file was recorded with against the current one: a trace
from another version of the model is reported, and not accepted unless the caller allows it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from model import make_model
from properties import PROPERTIES
from viewer.itf import encode_state, first_difference, normalise
from viewer.model_version import model_fingerprint
from viewer.trace_file import TraceFile

EXIT_VALID, EXIT_INVALID = 0, 1


@dataclass
class ReplayReport:
    steps: int
    diverged_at: int | None = None      # step number (0 = initial state), None if all replayed
    lines: list = field(default_factory=list)
    exit_code: int = EXIT_VALID


def _show(value) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= 80 else text[:77] + "..."


def replay(tf: TraceFile, *, allow_model_change: bool = False) -> ReplayReport:
    """Replay ``tf`` against the current model; the report says what happened, in lines."""
    model = make_model(tf.config)
    report = ReplayReport(steps=len(tf.trace.steps))
    current = model_fingerprint(tf.config.rules)
    recorded = tf.meta.get("model_fingerprint")
    model_changed = recorded != current
    if model_changed:
        report.lines.append(
            f"warning: the trace was recorded with model {recorded!r} (kmc "
            f"{tf.meta.get('kmc_version', '?')}); this kmc's model of its rules is {current!r}: "
            "the model's code or rules changed since")
        changed_rules = _rules_changed(tf)
        if changed_rules:
            report.lines.append(f"  {changed_rules}")
    warnings = len(report.lines)

    inits = model.init_states()
    recorded_states = [normalise(raw) for raw in tf.raw_states]
    state = next((s for s in inits if normalise(encode_state(s)) == recorded_states[0]), None)
    if state is None:
        path, mine, theirs = first_difference(normalise(encode_state(inits[0])), recorded_states[0])
        report.diverged_at = 0
        report.lines.append(
            f"diverges at the initial state: {path} is {_show(mine)} in the model's initial "
            f"state but {_show(theirs)} in the file"
        )
    else:
        for i, step in enumerate(tf.trace.steps, 1):
            nxt = model.next_state(state, step.action)
            if nxt is None:
                enabled = [str(a) for a, _ in model.successors(state)]
                shown = ", ".join(enabled[:6]) + (f" and {len(enabled) - 6} more" if len(enabled) > 6 else "")
                report.diverged_at = i
                report.lines.append(
                    f"diverges at step {i}: {step.action} is not enabled in the model after step "
                    f"{i - 1} (enabled there: {shown or 'nothing'})"
                )
                break
            diff = first_difference(normalise(encode_state(nxt)), recorded_states[i])
            if diff is not None:
                path, mine, theirs = diff
                report.diverged_at = i
                report.lines.append(
                    f"diverges at step {i} ({step.action}): {path} is {_show(mine)} in the model "
                    f"but {_show(theirs)} in the file"
                )
                break
            state = nxt

    if report.diverged_at is not None:
        report.lines.insert(warnings,
                            "invalid: the trace is not a behaviour of the current model"
                            + (f" (its first {report.diverged_at - 1} steps replay identically)"
                               if report.diverged_at > 1 else ""))
        report.exit_code = EXIT_INVALID
        return report

    report.lines.append(
        f"valid: {report.steps} steps replay identically against the current model "
        f"({_release_words(tf.config)}, model {current})"
    )
    report.lines += _judge_property(tf)
    if any(line.startswith("invalid") for line in report.lines):
        report.exit_code = EXIT_INVALID
    elif model_changed and not allow_model_change:
        report.lines.append(
            "not accepted: the model changed since the trace was recorded; pass "
            "--allow-model-change to accept a trace whose steps still replay identically"
        )
        report.exit_code = EXIT_INVALID
    return report


def _release_words(config) -> str:
    return f"Kafka {config.kafka_version}" if config.kafka_version else f"protocol {config.protocol}"


def _rules_changed(tf: TraceFile) -> str:
    """What differs between the rules the file was recorded with (``#meta.kmc.config.rules``)
    and the rules this kmc gives its configuration, in one line ("" if nothing, or if the file
    does not say)."""
    recorded = tf.meta.get("config", {}).get("rules")
    if not isinstance(recorded, list) or not all(isinstance(r, str) for r in recorded):
        return ""
    now = list(tf.config.rules)
    added = [r for r in now if r not in recorded]
    dropped = [r for r in recorded if r not in now]
    if not added and not dropped:
        return ""
    parts = [f"+{r}" for r in added] + [f"-{r}" for r in dropped]
    return (f"the rules of {_release_words(tf.config)} changed since the trace was recorded: "
            f"{' '.join(parts)}")


def _judge_property(tf: TraceFile) -> list:
    name = tf.property_name
    if not name:
        return []
    prop = PROPERTIES.get(name)
    if prop is None:
        return [f"note: property {name!r} is not registered here (load it with kmc --load); not re-judged"]
    for i, state in enumerate(tf.trace.states):
        if not prop.check(state):
            recorded = tf.meta.get("violation_step")
            if recorded != i:
                return [f"invalid: {name} is first violated at step {i}, but the file says step {recorded}"]
            return [f"{name} is {'reached' if prop.is_reachability else 'violated'} at step {i} as recorded"]
    return [f"invalid: {name} holds in every state of the trace: it is no longer a counterexample"]
