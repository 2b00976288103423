"""``make bench``: ``kmc advise`` on the example configuration, cold (no cache) and warm.

Runs the acceptance command of issue 17 in its own process,

    kmc advise --config examples/server.properties --config examples/topic.properties \\
        --config examples/producer.properties --goal no-acked-loss

first with an empty result cache (every cell explored), then again with the cache it filled,
and prints the wall time of each against the 5-minute target, with the settings, checks and
distinct states the cold run explored; then it checks every setting the run lists as keeping
the goal with ``kmc check`` at each bound advise printed for it (issue 22: every listed setting
must survive), and whether any RF=3 setting with ``min.insync.replicas=1`` or unclean election
is listed.

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
    listed = [c for c in cells if c["goal"] == "kept"]
    survived, refuted = listed_checks(listed, cold["goals"])
    weak_rf3 = [c["settings"] for c in listed if c["settings"]["replication.factor"] == 3 and (
        c["settings"]["min.insync.replicas"] == 1 or c["settings"]["unclean.leader.election.enable"])]
    rows = {"cold_seconds": round(cold_wall, 1), "warm_seconds": round(warm_wall, 1),
            "settings": len(cells), "checks": cold["checks"], "distinct_states": cold["distinct_states"],
            "answered_by_another_setting": cold["dominated"],
            "kept": len(listed), "kept_checks_survived": survived, "kept_checks_refuted": refuted,
            "rf3_min_insync_1_or_unclean_listed": len(weak_rf3),
            "user_goal": cold["user"]["goal"], "exit_code": cold["exit_code"]}
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("kmc advise bench: " + "kmc " + " ".join(COMMAND))
    print(f"cold (empty cache): {cold_wall:.1f} s for {len(cells)} settings, {cold['checks']} checks, "
          f"{cold['distinct_states']:,} distinct states; warm (cached): {warm_wall:.1f} s; your "
          f"settings: goal {cold['user']['goal']}")
    print(f"target <= {TARGET_SECONDS:.0f} s cold: {'met' if cold_wall <= TARGET_SECONDS else 'NOT met'}")
    print(f"settings listed as keeping the goal: {len(listed)}; kmc check at each printed bound: "
          f"{survived} hold, {refuted} do not; RF=3 with min.insync.replicas=1 or unclean election "
          f"listed: {len(weak_rf3)}")


def listed_checks(listed: list, goals: list) -> tuple[int, int]:
    """Run ``kmc check`` on every (setting, bound) advise listed as keeping the goals."""
    survived = refuted = 0
    for cell in listed:
        s = cell["settings"]
        for corner in cell["kept_within"]:
            bounds = [x for name, value in corner["bounds"].items()
                      if name != "max_unflushed_losses" or s["crash.model"] != "process"
                      for x in (f"--{name.replace('_', '-')}", str(value))]
            version = ["--kafka-version", s["kafka_version"]] if s["kafka_version"] else ["--protocol", s["protocol"]]
            cmd = [str(KMC), "check", "-q", *version, "-r", str(s["replication.factor"]),
                   "--acks", s["acks"], "--min-insync-replicas", str(s["min.insync.replicas"]),
                   "--crash-model", s["crash.model"],
                   "--unclean-leader-election" if s["unclean.leader.election.enable"]
                   else "--no-unclean-leader-election", *bounds,
                   *[x for g in goals for x in ("-p", g)]]
            code = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).returncode
            survived += code == 0
            refuted += code != 0
    return survived, refuted


if __name__ == "__main__":
    main()
