"""``kmc advise``: which settings keep an operator's data safe, and what they cost.

``advise(config, goals=...)`` sweeps what an operator controls (acks, min.insync.replicas,
unclean leader election, the flush policy, the replication factor, the Kafka release) around
the user's configuration; every cell is a complete check by the compiled explorer (safety
properties, and availability questions asked as reachability), cached between runs. The
``Advice`` says which cells keep the goal, the weakest settings that do, and what each stronger
setting changes; ``advise/render.py`` prints it as text, Markdown or JSON.
"""

from advise.core import DEFAULT_GOALS, DEFAULT_REPLICATION_FACTORS, Advice, advise, check_goals, plan

__all__ = ["Advice", "DEFAULT_GOALS", "DEFAULT_REPLICATION_FACTORS", "advise", "check_goals", "plan"]
