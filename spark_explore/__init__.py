"""The Spark engine: the compiled engine's breadth-first search, sharded across a Spark cluster.

``spark_bfs(config, properties, master=..., partitions=...)`` returns the same ``CheckResult`` as
``checker.compiled.compiled_bfs`` (engine ``"spark"``). Importing this package registers it as
``--engine spark`` (``checker.engines``). pyspark is imported only when the engine runs.
"""

from spark_explore.engine import spark_bfs

__all__ = ["spark_bfs"]
