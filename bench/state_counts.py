"""The table behind ``model/estimate.py``: distinct states of small bounds, to extrapolate from.

For each replication factor and each (max-records, max-leader-epoch, max-crashes) in a small
box, the compiled engine explores every reachable state of kip-320 (Kafka 2.1's rules), acks=all,
min.insync.replicas=2, unclean election off, process crashes, symmetry on (checking only
hw-le-leo, which holds everywhere, so nothing stops the search early) and prints the count as a
Python dict literal, to paste into ``model/estimate.py``. A row that hits the time limit is left
out. About 3 minutes on 2 shared cores.

    python bench/state_counts.py [--rf 2,3] [--time-limit 60]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from checker import check  # noqa: E402  (after the path: run from a checkout)
from model import Bounds, ModelConfig  # noqa: E402

BOXES = {2: (3, 3, 2), 3: (2, 3, 2)}  # the largest records, epochs, crashes measured per RF


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rf", default="2,3")
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    for rf in (int(x) for x in args.rf.split(",")):
        records, epochs, crashes = BOXES[rf]
        print(f"    {rf}: {{")
        for r, e, c in itertools.product(range(records + 1), range(epochs + 1), range(crashes + 1)):
            config = ModelConfig(protocol="kip-320", replication_factor=rf, bounds=Bounds(r, e, c, 1))
            result = check(config, ["hw-le-leo"], time_limit=args.time_limit)
            if result.limit is None:
                print(f"        ({r}, {e}, {c}): {result.stats.distinct_states},", flush=True)
        print("    },")


if __name__ == "__main__":
    main()
