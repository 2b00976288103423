"""The compiled kernel: kmc's model of Kafka's replication protocol, as numba-compiled functions
over fixed-width state rows.

This is where the protocol's rules are written (``actions.py``, with ``transitions.py`` and
``epoch_cache.py``); the readable ``ClusterState`` is a decoding of a row (``codec.py``), so
traces, the viewer and ITF files read the same states the kernel explores. ``layout.py`` says
where each field lives, ``fields.py`` names them after Kafka, ``params.py`` holds the
configuration and rule switches, ``symmetry.py`` the canonical form, ``spec.py`` turns a
``ModelConfig`` into the kernel's arrays.

Compiled code is cached on disk (``numba``'s ``cache=True``) in a directory keyed by a hash of
the kernel's sources (``cache.py``), so it is compiled once per installation and never reused
after a source changes.
"""

from model.kernel.cache import configure_cache

CACHE_DIR = configure_cache()
