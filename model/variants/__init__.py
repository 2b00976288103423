"""Protocol variants, one module each, registered by name."""

from model.protocols import VARIANTS, get_variant, register_variant
from model.variants.base import ReplicationModel, action
from model.variants import hw_truncation, kip101, kip279, kip320  # noqa: F401  (registers them)

__all__ = ["VARIANTS", "ReplicationModel", "action", "get_variant", "register_variant", "make_model"]


def make_model(config):
    """The model for ``config.protocol``, built for ``config``."""
    return get_variant(config.protocol)(config)
