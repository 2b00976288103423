"""kmc's model of Kafka's replication protocol for one partition.

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
from model.variants import (
    VARIANTS, ReplicationModel, action, get_variant, make_reference_model, register_variant,
)

__all__ = [
    "ACTION_PARAMS", "Action", "Bounds", "ClusterState", "ConfigError", "KmcError", "ModelConfig",
    "PartitionState", "ReplicaState", "ReplicationModel", "VARIANTS", "action", "from_plain",
    "get_variant", "make_model", "make_reference_model", "register_variant", "to_plain",
    "CompiledModel",
]


def make_model(config) -> CompiledModel:
    """The model of ``config``: the compiled kernel's rules, read and written as
    ``ClusterState``s (what traces, replay and the viewer use)."""
    return CompiledModel(config)
