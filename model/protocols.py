"""The protocol registry: ``--protocol`` names -> model classes.

In-tree variants (``model/variants/``) register with ``@register_variant``; third-party ones
through the entry-point group ``kmc.protocols`` (disable with ``KMC_NO_PLUGINS=1``). Adding a
variant touches no other.

This module imports no model code, so ``ModelConfig`` can check a protocol name here while the
variants, which build on ``ModelConfig``, register into it. The in-tree variants are registered by
the time any configuration is made: importing ``model.config`` runs ``model/__init__.py``, which
imports ``model.variants``.
"""

from __future__ import annotations

import os
from importlib.metadata import entry_points

from model.errors import ConfigError

VARIANTS: dict = {}


def register_variant(cls):
    """Class decorator: make ``cls`` available as ``--protocol cls.name``."""
    if not getattr(cls, "name", ""):
        raise ConfigError(f"{cls.__name__} needs a class attribute 'name' to be registered")
    if cls.name in VARIANTS and VARIANTS[cls.name] is not cls:
        raise ConfigError(f"protocol {cls.name!r} is registered twice ({cls.__name__})")
    VARIANTS[cls.name] = cls
    return cls


_plugins_loaded = False


def load_entry_point_variants() -> None:
    global _plugins_loaded
    if _plugins_loaded or os.environ.get("KMC_NO_PLUGINS"):
        return
    _plugins_loaded = True
    for ep in entry_points(group="kmc.protocols"):
        register_variant(ep.load())


def get_variant(name: str):
    """The model class registered as ``name``; a ``ConfigError`` naming the choices otherwise."""
    load_entry_point_variants()
    try:
        return VARIANTS[name]
    except KeyError:
        raise ConfigError(
            f"unknown protocol {name!r}; choose one of: {', '.join(sorted(VARIANTS))}"
        ) from None
