"""``make bench-spark``: the local engine against the Spark engine (``local[2]`` by default).

For each size it runs, each in its own subprocess, the local BFS engine and the Spark engine on
the same configuration (kip-320, acks=all, min.insync.replicas=2, unclean election off, process
crashes, as ``bench/bench.py``), checks that both found the same distinct states, depth and
verdicts, and prints seconds and states/s. For Spark it prints the exploration time (the JVM's
start-up excluded), the whole wall time, the number of BFS levels, and the time per level.
The ``levels`` size is nearly empty (a few hundred states over a dozen levels): its time per
level (``median``: the median level, so the first level's Python-worker start-up is left out) is
the engine's fixed cost per level.

    python bench/spark_bench.py [--sizes levels,small,medium] [--master local[2]] [--partitions N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

SIZES = {
    "levels": dict(replication_factor=2, max_records=1, max_leader_epoch=0, max_crashes=1),
    "small": dict(replication_factor=3, max_records=1, max_leader_epoch=1, max_crashes=1),
    "medium": dict(replication_factor=3, max_records=1, max_leader_epoch=2, max_crashes=1),
}

CHILD = """
import json, sys
import spark_explore  # joins the engine registry
from checker import check
from model import Bounds, ModelConfig
size, engine, options = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
rf = size.pop("replication_factor")
cfg = ModelConfig(protocol="kip-320", replication_factor=rf, min_insync_replicas=2, acks="all",
                  bounds=Bounds(max_unflushed_losses=0, **size))
r = check(cfg, engine=engine, **options)
print(json.dumps({"stats": r.stats.to_json(), "limit": r.limit, "notes": r.notes,
                  "verdicts": [[p.name, p.verdict] for p in r.properties]}))
"""


def run(size: str, engine: str, options: dict) -> dict:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(SIZES[size]), engine, json.dumps(options)],
        capture_output=True, text=True, cwd=root, env=dict(os.environ, PYTHONPATH=root),
    )
    if out.returncode != 0:
        raise SystemExit(f"spark bench {size}/{engine} failed: {out.stderr.strip().splitlines()[-1:]}")
    data = json.loads(out.stdout)
    data["wall"] = time.monotonic() - started
    return data


def levels_of(result: dict) -> int:
    note = next(n for n in result["notes"] if "after each level" in n)
    return len(note.split(":")[-1].split(",")) - 1


def median_level_seconds(result: dict) -> float:
    note = next(n for n in result["notes"] if "seconds per level" in n)
    times = sorted(float(x) for x in note.split(":")[-1].split(","))
    return times[len(times) // 2] if times else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="levels,small,medium")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for size in args.sizes.split(","):
        local = run(size, "bfs", {})
        spark = run(size, "spark", {"master": args.master, "partitions": args.partitions})
        same = all(local["stats"][k] == spark["stats"][k] for k in ("distinct_states", "depth")) \
            and local["verdicts"] == spark["verdicts"]
        rows.append({"size": size, "config": SIZES[size], "local": local, "spark": spark, "same": same})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"kmc spark bench: kip-320 acks=all min.insync.replicas=2, process crashes; Spark master {args.master}")
    print(f"{'size':<7} {'RF/rec/ep/cr':<13} {'distinct':>9} {'depth':>5} {'local s':>8} {'local st/s':>10} "
          f"{'spark s':>8} {'spark st/s':>10} {'spark wall':>10} {'levels':>6} {'s/level':>7} {'median':>6}  same answer")
    for r in rows:
        c, ls, ss = r["config"], r["local"]["stats"], r["spark"]["stats"]
        levels = levels_of(r["spark"])
        shape = f"{c['replication_factor']}/{c['max_records']}/{c['max_leader_epoch']}/{c['max_crashes']}"
        print(f"{r['size']:<7} {shape:<13} {ls['distinct_states']:>9,} {ls['depth']:>5} {ls['seconds']:>8.1f} "
              f"{ls['states_per_second']:>10,.0f} {ss['seconds']:>8.1f} {ss['states_per_second']:>10,.0f} "
              f"{r['spark']['wall']:>10.1f} {levels:>6} {ss['seconds'] / max(levels, 1):>7.2f} "
              f"{median_level_seconds(r['spark']):>6.2f}  "
              f"{'yes' if r['same'] else 'NO'}")
    if not all(r["same"] for r in rows):
        raise SystemExit("the engines disagree")


if __name__ == "__main__":
    main()
