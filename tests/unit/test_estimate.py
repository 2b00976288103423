"""model/estimate.py against the model it estimates: a point of its table is today's count, and
an extrapolation beyond the table is within a stated factor of the count a run finds. The table
once described a model kmc no longer has by default (kmc 0.1's free leader moves, up to a hundred
times larger), and every warning and the compiled engine's table sizing were off by that much;
later its one log-log slope along the crash bound read 5x to 15x high where the crash bound
passes the leader-epoch bound (RF=2 at (1, 8, 14), (2, 6, 12), (3, 4, 8)), and 3x to 8x high at
RF=3, where issue 29's proofs go."""

import pytest

from checker import check
from model import Bounds, ModelConfig
from model.estimate import MEASURED, MEASURED_UNORDERED, config_states, estimated_states

UNORDERED = ("+unordered-leader-moves", "-leader-and-isr-in-order")


def _count(rf, bounds, rules=()):
    config = ModelConfig(protocol="kip-320", replication_factor=rf, bounds=Bounds(*bounds, 1),
                         rule_changes=rules)
    result = check(config, ["hw-le-leo"])
    assert result.limit is None
    return result.stats.distinct_states


def test_a_point_of_each_table_is_todays_count():
    assert _count(3, (1, 2, 1)) == MEASURED[3][(1, 2, 1)]
    assert _count(2, (2, 2, 1), UNORDERED) == MEASURED_UNORDERED[2][(2, 2, 1)]
    assert _count(2, (1, 6, 10)) == MEASURED[2][(1, 6, 10)]  # a row past the epoch bound


def test_an_extrapolation_beyond_the_table_is_within_a_factor_of_two():
    actual = _count(2, (4, 3, 2))
    estimate = estimated_states(2, 4, 3, 2)
    assert actual / 2 <= estimate <= actual * 2, (estimate, actual)


@pytest.mark.parametrize("bounds", [
    (1, 8, 14),  # epochs past the table's lines (they end at 6)
    (3, 4, 8),  # records past them (lines of 1 and 2 records)
    (2, 6, 12),  # both, and crashes past the rows
])
def test_crashes_past_the_epoch_bound_are_within_a_factor_of_one_and_a_half(bounds):
    # held out: none of these is in MEASURED; at RF=2, 243 such rows measured 0.66x to 1.13x
    actual = _count(2, bounds)
    estimate = estimated_states(2, *bounds)
    assert actual / 1.5 <= estimate <= actual * 1.5, (estimate, actual)


@pytest.mark.parametrize("rf, bounds", [(2, (0, 3, 8)), (2, (0, 6, 14)), (3, (0, 2, 6))])
def test_no_records_past_the_epoch_bound_is_an_order_of_magnitude(rf, bounds):
    # review s12: with no 0-record line measured, the power-law fallback read 14x, 46x and 11x
    # high here (and 5,000x at RF=3 (0, 2, 20)); the 1-record line's relative growth reads 0.5x-4.5x
    actual = _count(rf, bounds)
    estimate = estimated_states(rf, *bounds)
    assert actual / 5 <= estimate <= actual * 5, (estimate, actual)


def test_fewer_records_never_estimate_more_states():
    for rf in (2, 3):
        for epochs in range(0, 8):
            for crashes in range(0, 21):
                estimates = [estimated_states(rf, r, epochs, crashes) for r in range(0, 4)]
                assert all(a <= b * 1.15 for a, b in zip(estimates, estimates[1:])), (rf, epochs, crashes, estimates)


# BFS counts of Kafka 2.1 +reset-followers-on-epoch, RF=3 (docs/symbolic.md, "Past BFS's reach,
# along records and epochs (issue 29ab)": kmc check -p no-acked-loss, 2026-11-28), rows not in
# MEASURED (which has kip-320 without the reset rule); too slow to count here (26 s to 443 s)
HELD_OUT_RF3 = {(1, 5, 8): 79_632_876, (1, 6, 7): 86_431_424, (1, 6, 10): 290_994_920,
                (1, 7, 6): 49_345_658, (2, 4, 3): 9_783_728}


def _reset_rf3(bounds):
    return ModelConfig(kafka_version="2.1", rule_changes=("+reset-followers-on-epoch",),
                       replication_factor=3, bounds=Bounds(*bounds, 1))


@pytest.mark.parametrize("bounds", sorted(HELD_OUT_RF3))
def test_rf3_past_the_table_is_within_a_factor_of_one_and_a_half(bounds):
    # measured 0.84x to 0.97x; one slope per bound read 1/5/8 1.8x, 1/6/10 1.9x, 1/7/6 0.61x
    assert bounds not in MEASURED[3]
    actual = HELD_OUT_RF3[bounds]
    estimate = config_states(_reset_rf3(bounds))
    assert actual / 1.5 <= estimate <= actual * 1.5, (estimate, actual)


# kip-320 itself, RF=3, more than one record past the epoch bound (kmc check --protocol kip-320
# -r 3 -p hw-le-leo --workers 1, 2026-11-28 10:47 to 11:01; 7 s to 40 s user each): held out
HELD_OUT_KIP320_RF3 = {(2, 3, 3): 8_336_304, (2, 2, 5): 27_265_269, (2, 3, 4): 29_807_300,
                       (3, 2, 3): 39_401_463}


@pytest.mark.parametrize("bounds", sorted(HELD_OUT_KIP320_RF3))
def test_rf3_with_more_records_past_the_epoch_bound_is_within_a_factor_of_one_and_a_half(bounds):
    assert bounds not in MEASURED[3]
    actual = HELD_OUT_KIP320_RF3[bounds]
    estimate = estimated_states(3, *bounds)
    assert actual / 1.5 <= estimate <= actual * 1.5, (estimate, actual)


def test_a_bfs_stopped_at_its_memory_limit_is_not_estimated_below_what_it_had_found():
    # 1/6/16: BFS stopped INCOMPLETE at 8 GiB with 118,976,165 states, levels still growing (29ab)
    assert config_states(_reset_rf3((1, 6, 16))) > 118_976_165


def test_power_loss_at_four_records_counts_the_flushed_offsets():
    # Kafka 4.1 +reset-followers-on-epoch, RF=3, power loss, 4 records, epochs <= 4, 1 crash:
    # 496,711,537 states (the lead's BFS, 2026-11-28, HOLDS). Not fitted to: the by-records
    # factors are measured at 1 to 3 records, 2 epochs, 1 crash. One factor each, measured at
    # the default bounds, read it 0.27x (power loss x7.2 where it is x60 at 4 records).
    config = ModelConfig(kafka_version="4.1", rule_changes=("+reset-followers-on-epoch",),
                         replication_factor=3, crash_model="power-loss", bounds=Bounds(4, 4, 1, 1))
    actual = 496_711_537
    assert actual / 2 <= config_states(config) <= actual * 2, config_states(config)
