"""kmc's side of a scenario: the verdict kmc gives for the same question, computed by running
kmc's checker (``checker.check`` on a configuration built by ``model.options``), cached per run.

Kafka 4.4 is not a release kmc models; its rows use kmc's newest release rules (4.1) and say so.
"""

from __future__ import annotations

from functools import lru_cache

KMC_RELEASE_FOR = {"4.0": "4.0", "4.1": "4.1", "4.4": "4.1"}


def kmc_line(line: str) -> str:
    return KMC_RELEASE_FOR.get(line, "4.1")


@lru_cache(maxsize=64)
def verdict(kafka_version: str, prop: str, time_limit: float = 240.0, **flags) -> str:
    """``"violated (N steps)"``, ``"holds within the bounds"`` or ``"incomplete (...)"``, from a
    real kmc run; the command line that gives the same answer is ``command(...)``."""
    from checker import check  # noqa: PLC0415 - numba loads with the checker: only when a row asks
    from model.options import config_from_options  # noqa: PLC0415
    config, _prov = config_from_options(kafka_version=kafka_version, **flags)
    result = check(config, [prop], time_limit=time_limit)
    p = result.properties[0]
    if p.verdict == "VIOLATED":
        return f"violated ({len(p.trace)} steps)"
    if result.limit:
        return f"incomplete ({result.limit})"
    return "holds within the bounds" if p.verdict == "HOLDS" else p.verdict.lower()


def command(kafka_version: str, prop: str, **flags) -> str:
    names = {"replication_factor": "-r", "min_insync_replicas": "--min-insync-replicas", "acks": "--acks",
             "max_records": "--max-records", "max_crashes": "--max-crashes", "crash_model": "--crash-model",
             "max_leader_epoch": "--max-leader-epoch"}
    parts = [f"kmc check --kafka-version {kafka_version}"]
    for k, v in flags.items():
        if k == "unclean_leader_election":
            parts.append("--unclean-leader-election" if v else "")
        elif k == "rule_changes":
            parts += [f"--rule {r}" for r in v]
        else:
            parts.append(f"{names.get(k, '--' + k.replace('_', '-'))} {v}")
    parts.append(f"-p {prop}")
    return " ".join(p for p in parts if p)


RUN_FLAG_KEYS = ("replication_factor", "min_insync_replicas", "acks", "unclean_leader_election", "crash_model",
                 "rule_changes")


def model_flags(kafka_version: str, assignment: list[int], **flags) -> dict:
    """The kmc settings of a real run, saved in its ``result.json`` as ``kmc_flags`` for trace
    validation (``conformance.validate``): the kmc release line, the topic's replica assignment,
    and the settings that shape kmc's model (RF, min.insync.replicas, acks, unclean election,
    crash model, rule changes). Bounds are left out: they are the question's, not the run's; the
    harness adds the bounds the run needs from its events when it saves it."""
    out = {"kafka_version": kafka_version, "assignment": list(assignment),
           "replication_factor": len(assignment)}
    for key in RUN_FLAG_KEYS:
        if flags.get(key) is not None:
            out[key] = list(flags[key]) if key == "rule_changes" else flags[key]
    return out
