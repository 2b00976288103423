"""The CI invariant gate: ``kmc gate SUITE.toml`` runs a suite of named checks, each a
configuration, its properties and the expected outcome, and exits 0 only if every check matched.

Modules: ``suite`` (loading and validating the TOML suite), ``run`` (running the checks and
judging each result), ``cache`` (skipping checks that passed on the same model source),
``report`` (summary table, JUnit XML, JSON). The ``kmc gate`` command is ``commands/gate.py``.
"""

from gate.suite import CheckSpec, Suite, SuiteError, load_suite
from gate.run import Outcome, exit_code, run_check, run_suite

__all__ = ["CheckSpec", "Outcome", "Suite", "SuiteError", "exit_code", "load_suite", "run_check", "run_suite"]
