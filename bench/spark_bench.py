"""``make bench-spark``: the Spark engine against the local compiled engine.

Three benchmarks:

* ``rf3-r2`` (default): ``kmc check -r 3 --max-records 2 --protocol kip-320 --rule
  +kmc-0.1`` (4,103,477 distinct states) with ``--engine spark`` on
  ``local[2]``, end to end in its own process (Spark's start included), and with the local
  compiled engine; checks both give the same counts and verdicts, and prints the per-level
  table (level, its states, seconds) and the shuffle bytes per state (from Spark's event log).
  ``--visited driver`` measures the alternative with the visited set on the driver.
* ``known-results``: every row of scenarios/known-results.toml on both engines, in one process
  (one Spark context): distinct and generated counts, depth, queue, verdicts and trace lengths
  must be equal; exit code 1 if any row differs.
* ``cluster``: a standalone cluster on 127.0.0.1 with 1 worker, then 2 workers (one core each),
  on a configuration of about 26 million states (``--bounds`` changes it): seconds, states/s
  per executor core, shuffle bytes per state, and the speed-up with two workers.

    python bench/spark_bench.py [rf3-r2|known-results|cluster] [--master local[2]]
                                [--partitions N] [--visited executors|driver|both] [--json]
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
KMC = Path(sys.executable).parent / "kmc"
# kmc 0.1's model, whole (bench/bench.py): its abstractions and its free leader moves
RULES_0_1 = ["+kmc-0.1", "+unordered-leader-moves", "-leader-and-isr-in-order"]
RULE_FLAGS_0_1 = [flag for rule in RULES_0_1 for flag in ("--rule", rule)]
RF3_R2 = ["-r", "3", "--max-records", "2", "--protocol", "kip-320", *RULE_FLAGS_0_1]
RF3_R2_OPTIONS = dict(replication_factor=3, max_records=2, protocol="kip-320",
                      rule_changes=RULES_0_1)  # the same, for config_from_options
DRIVER_VISITED = """
import json, sys, time
started = time.monotonic()
import spark_explore  # joins the engine registry
from checker import check
from model.options import config_from_options
options, master, partitions = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
config, _ = config_from_options(**options)
result = check(config, engine="spark", master=master, partitions=partitions, visited="driver")
print(json.dumps(result.to_json()))
"""
CLUSTER_DEFAULT = ["-r", "3", "--protocol", "kip-320", *RULE_FLAGS_0_1,
                   "--max-records", "2", "--max-leader-epoch", "3", "--max-crashes", "1"]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def spark_conf_dir(extra: dict) -> tuple[str, str]:
    """A SPARK_CONF_DIR whose spark-defaults.conf turns the event log on (for shuffle bytes)."""
    conf = tempfile.mkdtemp(prefix="kmc-bench-conf-")
    events = tempfile.mkdtemp(prefix="kmc-bench-events-")
    settings = {"spark.eventLog.enabled": "true", "spark.eventLog.dir": f"file://{events}",
                "spark.eventLog.compress": "false", **extra}
    Path(conf, "spark-defaults.conf").write_text("".join(f"{k} {v}\n" for k, v in settings.items()))
    return conf, events


def shuffle_bytes(events: str) -> dict:
    """Shuffle bytes written and read, summed over every task of the application's event log."""
    written = read = 0
    for path in Path(events).rglob("*"):
        if not path.is_file() or path.stat().st_size == 0:
            continue
        for line in path.open():
            if '"SparkListenerTaskEnd"' not in line:
                continue
            event = json.loads(line)
            metrics = event.get("Task Metrics") or {}
            written += metrics.get("Shuffle Write Metrics", {}).get("Shuffle Bytes Written", 0)
            r = metrics.get("Shuffle Read Metrics", {})
            read += r.get("Remote Bytes Read", 0) + r.get("Local Bytes Read", 0)
    return {"written": written, "read": read}


def kmc_check(args: list, env: dict | None = None, command: list | None = None) -> dict:
    """``kmc check ARGS --json`` (or ``command``) in its own process; the result with its wall time."""
    started = time.monotonic()
    command = command or [str(KMC), "check", "-q", "--json", *args]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
    wall = time.monotonic() - started
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"{' '.join(command)} failed: {proc.stderr.strip()[-500:]}")
    result = json.loads(proc.stdout)
    result["wall"] = wall
    return result


def note(result: dict, prefix: str) -> list:
    text = next(n for n in result["notes"] if n.startswith(prefix))
    return [float(x) for x in text.split(":")[-1].split(",")]


def same(a: dict, b: dict) -> bool:
    keys = ("distinct_states", "states_generated", "depth", "queue")
    verdicts = lambda r: [(p["property"], p["verdict"], p.get("trace_length")) for p in r["properties"]]
    return all(a["stats"][k] == b["stats"][k] for k in keys) and verdicts(a) == verdicts(b)


def level_table(result: dict) -> None:
    states, seconds = note(result, "spark: states per level"), note(result, "spark: seconds per level")
    print(f"{'level':>5} {'states':>10} {'seconds':>8}")
    for level, (count, s) in enumerate(zip(states, seconds)):
        print(f"{level:>5} {int(count):>10,} {s:>8.2f}")


def bench_rf3_r2(args) -> dict:
    print(f"kmc spark bench rf3-r2: kmc check {' '.join(RF3_R2)}; load average {load()}")
    local = kmc_check(RF3_R2)
    print(f"local compiled engine: {local['stats']['distinct_states']:,} distinct, "
          f"{local['stats']['states_generated']:,} generated, depth {local['stats']['depth']}, "
          f"{local['wall']:.1f} s end to end")
    out = {"local": local, "spark": {}}
    places = ["executors", "driver"] if args.visited == "both" else [args.visited]
    for place in places:
        conf, events = spark_conf_dir({})
        env = dict(os.environ, SPARK_CONF_DIR=conf)
        spark_args = ["--engine", "spark", "--spark-master", args.master, *RF3_R2]
        if args.partitions:
            spark_args += ["--partitions", str(args.partitions)]
        child = None
        if place == "driver":  # a library option, not a kmc flag: run it through check()
            child = [sys.executable, "-c", DRIVER_VISITED, json.dumps(RF3_R2_OPTIONS), args.master,
                     json.dumps(args.partitions)]
        result = kmc_check(spark_args, env, child)
        out["spark"][place] = report(f"spark {args.master}, visited set on the {place}", result, events, local, 2)
    return out


def report(title: str, result: dict, events: str, local: dict, cores: int) -> dict:
    """Print one Spark run: its figures against the local engine's, then its per-level table."""
    result["shuffle"] = shuffle = shuffle_bytes(events)
    s = result["stats"]
    print(f"\n{title}: {s['distinct_states']:,} distinct, {s['states_generated']:,} generated, depth "
          f"{s['depth']}; {result['wall']:.1f} s end to end (session start included), {s['seconds']:.1f} s "
          f"exploring, {s['distinct_states'] / s['seconds'] / cores:,.0f} distinct states/s per executor core; "
          f"same answer as local: {'yes' if same(result, local) else 'NO'}; load average after {load()}")
    print(f"shuffle: {shuffle['written'] / 2**20:,.0f} MiB written, "
          f"{shuffle['written'] / s['distinct_states']:.1f} B per distinct state, "
          f"{shuffle['written'] / s['states_generated']:.1f} B per generated state")
    print(result["notes"][0])
    level_table(result)
    if not same(result, local):
        raise SystemExit("the engines disagree")
    return result


def bench_known_results(args) -> dict:
    sys.path.insert(0, str(ROOT))
    from checker.compiled import compiled_bfs
    from gate.suite import load_suite
    from properties import get_properties
    from spark_explore import spark_bfs
    from spark_explore.session import get_context, stop_context

    sc, created = get_context(args.master, args.partitions)
    rows, disagree = [], 0
    print(f"kmc spark bench known-results: {args.master}; load average {load()}")
    print(f"{'distinct':>9} {'generated':>10} {'depth':>5} {'local s':>8} {'spark s':>8}  same  row")
    try:
        for spec in load_suite(str(ROOT / "scenarios" / "known-results.toml")).checks:
            if spec.liveness:
                continue  # checked on its own behaviour graph (checker/liveness.py), not by a search
            props = get_properties(spec.properties or None)
            started = time.monotonic()
            local = compiled_bfs(spec.config, props)
            local_s = time.monotonic() - started
            started = time.monotonic()
            spark = spark_bfs(spec.config, props, partitions=args.partitions)
            spark_s = time.monotonic() - started
            a, b = summary(local), summary(spark)
            ok = a == b
            disagree += not ok
            rows.append({"row": spec.name, "local": a, "spark": b, "same": ok})
            s = spark.stats
            print(f"{s.distinct_states:>9,} {s.states_generated:>10,} {s.depth:>5} {local_s:>8.2f} {spark_s:>8.2f}  "
                  f"{'yes' if ok else 'NO':>4}  {spec.name[:70]}")
    finally:
        if created:
            stop_context(sc)
    print(f"{len(rows) - disagree} of {len(rows)} rows agree")
    if disagree:
        raise SystemExit(1)
    return {"rows": rows}


def summary(result) -> dict:
    s = result.stats
    return {"distinct": s.distinct_states, "generated": s.states_generated, "depth": s.depth,
            "queue": s.queue, "limit": result.limit,
            "verdicts": [(p.name, p.verdict, len(p.trace) if p.trace else None) for p in result.properties],
            "traces": [[str(a) for a in p.trace.actions] for p in result.properties if p.trace]}


def bench_cluster(args) -> dict:
    sys.path.insert(0, str(ROOT))
    from tests.spark.cluster import StandaloneCluster

    config = args.bounds.split() if args.bounds else CLUSTER_DEFAULT
    print(f"kmc spark bench cluster: kmc check {' '.join(config)}; load average {load()}")
    local = kmc_check(config)
    print(f"local compiled engine: {local['stats']['distinct_states']:,} distinct, {local['wall']:.1f} s")
    out = {"local": local, "runs": {}}
    for workers in (int(w) for w in args.workers.split(",")):
        work = Path(tempfile.mkdtemp(prefix=f"kmc-bench-cluster{workers}-"))
        cluster = StandaloneCluster(work, workers=workers, cores=1, memory=args.worker_memory).start()
        try:
            conf, events = spark_conf_dir({"spark.executor.memory": args.executor_memory})
            env = dict(os.environ, SPARK_CONF_DIR=conf)
            partitions = args.partitions or 2  # one per core of the two-worker cluster, in both runs
            result = kmc_check(["--engine", "spark", "--spark-master", cluster.url, "--partitions",
                                str(partitions), *config], env)
        finally:
            cluster.stop()
        out["runs"][workers] = report(f"{workers} worker(s), 1 core each, {partitions} partitions",
                                      result, events, local, workers)
    runs = out["runs"]
    if 1 in runs and 2 in runs:
        one, two = runs[1]["stats"]["seconds"], runs[2]["stats"]["seconds"]
        print(f"\ntwo workers against one: {one / two:.2f}x faster exploring "
              f"({runs[1]['wall'] / runs[2]['wall']:.2f}x end to end)")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="?", default="rf3-r2", choices=("rf3-r2", "known-results", "cluster"))
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int)
    ap.add_argument("--visited", default="executors", choices=("executors", "driver", "both"))
    ap.add_argument("--workers", default="1,2", help="cluster: worker counts to run, one core each")
    ap.add_argument("--bounds", help="cluster: the configuration's kmc check options")
    ap.add_argument("--worker-memory", default="6g")
    ap.add_argument("--executor-memory", default="5g")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON to FILE")
    args = ap.parse_args()
    run = {"rf3-r2": bench_rf3_r2, "known-results": bench_known_results, "cluster": bench_cluster}
    out = run[args.bench](args)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()
