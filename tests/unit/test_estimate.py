"""model/estimate.py against the model it estimates: a point of its table is today's count, and
an extrapolation beyond the table is within a factor of two of the count a run finds. The table
once described a model kmc no longer has by default (kmc 0.1's free leader moves, up to a hundred
times larger), and every warning and the compiled engine's table sizing were off by that much."""

from checker import check
from model import Bounds, ModelConfig
from model.estimate import MEASURED, MEASURED_UNORDERED, estimated_states

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


def test_an_extrapolation_beyond_the_table_is_within_a_factor_of_two():
    actual = _count(2, (4, 3, 2))
    estimate = estimated_states(2, 4, 3, 2)
    assert actual / 2 <= estimate <= actual * 2, (estimate, actual)
