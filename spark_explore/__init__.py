"""The Spark engine: the local engine's breadth-first search, sharded across a Spark cluster.

``spark_bfs(model, properties, master=..., partitions=...)`` returns the same ``CheckResult`` as
``checker.bfs.bfs`` (engine ``"spark"``). Importing this package registers it as
``--engine spark`` (``checker.engines``). pyspark is imported only when the engine runs.
"""

from spark_explore.engine import spark_bfs

__all__ = ["spark_bfs"]
