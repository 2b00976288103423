"""Protocol variants, one module each, registered by name."""

from model.protocols import VARIANTS, get_variant, register_variant
from model.variants.base import ReplicationModel, action
from model.variants import hw_truncation, kip101, kip279, kip320  # noqa: F401  (registers them)

__all__ = ["VARIANTS", "ReplicationModel", "action", "get_variant", "register_variant",
           "make_reference_model"]


def make_reference_model(config):
    """The reference engine's model of ``config``: the pure-Python definition of the 2018-era
    protocols, kept as the cross-check of the compiled kernel."""
    return get_variant(config.protocol)(config)
