"""The compiled engine: breadth-first search over the compiled kernel (``model/kernel``).

``compiled_bfs(config, properties, ...)`` explores a configuration and returns the same
``CheckResult`` as the reference engine (``checker.reference``): same counts, verdicts and shortest
counterexamples, 50-100 times faster in a fraction of the memory.
"""

from checker.compiled.driver import Coverage, compiled_bfs, default_memory_limit, replay_path
from checker.compiled.warmup import ensure_compiled

__all__ = ["Coverage", "compiled_bfs", "default_memory_limit", "replay_path", "run_compiled"]


def run_compiled(config, properties, *, memory_limit=None, coverage=False, notice=None, **limits):
    """``--engine compiled``: compile the kernel first if this installation has not yet (saying
    so through ``notice``), then explore ``config``."""
    ensure_compiled(notice)
    return compiled_bfs(config, properties, memory_limit=memory_limit, coverage=coverage, **limits)
