"""``make bench``: the explorers' speed and memory, end to end, in one run.

Each row runs ``kmc check --json`` in its own process (so its wall time includes start-up and
loading the compiled kernel, and its peak memory is its own) on kmc 0.1's kip-320 (``--rule
+kmc-0.1`` and kmc 0.1's free leader moves, ``+unordered-leader-moves -leader-and-isr-in-order``, so the figures stay comparable across releases of kmc; the state
space where every property holds), acks=all, min.insync.replicas=2, unclean election off,
process crashes, replication factor 3:

* ``reference``: the pure-Python explorer on the default bounds (1 record, epochs up to 2,
  1 crash): the rate the compiled engine is compared with;
* ``default``: the compiled engine on the same bounds;
* ``rf3-r2``: the compiled engine with 2 records (4,103,477 distinct states), on every core;
* ``rf3-r2-1w``, ``rf3-r2-2w``: the same with one worker and with two (``--workers``): their
  ratio of states/s, printed when both run, is the scaling figure (run them in one go: the
  machine's load changes from minute to minute, and the load average is printed with them);
* ``rf3-r3e3c2``: 3 records, epochs up to 3, 2 crashes: out of reach of the reference engine;
* ``rf3-r3e3c2-12g``: the same within ``--memory-limit 12G`` (about 1.1e9 states: the
  fingerprints, the frontier and the parent index go to disk; hours: give it ``--time-limit``);
* ``kraft-rf3``: Kafka 4.1 (KRaft, AlterPartition, ELR: every rule kmc models; ``--kafka-version
  4.1`` instead of the kip-320 preset) at RF=3 with the default bounds, the same settings.

Figures vary with the machine's load; compare the ratios measured in one run.

    python bench/bench.py [--rows reference,default,rf3-r2,rf3-r3e3c2] [--time-limit S] [--json]
    python bench/bench.py --rows rf3-r2-1w,rf3-r2-2w      # scaling with workers
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KMC = Path(sys.executable).with_name("kmc")

ROWS = {
    "reference": (["--engine", "reference"], "1/2/1"),
    "default": ([], "1/2/1"),
    "rf3-r2": (["--max-records", "2"], "2/2/1"),
    "rf3-r2-1w": (["--max-records", "2", "--workers", "1"], "2/2/1"),
    "rf3-r2-2w": (["--max-records", "2", "--workers", "2"], "2/2/1"),
    "rf3-r3e3c2": (["--max-records", "3", "--max-leader-epoch", "3", "--max-crashes", "2"], "3/3/2"),
    "rf3-r3e3c2-12g": (["--max-records", "3", "--max-leader-epoch", "3", "--max-crashes", "2",
                        "--memory-limit", "12G"], "3/3/2"),
    "kraft-rf3": (["--kafka-version", "4.1"], "1/2/1"),
}
# kmc 0.1's model, whole: its two abstractions, and its leader moves (any ISR member may win, a
# healthy leader may move, LeaderAndIsr in any order), as the reference engine has them; without
# the last two the "default" row would explore Kafka's ordered moves (a smaller space) while the
# "reference" row explores the oracle's, and the rows would stop being the same states as before
LEADER_MOVES_0_1 = ["--rule", "+unordered-leader-moves", "--rule", "-leader-and-isr-in-order"]
PRESET = ["--protocol", "kip-320", "--rule", "+kmc-0.1", *LEADER_MOVES_0_1]
COMMON = ["check", "--json", "-q", "-r", "3", "--acks", "all",
          "--min-insync-replicas", "2", "--no-unclean-leader-election", "--crash-model", "process"]


def run_row(name: str, time_limit: float) -> dict:
    """Run one row in a child process; its wall time, peak RSS and JSON result."""
    flags, bounds = ROWS[name]
    protocol = [] if "--kafka-version" in flags else PRESET
    args = [str(KMC), *COMMON, *protocol, *flags, "--time-limit", str(time_limit)]
    started = time.monotonic()
    # the output goes to files, not pipes: a result with traces (4.1's reported-only invariants
    # at RF=3) is larger than a pipe's buffer, and the child would block on it while we wait
    with tempfile.TemporaryFile("w+") as out_file, tempfile.TemporaryFile("w+") as err_file:
        proc = subprocess.Popen(args, stdout=out_file, stderr=err_file, text=True, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - started
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"bench {name} failed: {err.strip().splitlines()[-1:]}")
    result = json.loads(out)
    stats = result["stats"]
    return {
        "row": name, "bounds": bounds, "engine": result["engine"], "wall_seconds": round(wall, 2),
        "distinct": stats["distinct_states"], "generated": stats["states_generated"],
        "depth": stats["depth"], "peak_mib": round(usage.ru_maxrss / 1024, 1),
        "bytes_per_state": stats.get("bytes_per_state"),
        "disk_bytes": stats.get("disk_bytes", 0), "seconds": stats["seconds"],
        "states_per_second": round(stats["distinct_states"] / wall),
        "limit": result["limit"],
        "verdicts": sorted({p["verdict"] for p in result["properties"]}),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="reference,default,rf3-r2,rf3-r2-1w,rf3-r2-2w,kraft-rf3")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    names = args.rows.split(",")
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        raise SystemExit(f"unknown rows {unknown}; choose among {', '.join(ROWS)}")
    load = os.getloadavg()
    rows = [run_row(name, args.time_limit) for name in names]
    load_after = os.getloadavg()
    if args.json:
        print(json.dumps({"rows": rows, "load_before": load, "load_after": load_after}, indent=2))
        return
    print("kmc bench: kip-320 +kmc-0.1 +unordered-leader-moves -leader-and-isr-in-order acks=all min.insync.replicas=2 RF=3, process crashes; "
          "wall time end to end (start-up included)")
    print(f"{'row':<11} {'engine':<9} {'bounds':<7} {'distinct':>11} {'generated':>12} {'depth':>5} "
          f"{'seconds':>8} {'states/s':>9} {'peak MiB':>9} {'B/state':>8} {'disk GB':>8}  result")
    for r in rows:
        result = f"INCOMPLETE ({r['limit']})" if r["limit"] else "/".join(r["verdicts"])
        bps = f"{r['bytes_per_state']:.1f}" if r["bytes_per_state"] else "-"
        print(f"{r['row']:<11} {r['engine']:<9} {r['bounds']:<7} {r['distinct']:>11,} "
              f"{r['generated']:>12,} {r['depth']:>5} {r['wall_seconds']:>8.1f} "
              f"{r['states_per_second']:>9,} {r['peak_mib']:>9.0f} {bps:>8} "
              f"{r['disk_bytes'] / 1e9:>8.2f}  {result}")
    print(f"load average (1, 5, 15 min) before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after: "
          f"{load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} on {os.cpu_count()} cores")
    by = {r["row"]: r for r in rows}
    if "rf3-r2-1w" in by and "rf3-r2-2w" in by:
        one, two = by["rf3-r2-1w"], by["rf3-r2-2w"]
        print(f"rf3-r2, 2 workers / 1 worker: {one['seconds'] / two['seconds']:.2f}x the states/s "
              f"of the search ({one['seconds']:.1f} s -> {two['seconds']:.1f} s; end to end "
              f"{one['wall_seconds'] / two['wall_seconds']:.2f}x)")
    if "reference" in by and "rf3-r2" in by:
        ratio = by["rf3-r2"]["states_per_second"] / by["reference"]["states_per_second"]
        print(f"rf3-r2 compiled rate / reference rate on the default bounds: {ratio:.0f}x")


if __name__ == "__main__":
    main()
