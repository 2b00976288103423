"""One self-contained HTML page for a counterexample (``kmc check --html``, ``kmc trace html``).

The page has no external resources (inline CSS and JS, no network, no CDN). It draws each
replica's log as a row of boxes coloured by the leader epoch of each record, with HW and LEO
markers, the controller's leader/ISR/epoch, the LeaderAndIsr requests in flight, the producer's
acknowledged and waiting records, the violated property and the step where it breaks, a timeline
of the actions, and the fields the current step changed highlighted. Back/forward by buttons,
the timeline, or the arrow keys (Home/End for the first and last step).

Escaping: the trace goes into the page only as JSON inside ``<script type="application/json">``
with ``<``, ``>``, ``&`` and the JavaScript line separators written as ``\\uXXXX`` escapes, so no
value can close the script element; the page's script builds the DOM with ``textContent`` and
class names it computes itself, never ``innerHTML`` with trace data.
"""

from __future__ import annotations

import json
from pathlib import Path

from checker.result import scope_words
from properties import PROPERTIES
from viewer.changes import (
    acked_text, changes, describe_step, fetch_in_flight, fmt_set, leader_and_isr_text, pending_text,
    replica_role,
)
from viewer.report import describe_config
from viewer.trace_file import kmc_version, loop_start, violation_step

_TEMPLATE = Path(__file__).with_name("trace_viewer.html")
_PAYLOAD_MARK = "/*KMC_TRACE_JSON*/"


def _state_view(state) -> dict:
    c = state.controller
    return {
        "replicas": [
            {
                "broker": b,
                "role": replica_role(b, r) + (", must truncate" if r.truncating else ""),
                "alive": bool(r.alive),
                "is_leader": bool(r.alive and r.leader == b),
                "log": [{"id": str(rid), "epoch": epoch} for rid, epoch in r.log],
                "hw": r.high_watermark,
                "leo": len(r.log),
                "leader_epoch": r.leader_epoch,
                "isr": fmt_set(r.isr) if r.alive and r.leader == b else "",
                "fetch": fetch_in_flight(r),
                "remote": (
                    ", ".join(f"{f}: {leo}" for f, leo in enumerate(r.remote_log_end_offsets) if f != b)
                    if r.alive and r.leader == b else ""
                ),
            }
            for b, r in enumerate(state.replicas)
        ],
        "controller": {
            "leader": "none" if c.leader < 0 else str(c.leader),
            "epoch": c.leader_epoch,
            "isr": fmt_set(c.isr),
            "live": fmt_set(c.live_brokers),
        },
        "leader_and_isr": [leader_and_isr_text(q) for q in state.leader_and_isr],
        "acked": acked_text(state.acked),
        "pending": pending_text(state.pending_acks),
        "consumer_visible": ", ".join(f"r{x}" for x in state.consumer_visible) or "none",
    }


def trace_payload(trace, meta: dict) -> dict:
    """The data the page draws: every step's action, description, state and changes."""
    config = meta.get("config")
    try:
        config_lines = describe_config(config) if isinstance(config, dict) else []
        if config_lines:
            config_lines.append(f"searched: every behaviour within {scope_words(config)} (a "
                                "shortest counterexample within these bounds)")
    except (KeyError, TypeError, AttributeError):
        config_lines = []
    steps = []
    states = trace.states
    for i, state in enumerate(states):
        before = states[i - 1] if i else None
        act = trace.steps[i - 1].action if i else None
        steps.append({
            "index": i,
            "action": str(act) if act else "initial state",
            "action_name": act.name if act else "init",
            "description": describe_step(act, before, state) if act else "the partition after topic creation",
            "changes": [{"key": c.key, "text": c.text} for c in changes(before, state)],
            "state": _state_view(state),
        })
    lasso = loop_start(meta, len(trace.steps))
    return {
        "lasso": None if lasso is None else {
            "property": str(meta.get("liveness_property")),
            "description": meta.get("liveness_description"),
            "loop_start": lasso[0], "stutters": lasso[1],
        },
        "property": meta.get("property"),
        "property_description": meta.get("property_description"),
        "violation_step": meta.get("violation_step"),
        "config_lines": config_lines,
        "kmc_version": meta.get("kmc_version"),
        "steps": steps,
    }


def _script_json(data) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def render_html(trace, meta: dict) -> str:
    """The page for ``trace``; ``meta`` as in a trace file's ``#meta.kmc`` (property,
    property_description, violation_step, config, kmc_version)."""
    template = _TEMPLATE.read_text(encoding="utf-8")
    return template.replace(_PAYLOAD_MARK, _script_json(trace_payload(trace, meta)))


def meta_from_result(trace, result) -> dict:
    prop = PROPERTIES.get(trace.property_name or "")
    return {
        "property": trace.property_name,
        "property_description": prop.description if prop else None,
        "violation_step": violation_step(trace),
        "config": result.config,
        "kmc_version": kmc_version(),
    }


def write_lasso_html(path: str, result, config: dict) -> None:
    """``kmc check -p LIVENESS --html``: the page for a liveness result's lasso, the loop marked
    (ITF's ``loop`` convention, as ``write_lasso`` writes it)."""
    steps = len(result.trace.steps)
    meta = {"liveness_property": result.property_name, "liveness_description": result.description,
            "loop": steps if result.stuttering else result.loop_start + 1, "config": config,
            "kmc_version": kmc_version()}
    Path(path).write_text(render_html(result.trace, meta), encoding="utf-8")


def write_html(path: str, trace, result) -> None:
    """``kmc check --html``: write the page for ``trace``, found by ``result`` (a CheckResult)."""
    Path(path).write_text(render_html(trace, meta_from_result(trace, result)), encoding="utf-8")
