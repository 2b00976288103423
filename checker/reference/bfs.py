"""Breadth-first exploration: the explicit-state engine.

Three structures, each with one job (as in TLC): a ``deque`` of states to expand (the queue), a
dict from 64-bit fingerprint to packed ``(parent fingerprint, action index)`` (the seen set and
the trace's parent pointers at once), and the list of properties not yet violated. Properties are
checked once per distinct state, when it is first seen; since states are seen in order of depth,
the first violation found for a property is a shortest one.

A run ends when the queue is empty (every reachable state within the model's bounds was explored:
unviolated properties HOLD), when every property is violated, or at a limit (``max_states``,
``time_limit``, ``max_depth``), in which case the unviolated properties are INCOMPLETE, never
"holds". ``max_states`` is exact (the run stops at that many distinct states); ``max_depth`` cuts
the search only if a state at that depth has a successor never seen (the queue then counts those
unseen states, which were neither checked nor explored), so a depth bound that covers the whole
space still ends in a complete search. SIGINT or SIGTERM (``checker.interrupt``) stops it too: the
limit is then "interrupted".
"""

from __future__ import annotations

import time
from collections import deque
from typing import Callable

from checker.fingerprint import collision_probability, fingerprint
from checker.interrupt import check_interrupted
from checker.result import (
    HOLDS, INCOMPLETE, INTERRUPTED, VIOLATED, CheckResult, CheckStats, PropertyResult,
)
from checker.trace import INDEX_BITS, ROOT, reconstruct_trace
from checker.reference import make_reference_model, oracle_notes

PROGRESS_EVERY_SECONDS = 5.0


def bfs(
    model,
    properties,
    *,
    max_states: int | None = None,
    time_limit: float | None = None,
    max_depth: int | None = None,
    progress: Callable[[CheckStats], None] | None = None,
    progress_every: float = PROGRESS_EVERY_SECONDS,
    engine: str = "bfs",
    config: dict | None = None,
) -> CheckResult:
    """Explore ``model`` breadth-first and judge ``properties`` (objects with ``name`` and a
    ``check(state) -> bool``)."""
    started = time.monotonic()
    canonical = model.canonical
    successors = model.successors
    parents: dict[int, int] = {}
    queue: deque = deque()
    open_props = list(properties)
    violated: dict[str, int] = {}
    stats = CheckStats()
    limit = None

    def judge(state, fp) -> None:
        for prop in list(open_props):
            if not prop.check(state):
                violated[prop.name] = fp
                open_props.remove(prop)

    for init in model.init_states():
        stats.states_generated += 1
        fp = fingerprint(canonical(init))
        if fp in parents:
            continue
        parents[fp] = ROOT
        judge(init, fp)
        queue.append((init, fp, 0))

    next_report = started + progress_every
    index_limit = 1 << INDEX_BITS
    expanded = 0
    beyond_depth: set = set()  # states one step past max_depth, never seen: where the search was cut
    if max_states is not None and len(parents) >= max_states and queue:
        limit = "max-states"
    try:
        while queue and open_props and limit != "max-states":
            state, fp, depth = queue.popleft()
            if max_depth is not None and depth >= max_depth:
                if time_limit is not None and time.monotonic() - started >= time_limit:
                    limit = "time-limit"
                    break
                succ = successors(state)
                stats.states_generated += len(succ)
                for _, nxt in succ:
                    nfp = fingerprint(canonical(nxt))
                    if nfp not in parents:
                        beyond_depth.add(nfp)
                        limit = "max-depth"
                continue
            succ = successors(state)
            stats.states_generated += len(succ)
            if len(succ) >= index_limit:
                raise OverflowError(f"a state has {len(succ)} successors; at most {index_limit - 1}")
            packed_parent = fp << INDEX_BITS
            for index, (_, nxt) in enumerate(succ):
                nfp = fingerprint(canonical(nxt))
                if nfp in parents:
                    continue
                parents[nfp] = packed_parent | index
                if depth + 1 > stats.depth:
                    stats.depth = depth + 1
                for prop in open_props:
                    if not prop.check(nxt):
                        judge(nxt, nfp)
                        break
                queue.append((nxt, nfp, depth + 1))
                if max_states is not None and len(parents) >= max_states:
                    limit = "max-states"  # exact: stop at the max_states-th distinct state
                    break
            if limit == "max-states":
                break
            expanded += 1
            if expanded & 255 == 0:
                check_interrupted()  # in case a finaliser swallowed the KeyboardInterrupt
                now = time.monotonic()
                if time_limit is not None and now - started >= time_limit:
                    limit = "time-limit"
                    break
                if progress is not None and now >= next_report:
                    next_report = now + progress_every
                    _fill(stats, parents, queue, started)
                    progress(stats)
    except KeyboardInterrupt:  # SIGINT or SIGTERM (checker.interrupt): stop, report what we have
        limit = INTERRUPTED

    _fill(stats, parents, queue, started)
    stats.queue += len(beyond_depth)
    results = []
    for prop in properties:
        if prop.name in violated:
            trace = reconstruct_trace(model, parents, violated[prop.name], prop.name)
            results.append(PropertyResult(prop.name, VIOLATED, trace))
        elif limit is not None or queue:
            results.append(PropertyResult(prop.name, INCOMPLETE))
        else:
            results.append(PropertyResult(prop.name, HOLDS))
    return CheckResult(engine, config or {}, results, stats, limit)


def _fill(stats: CheckStats, parents: dict, queue: deque, started: float) -> None:
    stats.distinct_states = len(parents)
    stats.queue = len(queue)
    stats.seconds = time.monotonic() - started
    stats.collision_probability = collision_probability(stats.distinct_states, stats.states_generated)


def run_reference(config, properties, *, max_states=None, time_limit=None, max_depth=None,
                  progress=None) -> CheckResult:
    """``--engine reference``: ``bfs`` over the pure-Python model of ``config``, with the
    configuration recorded in the result."""
    result = bfs(
        make_reference_model(config), properties, max_states=max_states, time_limit=time_limit,
        max_depth=max_depth, progress=progress, engine="reference", config=config.as_dict(),
    )
    result.notes.extend(oracle_notes(config))
    return result
