"""The compiled kernel: kmc's model of Kafka's replication protocol, as numba-compiled functions
over fixed-width state rows.

This is where the protocol's rules are written: the actions, grouped by who takes them
(``actions/``), with the behaviour they share (``transitions.py``, ``controller.py``,
``epoch_cache.py``); the rules' switches come from the rule table (``model/rules.py``). The
state is declared once in ``model/schema.py``: ``layout.py`` places its slots in a row,
``slots.py`` (generated) and ``fields.py`` name them after Kafka, and the readable
``ClusterState`` is a decoding of a row (``codec.py``), so traces, the viewer and ITF files read
the same states the kernel explores. ``params.py`` holds the settings and bounds,
``symmetry.py`` the canonical form, ``spec.py`` turns a ``ModelConfig`` into the kernel's
arrays.

Compiled code is cached on disk (``numba``'s ``cache=True``) in a directory keyed by a hash of
the kernel's sources (``cache.py``), so it is compiled once per installation and never reused
after a source changes.
"""

from model.kernel.cache import configure_cache

CACHE_DIR = configure_cache()
