"""k-induction at growing bounds against BFS (issue 29x): for each bound, ``model/estimate.py``'s
figure, what BFS (``kmc check``'s compiled engine) does within a time budget, and the proof's
verdict and CPU time.

    nice -n 19 .venv/bin/python bench/proof_scale.py [--bounds 1/2/1,1/3/2] [--bfs-seconds 120]

Bounds are records/leader-epochs/crashes of Kafka 2.1 ``+reset-followers-on-epoch`` at RF=3 (the
configuration whose library proves with 2 crashes and more, docs/symbolic.md "Past BFS's
reach"). The proof is ``kmc prove -p no-acked-loss -s all --search none`` (the induction alone:
a CTI prints INCONCLUSIVE, not settled by a search); its time is the process's user + system CPU
(z3 runs in the process), which a shared machine's load inflates less than the wall time, which
is printed beside it. One run per bound: figures for docs/symbolic.md, not assertions.
"""

from __future__ import annotations

import argparse
import resource
import time

from checker import check
from checker.symbolic.induction import prove
from model.estimate import config_states
from model.options import config_from_options


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _config(records: int, epochs: int, crashes: int):
    return config_from_options(kafka_version="2.1", replication_factor=3,
                               rule_changes=("+reset-followers-on-epoch",), max_records=records,
                               max_leader_epoch=epochs, max_crashes=crashes)[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bounds", default="1/2/1,1/3/2",
                    help="comma-separated records/epochs/crashes (default: %(default)s)")
    ap.add_argument("--bfs-seconds", type=float, default=120.0,
                    help="BFS's time budget per bound (0: no BFS run, the estimate only)")
    ap.add_argument("--property", default="no-acked-loss")
    args = ap.parse_args()
    print("Kafka 2.1 +reset-followers-on-epoch RF=3, kmc prove -p "
          f"{args.property} -s all --search none; BFS budget {args.bfs_seconds:.0f} s")
    print(f"{'bounds':>8} | {'estimate':>9} | {'BFS (kmc check)':<44} | proof")
    for spec in args.bounds.split(","):
        records, epochs, crashes = (int(x) for x in spec.split("/"))
        config = _config(records, epochs, crashes)
        estimate = f"{config_states(config):.1e}"
        bfs = "not run"
        if args.bfs_seconds > 0:
            r = check(config, [args.property], time_limit=args.bfs_seconds)
            done = "all" if r.limit is None else f"stopped ({r.limit})"
            bfs = (f"{done}: {r.stats.distinct_states:,} states, {r.stats.seconds:.0f} s, "
                   f"{r.verdict(args.property)}")
        cpu, wall = _cpu(), time.monotonic()
        p = prove(config, args.property, strengthen=["all"], search="none")
        print(f"{spec:>8} | {estimate:>9} | {bfs:<44} | {p.status}, {_cpu() - cpu:.1f} s CPU "
              f"({time.monotonic() - wall:.1f} s wall)", flush=True)


if __name__ == "__main__":
    main()
