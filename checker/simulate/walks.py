"""Random walks through the compiled kernel: the simulator's hot loop.

A walk starts in the initial state and, at each step, computes every successor of the current
state (``model.kernel.actions.successors``, the same rules the explorer runs) and moves to one
of them chosen uniformly at random, judging the compiled properties on the state it reaches.
It ends after ``depth`` steps, when no action is enabled (the bounds are exhausted: a deadlock
in TLC's words), or at the first state that violates a property.

Randomness: walk ``w`` of seed ``s`` draws from its own stream, splitmix64 seeded with a mix
of ``s`` and ``w``. A walk therefore depends on nothing but the seed, its index and the
configuration: the same seed gives the same walks whatever the batch sizes, time limit or
machine, and a walk can be re-run alone. (splitmix64 rather than numba's ``np.random``: a
stream per walk costs one 64-bit word instead of re-seeding a 2.5 KB Mersenne Twister, and
its output cannot change with a numba or numpy release.)

Counters travel in the small ``ctr`` array (indices below); coverage counts, per action id,
the states of the walks in which the action was enabled and the steps that took it.
"""

from __future__ import annotations

import numpy as np

from checker.compiled.fpset import _mix  # splitmix64's output function, as the fingerprints use it
from model.kernel.actions import successors
from model.kernel.jit import kernel, nogil_kernel
from properties.compiled import holds

# ctr: counters shared with the driver
WALKS = 0  # walks run (the one that found a violation included)
STEPS = 1  # steps taken, in every walk
DEADLOCKS = 2  # walks that ended because no action was enabled
FOUND_WALK = 3  # the walk that reached a violating state
FOUND_LENGTH = 4  # its length, in steps, up to and including that state
CTR_SIZE = 5

# why run_walks returned
DONE = 0
FOUND = 1
STOPPED = 2  # stop[0] was set (the driver's timer, at the time limit): the walk under way is cut

# coverage columns, per action id
ENABLED = 0  # states (along the walks) in which the action had at least one instance
TAKEN = 1  # steps that took it

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # splitmix64's increment
_WALK = np.uint64(0xD1B54A32D192ED03)


@kernel
def walk_stream(seed, walk):
    """The starting state of walk ``walk``'s random stream under ``seed``."""
    return _mix(_mix(np.uint64(seed) + _GOLDEN) ^ (np.uint64(walk) * _WALK))


@kernel
def _below(z, k):
    """A number in ``0 .. k-1`` from the 64 random bits ``z`` (Lemire's multiply-shift)."""
    return np.int64(((z >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32))


@kernel
def _copy(dst, src):
    d, s = dst.view(np.uint64), src.view(np.uint64)  # rows are whole 64-bit words
    for i in range(s.shape[0]):
        d[i] = s[i]


@nogil_kernel
def run_walks(initial, lay, cfg, pids, seed, first, count, depth, row, out, acts, path,
              violated, coverage, seen_action, ctr, stop):
    """Run walks ``first .. first + count - 1``; returns ``(next walk, reason)``.

    On a violation (reason ``FOUND``) ``path[:ctr[FOUND_LENGTH]]`` holds the walk's successor
    indices, ``row`` the violating state and ``violated[p]`` is 1 for each property it
    violates; the next walk to run is the one after it. ``stop[0]`` is read before every step:
    another thread (the driver's timer) sets it to end the run within a step, whatever the
    batch's size (reason ``STOPPED``; the walk under way is not counted, its steps are). The
    global interpreter lock is released while the walks run, so that thread can run."""
    for w in range(first, first + count):
        z = walk_stream(seed, w)
        _copy(row, initial)
        length = 0
        while length < depth:
            if stop[0] != 0:
                ctr[STEPS] += length
                return w, STOPPED
            k = successors(row, lay, cfg, out, acts)
            if k == 0:
                ctr[DEADLOCKS] += 1
                break
            for a in range(seen_action.shape[0]):
                seen_action[a] = 0
            for j in range(k):
                a = acts[j, 0]
                if seen_action[a] == 0:
                    seen_action[a] = 1
                    coverage[a, ENABLED] += 1
            z += _GOLDEN
            j = _below(_mix(z), k)
            coverage[acts[j, 0], TAKEN] += 1
            path[length] = j
            _copy(row, out[j])
            length += 1
            bad = False
            for p in range(pids.shape[0]):
                if not holds(pids[p], row, lay):
                    violated[p] = 1
                    bad = True
            if bad:
                ctr[STEPS] += length
                ctr[WALKS] += 1
                ctr[FOUND_WALK] = w
                ctr[FOUND_LENGTH] = length
                return w + 1, FOUND
        ctr[STEPS] += length
        ctr[WALKS] += 1
    return first + count, DONE
