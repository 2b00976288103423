"""Two kmc checkouts on bench.py's rf3-r2 row, run alternately: a before/after comparison that
a shared machine's changing load cannot tilt towards one of them.

Each repetition runs, for each worker count, the old checkout's ``kmc`` and then the new
one's, each in its own process (``nice -n 5``); prints every run (search seconds from the
JSON result, wall, the child's CPU time and peak RSS, the load average) and then the medians
and, for each checkout, the two-worker / one-worker ratio of the medians (meaningful only when
the machine had a free core for the second worker: compare its CPU and wall times).

    python bench/alternate.py --old /work/main --new . [--reps 3] [--workers 1,2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import COMMON, PRESET, ROWS  # noqa: E402


def run(checkout: Path, workers: str) -> dict:
    flags = [f for f in ROWS["rf3-r2"][0]]
    args = ["nice", "-n", "5", str(checkout / ".venv/bin/kmc"), *COMMON, *PRESET, *flags,
            "--workers", workers]
    started = time.monotonic()
    proc = subprocess.Popen(args, cwd=checkout, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    out = proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    stats = json.loads(out)["stats"]
    return {"search": stats["seconds"], "wall": time.monotonic() - started,
            "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024,
            "counts": (stats["distinct_states"], stats["states_generated"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True)
    ap.add_argument("--new", type=Path, required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workers", default="1,2")
    args = ap.parse_args()
    builds = {"old": args.old.resolve(), "new": args.new.resolve()}
    results: dict = {}
    load = os.getloadavg()
    for _ in range(args.reps):
        for w in args.workers.split(","):
            for name, checkout in builds.items():
                r = run(checkout, w)
                results.setdefault((name, w), []).append(r)
                print(f"{name} {w}w search {r['search']:.2f} s, wall {r['wall']:.2f} s, cpu "
                      f"{r['cpu']:.2f} s, {r['rss_mib']:.0f} MiB, {r['counts'][0]:,} distinct "
                      f"{r['counts'][1]:,} generated, load {os.getloadavg()[0]:.2f}", flush=True)
    after = os.getloadavg()
    print(f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after {after[0]:.2f} "
          f"{after[1]:.2f} {after[2]:.2f} on {os.cpu_count()} cores")
    med = {}
    for (name, w), rs in sorted(results.items()):
        med[name, w] = {k: statistics.median(r[k] for r in rs)
                        for k in ("search", "wall", "cpu", "rss_mib")}
        m = med[name, w]
        print(f"{name} {w}w medians: search {m['search']:.2f} s, wall {m['wall']:.2f} s, cpu "
              f"{m['cpu']:.2f} s, {m['rss_mib']:.0f} MiB; counts {sorted({r['counts'] for r in rs})}")
    for name in builds:
        if (name, "1") in med and (name, "2") in med:
            print(f"{name}: 2 workers / 1 worker {med[name, '1']['search'] / med[name, '2']['search']:.2f}x "
                  "the search's rate")


if __name__ == "__main__":
    main()
