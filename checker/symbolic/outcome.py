"""A k-induction proof's outcome as plain data (``kmc prove``): its status, which engine settled
it, the counterexample to induction (CTI) it met, and the searches that followed the CTI.

Statuses and the exit codes ``kmc prove`` gives them:

* PROVED (0): the inductive step holds: every reachable state within the bounds satisfies the
  property, however long the behaviour (``settled_by`` "induction");
* HOLDS (0): the inductive step failed on a CTI, but BFS of the compiled model explored every
  reachable state within the bounds and none violates the property (``settled_by`` "bfs"): the
  property holds *by exhaustive search*, the CTI is unreachable, and the strengthening
  invariants lack one that rules it out;
* FAILED (1): the base case found a real counterexample (``settled_by`` "base case");
* VIOLATED (1): after a CTI, BFS or BMC found a real counterexample, the kernel's trace
  (``settled_by`` "bfs" or "bmc");
* INCONCLUSIVE (3): a CTI, and no search settled it (none asked, or each stopped at a limit:
  ``searches`` says how far each got);
* UNKNOWN (3): z3 gave up (a time limit); INTERRUPTED (3): SIGINT or SIGTERM.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PROVED, HOLDS, FAILED, VIOLATED, INCONCLUSIVE, UNKNOWN, INTERRUPTED = (
    "PROVED", "HOLDS", "FAILED", "VIOLATED", "INCONCLUSIVE", "UNKNOWN", "INTERRUPTED")
EXIT_CODES = {PROVED: 0, HOLDS: 0, FAILED: 1, VIOLATED: 1}  # anything else: 3, nothing decided


def exit_code(status: str) -> int:
    """``kmc prove``'s exit code for ``status``: 0 holds, 1 violated, 3 nothing decided."""
    return EXIT_CODES.get(status, 3)


@dataclass
class SearchRun:
    """One search for a real counterexample after a CTI, as plain data.

    ``engine``: "bfs" (the compiled kernel's breadth-first search, ``kmc check``'s engine) or
    "bmc" (z3 on the encoding). ``outcome``: "violated", "holds" (BFS only: every reachable
    state was explored) or "stopped" (a limit, named in ``limit``). ``depth``: every behaviour
    of up to ``depth`` steps was examined and none violates the property (when it stopped or
    held; for "violated", the counterexample's length). ``states``: BFS's distinct states."""

    engine: str
    outcome: str
    depth: int
    seconds: float
    states: int = 0
    limit: str | None = None
    collision_probability: float = 0.0  # BFS: TLC's estimate that a fingerprint hid a state
    notes: list = field(default_factory=list)  # BMC: traces of the encoding the kernel refused

    def to_json(self) -> dict:
        return {"engine": self.engine, "outcome": self.outcome, "depth": self.depth,
                "seconds": round(self.seconds, 3), "states": self.states, "limit": self.limit,
                "collision_probability": self.collision_probability, "notes": list(self.notes)}


@dataclass
class ProofResult:
    property_name: str
    strengthen: list
    k: int
    status: str
    seconds: float
    phase: str = ""  # "base", "step" or "search": where it was decided, gave up or was interrupted
    pre: object = None  # CTI: the state before the step
    action: object = None
    post: object = None
    failing: list = field(default_factory=list)  # conjuncts violated in the post state
    trace: object = None  # a real counterexample (base case, or a search after a CTI): the kernel's
    search: str = ""  # after a CTI: what the searches for a real counterexample found, in words
    settled_by: str = ""  # "induction", "base case", "bfs" or "bmc"; "" when nothing was decided
    searches: list = field(default_factory=list)  # SearchRun, in the order they ran
    unbounded: tuple = ()  # the bounds the proof dropped (kmc prove --unbounded, issue 29y)
    selection: dict = field(default_factory=dict)  # --strengthen auto: {"candidates": how many
    # library invariants it chose from, "rounds": [{"seconds", "added": names}]} (inductive_step.py)
    step: dict = field(default_factory=dict)  # how the inductive step was asked: {"mode", "asked":
    # "whole" or "cases", "cases": how many, "switched_at": seconds} (by_case.StepAsker.summary)
    vacuous: bool = False  # it cannot fail here: its formula is true of every state of this
    # configuration (shutting-down-counted without shutdowns), or no-acked-loss with acks=0

    @property
    def exit_code(self) -> int:
        return exit_code(self.status)

    def to_json(self, config: dict | None = None) -> dict:
        """The outcome as plain data (``kmc prove --json``; the proof ledger, ``commands/proofs.py``,
        reads it): the status and exit code, the conjuncts used, where it was decided, the
        searches after a CTI, the real counterexample's trace, and the CTI's step and the
        conjuncts it breaks (its states are shown by the text output only)."""
        out = {"property": self.property_name, "status": self.status, "exit_code": self.exit_code,
               "k": self.k, "invariants": len(self.strengthen), "strengthen": list(self.strengthen),
               "seconds": round(self.seconds, 3), "phase": self.phase,
               "settled_by": self.settled_by, "search": self.search,
               "searches": [s.to_json() for s in self.searches], "unbounded": list(self.unbounded),
               "step": dict(self.step), "selection": dict(self.selection), "vacuous": self.vacuous}
        if self.action is not None:
            out["cti"] = {"action": str(self.action), "violates": list(self.failing)}
        if self.trace is not None:
            out["trace_length"] = len(self.trace.steps)
            out["trace"] = self.trace.to_json()
        if config is not None:
            out["config"] = config
        return out

    @property
    def cti(self) -> bool:
        """Did the inductive step fail (the result carries its counterexample to induction)?"""
        return self.action is not None
