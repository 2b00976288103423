"""The producer's retries without idempotence in the z3 encoding (issue 29aq): z3's successors
equal the kernel's on reachable states, a mutant that forgets max.in.flight is caught,
and the idempotent producer (with its epoch bumps) passes the scope since issue 29at."""

from dataclasses import replace

import pytest

from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.scope import require_encoded
from checker.symbolic.transitions import Encoder
from model import Bounds, ConfigError, ModelConfig

ROWS = [label for label in CONFIGS if "retries" in label and "idempotent" not in label]


def test_rows_cover_both_in_flight_limits_and_kafka_3197():
    assert len(ROWS) == 5
    configs = [CONFIGS[label] for label in ROWS]
    assert {c.max_in_flight_requests_per_connection for c in configs} == {1, 2}
    assert {"in-flight-per-partition" in c.rules for c in configs} == {True, False}


@pytest.mark.parametrize("label", ROWS)
def test_retry_rows_agree_with_the_kernel(label):
    r = crosscheck(CONFIGS[label], 25, 7)
    assert r.agrees, r.disagreements[:1]


class IgnoresInFlight(Encoder):
    """A mutant: the producer sends without waiting for max.in.flight.requests.per.connection
    (a second record while the first waits for its answer)."""

    def may_send(self, s, rid, b):
        return True


@pytest.mark.parametrize("label, samples", [  # (the first, 13 s, in make test-slow)
    pytest.param("--kafka-version 2.1 retries max.in.flight 1", 100, marks=pytest.mark.slow),
    ("--kafka-version 2.1 retries max.in.flight 2", 30)])
def test_sending_past_max_in_flight_is_caught(label, samples):
    # at max.in.flight 2 the row has three records, so that a third send can be held back
    r = crosscheck(CONFIGS[label], samples, 7, encoder=IgnoresInFlight)
    assert r.disagreements


def test_idempotent_retries_and_epoch_bumps_pass_the_scope():
    # the idempotent producer's retries and its epoch bumps are encoded since issue 29at
    # (tests/symbolic/test_idempotent_producer.py); they were refused in one line
    config = ModelConfig(protocol="kip-320", kafka_version="2.5", enable_idempotence=True,
                         max_in_flight_requests_per_connection=1,
                         bounds=Bounds(2, 2, 1, 1, max_retries=1, max_producer_epoch_bumps=1))
    require_encoded(config)
    # and with the consumer and its restarts too (encoded since issue 29be; refused before)
    require_encoded(replace(config, consumer_commit="after", bounds=Bounds(
        2, 2, 1, 1, max_retries=1, max_producer_epoch_bumps=1, max_consumer_restarts=1)))


def test_a_delivery_property_is_proved_and_one_without_a_formula_refused_as_such():
    # retries pass the scope since issue 29aq; no-duplicates has a z3 formula since issue 29as,
    # and prove finds a duplicate; a property still without one is refused as such (it
    # said "unknown property", which kmc check then checked)
    from checker.symbolic.induction import VIOLATED, prove
    config = ModelConfig(protocol="kip-320", kafka_version="2.1", bounds=Bounds(2, 2, 1, 1, max_retries=1))
    assert prove(config, "no-duplicates").status == VIOLATED
    # (at-least-once was the example until it got its formula, issue 29be: a property still
    # without one is picked from the registry)
    from checker.symbolic.strengthen import formula_of
    from properties import PROPERTIES
    from properties.liveness import LIVENESS
    lacking = [n for n in PROPERTIES if formula_of(n) is None and n not in LIVENESS]
    for name in lacking[:1]:
        with pytest.raises(ConfigError, match=f"no z3 formula for the property '{name}'.*kmc check"):
            prove(config, name)
    with pytest.raises(ConfigError, match="unknown property or strengthening invariant 'nope'"):
        prove(config, "nope")
