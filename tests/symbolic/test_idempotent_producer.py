"""The idempotent producer's retries in the z3 encoding (issue 29at): the leader's sequence check
(``Encoder.send_idempotent``, the kernel's ``send_record``) read off its log, and KIP-360's epoch
bumps (``Encoder._enc_ProducerBumpEpoch`` and ``send_by_epoch``, the kernel's
``producer_bump_epoch`` and ``check_sequence_by_epoch``). z3's successors equal the kernel's on
reachable states; a mutant whose leader forgets the batches it holds (no DuplicateSequence) is
caught, and one whose bump leaves the sequences of the records in flight alone."""

import pytest

from checker.symbolic.crosscheck import CONFIGS, _release, crosscheck
from checker.symbolic.transitions import Encoder
from model import Bounds

ROWS = [label for label in CONFIGS if "idempotent" in label and "epoch bumps" not in label]
BUMP_ROWS = [label for label in CONFIGS if "epoch bumps" in label]

ONE_RECORD = _release("2.1", (), enable_idempotence=True, max_in_flight_requests_per_connection=1,
                      bounds=Bounds(1, 2, 1, 1, max_retries=1))
"""Kafka 2.1, RF=2, one record and one retry: 596 reachable states (573 before the epoch start
slot of 2026-11-29)."""


def test_rows_cover_the_windows_the_first_sequence_and_the_in_flight_limits():
    configs = [CONFIGS[label] for label in ROWS]
    assert len(configs) == 4 and all(c.idempotent and c.bounds.max_retries for c in configs)
    assert {"producer-state-five-batches" in c.rules for c in configs} == {True, False}
    assert {"unknown-producer-accepts-any-sequence" in c.rules for c in configs} == {True, False}
    assert {c.max_in_flight_requests_per_connection for c in configs} == {1, 2, 5}


def retry_meets_its_record(s):
    """No retry yet, and a record not acknowledged is in the log of a broker that believes it
    leads: its retry there is a DuplicateSequence (or OUT_OF_ORDER)."""
    done = {r for r, _ in s.acked}
    return s.retries == 0 and any(
        rep.alive and rep.leader == b and any(rid not in done for rid, _ in rep.log)
        for b, rep in enumerate(s.replicas))


def unacknowledged(s):
    """A record sent and not acknowledged."""
    return len(s.acked) < s.records_written


class IgnoresDuplicates(Encoder):
    """A mutant: the leader remembers none of the producer's batches, so a retry of a record it
    holds is judged by its sequence alone (refused as out of order, or appended twice) instead
    of being answered with the original offset."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.window = 0


def test_a_retry_meeting_its_record_agrees_and_the_mutant_without_duplicates_is_caught():
    # the representative of its kind (about 15 s at load 5): both directions on the states where
    # the sequence check decides; the mutant disagrees on 144 of those 157 states (seed 3: since
    # 2.1's epoch start slot the six states seed 7 picks are among the 13 where it agrees)
    assert crosscheck(ONE_RECORD, 6, 3, where=retry_meets_its_record).agrees
    broken = crosscheck(ONE_RECORD, 6, 3, encoder=IgnoresDuplicates, where=retry_meets_its_record)
    assert any(d.action.name == "ProducerRetry" for d in broken.disagreements), broken.disagreements


@pytest.mark.slow
@pytest.mark.parametrize("label", ROWS)
def test_idempotent_rows_agree_with_the_kernel(label):
    # sampled among states with a record sent and not acknowledged, so that the sample compares
    # retries (the 3.0 row drew none among all its states at seed 7)
    r = crosscheck(CONFIGS[label], 20, 7, where=unacknowledged)
    assert r.agrees, r.disagreements[:1]
    assert r.transitions["ProduceRecord"] and r.transitions["ProducerRetry"]


@pytest.mark.slow
def test_every_reachable_state_at_one_record_agrees():
    r = crosscheck(ONE_RECORD, 10_000, 7)
    assert r.states == r.reachable and r.agrees, r.disagreements[:1]


def test_bump_rows_cover_the_first_and_newest_release_and_the_proposed_fix():
    configs = [CONFIGS[label] for label in BUMP_ROWS]
    assert [c.kafka_version for c in configs] == ["2.5", "4.1", "4.1"]
    assert all(c.idempotent and c.bounds.max_producer_epoch_bumps for c in configs)
    assert {"epoch-bump-rewrites-in-flight" in c.rules for c in configs} == {True, False}


class KeepsSequencesOnBump(Encoder):
    """A mutant: the bump gives its record up and moves to the new epoch but leaves the other
    records' sequences (and the next one) as they were: no
    ``TopicPartitionBookkeeper.startSequencesAtBeginning``."""

    def _enc_ProducerBumpEpoch(self, s, rec):
        return [(g, nxt.but(seqs=[x if k == rec - 1 else y
                                  for k, (x, y) in enumerate(zip(nxt.seqs, s.seqs))], nseq=s.nseq))
                for g, nxt in super()._enc_ProducerBumpEpoch(s, rec)]


def other_in_flight_at_a_bump(s):
    """A record answered with an error (it may be given up) and another one in flight."""
    done = {r for r, _ in s.acked}
    pending = {r for _, r, _ in s.pending_acks}
    live = [r for r in range(1, s.records_written + 1) if r not in done and s.sequences[r - 1] >= 0]
    return s.producer_epoch == 0 and len(live) >= 2 and any(r not in pending for r in live)


def test_the_2_5_bump_agrees_and_the_mutant_that_keeps_sequences_is_caught():
    # the representative of its kind (about 10 s at load 5)
    label = BUMP_ROWS[0]
    assert crosscheck(CONFIGS[label], 4, 7, where=other_in_flight_at_a_bump).agrees
    broken = crosscheck(CONFIGS[label], 4, 7, encoder=KeepsSequencesOnBump,
                        where=other_in_flight_at_a_bump)
    assert any(d.action.name == "ProducerBumpEpoch" for d in broken.disagreements), broken.disagreements


@pytest.mark.slow
@pytest.mark.parametrize("label", BUMP_ROWS)
def test_bump_rows_agree_with_the_kernel(label):
    r = crosscheck(CONFIGS[label], 25, 7)
    assert r.agrees, r.disagreements[:1]
    assert r.transitions["ProducerBumpEpoch"] and r.transitions["ProducerRetry"]


def test_reachable_states_with_bumps_are_well_formed():
    """k-induction assumes every state well-formed (``state.well_formed``, which now bounds the
    producer epoch, the sequences and each batch's producer epoch): so is every state the kernel
    reaches at one record with a bump, read both ways (``well_formed_values`` and the formula)."""
    from checker.symbolic.state import Dims, well_formed, well_formed_values
    from model import make_model
    from tests.symbolic.helpers import formula_evaluator, reachable

    config = _release("2.5", (), enable_idempotence=True, max_in_flight_requests_per_connection=1,
                      bounds=Bounds(1, 2, 1, 1, max_retries=1, max_producer_epoch_bumps=1))
    states = reachable(make_model(config))
    d = Dims.of(config)
    assert any(s.producer_epoch == 1 for s in states) and any(-1 in s.sequences for s in states)
    assert all(well_formed_values(d, s) for s in states)
    evaluate = formula_evaluator(d, {"well-formed": well_formed})
    assert all(evaluate(s)["well-formed"] for s in states[::40])
    # a value out of range is caught by both
    bad = states[-1]._replace(producer_epoch=2)
    assert not well_formed_values(d, bad) and not evaluate(bad)["well-formed"]
