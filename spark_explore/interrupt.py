"""Interrupting a Spark run without tracebacks.

On Ctrl-C or SIGTERM (``checker.interrupt``) the driver is usually inside a py4j call, waiting for
a job. Two things could then turn the interruption into something else. pyspark's
``SparkContext`` installs its own SIGINT handler, which calls ``cancelAllJobs`` on the py4j
gateway: when the terminal's SIGINT reaches the whole process group the JVM is going down too,
that call fails, and the run would end as "the Spark job failed" (exit 2) instead of INCOMPLETE;
so ``spark_bfs`` puts kmc's handler back once the context exists
(``checker.interrupt.reclaim_signals``). And py4j logs the broken call with
``logging.exception`` on the root logger (so, with no handler configured, on stderr):
``quiet_py4j`` sends those records to Spark's log file for the length of the run. The
interruption then reaches ``checker.check`` as a ``KeyboardInterrupt`` (or as a py4j error
raised after the signal was recorded, which it treats the same), which reports the statistics
of the last finished level, every property INCOMPLETE (exit code 3); ``spark_bfs`` stops the
context on the way out, which cancels the running jobs.
"""

from __future__ import annotations

import contextlib
import logging

from spark_explore.session import spark_log_path


@contextlib.contextmanager
def quiet_py4j():
    """Route the root logger's records (py4j's) to Spark's log file while the block runs."""
    root = logging.getLogger()
    try:
        handler = logging.FileHandler(spark_log_path())
    except OSError:
        handler = logging.NullHandler()
    root.addHandler(handler)  # with a handler present, logging never adds its stderr one
    try:
        yield
    finally:
        root.removeHandler(handler)
        handler.close()
