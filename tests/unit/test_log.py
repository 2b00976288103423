"""The log helpers follow LeaderEpochFileCache's semantics, version by version."""

from model.constants import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from checker.reference.log import (
    EpochEntry, end_offset_for_epoch, end_offset_for_epoch_v0_11, epoch_entries, latest_epoch,
    truncate_to,
)

# offsets:  0       1       2       3       4
LOG = ((1, 0), (2, 0), (3, 2), (4, 2), (5, 5))


def test_truncate_to_keeps_offsets_below_the_target():
    assert truncate_to(LOG, 2) == ((1, 0), (2, 0))
    assert truncate_to(LOG, 0) == ()
    assert truncate_to(LOG, 9) == LOG


def test_epoch_entries_are_the_start_offset_of_each_epoch():
    assert epoch_entries(LOG) == (EpochEntry(0, 0), EpochEntry(2, 2), EpochEntry(5, 4))


def test_a_leader_has_an_entry_for_its_own_epoch_at_its_leo():
    assert epoch_entries(LOG, current_leader_epoch=7)[-1] == EpochEntry(7, 5)
    assert epoch_entries(LOG, current_leader_epoch=5)[-1] == EpochEntry(5, 4)


def test_latest_epoch():
    assert latest_epoch(LOG) == 5
    assert latest_epoch(()) == UNDEFINED_EPOCH


def test_end_offset_for_the_latest_epoch_is_the_leo():
    assert end_offset_for_epoch(LOG, 5) == (5, 5)
    assert end_offset_for_epoch_v0_11(LOG, 5) == 5


def test_end_offset_is_the_start_of_the_next_higher_epoch():
    assert end_offset_for_epoch(LOG, 0) == (0, 2)
    assert end_offset_for_epoch_v0_11(LOG, 0) == 2


def test_kip279_answers_the_largest_epoch_below_an_unknown_one():
    # epoch 3 never led here: 2.0 answers (2, start of epoch 5); 0.11 answers only the offset
    assert end_offset_for_epoch(LOG, 3) == (2, 4)
    assert end_offset_for_epoch_v0_11(LOG, 3) == 4


def test_epoch_older_than_every_known_epoch():
    log = ((1, 3), (2, 3))
    assert end_offset_for_epoch(log, 1) == (1, 0)
    assert end_offset_for_epoch_v0_11(log, 1) == UNDEFINED_EPOCH_OFFSET


def test_epoch_newer_than_every_known_epoch_is_undefined():
    assert end_offset_for_epoch(LOG, 9) == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
    assert end_offset_for_epoch_v0_11(LOG, 9) == UNDEFINED_EPOCH_OFFSET


def test_undefined_request_or_empty_log():
    assert end_offset_for_epoch(LOG, UNDEFINED_EPOCH) == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
    assert end_offset_for_epoch((), 0) == (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
