"""The z3 encoding against the compiled kernel (``checker/symbolic/crosscheck.py``).

On sampled states the kernel reaches, for every rule set the symbolic engine accepts (the four
protocol presets, kmc 0.1's two switches, the time abstraction, Kafka 2.1 by release, RF=2 and
RF=3, every acks, both crash models that lose data or not, unclean elections): each kernel
successor satisfies its action's formula, and z3 finds no ``(action, successor)`` the kernel
lacks. Both directions hold with Kafka's ordered elections and in-order LeaderAndIsr too (issue
29: encoded as the kernel has them). A deliberately broken encoding (a guard dropped, a guard
off by one, an effect wrong, the assignment order or the request order forgotten, a preferred
election that forgets a reassignment, a reassignment without its new leader epoch) is caught, so
the check can fail. The operator's leader moves (``--max-preferred-elections``,
``--max-reassignments``, issue 29) have rows of their own, RF=2 and RF=3, and so do KRaft's
``isr-eligibility`` and ``alter-partition-shrink-bumps-leader-epoch`` (issue 29f), on
``crosscheck.MechanismAlone`` configurations (without ``kraft`` a plain configuration drops them),
and the fencing rules (issue 29h): ``broker-epoch-in-fetch`` and ``stale-fetch-rejected`` on
``MechanismAlone``, ``hw-needs-min-isr`` on plain ZooKeeper releases; delayed fetches (issue
29z) have eight rows, three here and the others (``CROSSCHECK_ONLY``) marked slow. Kafka 2.1
with one of KIP-320's four fixes taken away (issue 29ah: ``-fenced-fetch``,
``-epoch-cache-on-election``, ``-truncate-on-epoch-change`` on the known-results rows'
over-approximation, ``-isr-join-needs-epoch-start`` at RF=3) has a row each, and a switch read the
wrong way is caught on states where its rule decides; adding one of them to an older release is
refused by the encoding (no row covers it). A disk lost with the crash (issue 29aj) has six rows
(ZooKeeper, KRaft without and with KIP-903, the ELR, RF=3 slow); its mutants are in
test_disk_loss.py. ZooKeeper controller failovers (issue 29ak) have
eight rows, 2.1 at RF=2 here and the others marked slow; their broken encodings are in
``test_controller_failovers.py``. A KRaft leader's ISR expansion on a stale metadata cache
(issue 29bc) has seven rows, all marked slow (a random sample seldom meets the action); the
states where it is enabled and its broken encodings are in ``test_stale_metadata.py``. What
consumers read (issue 29bf: ``track_reads``, KIP-392's fetch from followers) has five rows, 2.4
at RF=2 here and the others slow; its broken encodings are in ``test_reads.py``.
"""

from __future__ import annotations

import pytest
import z3

from checker.symbolic.crosscheck import CONFIGS, CROSSCHECK_ONLY, crosscheck
from checker.symbolic.transitions import Encoder
from checker.symbolic.state import count


# ``make test`` keeps every RF=2 row and three RF=3 rows (ZooKeeper, KRaft, the ELR); the other
# RF=3 rows run in ``make test-slow``, and every row at 100 samples in ``make crosscheck``
SAMPLES = 6
RF3_IN_MAKE_TEST = {"kip-320 RF=3", "--kafka-version 3.3 RF=3", "--kafka-version 4.1 RF=3"}


def _slow(label: str) -> bool:
    return label in CROSSCHECK_ONLY or ("RF=3" in label and label not in RF3_IN_MAKE_TEST)


@pytest.mark.parametrize("label", [pytest.param(label, marks=pytest.mark.slow)
                                   if _slow(label) else label for label in CONFIGS])
def test_the_encoding_has_exactly_the_kernels_successors(label):
    # 6 samples a row (the initial state and 6 more): about 2 s of CPU a row, 83 rows in make
    # test; it was 12 until CI's run reached 25.5 minutes (docs/testing.md, "The third trim").
    # `make crosscheck` runs every row at 100 samples.
    config = CONFIGS[label]
    result = crosscheck(config, samples=SAMPLES, seed=5)
    assert result.agrees, "\n".join(str(d) for d in result.disagreements[:5])
    assert result.states == SAMPLES + 1
    # the sample is not vacuous: states with successors, of more than one action
    assert sum(result.transitions.values()) >= SAMPLES + 1 and len(result.transitions) >= 3


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


class AnyIsrMemberWins(Encoder):
    """Wider than Kafka: an election picks any eligible broker, not the first in assignment
    order (the over-approximation ``unordered-leader-moves``, on a config without it)."""

    def first_in_assignment(self, s, mask, c):
        return mask[c]


class RequestsInAnyOrder(Encoder):
    """Wider than Kafka: a broker applies a LeaderAndIsr request while an older one is queued."""

    def __init__(self, model):
        super().__init__(model)
        self.in_order = False


class PreferredIsAlwaysBrokerZero(Encoder):
    """Wider and narrower than Kafka: a preferred-replica election moves leadership to broker 0,
    the first replica of the *initial* assignment, forgetting that a reassignment reordered it."""

    def is_preferred(self, s, b):
        return b == 0


class ReassignmentKeepsTheEpoch(Encoder):
    """A wrong effect: a reassignment writes the new order but no new leader epoch (ZooKeeper
    mode bumps it: ``updateLeaderEpochAndSendRequest``)."""

    def _enc_ControllerReassignReplicas(self, s, first, ordering):
        return [(g, nxt.but(c_epoch=s.c_epoch, lai=s.lai, lai_leader=s.lai_leader, lai_isr=s.lai_isr))
                for g, nxt in super()._enc_ControllerReassignReplicas(s, first, ordering)]


def reordered_with_a_preferred_election_due(state):
    """A reassignment has made broker 1 or 2 the preferred replica, which is live, in the ISR
    and not the leader: a preferred-replica election is enabled (if the bounds leave one)."""
    c = state.controller
    first = next(b for b, r in enumerate(state.replicas) if r.assignment_rank == 0)
    return (first != 0 and c.leader >= 0 and first != c.leader and first in c.isr
            and first in c.live_brokers and state.preferred_elections == 0)


def a_reassignment_is_due(state):
    """No reassignment yet and the leader is live in the controller's view."""
    c = state.controller
    return state.reassignments == 0 and c.leader >= 0 and c.leader in c.live_brokers


def leader_down_two_can_follow(state):
    """The controller has yet to notice its leader is down, and two other live brokers are in
    the ISR: Kafka elects the first of them in assignment order, the over-approximation either."""
    c = state.controller
    others = [b for b in c.isr if b != c.leader and b in c.live_brokers]
    return c.leader >= 0 and not state.replicas[c.leader].alive and len(others) >= 2


def two_requests_queued(state):
    """A live broker has two LeaderAndIsr requests newer than its epoch on their way."""
    return any(len([e for b2, e, _, _ in state.leader_and_isr
                    if b2 == b and e > r.leader_epoch]) >= 2
               for b, r in enumerate(state.replicas) if r.alive)


@pytest.mark.parametrize("broken, label, where, action", [
    (AnyIsrMemberWins, "kip-279 RF=3 (Kafka's elections)", leader_down_two_can_follow,
     "ControllerHandleBrokerFailure"),
    (RequestsInAnyOrder, "kip-320 (Kafka's elections)", two_requests_queued,
     "BecomeLeaderOrFollower"),
])
def test_forgetting_kafkas_orders_is_caught(broken, label, where, action):
    config = CONFIGS[label]
    assert crosscheck(config, samples=3, seed=5, where=where).agrees  # the real encoding
    result = crosscheck(config, samples=3, seed=5, encoder=broken, where=where)
    assert {d.kind for d in result.disagreements} == {"wider"}
    assert {d.action.name for d in result.disagreements} == {action}


@pytest.mark.parametrize("broken, where, kinds", [
    # the kernel's election to the reordered preferred replica is missing (and, where broker 0
    # is a live ISR member other than the leader, one to broker 0 is extra)
    (PreferredIsAlwaysBrokerZero, reordered_with_a_preferred_election_due, {"narrower"}),
    (ReassignmentKeepsTheEpoch, a_reassignment_is_due, {"wider", "narrower"}),
])
def test_a_broken_operator_move_is_caught(broken, where, kinds):
    # the operator's leader moves (issue 29): on RF=3 states where the move is due, the real
    # encoding agrees with the kernel and a broken one disagrees on that action
    config = CONFIGS["--kafka-version 2.1 RF=3 preferred elections and reassignments"]
    assert crosscheck(config, samples=3, seed=5, where=where).agrees
    result = crosscheck(config, samples=3, seed=5, encoder=broken, where=where)
    assert kinds <= {d.kind for d in result.disagreements}
    assert {d.action.name for d in result.disagreements} == {
        "ControllerPreferredElection" if broken is PreferredIsAlwaysBrokerZero
        else "ControllerReassignReplicas"}


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


# KIP-320's four fixes as switches (issue 29ah): on Kafka 2.1 with one taken away, an encoding
# that reads the switch the wrong way round is caught, on states where the rule decides


def _pairs(state):
    """(leader, follower, follower's broker id) for each live leader and a live follower of it."""
    for lb, lead in enumerate(state.replicas):
        if lead.alive and lead.leader == lb:
            for fb, f in enumerate(state.replicas):
                if fb != lb and f.alive and f.leader == lb:
                    yield lead, f, fb


def _epoch_start(leader):
    """The offset the leader's current epoch starts at (its LEO if it wrote nothing in it)."""
    return next((o for o, (_, e) in enumerate(leader.log) if e == leader.leader_epoch),
                len(leader.log))


def follower_in_another_epoch(state):
    """A follower fetching from a leader in another leader epoch (``fenced-fetch`` decides)."""
    return any(f.leader_epoch != lead.leader_epoch for lead, f, _ in _pairs(state))


def truncating_above_the_leaders_records(state):
    """A truncating follower whose last epoch is newer than the leader's last record, and a
    leader with no record in its epoch (``epoch-cache-on-election`` decides the answer)."""
    return any(f.truncating and f.log and _epoch_start(lead) == len(lead.log)
               and (not lead.log or f.log[-1][1] > lead.log[-1][1])
               for lead, f, _ in _pairs(state))


def same_leader_in_a_new_epoch_queued(state):
    """A follower that is not truncating has a LeaderAndIsr queued naming its leader in a newer
    epoch (``truncate-on-epoch-change`` decides whether it truncates again)."""
    return any(r.alive and not r.truncating and r.leader not in (b, -1) and r.log
               and e > r.leader_epoch and ld == r.leader
               for b, r in enumerate(state.replicas) for b2, e, ld, _ in state.leader_and_isr
               if b2 == b)


def caught_up_to_the_hw_not_the_epoch_start(state):
    """A follower out of the ISR at or past the leader's HW but before its epoch's start
    (``isr-join-needs-epoch-start`` decides whether the fetch adds it)."""
    return any(fb not in lead.isr and not f.truncating
               and lead.high_watermark <= len(f.log) < _epoch_start(lead)
               for lead, f, fb in _pairs(state))


def _flipped(attr):
    class Flipped(Encoder):
        def __init__(self, model):
            super().__init__(model)
            setattr(self, attr, not getattr(self, attr))
    Flipped.__name__ = f"Flipped_{attr}"
    return Flipped


@pytest.mark.parametrize("label, attr, where, action", [
    ("--kafka-version 2.1 -fenced-fetch", "fenced", follower_in_another_epoch,
     "LeaderHandleFetch"),
    ("--kafka-version 2.1 -epoch-cache-on-election", "cache_on_election",
     truncating_above_the_leaders_records, "FollowerTruncate"),
    ("--kafka-version 2.1 -truncate-on-epoch-change", "truncate_every_epoch",
     same_leader_in_a_new_epoch_queued, "BecomeLeaderOrFollower"),
    ("--kafka-version 2.1 -isr-join-needs-epoch-start RF=3", "isr_needs_epoch_start",
     caught_up_to_the_hw_not_the_epoch_start, "LeaderHandleFetch"),
])
def test_a_kip_320_switch_read_the_wrong_way_is_caught(label, attr, where, action):
    config = CONFIGS[label]
    real = crosscheck(config, samples=6, seed=5, where=where)
    assert real.agrees and real.states == 7  # six states where the rule decides, and the initial
    result = crosscheck(config, samples=6, seed=5, encoder=_flipped(attr), where=where)
    assert not result.agrees
    assert action in {d.action.name for d in result.disagreements}
