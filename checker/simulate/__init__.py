"""Random simulation: walks through the compiled kernel for configurations beyond exhaustive
reach (TLC's and Apalache's simulation mode).

``simulate(config, properties, seed=..., depth=..., walks=..., time_limit=...)`` returns a
``SimulationResult``: a property a walk violated comes back VIOLATED with the walk shortened by
delta debugging into a readable trace; any other INCOMPLETE (random walks are not a proof).
"""

from checker.simulate.driver import DEFAULT_DEPTH, MAX_DEPTH, simulate
from checker.simulate.result import Finding, SimulationResult

__all__ = ["DEFAULT_DEPTH", "MAX_DEPTH", "Finding", "SimulationResult", "simulate"]
