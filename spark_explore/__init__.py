"""The Spark engine: the local engine's breadth-first search, sharded across a Spark cluster.

``spark_bfs(model, properties, master=..., partitions=...)`` returns the same ``CheckResult`` as
``checker.bfs.bfs`` (engine ``"spark"``). pyspark is imported only when the engine runs.
"""

from __future__ import annotations


def spark_bfs(model, properties, **options):
    """See ``spark_explore.engine.spark_bfs``."""
    from spark_explore.engine import spark_bfs as run

    return run(model, properties, **options)


__all__ = ["spark_bfs"]
