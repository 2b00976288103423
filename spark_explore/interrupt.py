"""Interrupting a Spark run without tracebacks.

On Ctrl-C or SIGTERM (``checker.interrupt``) the driver is usually inside a py4j call, waiting for
a job. Two things then print Python tracebacks that are not errors of kmc: pyspark's own SIGINT
handler, which calls ``cancelAllJobs`` on the py4j connection the interrupted call is still using
(a "reentrant call"), and py4j, which logs the broken call with ``logging.exception`` on the root
logger (and so, with no handler configured, on stderr). ``quiet_py4j`` sends those log records to
Spark's log file for the length of the run; the interruption itself then reaches
``checker.check`` as a ``KeyboardInterrupt``, which reports the statistics of the last finished
level, every property INCOMPLETE (exit code 3), and ``spark_bfs`` stops the context on the way
out (which cancels the running jobs).
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
