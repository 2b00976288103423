"""The z3 encoding against the compiled kernel (``checker/symbolic/crosscheck.py``).

On sampled states the kernel reaches, for every rule set the symbolic engine accepts (the four
protocol presets, kmc 0.1's two switches, the time abstraction, Kafka 2.1 by release, RF=2 and
RF=3, every acks, both crash models that lose data or not, unclean elections): each kernel
successor satisfies its action's formula, and z3 finds no ``(action, successor)`` the kernel
lacks. With Kafka's ordered elections the encoding is the oracle's over-approximation, so only
the first direction is required there. A deliberately broken encoding (a guard dropped, a guard
off by one, an effect wrong) is caught, so the check can fail.
"""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.transitions import Encoder
from checker.symbolic.state import count


@pytest.mark.parametrize("label", list(CONFIGS))
def test_the_encoding_has_exactly_the_kernels_successors(label):
    config = CONFIGS[label]
    result = crosscheck(config, samples=12, seed=5)
    assert result.agrees, "\n".join(str(d) for d in result.disagreements[:5])
    assert result.states == 13
    # the sample is not vacuous: states with successors, of more than one action
    assert sum(result.transitions.values()) >= 13 and len(result.transitions) >= 3
    assert result.both_directions == ("(Kafka's elections)" not in label)


class ShrinksCaughtUpFollowers(Encoder):
    """Wider than Kafka: LeaderShrinkIsr without its lag test (``r.remote[f] < r.leo``)."""

    def _enc_LeaderShrinkIsr(self, s, b, f):
        if f == b:
            return []
        r = s.reps[b]
        guard = [r.alive, r.leader == b, count(r.isr) > 1, self._isr_change_allowed(s, b, r), r.isr[f]]
        isr = [z3.BoolVal(False) if j == f else r.isr[j] for j in range(self.n)]
        nxt = s.put(b, r.but(isr=isr)).but(c_isr=isr)
        return [(z3.And(guard), self.maybe_increment_leader_hw(nxt, b))]


class MinIsrOffByOne(Encoder):
    """Narrower than Kafka: acks=all produce refused unless the ISR is *larger* than
    min.insync.replicas (Kafka refuses only when it is smaller: ``Partition.appendRecordsToLeader``)."""

    def _enc_ProduceRecord(self, s, b):
        cases = super()._enc_ProduceRecord(s, b)
        return [(z3.And(g, count(s.reps[b].isr) > self.min_isr), nxt) for g, nxt in cases]


class StampsTheNextEpoch(Encoder):
    """A wrong effect: a produced record carries the leader's epoch + 1."""

    def _enc_ProduceRecord(self, s, b):
        cases = super()._enc_ProduceRecord(s, b)
        out = []
        for g, nxt in cases:
            r = nxt.reps[b]
            eps = [z3.If(i == s.reps[b].leo, s.reps[b].lep + 1, r.log_ep[i]) for i in range(self.d.slots)]
            out.append((g, nxt.put(b, r.but(log_ep=eps))))
        return out


@pytest.mark.parametrize("broken, kinds, action", [
    (ShrinksCaughtUpFollowers, {"wider"}, "LeaderShrinkIsr"),
    (MinIsrOffByOne, {"narrower"}, "ProduceRecord"),
    (StampsTheNextEpoch, {"wider", "narrower"}, "ProduceRecord"),
])
def test_a_broken_encoding_is_caught(broken, kinds, action):
    result = crosscheck(CONFIGS["kip-320"], samples=4, seed=5, encoder=broken)
    assert not result.agrees
    assert {d.kind for d in result.disagreements} == kinds
    assert {d.action.name for d in result.disagreements} == {action}
    assert action in str(result.disagreements[0])


def test_a_narrower_encoding_is_caught_under_kafkas_elections_too():
    result = crosscheck(CONFIGS["kip-320 (Kafka's elections)"], samples=4, seed=5,
                        encoder=MinIsrOffByOne)
    assert {d.kind for d in result.disagreements} == {"narrower"}
