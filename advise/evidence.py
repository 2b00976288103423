"""The bounds each cell of ``kmc advise`` is checked at: at least those at which the
known-results suite finds a loss.

A HOLDS is only as good as its bounds. kmc 0.1's sweep checked RF=3 cells with leader epochs up
to 1 and recommended ``min.insync.replicas=1`` (lost under power loss at epochs up to 2) and
unclean election (lost with two crashes). So the goal of every cell is checked at a set of
*corners*: kmc's default bounds for the replication factor (or the bounds the user gave), and
the bounds of every known-results row at that replication factor that violates the goal
(``gate.known``: the suite, not a list typed here). Only the maximal corners are kept: bounds
that include another corner's include every behaviour within it. A cell keeps the goal only if
it holds at every corner; a corner that cannot be checked (a limit, an interruption) leaves the
cell "not refuted within" the corners that were, never kept.

Every row of the replication factor counts, whatever its release or settings: a loss the suite
finds in one family is a reason to look as far in every other. That is more than "the losses
each setting is known for" (a row of a stronger setting of the same release), and costs little:
a cell that has the loss stops at its counterexample, and the corners are few (RF=3 today:
leader epochs up to 3 with two records and no crash, the follower-LEO finding, and two crashes
with epochs up to 2, the unclean election).
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.known import covers, known_losses
from model.config import Bounds
from model.estimate import estimated_states

DEFAULT_BOUNDS = "kmc's default bounds"
USER_BOUNDS = "the bounds you gave"


@dataclass(frozen=True)
class Corner:
    """Bounds a cell's goal is checked at, and why: the known-results rows (and kmc's default
    bounds) whose behaviours they include."""

    bounds: Bounds
    why: tuple = ()

    def words(self) -> str:
        b = self.bounds
        faults = "".join(f", {k.replace('_', '-')}={v}" for k, v in b.faults().items())
        return (f"max-records={b.max_records}, max-leader-epoch={b.max_leader_epoch}, "
                f"max-crashes={b.max_crashes}{faults}")

    def short(self) -> str:
        """``(records, epochs, crashes)`` for a table cell."""
        b = self.bounds
        faults = "".join(f",{v}" for v in b.faults().values())
        return f"({b.max_records},{b.max_leader_epoch},{b.max_crashes}{faults})"

    def to_json(self) -> dict:
        return {"bounds": self.bounds.as_dict(), "covers": list(self.why)}


def corners(goals, replication_factor: int, base: Bounds, *, base_why: str = DEFAULT_BOUNDS,
            losses=None) -> list[Corner]:
    """The maximal corners for ``goals`` (invariant names) at ``replication_factor``: ``base``
    and the bounds of every known loss of a goal at that replication factor, cheapest first."""
    found = [(base, base_why)] + [
        (loss.bounds, loss.name) for loss in (known_losses() if losses is None else losses)
        if loss.prop in goals and loss.config.replication_factor == replication_factor]
    unique = list(dict.fromkeys(b for b, _ in found))
    maximal = [b for b in unique if not any(o != b and covers(o, b) for o in unique)]
    out = [Corner(b, tuple(dict.fromkeys(why for other, why in found if covers(b, other))))
           for b in maximal]
    return sorted(out, key=lambda c: (_cost(replication_factor, c.bounds), c.short()))


def _cost(replication_factor: int, bounds: Bounds) -> float:
    return estimated_states(replication_factor, bounds.max_records, bounds.max_leader_epoch,
                            bounds.max_crashes)
