"""Trace validation of runs the harness recorded on real Kafka 4.1.2 (issue 31b): the kmc
flags saved in ``result.json``, streams of several runs, the bounds a run needs, a deliberately
wrong rule failing the check, and the abstraction a real run showed (docs/model.md).

Fixtures, copied unedited from run directories of ``kmc conformance nemesis --kafka-version 4.1``
(2026-11-27): ``nemesis-kill-4.1.2`` (kill -9 of follower 1, two sends while it is down, its
restart, a read) and ``nemesis-empty-shrink-4.1.2`` (leader 0 paused past the session timeout
right after the topic was created), ``nemesis-quick-restart-4.1.2`` (leader 0 killed -9 and
restarted at once) and ``nemesis-shutdown-restart-4.1.2`` (broker 2 stopped by SIGTERM and
restarted at once) and ``nemesis-multi-shrink-4.1.2`` (a resumed stale leader proposing an
ISR without both followers) and ``nemesis-stale-route-4.1.2`` (a send taken by the old leader
just after a preferred election); from 4.0.2 ``nemesis-hw-drop-4.0.2`` (campaign D run 12: a
follower takes a lower HW from a new leader, issue 31d). No broker starts here; each search takes
about a second (the HW-drop run about fifteen).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from cli import cli
from conformance import events, projection, validate

DATA = Path(__file__).resolve().parents[1] / "data" / "runs"
KILL = DATA / "nemesis-kill-4.1.2"
EMPTY_SHRINK = DATA / "nemesis-empty-shrink-4.1.2"
UNCLEAN = DATA / "unclean-election-4.1.2"
ACKS1 = DATA / "acks1-failover-4.1.2"
HW_DROP = DATA / "nemesis-hw-drop-4.0.2"


def _copy(tmp_path, src: Path, result: dict | None = None, stream: list | None = None) -> Path:
    d = tmp_path / src.name
    d.mkdir(parents=True)
    shutil.copy(src / "events.jsonl", d / "events.jsonl")
    shutil.copy(src / "result.json", d / "result.json")
    if result is not None:
        (d / "result.json").write_text(json.dumps(result))
    if stream is not None:
        (d / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in stream))
    return d


def test_the_harness_saves_kmc_flags_and_validate_reads_them():
    saved = json.loads((KILL / "result.json").read_text())["kmc_flags"]
    assert saved["assignment"] == [0, 1, 2] and saved["kafka_version"] == "4.1"
    flags = validate.run_flags(KILL, projection.load_events(KILL))
    assert flags["min_insync_replicas"] == 2 and flags["acks"] == "all" and flags["replication_factor"] == 3
    assert flags["max_crashes"] == 1 and flags["max_records"] == 2   # from the saved bounds
    expected = {**{k: v for k, v in saved.items() if k not in ("assignment", "bounds")}, **saved["bounds"]}
    assert {k: flags[k] for k in expected} == expected
    assert flags["max_retries"] == 0      # not saved by that harness: counted from the events


def test_old_runs_are_still_read_from_kmc_command():
    flags = validate.run_flags(ACKS1, projection.load_events(ACKS1))
    assert flags["acks"] == "1" and flags["min_insync_replicas"] == 1 and flags["replication_factor"] == 3
    assert flags["max_crashes"] == 1 and flags["max_leader_epoch"] == 1


def test_an_assignment_validation_cannot_map_is_bad_input(tmp_path):
    meta = json.loads((KILL / "result.json").read_text())
    meta["kmc_flags"]["assignment"] = [1, 0, 2]
    d = _copy(tmp_path, KILL, result=meta)
    r = CliRunner().invoke(cli, ["conformance", "validate", str(d)])
    assert r.exit_code == 2 and "assignment [1, 0, 2]" in r.output and "Traceback" not in r.output


def test_bounds_come_from_the_interventions_and_the_logged_epochs():
    evs = projection.load_events(EMPTY_SHRINK)
    b = events.bounds_from_events(evs)
    assert b["max_session_expiries"] == 1          # broker 0 fenced while paused
    assert b["max_preferred_elections"] == 1 and b["max_reassignments"] == 1
    assert b["max_crashes"] == 0 and b["max_leader_epoch"] == 2 and b["max_records"] == 2
    assert b["max_retries"] == 0     # both sends were acknowledged before any leader change
    # a fence of a broker that was killed is not a session expiry
    killed = [{"ts": 1, "source": "harness", "kind": "kill -9", "broker": 1},
              {"ts": 2, "source": "node100", "kind": "fence", "broker": "1"}]
    assert events.bounds_from_events(killed)["max_session_expiries"] == 0


def test_a_stream_of_several_runs_is_split_by_topic(tmp_path):
    one = projection.load_events(KILL)
    two = []
    for e in one:                                    # the same run again, one minute later, topic kmc-w
        e2 = dict(e, ts=e["ts"] + 60)
        if "partition" in e2:
            e2["partition"] = e2["partition"].replace("kmc-v001", "kmc-w")
        two.append(e2)
    d = _copy(tmp_path, KILL, stream=one + two)
    r = CliRunner().invoke(cli, ["conformance", "validate", str(d)])
    assert r.exit_code == 2 and "2 runs" in r.output and "--topic" in r.output
    assert events.split_topic(one + two, "kmc-v001") == one
    r = CliRunner().invoke(cli, ["conformance", "validate", str(d), "--topic", "kmc-w"])
    assert r.exit_code == 0, r.output
    assert "ADMITTED" in r.output


def test_a_recorded_nemesis_run_is_admitted():
    v = validate.validate(KILL)
    assert v.verdict == validate.ADMITTED, v.failed
    actions = " ".join(str(s.action) for s in v.trace.steps)
    assert "BrokerCrash(broker=1" in actions and "BrokerRestart(broker=1" in actions


def test_a_model_ahead_of_the_real_run_is_dropped():
    observed = projection.project(projection.load_events(KILL)).observed
    limits = validate.prefix_limits(projection.load_events(KILL), observed)
    first_ack = next(k for k, f in enumerate(observed) if f.kind == "ack")
    assert limits[0]["max_records"] == 0 and limits[first_ack]["max_records"] >= 1
    from model.state import initial_state
    s = initial_state(3)
    assert validate.within(s, limits[0])
    assert not validate.within(s._replace(records_written=1), limits[0])


def test_an_isr_no_controller_line_shows_is_dropped():
    """The controller logs every partition change, ISR changes included: a model state whose
    controller ISR no line shows (nor lies between the two sides of a logged change, where kmc
    takes one follower per step) cannot be the real run (``validate.logged_isrs``)."""
    evs = projection.load_events(HW_DROP)
    assert validate.logged_isrs(evs, 3) == {(0, 1, 2)}   # no ISR change in the whole run
    multi = projection.load_events(DATA / "nemesis-multi-shrink-4.1.2")
    isrs = validate.logged_isrs(multi, 3)
    assert isrs == {(0, 1, 2), (1, 2), (0, 2)}   # the stale leader's refused {1} is not there
    two = {"ts": 0, "source": "node100", "kind": "partition-change", "diff": "isr: [0, 1, 2] -> [0]"}
    assert validate.logged_isrs([two], 3) == {(0, 1, 2), (0, 1), (0, 2), (0,)}  # kmc's steps between
    from model.state import initial_state
    s = initial_state(3)
    limit = {**validate.prefix_limits(evs, projection.project(evs).observed, 3)[-1]}
    assert validate.within(s, limit)
    assert not validate.within(s._replace(controller=s.controller._replace(isr=(0, 1))), limit)


def test_a_follower_that_takes_a_lower_hw_from_a_new_leader_is_admitted():
    """4.0.2, campaign D run 12 (issue 31c left it INCOMPLETE at 30,000 and 150,000 nodes): two
    reorder-plus-preferred elections, no fault. Broker 0 led epoch 0 with HW 1, followed the new
    leader 1 (HW 0), and later became leader of epoch 2 with ``high watermark 0``: its fetch
    reached leader 1 before broker 2's did, so the answer carried HW 0 and the follower's HW
    became min(0, LEO) (``ReplicaFetcherThread.processPartitionData``; kmc's
    FollowerHandleFetchResponse). A search the model could answer (issue 31d: admitted at
    166,107 nodes with 1,000,000 allowed); with the ISRs the controller logged as a limit it
    is admitted within the campaign's 30,000, and its explanation has no ISR change nobody logged."""
    v = validate.validate(HW_DROP, max_states=30000)
    assert v.verdict == validate.ADMITTED, v.failed
    steps = [str(s.action) for s in v.trace.steps]
    assert not any("ShrinkIsr" in a or "AlterPartition" in a for a in steps)
    # leader 1 answers broker 0's fetch from offset 1 while it knows no LEO of broker 2
    i = steps.index("LeaderHandleFetch(leader=1, follower=0)")
    assert "LeaderHandleFetch(leader=1, follower=2)" not in steps[:i]


def test_a_deliberately_wrong_rule_fails_the_check():
    """The check can fail: Kafka 4.1 has KIP-966's ELR on (rule eligible-leader-replicas).
    With it the recorded unclean-election run is admitted; with ``--rule
    -eligible-leader-replicas`` it fails at the controller's line that empties the ISR into the
    ELR, which that model cannot write."""
    right = validate.validate(UNCLEAN)
    assert right.verdict == validate.ADMITTED, right.failed
    r = CliRunner().invoke(cli, ["conformance", "validate", str(UNCLEAN), "--rule", "-eligible-leader-replicas"])
    assert r.exit_code == 1, r.output
    assert "NOT ADMITTED at event 25 (node100 partition-change)" in r.output
    assert "the fact: ('controller', -1, 1, (), (0,))" in r.output      # ISR [] and ELR [0] ...
    assert "controller: leader -1, epoch 1, isr [0]" in r.output        # ... where the model keeps ISR [0]


def test_a_new_leader_shrinking_a_follower_that_never_fetched_is_not_admitted():
    """The abstraction a nemesis run showed (docs/model.md, "The initial state"): kmc's new topic
    starts with leader 0 knowing its followers' LEO as 0, so it can shrink the ISR only after a
    record; Kafka's new leader knows them as unknown (-1) until their first fetch, and a
    follower that did not fetch within replica.lag.time.max.ms leaves the ISR with an empty
    log. The harness now waits for both first fetches before its faults."""
    v = validate.validate(EMPTY_SHRINK)
    assert v.verdict == validate.NOT_ADMITTED
    assert v.failed.index == 20 and v.failed.kind == "isr-shrink"
    assert v.failed.check == ("leader_shrink", 0, (0, 1, 2), (0, 2), 0)


def test_a_paused_broker_takes_no_step_and_a_send_is_not_an_append():
    """SIGSTOP/SIGCONT are no facts of a state, but they bound the search: between the first
    fact after a broker's SIGSTOP and its SIGCONT, the model may not let it act (append, fetch,
    apply metadata...). A send is no fact either (the append may come after a retry to
    another leader); it bounds the records written."""
    evs = projection.load_events(EMPTY_SHRINK)
    observed = projection.project(evs).observed
    paused = validate.paused_between(evs, observed)
    stop = next(i for i, e in enumerate(evs, 1) if e["kind"] == "SIGSTOP")
    cont = next(i for i, e in enumerate(evs, 1) if e["kind"] == "SIGCONT")
    inside = [k for k, f in enumerate(observed) if stop < f.index < cont and observed[k - 1].index > stop
              and f.source != "node0"]
    assert inside and all(paused[k] == {0} for k in inside)
    after = [k for k, f in enumerate(observed) if f.index > cont]
    assert all(0 not in paused[k] for k in after)
    sends = [f for f in projection.project(evs).facts if f.kind == "send"]
    assert sends and not any(f.observed for f in sends) and "retry" in sends[0].why


def test_a_restarted_broker_replaying_an_old_image_is_admitted_on_its_log_alone():
    """docs/conformance.md, "A restarted broker's replay": leader 0 killed -9 and restarted 0.1 s
    later; the controller fences its old session 6 s on and elects 1 in epoch 1; the new JVM,
    still replaying the metadata log and not yet unfenced (so serving nothing), logs itself
    leader in epoch 0 and becomes a follower in epoch 1 half a second later. That line is a fact
    only of broker 0's log (LEO 2), and the run is admitted; the JVM's start is no fact either."""
    d = DATA / "nemesis-quick-restart-4.1.2"
    facts = projection.project(projection.load_events(d)).facts
    stale = next(f for f in facts if f.index == 30)
    assert stale.kind == "become-leader" and stale.check == ("replayed", 0, 2)
    current = next(f for f in facts if f.index == 32)   # Follower in epoch 1, still before its unfence
    assert current.kind == "become-follower" and current.check == ("replayed", 0, 2)
    assert next(f for f in facts if f.index == 34).kind == "unfenced"
    restart = next(f for f in facts if f.kind == "restart")
    assert not restart.observed   # the JVM's start is not the broker's registration
    v = validate.validate(d)
    assert v.verdict == validate.ADMITTED, v.failed


def test_a_replayed_line_still_checks_the_log(tmp_path):
    """The replay line keeps its log end offset: the same run with broker 0 claiming offset 3 (a
    record no one wrote) is not admitted at that line."""
    d = DATA / "nemesis-quick-restart-4.1.2"
    events = projection.load_events(d)
    events[29] = {**events[29], "start_offset": "3"}
    out = tmp_path / "run"
    out.mkdir()
    shutil.copy(d / "result.json", out / "result.json")
    (out / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    v = validate.validate(out)
    assert v.verdict == validate.NOT_ADMITTED and v.failed.index == 30


def test_a_new_jvm_replicating_before_its_old_session_is_fenced_is_a_session_expiry():
    """4.1.2: broker 2, stopped by SIGTERM and restarted 0.6 s later, fetches as a follower of
    the current leader (LEO 2 -> 3 on the leader) 1 s before the controller fences the old
    JVM's session; its new registration waits for that fence. kmc has one incarnation per
    broker: the fence of a running broker is its session expiry, counted so by the bounds."""
    d = DATA / "nemesis-shutdown-restart-4.1.2"
    evs = projection.load_events(d)
    assert events.bounds_from_events(evs)["max_session_expiries"] == 1
    v = validate.validate(d, max_states=30000)
    assert v.verdict == validate.ADMITTED, v.failed
    assert any("ControllerFenceBroker(broker=2" in str(s.action) for s in v.trace.steps)


def test_one_alter_partition_removing_two_followers_is_one_model_step_under_elr(tmp_path):
    """4.1.2: leader 1, paused past the session timeout (the controller elects 0 in epoch 2),
    resumes and proposes ``Shrinking ISR from 1,2,0 to 1``: ``Partition.maybeShrinkIsr`` removes
    every out-of-sync follower in one AlterPartition. With min.insync.replicas=2 and KIP-966's
    ELR, kmc's one-follower steps would clear the ELR on the way, so 4.1's model has the one step
    (``LeaderShrinkIsrSet``, rule isr-shrink-out-of-sync-set) and the line is matched only by it,
    not part-way (``validate.exact_shrinks``; issue 31d). Without the rule the line is matched
    part-way, as before. A line in which the leader removes itself is not matched."""
    d = DATA / "nemesis-multi-shrink-4.1.2"
    facts = projection.project(projection.load_events(d)).facts
    shrink = next(f for f in facts if f.kind == "isr-shrink")
    assert shrink.index == 80 and shrink.check == ("leader_shrink", 1, (0, 1, 2), (1,), 1)
    v = validate.validate(d, max_states=30000)
    assert v.verdict == validate.ADMITTED, v.failed
    steps = [str(s.action) for s in v.trace.steps]
    assert "LeaderShrinkIsrSet(leader=1, followers=5)" in steps  # brokers 0 and 2 at once
    assert not any(a.startswith("LeaderShrinkIsr(") for a in steps)
    old = validate.validate(d, max_states=30000, rule_changes=("-isr-shrink-out-of-sync-set",))
    assert old.verdict == validate.ADMITTED, old.failed
    assert any(str(s.action).startswith("LeaderShrinkIsr(leader=1") for s in old.trace.steps)
    evs = projection.load_events(d)
    evs[79] = {**evs[79], "new": "2"}
    bad = validate.validate(_copy(tmp_path, d, stream=evs), max_states=30000)
    # no behaviour within 30,000 nodes explains it (the whole search takes longer than a test)
    assert bad.verdict != validate.ADMITTED and bad.failed.index == 80


def test_a_send_that_crossed_a_leader_change_may_be_retried():
    """4.0.2: r2 sent 15 ms after leader 1's SIGSTOP note was appended by 1 before it stopped,
    truncated when 1 came back as a follower, and appended again by the new leader 0 (the
    idempotent producer's retry, inside kafka-python). The bound on retries comes from the
    events; without it the run is not explained."""
    d = DATA / "nemesis-retry-4.0.2"
    evs = projection.load_events(d)
    flags = validate.run_flags(d, evs)
    assert flags["max_retries"] == 1
    v = validate.validate(d, max_states=30000)
    assert v.verdict == validate.ADMITTED, v.failed
    assert any("ProducerRetry(record=2" in str(s.action) for s in v.trace.steps)
    v0 = validate.validate(d, flags={**flags, "max_retries": 0}, max_states=30000)
    assert v0.verdict != validate.ADMITTED


def test_a_send_just_after_a_leader_change_may_reach_the_old_leader():
    """4.1.2: r1 is sent 30 ms after the controller's line electing 1 (a preferred election) but
    before broker 2, the old leader, applies it: 2 appends r1 as leader in epoch 1, becomes a
    follower, truncates it and fetches it back from 1, where the client's retry put it. A
    broker's become line after the send counts as a leader change for the retry bound."""
    d = DATA / "nemesis-stale-route-4.1.2"
    evs = projection.load_events(d)
    assert events.bounds_from_events(evs)["max_retries"] == 1
    v = validate.validate(d, max_states=30000)
    assert v.verdict == validate.ADMITTED, v.failed
    steps = [str(s.action) for s in v.trace.steps]
    assert any(a.startswith("ProduceRecord(leader=2") for a in steps)
    assert any(a.startswith("ProducerRetry(record=1, leader=1") for a in steps)


def test_nemesis_bad_input_is_one_line_and_exit_2():
    for args in (["--runs", "0"], ["--kafka-version", "9.9"], ["--max-states", "0"]):
        r = CliRunner().invoke(cli, ["conformance", "nemesis", *args])
        assert r.exit_code == 2 and "Traceback" not in r.output, (args, r.output)
