"""Controlled shutdowns and session expiries in the z3 encoding (issue 29ac).

The engine takes ``--max-controlled-shutdowns`` and ``--max-session-expiries`` (and replays
their traces in the kernel); a broken encoding of each (a shutting-down broker let lead, an
unfenced broker never elected, a clean stop that writes no clean-shutdown file) is caught by the
cross-check against the kernel; the library's facts under the two faults hold on reachable
states and the switched ones are refused by ``kmc prove -p``; reachable states are well-formed.
The cross-check rows themselves are in ``checker/symbolic/crosscheck.py`` (``CONFIGS``).
"""

from __future__ import annotations

import pytest
import z3
from click.testing import CliRunner

from checker.symbolic.crosscheck import crosscheck
from checker.symbolic.scope import KernelReplayed, require_encoded, symbolic_model
from checker.symbolic.state import Dims, well_formed_values
from checker.symbolic.strengthen.expiries import BACK_ON
from checker.symbolic.strengthen.library import UNSWITCHED, takes_another_form
from checker.symbolic.strengthen.reachable import false_on_reachable
from checker.symbolic.strengthen.shutdowns import (
    FORMS_UNDER_EXPIRIES, FORMS_UNDER_SHUTDOWNS, KRAFT_OFF_UNDER_EXPIRIES, OFF_UNDER_EXPIRIES,
    OFF_UNDER_SHUTDOWNS,
    STRENGTHENINGS as SHUTDOWN_FACTS,
)
from checker.symbolic.transitions import Encoder
from cli import cli
from model import Bounds
from model.options import config_from_options

CS, SE = "max_controlled_shutdowns", "max_session_expiries"


def small(version, **bounds):
    return config_from_options(kafka_version=version, replication_factor=2, max_records=1,
                               max_leader_epoch=2, max_crashes=1, **bounds)[0]


@pytest.mark.parametrize("bound", [CS, SE])
def test_the_engine_takes_the_bound_and_replays_in_the_kernel(bound):
    config = small("3.5", **{bound: 1})
    require_encoded(config)
    assert isinstance(symbolic_model(config), KernelReplayed)
    names = {a.name for a in Encoder(symbolic_model(config)).instances()}
    wanted = ({"ControllerHandleControlledShutdown", "BrokerShutdown"} if bound == CS
              else {"ControllerFenceBroker", "ControllerUnfenceBroker"})
    assert wanted <= names


class ShuttingDownMayLead(Encoder):
    """Wider than the kernel: a broker in a controlled shutdown may still be elected."""

    def leadable(self, s, live):
        return list(live)


class UnfencedNeverElected(Encoder):
    """Narrower than the kernel: a broker that registers again after a session expiry is only
    sent the current state, never elected into a leaderless partition."""

    def _enc_ControllerUnfenceBroker(self, s, b):
        if not self.d.expiries:
            return []
        return [(z3.And(g, s.c_leader != -1), x)
                for g, x in super()._enc_ControllerUnfenceBroker(s, b)]


class NoCleanShutdownFile(Encoder):
    """A wrong effect under KIP-966: a controlled stop writes no clean-shutdown file, so the
    restart takes it for an unclean one."""

    def _enc_BrokerShutdown(self, s, b):
        return [(g, x.put(b, x.reps[b].but(clean=z3.BoolVal(False))))
                for g, x in super()._enc_BrokerShutdown(s, b)]


def _shutting_down(state):
    return any(r.shutting_down for r in state.replicas)


def _fenced_or_leaderless(state):
    c = state.controller
    return c.leader == -1 or any(r.alive and b not in c.live_brokers
                                 for b, r in enumerate(state.replicas))


def _clean(state):
    return any(r.clean_shutdown or (r.shutting_down and r.alive) for r in state.replicas)


@pytest.mark.parametrize("encoder, config, where, action", [
    # (4.1: a follower's controlled shutdown puts it in the ELR, which a later election reads)
    (ShuttingDownMayLead, small("4.1", **{CS: 1}), _shutting_down, None),
    (UnfencedNeverElected, small("3.5", **{SE: 1}), _fenced_or_leaderless,
     "ControllerUnfenceBroker"),
    (NoCleanShutdownFile, small("4.1", **{CS: 1}), _clean, None),
], ids=["shutting-down-may-lead", "unfenced-never-elected", "no-clean-shutdown-file"])
def test_a_broken_encoding_of_each_is_caught(encoder, config, where, action):
    right = crosscheck(config, samples=15, seed=3, where=where)
    assert right.agrees, "\n".join(str(d) for d in right.disagreements[:3])
    broken = crosscheck(config, samples=15, seed=3, where=where, encoder=encoder)
    assert not broken.agrees
    if action:
        assert {d.action.name for d in broken.disagreements} == {action}


def test_the_switched_facts_hold_on_every_reachable_state_and_prove_refuses_them():
    for bound, switched in ((CS, OFF_UNDER_SHUTDOWNS + tuple(FORMS_UNDER_SHUTDOWNS)),
                            (SE, OFF_UNDER_EXPIRIES + tuple(FORMS_UNDER_EXPIRIES))):
        config = small("2.1", **{bound: 1})
        own = tuple(st.name for st in SHUTDOWN_FACTS)
        states, complete, false = false_on_reachable(config, switched + own)
        assert complete and states > 1000
        assert false == {}, {n: c for n, (c, _) in false.items()}
        d = Dims.of(config)
        # (the KRaft facts issue 29bc switched off are True on 2.1 as written:
        # tests/symbolic/test_stale_metadata.py checks them on 4.1)
        # (and those issue 29bd switched back on as written, ``expiries.BACK_ON``)
        assert all(takes_another_form(n, d) for n in switched
                   if n not in KRAFT_OFF_UNDER_EXPIRIES + BACK_ON)
        assert not takes_another_form("crashes-counted", Dims.of(small("2.1")))
    out = CliRunner().invoke(cli, ["prove", "--kafka-version", "2.1", "-r", "2", "-p",
                                   "crashes-counted", "--max-controlled-shutdowns", "1"])
    assert out.exit_code == 2 and "takes a weaker form" in out.output, out.output


def test_crashes_counted_as_written_is_false_under_a_controlled_shutdown():
    # the form is needed: a clean stop counts no crash
    config = small("2.1", **{CS: 1})
    written = UNSWITCHED["crashes-counted"]
    assert any(not written.holds(s, config) for s in _reachable(config))


def _reachable(config, limit=20_000):
    from model import make_model

    model = make_model(config)
    seen, out, frontier = set(), [], list(model.init_states())
    while frontier and len(out) < limit:
        nxt = []
        for s in frontier:
            key = model.canonical(s)
            if key in seen:
                continue
            seen.add(key)
            out.append(s)
            nxt += [t for _, t in model.successors(s)]
        frontier = nxt
    return out


@pytest.mark.parametrize("version, bounds", [("2.1", {CS: 1, SE: 1}), ("4.1", {CS: 1, SE: 1})])
def test_reachable_states_are_well_formed(version, bounds):
    config = small(version, **bounds)
    d = Dims.of(config)
    states = _reachable(config, 5000)
    assert len(states) > 500
    assert all(well_formed_values(d, s) for s in states)
    assert any(s.controlled_shutdowns and s.session_expiries for s in states)


def test_a_proof_of_a_fact_about_an_absent_fault_says_it_is_vacuous():
    # review 2026-11-28, finding 5: shutting-down-counted is True without controlled shutdowns,
    # so its PROVED there says nothing; with the fault its PROVED is a real one
    def prove(*extra):
        out = CliRunner().invoke(cli, ["prove", "--kafka-version", "2.1", "-r", "2", "-q", "-p",
                                       "shutting-down-counted", *extra])
        assert out.exit_code == 0 and "PROVED" in out.output, out.output
        return out.output
    assert "vacuously" in prove()
    assert "vacuously" not in prove("--max-controlled-shutdowns", "1")


def test_no_acked_loss_with_acks_0_says_it_is_vacuous():
    # review s12, finding 3: nothing is acknowledged with acks=0, so the PROVED (or HOLDS) says
    # nothing about durability; kmc check already noted it, kmc prove did not
    out = CliRunner().invoke(cli, ["prove", "--kafka-version", "2.1", "-r", "2", "-q", "-s", "all",
                                   "-p", "no-acked-loss", "--acks", "0"])
    assert out.exit_code == 0 and "PROVED" in out.output and "acks=0" in out.output
    assert "vacuously" in out.output, out.output
    out = CliRunner().invoke(cli, ["prove", "--kafka-version", "2.1", "-r", "2", "-q", "-s", "all",
                                   "-p", "no-acked-loss"])
    assert out.exit_code == 0 and "vacuously" not in out.output, out.output
