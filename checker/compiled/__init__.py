"""The compiled engine: breadth-first search over the compiled kernel (``model/kernel``).

``compiled_bfs(config, properties, ...)`` explores a configuration and returns the same
``CheckResult`` as the reference engine (``checker.reference``): same counts, verdicts and shortest
counterexamples, 50-100 times faster in a fraction of the memory, on every core
(``workers``), on disk when memory runs out, and resumable from checkpoints.
"""

from checker.compiled.driver import Coverage, compiled_bfs, default_memory_limit, replay_path
from checker.compiled.warmup import ensure_compiled

__all__ = ["Coverage", "compiled_bfs", "default_memory_limit", "replay_path", "run_compiled"]

OPTIONS = ("memory_limit", "coverage", "notice", "workers", "disk_limit", "disk_dir", "fp_bits",
           "checkpoint_dir", "checkpoint_every", "resume")
"""The keyword options ``--engine compiled`` takes beyond the common ones."""


def run_compiled(config, properties, *, notice=None, **options):
    """``--engine compiled``: compile the kernel first if this installation has not yet (saying
    so through ``notice``), then explore ``config``."""
    ensure_compiled(notice)
    return compiled_bfs(config, properties, **options)
