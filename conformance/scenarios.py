"""The named scenarios of docs/conformance.md: each runs on a real cluster of one Kafka release
and returns kmc's verdict beside what the real cluster did.

Every scenario starts its own cluster (``Cluster.start``, stopped by pid when it ends) in its
own run directory, keeps the nodes' logs there and writes the run's merged event stream
(``events.jsonl``) and result (``result.json``) beside them.
"""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from conformance import events, follower_leo, kmcside, segments
from conformance.admin import Admin, UNCLEAN
from conformance.cluster import Cluster
from conformance.history import History, Producer, check, read_partition
from conformance.nemesis import heal, random_run
from conformance.nodeconfig import ClusterSettings, Timeouts

FETCH_WAIT_S = 1.2   # replica.fetch.wait.max.ms (500 ms) + margin: a follower's parked fetch was answered
BARRIER_S = 40.0


@dataclass
class ScenarioResult:
    scenario: str
    version: str
    kmc: str
    kmc_command: str
    real: str
    agrees: bool | None
    seconds: float
    run_dir: str
    details: dict = field(default_factory=dict)
    kmc_flags: dict = field(default_factory=dict)   # kmcside.model_flags + "bounds": what validation reads

    def as_dict(self) -> dict:
        return asdict(self)


def _save(run_dir: Path, result: ScenarioResult, cluster=None, history=None, topic=None) -> ScenarioResult:
    run_dir.mkdir(parents=True, exist_ok=True)
    if cluster is not None:
        result.details["cluster_start_seconds"] = round(cluster.start_seconds, 1)
        stream = events.collect(cluster, history, topic)
        events.save(run_dir, stream)
        if result.kmc_flags:
            result.kmc_flags["bounds"] = events.bounds_from_events(stream)
    (run_dir / "result.json").write_text(json.dumps(result.as_dict(), indent=1, default=str))
    return result


def _until(cond, seconds: float):
    """Poll ``cond`` every 100 ms until it is true or ``seconds`` pass; its last value. Used where
    the question is whether something happens at all within a window (an absence cannot be
    observed any other way)."""
    deadline = time.monotonic() + seconds
    while True:
        value = cond()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(0.1)


def _topic_ready(cluster: Cluster, topic: str, leader: int, followers: list[int]) -> None:
    mark = cluster.mark(leader)
    for f in followers:
        cluster.wait_for(mark, rf"\[Partition {topic}-0 broker={leader}\] Recorded replica {f} log end offset", BARRIER_S)


# ---------------------------------------------------------------------------- acks=1

def acks1_failover(release, run_dir: Path, log=print) -> ScenarioResult:
    """acks=1: the leader acknowledges on its own append; the followers have not fetched the
    record (paused just long enough that no fetch of theirs is parked at the leader) when the
    leader is killed (-9); the controller fences it and elects a follower; the record is gone."""
    t0 = time.monotonic()
    line = kmcside.kmc_line(release.line)
    flags = dict(acks="1", min_insync_replicas=1, replication_factor=3)
    kmc = kmcside.verdict(line, "no-acked-loss", **flags)
    topic = "kmc-acks1"
    history = History()
    with Cluster.start(release, run_dir, ClusterSettings(min_insync_replicas=1)) as cluster:
        admin = Admin(cluster)
        admin.create_topic(topic, [0, 1, 2], {"min.insync.replicas": "1"})
        _topic_ready(cluster, topic, 0, [1, 2])
        producer = Producer(cluster.bootstrap(), topic, history, acks="1")
        producer.send("r0")
        producer.wait(30)
        cluster.pause(1)
        cluster.pause(2)
        time.sleep(FETCH_WAIT_S)
        producer.send("r1")
        producer.wait(30)
        cluster.kill9(0)
        cluster.resume(1)
        cluster.resume(2)
        ctl = cluster.mark(cluster.controller.node_id)
        m = cluster.wait_for(ctl, rf"partition change for {topic}-0 .*leader: 0 -> (\d+)", BARRIER_S)
        new_leader = int(m.group(1))
        cluster.restart(0)
        producer.close()
        final = read_partition(cluster.bootstrap(), topic, history, label="final")
        verdict = check(history, final)
        real = (f"acknowledged r1 lost (leader 0 killed, {new_leader} elected)" if not verdict.ok
                else "no loss: " + verdict.summary())
        res = ScenarioResult("acks1-failover", release.version, kmc, kmcside.command(line, "no-acked-loss", **flags),
                             real, (not verdict.ok) == kmc.startswith("violated"), time.monotonic() - t0,
                             str(run_dir), {"verdict": verdict.as_dict(), "final": final})
        res.kmc_flags = kmcside.model_flags(line, [0, 1, 2], **flags)
        return _save(run_dir, res, cluster, history, topic)


# ---------------------------------------------------------------------------- unclean election

def unclean_election(release, run_dir: Path, log=print) -> ScenarioResult:
    """min.insync.replicas=1, unclean.leader.election.enable=true, two replicas [0, 1]: broker 1
    is killed and fenced (ISR {0}), r1 is acknowledged by 0 alone (acks=all), 0 is killed, 1
    comes back and is elected uncleanly: r1 is gone (the Jepsen 2013 loss; kmc's KRaft 3.9 row)."""
    t0 = time.monotonic()
    line = kmcside.kmc_line(release.line)
    flags = dict(replication_factor=2, min_insync_replicas=1, unclean_leader_election=True)
    kmc = kmcside.verdict(line, "no-acked-loss", **flags)
    topic = "kmc-unclean"
    history = History()
    settings = ClusterSettings(min_insync_replicas=1, unclean_leader_election=True)
    with Cluster.start(release, run_dir, settings) as cluster:
        admin = Admin(cluster)
        ctl = cluster.controller.node_id
        admin.create_topic(topic, [0, 1], {"min.insync.replicas": "1", "unclean.leader.election.enable": "true"})
        _topic_ready(cluster, topic, 0, [1])
        mc = cluster.mark(ctl)
        cluster.kill9(1)
        cluster.wait_for(mc, rf"partition change for {topic}-0 .*isr: \[0, 1\] -> \[0\]", BARRIER_S)
        producer = Producer(cluster.bootstrap(), topic, history, acks="all")
        producer.send("r1")
        producer.wait(30)
        producer.close()
        mc = cluster.mark(ctl)
        cluster.kill9(0)
        cluster.wait_for(mc, rf"partition change for {topic}-0 .*leader: 0 -> -1", BARRIER_S)
        mc = cluster.mark(ctl)
        cluster.restart(1)
        how = "automatic"
        try:
            m = cluster.wait_for(mc, rf"UNCLEAN partition change for {topic}-0 .*leader: -1 -> 1", 20)
        except TimeoutError:
            how = "ElectLeaders(UNCLEAN)"
            admin.elect(topic, UNCLEAN, via=1)
            m = cluster.wait_for(mc, rf"UNCLEAN partition change for {topic}-0 .*leader: -1 -> 1", BARRIER_S)
        cluster.restart(0)
        final = read_partition(cluster.bootstrap(), topic, history, label="final")
        verdict = check(history, final)
        real = (f"acknowledged r1 lost ({how} unclean election of 1: {m.group(0)[:120]})" if not verdict.ok
                else "no loss: " + verdict.summary())
        res = ScenarioResult("unclean-election", release.version, kmc, kmcside.command(line, "no-acked-loss", **flags),
                             real, (not verdict.ok) == kmc.startswith("violated"), time.monotonic() - t0,
                             str(run_dir), {"verdict": verdict.as_dict(), "final": final, "election": how})
        res.kmc_flags = kmcside.model_flags(line, [0, 1], **flags)
        return _save(run_dir, res, cluster, history, topic)


# ---------------------------------------------------------------------------- random faults, acks=all

def acks_all_random(release, run_dir: Path, log=print, runs: int = 20, seed: int = 1,
                    fault_seconds: float = 12.0) -> ScenarioResult:
    """acks=all, min.insync.replicas=2, unclean election off, three replicas, under random
    kill -9 / SIGSTOP / SIGTERM schedules (``nemesis.random_run``), ``runs`` times on one
    cluster (a fresh topic each run, every broker healed between runs), each history checked
    Jepsen-style (nothing acknowledged lost, nothing read then lost)."""
    t0 = time.monotonic()
    line = kmcside.kmc_line(release.line)
    flags = dict(replication_factor=3, min_insync_replicas=2, acks="all", max_records=1)
    kmc_verdict = kmcside.verdict(line, "no-acked-loss", **flags)
    settings = ClusterSettings(timeouts=Timeouts(broker_session_timeout_ms=6000, broker_heartbeat_interval_ms=1000,
                                                 replica_lag_time_max_ms=10000), min_insync_replicas=2)
    rng = random.Random(seed)
    outcomes = []
    with Cluster.start(release, run_dir, settings) as cluster:
        for i in range(runs):
            run = random_run(cluster, f"kmc-rnd-{i}", rng, fault_seconds=fault_seconds)
            outcomes.append(run)
            log(f"    run {i + 1}/{runs}: {run['faults_summary']}: {run['verdict']['summary']}")
            heal(cluster)
        all_history = History()
        for run in outcomes:
            all_history.events.extend(run.pop("_events"))
        lost = [r for r in outcomes if not r["verdict"]["ok"]]
        acked = sum(r["verdict"]["acked"] for r in outcomes)
        faults = sum(len(r["faults"]) for r in outcomes)
        real = (f"no loss in {runs} runs ({acked} acks, {faults} faults)" if not lost
                else f"loss in {len(lost)} of {runs} runs: " + "; ".join(r["verdict"]["summary"] for r in lost[:3]))
        res = ScenarioResult("acks-all-random", release.version, kmc_verdict,
                             kmcside.command(line, "no-acked-loss", **flags), real,
                             (not lost) == kmc_verdict.startswith("holds"), time.monotonic() - t0, str(run_dir),
                             {"runs": outcomes, "seed": seed})
        _save(run_dir, res, cluster, all_history, None)
        _save_runs(run_dir, res, events.collect(cluster, all_history, None),
                   kmcside.model_flags(line, [0, 1, 2], replication_factor=3, min_insync_replicas=2, acks="all"))
        return res


def _save_runs(run_dir: Path, res: ScenarioResult, stream: list[dict], kmc_flags: dict) -> None:
    """One directory per run of a scenario that ran several on one cluster (a topic each):
    ``runs/NN/events.jsonl`` (``events.split_topic``) and ``runs/NN/result.json`` with the
    run's ``kmc_flags`` and bounds, so that each run can be validated on its own."""
    for n, run in enumerate(res.details["runs"]):
        sub = run_dir / "runs" / f"{n:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        part = events.split_topic(stream, run["topic"])
        events.save(sub, part)
        one = ScenarioResult(res.scenario, res.version, res.kmc, res.kmc_command, run["verdict"]["summary"],
                             None, 0.0, str(sub), {"run": run},
                             {**kmc_flags, "bounds": events.bounds_from_events(part)})
        (sub / "result.json").write_text(json.dumps(one.as_dict(), indent=1, default=str))


# ---------------------------------------------------------------------------- ELR state

def elr_last_isr(release, run_dir: Path, log=print) -> ScenarioResult:
    """What the partition looks like after the last ISR member fails (KIP-966), read with
    DescribeTopicPartitions through broker 2, which holds no replica: two replicas [0, 1],
    min.insync.replicas=2; kill -9 1, then kill -9 0, then restart 1 (no clean-shutdown file).

    kmc's rules (docs/kraft.md, rule ``eligible-leader-replicas``, on in 4.1, off by default in
    4.0): with ELR, a replica leaving an ISR below min.insync joins the ELR, the ISR may become
    empty, the leader when it did is the last known ELR, and a broker that registers after a
    crash leaves the ELR; without ELR the last ISR member stays in the ISR with no leader."""
    t0 = time.monotonic()
    line = kmcside.kmc_line(release.line)
    elr = release.line != "4.0"
    expected = ([("isr", [0]), ("elr", [1])], [("isr", []), ("elr", [0, 1]), ("leader", -1)],
                [("isr", []), ("elr", [0]), ("leader", -1)]) if elr else \
               ([("isr", [0]), ("elr", [])], [("isr", [0]), ("elr", []), ("leader", -1)],
                [("isr", [0]), ("elr", []), ("leader", -1)])
    topic = "kmc-elr"
    observed = []
    with Cluster.start(release, run_dir, ClusterSettings(min_insync_replicas=2)) as cluster:
        admin = Admin(cluster)
        ctl = cluster.controller.node_id
        admin.create_topic(topic, [0, 1], {"min.insync.replicas": "2"})
        _topic_ready(cluster, topic, 0, [1])
        steps = [("kill -9 1", lambda: cluster.kill9(1), rf"partition change for {topic}-0 .*isr: \[0, 1\] -> \[0\]"),
                 ("kill -9 0", lambda: cluster.kill9(0), rf"partition change for {topic}-0 .*leader: 0 -> -1"),
                 ("restart 1", lambda: cluster.restart(1), None)]
        for (what, act, barrier), exp in zip(steps, expected):
            mc = cluster.mark(ctl)
            act()
            if barrier:
                cluster.wait_for(mc, barrier, BARRIER_S)
            else:   # after registration: the controller's unclean-shutdown handling removes it from the ELR
                _until(lambda: 1 not in admin.partition(topic, via=2).elr, 10)
            view = admin.partition(topic, via=2)
            got = view.as_dict()
            match = all(sorted(got[k]) == sorted(v) if isinstance(v, list) else got[k] == v for k, v in exp)
            observed.append({"step": what, "observed": got, "kmc_expects": dict(exp), "matches": match})
        agrees = all(o["matches"] for o in observed)
        last = observed[-2]["observed"]
        real = (f"after both fail: leader {last['leader']}, ISR {last['isr']}, ELR {last['elr']}, "
                f"last known ELR {last['last_known_elr']}; after 1 restarts: ELR {observed[-1]['observed']['elr']}")
        kmc = ("ELR: ISR [] ELR [0,1], then 1 leaves the ELR" if elr else "no ELR: ISR [0], no leader")
        res = ScenarioResult("elr-last-isr", release.version, f"{kmc} (rule eligible-leader-replicas "
                             f"{'on' if elr else 'off'} in kmc {line})", "docs/kraft.md (kmc's rule, not a kmc run)",
                             real, agrees, time.monotonic() - t0, str(run_dir), {"steps": observed})
        res.kmc_flags = kmcside.model_flags(line, [0, 1], min_insync_replicas=2)
        return _save(run_dir, res, cluster, None, topic)


# ---------------------------------------------------------------------------- last replica standing

def last_replica_standing(release, run_dir: Path, log=print) -> ScenarioResult:
    """KIP-966's motivation, with power loss approximated (``Cluster.power_loss``: kill -9, then
    the log cut back to the checkpointed recovery point). Two replicas [0,1] (broker 2 holds none
    and answers the admin requests), acks=all, min.insync.replicas=2, unclean election off: r1
    is committed on both; 1 is paused past replica.lag.time.max.ms (5 s here) so that leader 0
    shrinks the ISR to itself; 0 loses power; 1 resumes; the controller fences 0 (session timeout
    12 s); 0 restarts. Without ELR (4.0's default) 0 is still the last ISR member and leads again
    with an empty log; with ELR (4.1) 1 is eligible and leads."""
    t0 = time.monotonic()
    line = kmcside.kmc_line(release.line)
    flags = dict(replication_factor=2, crash_model="power-loss")
    kmc = kmcside.verdict(line, "no-acked-loss", **flags)
    topic = "kmc-lrs"
    history = History()
    settings = ClusterSettings(timeouts=Timeouts(broker_session_timeout_ms=12000, broker_heartbeat_interval_ms=1000,
                                                 replica_lag_time_max_ms=5000), min_insync_replicas=2)
    with Cluster.start(release, run_dir, settings) as cluster:
        admin = Admin(cluster)
        ctl = cluster.controller.node_id
        admin.create_topic(topic, [0, 1], {"min.insync.replicas": "2"})
        _topic_ready(cluster, topic, 0, [1])
        producer = Producer(cluster.bootstrap(), topic, history, acks="all")
        producer.send("r1")
        producer.wait(30)
        producer.close()
        if not history.acked():
            raise TimeoutError("r1 was not acknowledged with all three replicas up")
        mc0 = cluster.mark(ctl)
        cluster.pause(1)
        cluster.wait_for(mc0, rf"partition change for {topic}-0 .*isr: \[0, 1\] -> \[0\]", BARRIER_S)
        cut = cluster.power_loss(0, [topic])
        mc = cluster.mark(ctl)
        cluster.resume(1)
        m = cluster.wait_for(mc, rf"partition change for {topic}-0 .*leader: 0 -> (-?\d+)", BARRIER_S)
        after_fence = admin.partition(topic, via=2).as_dict()
        mc = cluster.mark(ctl)
        cluster.restart(0)
        _until(lambda: admin.partition(topic, via=2).leader >= 0, 15)
        final_view = admin.partition(topic, via=2).as_dict()
        final = read_partition(cluster.bootstrap(), topic, history, label="final")
        verdict = check(history, final)
        real = (f"acknowledged r1 lost: 0 lost {cut[topic]} record(s) and led again "
                f"(after the fence: leader {after_fence['leader']}, ISR {after_fence['isr']}, ELR {after_fence['elr']})"
                if not verdict.ok else
                f"no loss: leader {final_view['leader']} after the fence of 0 ({m.group(0)[-60:]}); "
                f"0 lost {cut[topic]} record(s) to the emulated power loss")
        res = ScenarioResult("last-replica-standing", release.version, kmc,
                             kmcside.command(line, "no-acked-loss", **flags), real,
                             (not verdict.ok) == kmc.startswith("violated"), time.monotonic() - t0, str(run_dir),
                             {"verdict": verdict.as_dict(), "final": final, "after_fence": after_fence,
                              "final_view": final_view, "records_cut": cut})
        res.kmc_flags = kmcside.model_flags(line, [0, 1], min_insync_replicas=2, **flags)
        return _save(run_dir, res, cluster, history, topic)


# ---------------------------------------------------------------------------- KAFKA-19522

def kafka_19522(release, run_dir: Path, log=print) -> ScenarioResult:
    """KAFKA-19522: with ELR on, a partition whose ISR and ELR are empty may elect its last known
    leader even while that broker is fenced (``PartitionChangeBuilder.canElectLastKnownLeader``
    returns true whatever ``isAcceptableLeader`` says in 4.0.2's bytecode; 4.1.2 and 4.4.0 return
    false for a broker that is not acceptable). Two replicas [0, 1], min.insync.replicas=2, ELR
    on (4.0: ``--feature eligible.leader.replicas.version=1`` at format): kill -9 1, kill -9 0
    (ISR empty, ELR [0, 1], last known leader 0), restart 1 (it leaves the ELR: no clean
    shutdown), restart 0: its registration, fenced, removes it from the ELR too, and the
    controller's election in that same change may pick it while it is still fenced. Evidence:
    the order, in the controller's log, of the election of 0 and of "The request from broker 0
    to unfence has been granted"."""
    t0 = time.monotonic()
    line = kmcside.kmc_line(release.line)
    topic = "kmc-19522"
    features = {"eligible.leader.replicas.version": 1} if release.line == "4.0" else {}
    observed = []
    with Cluster.start(release, run_dir, ClusterSettings(min_insync_replicas=2), features=features) as cluster:
        admin = Admin(cluster)
        ctl = cluster.controller.node_id
        admin.create_topic(topic, [0, 1], {"min.insync.replicas": "2"})
        _topic_ready(cluster, topic, 0, [1])

        def look(what):
            observed.append({"step": what, "observed": admin.partition(topic, via=2).as_dict()})

        mc = cluster.mark(ctl)
        cluster.kill9(1)
        cluster.wait_for(mc, rf"partition change for {topic}-0 .*isr: \[0, 1\] -> \[0\]", BARRIER_S)
        look("kill -9 1")
        mc = cluster.mark(ctl)
        cluster.kill9(0)
        cluster.wait_for(mc, rf"partition change for {topic}-0 .*leader: 0 -> -1", BARRIER_S)
        look("kill -9 0")
        cluster.restart(1)
        _until(lambda: 1 not in admin.partition(topic, via=2).elr, 10)
        look("restart 1")
        mc = cluster.mark(ctl)
        cluster.restart(0)
        _until(lambda: cluster.find(mc, rf"partition change for {topic}-0 .*leader: -1 -> 0"), 10)
        look("restart 0")
        lines = cluster._read_from(cluster.controller, mc.offset).splitlines()
        elect = next((i for i, l in enumerate(lines) if re.search(rf"partition change for {topic}-0 .*leader: -1 -> 0", l)), None)
        unfence = next((i for i, l in enumerate(lines) if "The request from broker 0 to unfence has been granted" in l), None)
        fenced_elected = elect is not None and (unfence is None or elect < unfence)
        if elect is None:
            real = "0 not elected after it came back"
        elif fenced_elected:
            real = f"0 elected while still fenced (at its registration, before its unfencing): {lines[elect][-90:]}"
        else:
            real = "0 elected only after its unfencing (last known leader checked)"
        kmc_text = (f"kmc {line}: rule last-known-leader-check {'on: not while fenced' if line == '4.1' else 'off: even fenced'}"
                    " (kraft.md; kmc elects at unfencing only, difference 3)")
        expect_fenced = line == "4.0"
        res = ScenarioResult("kafka-19522", release.version, kmc_text, "docs/kraft.md (kmc's rule, not a kmc run)",
                             real, (elect is not None) and fenced_elected == expect_fenced, time.monotonic() - t0,
                             str(run_dir), {"steps": observed, "fenced_last_known_leader_elected": fenced_elected,
                                            "controller_lines": [lines[i] for i in (elect, unfence) if i is not None]})
        res.kmc_flags = kmcside.model_flags(line, [0, 1], min_insync_replicas=2,
                                            rule_changes=["+eligible-leader-replicas"] if features else None)
        return _save(run_dir, res, cluster, None, topic)


# ---------------------------------------------------------------------------- follower LEO

def follower_leo_scenario(release, run_dir: Path, log=print) -> ScenarioResult:
    t0 = time.monotonic()
    line = kmcside.kmc_line(release.line)
    flags = dict(replication_factor=3, max_records=2, max_leader_epoch=3, max_crashes=0)
    kmc = kmcside.verdict(line, "no-acked-loss", **flags)
    run = follower_leo.run(release, run_dir, log=lambda s: None)
    res = ScenarioResult("follower-leo", release.version, kmc, kmcside.command(line, "no-acked-loss", **flags),
                         run.outcome(), bool(run.lost) == kmc.startswith("violated"), time.monotonic() - t0,
                         str(run_dir), run.as_dict())
    return _save(run_dir, res)


DESCRIPTIONS = {
    "acks1-failover": "acks=1: the leader acknowledges alone, is killed (-9) before any follower fetched: loss",
    "unclean-election": "min.insync=1, unclean election on: the last ISR member dies, a stale replica is elected",
    "acks-all-random": "acks=all, min.insync=2, unclean off, random kill -9/SIGSTOP/SIGTERM: Jepsen-style check",
    "elr-last-isr": "KIP-966: ISR, ELR, last known ELR after the last ISR member fails (4.0 default vs 4.1)",
    "last-replica-standing": "power loss approximated (kill -9, log cut to the recovery point): the last ISR member leads again?",
    "kafka-19522": "ISR and ELR empty, last known leader fenced: is it elected when another broker unfences?",
    "follower-leo": "docs/findings.md: pauses and reorder+preferred elections, no crash: an acked record lost",
}

SCENARIOS = {
    "acks1-failover": acks1_failover,
    "unclean-election": unclean_election,
    "acks-all-random": acks_all_random,
    "elr-last-isr": elr_last_isr,
    "last-replica-standing": last_replica_standing,
    "kafka-19522": kafka_19522,
    "follower-leo": follower_leo_scenario,
}
