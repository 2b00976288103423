"""``kmc advise --goal no-duplicates`` (``in-order``, ``exactly-once-to-log``): the producer's
settings that keep a delivery goal, and the weakest of them.

The replication sweep (``advise.core``) varies what a broker operator controls; a delivery goal
is decided by the producer: ``enable.idempotence`` and ``max.in.flight.requests.per.connection``
(issue 26). So these goals get a sweep of their own, over the producer's settings only, at the
user's release, brokers and crash model, with the producer retrying (``--retries``, at least 1)
and acks=all (only acks=all requests are retried in the model). The sweep is checked at RF=2
with the user's bounds for RF=2 (by default 2 records, epochs up to 2, a crash, 1 retry): a
duplicate or a reordering needs one leader change or one timeout, which RF=2 has; larger
replication factors are not swept, and the advice says so.

Settings run from weak to strong: without idempotence before with it (idempotence costs a
sequence check and at most 5 requests in flight), more requests in flight before fewer (fewer
cost throughput). The weakest setting that keeps the goal is the advice.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from checker.api import check
from checker.result import HOLDS, INCOMPLETE, VIOLATED
from gate.known import beyond
from model.config import ModelConfig, default_bounds
from model.errors import ConfigError
from viewer.report import beyond_line

DELIVERY_GOALS = ("no-duplicates", "in-order", "exactly-once-to-log")
IN_FLIGHT = (5, 2, 1)  # weak to strong


def is_delivery(goals) -> bool:
    """Are the goals all delivery goals (so the producer's sweep answers them)?"""
    return bool(goals) and all(g in DELIVERY_GOALS for g in goals)


@dataclass(frozen=True)
class ProducerSettings:
    """One cell: the producer's ``enable.idempotence`` and
    ``max.in.flight.requests.per.connection``."""

    enable_idempotence: bool
    max_in_flight: int

    def words(self) -> str:
        return (f"enable.idempotence={str(self.enable_idempotence).lower()} "
                f"max.in.flight.requests.per.connection={self.max_in_flight}")


@dataclass
class DeliveryCell:
    settings: ProducerSettings
    verdicts: dict = field(default_factory=dict)  # goal -> HOLDS / VIOLATED / INCOMPLETE
    refused: str = ""  # the producer or the release refuses the settings (why)
    states: int = 0
    trace: list = field(default_factory=list)  # the first violated goal's actions
    known_beyond: list = field(default_factory=list)  # gate.known.beyond: rows past the bounds

    @property
    def keeps(self) -> bool:
        return not self.refused and all(v == HOLDS for v in self.verdicts.values())


@dataclass
class DeliveryAdvice:
    goals: list
    base: ModelConfig
    user: ProducerSettings
    cells: list
    notes: list = field(default_factory=list)

    @property
    def weakest(self) -> DeliveryCell | None:
        return next((c for c in self.cells if c.keeps), None)

    @property
    def exit_code(self) -> int:
        mine = next(c for c in self.cells if c.settings == self.user)
        if mine.keeps:
            return 0
        if mine.refused or any(v == VIOLATED for v in mine.verdicts.values()):
            return 1
        return 3


def producer_cells() -> list:
    return [ProducerSettings(idem, n) for idem in (False, True) for n in IN_FLIGHT]


def advise_delivery(config: ModelConfig, goals, *, time_limit=None, max_states=None,
                    progress=None) -> DeliveryAdvice:
    """Check every producer setting of ``producer_cells()`` (and the user's) on ``goals``."""
    bounds = default_bounds(2)
    given = config.bounds
    bounds = replace(bounds, max_retries=max(given.max_retries, 1))
    base = replace(config, replication_factor=2, min_insync_replicas=min(config.min_insync_replicas, 2),
                   acks="all", bounds=bounds)
    user = ProducerSettings(config.idempotent, config.max_in_flight_requests_per_connection)
    cells = producer_cells()
    if user not in cells:
        cells.append(user)
    advice = DeliveryAdvice(list(goals), base, user, [])
    if config.acks != "all":
        advice.notes.append(f"acks={config.acks}: the model answers such a request at the append "
                            "(acks=1) or never (acks=0), so it never retries; the producer's "
                            "settings are swept with acks=all")
    for i, s in enumerate(cells, 1):
        cell = DeliveryCell(s)
        try:
            cfg = ModelConfig(**{**_fields(base), "enable_idempotence": s.enable_idempotence,
                                 "max_in_flight_requests_per_connection": s.max_in_flight})
        except ConfigError as e:
            cell.refused = str(e)
        else:
            result = check(cfg, list(goals), time_limit=time_limit, max_states=max_states)
            cell.states = result.stats.distinct_states
            for p in result.properties:
                cell.verdicts[p.name] = p.verdict
                if p.verdict == VIOLATED and not cell.trace and p.trace is not None:
                    cell.trace = [str(a) for a in p.trace.actions]
            # a goal that holds here may be violated by a known-results row at other bounds
            # (KAFKA-3197: one request in flight reorders on 0.9 with a session expiry)
            cell.known_beyond = beyond(cfg, [g for g, v in cell.verdicts.items() if v == HOLDS])
        advice.cells.append(cell)
        if progress:
            progress(i, len(cells), cell)
    return advice


def _fields(config: ModelConfig) -> dict:
    return {f: getattr(config, f) for f in config.__dataclass_fields__}


def render_delivery(advice: DeliveryAdvice) -> str:
    """The sweep as text: one line per setting, the weakest that keeps the goals, the user's."""
    b = advice.base.bounds
    where = (advice.base.kafka_version and f"Kafka {advice.base.kafka_version}") or \
        f"protocol {advice.base.protocol}"
    lines = [f"kmc advise: the producer's settings for {', '.join(advice.goals)} ({where}, RF=2, "
             f"acks=all, min.insync.replicas={advice.base.min_insync_replicas}, crash model "
             f"{advice.base.crash_model}; max-records={b.max_records}, max-leader-epoch="
             f"{b.max_leader_epoch}, max-crashes={b.max_crashes}, retries={b.max_retries})", ""]
    width = max(len(c.settings.words()) for c in advice.cells) + 2
    for c in advice.cells:
        if c.refused:
            status = f"refused: {c.refused}"
        else:
            status = "keeps the goal" if c.keeps else ", ".join(
                f"{g} {v}" for g, v in c.verdicts.items() if v != HOLDS)
            status += f" ({c.states:,} states)"
        mark = " (yours)" if c.settings == advice.user else ""
        lines.append(f"  {c.settings.words():<{width}}{status}{mark}")
        lines += [f"    {beyond_line(e)}" for e in c.known_beyond]
    lines.append("")
    weakest = advice.weakest
    if weakest is None:
        lines.append("No producer setting keeps the goal within these bounds.")
    else:
        lines.append(f"Weakest setting that keeps it: {weakest.settings.words()}."
                     + (" Within these bounds only: a known-results row violates it beyond them "
                        "(above)." if weakest.known_beyond else ""))
    mine = next(c for c in advice.cells if c.settings == advice.user)
    lines.append(f"Yours ({advice.user.words()}): "
                 + ("keeps it." if mine.keeps else "refused by the producer." if mine.refused
                    else "does not keep it: " + " -> ".join(mine.trace) if mine.trace
                    else "not decided (a limit was hit)."))
    lines.append("Checked at RF=2 only: a duplicate or a reordering needs one leader change or one "
                 "request timeout, which RF=2 has; a HOLDS covers these bounds and nothing beyond.")
    lines += [f"note: {n}" for n in advice.notes]
    return "\n".join(lines) + "\n"


__all__ = ["DELIVERY_GOALS", "DeliveryAdvice", "advise_delivery", "is_delivery", "render_delivery",
           "INCOMPLETE"]
