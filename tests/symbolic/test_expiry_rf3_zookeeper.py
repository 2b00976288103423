"""A session expiry at RF=3 in ZooKeeper mode (issue 29br).

``kmc prove --kafka-version 2.1 -r 3 --max-records 1 --max-session-expiries 1 -p no-acked-loss -s
all --search none`` stopped on counterexamples to induction (CTIs) that RF=2's library does not
rule out; ``expiries`` has a fact (or a wider form of one) for each of the first twenty-one, on
only in ZooKeeper mode at RF >= 3 under ``--max-session-expiries`` with no other fault bound
(``expiries._zk_elections_at_rf3``): at RF=2 and on KRaft their formulas are ``True`` (RF=2's
proofs keep their terms). Each was checked on every one of the 216,930 reachable states of that
configuration by the issue's BFS (docs/symbolic.md, "A session expiry at RF=3 in ZooKeeper
mode"); the slow test here re-checks them with ``reachable.false_on_reachable``.
"""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.state import Dims, fresh
from model import make_model
from model.options import config_from_options
from model.state import PartitionState

NEW = ("new-epoch-isr-lacks-a-replica", "behind-isr-member-in-previous-isr",
       "waiting-leader-requests-shrink", "pending-ack-epoch-led",
       "running-leader-out-of-later-leaderless-isrs", "isr-fetcher-older-records-are-leaders",
       "far-behind-isr-member-in-previous-isrs", "full-isr-has-a-caught-up-member",
       "added-past-untaken-request-caught-up", "behind-member-in-every-request-of-its-epoch",
       "untaken-epoch-one-isr", "renamed-leader-remote-leo-is-follower-prefix",
       "leader-holds-earlier-hw", "later-leaders-hold-older-acked", "epoch-hw-behind-its-leader")
"""The facts issue 29br added or (``new-epoch-isr-lacks-a-replica``) turned on in ZooKeeper mode
at RF >= 3 under a session expiry."""


def cfg(version="2.1", rf=3, records=1, **bounds):
    bounds.setdefault("max_session_expiries", 1)
    return config_from_options(kafka_version=version, replication_factor=rf, max_records=records,
                               **bounds)[0]


def _state(config, replicas, **cluster):
    init = make_model(config).init_states()[0]
    reps = tuple(r._replace(**changes) for r, changes in zip(init.replicas, replicas))
    return init._replace(replicas=reps, **cluster)


def _first_cti(config):
    """The first CTI's pre-state (2026-11-29 21:55, unreachable): broker 0 waits after a restart
    with LeaderAndIsr of epochs 0 and 2 on their way; the controller's epoch 2 (leader 0, not yet
    taken) has the full ISR {0,1,2}. Taking epoch 0 first makes broker 0 leader of 0 with ISR
    {0,1}, and later-request-isr-within-leader-view fails."""
    return _state(config, [{"log": ((1, 0),), "leader_epoch": -1, "leader": -1, "isr": (),
                            "remote_log_end_offsets": (-1, -1, -1)},
                           {"leader_epoch": 2, "leader": 0},
                           {"leader_epoch": 0, "leader": 0, "truncating": True}],
                  controller=PartitionState(leader=0, leader_epoch=2, isr=(0, 1, 2), live_brokers=(0, 1)),
                  leader_and_isr=((0, 0, 0, (0, 1)), (0, 2, 0, (0, 1, 2)), (2, 2, 0, (0, 1, 2))),
                  records_written=1, crashes=1, session_expiries=1)


def _third_cti(config):
    """The third CTI's pre-state (22:03, unreachable): broker 0 waits with LeaderAndIsr of epoch 0
    (leader 0, ISR {0,1}) and epoch 2 (leader 0, ISR {0,2}) on their way: the later one names
    broker 2, which the earlier one does not, though broker 0 has taken no epoch since."""
    return _state(config, [{"log": ((1, 0),), "leader_epoch": -1, "leader": -1, "isr": (),
                            "remote_log_end_offsets": (-1, -1, -1)},
                           {"leader_epoch": 0, "leader": 0,
                            "fetch_response": (0, 0, 0, ((1, 0),), 0, 1)},
                           {"leader_epoch": 2, "leader": 0, "truncating": True}],
                  controller=PartitionState(leader=0, leader_epoch=2, isr=(0, 2), live_brokers=(0, 1, 2)),
                  leader_and_isr=((0, 0, 0, (0, 1)), (0, 2, 0, (0, 2)), (1, 2, 0, (0, 2))),
                  records_written=1, crashes=1, session_expiries=1)


def test_the_facts_rule_out_their_ctis_at_rf3_and_are_true_elsewhere():
    from checker.symbolic.strengthen import STRENGTHENINGS
    from tests.symbolic.helpers import formula_evaluator

    config = cfg()
    ctis = (("new-epoch-isr-lacks-a-replica", _first_cti(config)),
            ("waiting-leader-requests-shrink", _third_cti(config)))
    evaluate = formula_evaluator(Dims.of(config), {n: STRENGTHENINGS[n].formula for n, _ in ctis})
    init = make_model(config).init_states()[0]
    for name, state in ctis:
        assert not STRENGTHENINGS[name].holds(state, config), name  # the CTI is ruled out
        assert not evaluate(state)[name], name  # and so is it by the z3 formula
        assert evaluate(init)[name], name
    assert all(STRENGTHENINGS[n].holds(init, config) for n in NEW)  # the initial state has them
    # at RF=2 (1 and 2 records), on KRaft (3.5) and without the expiry (a controller failover on
    # 2.7 at RF=3) each formula is True: those rows keep their terms
    for other in (cfg(rf=2), cfg(rf=2, records=2), cfg("3.5"),
                  cfg("2.7", max_session_expiries=0, max_controller_failovers=1)):
        d = Dims.of(other)
        s = fresh(d, "other")
        for name in NEW:
            if name == "new-epoch-isr-lacks-a-replica" and "kraft" in other.rules:
                continue  # its KRaft 3.6+ form (issue 29bj) is not this issue's; 3.5 has none
            solver = z3.Solver()
            solver.add(z3.Not(STRENGTHENINGS[name].formula(d, s)))
            assert solver.check() == z3.unsat, (name, other.bounds)


@pytest.mark.slow  # a BFS of 216,930 states, every fact on each: about 10 min at nice 19
def test_the_facts_hold_on_every_reachable_state_of_2_1_at_rf3_with_an_expiry():
    from checker.symbolic.strengthen.reachable import false_on_reachable

    n, complete, false = false_on_reachable(cfg(), NEW)
    assert complete and n == 216_930
    assert not false, {k: c for k, (c, _) in false.items()}
