"""What a long run reports every few seconds, and its estimate of the time left.

The estimate comes from the shape of the search: breadth-first levels grow, peak and then
shrink, in these models roughly geometrically. Once the level being built is smaller than the
one being expanded (extrapolated from how much of the latter is done), the levels still to come
are taken as a geometric series with that ratio, and the time as their states over the rate at
which this run has expanded states so far. While levels still grow there is no estimate (they give
no hint of where they will peak).
"""

from __future__ import annotations

import time

from checker.compiled.space import peak_rss_bytes, rss_bytes
from checker.fingerprint import collision_probability
from checker.result import CheckStats


def search_stats(search, final: bool = False) -> CheckStats:
    """A ``CheckStats`` of ``search`` (a ``search.Search``) now."""
    stats = CheckStats()
    stats.states_generated = search.generated
    stats.distinct_states = search.distinct
    stats.depth = search.depth
    stats.queue = search.queue()
    stats.seconds = search.elapsed()
    stats.collision_probability = collision_probability(
        stats.distinct_states, stats.states_generated, bits=64 * search.words)
    stats.memory_bytes = peak_rss_bytes() if final else rss_bytes()
    stats.structure_bytes = search.visited.table.nbytes + search.parents.memory_bytes
    stats.disk_bytes = search.space.peak_used if final else search.space.used
    if not final:
        stats.eta_seconds = eta(search)
        stats.levels_growing = growing(search)
    return stats


def growing(search) -> bool:
    """Whether the level being built is, extrapolated, at least as large as the one being
    expanded (so no estimate of the time left can be made yet)."""
    size, done = search.level_sizes[-1], search.expanded
    return size > 0 and done > 0 and search.next_live * size / done >= size


def level_eta(expanded: int, built: int, rate: float) -> float | None:
    """Seconds left once a whole level of ``expanded`` states has given a level of ``built``
    new ones, at ``rate`` states expanded per second: the levels to come as a geometric series
    of ratio ``built / expanded``, or None while levels grow (for an engine that reports after
    whole levels: Spark)."""
    if expanded <= 0 or rate <= 0 or built >= expanded:
        return None
    ratio = built / expanded
    return built / (1 - ratio) / rate


def eta(search) -> float | None:
    """Seconds left, from the level sizes so far; None while levels still grow."""
    size = search.level_sizes[-1]
    done = search.expanded
    expanded = search.level_first + done - search.first_expanded  # by this process
    spent = time.monotonic() - search.started
    if size <= 0 or done <= 0 or expanded <= 0 or spent <= 0:
        return None
    rate = expanded / spent  # states expanded per second
    next_size = search.next_live * size / done  # the next level, extrapolated
    ratio = next_size / size
    if ratio >= 1:
        return None
    to_come = next_size / (1 - ratio)  # the next level and every later one
    return (size - done + to_come) / rate


def describe_eta(seconds: float | None) -> str:
    if seconds is None:
        return "ETA: levels still growing"
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"ETA {seconds / size:.1f} {unit}"
    return f"ETA {seconds:.0f} s"
