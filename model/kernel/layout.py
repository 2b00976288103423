"""Where each slot of a cluster state lives in its fixed-width row.

A state is one row of ``int8`` values (every value kmc stores is a small integer: broker ids,
offsets, epochs, record ids, bit masks of brokers, counters). The row's width follows from the
configuration's bounds (replication factor, records, leader epochs), so one compiled kernel
serves every configuration: the kernel never knows field positions, it reads them from the
*layout array* ``lay``, where ``lay[HIGH_WATERMARK]`` is the position of the high watermark
within a broker's block, ``lay[CONTROLLER_LEADER]`` the position of the controller's leader in
the row, and so on. The slots, their order, widths and features are those of the state schema
(``model/schema.py``); their indices and one-slot accessors are generated into
``model/kernel/slots.py``, and ``model/kernel/fields.py`` adds the accessors with meaning.

A row is the partition's slots followed by one block per broker (``lay[BROKER0] +
b * lay[BROKER_STRIDE]``). Every slot has a *kind* saying what a renaming of brokers does to
it (``model/kernel/symmetry.py`` is generic over these tables, so a new field needs no new
symmetry code):

=============  ===============================================================================
``PLAIN``      not about brokers (an offset, an epoch, a flag): copied as is
``BROKER``     a broker id, or -1 for none: renamed
``MASK``       a set of brokers as a bit mask (bit b = broker b): its bits renamed
``PER_BROKER`` an array indexed by broker id (a leader's remote LEOs): its entries moved
=============  ===============================================================================

Requests addressed to a broker (LeaderAndIsr) live in the target's block, so a renaming moves
them with their broker. Unused slots (a log's tail past its LEO, an absent response) are always
zero (the acknowledgement slots: -1): equal states must be equal rows, or they would get
different fingerprints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import numpy as np

from model import schema
from model.kernel import slots
from model.kernel.slots import (  # noqa: F401  (the layout array's own entries, for its readers)
    BLOCK_COUNT, BLOCK_TABLE, BROKER0, BROKER_STRIDE, FEATURE_BITS, GLOBAL_COUNT, GLOBAL_TABLE,
    N_BROKERS, N_EPOCHS, N_RECORDS, SLOT_COUNT, WIDTH,
)

if slots.SCHEMA_DIGEST != schema.digest():
    raise ImportError("model/kernel/slots.py is out of date with model/schema.py: run "
                      "python model/kernel/generate.py")

PLAIN, BROKER, MASK, PER_BROKER = 0, 1, 2, 3
KIND_NAMES = {PLAIN: "plain", BROKER: "broker", MASK: "mask", PER_BROKER: "per-broker"}
_KINDS = {"plain": PLAIN, "broker": BROKER, "mask": MASK, "per-broker": PER_BROKER}

SLOT_NAMES = schema.SLOT_NAMES
FEATURES = schema.FEATURES


@dataclass(frozen=True)
class FieldSpec:
    """One slot: its name, where it starts (in the row, or in a broker's block), how many
    values it has, and its kind."""

    name: str
    offset: int
    count: int
    kind: int


@dataclass(frozen=True)
class Layout:
    """The layout of a configuration's rows: ``array`` is what the kernel reads (``lay``)."""

    array: np.ndarray
    width: int
    n_brokers: int
    n_records: int
    n_epochs: int
    global_fields: tuple = field(default=())
    block_fields: tuple = field(default=())
    features: frozenset = field(default=frozenset())

    def has(self, feature: str) -> bool:
        """Does this layout hold ``feature``'s slots (``FEATURES``)?"""
        return feature in self.features

    def position(self, slot: int, broker: int | None = None) -> int:
        """The row position of a slot (for a broker's slot, of that broker's copy)."""
        if broker is None:
            return int(self.array[slot])
        return int(self.array[BROKER0] + broker * self.array[BROKER_STRIDE] + self.array[slot])

    def block_start(self, broker: int) -> int:
        """Where broker ``broker``'s block starts in the row."""
        return int(self.array[BROKER0] + broker * self.array[BROKER_STRIDE])

    def count(self, name: str) -> int:
        """How many values the slot ``name`` has in this layout (0: its feature is off)."""
        return self._counts[name]

    @property
    def _counts(self) -> dict:
        return {f.name: f.count for f in self.global_fields + self.block_fields}

    def describe(self) -> list[str]:
        """One line per slot: position, size and kind (for ``docs`` and debugging)."""
        lines = [f"row: {self.width} bytes; broker blocks of {int(self.array[BROKER_STRIDE])} "
                 f"bytes from {int(self.array[BROKER0])}"]
        for f in self.global_fields:
            lines.append(f"  {f.offset:>4}  {f.name:<28} x{f.count:<3} {KIND_NAMES[f.kind]}")
        for f in self.block_fields:
            lines.append(f"  b+{f.offset:<3} {f.name:<28} x{f.count:<3} {KIND_NAMES[f.kind]}")
        return lines


def slot_count(s: schema.Slot, n_brokers: int, n_records: int, n_epochs: int, features) -> int:
    """How many values slot ``s`` has in a layout (0 when its feature is off)."""
    if s.feature and s.feature not in features:
        return 0
    return {schema.ONE: 1, schema.RECORDS: n_records, schema.EPOCHS: n_epochs,
            schema.BROKERS: n_brokers}[s.width]


def build_layout(n_brokers: int, n_records: int, n_epochs: int, features=()) -> Layout:
    """The layout for ``n_brokers`` replicas, ``n_records`` record slots, leader epochs
    ``0 .. n_epochs - 1`` carried by requests, and the optional ``features``."""
    features = frozenset(features)
    unknown = features - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown layout features {sorted(unknown)}")
    lay = np.zeros(SLOT_COUNT, dtype=np.int32)
    lay[N_BROKERS], lay[N_RECORDS], lay[N_EPOCHS] = n_brokers, n_records, n_epochs
    lay[FEATURE_BITS] = sum(1 << i for i, name in enumerate(FEATURES) if name in features)
    specs = {schema.PARTITION: [], schema.BLOCK: []}
    ends = {schema.PARTITION: 0, schema.BLOCK: 0}
    for s in schema.SLOTS:
        count = slot_count(s, n_brokers, n_records, n_epochs, features)
        index = schema.SLOT_INDEX[s.name]
        lay[index] = ends[s.level]
        specs[s.level].append(FieldSpec(s.name, ends[s.level], count, _KINDS[schema.kind_of(s)]))
        ends[s.level] += count
    head = (ends[schema.PARTITION] + 7) // 8 * 8  # blocks start on a word: renamings move words
    stride = (ends[schema.BLOCK] + 7) // 8 * 8  # whole 64-bit words
    lay[BROKER0], lay[BROKER_STRIDE] = head, stride
    width = head + n_brokers * stride  # whole 64-bit words, for hashing, comparing and moving
    lay[WIDTH] = width
    global_specs, block_specs = specs[schema.PARTITION], specs[schema.BLOCK]
    tables = []
    lay[GLOBAL_TABLE] = SLOT_COUNT
    lay[GLOBAL_COUNT] = len(global_specs)
    for f in global_specs:
        tables += [f.offset, f.count, f.kind]
    lay[BLOCK_TABLE] = SLOT_COUNT + len(tables)
    lay[BLOCK_COUNT] = len(block_specs)
    for f in block_specs:
        tables += [f.offset, f.count, f.kind]
    array = np.concatenate([lay, np.array(tables, dtype=np.int32)]).astype(np.int32)
    return Layout(array, width, n_brokers, n_records, n_epochs, tuple(global_specs),
                  tuple(block_specs), features)


def broker_orders(n_brokers: int) -> np.ndarray:
    """Every ordering of brokers ``1 .. n-1`` (broker 0 is never renamed: it leads the initial
    state), one per row: the renamings symmetry reduction chooses among."""
    rest = range(1, n_brokers)
    orders = list(permutations(rest)) or [()]
    return np.array(orders, dtype=np.int32).reshape(len(orders), max(n_brokers - 1, 0))


READS_BIT = 1 << FEATURES.index("reads")
PRODUCER_BIT = 1 << FEATURES.index("producer")
CONSUMER_BIT = 1 << FEATURES.index("consumer")
CONTROLLED_SHUTDOWN_BIT = 1 << FEATURES.index("controlled_shutdown")
