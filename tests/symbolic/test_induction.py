"""k-induction: the strengthening library is sound (each invariant holds on every state BFS
reaches), proofs and CTIs come out as described, and the CLI exit codes follow them."""

from __future__ import annotations

import z3
from click.testing import CliRunner

from checker.symbolic.induction import FAILED, PROVED, prove
from checker.symbolic.state import Dims, encode, well_formed
from checker.symbolic.strengthen import STRENGTHENINGS
from cli import cli
from model import Bounds, ModelConfig, make_model
from tests.symbolic.helpers import reachable

KIP320 = ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=2,
                     bounds=Bounds(2, 2, 1, 1))


def test_strengthening_invariants_hold_on_every_reachable_state_and_match_their_formulas():
    states = reachable(make_model(KIP320))
    d = Dims.of(KIP320)
    for name, st in STRENGTHENINGS.items():
        assert all(st.check(s) for s in states), name
    for s in states[::400]:
        enc = encode(d, s)
        assert z3.is_true(z3.simplify(well_formed(d, enc)))
        for name, st in STRENGTHENINGS.items():
            assert z3.is_true(z3.simplify(st.formula(d, enc))), name


def test_an_inductive_invariant_is_proved():
    assert prove(KIP320, "hw-le-leo").status == PROVED
    assert prove(KIP320, "requests-to-live-brokers").status == PROVED


def test_a_real_violation_fails_in_the_base_case_with_a_trace():
    acks1 = ModelConfig(protocol="kip-320", replication_factor=2, min_insync_replicas=1, acks="1",
                        bounds=Bounds(1, 2, 1, 1))
    result = prove(acks1, "no-acked-loss", k=4)
    assert result.status == FAILED and result.phase == "base"
    assert len(result.trace) == 3


def test_a_non_inductive_property_gives_a_cti_in_the_viewers_words():
    out = CliRunner().invoke(cli, ["prove", "-r", "2", "-p", "no-acked-loss"])
    assert out.exit_code == 1
    assert "counterexample to induction" in out.output
    assert "broker 0" in out.output and "--strengthen" in out.output


def test_unknown_names_are_one_line_exit_2():
    out = CliRunner().invoke(cli, ["prove", "-r", "2", "-p", "no-such-thing"])
    assert out.exit_code == 2 and "Traceback" not in out.output
