"""The crash counts a controller failover needs in the proof (issue 29ay).

A zombie controller keeps a leaderless view after the broker it names has restarted, so the
library's crash counts (``crashes-counted``, ``epoch-bumps-crashed``) forget that crash;
``leaderless-isr-crashed`` counts the lone ISR member of a leaderless view (the zombie's
among them) as a broker that crashed. 29ap's CTI (a) is of that shape: the zombie's
leaderless view names broker 0 while another broker waits after a restart of its own, two
crashes under a bound of one. The test checks the fact and its formula on every reachable
state (Kafka 2.1, RF=2, one failover, 1 record), then builds that shape from a reachable state:
the fact (predicate and formula) rules it out, and ``crashes-counted`` (the fact without the
leaderless views: the mutant) does not.
"""

from __future__ import annotations

import pytest

from checker.symbolic.state import Dims
from checker.symbolic.strengthen import STRENGTHENINGS
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator
from tests.symbolic.test_shutdowns_expiries import _reachable


@pytest.mark.slow  # BFS of 2,702 states and a z3 evaluation of each: about 30 s on a loaded machine
def test_a_leaderless_zombie_view_counts_its_isr_member_as_crashed():
    config = config_from_options(kafka_version="2.1", replication_factor=2, max_records=1,
                                 max_leader_epoch=2, max_crashes=1, max_controller_failovers=1)[0]
    st = STRENGTHENINGS["leaderless-isr-crashed"]
    evaluate = formula_evaluator(Dims.of(config), {"f": st.formula})
    states = _reachable(config, 20_000)
    # every reachable state, one per broker renaming (reachable.py's count): 2,620 when written
    # (29ay), 2,702 since Kafka 2.1's epoch-start slot (d83be6c, lead 2026-11-29; found by issue
    # 29bi, whose change leaves 2.1 alone: its code runs only with rule broker-epoch)
    assert len(states) == 2_702
    assert all(st.holds(s, config) for s in states)
    assert all(evaluate(s)["f"] for s in states)
    # a reachable state where the zombie's view is leaderless and both brokers run in an epoch
    # (its ISR member has restarted since, so no broker is down or waiting)
    shaped = [s for s in states if s.zombie_controller and s.zombie_controller[1] == -1
              and s.crashes == 1 and all(r.alive and r.leader_epoch >= 0 for r in s.replicas)
              # and only the zombie remembers it: the controller and every request name a leader
              and s.controller.leader != -1 and all(x[2] != -1 for x in s.leader_and_isr)]
    assert shaped, "no reachable state with a leaderless zombie view and a running broker"
    s = shaped[0]
    other = next(b for b, r in enumerate(s.replicas)
                 if b not in s.zombie_controller[3] and r.alive and r.leader_epoch >= 0)
    # that broker restarted and waits (29ap's CTI (a)): a second crash the bound does not allow
    cti = s._replace(replicas=tuple(
        r._replace(leader_epoch=-1, leader=-1, isr=(), fetch_response=(), truncating=False,
                   controller_epoch_seen=0, zombie_request=False,
                   remote_log_end_offsets=tuple(-1 for _ in r.remote_log_end_offsets))
        if b == other else r for b, r in enumerate(s.replicas)))
    assert not st.holds(cti, config)
    assert not evaluate(cti)["f"]
    # the mutant: counting only brokers down or waiting (crashes-counted) lets it through
    assert STRENGTHENINGS["crashes-counted"].holds(cti, config)
