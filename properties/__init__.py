"""Named properties of the replication state; ``invariant`` adds your own."""

from properties.registry import PROPERTIES, Property, get_properties, invariant
from properties import invariants as _builtin  # noqa: F401  (registers the built-ins)

__all__ = ["PROPERTIES", "Property", "get_properties", "invariant"]
