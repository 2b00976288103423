"""``advise``: plan the sweep around the user's settings, check its cells, and draw the advice.

The sweep (each cell a complete breadth-first check, or left undecided and said so):

* every operator setting (acks 0/1/all, min.insync.replicas 1..RF, unclean election on/off,
  the two flush policies) at replication factors 2 and 3 (``DEFAULT_REPLICATION_FACTORS``),
  under the user's release;
* the user's own settings under every release in which a protocol rule changed
  (``advise.settings.releases``);
* the user's own settings at their replication factor, if it is not among those swept.

What a cell's verdict rests on (``Evidence``): its goal is checked at every corner of
``advise.evidence.corners`` (kmc's default bounds and the bounds of every loss the
known-results suite finds at that replication factor), stopping at the first counterexample.
It keeps the goal only if every corner was checked to the end and held; a corner left
unfinished (a limit) makes it "not refuted within" the corners that were, never "kept". A
setting whose goal is about acknowledged records and whose producer uses ``acks=0`` is vacuous
and not checked. Then, for the cells that keep the goal and the user's, every invariant at the
base bounds and the availability questions, for the table and for what stronger settings
change.

Two relations between settings save checks, both argued in docs/advise.md (``_decided_by``):
every behaviour under process crashes is one under power-loss crashes too (flush the log, then
crash), so a power-loss cell is refuted at every corner where its process-crash twin is; and at
a corner with no crash (nor session expiry, nor controlled shutdown) unclean election and the
flush policy change no behaviour, so one check answers for the four settings that differ only
in them. Nothing else is pruned: with KIP-966 a larger ``min.insync.replicas`` puts more
replicas in the ELR, and unclean election, when a crash lets it happen, replaces a leaderless
partition, so neither order includes the other's behaviours.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from advise import availability as A
from advise.evidence import DEFAULT_BOUNDS, USER_BOUNDS, Corner, corners
from advise.recommend import (
    BROKEN, KEPT, NOT_MODELLED, UNKNOWN, VACUOUS, Change, all_kept, compare,
    stronger_steps, weakest,
)
from advise.settings import Release, Settings, grid, releases
from advise.sweep import (
    AVAILABILITY, DEFAULT_CELL_MAX_STATES, GOAL, SAFETY, CellResult, availability_config,
    bounds_for, run_cell, safety_config,
)
from checker.interrupt import interrupted
from gate.known import known_losses
from checker.result import EXIT_HOLDS, EXIT_INCOMPLETE, EXIT_VIOLATED, INTERRUPTED, VIOLATED
from model.config import ModelConfig
from model.bounded import shown
from model.errors import ConfigError
from properties import get_properties, vacuous_with_acks
from properties.liveness import LIVENESS  # advised on a sweep of their own (advise/liveness.py)

DEFAULT_REPLICATION_FACTORS = (2, 3)
DEFAULT_GOALS = ("no-acked-loss",)


@dataclass
class CornerCheck:
    """The goal at one corner of a cell: the check run there, or the check of another setting
    that decides it (``by``, ``how``: "dominance" or "equivalence", docs/advise.md)."""

    corner: Corner
    cell: CellResult | None = None
    by: Settings | None = None
    how: str = ""
    twin: "CornerCheck | None" = None  # the other setting's check at the same corner

    @property
    def violated(self) -> list:
        if self.twin is not None:
            return self.twin.violated
        if self.cell is None:
            return []
        return [v for v in self.cell.verdicts.values() if v.verdict == VIOLATED]

    @property
    def finished(self) -> bool:
        if self.twin is not None:
            return self.twin.finished
        return self.cell is not None and (self.cell.limit is None or bool(self.violated))


@dataclass
class Evidence:
    """What a cell's goal status rests on: the corners checked, in order, and those left."""

    settings: Settings
    status: str  # KEPT, BROKEN, UNKNOWN (not refuted, not kept) or VACUOUS
    checks: list = field(default_factory=list)  # CornerCheck, as run
    unchecked: list = field(default_factory=list)  # Corner not reached (refuted before, or not run)

    def at(self, corner: Corner) -> CornerCheck | None:
        return next((c for c in self.checks if c.corner == corner), None)

    @property
    def refuted_at(self) -> CornerCheck | None:
        return next((c for c in self.checks if c.violated), None)

    @property
    def held_within(self) -> list:
        """The corners checked to the end without a counterexample."""
        return [c.corner for c in self.checks if c.finished and not c.violated]

    @property
    def unfinished(self) -> list:
        return [c for c in self.checks if not c.finished]

    def to_json(self) -> dict:
        out = {"status": self.status, "corners": []}
        for c in self.checks:
            entry = {**c.corner.to_json(), "finished": c.finished,
                     "violated": [v if isinstance(v, str) else v.name for v in c.violated]}
            if c.by is not None:
                entry["decided_by"] = {"how": c.how, "settings": c.by.to_json()}
            if c.cell is not None:
                entry["check"] = c.cell.to_json()
            out["corners"].append(entry)
        out["not_checked"] = [c.to_json() for c in self.unchecked]
        return out


@dataclass
class Advice:
    """Everything ``kmc advise`` found, as plain data (rendered by ``advise/render.py``)."""

    user: Settings
    goals: list
    replication_factors: list
    grid_releases: list  # the releases the whole grid was swept under
    version_releases: list  # the releases the user's settings were checked under
    bounds: dict  # replication factor -> Bounds (the base corner)
    corners: dict = field(default_factory=dict)  # replication factor -> [Corner]
    evidence: dict = field(default_factory=dict)  # Settings -> Evidence (invariant goals)
    safety: dict = field(default_factory=dict)  # Settings -> CellResult (every invariant, base bounds)
    availability: dict = field(default_factory=dict)  # Settings (process crashes) -> CellResult
    cells: list = field(default_factory=list)  # every Settings swept, in order
    weakest: list = field(default_factory=list)  # Settings, per replication factor and release
    changes: list = field(default_factory=list)  # Change, for each step up from a kept cell
    seconds: float = 0.0
    checks: int = 0  # checks run (not from the cache)
    cached: int = 0  # checks answered from the cache
    states: int = 0  # distinct states the checks run explored
    dominated: int = 0  # corners decided by another setting's check (dominance, equivalence)
    notes: list = field(default_factory=list)
    interrupted: tuple | None = None  # (cells decided, cells planned) when SIGINT/SIGTERM stopped it

    @property
    def invariant_goals(self) -> list:
        return [g for g in self.goals if g not in A.BY_NAME]

    def availability_of(self, s: Settings) -> CellResult | None:
        return self.availability.get(s.but(crash_model="process"))

    def goal_status(self, s: Settings, goal: str) -> str:
        question = A.BY_NAME.get(goal)
        if question is not None:
            cell = self.availability_of(s)
            verdict = cell.verdicts.get(goal) if cell else None
            if verdict is None or verdict.answer not in (A.YES, A.NO):
                return UNKNOWN
            return KEPT if verdict.answer == question.good else BROKEN
        evidence = self.evidence.get(s)
        return evidence.status if evidence is not None else UNKNOWN

    def status(self, s: Settings) -> str:
        """The status of all goals together in cell ``s``."""
        return all_kept(self.goal_status(s, g) for g in self.goals)

    @property
    def user_status(self) -> str:
        return self.status(self.user)

    @property
    def exit_code(self) -> int:
        """0: the user's settings keep the goals; 1: they do not; 3: not decided (or the sweep
        was interrupted)."""
        if self.interrupted:
            return EXIT_INCOMPLETE
        status = self.user_status
        if status == KEPT:
            return EXIT_HOLDS
        if status == UNKNOWN:
            return EXIT_INCOMPLETE
        return EXIT_VIOLATED

    def grid_cells(self, replication_factor: int, release: Release) -> list[Settings]:
        return [s for s in grid(replication_factor, release) if s in self.cells]

    def all_checks(self) -> list:
        """Every check's ``CellResult``: goal checks, safety and availability checks."""
        cells = [c.cell for e in self.evidence.values() for c in e.checks if c.cell is not None]
        return cells + list(self.safety.values()) + list(self.availability.values())

    def kept_within(self, s: Settings) -> list:
        """The corners ``s``'s goal held at (all of them when it keeps the goal)."""
        evidence = self.evidence.get(s)
        return evidence.held_within if evidence else []


def check_goals(goals) -> list:
    goals = list(goals) or list(DEFAULT_GOALS)
    allowed = [p.name for p in get_properties(None)] + [q.property_name for q in A.QUESTIONS]
    for g in goals:
        if g not in allowed:
            from advise.delivery import DELIVERY_GOALS  # the producer's goals, swept apart
            raise ConfigError(f"--goal {shown(g)}: choose from {', '.join(allowed)}, one of "
                              f"the producer's goals {', '.join(DELIVERY_GOALS)}, or a liveness "
                              f"property {', '.join(LIVENESS)}")
    return list(dict.fromkeys(goals))


def plan(user: Settings, *, replication_factors=None, sweep_releases: bool = True,
         full: bool = False) -> tuple[list, list, list]:
    """The cells to check: ``(cells, grid releases, version releases)``."""
    rfs = sorted(set(replication_factors or DEFAULT_REPLICATION_FACTORS))
    for rf in rfs:
        if not 2 <= rf <= 5:
            raise ConfigError(f"--replication-factors: {rf} is not between 2 and 5")
    all_releases = list(releases())
    grid_releases = all_releases if full else [user.release]
    version_releases = all_releases if sweep_releases else []
    cells = [s for rf in rfs for rel in grid_releases for s in grid(rf, rel)]
    cells += [user.but(release=rel) for rel in version_releases]
    cells.append(user)
    return list(dict.fromkeys(cells)), grid_releases, version_releases


def _vacuous(s: Settings, goals) -> bool:
    """Every goal is about acknowledged records and the producer asks for no acknowledgement."""
    return bool(goals) and all(vacuous_with_acks(g, s.acks) for g in goals)


def _order(cells: list) -> list:
    """Process-crash, clean-election cells first: their checks may decide their twins'
    (``_decided_by``)."""
    return sorted(cells, key=lambda s: (s.crash_model != "process", s.unclean_leader_election_enable))


def _no_crash(corner: Corner) -> bool:
    """At these bounds no broker is ever down or fenced: no crash, no session expiry, no
    controlled shutdown. The controller then never elects from outside the ISR (its only
    election without a failure is a preferred one, from the ISR), so unclean election changes
    nothing; and no crash means the flush policy changes nothing either."""
    b = corner.bounds
    return b.max_crashes == 0 and not b.max_session_expiries and not b.max_controlled_shutdowns


def _decided_by(s: Settings, corner: Corner, advice: "Advice"):
    """``(check, settings, how)``: another setting's finished check that decides ``s``'s goal at
    ``corner`` without a check of its own, or None. Equivalence: at a corner without crashes,
    the settings that differ only in unclean election and flush policy have the same behaviours.
    Dominance: a counterexample with process crashes is a behaviour with power-loss crashes too
    (flush, then crash), so it refutes the power-loss twin."""
    if _no_crash(corner):
        for unclean in (False, True):
            for crash in ("process", "power-loss"):
                twin = s.but(unclean_leader_election_enable=unclean, crash_model=crash)
                found = advice.evidence.get(twin)
                check = found.at(corner) if found is not None and twin != s else None
                if check is not None and check.finished:
                    return check, twin, "equivalence"
    if s.crash_model == "power-loss":
        twin = s.but(crash_model="process")
        found = advice.evidence.get(twin)
        check = found.at(corner) if found is not None else None
        if check is not None and check.violated:
            return check, twin, "dominance"
    return None


def _corner_order(s: Settings, found: list) -> list:
    """The corners to try first: those of a known loss closest to ``s`` (the same rules and
    crash model count double, then each setting apart), then the cheapest (``corners``' order).
    Only the order, and so the time, depends on it: every corner is checked until one refutes."""
    losses = {loss.name: loss for loss in known_losses()}
    rules = None

    def distance(corner: Corner) -> int:
        nonlocal rules
        best = 99
        for name in corner.why:
            loss = losses.get(name)
            if loss is None:
                continue
            c = loss.config
            if rules is None:
                rules = _rules_of(s)
            apart = (2 if tuple(c.rules) != rules else 0) + 2 * (c.crash_model != s.crash_model) + sum((
                c.acks != s.acks, c.min_insync_replicas != s.min_insync_replicas,
                c.unclean_leader_election_enable != s.unclean_leader_election_enable))
            best = min(best, apart)
        return best

    return sorted(found, key=lambda corner: distance(corner))  # stable: cheapest first within


_RULES: dict = {}


def _rules_of(s: Settings) -> tuple:
    key = s.release
    if key not in _RULES:
        _RULES[key] = tuple(ModelConfig(protocol=s.release.protocol,
                                        kafka_version=s.release.kafka_version).rules)
    return _RULES[key]


def advise(config: ModelConfig, *, goals=DEFAULT_GOALS, replication_factors=None,
           bound_overrides: dict | None = None, sweep_releases: bool = True, full: bool = False,
           cache=None, time_limit: float | None = None, max_states: int | None = None,
           progress=None) -> Advice:
    """Sweep the operator's settings around ``config`` (the user's) and advise on ``goals``.
    ``progress(i, n, evidence)`` is called after each cell's goal is decided."""
    started = time.monotonic()
    goals = check_goals(goals)
    overrides = {k: v for k, v in (bound_overrides or {}).items() if v is not None}
    user = Settings.of(config)
    cells, grid_releases, version_releases = plan(
        user, replication_factors=replication_factors, sweep_releases=sweep_releases, full=full)
    rfs = sorted({s.replication_factor for s in cells})
    advice = Advice(user, goals, sorted(set(replication_factors or DEFAULT_REPLICATION_FACTORS)),
                    grid_releases, version_releases, {rf: bounds_for(rf, overrides) for rf in rfs},
                    cells=cells)
    max_states = max_states or DEFAULT_CELL_MAX_STATES
    invariant_goals = advice.invariant_goals
    why = USER_BOUNDS if overrides else DEFAULT_BOUNDS
    advice.corners = {rf: corners(invariant_goals, rf, advice.bounds[rf], base_why=why)
                      for rf in rfs} if invariant_goals else {}

    def run(s, kind, cfg, names=None):
        cell = run_cell(s, kind, cfg, cache=cache, time_limit=time_limit, max_states=max_states,
                        names=names)
        if cell.cached:
            advice.cached += 1
        else:
            advice.checks += 1
            advice.states += cell.states
        return cell

    def stop(decided: int) -> Advice:
        advice.interrupted = (decided, len(cells))
        advice.notes.append(f"interrupted (SIGINT or SIGTERM) after {decided} of {len(cells)} "
                            "cells: no advice is drawn from a sweep that did not finish")
        advice.seconds = time.monotonic() - started
        return advice

    decided = [0]

    def sweep() -> Advice | None:
        # 1. the goal of every cell, at every corner
        for i, s in enumerate(_order(cells), 1):
            decided[0] = i - 1
            if interrupted():
                return stop(i - 1)
            if invariant_goals:
                evidence = _goal_evidence(s, config, advice, invariant_goals, run)
                advice.evidence[s] = evidence
                if any(c.cell is not None and c.cell.limit == INTERRUPTED for c in evidence.checks):
                    return stop(i - 1)
            if progress is not None:
                progress(i, len(cells), advice, s)
        decided[0] = len(cells)
        # 2. availability (for the cells that keep the goal and the user's) and every invariant
        # (for the cells that keep the goal: what a stronger setting changes)
        need_availability = [s for s in cells if any(g in A.BY_NAME for g in goals)
                             or advice.status(s) == KEPT or s == user]
        for s in dict.fromkeys(x.but(crash_model="process") for x in need_availability):
            if interrupted():
                return stop(len(cells))
            advice.availability[s] = run(s, AVAILABILITY, availability_config(s, config))
        for s in [x for x in cells if advice.status(x) == KEPT]:
            if interrupted():
                return stop(len(cells))
            advice.safety[s] = run(s, SAFETY, safety_config(s, config, overrides))
            if advice.safety[s].limit == INTERRUPTED:
                return stop(len(cells))
        return None

    # A signal can land anywhere in the main thread (between two cells, in a progress line,
    # in a cell no engine runs for): wherever it lands, the sweep stops the same way.
    try:
        stopped = sweep()
    except KeyboardInterrupt:
        return stop(decided[0])
    if stopped is not None:
        return stopped
    _draw_advice(advice)
    advice.seconds = time.monotonic() - started
    return advice


def _goal_evidence(s: Settings, base: ModelConfig, advice: Advice, goals: list, run) -> Evidence:
    """Check ``s``'s invariant goals at its corners until one is violated: first the corners
    another setting's check decides, then the rest (``_corner_order``)."""
    if _vacuous(s, goals):
        return Evidence(s, VACUOUS)
    ordered = _corner_order(s, advice.corners[s.replication_factor])
    decided = {c: _decided_by(s, c, advice) for c in ordered}
    # a free refutation first, then the other free answers, then the checks to run
    ordered.sort(key=lambda c: (0 if decided[c] and decided[c][0].violated else
                                1 if decided[c] else 2))
    evidence = Evidence(s, KEPT)
    for n, corner in enumerate(ordered):
        if decided[corner] is not None:
            twin_check, twin, how = decided[corner]
            check = CornerCheck(corner, by=twin, how=how, twin=twin_check)
            advice.dominated += 1
        else:
            check = CornerCheck(corner, run(s, GOAL, s.config(base, corner.bounds), goals))
        evidence.checks.append(check)
        if check.violated:
            evidence.status = BROKEN
            evidence.unchecked = ordered[n + 1:]
            return evidence
        if check.cell is not None and check.cell.limit == INTERRUPTED:
            evidence.status = UNKNOWN
            evidence.unchecked = ordered[n + 1:]
            return evidence
    if evidence.unfinished:
        evidence.status = UNKNOWN
    return evidence


def _draw_advice(advice: Advice) -> None:
    in_grid = [s for rel in advice.grid_releases for rf in advice.replication_factors
               for s in grid(rf, rel)]
    keeping = [s for s in in_grid if advice.status(s) == KEPT]
    for rel in advice.grid_releases:  # the weakest at each replication factor and release
        for rf in advice.replication_factors:
            advice.weakest += weakest([s for s in keeping
                                       if s.replication_factor == rf and s.release == rel])
    for s in keeping:  # every step up from a setting that keeps the goal
        for setting, step, to in stronger_steps(s, advice.replication_factors):
            if to not in advice.cells:
                continue
            gains, losses = compare(advice.safety.get(s), advice.availability_of(s),
                                    advice.safety.get(to), advice.availability_of(to))
            advice.changes.append(Change(s, to, setting, step, advice.status(to), gains, losses,
                                         NOT_MODELLED.get(setting, "")))
    undecided = [s for s in in_grid if advice.status(s) == UNKNOWN]
    if undecided:
        advice.notes.append(
            f"{len(undecided)} setting(s) not refuted but not kept: a corner was not checked to "
            "the end (a limit was hit), or an availability witness could not be checked; they "
            "are listed apart and never among the settings that keep the goal")
    for rf in advice.replication_factors:
        for rel in advice.grid_releases:
            if not any(s.replication_factor == rf and s.release == rel for s in keeping):
                advice.notes.append(f"no swept setting at replication.factor={rf} ({rel.label}) "
                                    "keeps the goal at the bounds of the known losses")
    if advice.user_status == UNKNOWN:
        advice.notes.append("your settings could not be decided: a corner of their bounds was not "
                            "checked to the end (raise --cell-time-limit or --max-states), or an "
                            "availability witness could not be checked")
    if advice.user_status == BROKEN and keeping:
        advice.notes.append("your settings do not keep the goal; see the weakest settings that do")
