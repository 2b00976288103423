"""The readable model over the compiled kernel: the ``Model`` protocol (``init_states``,
``successors``, ``next_state``, ``canonical``) on ``ClusterState``s, computed by the kernel.

This is what traces, ``kmc trace replay``, ``kmc graph`` and the viewer use: every rule runs in
the kernel (``model/kernel/actions/``) and the readable states are decodings of its rows, so
the rules are written once. (``checker/reference`` keeps the earlier pure-Python definition of
the four 2018-era protocols as the oracle, proven equal to the kernel by
``tests/unit/test_kernel_equivalence.py``.)
"""

from __future__ import annotations

import numpy as np

from model.actions import Action
from model.config import ModelConfig
from model.kernel.actions import successors as kernel_successors
from model.kernel.codec import decode, decode_action, encode
from model.kernel.spec import kernel_spec
from model.kernel.symmetry import canonical
from model.state import ClusterState


class CompiledModel:
    """The transition system of ``config``, one state at a time, through the kernel."""

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        self.spec = kernel_spec(config)
        width, n = self.spec.width, config.replication_factor
        self._out = np.zeros((self.spec.max_successors, width), dtype=np.int8)
        self._acts = np.zeros((self.spec.max_successors, 3), dtype=np.int16)
        self._scratch = np.zeros(width, dtype=np.int8)
        self._best = np.zeros(width, dtype=np.int8)
        self._order_cmp = np.zeros(n * n, dtype=np.int8)

    def init_states(self) -> list[ClusterState]:
        return [decode(self.spec.initial, self.spec.layout)]

    def successors(self, state: ClusterState) -> list[tuple[Action, ClusterState]]:
        """Every enabled action and the state it leads to, in the kernel's fixed order."""
        out, acts = self._out, self._acts
        k = kernel_successors(encode(state, self.spec.layout), self.spec.lay, self.spec.cfg, out, acts)
        return [(decode_action(acts[j]), decode(out[j], self.spec.layout)) for j in range(k)]

    def next_state(self, state: ClusterState, act: Action) -> ClusterState | None:
        for candidate, nxt in self.successors(state):
            if candidate == act:
                return nxt
        return None

    def canonical(self, state: ClusterState) -> bytes:
        """The canonical row of ``state``'s symmetry class, as bytes: equal for exactly the
        states that differ by a renaming of brokers 1..N-1 (``model/kernel/symmetry.py``)."""
        row = encode(state, self.spec.layout)
        if canonical(row, self.spec.lay, self.spec.sym, self._order_cmp, self._scratch, self._best):
            return row.tobytes()
        return self._best.tobytes()
