"""``advise``: plan the sweep around the user's settings, run its cells, and draw the advice.

The default sweep, chosen to answer within a few minutes on a small machine (each cell is a
complete breadth-first check):

* every operator setting (acks 0/1/all, min.insync.replicas 1..RF, unclean election on/off,
  the two flush policies) at replication factors 2 and 3 (``DEFAULT_REPLICATION_FACTORS``),
  under the user's release;
* the user's own settings under every release in which a protocol rule changed
  (``advise.settings.releases``);
* the user's own settings at their replication factor, if it is not among those swept.

``replication_factors`` sweeps other factors (4 and 5 are far bigger searches: tens of millions
of states a cell at the default bounds, see docs/advise.md), and ``full`` sweeps the whole grid
under every release.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from advise import availability as A
from advise.recommend import (
    BROKEN, KEPT, NOT_MODELLED, UNKNOWN, Change, all_kept, compare, goal_status, stronger_steps,
    weakest,
)
from advise.settings import Release, Settings, grid, releases
from advise.sweep import (
    AVAILABILITY, SAFETY, CellResult, availability_config, bounds_for, run_cells, safety_config,
)
from checker.result import EXIT_HOLDS, EXIT_INCOMPLETE, EXIT_VIOLATED, INTERRUPTED
from model.config import ModelConfig
from model.errors import ConfigError
from properties import get_properties

DEFAULT_REPLICATION_FACTORS = (2, 3)
DEFAULT_GOALS = ("no-acked-loss",)


@dataclass
class Advice:
    """Everything ``kmc advise`` found, as plain data (rendered by ``advise/render.py``)."""

    user: Settings
    goals: list
    replication_factors: list
    grid_releases: list  # the releases the whole grid was swept under
    version_releases: list  # the releases the user's settings were checked under
    bounds: dict  # replication factor -> Bounds
    safety: dict = field(default_factory=dict)  # Settings -> CellResult
    availability: dict = field(default_factory=dict)  # Settings (process crashes) -> CellResult
    weakest: list = field(default_factory=list)  # Settings, per replication factor and release
    changes: list = field(default_factory=list)  # Change, for each step up from a kept cell
    seconds: float = 0.0
    notes: list = field(default_factory=list)
    interrupted: tuple | None = None  # (cells checked, cells planned) when SIGINT/SIGTERM stopped it

    def availability_of(self, s: Settings) -> CellResult | None:
        return self.availability.get(s.but(crash_model="process"))

    def status(self, s: Settings) -> str:
        """The status of all goals together in cell ``s``."""
        return all_kept(goal_status(self.safety.get(s), self.availability_of(s), g, s)
                        for g in self.goals)

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
        return [s for s in grid(replication_factor, release) if s in self.safety]


def check_goals(goals) -> list:
    goals = list(goals) or list(DEFAULT_GOALS)
    allowed = [p.name for p in get_properties(None)] + [q.property_name for q in A.QUESTIONS]
    for g in goals:
        if g not in allowed:
            raise ConfigError(f"--goal {g!r}: choose from {', '.join(allowed)}")
    return list(dict.fromkeys(goals))


def plan(user: Settings, *, replication_factors=None, sweep_releases: bool = True,
         full: bool = False) -> tuple[list, list, list]:
    """The cells to check: ``(safety cells, grid releases, version releases)``."""
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


def advise(config: ModelConfig, *, goals=DEFAULT_GOALS, replication_factors=None,
           bound_overrides: dict | None = None, sweep_releases: bool = True, full: bool = False,
           cache=None, time_limit: float | None = None, max_states: int | None = None,
           progress=None) -> Advice:
    """Sweep the operator's settings around ``config`` (the user's) and advise on ``goals``."""
    started = time.monotonic()
    goals = check_goals(goals)
    overrides = dict(bound_overrides or {})
    user = Settings.of(config)
    cells, grid_releases, version_releases = plan(
        user, replication_factors=replication_factors, sweep_releases=sweep_releases, full=full)
    rfs = sorted({s.replication_factor for s in cells})
    advice = Advice(user, goals, sorted(set(replication_factors or DEFAULT_REPLICATION_FACTORS)),
                    grid_releases, version_releases, {rf: bounds_for(rf, overrides) for rf in rfs})
    jobs = [(s, SAFETY, safety_config(s, config, overrides)) for s in cells]
    asked = list(dict.fromkeys(s.but(crash_model="process") for s in cells))
    jobs += [(s, AVAILABILITY, availability_config(s, config)) for s in asked]
    cells = run_cells(jobs, cache=cache, time_limit=time_limit, max_states=max_states,
                      progress=progress)
    for cell in cells:
        (advice.safety if cell.kind == SAFETY else advice.availability)[cell.settings] = cell
    if len(cells) < len(jobs) or any(c.limit == INTERRUPTED for c in cells):
        # stopped by SIGINT/SIGTERM: the cells not checked would be read as "unknown", and the
        # advice drawn from the rest could name settings it never compared; none is drawn
        done = sum(c.limit != INTERRUPTED for c in cells)
        advice.interrupted = (done, len(jobs))
        advice.notes.append(f"interrupted (SIGINT or SIGTERM) after {done} of {len(jobs)} cells: "
                            "no advice is drawn from a sweep that did not finish")
        advice.seconds = time.monotonic() - started
        return advice
    _draw_advice(advice)
    advice.seconds = time.monotonic() - started
    return advice


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
            if to not in advice.safety:
                continue
            gains, losses = compare(advice.safety[s], advice.availability_of(s),
                                    advice.safety[to], advice.availability_of(to))
            advice.changes.append(Change(s, to, setting, step, advice.status(to), gains, losses,
                                         NOT_MODELLED.get(setting, "")))
    undecided = [s for s in in_grid if advice.status(s) == UNKNOWN]
    if undecided:
        advice.notes.append(
            f"{len(undecided)} cell(s) could not be decided (a limit was hit, or an availability "
            "witness could not be checked); they are left out of the advice")
    if not keeping:
        advice.notes.append("no swept setting keeps the goal within the bounds")
    if advice.user_status == UNKNOWN:
        advice.notes.append("your settings could not be decided: their check hit a limit (raise "
                            "--cell-time-limit or --max-states), or an availability witness "
                            "could not be checked")
    if advice.user_status == BROKEN and keeping:
        advice.notes.append("your settings do not keep the goal; see the weakest settings that do")

