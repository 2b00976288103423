"""Expanding a batch of a BFS level, compiled, in three phases: the explorer's hot loop.

The driver (``search.py``) cuts each level into batches of rows and each batch into slices of a
fixed number of rows. In each phase the workers take slices (or shards) one after another until
none is left (each function lets go of Python's global lock), and the phases are separated by
the driver, so no two workers ever write the same thing:

1. ``expand_rows`` (one slice of the batch, a fixed range of rows): each row's successors, the
   fingerprints of their canonical rows, and a look-up in the fingerprint table (read only in
   this phase). A successor found there is a state seen before this batch: counted (TLC's
   "states generated", coverage) and dropped; so is a repeat of a candidate of the same slice.
   The others become **candidates**: row, fingerprint, parent, successor index and action, in
   the order the rows and successors come.
2. ``insert_candidates`` (one shard of the table): reads every slice's candidates in order and
   inserts those of its shard, so the first candidate of a fingerprint in the batch's order is
   the one marked **fresh**, whatever the number of workers: a single worker exploring row
   after row would find it first too. **One worker** does that in phase 1 instead
   (``insert_now``): it takes the slices in order, so inserting each successor as it comes
   marks the same candidates fresh, and saves a second trip to the table's slot (the first
   one, phase 1's look-up, has just brought it into the cache).
3. ``admit_fresh`` (one slice again): the fresh candidates become the next level's rows, in
   order, at positions the driver computed from the counts of phase 2; each is judged against
   the compiled properties still open.

States are numbered in this order (the batch's rows in order, each row's successors in the
kernel's order), so state numbers, parents, counts, the first violation of each property and
the shortest counterexample are those of one worker, and of the engine before workers existed.
"""

from __future__ import annotations

import numpy as np

from checker.compiled.fpset import fingerprint, fingerprint_lo
from checker.compiled.table import (
    contains_fp, insert_fp, prefetch_fp, shard_of,
)
from model.kernel.actions import successors
from model.kernel.intrinsics import load_word, store_word
from model.kernel.jit import inlined_kernel, kernel, nogil_kernel
from model.kernel.symmetry import canonical
from properties.compiled import holds

# coverage columns, per action id
ENABLED = 0  # expanded states in which the action had at least one instance
FOUND = 1  # successors it produced
NEW = 2  # of those, states never seen before

NOT_JUDGED = -2  # a property violated before this batch: not judged again
OPEN = -1  # judged, not violated (yet)


@inlined_kernel
def class_fingerprint(s, lay, sym, order_cmp, scratch, best):
    """The fingerprint of ``s``'s class: of its canonical row under symmetry reduction."""
    if canonical(s, lay, sym, order_cmp, scratch, best):
        return fingerprint(s)
    return fingerprint(best)


@inlined_kernel
def class_fingerprint_lo(s, lay, sym, order_cmp, scratch, best):
    """The low word of ``s``'s class's 128-bit fingerprint (the high word is
    ``class_fingerprint``)."""
    if canonical(s, lay, sym, order_cmp, scratch, best):
        return fingerprint_lo(s)
    return fingerprint_lo(best)


@inlined_kernel
def _canonical_fingerprints(s, lay, sym, order_cmp, scratch, best, wide):
    """Both words of ``s``'s class fingerprint (the second 0 unless ``wide``), from one
    canonical form."""
    if canonical(s, lay, sym, order_cmp, scratch, best):
        return fingerprint(s), fingerprint_lo(s) if wide else np.uint64(0)
    return fingerprint(best), fingerprint_lo(best) if wide else np.uint64(0)


@kernel
def _copy_row(src, dst):
    for w in range(src.shape[0] // 8):  # rows are whole 64-bit words
        store_word(dst, w, load_word(src, w))


@kernel
def _local_slot(local, hi, lo):
    """The slot of ``local`` holding the fingerprint, or the empty one where it would go."""
    mask = local.shape[0] - 1
    wide = local.shape[1] > 1
    i = np.int64(hi & np.uint64(mask))
    while True:
        v = local[i, 0]
        if v == 0 or (v == hi and (not wide or local[i, 1] == lo)):
            return i
        i = (i + 1) & mask


@kernel
def _first_in_slice(local, hi, lo):
    """Add the fingerprint to the slice's own small table (``local``, a power of two of slots);
    True if it was not there: a successor already among the slice's candidates is not copied
    again (half of the candidates would otherwise be such repeats)."""
    i = _local_slot(local, hi, lo)
    if local[i, 0] != 0:
        return False
    local[i, 0] = hi
    if local.shape[1] > 1:
        local[i, 1] = lo
    return True


@kernel
def _empty_local(local, cand_fps, n):
    """Empty ``local`` again, which holds exactly the fingerprints of ``cand_fps[:n]`` (added in
    that order): removed in the reverse order, each is found where it was put (linear probing
    undone step by step), so only their slots are touched, not the whole table."""
    wide = cand_fps.shape[1] > 1
    for c in range(n - 1, -1, -1):
        i = _local_slot(local, cand_fps[c, 0], cand_fps[c, 1] if wide else np.uint64(0))
        local[i, 0] = 0
        if wide:
            local[i, 1] = 0


@inlined_kernel
def _fingerprinted_successors(row, lay, cfg, sym, table, out, acts, hi, lo, order_cmp, scratch,
                              best, wide):
    """``row``'s successors into ``out``/``acts``, their class fingerprints into ``hi``/``lo``,
    and a fetch of each one's slot of ``table`` started; returns how many."""
    k = successors(row, lay, cfg, out, acts)
    for j in range(k):
        hi[j], lo[j] = _canonical_fingerprints(out[j], lay, sym, order_cmp, scratch, best, wide)
        prefetch_fp(table, hi[j])
    return k


@nogil_kernel
def expand_rows(rows, start, stop, lay, cfg, sym, table, out, acts, hi, lo, ahead, local,
                cand_rows, cand_fps, cand_shard, cand_parent, cand_j, cand_action, coverage,
                counts, scratch, best, order_cmp, seen_action, insert_now, table_room):
    """Phase 1 for ``rows[start:stop]``: candidates into ``cand_*`` from index 0 (``cand_parent``
    holds the row's position ``i``). Stops before a row whose successors might not fit the
    candidate buffer. Returns the position reached; ``counts`` gets (successors computed,
    candidates written). ``local`` is a scratch table, empty on entry and left empty, at least
    twice the size of the candidate buffer. With ``insert_now`` (one worker) the candidates are inserted into the
    table here, and are the fresh ones; it then also stops before a row whose successors might
    not fit the table's ``table_room`` more fingerprints.

    One row ahead: the next row's successors are computed and fingerprinted, and their slots'
    fetches started, before this row's are looked up (``ahead`` holds the second set of
    ``out``, ``acts``, ``hi``, ``lo``): a look-up then finds its slot in the cache, fetched
    while a whole row was expanded, instead of waiting a memory latency for it (the table is
    larger than the cache). Look-ups and insertions stay in the rows' order."""
    wide = cand_fps.shape[1] > 1
    out2, acts2, hi2, lo2 = ahead
    room = (min(cand_rows.shape[0], table_room) if insert_now else cand_rows.shape[0]) - out.shape[0]
    n = 0
    generated = 0
    reached = stop
    k_ahead = 0  # successors of the row after the one being looked up
    for i in range(start - 1, stop):  # i = start - 1: only the first row's successors
        if i >= start and n > room:
            reached = i
            break
        k = k_ahead
        if i + 1 < stop:
            even = (i + 1 - start) % 2 == 0  # even rows use out, odd ones out2
            a_out, a_acts, a_hi, a_lo = (out, acts, hi, lo) if even else (out2, acts2, hi2, lo2)
            k_ahead = _fingerprinted_successors(rows[i + 1], lay, cfg, sym, table, a_out, a_acts,
                                                a_hi, a_lo, order_cmp, scratch, best, wide)
        if i < start:
            continue
        even = (i - start) % 2 == 0
        t_out, t_acts, t_hi, t_lo = (out, acts, hi, lo) if even else (out2, acts2, hi2, lo2)
        generated += k
        for a in range(seen_action.shape[0]):
            seen_action[a] = 0
        for j in range(k):
            action = t_acts[j, 0]
            coverage[action, FOUND] += 1
            if seen_action[action] == 0:
                seen_action[action] = 1
                coverage[action, ENABLED] += 1
            if insert_now:
                if not insert_fp(table, t_hi[j], t_lo[j]):
                    continue
            elif contains_fp(table, t_hi[j], t_lo[j]) or not _first_in_slice(local, t_hi[j], t_lo[j]):
                continue
            _copy_row(t_out[j], cand_rows[n])
            cand_fps[n, 0] = t_hi[j]
            if wide:
                cand_fps[n, 1] = t_lo[j]
            cand_shard[n] = shard_of(t_hi[j], table.shape[0])
            cand_parent[n] = i
            cand_j[n] = j
            cand_action[n] = action
            n += 1
    if not insert_now:
        _empty_local(local, cand_fps, n)
    counts[0] = generated
    counts[1] = n
    return reached


PREFETCH_AHEAD = 8  # phase 2: the slot of the candidate this many places on is being fetched


@nogil_kernel
def insert_candidates(table, shard, cand_fps, cand_shard, counts, fresh, new, fills, mine):
    """Phase 2 for one shard: insert the candidates that fall in ``shard`` of every slice of the
    batch (slice ``i``'s are ``cand_fps[i, :counts[i]]``), slice after slice, in order;
    ``fresh[i, c]`` = 1 if candidate ``c`` of slice ``i`` was not in the table, ``new[i]``
    counts them per slice and ``fills[shard]`` in all. (One call per shard, not per shard and
    slice: each call from Python costs some microseconds under the global lock.)

    A slice's candidates of this shard are listed first (``mine``, scratch of a slice's size),
    then inserted in order while the slot of the one ``PREFETCH_AHEAD`` places on is fetched:
    with a shard per worker's quarter of the table only one candidate in eight or more is this
    shard's, so fetching a window of the slice's candidates kept only one or two fetches in
    flight, and each insertion waited most of a memory latency for its slot."""
    wide = cand_fps.shape[2] > 1
    total = 0
    for i in range(counts.shape[0]):
        n = counts[i]
        m = 0
        for c in range(n):
            if cand_shard[i, c] == shard:
                mine[m] = c
                m += 1
        for k in range(min(PREFETCH_AHEAD, m)):
            prefetch_fp(table, cand_fps[i, mine[k], 0])
        found = 0
        for k in range(m):
            if k + PREFETCH_AHEAD < m:
                prefetch_fp(table, cand_fps[i, mine[k + PREFETCH_AHEAD], 0])
            c = mine[k]
            if insert_fp(table, cand_fps[i, c, 0], cand_fps[i, c, 1] if wide else np.uint64(0)):
                fresh[i, c] = 1
                found += 1
            else:
                fresh[i, c] = 0
        new[i] = found
        total += found
    fills[shard] += total
    return total


@nogil_kernel
def admit_fresh(cand_rows, cand_fps, cand_parent, cand_j, cand_action, fresh, n, first_rank,
                nxt_rows, nxt_parent, nxt_j, nxt_action, position, level_position, disk_shards,
                pending_fps, pending_position, pending_action, pending_fill, props, violated,
                coverage, lay):
    """Phase 3: the fresh candidates of ``cand_*[:n]`` become next-level records at
    ``nxt_*[position:]`` (the level's records ``level_position`` on), in order (the parent is
    the state numbered ``first_rank + cand_parent``); each is judged against the compiled
    properties ``props`` whose ``violated`` entry is ``OPEN``, which gets the candidate's
    position at the first violation. A fresh state of a shard that has fingerprints on disk
    (``disk_shards``) is only fresh in memory: it is also written, with its position in the
    level, to the pending list, to be checked against the disk (``runs.py``). Returns how many
    records were written."""
    wide = cand_fps.shape[1] > 1
    shards = disk_shards.shape[0]
    m = 0
    for c in range(n):
        if fresh[c] == 0:
            continue
        p = position + m
        t = cand_rows[c]
        _copy_row(t, nxt_rows[p])
        nxt_parent[p] = first_rank + cand_parent[c]
        nxt_j[p] = cand_j[c]
        action = cand_action[c]
        nxt_action[p] = action
        coverage[action, NEW] += 1
        if disk_shards[shard_of(cand_fps[c, 0], shards)]:
            q = pending_fill[0]
            pending_fps[q, 0] = cand_fps[c, 0]
            if wide:
                pending_fps[q, 1] = cand_fps[c, 1]
            pending_position[q] = level_position + m
            pending_action[q] = action
            pending_fill[0] = q + 1
        for i in range(props.shape[0]):
            if violated[i] == OPEN and not holds(props[i], t, lay):
                violated[i] = c
        m += 1
    return m


@nogil_kernel
def recount(rows, stop, last_successors, lay, cfg, out, acts, seen_action, coverage):
    """Coverage (enabled, found) and the successor count of ``rows[:stop]``, of which the last
    row counts only its first ``last_successors`` successors in coverage (a search stopped at an
    exact number of states in the middle of a row): what one worker had counted when it
    stopped there. Returns the successors computed."""
    generated = 0
    for i in range(stop):
        k = successors(rows[i], lay, cfg, out, acts)
        generated += k
        upto = last_successors if i == stop - 1 else k
        for a in range(seen_action.shape[0]):
            seen_action[a] = 0
        for j in range(min(k, upto)):
            action = acts[j, 0]
            coverage[action, FOUND] += 1
            if seen_action[action] == 0:
                seen_action[action] = 1
                coverage[action, ENABLED] += 1
    return generated


@nogil_kernel
def count_beyond(rows, stop, lay, cfg, sym, table, beyond, fill, out, acts, scratch, best,
                 order_cmp):
    """For a level at the depth limit: its successors never seen (not in ``table``), inserted
    into ``beyond`` (a one-shard table; ``fill[0]`` counts them) so each is counted once: where
    the search was cut. Stops before a row whose successors might not fit; returns ``(position
    reached, successors computed)``."""
    generated = 0
    wide = table.shape[2] > 1
    for i in range(stop):
        k = successors(rows[i], lay, cfg, out, acts)
        if fill[0] + k > int(beyond.shape[1] * 0.8):
            return i, generated
        generated += k
        for j in range(k):
            hi, lo = _canonical_fingerprints(out[j], lay, sym, order_cmp, scratch, best, wide)
            if not contains_fp(table, hi, lo) and insert_fp(beyond, hi, lo):
                fill[0] += 1
    return stop, generated


def work_buffers(width: int, n_brokers: int, max_successors: int, n_actions: int) -> dict:
    """The scratch arrays one worker's kernels need, sized for one configuration (``ahead``:
    ``expand_rows``'s second ``out``, ``acts``, ``fps``, ``lo``, for the row after)."""
    return {
        "out": np.zeros((max_successors, width), dtype=np.int8),
        "acts": np.zeros((max_successors, 3), dtype=np.int16),
        "fps": np.zeros(max_successors, dtype=np.uint64),
        "lo": np.zeros(max_successors, dtype=np.uint64),
        "ahead": (np.zeros((max_successors, width), dtype=np.int8),
                  np.zeros((max_successors, 3), dtype=np.int16),
                  np.zeros(max_successors, dtype=np.uint64),
                  np.zeros(max_successors, dtype=np.uint64)),
        "scratch": np.zeros(width, dtype=np.int8),
        "best": np.zeros(width, dtype=np.int8),
        "order_cmp": np.zeros(max(n_brokers * n_brokers, 1), dtype=np.int8),
        "seen_action": np.zeros(n_actions, dtype=np.int8),
    }
