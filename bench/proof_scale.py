"""k-induction at growing bounds against BFS (issue 29x): for each bound, ``model/estimate.py``'s
figure, what BFS (``kmc check``'s compiled engine) does within a time budget, and the proof's
verdict and CPU time.

    nice -n 19 .venv/bin/python bench/proof_scale.py [--bounds 1/2/1,1/3/2] [--bfs-seconds 120]
        [--bfs-memory 8G] [--no-proof]

Bounds are records/leader-epochs/crashes of Kafka 2.1 ``+reset-followers-on-epoch`` at RF=3 (the
configuration whose library proves with 2 crashes and more, docs/symbolic.md "Past BFS's
reach"). The proof is ``kmc prove -p no-acked-loss -s all --search none`` (the induction alone:
a CTI prints INCONCLUSIVE, not settled by a search); its time is the process's user + system CPU
(z3 runs in the process), which a shared machine's load inflates less than the wall time, which
is printed beside it. One run per bound: figures for docs/symbolic.md, not assertions.

``--bfs-memory`` (issue 29ab) bounds BFS's memory as ``kmc check --memory-limit SIZE --disk-limit
0`` does: past it BFS stops INCOMPLETE instead of spilling to disk, so a bound past BFS's reach
is shown by a BFS stopped at its limit, with the states and depth it had reached. With 1 record
and epochs <= 6, crashes cost the proof little and BFS a lot (docs/symbolic.md "Past BFS's reach
(issue 29ab)"): ``--bounds 1/6/5,1/6/10 --bfs-memory 8G`` shows the crossing.
"""

from __future__ import annotations

import argparse
import resource
import time

from checker import check
from commands.check import parse_size
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
    ap.add_argument("--bfs-memory", default=None,
                    help="BFS's memory limit (e.g. 8G): past it BFS stops, no spill to disk")
    ap.add_argument("--no-proof", action="store_true", help="BFS and the estimate only")
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
            limits = {} if args.bfs_memory is None else {
                "memory_limit": parse_size(args.bfs_memory), "disk_limit": 0}
            r = check(config, [args.property], time_limit=args.bfs_seconds, **limits)
            done = "all" if r.limit is None else f"stopped ({r.limit})"
            bfs = (f"{done}: {r.stats.distinct_states:,} states, depth {r.stats.depth}, "
                   f"{r.stats.seconds:.0f} s, {r.verdict(args.property)}")
        if args.no_proof:
            print(f"{spec:>8} | {estimate:>9} | {bfs:<44} | not run", flush=True)
            continue
        cpu, wall = _cpu(), time.monotonic()
        p = prove(config, args.property, strengthen=["all"], search="none")
        print(f"{spec:>8} | {estimate:>9} | {bfs:<44} | {p.status}, {_cpu() - cpu:.1f} s CPU "
              f"({time.monotonic() - wall:.1f} s wall)", flush=True)


if __name__ == "__main__":
    main()
