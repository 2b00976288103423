"""Randomised real runs, each validated against kmc's model (issue 31): ``kmc conformance nemesis``.

For one Kafka release: one cluster (``Cluster.start``, every JVM stopped by pid when it ends),
then ``runs`` bounded randomised runs on it (``nemesis.bounded_run``: a fresh topic each, 1-3
records, 1-2 faults among kill -9, SIGSTOP, SIGSTOP past the session timeout, SIGTERM and a
reorder-plus-preferred election, reads), each saved as a run directory of its own
(``events.jsonl`` cut to the run: its topic, the nodes' log lines after the run began, the
interventions and the client's history; ``result.json`` with ``kmc_flags``), and each validated
(``validate.validate``): admitted, not admitted at an event, or incomplete (a search bound).
"""

from __future__ import annotations

import json
import random
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from conformance import events, kmcside, processes, validate
from conformance.cluster import Cluster
from conformance.history import History
from conformance.nemesis import bounded_run, heal
from conformance.nodeconfig import ClusterSettings, Timeouts

SESSION_MS = 6000
NOT_RUN = "NOT RUN"


@dataclass
class NemesisRun:
    index: int
    version: str
    run_dir: str
    steps: list = field(default_factory=list)
    real: str = ""              # the Jepsen-style check of the client's history
    verdict: str = NOT_RUN      # validate.ADMITTED / NOT_ADMITTED / INCOMPLETE, or NOT_RUN
    at: str = ""                # the event a NOT ADMITTED / INCOMPLETE answer names
    facts: int = 0
    model_steps: int = 0
    states: int = 0
    run_seconds: float = 0.0
    validate_seconds: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


def settings() -> ClusterSettings:
    return ClusterSettings(timeouts=Timeouts(broker_session_timeout_ms=SESSION_MS, broker_heartbeat_interval_ms=1000,
                                             replica_lag_time_max_ms=10000), min_insync_replicas=2)


def run_release(release, out_dir: Path, runs: int, *, seed: int = 1, max_states: int = validate.DEFAULT_MAX_STATES,
                log=print) -> list[NemesisRun]:
    """``runs`` validated bounded runs on one cluster of ``release``; a run that fails (a barrier
    not met in time) is kept as NOT RUN and the cluster healed before the next."""
    rng = random.Random(seed)
    line = kmcside.kmc_line(release.line)
    flags = kmcside.model_flags(line, [0, 1, 2], min_insync_replicas=2, acks="all")
    out: list[NemesisRun] = []
    with Cluster.start(release, out_dir / "cluster", settings()) as cluster:
        log(f"  cluster up in {cluster.start_seconds:.1f} s")
        try:
            _runs(cluster, release, out_dir, runs, rng, flags, max_states, out, log)
        except processes.RunTimeout:
            log(f"  time limit: stopped after {len(out)} of {runs} runs")
    return out


def _runs(cluster, release, out_dir: Path, runs: int, rng, flags: dict, max_states: int, out: list, log) -> None:
    line = flags["kafka_version"]
    for i in range(runs):
        sub = out_dir / f"run-{i:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        rec = NemesisRun(i, release.version, str(sub))
        topic = f"kmc-v{i:03d}"
        since = {n.node_id: cluster.mark(n.node_id).offset for n in [cluster.controller, *cluster.brokers.values()]}
        since_ts = time.time()
        history = History()
        t0 = time.monotonic()
        try:
            run = bounded_run(cluster, topic, rng, history, session_s=SESSION_MS / 1000)
            rec.steps, rec.real = run["steps"], run["verdict"]["summary"]
        except processes.RunTimeout:
            raise
        except Exception as e:  # noqa: BLE001 - one failed run is reported, the next one runs
            rec.real = f"did not run: {type(e).__name__}: {e}"[:300]
            heal(cluster)
        rec.run_seconds = time.monotonic() - t0
        stream = events.collect(cluster, history, topic, since=since, since_ts=since_ts)
        events.save(sub, stream)
        result = {"scenario": "nemesis", "version": release.version, "real": rec.real, "steps": rec.steps,
                  "kmc_flags": {**flags, "bounds": events.bounds_from_events(stream)}}
        (sub / "result.json").write_text(json.dumps(result, indent=1, default=str))
        if not rec.real.startswith("did not run"):
            _validate(rec, sub, max_states)
        out.append(rec)
        log(f"  run {i:3d} ({line}): {', '.join(rec.steps) or '-'}: {rec.real}; {line_of(rec)}")


def _validate(rec: NemesisRun, sub: Path, max_states: int) -> None:
    try:
        v = validate.validate(sub, max_states=max_states)
    except (validate.RunError, ValueError) as e:
        rec.verdict, rec.at = NOT_RUN, f"cannot validate: {e}"[:200]
        return
    rec.verdict, rec.facts, rec.states, rec.validate_seconds = v.verdict, v.facts, v.states_visited, v.seconds
    if v.trace is not None:
        rec.model_steps = len(v.trace)
    if v.failed is not None:
        rec.at = v.failed.describe()[:200]


def line_of(rec: NemesisRun) -> str:
    what = rec.verdict + (f" ({rec.model_steps} steps)" if rec.verdict == validate.ADMITTED else
                          f" at {rec.at}" if rec.at else "")
    return f"{what}; real {rec.run_seconds:.0f} s, validation {rec.validate_seconds:.1f} s"


def summary(version: str, recs: list[NemesisRun]) -> str:
    count = {k: sum(1 for r in recs if r.verdict == k)
             for k in (validate.ADMITTED, validate.NOT_ADMITTED, validate.INCOMPLETE, NOT_RUN)}
    real = [r.run_seconds for r in recs]
    val = [r.validate_seconds for r in recs if r.verdict != NOT_RUN]

    def spread(xs):
        return f"{min(xs):.0f}-{max(xs):.0f} s, median {statistics.median(xs):.1f} s" if xs else "-"
    return (f"Kafka {version}: {len(recs)} runs: {count[validate.ADMITTED]} admitted, "
            f"{count[validate.NOT_ADMITTED]} not admitted, {count[validate.INCOMPLETE]} incomplete, "
            f"{count[NOT_RUN]} not run or not validated; real run {spread(real)}; validation {spread(val)}")
