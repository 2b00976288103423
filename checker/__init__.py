"""The explicit-state checker: BFS over a model, stable fingerprints, traces by replay."""

from checker.api import ENGINES, check
from checker.bfs import bfs
from checker.fingerprint import fingerprint
from checker.result import (
    EXIT_HOLDS, EXIT_INCOMPLETE, EXIT_USAGE, EXIT_VIOLATED, HOLDS, INCOMPLETE, VIOLATED,
    CheckResult, CheckStats, PropertyResult,
)
from checker.trace import NondeterministicModelError, Step, Trace, reconstruct_trace, replay_actions

__all__ = [
    "ENGINES", "EXIT_HOLDS", "EXIT_INCOMPLETE", "EXIT_USAGE", "EXIT_VIOLATED", "HOLDS",
    "INCOMPLETE", "VIOLATED", "CheckResult", "CheckStats", "NondeterministicModelError",
    "PropertyResult", "Step", "Trace", "bfs", "check", "fingerprint", "reconstruct_trace",
    "replay_actions",
]
