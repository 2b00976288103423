"""The compiled engine: ``compiled_bfs`` runs a breadth-first search (``search.py``) and turns
it into a ``CheckResult``; counterexamples are re-derived by replay.

It keeps three things, each with one job (as TLC does), in memory while they fit the budget and
on disk after:

* the **fingerprint set** (``table.py``, ``visited.py``, ``runs.py``): one 64-bit (or 128-bit)
  fingerprint per distinct state, in a sharded table, then also in sorted files;
* the **parent index** (``parents.py``): for state ``i`` (numbered in discovery order), the
  number of the state it was first reached from and the index of the step among that state's
  successors;
* the **frontier** (``frontier.py``): the records of the level being expanded and of the next.

States themselves are not kept. A counterexample is re-derived by following parent numbers back
to the initial state and replaying the successor indices forward through the kernel; the states
on the way are decoded into readable ``ClusterState``s, so traces, the viewer and ITF files are
the same as the reference engine's.
"""

from __future__ import annotations

import gc
import math
from dataclasses import dataclass, field

import numpy as np

from checker.compiled.checkpoint import Checkpoints, identity
from checker.compiled.progress import search_stats
from checker.compiled.search import Search
from checker.compiled.space import DiskLimitError, MemoryLimitError, Space
from checker.compiled.space import default_memory_limit, rss_bytes  # noqa: F401  (re-exported)
from checker.compiled.workers import available_cores
from checker.fingerprint import collision_probability
from checker.result import (
    HOLDS, INCOMPLETE, INTERRUPTED, VIOLATED, CheckResult, PropertyResult,
)
from checker.trace import Step, Trace
from model.actions import ACTION_NAMES
from model.errors import ConfigError, KmcError
from model.kernel.actions import successors
from model.kernel.codec import decode, decode_action
from model.kernel.fields import SlotOverflow
from model.kernel.spec import KernelSpec, kernel_spec, model_actions
from properties.compiled import COMPILED_IDS

MAX_WORKERS = 256
"""More worker threads than any machine kmc runs on has cores: a thread each, with its buffers."""

PROGRESS_EVERY_SECONDS = 5.0
FP_BITS = (64, 128)


@dataclass
class Coverage:
    """Per action, TLC's coverage: states in which it was enabled, successors it produced, and
    how many of those were new."""

    rows: list = field(default_factory=list)  # (action name, enabled, found, new)

    def to_json(self) -> list:
        return [{"action": a, "enabled": e, "found": f, "new": n} for a, e, f, n in self.rows]

    @property
    def never_enabled(self) -> list:
        return [a for a, e, _, _ in self.rows if e == 0]


@dataclass(frozen=True)
class CompiledProperty:
    name: str
    pid: int


def compiled_property(prop) -> int | None:
    """The id of a built-in property's compiled twin, or None for a property written in Python."""
    if getattr(prop, "compiled", False):
        return COMPILED_IDS[prop.name]
    return None


def replay_path(spec: KernelSpec, path, property_name=None) -> Trace:
    """The trace along ``path`` (successor indices) from the initial state, decoded."""
    out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
    acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
    row = spec.initial.copy()
    trace = Trace(decode(row, spec.layout), [], property_name)
    for index in path:
        k = successors(row, spec.lay, spec.cfg, out, acts)
        if index >= k:
            raise KmcError(f"replay: successor {index} does not exist ({k} successors)")
        action = decode_action(acts[index])
        row = out[index].copy()
        trace.steps.append(Step(action, decode(row, spec.layout)))
    return trace


def compiled_bfs(
    config,
    properties,
    *,
    max_states: int | None = None,
    time_limit: float | None = None,
    max_depth: int | None = None,
    memory_limit: int | None = None,
    progress=None,
    progress_every: float = PROGRESS_EVERY_SECONDS,
    coverage: bool = False,
    workers: int | None = None,
    disk_limit: int | None = None,
    disk_dir: str | None = None,
    fp_bits: int | None = None,
    checkpoint_dir: str | None = None,
    checkpoint_every: int | None = None,
    resume: bool = False,
) -> CheckResult:
    """Explore ``config`` breadth-first with the compiled kernel and judge ``properties``.

    ``workers``: threads exploring at once (default: the cores available); ``memory_limit`` and
    ``disk_limit`` the budgets (``space.py``), ``disk_dir`` where files go; ``fp_bits`` 64 or
    128; ``checkpoint_dir``, ``checkpoint_every`` (levels) and ``resume``: ``checkpoint.py``."""
    workers = available_cores() if workers is None else workers
    if not 1 <= workers <= MAX_WORKERS:  # 100,000 threads was a crash (can't start new thread)
        raise ConfigError(f"--workers must be from 1 to {MAX_WORKERS}, got {workers} (this machine "
                          f"has {available_cores()} cores)")
    if fp_bits not in (None, *FP_BITS):
        raise ConfigError(f"--fp-bits must be 64 or 128, got {fp_bits}")
    if checkpoint_every is not None and checkpoint_every < 1:
        raise ConfigError(f"--checkpoint-every must be at least 1, got {checkpoint_every}")
    if (resume or checkpoint_every is not None) and not checkpoint_dir:
        raise ConfigError("--resume and --checkpoint-every need --checkpoint-dir")
    if checkpoint_dir and disk_dir:
        raise ConfigError("--disk-dir and --checkpoint-dir both given: a run with checkpoints keeps "
                          "its files in the checkpoint directory (a checkpoint refers to them); "
                          "give only --checkpoint-dir")
    if disk_limit is not None and disk_limit < 0:
        raise ConfigError("--disk-limit must not be negative")
    spec = kernel_spec(config)
    props = list(properties)
    compiled = [CompiledProperty(p.name, compiled_property(p)) for p in props
                if compiled_property(p) is not None]
    python = [p for p in props if compiled_property(p) is None]
    checkpoints, manifest = None, None
    if checkpoint_dir:
        checkpoints = Checkpoints(checkpoint_dir, checkpoint_every, identity(config, props, fp_bits))
        manifest = checkpoints.prepare(resume)
        fp_bits = manifest["fp_bits"] if manifest else (fp_bits or 64)
        checkpoints.identity["fp_bits"] = fp_bits
    fp_bits = fp_bits or 64
    space = Space(memory_limit, disk_limit, disk_dir, checkpoints.directory if checkpoints else None)
    search = Search(spec, compiled, python, max_states=max_states, time_limit=time_limit,
                    max_depth=max_depth, space=space, workers=workers, fp_bits=fp_bits,
                    progress=progress, progress_every=progress_every, checkpoints=checkpoints)
    frozen = gc.isenabled() and _freeze()
    try:
        try:
            if manifest:
                checkpoints.restore(search, manifest)
                if max_depth is not None and max_depth < search.depth:
                    raise ConfigError(f"--depth {max_depth} is below the checkpoint's depth "
                                      f"{search.depth}")
            else:
                search.start_fresh()
            search.explore()
        except MemoryLimitError:
            search.limit = "memory-limit"
        except DiskLimitError:
            search.limit = "disk-limit"
        except KeyboardInterrupt:  # SIGINT or SIGTERM (checker.interrupt): stop, report what we have
            search.limit = INTERRUPTED
        except SlotOverflow as e:
            raise KmcError(
                f"a state of this configuration does not fit the compiled engine's fixed slots ({e}); "
                "this is a bug in kmc's state layout, please report it with the command line "
                "(--engine reference checks the configuration meanwhile)") from None
        finally:
            search.workers.close()
        return _result(config, props, spec, search, coverage, fp_bits)
    finally:
        if frozen is True:
            gc.unfreeze()
        _clean_up(search, space, checkpoints)


def _freeze() -> bool:
    """Move every object alive now out of the garbage collector's sight for the run: its
    collections then scan only what the search itself allocates (the interpreter, numba and the
    model hold hundreds of thousands of objects that would be scanned again and again)."""
    gc.freeze()
    return True


def _result(config, props, spec, search, coverage: bool, fp_bits: int) -> CheckResult:
    if search.visited is None:  # stopped before it began (an interruption while resuming)
        raise KeyboardInterrupt
    if search.nxt is not None:  # stopped within a level: confirm what it found
        search.resolve()
    stats = search_stats(search, final=True)
    if search.nxt is not None and search.next_live > 0:  # stopped within a level
        stats.depth += 1
    if search.at_depth_limit:
        stats.queue = search.beyond
    results = []
    for p in props:
        v = search.violations.get(p.name)
        if v is not None:
            path = [] if v.parent < 0 else search.parents.path_to(v.parent) + [v.succ]
            trace = replay_path(spec, path, p.name)
            if p.check(trace.states[-1]):
                raise KmcError(
                    f"internal error: the replayed counterexample for {p.name} does not violate it "
                    "(the compiled property and its Python twin disagree); please report it")
            results.append(PropertyResult(p.name, VIOLATED, trace))
        elif search.limit is not None or stats.queue:
            results.append(PropertyResult(p.name, INCOMPLETE))
        else:
            results.append(PropertyResult(p.name, HOLDS))
    result = CheckResult("compiled", config.as_dict(), results, stats, search.limit)
    if coverage:
        present = set(model_actions(config))
        cov = search.coverage
        result.coverage = Coverage([
            (ACTION_NAMES[a], int(cov[a, 0]), int(cov[a, 1]), int(cov[a, 2]))
            for a in range(len(ACTION_NAMES)) if ACTION_NAMES[a] in present
        ])
    result.notes.extend(_notes(search, stats, fp_bits))
    return result


def _notes(search, stats, fp_bits: int) -> list:
    notes = []
    d = max(stats.distinct_states, 1)
    if fp_bits == 128:
        notes.append(
            f"fingerprints: 128 bits (with 64-bit fingerprints the estimate would be "
            f"{collision_probability(stats.distinct_states, stats.states_generated, 64):.1e})")
    elif stats.collision_probability > 1e-3:
        notes.append(
            f"fingerprints: 64 bits; the collision estimate is not negligible: with --fp-bits 128 "
            f"it would be {collision_probability(stats.distinct_states, stats.states_generated, 128):.1e}")
    if stats.disk_bytes:
        vis = search.visited
        notes.append(
            f"compiled: in memory {stats.structure_bytes / d:.1f} bytes a state (fingerprint table "
            f"and parent index), on disk {stats.disk_bytes / d:.1f} bytes a state at the peak "
            f"({_size(stats.disk_bytes)}: {vis.runs.count:,} fingerprints in sorted files, "
            f"{vis.flushes} flushes, {vis.resolutions} passes checking pending states)")
    cp = search.checkpoints
    if cp is not None:
        if cp.resumed_from is not None:
            notes.append(f"compiled: resumed from the checkpoint of level {cp.resumed_from} in "
                         f"{cp.directory}")
        if search.limit is not None and cp.latest is not None:
            level = len(cp.latest["state"]["level_sizes"]) - 1
            notes.append(f"compiled: --resume --checkpoint-dir {cp.directory} continues from the "
                         f"checkpoint of level {level}")
        elif search.limit is not None:
            notes.append(f"compiled: no checkpoint was written in {cp.directory} before the run "
                         "stopped; nothing to resume")
    if search.python:
        notes.append(
            "note: " + ", ".join(p.name for p in search.python) + " written in Python: judged on "
            "decoded states after each batch (slower; verdicts, counts and shortest traces "
            "unchanged)")
    return notes


def _clean_up(search, space: Space, checkpoints) -> None:
    if checkpoints is not None:
        if search.limit is None or checkpoints.latest is None:
            checkpoints.remove_all()  # finished, or nothing a resume could use
    else:
        space.remove()


def _size(n: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:,.0f} bytes"


def bytes_per_state(stats) -> float:
    return stats.structure_bytes / stats.distinct_states if stats.distinct_states else math.nan

