"""``Advice`` as text (a terminal), Markdown (a design document or a pull request) and JSON.

Every table row is a cell the explorer checked; every verdict in it is that check's verdict:
"holds" (within the bounds), "VIOLATED n" (the shortest counterexample has n steps, written
to the trace file cited), "incomplete" (a limit was hit). Availability columns answer their
question: "yes n" (a shortest witness of n steps), "no", "unclear", "incomplete".
"""

from __future__ import annotations

from advise import availability as A
from advise.recommend import KEPT, VACUOUS, VACUOUS_WITHOUT_ACKS
from advise.settings import FLUSH_KAFKA
from checker.result import INCOMPLETE, VIOLATED
from properties import get_properties

STATUS_WORDS = {KEPT: "kept", "broken": "BROKEN", "unknown": "unknown", VACUOUS: "vacuous"}


def _invariants() -> list:
    return [p.name for p in get_properties(None)]


def _bounds_text(b) -> str:
    faults = "".join(f", {k.replace('_', '-')}={v}" for k, v in b.faults().items())
    return (f"max-records={b.max_records}, max-leader-epoch={b.max_leader_epoch}, "
            f"max-crashes={b.max_crashes}{faults}, max-unflushed-losses={b.max_unflushed_losses} "
            "(power loss)")


def _verdict_text(verdict, settings, *, link=None) -> str:
    if verdict is None:
        return "-"
    if verdict.verdict == VIOLATED:
        text = f"VIOLATED {verdict.trace_length}"
        return f"[{text}]({verdict.trace_file})" if link and verdict.trace_file else text
    if verdict.verdict == INCOMPLETE:
        return "incomplete"
    if settings.acks == "0" and verdict.name in VACUOUS_WITHOUT_ACKS:
        return "holds*"
    return "holds"


def _answer_text(verdict, *, link=None) -> str:
    if verdict is None:
        return "-"
    if verdict.answer in (A.YES, A.UNCLEAR) and verdict.trace_length is not None:
        text = f"{verdict.answer} {verdict.trace_length}"
        return f"[{text}]({verdict.trace_file})" if link and verdict.trace_file else text
    return verdict.answer or "-"


def _row(advice, s, *, link=False) -> list:
    safety = advice.safety.get(s)
    avail = advice.availability_of(s)
    cols = [_verdict_text(safety.verdicts.get(n) if safety else None, s, link=link)
            for n in _invariants()]
    cols += [_answer_text(avail.verdicts.get(q.property_name) if avail else None, link=link)
             for q in A.QUESTIONS]
    cols.append(STATUS_WORDS[advice.status(s)])
    return cols


def _headers() -> list:
    return _invariants() + [q.label for q in A.QUESTIONS] + ["goal"]


def _settings_cols(s) -> list:
    return [s.acks, str(s.min_insync_replicas), str(s.unclean_leader_election_enable).lower(), s.flush]


SETTINGS_HEADERS = ["acks", "min.insync", "unclean", "flush"]


def _table_sections(advice):
    """``(title, header, rows, marks)`` for each table: the grid per release and replication
    factor, then the user's settings per release."""
    for rel in advice.grid_releases:
        for rf in advice.replication_factors:
            cells = advice.grid_cells(rf, rel)
            title = f"replication.factor={rf}, {rel.label}" + (
                f" ({rel.mode})" if rel.kafka_version else "")
            rows = [_settings_cols(s) + _row(advice, s) for s in cells]
            marks = ["<- yours" if s == advice.user else "" for s in cells]
            yield title, SETTINGS_HEADERS + _headers(), rows, marks, cells
    extra = [s for s in [advice.user] if not any(
        s in advice.grid_cells(rf, rel) for rel in advice.grid_releases for rf in advice.replication_factors)]
    if extra:
        s = extra[0]
        yield (f"your settings, replication.factor={s.replication_factor}, {s.release.label}",
               SETTINGS_HEADERS + _headers(), [_settings_cols(s) + _row(advice, s)], ["<- yours"], extra)
    if advice.version_releases:
        cells = [advice.user.but(release=rel) for rel in advice.version_releases]
        rows = [[rel.label, rel.protocol] + _row(advice, s) for rel, s in zip(advice.version_releases, cells)]
        marks = ["<- yours" if s.release == advice.user.release else "" for s in cells]
        yield ("your settings under each release where a rule changed: " + advice.user.words(),
               ["release", "protocol"] + _headers(), rows, marks, cells)


def _format(header, rows, marks) -> list:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    for row, mark in zip(rows, marks):
        lines.append(("  ".join(str(c).ljust(w) for c, w in zip(row, widths)) + "  " + mark).rstrip())
    return lines


def _header_lines(advice) -> list:
    goals = ", ".join(advice.goals)
    u = advice.user
    lines = [f"kmc advise: goal {goals}",
             f"your settings: {u.words(release=True)}: goal {STATUS_WORDS[advice.user_status]}"]
    lines.append("bounds of each safety check: " + "; ".join(
        f"RF={rf}: {_bounds_text(b)}" for rf, b in sorted(advice.bounds.items())))
    lines.append("availability questions: " + "; ".join(f"{q.label} = {q.ask}" for q in A.QUESTIONS)
                 + f" (bounds: {_bounds_text(A.BOUNDS).split(', max-unflushed')[0]}, process crashes)")
    n_safety, n_avail = len(advice.safety), len(advice.availability)
    cached = sum(c.cached for c in list(advice.safety.values()) + list(advice.availability.values()))
    states = sum(c.states for c in list(advice.safety.values()) + list(advice.availability.values()))
    lines.append(f"checked: {n_safety} settings x {len(_invariants())} properties and {n_avail} x "
                 f"{len(A.QUESTIONS)} availability questions, {states:,} distinct states, "
                 f"{advice.seconds:.0f} s ({cached} cells from the cache)")
    lines.append("flush: default = " + FLUSH_KAFKA["power-loss"] + "; every write = " + FLUSH_KAFKA["process"])
    return lines


def _advice_lines(advice, *, bullet="  ") -> list:
    goals = ", ".join(advice.goals)
    u = advice.user
    lines = [f"Your settings, {u.words(release=True)}: goal {STATUS_WORDS[advice.user_status]}; "
             + _summary(advice, u), "",
             f"Weakest settings that keep {goals}, at each replication factor:"]
    if not advice.weakest:
        lines.append(f"{bullet}none of the swept settings keeps it within the bounds")
    for s in advice.weakest:
        lines.append(f"{bullet}{s.words(release=len(advice.grid_releases) > 1)}: {_summary(advice, s)}")
    if advice.changes:
        lines.append("")
        lines.append("What each stronger setting changes, from each setting that keeps the goal "
                     "(found by the explorer; costs kmc does not model are named as such; steps "
                     "that change nothing are left out):")
        starts = list(dict.fromkeys(c.start for c in advice.changes))
        for start in starts:
            changes = [c for c in advice.changes if c.start == start and (
                c.gains or c.losses or c.goal != KEPT)]  # a step that changes nothing is left out
            if not changes:
                continue
            lines.append(f"{bullet}from {start.words()}:")
            for c in changes:
                found = []
                if c.gains:
                    found.append("gains: " + "; ".join(c.gains))
                if c.losses:
                    found.append("costs: " + "; ".join(c.losses))
                tail = f" (not modelled: {c.not_modelled})" if c.not_modelled else ""
                lines.append(f"{bullet}  {c.setting} {c.step}: goal {STATUS_WORDS[c.goal]}; "
                             + "; ".join(found) + tail)
    return lines


def _summary(advice, s) -> str:
    avail = advice.availability_of(s)
    parts = [f"{q.label}: {avail.verdicts[q.property_name].answer}" for q in A.QUESTIONS] if avail else []
    safety = advice.safety.get(s)
    violated = [f"{v.name} ({v.trace_length} steps)" for v in safety.verdicts.values()
                if v.verdict == VIOLATED] if safety else []
    if violated:
        parts.append("violated: " + ", ".join(violated))
    return "; ".join(parts)


def _interrupted_lines(advice) -> list:
    done, total = advice.interrupted
    return [f"kmc advise: INTERRUPTED (SIGINT or SIGTERM) after {done} of {total} cells, "
            f"{advice.seconds:.0f} s: no advice is drawn from a sweep that did not finish "
            "(the cells checked are in the result cache; run it again to go on from there)"]


def render_text(advice) -> str:
    if advice.interrupted:
        return "\n".join(_interrupted_lines(advice))
    lines = _header_lines(advice)
    for title, header, rows, marks, _cells in _table_sections(advice):
        lines += ["", title] + _format(header, rows, marks)
    lines += ["", LEGEND]
    if any(v.trace_file for c in list(advice.safety.values()) + list(advice.availability.values())
           for v in c.verdicts.values()):
        lines.append("traces: TRACE-DIR/<cell>/<property>.itf.json, one per VIOLATED verdict and "
                     "witness (kmc trace show FILE); --json lists each file")
    else:
        lines.append("traces: --trace-dir DIR writes each counterexample and witness as a trace "
                     "file (kmc trace show FILE)")
    lines += [""] + _advice_lines(advice)
    if advice.notes:
        lines += [""] + [f"note: {n}" for n in advice.notes]
    return "\n".join(lines)


LEGEND = ("holds = within the bounds; VIOLATED n = shortest counterexample of n steps; "
          "yes n = a shortest witness of n steps; holds* = vacuous (acks=0 acknowledges nothing); "
          "incomplete = the check hit --cell-time-limit or --max-states")


def render_markdown(advice) -> str:
    if advice.interrupted:
        return "\n".join(f"*{line}*" for line in _interrupted_lines(advice)) + "\n"
    lines = [f"## kmc advise: {', '.join(advice.goals)}", ""]
    lines += [f"- {line}" for line in _header_lines(advice)[1:]]
    for title, header, rows, marks, cells in _table_sections(advice):
        lines += ["", f"### {title}", ""]
        lines.append("| " + " | ".join(header + [""]) + " |")
        lines.append("|" + "---|" * (len(header) + 1))
        for row, mark, s in zip(rows, marks, cells):
            linked = row[: len(row) - len(_headers())] + _row(advice, s, link=True)
            lines.append("| " + " | ".join(linked + [mark.replace("<- ", "")]) + " |")
    lines += ["", LEGEND, "", "### Advice", ""]
    lines += [line if not line.startswith("  ") else "- " + line.strip()
              for line in _advice_lines(advice)]
    if advice.notes:
        lines += [""] + [f"*note: {n}*" for n in advice.notes]
    return "\n".join(lines) + "\n"


def to_json(advice) -> dict:
    cells = []
    for s, cell in advice.safety.items():
        avail = advice.availability_of(s)
        cells.append({
            "settings": s.to_json(),
            "goal": advice.status(s),
            "yours": s == advice.user,
            "safety": cell.to_json(),
            "availability": avail.to_json() if avail else None,
        })
    return {
        "goals": advice.goals,
        "user": {"settings": advice.user.to_json(), "goal": advice.user_status},
        "replication_factors": advice.replication_factors,
        "grid_releases": [r.to_json() for r in advice.grid_releases],
        "version_releases": [r.to_json() for r in advice.version_releases],
        "bounds": {str(rf): b.as_dict() for rf, b in sorted(advice.bounds.items())},
        "availability_bounds": A.BOUNDS.as_dict(),
        "cells": cells,
        "weakest": [s.to_json() for s in advice.weakest],
        "changes": [c.to_json() for c in advice.changes],
        "seconds": round(advice.seconds, 3),
        "notes": list(advice.notes),
        "interrupted": ({"cells_checked": advice.interrupted[0], "cells_planned": advice.interrupted[1]}
                        if advice.interrupted else None),
        "exit_code": advice.exit_code,
    }
