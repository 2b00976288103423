"""KIP-380's broker epoch in the zombie controller's requests in the z3 encoding (issue 29bi).

On sampled reachable states where a broker registered since the failover (by a restart, or by a
new session after a session expiry), z3's successors equal the kernel's; an encoding that forgets
the refusal (``Encoder.refuses_zombie`` always False) is caught there, on the zombie's send."""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.transitions import Encoder

ROWS = ("--kafka-version 2.2 controller failovers and session expiries",
        "--kafka-version 2.7 controller failovers")


class _NoRefusal(Encoder):
    """The encoding before issue 29bi: the zombie's request reaches a re-registered broker."""

    def refuses_zombie(self, r):
        return z3.BoolVal(False)


def _registered(state):
    return any(r.registered_since_failover for r in state.replicas)


@pytest.mark.slow
@pytest.mark.parametrize("label", ROWS)
def test_z3_equals_the_kernel_where_a_broker_registered_since_the_failover(label):
    # 13:37 UTC 2026-11-29, load 5-6: 32.5 s and 20.8 s
    result = crosscheck(CONFIGS[label], samples=8, seed=5, where=_registered)
    assert result.agrees, result.disagreements[:2]


@pytest.mark.slow
@pytest.mark.parametrize("label", ROWS)
def test_an_encoding_without_the_refusal_is_caught(label):
    # 25.7 s and 15.2 s at the same time and load
    result = crosscheck(CONFIGS[label], samples=8, seed=5, where=_registered, encoder=_NoRefusal)
    assert not result.agrees
    assert {d.action.name for d in result.disagreements} == {"ZombieControllerSendLeaderAndIsr"}
