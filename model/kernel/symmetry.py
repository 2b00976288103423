"""Symmetry reduction over rows: the canonical form of a state under renamings of brokers.

As in ``checker/reference/symmetry.py`` (the oracle's version), brokers ``1 .. N-1`` are
interchangeable and broker 0 is not (it leads the initial state), and kmc's properties never
name a broker. So every state stands for all its renamings, and the explorer keeps one
fingerprint per class: that of the *least* row among the renamings that sort brokers
``1 .. N-1`` by a renaming-invariant comparison, every order tried among brokers that compare
equal. The set of rows tried depends only on the class, so the result is a true canonical form.

How, fast: a renaming moves each broker's block whole (blocks are whole 64-bit words), moves
the entries of per-broker arrays, and renames the bytes that hold broker ids and masks, which
``symmetry_tables`` lists once per layout with the renaming tables. Brokers are compared field
by field as seen from each broker (``compare_brokers``), stopping at the first difference. All
of it is built from the layout's field tables, so a new field needs no code here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.kernel.intrinsics import load_word, store_word
from model.kernel.jit import inlined_kernel
from model.kernel.layout import BROKER, BROKER0, BROKER_STRIDE, MASK, N_BROKERS, PER_BROKER, PLAIN, Layout

SKIP = -1  # a per-broker entry compared with its field's first entry


@dataclass(frozen=True)
class SymmetryTables:
    """Precomputed renamings of one layout (see the module docstring).

    ``orders[o]``: the brokers placed at positions 1..N-1 by renaming ``o`` (0 = identity);
    ``broker_map[o, b]`` / ``inverse[o, b]``: the new name of broker ``b`` / the old name of
    the broker named ``b`` now; ``mask_map[o, m]``: mask ``m`` renamed; ``per_broker``:
    (offset, count) of the per-broker arrays in a block; ``broker_specials`` /
    ``mask_specials``: the row positions holding a broker id / a mask; ``block_kinds``: the
    kind of each position of a broker's block, for comparing brokers; ``global_refs``:
    (position, kind) of every global field naming brokers; ``plain_words``: per 64-bit word of
    a block, the mask of its plain bytes (compared first, a word at a time);
    ``block_refs``: (position, kind) of the block's other bytes, compared after.
    """

    orders: np.ndarray
    inverse: np.ndarray
    per_broker: np.ndarray
    broker_specials: np.ndarray
    mask_specials: np.ndarray
    broker_map: np.ndarray
    mask_map: np.ndarray
    block_kinds: np.ndarray
    global_refs: np.ndarray
    plain_words: np.ndarray
    block_refs: np.ndarray

    def as_tuple(self) -> tuple:
        """The tables as the kernel takes them (``canonical``'s ``sym`` argument)."""
        return (self.orders, self.inverse, self.per_broker, self.broker_specials,
                self.mask_specials, self.broker_map, self.mask_map, self.global_refs,
                self.plain_words, self.block_refs)


def symmetry_tables(layout: Layout, orders: np.ndarray) -> SymmetryTables:
    n, width = layout.n_brokers, layout.width
    b0, stride = int(layout.array[BROKER0]), int(layout.array[BROKER_STRIDE])
    kinds = np.zeros(width, dtype=np.int8)
    for f in layout.global_fields:
        kinds[f.offset:f.offset + f.count] = PLAIN if f.kind == PER_BROKER else f.kind
    block_kinds = np.zeros(max(stride, 1), dtype=np.int8)
    for f in layout.block_fields:
        if f.count == 0:
            continue  # a feature this configuration leaves out: no bytes, nothing to rename
        if f.kind == PER_BROKER:
            block_kinds[f.offset] = PER_BROKER
            block_kinds[f.offset + 1:f.offset + f.count] = SKIP
        else:
            block_kinds[f.offset:f.offset + f.count] = f.kind
        for b in range(n):
            start = b0 + b * stride + f.offset
            kinds[start:start + f.count] = PLAIN if f.kind == PER_BROKER else f.kind
    m = orders.shape[0]
    broker_map = np.zeros((m, max(n, 1)), dtype=np.int8)
    inverse = np.zeros((m, max(n, 1)), dtype=np.int8)
    mask_map = np.zeros((m, 1 << n), dtype=np.int8)
    for o in range(m):
        perm = [0] * n  # perm[old] = new
        for position, b in enumerate(orders[o], 1):
            perm[int(b)] = position
        for old, new in enumerate(perm):
            broker_map[o, old] = new
            inverse[o, new] = old
        for mask in range(1 << n):
            mask_map[o, mask] = sum(1 << perm[b] for b in range(n) if mask >> b & 1)
    if any(f.kind == PER_BROKER for f in layout.global_fields):
        raise ValueError("per-broker arrays belong in the broker blocks")
    per_broker = np.array([(f.offset, f.count) for f in layout.block_fields
                           if f.kind == PER_BROKER and f.count > 0]
                          or np.zeros((0, 2)), dtype=np.int32).reshape(-1, 2)
    refs = [(f.offset + j, f.kind) for f in layout.global_fields if f.kind in (BROKER, MASK)
            for j in range(f.count)]
    global_refs = np.array(refs or [(0, PLAIN)], dtype=np.int32).reshape(-1, 2)
    broker_specials = np.flatnonzero(kinds == BROKER).astype(np.int32)
    mask_specials = np.flatnonzero(kinds == MASK).astype(np.int32)
    plain = np.zeros(len(block_kinds) + (-len(block_kinds)) % 8, dtype=np.uint8)
    plain[:len(block_kinds)][block_kinds == PLAIN] = 0xFF
    plain_words = plain.view("<u8").astype(np.uint64)  # rows are read as little-endian words
    block_refs = np.array([(i, k) for i, k in enumerate(block_kinds) if k not in (PLAIN, SKIP)]
                          or [(0, PLAIN)], dtype=np.int32).reshape(-1, 2)
    return SymmetryTables(orders, inverse, per_broker, broker_specials, mask_specials,
                          broker_map, mask_map, block_kinds, global_refs, plain_words, block_refs)


@inlined_kernel
def permute_row(src, dst, o, lay, inverse, per_broker, broker_specials, mask_specials,
                broker_map, mask_map):
    """``dst`` = ``src`` renamed by renaming ``o``: the partition's fields copied, each broker's
    block moved to its new place whole (blocks are whole 64-bit words), the entries of
    per-broker arrays moved, then the bytes holding broker ids and masks renamed."""
    n = lay[N_BROKERS]
    b0, stride = lay[BROKER0], lay[BROKER_STRIDE]
    for i in range(b0 // 8):
        store_word(dst, i, load_word(src, i))
    words = stride // 8
    for new in range(n):
        d, s = (b0 + new * stride) // 8, (b0 + inverse[o, new] * stride) // 8
        for i in range(words):
            store_word(dst, d + i, load_word(src, s + i))
    for new in range(n):
        d, s = b0 + new * stride, b0 + inverse[o, new] * stride
        for f in range(per_broker.shape[0]):
            off, count = per_broker[f, 0], per_broker[f, 1]
            for j in range(count):
                dst[d + off + broker_map[o, j]] = src[s + off + j]
    for j in range(broker_specials.shape[0]):
        i = broker_specials[j]
        v = dst[i]
        if v >= 0:
            dst[i] = broker_map[o, v]
    for j in range(mask_specials.shape[0]):
        i = mask_specials[j]
        dst[i] = mask_map[o, dst[i]]


@inlined_kernel
def _relative(v, b):
    """A broker id seen from broker ``b``: itself, broker 0, none, or another one."""
    if v == b:
        return 200
    if v <= 0:
        return v
    return 100


@inlined_kernel
def _mask_relative(mask, b):
    count = 0
    m = mask
    while m > 0:
        count += m & 1
        m >>= 1
    return ((mask >> b) & 1) * 2 + (mask & 1) + count * 4


@inlined_kernel
def compare_brokers(s, lay, b1, b2, plain_words, block_refs, global_refs):
    """-1, 0 or 1: how brokers ``b1`` and ``b2`` compare, each seen from itself (a comparison
    a renaming of brokers does not change). First the plain bytes of their blocks, a 64-bit word
    at a time (most pairs of brokers differ there: an epoch, an offset, a flag); then the bytes
    naming brokers, as each broker sees them; then the partition's fields naming them."""
    n = lay[N_BROKERS]
    base1 = lay[BROKER0] + b1 * lay[BROKER_STRIDE]
    base2 = lay[BROKER0] + b2 * lay[BROKER_STRIDE]
    for w in range(plain_words.shape[0]):  # blocks are whole words, so these reads are aligned
        m = plain_words[w]
        x1, x2 = load_word(s, base1 // 8 + w) & m, load_word(s, base2 // 8 + w) & m
        if x1 != x2:
            return -1 if x1 < x2 else 1
    for r in range(block_refs.shape[0]):
        i, k = block_refs[r, 0], block_refs[r, 1]
        v1, v2 = s[base1 + i], s[base2 + i]
        if k == BROKER:
            v1, v2 = _relative(v1, b1), _relative(v2, b2)
        elif k == MASK:
            v1, v2 = _mask_relative(v1, b1), _mask_relative(v2, b2)
        elif k == PER_BROKER:  # the broker's own entry, broker 0's, then the others' sum
            v1, v2 = s[base1 + i + b1], s[base2 + i + b2]
            if v1 == v2:
                v1, v2 = s[base1 + i], s[base2 + i]
            if v1 == v2:
                v1, v2 = 0, 0
                for j in range(1, n):
                    if j != b1:
                        v1 += s[base1 + i + j]
                    if j != b2:
                        v2 += s[base2 + i + j]
        else:
            continue
        if v1 != v2:
            return -1 if v1 < v2 else 1
    for r in range(global_refs.shape[0]):
        pos, k = global_refs[r, 0], global_refs[r, 1]
        v = s[pos]
        if k == BROKER:
            v1, v2 = 1 if v == b1 else 0, 1 if v == b2 else 0
        elif k == MASK:
            v1, v2 = (v >> b1) & 1, (v >> b2) & 1
        else:
            continue
        if v1 != v2:
            return -1 if v1 < v2 else 1
    return 0


@inlined_kernel
def row_less(a, b):
    """A total order on rows (word by word)."""
    for i in range(a.shape[0] // 8):
        wa, wb = load_word(a, i), load_word(b, i)
        if wa != wb:
            return wa < wb
    return False


@inlined_kernel
def canonical_row(s, lay, orders, inverse, per_broker, broker_specials, mask_specials,
                  broker_map, mask_map, plain_words, block_refs, global_refs, order_cmp, scratch,
                  best):
    """Find the canonical row of ``s``'s class: True if it is ``s`` itself, False if it was
    written to ``best`` (``scratch`` and ``best`` are rows of the layout's width; ``order_cmp``
    an int8 work array of N*N)."""
    n = lay[N_BROKERS]
    m = orders.shape[0]
    if n <= 2 or m <= 1:
        return True
    ties = False
    for b1 in range(1, n):
        for b2 in range(b1 + 1, n):
            c = compare_brokers(s, lay, b1, b2, plain_words, block_refs, global_refs)
            order_cmp[b1 * n + b2] = c
            order_cmp[b2 * n + b1] = -c
            if c == 0:
                ties = True
    if not ties:  # one ordering sorts the brokers: apply it
        for o in range(m):
            if _sorts(orders, o, order_cmp, n):
                if o == 0:
                    return True
                permute_row(s, best, o, lay, inverse, per_broker, broker_specials, mask_specials,
                            broker_map, mask_map)
                return False
    found = False  # brokers that compare equal: the least row over every order among them
    use_s = False
    for o in range(m):
        if not _sorts(orders, o, order_cmp, n):
            continue
        if o == 0:  # the identity
            if not found:
                use_s, found = True, True
            elif not use_s and row_less(s, best):
                use_s = True
            continue
        permute_row(s, scratch, o, lay, inverse, per_broker, broker_specials, mask_specials,
                    broker_map, mask_map)
        if not found or row_less(scratch, s if use_s else best):
            for i in range(best.shape[0]):
                best[i] = scratch[i]
            use_s, found = False, True
    return use_s


@inlined_kernel
def _sorts(orders, o, order_cmp, n):
    """Does ordering ``o`` place the brokers in non-decreasing order?"""
    for i in range(n - 2):
        if order_cmp[orders[o, i] * n + orders[o, i + 1]] > 0:
            return False
    return True


@inlined_kernel
def canonical(s, lay, sym, order_cmp, scratch, best):
    """``canonical_row`` with the tables as one tuple (``SymmetryTables.as_tuple``). Inlined too:
    called, it would pass the ten tables' 80-odd fields on every call, which cost the explorer
    more than the canonical form itself (about 80 ns a state against 50 on rf3-r2's rows,
    issue 27)."""
    (orders, inverse, per_broker, broker_specials, mask_specials, broker_map, mask_map,
     global_refs, plain_words, block_refs) = sym
    return canonical_row(s, lay, orders, inverse, per_broker, broker_specials, mask_specials,
                         broker_map, mask_map, plain_words, block_refs, global_refs, order_cmp,
                         scratch, best)
