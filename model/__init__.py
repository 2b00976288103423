"""kmc's model of Kafka's replication protocol for one partition: the compiled kernel
(``model/kernel/``), its rules by release (``model/rules.py``), and the readable states it is
read and written as.

Public API::

    from model import ModelConfig, Bounds, make_model
    m = make_model(ModelConfig(protocol="kip-101", replication_factor=2))
    for action, state in m.successors(m.init_states()[0]): ...
"""

from model.actions import ACTION_PARAMS, Action
from model.config import Bounds, ModelConfig
from model.errors import ConfigError, KmcError
from model.state import ClusterState, PartitionState, ReplicaState, from_plain, to_plain
from model.compiled_model import CompiledModel

__all__ = [
    "ACTION_PARAMS", "Action", "Bounds", "ClusterState", "ConfigError", "KmcError", "ModelConfig",
    "PartitionState", "ReplicaState", "from_plain", "make_model", "to_plain", "CompiledModel",
]


def make_model(config) -> CompiledModel:
    """The model of ``config``: the compiled kernel's rules, read and written as
    ``ClusterState``s (what traces, replay and the viewer use)."""
    return CompiledModel(config)
