"""Compiling the kernel once per installation.

numba compiles a function the first time it is called and keeps the machine code on disk
(``model/kernel/cache.py`` says where). ``ensure_compiled`` makes that first call happen up
front, on a tiny configuration that reaches every entry point the engines use, with a line
before and after saying what is going on; a marker file records that it was done, so later
runs only load the cache (a fraction of a second).

``python -m checker.compiled`` does it from the command line (``make install`` runs it).
"""

from __future__ import annotations

import time
from typing import Callable

from checker.compiled.driver import compiled_bfs
from checker.compiled.fpset import grown, new_table
from checker.simulate import simulate
from model.compiled_model import CompiledModel
from model.config import Bounds, ModelConfig
from model.kernel import CACHE_DIR
from properties import get_properties

MARKER = CACHE_DIR / "compiled.ok"


def is_compiled() -> bool:
    return MARKER.exists()


def ensure_compiled(notice: Callable[[str], None] | None = None) -> float:
    """Compile every kernel entry point if this installation has not yet; returns the seconds it
    took (0.0 when the cache was already there)."""
    if is_compiled():
        return 0.0
    if notice:
        notice("kmc: compiling the exploration kernel (once per installation; about a minute)...")
    started = time.monotonic()
    _exercise()
    seconds = time.monotonic() - started
    try:
        MARKER.write_text(f"{seconds:.1f}\n")
    except OSError:
        pass  # an unwritable cache: numba then compiles each run, and so will this
    if notice:
        notice(f"kmc: kernel compiled in {seconds:.0f} s; later runs load it from {CACHE_DIR}")
    return seconds


def _exercise() -> None:
    """Call every entry point once: that is what compiles them."""
    config = ModelConfig(protocol="kip-320", replication_factor=3,
                         bounds=Bounds(max_records=1, max_leader_epoch=1, max_crashes=1))
    props = get_properties(None)
    compiled_bfs(config, props)  # expand_chunk, holds, class_fingerprint, insert
    compiled_bfs(config, props, max_depth=2)  # count_beyond
    model = CompiledModel(config)  # successors, canonical
    state = model.init_states()[0]
    model.canonical(model.successors(state)[0][1])
    grown(new_table(16))  # rehash
    # the simulator: walks, then a violation (found in a few thousand walks) and its shortening
    loses = ModelConfig(protocol="hw-truncation", replication_factor=2,
                        bounds=Bounds(max_records=1, max_leader_epoch=1, max_crashes=1))
    simulate(loses, get_properties(["no-acked-loss"]), seed=1, walks=10_000)

