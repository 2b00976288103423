"""``Advice`` as text (a terminal), Markdown (a design document or a pull request) and JSON.

Every table row is a setting the explorer checked; every verdict in it is a check's verdict.
The goal column says where the goal was decided: "holds" (at every corner of the bounds, listed
in the header), "VIOLATED n at (r,e,c)" (the shortest counterexample has n steps at that
corner, written to the trace file cited; "by dominance" when the process-crash twin's
counterexample refutes it), "not refuted" (a corner was not checked to the end), "vacuous".
The other invariants are checked at the base bounds for the settings that keep the goal and
yours ("-" elsewhere); availability columns answer their question: "yes n" (a shortest witness
of n steps), "no", "unclear", "incomplete".
"""

from __future__ import annotations

from advise import availability as A
from advise.recommend import BROKEN, KEPT, UNKNOWN, VACUOUS
from advise.settings import FLUSH_KAFKA
from checker.result import INCOMPLETE, VIOLATED
from model.constants import CRASH_MODEL_MEANING
from properties import PROPERTIES, get_properties

STATUS_WORDS = {KEPT: "kept", BROKEN: "BROKEN", UNKNOWN: "not refuted", VACUOUS: "vacuous"}


def _invariants(advice) -> list:
    """The invariant columns besides the goals: every invariant, the goals' first."""
    return [p.name for p in get_properties(None) if p.name not in advice.goals]


def _bounds_text(b) -> str:
    faults = "".join(f", {k.replace('_', '-')}={v}" for k, v in b.faults().items())
    return (f"max-records={b.max_records}, max-leader-epoch={b.max_leader_epoch}, "
            f"max-crashes={b.max_crashes}{faults}, max-unflushed-losses={b.max_unflushed_losses} "
            "(power loss)")


def _goal_text(advice, s, *, link=False) -> str:
    evidence = advice.evidence.get(s)
    if evidence is None:
        return "-"
    if evidence.status == VACUOUS:
        return "vacuous"
    refuted = evidence.refuted_at
    if refuted is not None:
        if refuted.by is not None:
            return f"VIOLATED at {refuted.corner.short()} ({'twin' if refuted.how == 'equivalence' else 'dominance'})"
        v = refuted.violated[0]
        text = f"VIOLATED {v.trace_length} at {refuted.corner.short()}"
        return f"[{text}]({v.trace_file})" if link and v.trace_file else text
    if evidence.status == UNKNOWN:
        left = [c.corner.short() for c in evidence.unfinished]
        return f"not refuted ({', '.join(left)} unfinished)"
    return "holds"


def _verdict_text(verdict, *, link=False) -> str:
    if verdict is None:
        return "-"
    if verdict.verdict == VIOLATED:
        text = f"VIOLATED {verdict.trace_length}"
        return f"[{text}]({verdict.trace_file})" if link and verdict.trace_file else text
    if verdict.verdict == INCOMPLETE:
        return "incomplete"
    return "holds"


def _answer_text(verdict, *, link=False) -> str:
    if verdict is None:
        return "-"
    if verdict.answer in (A.YES, A.UNCLEAR) and verdict.trace_length is not None:
        text = f"{verdict.answer} {verdict.trace_length}"
        return f"[{text}]({verdict.trace_file})" if link and verdict.trace_file else text
    return verdict.answer or "-"


def _row(advice, s, *, link=False) -> list:
    safety = advice.safety.get(s)
    avail = advice.availability_of(s)
    cols, together = [], False
    for g in advice.goals:
        if g in A.BY_NAME:
            cols.append(_answer_text(avail.verdicts.get(g) if avail else None, link=link))
        elif not together:  # one column for the invariant goals: they are checked together
            cols.append(_goal_text(advice, s, link=link))
            together = True
    cols += [_verdict_text(safety.verdicts.get(n) if safety else None, link=link)
             for n in _invariants(advice)]
    cols += [_answer_text(avail.verdicts.get(q.property_name) if avail else None, link=link)
             for q in A.QUESTIONS if q.property_name not in advice.goals]
    cols.append(STATUS_WORDS[advice.status(s)])
    return cols


def _headers(advice) -> list:
    goal_cols, together = [], False
    for g in advice.goals:
        if g in A.BY_NAME:
            goal_cols.append(A.BY_NAME[g].label)
        elif not together:
            goal_cols.append(", ".join(advice.invariant_goals))
            together = True
    others = [n + (" (reported)" if PROPERTIES[n].stronger else "") for n in _invariants(advice)]
    return goal_cols + others + [q.label for q in A.QUESTIONS
                                 if q.property_name not in advice.goals] + ["goal"]


def _settings_cols(s) -> list:
    return [s.acks, str(s.min_insync_replicas), str(s.unclean_leader_election_enable).lower(), s.flush]


SETTINGS_HEADERS = ["acks", "min.insync", "unclean", "flush"]


def _table_sections(advice):
    """``(title, header, rows, marks, cells)`` for each table: the grid per release and
    replication factor, then the user's settings per release."""
    for rel in advice.grid_releases:
        for rf in advice.replication_factors:
            cells = advice.grid_cells(rf, rel)
            title = f"replication.factor={rf}, {rel.label}" + (
                f" ({rel.mode})" if rel.kafka_version else "")
            rows = [_settings_cols(s) + _row(advice, s) for s in cells]
            marks = ["<- yours" if s == advice.user else "" for s in cells]
            yield title, SETTINGS_HEADERS + _headers(advice), rows, marks, cells
    extra = [s for s in [advice.user] if not any(
        s in advice.grid_cells(rf, rel) for rel in advice.grid_releases for rf in advice.replication_factors)]
    if extra:
        s = extra[0]
        yield (f"your settings, replication.factor={s.replication_factor}, {s.release.label}",
               SETTINGS_HEADERS + _headers(advice), [_settings_cols(s) + _row(advice, s)],
               ["<- yours"], extra)
    if advice.version_releases:
        cells = [advice.user.but(release=rel) for rel in advice.version_releases]
        rows = [[rel.label, rel.protocol] + _row(advice, s) for rel, s in zip(advice.version_releases, cells)]
        marks = ["<- yours" if s.release == advice.user.release else "" for s in cells]
        yield ("your settings under each release where a rule changed: " + advice.user.words(),
               ["release", "protocol"] + _headers(advice), rows, marks, cells)


def _format(header, rows, marks) -> list:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    for row, mark in zip(rows, marks):
        lines.append(("  ".join(str(c).ljust(w) for c, w in zip(row, widths)) + "  " + mark).rstrip())
    return lines


def _corner_lines(advice) -> list:
    if not advice.corners:
        return []
    lines = [f"bounds each setting's {', '.join(advice.invariant_goals)} is checked at: kmc's "
             "default bounds and every loss the known-results suite finds at the replication "
             "factor (scenarios/known-results.toml); a setting keeps the goal only if it holds at "
             "each (r,e,c) = (max-records, max-leader-epoch, max-crashes):"]
    for rf, found in sorted(advice.corners.items()):
        for corner in found:
            named = [w for w in corner.why if not w.startswith(("kmc's", "the bounds"))]
            base = [w for w in corner.why if w.startswith(("kmc's", "the bounds"))]
            shown = (base + [f"{len(named)} known loss{'es' if len(named) != 1 else ''}, e.g. "
                             f"\"{named[-1]}\""] if named else base)
            lines.append(f"  RF={rf} {corner.short()}: {corner.words()} (covers {'; '.join(shown)})")
    return lines


def _header_lines(advice) -> list:
    goals = ", ".join(advice.goals)
    u = advice.user
    lines = [f"kmc advise: goal {goals}",
             f"your settings: {u.words(release=True)}: goal {STATUS_WORDS[advice.user_status]}"]
    lines += _corner_lines(advice)
    lines.append("the other invariants, for the settings that keep the goal and yours, at: "
                 + "; ".join(f"RF={rf}: {_bounds_text(b)}" for rf, b in sorted(advice.bounds.items())))
    lines.append("availability questions: " + "; ".join(f"{q.label} = {q.ask}" for q in A.QUESTIONS)
                 + f" (bounds: {_bounds_text(A.BOUNDS).split(', max-unflushed')[0]}, process crashes)")
    lines.append(f"checked: {len(advice.cells)} settings, {advice.checks} checks run "
                 f"({advice.states:,} distinct states), {advice.cached} from the cache, "
                 f"{advice.dominated} answered by another setting's check (dominance, twin), "
                 f"{advice.seconds:.0f} s")
    lines.append("flush: default = " + FLUSH_KAFKA["power-loss"] + ", checked with power-loss "
                 f"crashes ({CRASH_MODEL_MEANING['power-loss']}); every write = "
                 + FLUSH_KAFKA["process"] + ", which loses nothing then, as process crashes ("
                 + CRASH_MODEL_MEANING["process"] + ")")
    return lines


def _scope(advice, s) -> str:
    within = advice.kept_within(s)
    return "within " + " and ".join(c.short() for c in within) if within else ""


def _advice_lines(advice, *, bullet="  ") -> list:
    goals = ", ".join(advice.goals)
    u = advice.user
    lines = [f"Your settings, {u.words(release=True)}: goal {STATUS_WORDS[advice.user_status]}; "
             + _summary(advice, u), ""]
    lines.append(f"Weakest settings that keep {goals} at every bound above, at each replication "
                 "factor:")
    for rel in advice.grid_releases:
        for rf in advice.replication_factors:
            listed = [s for s in advice.weakest if s.replication_factor == rf and s.release == rel]
            for s in listed:
                lines.append(f"{bullet}{s.words(release=len(advice.grid_releases) > 1)}: "
                             f"{_scope(advice, s)}; {_summary(advice, s)}")
            if not listed:
                lines.append(f"{bullet}RF={rf} ({rel.label}): none. " + _why_none(advice, rf, rel))
    unknown = [s for s in advice.cells if advice.status(s) == UNKNOWN]
    if unknown:
        lines.append("")
        lines.append("Not refuted within the bounds checked, and so not listed as safe:")
        for s in unknown:
            evidence = advice.evidence.get(s)
            left = ", ".join(f"{c.corner.short()} stopped at "
                             f"{c.cell.limit if c.cell else 'a limit'}" for c in
                             (evidence.unfinished if evidence else []))
            lines.append(f"{bullet}{s.words(release=True)}: not refuted "
                         f"{_scope(advice, s) or 'at any bound'}" + (f"; {left}" if left else ""))
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
                if c.goal == BROKEN:
                    found.insert(0, _goal_text(advice, c.to))
                lines.append(f"{bullet}  {c.setting} {c.step}: goal {STATUS_WORDS[c.goal]}"
                             + "".join(f"; {f}" for f in found) + tail)
    return lines


def _why_none(advice, rf, rel) -> str:
    """Why no setting at ``rf`` keeps the goal: the strongest one's counterexample."""
    cells = [s for s in advice.grid_cells(rf, rel) if advice.status(s) == BROKEN]
    if not cells:
        return "No setting was decided."
    strongest = max(cells, key=lambda s: s.strength())
    return f"The strongest, {strongest.words()}, is {_goal_text(advice, strongest)}."


def _summary(advice, s) -> str:
    avail = advice.availability_of(s)
    parts = [f"{q.label}: {avail.verdicts[q.property_name].answer}" for q in A.QUESTIONS] if avail else []
    evidence = advice.evidence.get(s)
    if evidence is not None and evidence.refuted_at is not None:
        parts.insert(0, f"{', '.join(advice.invariant_goals)} {_goal_text(advice, s)}")
    safety = advice.safety.get(s)
    violated = [f"{v.name} ({v.trace_length} steps)" for v in safety.verdicts.values()
                if v.verdict == VIOLATED and v.name not in advice.goals] if safety else []
    if violated:
        parts.append("violated at the base bounds: " + ", ".join(violated))
    return "; ".join(parts)


def progress_words(advice, s) -> str:
    """A progress line's verdict for one setting: its goal, the checks and their time."""
    evidence = advice.evidence.get(s)
    if evidence is None:
        return "goal decided by the availability questions later"
    ran = [c.cell for c in evidence.checks if c.cell is not None]
    cached = sum(c.cached for c in ran)
    seconds = sum(c.seconds for c in ran if not c.cached)
    return (f"{_goal_text(advice, s)}; {len(ran)} check(s)"
            + (f", {cached} cached" if cached else "") + f", {seconds:.1f} s")


def _interrupted_lines(advice) -> list:
    done, total = advice.interrupted
    return [f"kmc advise: INTERRUPTED (SIGINT or SIGTERM) after {done} of {total} settings, "
            f"{advice.seconds:.0f} s: no advice is drawn from a sweep that did not finish "
            "(the checks finished are in the result cache; run it again to go on from there)"]


LEGEND = ("(r,e,c) = max-records, max-leader-epoch, max-crashes; holds = at every bound listed "
          "above, nothing beyond; VIOLATED n at (r,e,c) = shortest counterexample of n steps there; "
          "(dominance) = the process-crash setting's counterexample there is a power-loss behaviour "
          "too; (twin) = at a bound without crashes, the setting differing only in unclean election "
          "or flush has the same behaviours and was checked; "
          "not refuted = a bound was not checked to the end, never counted as kept; vacuous = "
          "acks=0 acknowledges nothing; other columns: at the base bounds, for the settings that "
          "keep the goal and yours (- = not checked); (reported) = stronger than what Kafka "
          "promises; yes n = a shortest witness of n steps")


def render_text(advice) -> str:
    if advice.interrupted:
        return "\n".join(_interrupted_lines(advice))
    lines = _header_lines(advice)
    for title, header, rows, marks, _cells in _table_sections(advice):
        lines += ["", title] + _format(header, rows, marks)
    lines += ["", LEGEND]
    if _traces(advice):
        lines.append("traces: TRACE-DIR/<cell>/<property>.itf.json, one per VIOLATED verdict and "
                     "witness (kmc trace show FILE); --json lists each file")
    else:
        lines.append("traces: --trace-dir DIR writes each counterexample and witness as a trace "
                     "file (kmc trace show FILE)")
    lines += [""] + _advice_lines(advice)
    if advice.notes:
        lines += [""] + [f"note: {n}" for n in advice.notes]
    return "\n".join(lines)


def _traces(advice) -> bool:
    return any(v.trace_file for c in advice.all_checks() for v in c.verdicts.values())


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
            width = len(row) - len(_row(advice, s))
            linked = row[:width] + _row(advice, s, link=True)
            lines.append("| " + " | ".join(linked + [mark.replace("<- ", "")]) + " |")
    lines += ["", LEGEND, "", "### Advice", ""]
    lines += [line if not line.startswith("  ") else "- " + line.strip()
              for line in _advice_lines(advice)]
    if advice.notes:
        lines += [""] + [f"*note: {n}*" for n in advice.notes]
    return "\n".join(lines) + "\n"


def to_json(advice) -> dict:
    cells = []
    for s in advice.cells:
        avail = advice.availability_of(s)
        safety = advice.safety.get(s)
        evidence = advice.evidence.get(s)
        cells.append({
            "settings": s.to_json(),
            "goal": advice.status(s),
            "yours": s == advice.user,
            "evidence": evidence.to_json() if evidence else None,
            "kept_within": [c.to_json() for c in advice.kept_within(s)] if advice.status(s) == KEPT else [],
            "safety": safety.to_json() if safety else None,
            "availability": avail.to_json() if avail else None,
        })
    return {
        "goals": advice.goals,
        "user": {"settings": advice.user.to_json(), "goal": advice.user_status},
        "replication_factors": advice.replication_factors,
        "grid_releases": [r.to_json() for r in advice.grid_releases],
        "version_releases": [r.to_json() for r in advice.version_releases],
        "bounds": {str(rf): b.as_dict() for rf, b in sorted(advice.bounds.items())},
        "corners": {str(rf): [c.to_json() for c in found] for rf, found in sorted(advice.corners.items())},
        "availability_bounds": A.BOUNDS.as_dict(),
        "cells": cells,
        "weakest": [s.to_json() for s in advice.weakest],
        "changes": [c.to_json() for c in advice.changes],
        "checks": advice.checks, "cached": advice.cached, "distinct_states": advice.states,
        "dominated": advice.dominated,
        "seconds": round(advice.seconds, 3),
        "notes": list(advice.notes),
        "interrupted": ({"cells_checked": advice.interrupted[0], "cells_planned": advice.interrupted[1]}
                        if advice.interrupted else None),
        "exit_code": advice.exit_code,
    }
