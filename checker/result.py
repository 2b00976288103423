"""Results as plain data: every front end (CLI, gate, viewer) renders these, and they
serialise to JSON."""

from __future__ import annotations

from dataclasses import dataclass, field

HOLDS = "HOLDS"
VIOLATED = "VIOLATED"
INCOMPLETE = "INCOMPLETE"

EXIT_HOLDS, EXIT_VIOLATED, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3
EXIT_INTERNAL = 70
"""An unexpected exception: a bug in kmc, not a verdict (``EX_SOFTWARE`` of sysexits.h), so a CI
never mistakes "kmc broke" for "kmc found a violation" (1) or "bad input" (2)."""

ANY = "any"  # a bound forgotten by ``kmc check --unbounded``: every number of it
INTERRUPTED = "interrupted"  # the ``limit`` of a run stopped by SIGINT or SIGTERM

BOUND_WORDS = {
    "max_records": "records", "max_leader_epoch": "leader epochs", "max_crashes": "crashes",
    "max_unflushed_losses": "crashes that lose data", "max_controlled_shutdowns":
    "controlled shutdowns", "max_session_expiries": "session expiries",
    "max_controller_failovers": "controller failovers", "max_delayed_fetches": "delayed fetches",
    "max_retries": "producer retries", "max_consumer_restarts": "consumer restarts",
    "max_producer_epoch_bumps": "producer epoch bumps",
    "max_stale_metadata_reads": "stale metadata reads",
}


def scope_words(config: dict) -> str:
    """What a verdict covers, in words: "records <= 2, leader epochs <= 2, crashes <= 1, process
    crashes" (the fault bounds only when on; crashes that lose data only when a crash can)."""
    bounds = config.get("bounds", {})
    crash = config.get("crash.model", "process")
    parts = []
    for key, words in BOUND_WORDS.items():
        value = bounds.get(key)
        if value is None:
            continue
        if key == "max_unflushed_losses" and (crash == "process" or not bounds.get("max_crashes")):
            continue
        if key not in ("max_records", "max_leader_epoch", "max_crashes", "max_unflushed_losses") and not value:
            continue
        if value == ANY:  # kmc check --unbounded (checker/unbounded.py)
            parts.append(f"any number of {words}")
            continue
        parts.append(f"{words} <= {value}")
    if bounds.get("max_waiting_requests") is not None:
        parts.append(f"at most {bounds['max_waiting_requests']} LeaderAndIsr requests waiting "
                     "for one broker")
    return ", ".join(parts) + f", {crash} crashes"


def scope_of(config: dict) -> dict:
    """A result's scope as data: its bounds and crash model, and the sentence a HOLDS stands
    for."""
    return {
        "bounds": dict(config.get("bounds", {})),
        "crash_model": config.get("crash.model"),
        "holds_means": f"holds for every behaviour within {scope_words(config)}; larger bounds "
                       "are not checked",
    }


@dataclass
class CheckStats:
    """TLC's words: states generated (successors computed, duplicates included), distinct states,
    depth (steps from an initial state to the deepest state reached), queue (states left
    unexplored when the run ended)."""

    states_generated: int = 0
    distinct_states: int = 0
    depth: int = 0
    queue: int = 0
    seconds: float = 0.0
    collision_probability: float = 0.0
    memory_bytes: int = 0  # peak resident memory of the run (0 if not measured)
    structure_bytes: int = 0  # fingerprint table + parent index (compiled engine)
    disk_bytes: int = 0  # the compiled engine's files: fingerprints, frontier, parents (peak)
    eta_seconds: float | None = None  # a progress report's estimate of the time left
    levels_growing: bool = False  # a progress report: the level being built outgrows the last
    activity: str | None = None  # a progress report during a long pause in the search (a merge to disk)

    @property
    def states_per_second(self) -> float:
        return self.distinct_states / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        return {
            "states_generated": self.states_generated,
            "distinct_states": self.distinct_states,
            "depth": self.depth,
            "queue": self.queue,
            "seconds": round(self.seconds, 3),
            "states_per_second": round(self.states_per_second, 1),
            "collision_probability": self.collision_probability,
            **({"memory_bytes": self.memory_bytes} if self.memory_bytes else {}),
            **({"structure_bytes": self.structure_bytes,
                "bytes_per_state": round(self.structure_bytes / max(self.distinct_states, 1), 1)}
               if self.structure_bytes else {}),
            **({"disk_bytes": self.disk_bytes,
                "disk_bytes_per_state": round(self.disk_bytes / max(self.distinct_states, 1), 1)}
               if self.disk_bytes else {}),
        }


@dataclass
class PropertyResult:
    """The verdict on one property, with the shortest counterexample when VIOLATED.

    ``reported_only``: a stronger invariant than Kafka promises that came with the default set
    (``properties.reported_only``): its verdict is shown but does not decide the exit code."""

    name: str
    verdict: str
    trace: object = None  # checker.trace.Trace
    reported_only: bool = False

    def to_json(self) -> dict:
        out = {"property": self.name, "verdict": self.verdict, "reported_only": self.reported_only}
        if self.trace is not None:
            out["trace_length"] = len(self.trace.steps)
            out["trace"] = self.trace.to_json()
        return out


@dataclass
class CheckResult:
    """A run's outcome: one verdict per property, statistics, configuration and bounds.

    ``limit`` names the limit that cut the search short ("max-states", "time-limit",
    "max-depth", "memory-limit", or "interrupted" for SIGINT/SIGTERM), or is None when the
    reachable state space within the bounds was exhausted.
    """

    engine: str
    config: dict
    properties: list
    stats: CheckStats
    limit: str | None = None
    notes: list = field(default_factory=list)
    coverage: object = None  # per-action coverage (``kmc check --coverage``), or None
    known_beyond: list = field(default_factory=list)  # known losses beyond the bounds (dicts)

    @property
    def interrupted(self) -> bool:
        return self.limit == INTERRUPTED

    @property
    def exit_code(self) -> int:
        """0 every property holds, 1 one is violated, 3 incomplete. An interrupted run is 3 even
        if it found a violation first: a run that was asked to stop is not a verdict to trust
        (the violation is still reported, with its trace). Verdicts reported only (stronger
        invariants of the default set) do not count."""
        if self.interrupted:
            return EXIT_INCOMPLETE
        verdicts = {p.verdict for p in self.properties if not p.reported_only}
        if VIOLATED in verdicts:
            return EXIT_VIOLATED
        if INCOMPLETE in verdicts:
            return EXIT_INCOMPLETE
        return EXIT_HOLDS

    def verdict(self, name: str) -> str:
        return self.by_name(name).verdict

    def by_name(self, name: str) -> PropertyResult:
        for p in self.properties:
            if p.name == name:
                return p
        raise KeyError(name)

    def to_json(self) -> dict:
        return {
            "engine": self.engine,
            "config": self.config,
            "limit": self.limit,
            "complete": self.limit is None,
            "stats": self.stats.to_json(),
            "properties": [p.to_json() for p in self.properties],
            "exit_code": self.exit_code,
            "scope": scope_of(self.config),
            "known_beyond": list(self.known_beyond),
            "notes": list(self.notes),
            **({"coverage": self.coverage.to_json()} if self.coverage is not None else {}),
        }
