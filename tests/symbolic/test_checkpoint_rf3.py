"""The lagging HW checkpoint (``--hw-checkpoint interval``) at RF=3 (issue 29bh).

On Kafka 2.1 (no KIP-380 broker epochs) a leader may restart into its own epoch with its HW moved
back to its file; its fetch responses then carry the lower HW and a follower's HW falls below its
own file (2.1.0 ``ReplicaFetcherThread.processPartitionData``: the follower's HW is
``min(LEO, response HW)``). Issue 29bb switched ``checkpoint-behind-running-hw`` and
``checkpoint-committed`` off there once the crash bound was used up. 29bh keys the forms on the
crashes that happened instead, drops the gate of ``checkpoint-committed`` (true on every reachable
state since the lead's epoch-start fix), and keeps ``acked-below-writer-hw`` for running writers
until a broker restarts; a new fact ``fetch-hw-past-restart`` and a 2.1 form of
``hw-behind-epoch-leader`` say a running leader below an HW it sent, or a follower's, restarted
into its epoch since, so its recorded epoch start lies past it. Here: each form holds on every reachable state of 2.1
``+reset-followers-on-epoch`` RF=3 with the setting and agrees with its formula there and one
change away; the form 29bb's gate guarded (every file at most its HW, every response's HW at
least its receiver's) is false on reachable states after a crash (the mutant the forms exist for).
All slow: one BFS of 23,716 states.
"""

from __future__ import annotations

import pytest

from checker.symbolic.state import Dims
from checker.symbolic.strengthen.library import STRENGTHENINGS, UNSWITCHED
from model import make_model
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator, reachable

CONFIG = config_from_options(kafka_version="2.1", replication_factor=3,
                             rule_changes=("+reset-followers-on-epoch",),
                             hw_checkpoint="interval")[0]
FACTS = ("checkpoint-behind-running-hw", "checkpoint-committed", "acked-below-writer-hw",
         "fetch-hw-past-restart", "hw-behind-epoch-leader")


@pytest.fixture(scope="module")
def states():
    return reachable(make_model(CONFIG))


def _as_written(s) -> bool:
    """``checkpoint-behind-running-hw`` without ELR as the lead wrote it: every broker's file at
    most its HW, and every fetch response's HW at least its receiver's."""
    return (all(r.checkpointed_hw <= r.high_watermark for r in s.replicas)
            and all(r.high_watermark <= r.fetch_response[4]
                    for r in s.replicas if r.fetch_response))


def _one_change_away(state):
    """A broker's file, HW or fetch response's HW one higher or lower, its last record dropped."""
    out = []
    for b, r in enumerate(state.replicas):
        for field in ("checkpointed_hw", "high_watermark"):
            for delta in (1, -1):
                v = getattr(r, field) + delta
                if 0 <= v <= len(r.log) + (field == "checkpointed_hw"):
                    reps = list(state.replicas)
                    reps[b] = r._replace(**{field: v})
                    out.append(state._replace(replicas=tuple(reps)))
        if r.fetch_response:
            fr = r.fetch_response
            for delta in (1, -1):
                if 0 <= fr[4] + delta <= fr[5]:
                    reps = list(state.replicas)
                    reps[b] = r._replace(fetch_response=fr[:4] + (fr[4] + delta,) + fr[5:])
                    out.append(state._replace(replicas=tuple(reps)))
        if r.log:
            reps = list(state.replicas)
            reps[b] = r._replace(log=r.log[:-1], high_watermark=min(r.high_watermark,
                                                                    len(r.log) - 1))
            out.append(state._replace(replicas=tuple(reps)))
    return out


# At 13:41-14:02 (load 7 to 8, 2 cores, 2 min 33 s of CPU in 20 min wall) a run with every 5th
# state for the formulas and every 23rd one change away passed every assertion before the
# one-change-away loop and then hit pytest-timeout's 1,200 s in it: sampled thinner now, not re-run.
def _above_leader_unguarded(s) -> bool:
    """29bk's ``_above_leader_settled`` without its guard "every broker runs": a follower's HW
    above its running leader's (same epoch) only with the partition settled."""
    reps = s.replicas
    c = s.controller
    for L, lr in enumerate(reps):
        for b, r in enumerate(reps):
            if (b != L and lr.alive and lr.leader == L and r.alive and r.leader == L
                    and r.leader_epoch == lr.leader_epoch and r.high_watermark > lr.high_watermark
                    and not (c.leader == L and c.leader_epoch == lr.leader_epoch
                             and len(c.live_brokers) == len(reps)
                             and not any(q in (b, L) for q, _, _, _ in s.leader_and_isr))):
                return False
    return True


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_29bk_clauses_on_kafka_2_1_rf3(states):
    """Issue 29bk: the one-crash clauses hold on every reachable state (with the others in
    ``test_the_29bh_forms_on_kafka_2_1_rf3``), and the guard of ``_above_leader_settled`` is
    needed: without it the form is false where a newly elected leader's HW lags its follower's
    with the crashed broker still down (the mutant the test catches)."""
    from checker.symbolic.strengthen import hw_checkpoint as hc

    one = [s for s in states if s.crashes <= 1]
    assert all(hc._above_leader_settled(s) for s in one)
    wrong = [s for s in one if not _above_leader_unguarded(s)]
    assert wrong and all(not all(r.alive for r in s.replicas) for s in wrong), len(wrong)
    # where a file is past its HW, the follower is settled (29bh's weaker 'care' let a
    # LeaderAndIsr on its way end the form: its 16th CTI)
    files = [(s, b) for s in one for b, r in enumerate(s.replicas)
             if r.checkpointed_hw > r.high_watermark]
    assert len(files) == 352 and all(hc._settled_follower(s, b) for s, b in files)
    # a broker with a recorded epoch start took a crash: none before the first
    assert all(s.crashes >= 1 for s in states
               if any(r.epoch_start_offset >= 0 for r in s.replicas))


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_the_29bh_forms_on_kafka_2_1_rf3(states):
    assert len(states) == 23716
    for s in states:
        for n in FACTS:
            assert STRENGTHENINGS[n].holds(s, CONFIG), (n, s)
    # the mutant: the form 29bb's gate switched off is false after a crash, and only then
    wrong = [s for s in states if not _as_written(s)]
    assert wrong and all(s.crashes >= 1 for s in wrong), len(wrong)
    # acked-below-writer-hw as written is false on reachable states (why it is switched)
    assert not all(UNSWITCHED["acked-below-writer-hw"].holds(s, CONFIG) for s in states)
    d = Dims.of(CONFIG)
    evaluate = formula_evaluator(d, {n: STRENGTHENINGS[n].formula for n in FACTS})
    for s in states[::11]:
        assert all(evaluate(s).values()), s
    falses = {n: 0 for n in FACTS}
    for s in states[::97]:
        for m in _one_change_away(s):
            got = evaluate(m)
            for n in FACTS:
                holds = STRENGTHENINGS[n].holds(m, CONFIG)
                assert got[n] == holds, (n, m)
                falses[n] += not holds
    assert all(falses[n] > 0 for n in FACTS), falses


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_kafka_2_1_rf3_with_the_lagging_checkpoint_is_proved():
    """Issue 29bk: ``kmc prove --kafka-version 2.1 -r 3 --rule +reset-followers-on-epoch
    --hw-checkpoint interval -p no-acked-loss -s all`` at the default bounds is PROVED by
    1-induction (63 s of CPU at load 7, 2026-11-29). The mutant: without
    ``fetch-hw-past-restart`` (its crash count and restart clauses) the step fails."""
    from checker.symbolic.induction import prove
    from checker.symbolic.outcome import PROVED
    from checker.symbolic.strengthen import all_names

    assert prove(CONFIG, "no-acked-loss", strengthen=["all"], search="none").status == PROVED
    fewer = [n for n in all_names(CONFIG) if n != "fetch-hw-past-restart"]
    assert prove(CONFIG, "no-acked-loss", strengthen=fewer, search="none").status != PROVED


CONFIG_35 = config_from_options(kafka_version="3.5", replication_factor=3,
                                hw_checkpoint="interval")[0]


def _follower_hw_at_most_leader(s) -> bool:
    """The fact one might write instead of 29bn's response clause: a running follower's HW is at
    most its running leader's in the same epoch. False after a failover: the new leader's HW
    rises only with its followers' fetches."""
    reps = s.replicas
    return not any(f != L and lr.alive and lr.leader == L and fr.alive and fr.leader == L
                   and fr.leader_epoch == lr.leader_epoch
                   and fr.high_watermark > lr.high_watermark
                   for L, lr in enumerate(reps) for f, fr in enumerate(reps))


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_the_29bn_clauses_on_kafka_3_5_rf3():
    """Issue 29bn: on Kafka 3.5 RF=3 with the lagging checkpoint (251,130 states, about 7 min of
    BFS at load 6) the form of ``checkpoint-behind-running-hw`` without the ELR is false (a
    restarted follower takes a lower HW from the leader elected after its crash), the form 29bn
    uses there holds, as does ``fetch-hw-past-restart`` with its KRaft clauses (a restarted
    broker is named leader only of an epoch newer than its log; a response's HW at most its
    running sender's); each formula agrees with its predicate on sampled states. The mutant: a
    follower's HW at most its running leader's (same epoch) is false on reachable states."""
    from checker.symbolic.strengthen import hw_checkpoint as hc

    states = reachable(make_model(CONFIG_35))
    assert len(states) == 251130
    wrong = [s for s in states if not _as_written(s)]
    assert wrong and all(s.crashes >= 1 for s in wrong), len(wrong)
    names = ("checkpoint-behind-running-hw", "fetch-hw-past-restart")
    for s in states:
        for n in names:
            assert STRENGTHENINGS[n].holds(s, CONFIG_35), (n, s)
    assert not all(_follower_hw_at_most_leader(s) for s in states)
    # the KRaft clause's premise occurs: requests on their way to a restarted broker still
    # waiting (28,214 on these states; none names it leader at one crash, 29bn's run of 20:06)
    assert any(r.alive and r.leader_epoch < 0
               for s in states for q, _, _, _ in s.leader_and_isr for r in [s.replicas[q]])
    assert hc._noticed_rf3(states[0], CONFIG_35)
    d = Dims.of(CONFIG_35)
    evaluate = formula_evaluator(d, {n: STRENGTHENINGS[n].formula for n in names})
    picked = states[::997] + [s for s in wrong[::50]]
    for s in picked:
        assert all(evaluate(s).values()), s
    # one change away: the formula still follows the predicate
    for s in picked[::3]:
        for m in _one_change_away(s):
            got = evaluate(m)
            for n in names:
                assert got[n] == STRENGTHENINGS[n].holds(m, CONFIG_35), (n, m)


# --- issue 29bq: Kafka 4.1 (KIP-966's ELR) at RF=3 ------------------------------------------

CONFIG_41 = config_from_options(kafka_version="4.1", replication_factor=3,
                                hw_checkpoint="interval")[0]


def _replica(b, *, alive=True, log=((1, 0),), hw=0, epoch=1, leader=1, isr=(), response=(),
             ckpt=0, current=(0, 0, 0)):
    """A broker of 4.1 RF=3 as the reachable states have it (three brokers, broker b ranked b)."""
    from model.state import ReplicaState

    return ReplicaState(alive=alive, log=log, high_watermark=hw, leader_epoch=epoch,
                        leader=leader, isr=isr, remote_log_end_offsets=(-1, -1, -1),
                        truncating=False, fetch_response=response, flushed_offset=0,
                        checkpointed_hw=ckpt, partition_epoch_current=False,
                        remote_current=current, assignment_rank=b)


def _cluster(replicas, controller, requests=(), current=()):
    from model.state import ClusterState, PartitionState

    return ClusterState(replicas=tuple(replicas), controller=PartitionState(*controller),
                        leader_and_isr=tuple(requests), pending_acks=(), acked=((1, 0),),
                        consumer_visible=(1,), records_written=1, crashes=1,
                        unflushed_losses=0, leader_and_isr_current=current)


def _down_sender(controller, requests=(), current=()):
    """Broker 0 led epoch 0 and crashed with its file at 0 (its HW read back: 0); its fetch
    response with HW 1 is still on its way to broker 2. Two of BFS's reachable states of 4.1
    RF=3 have this shape: the controller not yet told (still naming broker 0 leader of epoch 0)
    and the controller after it noticed (broker 1 leader of epoch 1, LeaderAndIsr on its way)."""
    down = _replica(0, alive=False, epoch=-1, leader=-1, current=(0, 1, 1))
    return _cluster((down, _replica(1, epoch=0, leader=0, response=(0, 0, 1, (), 0, 1)),
                     _replica(2, epoch=0, leader=0, response=(0, 0, 1, (), 1, 1))),
                    controller, requests, current)


def test_the_29bq_down_sender_clause_on_kafka_4_1_rf3():
    """Issue 29bq: ``fetch-hw-past-restart``'s clause for a down sender. A response's HW above its
    down sender's (the HW read back from its file) once the controller has noticed the crash
    (the sender out of its live set, which a restart needs under broker epochs) only with
    another broker the controller's leader: false, predicate and formula, on the fourth CTI of
    4.1 RF=3 (the controller leaderless; the sender's restart would take it to a state where
    29bn's running-sender clause is false), true on the two reachable states of that shape
    (0 of 119,486 reachable states against the fact, docs/symbolic.md). The mutants: without the
    clause the CTI passes; without the guard "the controller noticed" the reachable state with
    the controller still naming the sender leader is rejected (324 such states)."""
    name = "fetch-hw-past-restart"
    st = STRENGTHENINGS[name]
    evaluate = formula_evaluator(Dims.of(CONFIG_41), {name: st.formula})
    unnoticed = _down_sender((0, 0, (0, 1, 2), (0, 1, 2)))
    noticed = _down_sender((1, 1, (1, 2), (1, 2)), [(1, 1, 1, (1, 2)), (2, 1, 1, (1, 2))],
                           ((1, 1),))
    cti = _down_sender((-1, 1, (), (1, 2)), [(1, 1, -1, ()), (2, 1, -1, ())])
    for s in (unnoticed, noticed):
        assert st.holds(s, CONFIG_41) and evaluate(s)[name], s
    assert not st.holds(cti, CONFIG_41)
    assert not evaluate(cti)[name]


def test_the_29bq_leader_isr_clause_on_kafka_4_1_rf3():
    """Issue 29bq: ``checkpoint-committed`` at RF>=3 under the ELR also speaks of the ISR the
    controller's leader holds in its epoch. 4.1 RF=3's fifth CTI, before its step: broker 1
    leads epoch 1 with ISR {0,1,2} (broker 0, lacking r1, in it) while the controller's ISR is
    {1,2}, and broker 2's file holds HW 1 above its HW 0 (it took its new leader's lower HW);
    the controller then accepts broker 1's AlterPartition adding broker 0. False (predicate and
    formula) with the clause; the mutant, the fact without it (the controller's ISR and the ELR
    only, 29bb's form), holds there. A state where broker 0 holds r1 satisfies both."""
    from checker.symbolic.strengthen import hw_checkpoint as hc

    name = "checkpoint-committed"
    st = STRENGTHENINGS[name]
    evaluate = formula_evaluator(Dims.of(CONFIG_41), {name: st.formula})
    reps = (_replica(0, log=()), _replica(1, isr=(0, 1, 2)), _replica(2, ckpt=1))
    cti = _cluster(reps, (1, 1, (1, 2), (0, 1, 2)))
    assert not st.holds(cti, CONFIG_41)
    assert not evaluate(cti)[name]
    assert not hc._leader_isr_too(cti, config_from_options(
        kafka_version="3.5", replication_factor=3, hw_checkpoint="interval")[0])
    holders = [cti.replicas[b] for b in cti.controller.isr]
    assert all(hc.holds_below(h, r, r.checkpointed_hw) for h in holders for r in cti.replicas)
    fine = _cluster((_replica(0),) + reps[1:], (1, 1, (1, 2), (0, 1, 2)))
    assert st.holds(fine, CONFIG_41) and evaluate(fine)[name]


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_kafka_4_1_rf3_with_the_lagging_checkpoint_is_proved(monkeypatch):
    """Issue 29bq: ``kmc prove --kafka-version 4.1 -r 3 --hw-checkpoint interval -p no-acked-loss
    -s all --search none`` at the default bounds (1 record, 2 leader epochs, 1 crash) is PROVED
    by 1-induction (258 s wall, 96 s user at load 5, 2026-11-29). The mutants, each one of
    29bq's two clauses taken out of its formula: the step then fails (INCONCLUSIVE on the CTIs
    the clauses were written for)."""
    from dataclasses import replace
    from functools import partial

    from checker.symbolic.induction import prove
    from checker.symbolic.outcome import PROVED
    from checker.symbolic.strengthen import hw_checkpoint as hc
    from checker.symbolic.strengthen import library

    assert prove(CONFIG_41, "no-acked-loss", strengthen=["all"], search="none").status == PROVED
    for name, formula in (
            ("fetch-hw-past-restart", partial(hc._fetch_hw_past_start_z3, down_sender=False)),
            ("checkpoint-committed", partial(hc._checkpoint_committed_z3, leader_isr=False))):
        with monkeypatch.context() as m:
            m.setitem(library.STRENGTHENINGS, name,
                      replace(library.STRENGTHENINGS[name], formula=formula))
            assert prove(CONFIG_41, "no-acked-loss", strengthen=["all"],
                         search="none").status != PROVED, name
