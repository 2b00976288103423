"""The explicit-state checker: BFS over a model, stable fingerprints, traces by replay; ``check``
runs any engine of the registry (``checker.engines``)."""

from checker.api import check
from checker.bfs import bfs
from checker.engines import ENGINES, Engine, get_engine, register_engine
from checker.fingerprint import fingerprint
from checker.result import (
    EXIT_HOLDS, EXIT_INCOMPLETE, EXIT_USAGE, EXIT_VIOLATED, HOLDS, INCOMPLETE, VIOLATED,
    CheckResult, CheckStats, PropertyResult,
)
from checker.trace import NondeterministicModelError, Step, Trace, reconstruct_trace, replay_actions
from checker import symbolic as _symbolic  # noqa: F401  (registers the bmc engine; z3 loads only when it runs)

__all__ = [
    "ENGINES", "EXIT_HOLDS", "EXIT_INCOMPLETE", "EXIT_USAGE", "EXIT_VIOLATED", "Engine", "HOLDS",
    "INCOMPLETE", "VIOLATED", "CheckResult", "CheckStats", "NondeterministicModelError",
    "PropertyResult", "Step", "Trace", "bfs", "check", "fingerprint", "get_engine",
    "reconstruct_trace", "register_engine", "replay_actions",
]
