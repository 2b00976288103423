"""The z3 formulas of the delivery properties (issue 29as, checker/symbolic/formulas.py):
``no-duplicates`` and ``in-order`` agree with their Python predicates on every reachable state of
a retry configuration (Kafka 2.1, RF=2, ``--max-retries 1``, no idempotence) where each is false
somewhere, and a mutant formula (one judging unacknowledged records too; one comparing every
copy, not the first ones) disagrees on some reachable state. ``max.in.flight.requests.per.
connection=1`` for no-duplicates (a retry writes its record twice); 2 and a crash for in-order
(a retried send lands after a later one). ``exactly-once-to-log`` (both) is checked on both."""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.formulas import DEFAULT_FORMULAS, FORMULAS, no_duplicates, true_leader_is
from model.options import config_from_options
from tests.symbolic.helpers import assert_formulas_agree

DUP, ORDER, BOTH = "no-duplicates", "in-order", "exactly-once-to-log"


def _retries(in_flight, **settings):
    settings = {"max_records": 2, "max_leader_epoch": 1, "max_crashes": 0, "max_retries": 1,
                **settings}
    return config_from_options(kafka_version="2.1", replication_factor=2,
                               max_in_flight_requests_per_connection=in_flight, **settings)[0]


# the mutants: every record judged, acknowledged or not (the acked test dropped); every copy
# compared, not the first ones
def _dup_unacked_too(d, s):
    return no_duplicates(d, s.but(acked=[z3.BoolVal(True)] * d.records))


def _order_every_copy(d, s):  # every copy of the earlier send before every copy of the later
    out = []
    for l in range(d.n):
        r = s.reps[l]
        out.append(z3.Implies(true_leader_is(s, l), z3.And([
            z3.Implies(z3.And(s.acked[k1], s.acked[k2], r.log_id[i] == k1 + 1,
                              r.log_id[j] == k2 + 1, i < r.hw, j < r.hw), i < j)
            for k2 in range(d.records) for k1 in range(k2)
            for i in range(d.slots) for j in range(d.slots)])))
    return z3.And(out)


CASES = {
    "2.1, retries, max.in.flight 1": (_retries(1), {DUP: (_dup_unacked_too,), BOTH: ()}),
    "2.1, retries, max.in.flight 2, a crash": (_retries(2, max_crashes=1), {ORDER: (_order_every_copy,), BOTH: ()}),
}


# make test keeps the quick one (1.3 s); the in-order one (7,131 states: 44 s wall, 24 s user at
# load 2.9) runs in make test-slow
IN_MAKE_TEST = {"2.1, retries, max.in.flight 1"}


@pytest.mark.parametrize("label", [label if label in IN_MAKE_TEST
                                   else pytest.param(label, marks=pytest.mark.slow)
                                   for label in CASES])
def test_each_formula_agrees_with_its_predicate_on_every_reachable_state(label):
    config, asked = CASES[label]
    assert_formulas_agree(config, asked, 100)


def test_the_delivery_formulas_are_asked_by_name_only():
    # false with retries by design (KIP-98): a proof may never assume them
    assert {DUP, ORDER, BOTH} <= set(FORMULAS)
    assert not {DUP, ORDER, BOTH} & set(DEFAULT_FORMULAS)
