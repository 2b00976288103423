"""``kmc advise --goal writes-accepted-once-brokers-return`` (any liveness property of
``properties/liveness.py``): the operator's settings whose partition keeps making progress.

A liveness goal is judged on the behaviour graph under weak fairness (``checker/liveness.py``),
not by the compiled explorer's breadth-first search that decides the safety goals, so it gets a
sweep of its own, asked on its own (with a safety, availability or delivery goal: one line, exit
2). Each cell is one ``check_liveness`` per goal:

* the settings swept are the safety sweep's grid (``advise.settings.grid``: acks, min.insync.replicas,
  unclean.leader.election.enable, the flush policy), at the user's release, at the replication
  factors asked (``--replication-factors``; by default only the user's own: a liveness check
  keeps the whole graph in memory without symmetry reduction, about 3.6 KB a state,
  docs/liveness.md, so RF=3 at the default bounds is already half a million states);
* the bounds are kmc's default bounds for the replication factor, or the user's bound flags
  (``advise.sweep.bounds_for``). The safety sweep's extra corners (the known losses' bounds) are
  not used: they are where data is lost, not where progress stops.

A cell keeps the goals when every goal HOLDS (within the bounds). VIOLATED is a fair lasso;
a limit (``--max-states``, ``--cell-time-limit``, or every violating loop passing the leader
epoch bound) leaves the cell undecided, never kept. A goal about acknowledged records is vacuous
with ``acks=0`` (nothing is acknowledged, so nothing waits) and is not checked. The advice is
the weakest settings that keep the goals (``advise.recommend.weakest``); liveness is not
monotone in the settings (``min.insync.replicas=2`` keeps data and costs progress), so every
cell is checked, none inferred from another.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from advise.recommend import BROKEN, KEPT, UNKNOWN, VACUOUS, weakest
from advise.settings import Settings, grid
from advise.sweep import bounds_for
from checker.interrupt import interrupted
from checker.liveness import LIMIT_NAMES, check_liveness
from checker.result import EXIT_HOLDS, EXIT_INCOMPLETE, EXIT_VIOLATED, HOLDS, VIOLATED
from model.config import ModelConfig
from model.errors import ConfigError
from properties import vacuous_with_acks
from properties.liveness import LIVENESS, get_liveness



def is_liveness(goals) -> bool:
    """Are the goals all liveness properties (so this sweep answers them)?"""
    return bool(goals) and all(g in LIVENESS for g in goals)


def check_liveness_goals(goals) -> list:
    """The goals, if they can be advised together: all liveness properties, or none of them."""
    goals = list(dict.fromkeys(goals))
    live = [g for g in goals if g in LIVENESS]
    if live and len(live) != len(goals):
        others = [g for g in goals if g not in LIVENESS]
        raise ConfigError(f"--goal {', '.join(live)} is a liveness property, advised on its own "
                          f"sweep (docs/advise.md, 'Liveness goals'): ask it without "
                          f"{', '.join(others)}")
    return goals


@dataclass
class LivenessCell:
    """One setting: each goal's liveness result (``checker.liveness.LivenessResult``)."""

    settings: Settings
    results: dict = field(default_factory=dict)  # goal -> LivenessResult
    vacuous: bool = False

    @property
    def status(self) -> str:
        if self.vacuous:
            return VACUOUS
        verdicts = [r.verdict for r in self.results.values()]
        if VIOLATED in verdicts:
            return BROKEN
        return KEPT if verdicts and all(v == HOLDS for v in verdicts) else UNKNOWN

    @property
    def states(self) -> int:
        return sum(r.states for r in self.results.values())

    def to_json(self) -> dict:
        return {"settings": self.settings.to_json(), "status": self.status,
                "goals": [r.to_json() for r in self.results.values()]}


@dataclass
class LivenessAdvice:
    goals: list
    user: Settings
    bounds: dict  # replication factor -> Bounds
    cells: list = field(default_factory=list)  # LivenessCell, weak to strong per factor
    fair: bool = True
    seconds: float = 0.0
    interrupted: tuple | None = None  # (cells checked, cells planned)
    notes: list = field(default_factory=list)

    def cell(self, s: Settings) -> LivenessCell | None:
        return next((c for c in self.cells if c.settings == s), None)

    @property
    def weakest(self) -> list:
        """Per replication factor, the settings that keep every goal with none weaker keeping
        them (``advise.recommend.weakest``)."""
        out = []
        for rf in sorted(self.bounds):
            out += weakest([c.settings for c in self.cells
                            if c.status == KEPT and c.settings.replication_factor == rf])
        return out

    @property
    def weakest_at_your_acks(self) -> list:
        """The same with the producer's ``acks`` fixed at the user's: a progress goal is cheap
        with acks=0 (nothing waits for the ISR), which a producer rarely gets to choose."""
        out = []
        for rf in sorted(self.bounds):
            out += weakest([c.settings for c in self.cells if c.status == KEPT
                            and c.settings.replication_factor == rf
                            and c.settings.acks == self.user.acks])
        return out

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return EXIT_INCOMPLETE
        mine = self.cell(self.user)
        status = mine.status if mine is not None else UNKNOWN
        return {KEPT: EXIT_HOLDS, BROKEN: EXIT_VIOLATED}.get(status, EXIT_INCOMPLETE)

    def to_json(self) -> dict:
        return {
            "goals": self.goals, "kind": "liveness", "fairness": "weak" if self.fair else "none",
            "yours": self.user.to_json(),
            "bounds": {str(rf): b.as_dict() for rf, b in self.bounds.items()},
            "cells": [c.to_json() for c in self.cells],
            "weakest": [s.to_json() for s in self.weakest],
            "weakest_at_your_acks": [s.to_json() for s in self.weakest_at_your_acks],
            "seconds": round(self.seconds, 3), "interrupted": self.interrupted,
            "notes": self.notes, "exit_code": self.exit_code,
        }


def advise_liveness(config: ModelConfig, goals, *, replication_factors=None,
                    bound_overrides: dict | None = None, fair: bool = True,
                    time_limit: float | None = None, max_states: int | None = None,
                    progress=None) -> LivenessAdvice:
    """Check every operator setting at ``replication_factors`` (default: the user's) and the
    user's release on the liveness ``goals``; ``progress(i, n, cell)`` after each cell."""
    started = time.monotonic()
    goals = check_liveness_goals(goals)
    props = [get_liveness(g) for g in goals]
    overrides = {k: v for k, v in (bound_overrides or {}).items() if v is not None}
    user = Settings.of(config)
    rfs = sorted(set(replication_factors or [user.replication_factor]))
    cells = [s for rf in rfs for s in grid(rf, user.release)]
    if user not in cells:
        cells.append(user)
        rfs = sorted(set(rfs) | {user.replication_factor})
    advice = LivenessAdvice(goals, user, {rf: bounds_for(rf, overrides) for rf in rfs}, fair=fair)
    for i, s in enumerate(cells, 1):
        if interrupted():
            advice.interrupted = (i - 1, len(cells))
            break
        cell = LivenessCell(s, vacuous=bool(goals) and all(vacuous_with_acks(g, s.acks) for g in goals))
        if not cell.vacuous:
            cfg = s.config(config, advice.bounds[s.replication_factor])
            for prop in props:
                cell.results[prop.name] = check_liveness(cfg, prop, fair=fair, max_states=max_states,
                                                         time_limit=time_limit)
                if cell.results[prop.name].verdict == VIOLATED:
                    break  # the cell is refuted: the other goals would not change that
        advice.cells.append(cell)
        if progress:
            progress(i, len(cells), cell)
    advice.seconds = time.monotonic() - started
    return advice


def _verdict_words(cell: LivenessCell) -> str:
    if cell.vacuous:
        return "vacuous (acks=0: nothing is acknowledged)"
    words = []
    for name, r in cell.results.items():
        if r.verdict == HOLDS:
            words.append(f"{name} holds")
        elif r.verdict == VIOLATED:
            loop = "stutters" if r.stuttering else f"loops over {len(r.trace.steps) - r.loop_start} steps"
            words.append(f"{name} VIOLATED: lasso of {len(r.trace.steps)} steps, {loop}")
        else:
            words.append(f"{name} not decided ({LIMIT_NAMES.get(r.limit, r.limit)})")
    return "; ".join(words)


def _header_lines(advice: LivenessAdvice) -> list[str]:
    """The title line, then one line of bounds per replication factor."""
    lines = [f"kmc advise: liveness goal{'s' if len(advice.goals) > 1 else ''} "
             f"{', '.join(advice.goals)} ({advice.user.release.label}, "
             f"{'weak fairness for the protocol' + chr(39) + 's own steps' if advice.fair else 'no fairness'}; "
             "each setting checked on its behaviour graph, docs/liveness.md)"]
    for rf, b in advice.bounds.items():
        lines.append(f"RF={rf} bounds: max-records={b.max_records}, max-leader-epoch="
                     f"{b.max_leader_epoch}, max-crashes={b.max_crashes}, max-unflushed-losses="
                     f"{b.max_unflushed_losses}")
    return lines


def _interrupted_line(advice: LivenessAdvice) -> str:
    done, total = advice.interrupted
    return (f"INTERRUPTED (SIGINT or SIGTERM) after {done} of {total} settings: no advice is "
            "drawn from a sweep that did not finish")


def _advice_lines(advice: LivenessAdvice) -> list[str]:
    """The answer: the weakest settings (indented two spaces), the user's, and a lasso's steps
    for the user's settings when they do not keep the goal."""
    best = advice.weakest
    lines = ["Weakest settings that keep the goal within these bounds:" if best
             else "No swept setting keeps the goal within these bounds."]
    lines += [f"  {s.words()}" for s in best]
    mine_acks = advice.weakest_at_your_acks
    if mine_acks != [s for s in best if s.acks == advice.user.acks]:
        lines.append(f"With your acks={advice.user.acks}:" if mine_acks
                     else f"With your acks={advice.user.acks}: none keeps it.")
        lines += [f"  {s.words()}" for s in mine_acks]
    mine = advice.cell(advice.user)
    lines.append(f"Yours ({advice.user.words()}): " + {
        KEPT: "keeps it (within the bounds).", BROKEN: "does not keep it.",
        VACUOUS: "vacuous (acks=0).",
    }.get(mine.status if mine else UNKNOWN, "not decided (a limit was hit)."))
    if mine is not None and mine.status == BROKEN:
        r = next(r for r in mine.results.values() if r.verdict == VIOLATED)
        steps = [str(a) for a in r.trace.actions]
        loop = ("then stutters for ever" if r.stuttering
                else f"then repeats steps {r.loop_start + 1}-{len(steps)} for ever")
        lines.append(f"  {r.property_name}: {' -> '.join(steps)}; {loop} "
                     f"(kmc check -p {r.property_name} with your settings prints the lasso)")
    lines.append("A HOLDS covers these bounds and the fairness above, nothing beyond.")
    return lines


def render_liveness_advice(advice: LivenessAdvice) -> str:
    """The sweep as text: the bounds, one line per setting, the weakest that keep the goals,
    the user's, and a lasso's steps for the user's settings when they do not."""
    title, *bounds = _header_lines(advice)
    lines = [title] + [f"  {b}" for b in bounds] + [""]
    width = max(len(c.settings.words()) for c in advice.cells) + 2 if advice.cells else 0
    for c in advice.cells:
        mark = "  <- yours" if c.settings == advice.user else ""
        states = f" ({c.states:,} states)" if c.results else ""
        lines.append(f"  {c.settings.words():<{width}}{c.status:<9}{_verdict_words(c)}{states}{mark}")
    lines.append("")
    if advice.interrupted:
        return "\n".join(lines + [_interrupted_line(advice)]) + "\n"
    lines += _advice_lines(advice)
    lines += [f"note: {n}" for n in advice.notes]
    return "\n".join(lines) + "\n"


def render_liveness_markdown(advice: LivenessAdvice) -> str:
    """The same sweep as Markdown: a list of the bounds, a table with one row per setting, and
    the advice as a list (``kmc advise --goal NAME --markdown``)."""
    if advice.interrupted:
        return f"*{_interrupted_line(advice)}*\n"
    title, *bounds = _header_lines(advice)
    lines = [f"## {title}", ""] + [f"- {b}" for b in bounds] + [""]
    lines += ["| settings | status | verdict | states | |", "|---|---|---|---|---|"]
    for c in advice.cells:
        states = f"{c.states:,}" if c.results else ""
        mark = "yours" if c.settings == advice.user else ""
        verdict = _verdict_words(c).replace("|", "\\|")
        lines.append(f"| {c.settings.words()} | {c.status} | {verdict} | {states} | {mark} |")
    lines += ["", "### Advice", ""]
    lines += [f"- {line.strip()}" if line.startswith("  ") else line for line in _advice_lines(advice)]
    if advice.notes:
        lines += [""] + [f"*note: {n}*" for n in advice.notes]
    return "\n".join(lines) + "\n"
