"""What a gate run shows: the summary table, the reasons for each failure, JUnit XML and JSON.

The table is plain columns (no box drawing), so it reads the same in a terminal and in a CI log.
JUnit XML has one ``testcase`` per check: a ``failure`` with the reasons and the counterexample
for a check that failed or was incomplete, an ``error`` for one that could not run or that an
interruption left unfinished (``type="interrupted"``), ``skipped`` for a cached one; a passing
check expected to be violated carries its counterexample in ``system-out``.

Names and texts from the suite or the cache are whatever their authors wrote: the terminal
renderings pass them through ``terminal_safe`` and the XML through ``xml_safe``
(``viewer.safe_text``), so the report is well-formed, and the terminal undisturbed, for any input.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime, timezone

from checker.result import scope_of
from gate.run import (
    ALLOWED, CACHED, ERROR, FAIL, INCOMPLETE_STATUS, INTERRUPTED_STATUS, PASS, exit_code,
)
from viewer.report import beyond_line
from viewer.safe_text import terminal_safe, xml_safe
from viewer.text import render_trace

HEADERS = ("check", "expected", "got", "within (r,e,c)", "states", "seconds", "status")
WITHIN_NOTE = ("within (r,e,c): the check covers every behaviour with at most r records, leader "
               "epochs up to e and c crashes (+ the fault bounds it turns on), and nothing beyond; "
               "the JUnit and JSON reports say it in words, with the known losses beyond it")


def within(config) -> str:
    """A check's bounds in a table cell: ``(2,2,1)``, then any fault bound that is on."""
    b = config.bounds
    faults = "".join(f" {k.replace('max_', '').replace('_', '-')}={v}" for k, v in b.faults().items())
    if config.consumer_commit:  # the consumer's order (issue 26); its restarts are a fault bound
        faults += f" consumer={config.consumer_commit}"
    return f"({b.max_records},{b.max_leader_epoch},{b.max_crashes}){faults}"


def summary_table(outcomes) -> str:
    rows = [HEADERS]
    for o in outcomes:
        states = f"{o.states:,}" if o.states is not None else "-"
        seconds = "-" if o.status == CACHED else f"{o.seconds:.1f}"
        rows.append(tuple(terminal_safe(c) for c in (
            o.spec.name, o.spec.expected_text(), o.got, within(o.spec.config), states, seconds,
            o.status)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    right = {4, 5}
    lines = []
    for n, row in enumerate(rows):
        cells = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def details(outcomes, *, with_traces: bool = True) -> str:
    """The reasons of every check that is not plainly green, with the counterexamples that
    explain a mismatch."""
    out = []
    for o in outcomes:
        if o.status in (PASS, CACHED):
            continue
        out.append(f"{o.status}: {terminal_safe(o.spec.name)}")
        for r in o.reasons:
            out.append(f"  - {terminal_safe(r)}")
        if with_traces:
            for name, trace in o.shown_traces:
                out.append(f"  counterexample for {name} ({len(trace)} steps):")
                out.extend("    " + line for line in render_trace(trace).splitlines())
    return "\n".join(out)


def evidence_line(specs) -> str:
    """How many rows rest on a source outside kmc and how many are regression pins (kmc's own
    output), from each row's ``rests-on``."""
    counts = {"outside": 0, "regression-pin": 0, "unstated": 0}
    kinds: dict[str, int] = {}
    for spec in specs:
        counts[spec.evidence] += 1
        for kind in dict.fromkeys(k for k, _ in spec.rests_on):
            kinds[kind] = kinds.get(kind, 0) + 1
    by_kind = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()) if k != "regression-pin")
    line = (f"evidence: {counts['outside']} rows rest on an outside source"
            + (f" ({by_kind})" if by_kind else "")
            + f", {counts['regression-pin']} are regression pins (kmc's own output only)")
    if counts["unstated"]:
        line += f", {counts['unstated']} do not say (rests-on)"
    return line + "; a pinned trace length is always kmc's own output"


def verdict_line(outcomes) -> str:
    counts = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    passed = sum(counts.get(s, 0) for s in (PASS, ALLOWED, CACHED))
    parts = [f"{passed} passed"]
    if counts.get(CACHED):
        parts[0] += f" ({counts[CACHED]} cached)"
    if counts.get(ALLOWED):
        parts[0] += f" ({counts[ALLOWED]} incomplete, allowed)"
    for status, word in ((FAIL, "failed"), (INCOMPLETE_STATUS, "incomplete"), (ERROR, "could not run"),
                         (INTERRUPTED_STATUS, "not finished (interrupted)")):
        if counts.get(status):
            parts.append(f"{counts[status]} {word}")
    code = exit_code(outcomes)
    word = "green" if code == 0 else "RED"
    if counts.get(INTERRUPTED_STATUS):
        word = "INTERRUPTED before it finished"
    noun = "check" if len(outcomes) == 1 else "checks"
    return f"gate {word}: {len(outcomes)} {noun}, {', '.join(parts)} (exit code {code})"


def junit_xml(suite, outcomes) -> bytes:
    """The JUnit XML report; every text and attribute goes through ``xml_safe``."""
    failures = sum(o.status in (FAIL, INCOMPLETE_STATUS) for o in outcomes)
    errors = sum(o.status in (ERROR, INTERRUPTED_STATUS) for o in outcomes)
    skipped = sum(o.status == CACHED for o in outcomes)
    total_time = sum(o.seconds for o in outcomes)
    counts = {"tests": str(len(outcomes)), "failures": str(failures), "errors": str(errors),
              "skipped": str(skipped), "time": f"{total_time:.3f}"}
    root = ET.Element("testsuites", {"name": "kmc gate", **counts})
    ts = ET.SubElement(root, "testsuite", {
        "name": xml_safe(suite.name), **counts,
        "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
    })
    props = ET.SubElement(ts, "properties")
    ET.SubElement(props, "property", {"name": "suite", "value": xml_safe(suite.path)})
    if any(o.status == INTERRUPTED_STATUS for o in outcomes):
        ET.SubElement(props, "property", {"name": "interrupted", "value": "true"})
    classname = xml_safe(f"kmc.gate.{suite.name}")
    for o in outcomes:
        tc = ET.SubElement(ts, "testcase", {"classname": classname, "name": xml_safe(o.spec.name),
                                            "time": f"{o.seconds:.3f}"})
        summary = (f"expected {o.spec.expected_text()}; got {o.got}; "
                   f"{o.states if o.states is not None else '-'} distinct states\n"
                   f"scope: {scope_of(o.spec.config.as_dict())['holds_means']}")
        if o.result_json:
            summary += "".join(f"\n{beyond_line(e)}" for e in o.result_json.get("known_beyond", ()))
            summary += "".join(f"\n{n}" for n in o.result_json.get("notes", ()))
        reasons = "\n".join(o.reasons)
        traces = "\n\n".join(
            f"Counterexample for {name} ({len(trace)} steps):\n{render_trace(trace)}"
            for name, trace in o.shown_traces
        )
        if o.status in (FAIL, INCOMPLETE_STATUS):
            kind = "mismatch" if o.status == FAIL else "incomplete"
            el = ET.SubElement(tc, "failure", {"message": xml_safe("; ".join(o.reasons)), "type": kind})
            el.text = xml_safe("\n\n".join(x for x in (summary, reasons, traces) if x))
        elif o.status in (ERROR, INTERRUPTED_STATUS):
            kind = ("internal-error" if o.internal else "error") if o.status == ERROR else "interrupted"
            el = ET.SubElement(tc, "error", {"message": xml_safe("; ".join(o.reasons)), "type": kind})
            el.text = xml_safe(reasons)
        elif o.status == CACHED:
            ET.SubElement(tc, "skipped", {"message": xml_safe(f"cached: {reasons}")})
        out_text = summary
        if o.status in (PASS, ALLOWED) and o.result is not None:
            if o.status == ALLOWED:
                out_text += "\n" + reasons
            for p in o.result.properties:
                if p.trace is not None:
                    out_text += f"\n\nCounterexample for {p.name} ({len(p.trace)} steps), as expected:\n"
                    out_text += render_trace(p.trace)
        ET.SubElement(tc, "system-out").text = xml_safe(out_text)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def json_report(suite, outcomes) -> dict:
    return {
        "suite": suite.path,
        "name": suite.name,
        "exit_code": exit_code(outcomes),
        "checks": [
            {
                "name": o.spec.name,
                "description": o.spec.description,
                "status": o.status,
                "expected": {
                    "expect": o.spec.expect,
                    "violates": o.spec.violates,
                    "trace_length": o.spec.trace_length,
                    "min_trace_length": o.spec.min_trace_length,
                    "allow_incomplete": o.spec.allow_incomplete,
                },
                "got": o.got,
                "scope": scope_of(o.spec.config.as_dict()),
                "reasons": o.reasons,
                "cached": o.status == CACHED,
                "cached_at": o.cached_at,
                "provenance": o.spec.provenance,
                "result": o.result_json,
            }
            for o in outcomes
        ],
    }
