"""Running ``kmc advise``'s checks: each a real check through the engine registry, kept in the
result cache so a check already answered on the same model source is not explored again.

Three kinds of check, all on one ``Settings``:

* a *goal check* (``GOAL``) asks only the goal's invariants at one corner of the cell's bounds
  (``advise/evidence.py``): it stops at the first counterexample, so a cell that loses data
  costs little;
* a *safety check* (``SAFETY``) asks every invariant at kmc's default bounds for the
  replication factor (or the bounds the user gave): for the table and for what each stronger
  setting changes, run only for the cells that keep the goal and for the user's;
* an *availability check* (``AVAILABILITY``) asks the availability questions
  (``advise/availability.py``), with their own small bounds and process crashes, so the two
  flush policies share one.

Only complete runs are cached (the cache key leaves the limits out: a complete answer does not
depend on them); a check that hits a limit is INCOMPLETE and runs again next time.

A check's result is plain data (``CellResult``): per property its verdict, the length of the
shortest counterexample or witness, and the trace as an ITF document (what a trace file holds),
so cached and fresh checks are written and rendered the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from advise import availability as A
from advise.settings import Settings
from checker import check
from checker.result import HOLDS, INCOMPLETE
from model.config import Bounds, ModelConfig, default_bounds
from properties import get_properties
from viewer.trace_file import trace_to_itf

SAFETY, AVAILABILITY, GOAL = "safety", "availability", "goal"
FORMAT = 2  # of what advise stores in the cache (part of the key)
DEFAULT_CELL_MAX_STATES = 10_000_000
"""Distinct states one check may explore unless ``--max-states`` says otherwise: about half a
minute of the compiled engine here. A corner that needs more leaves its cell "not refuted
within" the corners checked, and the output says which corner was not finished."""


@dataclass
class Verdict:
    """One property in one cell."""

    name: str
    verdict: str  # HOLDS, VIOLATED or INCOMPLETE (for a question: VIOLATED = reached)
    trace_length: int | None = None
    itf: dict | None = None  # the counterexample or witness as an ITF document
    answer: str | None = None  # availability questions: yes / no / unclear / incomplete
    trace_file: str | None = None  # where it was written, once written

    def to_json(self) -> dict:
        out = {"property": self.name, "verdict": self.verdict}
        if self.answer is not None:
            out["answer"] = self.answer
        if self.trace_length is not None:
            out["trace_length"] = self.trace_length
        if self.trace_file:
            out["trace_file"] = self.trace_file
        return out


@dataclass
class CellResult:
    settings: Settings
    kind: str  # SAFETY, AVAILABILITY or GOAL
    config: dict  # ModelConfig.as_dict() of what was checked
    verdicts: dict = field(default_factory=dict)  # name -> Verdict
    states: int = 0
    seconds: float = 0.0
    cached: bool = False
    limit: str | None = None

    def to_json(self) -> dict:
        return {
            "kind": self.kind, "settings": self.settings.to_json(), "config": self.config,
            "distinct_states": self.states, "seconds": round(self.seconds, 3),
            "cached": self.cached, "limit": self.limit,
            "properties": [v.to_json() for v in self.verdicts.values()],
        }


def bounds_for(replication_factor: int, overrides: dict) -> Bounds:
    """The base bounds at a replication factor: the user's bound flags, else kmc's defaults for
    that replication factor (``model.config.default_bounds``). The goal is checked at these and
    at the bounds of every known loss (``advise.evidence.corners``)."""
    base = default_bounds(replication_factor)
    return Bounds(**{k: (overrides.get(k) if overrides.get(k) is not None else v)
                     for k, v in base.as_dict().items()})


def safety_config(settings: Settings, base: ModelConfig, overrides: dict) -> ModelConfig:
    return settings.config(base, bounds_for(settings.replication_factor, overrides))


def availability_config(settings: Settings, base: ModelConfig) -> ModelConfig:
    return A.question_config(settings.config(base, A.BOUNDS))


def run_cell(settings: Settings, kind: str, config: ModelConfig, *, cache=None,
             time_limit: float | None = None, max_states: int | None = None,
             names=None) -> CellResult:
    """Check one cell (from ``cache`` if it holds a complete run of it): every invariant
    (``SAFETY``), the availability questions, or ``names`` (``GOAL``)."""
    if names is None:
        names = ([p.name for p in get_properties(None)] if kind == SAFETY
                 else [q.property_name for q in A.QUESTIONS])
    names = list(names)
    identity = {"advise": FORMAT, "kind": kind, "config": config.as_dict(), "properties": names,
                "engine": "compiled"}
    entry = cache.get(identity) if cache is not None else None
    if entry is not None:
        cell = CellResult(settings, kind, config.as_dict(), states=entry["states"],
                          seconds=entry["seconds"], cached=True)
        for v in entry["verdicts"]:
            cell.verdicts[v["name"]] = Verdict(v["name"], v["verdict"], v.get("trace_length"),
                                               v.get("itf"), v.get("answer"))
        return cell
    started = time.monotonic()
    result = check(config, names, engine="compiled", time_limit=time_limit, max_states=max_states)
    cell = CellResult(settings, kind, config.as_dict(), states=result.stats.distinct_states,
                      seconds=time.monotonic() - started, limit=result.limit)
    for p in result.properties:
        trace = p.trace
        answer = None
        if kind == AVAILABILITY:
            answer, trace = _answer(config, p, trace)
        cell.verdicts[p.name] = Verdict(
            p.name, p.verdict, len(trace) if trace is not None else None,
            trace_to_itf(trace, config.as_dict(), engine="compiled") if trace is not None else None,
            answer)
    if cache is not None and result.limit is None:
        cache.put(identity, {
            "states": cell.states, "seconds": round(cell.seconds, 3),
            "verdicts": [{"name": v.name, "verdict": v.verdict, "trace_length": v.trace_length,
                          "itf": v.itf, "answer": v.answer} for v in cell.verdicts.values()],
        })
    return cell


def _answer(config: ModelConfig, prop_result, witness):
    """An availability question's answer, and the trace to show for it."""
    if prop_result.verdict == INCOMPLETE:
        return A.INCOMPLETE, None
    if prop_result.verdict == HOLDS:
        return A.NO, None
    if prop_result.name != A.ACKED_WITHOUT:
        return A.YES, witness
    checked = A.broker_down_first(config, witness)
    return (A.YES, checked) if checked is not None else (A.UNCLEAR, witness)
