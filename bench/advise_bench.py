"""``make bench``: ``kmc advise`` on the example configuration, cold (no cache) and warm.

Runs the acceptance command of issue 17 in its own process,

    kmc advise --config examples/server.properties --config examples/topic.properties \\
        --config examples/producer.properties --goal no-acked-loss

first with an empty result cache (every cell explored), then again with the cache it filled,
and prints the wall time of each against the 5-minute target, with the cells and distinct
states the cold run explored.

    python bench/advise_bench.py [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KMC = Path(sys.executable).with_name("kmc")
TARGET_SECONDS = 300.0
COMMAND = ["advise", "--config", "examples/server.properties", "--config", "examples/topic.properties",
           "--config", "examples/producer.properties", "--goal", "no-acked-loss"]


def run(cache: str, traces: str) -> tuple[dict, float]:
    cmd = [str(KMC), *COMMAND, "--cache", cache, "--trace-dir", traces, "--json", "-q"]
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.monotonic() - started
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"bench: kmc advise failed: {proc.stderr.strip()[-300:]}")
    return json.loads(proc.stdout), wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cold, cold_wall = run(f"{tmp}/cache", f"{tmp}/traces")
        warm, warm_wall = run(f"{tmp}/cache", f"{tmp}/traces")
    cells = cold["cells"]
    states = sum(c["safety"]["distinct_states"] + (c["availability"] or {}).get("distinct_states", 0)
                 for c in cells)
    rows = {"cold_seconds": round(cold_wall, 1), "warm_seconds": round(warm_wall, 1),
            "settings": len(cells), "distinct_states_with_shared_availability": states,
            "user_goal": cold["user"]["goal"], "exit_code": cold["exit_code"]}
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("kmc advise bench: " + "kmc " + " ".join(COMMAND))
    print(f"cold (empty cache): {cold_wall:.1f} s for {len(cells)} settings; warm (cached): "
          f"{warm_wall:.1f} s; your settings: goal {cold['user']['goal']}")
    print(f"target <= {TARGET_SECONDS:.0f} s cold: {'met' if cold_wall <= TARGET_SECONDS else 'NOT met'}")


if __name__ == "__main__":
    main()
