"""KIP-497's AlterPartition (Kafka 2.7, rule ``alter-partition``) in the z3 encoding (issue 29i).

The encoding holds the leader's AlterPartition in flight, the partition-epoch bits and the
maximal ISR as the compiled kernel does; ``crosscheck.CONFIGS`` has rows for it (run by
``test_kernel_crosscheck.py``). Here: two deliberately broken encodings are caught by the
cross-check; every library invariant holds on every reachable state of small configurations
with the rule, and the formulas of the ones the rule touches say what their predicates say
there and on states z3 picks; ``no-acked-loss`` is PROVED at RF=2 (BFS agrees), and without the
AlterPartition invariants the proof stops on an unreachable counterexample to induction."""

from __future__ import annotations

import pytest
import z3

from checker import HOLDS, check
from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.induction import INCONCLUSIVE, PROVED, prove
from checker.symbolic.scope import KernelReplayed, lacking_rules, symbolic_model
from checker.symbolic.state import Dims, decode, fresh, well_formed
from checker.symbolic.strengthen import STRENGTHENINGS, all_names, check_of
from checker.symbolic.strengthen import alter_partition
from checker.symbolic.transitions import Encoder
from model import make_model
from model.constants import ALTER_SENT
from model.options import config_from_options
from tests.symbolic.helpers import formula_evaluator, reachable

NEW = [st.name for st in alter_partition.STRENGTHENINGS]
# the invariants whose formula reads the AlterPartition state (the maximal ISR, the answer)
TOUCHED = NEW + ["leader-isr-is-controller-isr", "isr-grows-only-under-its-leader",
                 "next-leader-from-isr", "isr-followers-hold-hw", "isr-remote-ge-hw",
                 "controller-isr-live", "leaderless-isr-is-last-leader"]


def _config(rf=2, rules=(), **bounds):
    return config_from_options(kafka_version="2.1", replication_factor=rf,
                               rule_changes=("+alter-partition",) + tuple(rules), **bounds)[0]


RF2 = _config()  # 2 records, epochs <= 2, 1 crash: 2,257 states
HW = _config(rules=("+hw-on-alter-partition-answer",))  # 3,110 states
RF3 = _config(rf=3)  # 1 record, epochs <= 2, 1 crash: 26,375 states


def test_the_engine_takes_the_rule_on_kafka_2_1():
    for config in (RF2, HW):
        assert lacking_rules(config) == []
        model = symbolic_model(config)
        assert isinstance(model, KernelReplayed)  # the oracle lacks it: traces replay in the kernel
        assert Dims.of(config).alter
    assert Dims.of(HW).hw_on_answer and not Dims.of(RF2).hw_on_answer


class HwIgnoresThePendingExpansion(Encoder):
    """Wider and narrower: the HW counts only the committed ISR, not the member a pending
    AlterPartition adds (2.7.0's ``maximalIsr``)."""

    def maximal_isr(self, r):
        return r.isr


class ControllerChecksNoEpoch(Encoder):
    """Wider and narrower: the controller writes a request from an older leader epoch whose
    partition epoch is stale too (Kafka answers FENCED_LEADER_EPOCH, and INVALID_UPDATE_VERSION).
    Either check alone refuses every such request in ZooKeeper mode (a new leader epoch is a new
    partition epoch, and within one leader epoch only its leader changes the ISR), so the
    mutant drops both."""

    def _enc_ControllerHandleAlterPartition(self, s, b):
        r = s.reps[b]
        current = r.but(alt_ep=s.c_epoch, alt_cur=z3.BoolVal(True))  # as if sent just now
        return super()._enc_ControllerHandleAlterPartition(s.put(b, current), b)


def _old_request(state) -> bool:
    c = state.controller
    return any(r.alter_partition and r.alter_partition[0] == ALTER_SENT
               and r.alter_partition[1] != c.isr and r.alter_partition[2] < c.leader_epoch
               for r in state.replicas)


def _expansion_pending(state) -> bool:
    """A leader proposes a follower whose known LEO is behind its own LEO, above its HW: the
    HW may move now, and only the maximal ISR holds it back."""
    for r in state.replicas:
        a = r.alter_partition
        if a and len(a[1]) > len(r.isr) and r.high_watermark < len(r.log):
            added = (set(a[1]) - set(r.isr)).pop()
            if r.remote_log_end_offsets[added] < len(r.log):
                return True
    return False


@pytest.mark.parametrize("broken, where, label, action", [
    # min.insync.replicas=1: a leader alone in its ISR may append while it proposes a follower
    (HwIgnoresThePendingExpansion, _expansion_pending,
     "--kafka-version 2.1 +alter-partition +reset-followers-on-epoch unclean power-loss", None),
    # RF=3: a leader's proposal and the controller's shrink after a failure can differ
    (ControllerChecksNoEpoch, _old_request, "--kafka-version 2.1 +alter-partition RF=3",
     "ControllerHandleAlterPartition"),
], ids=["hw-without-maximal-isr", "no-epoch-checks"])
def test_a_broken_alter_partition_encoding_is_caught(broken, where, label, action):
    assert crosscheck(CONFIGS[label], samples=12, seed=5, where=where).agrees
    result = crosscheck(CONFIGS[label], samples=12, seed=5, encoder=broken, where=where)
    assert result.disagreements
    if action:
        assert {d.action.name for d in result.disagreements} == {action}


@pytest.fixture(scope="module")
def spaces():
    return {name: reachable(make_model(c)) for name, c in (("rf2", RF2), ("hw", HW), ("rf3", RF3))}


# RF=3 (and the HW rule's variant) only in ``make test-slow`` (docs/testing.md, "Slow tests")
@pytest.mark.parametrize("name", ["rf2", pytest.param("hw", marks=pytest.mark.slow),
                                  pytest.param("rf3", marks=pytest.mark.slow)])
def test_every_library_invariant_holds_on_every_reachable_state(spaces, name):
    for name, config in [(n, c) for n, c in (("rf2", RF2), ("hw", HW), ("rf3", RF3)) if n == name]:
        states = spaces[name]
        assert len(states) > 2000, name
        # the rule's states are there: requests on their way, answered and stuck
        kinds = {r.alter_partition[0] for s in states for r in s.replicas if r.alter_partition}
        assert kinds == {1, 2, 4}, (name, kinds)  # sent, accepted, stuck; never refused
        false = [n for n in STRENGTHENINGS if not all(check_of(n, config)(s) for s in states)]
        assert false == [], name
        d = Dims.of(config)
        evaluate = formula_evaluator(d, {n: STRENGTHENINGS[n].formula for n in TOUCHED})
        for s in states[::40]:
            values = evaluate(s)
            assert all(values.values()), (name, [n for n, v in values.items() if not v])


@pytest.mark.parametrize("config", [RF2, RF3], ids=["rf2", "rf3"])
def test_the_formulas_say_what_the_predicates_say_on_states_z3_picks(config):
    d = Dims.of(config)
    s = fresh(d, "pick")
    for name in TOUCHED:
        formula = STRENGTHENINGS[name].formula(d, s)
        if z3.is_true(z3.simplify(formula)):
            continue  # off under the rule
        for want in (True, False):
            solver = z3.Solver()
            solver.set("random_seed", 3)
            solver.add(well_formed(d, s), formula if want else z3.Not(formula))
            assert solver.check() == z3.sat, (name, want)
            model = solver.model()
            assert STRENGTHENINGS[name].holds(decode(d, model, s), config) == want, (name, want)


@pytest.mark.parametrize("config", [RF2, HW], ids=["rf2", "rf2-hw-on-answer"])
def test_no_acked_loss_is_proved_with_alter_partition(config):
    result = prove(config, "no-acked-loss", strengthen=["all"], bmc_depth=0)
    assert result.status == PROVED, (result.failing, result.pre, result.action)
    assert check(config, ["no-acked-loss"]).verdict("no-acked-loss") == HOLDS  # and BFS agrees


def test_without_the_alter_partition_invariants_the_proof_stops_on_an_unreachable_cti(spaces):
    less = [n for n in all_names() if n not in NEW]
    result = prove(RF2, "no-acked-loss", strengthen=less, bmc_depth=0, search="none")
    assert result.status == INCONCLUSIVE and result.phase == "step" and result.failing
    # the step leaves facts every reachable state has, so the state it starts in is unreachable;
    # one of the new invariants is false there
    assert all(check_of(n, RF2)(s) for n in result.failing for s in spaces["rf2"])
    assert any(not STRENGTHENINGS[n].holds(result.pre, RF2) for n in NEW)
