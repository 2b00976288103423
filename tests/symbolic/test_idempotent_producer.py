"""The idempotent producer's retries in the z3 encoding (issue 29at): the leader's sequence check
(``Encoder.send_idempotent``, the kernel's ``send_record``) read off its log. z3's successors
equal the kernel's on reachable states; a mutant whose leader forgets the batches it holds (no
DuplicateSequence) is caught; the epoch bumps (KIP-360) are still refused (see
tests/symbolic/test_producer_retries.py)."""

import pytest

from checker.symbolic.crosscheck import CONFIGS, _release, crosscheck
from checker.symbolic.transitions import Encoder
from model import Bounds

ROWS = [label for label in CONFIGS if "idempotent" in label]

ONE_RECORD = _release("2.1", (), enable_idempotence=True, max_in_flight_requests_per_connection=1,
                      bounds=Bounds(1, 2, 1, 1, max_retries=1))
"""Kafka 2.1, RF=2, one record and one retry: 573 reachable states."""


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


class IgnoresDuplicates(Encoder):
    """A mutant: the leader remembers none of the producer's batches, so a retry of a record it
    holds is judged by its sequence alone (refused as out of order, or appended twice) instead
    of being answered with the original offset."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.window = 0


def test_a_retry_meeting_its_record_agrees_and_the_mutant_without_duplicates_is_caught():
    # the representative of its kind (about 15 s at load 5): both directions on the states where
    # the sequence check decides; the mutant disagrees there
    assert crosscheck(ONE_RECORD, 6, 7, where=retry_meets_its_record).agrees
    broken = crosscheck(ONE_RECORD, 6, 7, encoder=IgnoresDuplicates, where=retry_meets_its_record)
    assert any(d.action.name == "ProducerRetry" for d in broken.disagreements), broken.disagreements


@pytest.mark.slow
@pytest.mark.parametrize("label", ROWS)
def test_idempotent_rows_agree_with_the_kernel(label):
    r = crosscheck(CONFIGS[label], 20, 7)
    assert r.agrees, r.disagreements[:1]
    assert r.transitions["ProduceRecord"] and r.transitions["ProducerRetry"]


@pytest.mark.slow
def test_every_reachable_state_at_one_record_agrees():
    r = crosscheck(ONE_RECORD, 10_000, 7)
    assert r.states == r.reachable and r.agrees, r.disagreements[:1]
