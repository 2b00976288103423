"""Shortening a counterexample found by a random walk: delta debugging through replay.

A random walk that reaches a violation wanders: most of its steps have nothing to do with
it. Here the walk is a sequence of action *labels* (action id and arguments, as the kernel
writes them into ``acts``), and a shorter sequence is kept when it is still a behaviour of the
model (every label, in turn, is one of the enabled actions of the state reached so far) and
still reaches a state that violates the property; it is cut at the first such state.
``ddmin`` (Zeller and Hildebrandt's delta debugging, removing complements) drops halves, then
quarters, ... then single steps, until no single step can go: the result is *1-minimal*. Walks
often hold pairs of steps that only make sense together and lie apart (a crash and the
restart that undoes it), which no single removal can drop; ``shorten`` therefore also tries
every pair, within a budget of replays, and runs ``ddmin`` again after each success. The result
is still not necessarily the shortest counterexample (breadth-first ``kmc check`` finds that
one).

Every candidate is replayed by the compiled ``replay_labels``, through the same kernel the
walks ran, so shortening a 100-step walk takes milliseconds.
"""

from __future__ import annotations

import numpy as np

from checker.simulate.walks import _copy
from model.kernel.actions import successors
from model.kernel.jit import kernel
from properties.compiled import holds

NOT_VIOLATED = -1
PAIR_BUDGET = 20_000  # replays the pair pass may spend


@kernel
def replay_labels(initial, labels, n, lay, cfg, pid, row, out, acts, indices):
    """Replay ``labels[:n]`` from ``initial``. Returns the number of steps up to and including
    the first state that violates property ``pid`` (0 if the initial state does), with their
    successor indices in ``indices``; ``NOT_VIOLATED`` if every label replays and no state
    violates it; ``-(i + 2)`` if label ``i`` is not enabled where it is replayed."""
    _copy(row, initial)
    if not holds(pid, row, lay):
        return 0
    for i in range(n):
        k = successors(row, lay, cfg, out, acts)
        found = -1
        for j in range(k):
            if acts[j, 0] == labels[i, 0] and acts[j, 1] == labels[i, 1] and acts[j, 2] == labels[i, 2]:
                found = j
                break
        if found < 0:
            return -(i + 2)
        indices[i] = found
        _copy(row, out[found])
        if not holds(pid, row, lay):
            return i + 1
    return NOT_VIOLATED


class Replayer:
    """Replays label sequences of one configuration against one compiled property."""

    def __init__(self, spec, pid: int) -> None:
        self.spec = spec
        self.pid = np.int32(pid)
        self.row = np.zeros(spec.width, dtype=np.int8)
        self.out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
        self.acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
        self.replays = 0

    def violating_prefix(self, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``(labels, successor indices)`` of the prefix of ``labels`` that ends at the first
        violating state, or None if ``labels`` is not a behaviour or violates nothing."""
        self.replays += 1
        indices = np.zeros(max(len(labels), 1), dtype=np.int32)
        n = replay_labels(self.spec.initial, labels, len(labels), self.spec.lay, self.spec.cfg,
                          self.pid, self.row, self.out, self.acts, indices)
        if n < 0:
            return None
        return labels[:n], indices[:n]


def ddmin(labels: np.ndarray, replayer: Replayer) -> tuple[np.ndarray, np.ndarray]:
    """The 1-minimal violating label sequence delta debugging reaches from ``labels`` (which
    must itself replay to a violation), with its successor indices."""
    start = replayer.violating_prefix(labels)
    if start is None:
        raise ValueError("the walk to shorten does not replay to a violation")
    best, indices = start
    n = 2
    while len(best) >= 2:
        size = -(-len(best) // n)  # ceil
        reduced = False
        for lo in range(0, len(best), size):
            candidate = np.concatenate([best[:lo], best[lo + size:]])
            found = replayer.violating_prefix(candidate)
            if found is not None:
                best, indices = found
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if n >= len(best):
                break
            n = min(2 * n, len(best))
    return best, indices


def drop_pairs(labels: np.ndarray, indices: np.ndarray, replayer: Replayer,
               budget: int = PAIR_BUDGET) -> tuple[np.ndarray, np.ndarray, bool]:
    """Try removing every pair of steps (nearest pairs first); the first removal that still
    replays to a violation wins. Returns ``(labels, indices, removed)``."""
    n = len(labels)
    spent = 0
    for gap in range(1, n):
        for i in range(n - gap):
            if spent >= budget:
                return labels, indices, False
            keep = np.ones(n, dtype=bool)
            keep[[i, i + gap]] = False
            spent += 1
            found = replayer.violating_prefix(labels[keep])
            if found is not None:
                return found[0], found[1], True
    return labels, indices, False


def shorten(labels: np.ndarray, replayer: Replayer, pair_budget: int = PAIR_BUDGET):
    """``ddmin``, then pair removals (each followed by ``ddmin`` again) until neither shortens
    the sequence or the pair budget is spent; ``(labels, successor indices)``."""
    best, indices = ddmin(labels, replayer)
    while pair_budget > 0 and len(best) >= 2:
        before = replayer.replays
        best, indices, removed = drop_pairs(best, indices, replayer, pair_budget)
        pair_budget -= replayer.replays - before
        if not removed:
            break
        best, indices = ddmin(best, replayer)
    return best, indices
