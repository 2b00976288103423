"""A simulation's outcome as plain data: the same verdict words as a check, and what was run."""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.result import EXIT_INCOMPLETE, EXIT_VIOLATED, VIOLATED


@dataclass
class Finding:
    """How a violation was found and shortened: walk ``walk`` reached it after ``walk_length``
    steps; delta debugging cut that to ``len(trace)`` steps with ``replays`` replays."""

    property_name: str
    walk: int
    walk_length: int
    shortened_length: int
    replays: int

    def to_json(self) -> dict:
        return {"property": self.property_name, "walk": self.walk, "walk_length": self.walk_length,
                "shortened_length": self.shortened_length, "replays": self.replays}


@dataclass
class SimulationResult:
    """What ``simulate`` did and found.

    ``properties`` holds a ``PropertyResult`` per property: VIOLATED with the shortened trace,
    or INCOMPLETE (a property no walk violated is not verified: random walks cover part of the
    state space only). ``limit`` says what ended the run: "violation", "walks", "time-limit"
    or "interrupted". ``coverage`` rows are ``(action, states enabled in, steps taken)``.
    """

    config: dict
    seed: int
    depth: int
    properties: list
    walks: int = 0
    steps: int = 0
    deadlocks: int = 0
    seconds: float = 0.0  # the whole run: set-up, walks, shortening
    walk_seconds: float = 0.0  # in the compiled walk loop
    limit: str = ""
    coverage: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    engine: str = "simulate"

    @property
    def steps_per_second(self) -> float:
        """Steps a second in the walk loop (set-up and shortening excluded)."""
        return self.steps / self.walk_seconds if self.walk_seconds > 0 else 0.0

    @property
    def exit_code(self) -> int:
        """1 if a property is violated, else 3: no violation found is not a proof."""
        if any(p.verdict == VIOLATED for p in self.properties):
            return EXIT_VIOLATED
        return EXIT_INCOMPLETE

    def to_json(self) -> dict:
        return {
            "engine": self.engine,
            "config": self.config,
            "seed": self.seed,
            "depth": self.depth,
            "walks": self.walks,
            "steps": self.steps,
            "deadlocks": self.deadlocks,
            "seconds": round(self.seconds, 3),
            "walk_seconds": round(self.walk_seconds, 3),
            "steps_per_second": round(self.steps_per_second, 1),
            "limit": self.limit,
            "properties": [p.to_json() for p in self.properties],
            "findings": [f.to_json() for f in self.findings],
            "coverage": [{"action": a, "enabled": e, "taken": t} for a, e, t in self.coverage],
            "exit_code": self.exit_code,
            "notes": list(self.notes),
        }
