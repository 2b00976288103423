"""Named properties of the replication state; ``invariant`` adds your own."""

from properties.registry import PROPERTIES, Property, get_properties, invariant
from properties import invariants as _builtin  # noqa: F401  (registers the built-ins)

BUILT_IN = tuple(PROPERTIES)
"""The names of kmc's own properties (before any ``--load``ed module adds its own)."""

__all__ = ["BUILT_IN", "PROPERTIES", "Property", "get_properties", "invariant"]
