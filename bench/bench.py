"""``make bench``: the local explicit engine on three sizes of the default configuration.

The default configuration is kip-320, acks=all, min.insync.replicas=2, unclean election off,
process crashes, replication factor 3; the sizes grow the bounds. Each size runs in its own
subprocess so that peak memory (max RSS) is that run's alone. Figures vary with the machine's
load: compare ratios measured in one run.

    python bench/bench.py [--sizes small,medium,large,large-nosym] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

SIZES = {
    "small": dict(max_records=1, max_leader_epoch=1, max_crashes=0),
    "medium": dict(max_records=1, max_leader_epoch=1, max_crashes=1),
    "large": dict(max_records=1, max_leader_epoch=2, max_crashes=1),  # the RF=3 default bounds
    # the "before" of symmetry reduction: the default bounds with every state kept
    "large-nosym": dict(max_records=1, max_leader_epoch=2, max_crashes=1, symmetry=False),
}

CHILD = """
import json, resource, sys
from checker import check
from model import Bounds, ModelConfig
bounds = json.loads(sys.argv[1])
symmetry = bounds.pop("symmetry", True)
cfg = ModelConfig(protocol="kip-320", replication_factor=3, min_insync_replicas=2, acks="all",
                  bounds=Bounds(max_unflushed_losses=0, **bounds), symmetry=symmetry)
r = check(cfg, time_limit=float(sys.argv[2]))
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"stats": r.stats.to_json(), "limit": r.limit, "exit_code": r.exit_code,
                  "verdicts": sorted({p.verdict for p in r.properties}), "peak_mib": peak_kib / 1024}))
"""


def run_size(name: str, time_limit: float) -> dict:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(SIZES[name]), str(time_limit)],
        capture_output=True, text=True, cwd=root, env=dict(os.environ, PYTHONPATH=root),
    )
    if out.returncode != 0:
        raise SystemExit(f"bench {name} failed: {out.stderr.strip().splitlines()[-1:]}")
    data = json.loads(out.stdout)
    data["size"] = name
    data["bounds"] = SIZES[name]
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="small,medium,large,large-nosym")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [run_size(name, args.time_limit) for name in args.sizes.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("kmc bench: local BFS, kip-320 acks=all min.insync.replicas=2 RF=3, process crashes")
    print(f"{'size':<13} {'bounds (records/epochs/crashes)':<32} {'distinct':>10} {'generated':>11} "
          f"{'depth':>5} {'seconds':>8} {'states/s':>9} {'peak MiB':>9}  result")
    for r in rows:
        s, b = r["stats"], r["bounds"]
        result = "INCOMPLETE (time limit)" if r["limit"] else "/".join(r["verdicts"])
        print(f"{r['size']:<13} {b['max_records']}/{b['max_leader_epoch']}/{b['max_crashes']:<28} "
              f"{s['distinct_states']:>10,} {s['states_generated']:>11,} {s['depth']:>5} "
              f"{s['seconds']:>8.1f} {s['states_per_second']:>9,.0f} {r['peak_mib']:>9.0f}  {result}")


if __name__ == "__main__":
    main()
