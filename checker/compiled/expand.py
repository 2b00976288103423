"""Expanding part of a BFS level, compiled: the explorer's hot loop.

``expand_chunk`` takes frontier rows ``start .. stop`` of the level being expanded and, for each,
computes its successors (``model.kernel.actions.successors``), their canonical rows and
fingerprints, adds the new ones to the fingerprint table, records each new state's parent
index and action index, appends its row to the next level, and judges it against the compiled
properties still open. It stops early, at a state boundary, when a buffer needs room (the
driver grows it and calls again from where it stopped), when every property is violated, or at
``max_states`` (exactly, as the reference engine does).

Counters and positions travel in the small ``ctr`` array (indices below), so the function
returns only where it stopped and why.
"""

from __future__ import annotations

import numpy as np
from model.kernel.jit import kernel

from checker.compiled.fpset import contains, fingerprint, insert, prefetch_slot
from model.kernel.actions import successors
from model.kernel.symmetry import canonical
from properties.compiled import holds

# ctr: counters shared with the driver
GENERATED = 0  # successors computed, duplicates included (TLC's "states generated")
DISTINCT = 1  # states in the fingerprint table
NEXT_COUNT = 2  # rows in the next level
PARENT_FILL = 3  # entries used in the current parent chunk
PARENT_BASE = 4  # state index of the current parent chunk's first entry
OPEN_PROPERTIES = 5  # compiled properties not violated yet
PYTHON_OPEN = 6  # properties judged in Python (the kernel must not stop for those)
MAX_STATES = 7  # stop at this many distinct states (0 = no limit)
MAX_FILL = 8  # the table's fill limit
BEYOND = 9  # states one step past a depth limit, never seen (beyond mode)
CTR_SIZE = 10

# why expand_chunk stopped
DONE = 0
NEED_TABLE = 1
NEED_NEXT = 2
NEED_PARENTS = 3
ALL_VIOLATED = 4
REACHED_MAX_STATES = 5

# coverage columns, per action id
ENABLED = 0  # expanded states in which the action had at least one instance
FOUND = 1  # successors it produced
NEW = 2  # of those, states never seen before


@kernel
def class_fingerprint(s, lay, sym, order_cmp, scratch, best):
    """The fingerprint of ``s``'s class: of its canonical row under symmetry reduction."""
    if canonical(s, lay, sym, order_cmp, scratch, best):
        return fingerprint(s)
    return fingerprint(best)


@kernel
def expand_chunk(frontier, start, stop, first_index, lay, cfg, sym,
                 table, nxt, parents, parent_actions, props, violated_at, ctr, coverage,
                 out, acts, fps, scratch, best, order_cmp, seen_action):
    """Expand ``frontier[start:stop]`` (state indices ``first_index + i``); returns
    ``(position reached, reason)``."""
    for i in range(start, stop):
        s = frontier[i]
        k = successors(s, lay, cfg, out, acts)
        if ctr[DISTINCT] + k > ctr[MAX_FILL]:
            return i, NEED_TABLE
        if ctr[NEXT_COUNT] + k > nxt.shape[0]:
            return i, NEED_NEXT
        if ctr[PARENT_FILL] + k > parents.shape[0]:
            return i, NEED_PARENTS
        ctr[GENERATED] += k
        parent = first_index + i
        for a in range(seen_action.shape[0]):
            seen_action[a] = 0
        for j in range(k):  # fingerprint every successor first, and start fetching their slots
            fps[j] = class_fingerprint(out[j], lay, sym, order_cmp, scratch, best)
            prefetch_slot(table, fps[j])
        for j in range(k):
            t = out[j]
            action = acts[j, 0]
            coverage[action, FOUND] += 1
            if seen_action[action] == 0:
                seen_action[action] = 1
                coverage[action, ENABLED] += 1
            if not insert(table, fps[j]):
                continue
            index = ctr[DISTINCT]
            ctr[DISTINCT] = index + 1
            coverage[action, NEW] += 1
            fill = ctr[PARENT_FILL]
            parents[fill] = parent
            parent_actions[fill] = j
            ctr[PARENT_FILL] = fill + 1
            row = ctr[NEXT_COUNT]
            for w in range(t.shape[0]):
                nxt[row, w] = t[w]
            ctr[NEXT_COUNT] = row + 1
            if ctr[OPEN_PROPERTIES] > 0:
                for p in range(props.shape[0]):
                    if violated_at[p] < 0 and not holds(props[p], t, lay):
                        violated_at[p] = index
                        ctr[OPEN_PROPERTIES] -= 1
            if ctr[MAX_STATES] > 0 and ctr[DISTINCT] >= ctr[MAX_STATES]:
                return i + 1, REACHED_MAX_STATES
        if ctr[OPEN_PROPERTIES] == 0 and ctr[PYTHON_OPEN] == 0:
            return i + 1, ALL_VIOLATED
    return stop, DONE


@kernel
def count_beyond(frontier, start, stop, lay, cfg, sym, table, beyond, ctr,
                 out, acts, scratch, best, order_cmp):
    """For a level at the depth limit: count its successors (as generated) and the distinct
    ones never seen (``ctr[BEYOND]``, kept in the ``beyond`` table): where the search was cut.
    Returns ``(position reached, reason)`` like ``expand_chunk``."""
    for i in range(start, stop):
        s = frontier[i]
        k = successors(s, lay, cfg, out, acts)
        if ctr[BEYOND] + k > int(beyond.shape[0] * 0.8):
            return i, NEED_TABLE
        ctr[GENERATED] += k
        for j in range(k):
            fp = class_fingerprint(out[j], lay, sym, order_cmp, scratch, best)
            if not contains(table, fp) and insert(beyond, fp):
                ctr[BEYOND] += 1
    return stop, DONE


def work_buffers(width: int, n_brokers: int, max_successors: int, n_actions: int) -> dict:
    """The scratch arrays ``expand_chunk`` needs, sized for one configuration."""
    return {
        "out": np.zeros((max_successors, width), dtype=np.int8),
        "acts": np.zeros((max_successors, 3), dtype=np.int16),
        "fps": np.zeros(max_successors, dtype=np.uint64),
        "scratch": np.zeros(width, dtype=np.int8),
        "best": np.zeros(width, dtype=np.int8),
        "order_cmp": np.zeros(max(n_brokers * n_brokers, 1), dtype=np.int8),
        "seen_action": np.zeros(n_actions, dtype=np.int8),
    }
