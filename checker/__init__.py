"""The checker: ``check`` runs any engine of the registry (``checker.engines``) on a
configuration; the reference BFS, stable fingerprints, traces by replay, results.

The local engines join the registry here, in the order ``kmc check --engine`` lists them:
``compiled`` (``checker.compiled``; ``bfs`` is another name for it), ``reference``
(``checker.reference``) and ``bmc`` (``checker.symbolic``, listed after the explicit-state engines).
"""

from checker.api import check
from checker.reference.bfs import bfs, run_reference
from checker.compiled import OPTIONS as COMPILED_OPTIONS, run_compiled
from checker.engines import ENGINES, Engine, engine_choices, get_engine, register_engine
from checker.fingerprint import fingerprint
from checker.result import (
    EXIT_HOLDS, EXIT_INCOMPLETE, EXIT_USAGE, EXIT_VIOLATED, HOLDS, INCOMPLETE, VIOLATED,
    CheckResult, CheckStats, PropertyResult,
)
from checker.symbolic import run_bmc
from checker.trace import NondeterministicModelError, Step, Trace, reconstruct_trace, replay_actions

register_engine("compiled", run_compiled, "local breadth-first search, compiled (bfs is another name for it)",
                aliases=("bfs",), options=COMPILED_OPTIONS)
register_engine("reference", run_reference, "the same search in pure Python, the cross-check")
register_engine("bmc", run_bmc, "z3 bounded model checking", symbolic=True)

__all__ = [
    "ENGINES", "EXIT_HOLDS", "EXIT_INCOMPLETE", "EXIT_USAGE", "EXIT_VIOLATED", "Engine", "HOLDS",
    "INCOMPLETE", "VIOLATED", "CheckResult", "CheckStats", "NondeterministicModelError",
    "PropertyResult", "Step", "Trace", "bfs", "check", "engine_choices", "fingerprint",
    "get_engine", "reconstruct_trace", "register_engine", "replay_actions",
]
