"""The timed rule ``hw-waits-for-caught-up-replica`` (KAFKA-4485, 0.10.2; KAFKA-15021, 3.6) in
the z3 encoding against the compiled kernel, on the states where it decides: a leader with a
follower outside its ISR that is caught up in the timed reading (heard from in this leadership,
running, following it in its epoch) and behind its log end. Both rows agree, and an encoding
that forgets the rule is caught on them, so the check can fail."""

from __future__ import annotations

import pytest

from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.transitions import Encoder

ROWS = ("kip-320 +timed +kmc-0.1 min.isr=1", "--kafka-version 3.6 +timed session expiries")


def waits_for_someone(state) -> bool:
    """Some leader has a caught-up follower outside its ISR, behind its log end and not behind
    its HW (so that the wait can hold the HW back)."""
    reps = state.replicas
    for b, r in enumerate(reps):
        if not r.alive or r.leader != b:
            continue
        for f, leo in enumerate(r.remote_log_end_offsets):
            rf = reps[f]
            if (f != b and f not in r.isr and r.high_watermark <= leo < len(r.log) and rf.alive
                    and rf.leader == b and rf.leader_epoch == r.leader_epoch):
                return True
    return False


class ForgetsCaughtUpFollowers(Encoder):
    """Narrower HW wait than the kernel's: the encoding without the rule."""

    def __init__(self, model):
        super().__init__(model)
        self.timed_hw = False


@pytest.mark.parametrize("label", ROWS)
def test_the_encoding_waits_for_caught_up_followers_as_the_kernel_does(label):
    result = crosscheck(CONFIGS[label], samples=12, seed=5, where=waits_for_someone)
    assert result.agrees, "\n".join(str(d) for d in result.disagreements[:5])
    assert result.states == 13


@pytest.mark.parametrize("label", ROWS)
def test_an_encoding_without_the_rule_is_caught(label):
    result = crosscheck(CONFIGS[label], samples=12, seed=5, where=waits_for_someone,
                        encoder=ForgetsCaughtUpFollowers)
    assert not result.agrees
