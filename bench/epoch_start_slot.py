"""On how many reachable states does Kafka 2.1's epoch-start slot differ from the log?

``epoch_start_offset`` (``model/kernel/spec.py`` ``ENVIRONMENT``) holds the start offset of a
leader's epoch where ``Partition.makeLeader`` recorded one the log does not give (a broker that
took up an epoch it already had records of); it is -1 wherever the log gives it. A state with the
slot >= 0 is one where the slot matters. BFS over every reachable state (one per class of broker
renamings, ``checker.symbolic.strengthen.reachable``), counting those (issue 29bi)::

    nice -n 19 .venv/bin/python bench/epoch_start_slot.py --kafka-version 2.7 -r 2 \\
        --max-crashes 2 --max-controller-failovers 1

Exit 0 when no reachable state sets it, 1 when some do (the first is printed), 2 on bad input.
"""

from __future__ import annotations

import sys
import time

from checker.symbolic.strengthen import STRENGTHENINGS
from checker.symbolic.strengthen import reachable

NAME = "epoch-start-slot-unset"


class _SlotUnset:
    """A predicate in the shape ``false_on_reachable`` reads (``holds(state, config)``)."""

    def holds(self, state, config) -> bool:
        return all(r.epoch_start_offset < 0 for r in state.replicas)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    STRENGTHENINGS[NAME] = _SlotUnset()
    started = time.monotonic()
    code = reachable.main(argv + ["--only", NAME])
    print(f"({time.monotonic() - started:.1f} s wall)")
    return code


if __name__ == "__main__":
    sys.exit(main())
