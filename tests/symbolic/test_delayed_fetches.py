"""Delayed fetches in the z3 encoding (issue 29z): ``--max-delayed-fetches``.

A follower's fetch held up in flight (the kernel's FetchDelayed) and handled later on its old
offset (LeaderHandleDelayedFetch) is encoded as the kernel has it, so KAFKA-15221's
``stale-fetch-rejected`` and KIP-903's broker epoch on a stale fetch act in ``kmc prove`` and
``--engine bmc``. The cross-check rows (``crosscheck.CONFIGS``, "delayed fetches") hold the
encoding to the kernel in both directions; three of them run in ``make test``
(test_kernel_crosscheck), the rest are marked slow there and run in ``make crosscheck``. Here: two
deliberately broken encodings are caught on the states where they matter, the engine takes the
bound (and still refuses the fault bounds it lacks), and the library's delayed-fetch facts hold
on every reachable state.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from click.testing import CliRunner

from checker.symbolic.crosscheck import CONFIGS, crosscheck
from checker.symbolic.scope import KernelReplayed, require_encoded, symbolic_model
from checker.symbolic.strengthen import STRENGTHENINGS
from checker.symbolic.strengthen.reachable import false_on_reachable
from checker.symbolic.transitions import Encoder
from cli import cli
from model.errors import ConfigError
from model.options import config_from_options
from tests.symbolic.helpers import lacking_fault_bound

ROW_37 = "--kafka-version 3.7 delayed fetches"
ROW_35 = "--kafka-version 3.5 delayed fetches"


class StaleFetchAccepted(Encoder):
    """Wider than Kafka 3.7: the leader takes a fetch from an earlier incarnation of its sender
    (as if KAFKA-15221's check in ``Replica.updateFetchStateOrThrow`` were not there)."""

    def _enc_LeaderHandleDelayedFetch(self, s, f):
        d = self.d
        self.d = replace(d, stale_rejected=False)
        try:
            return super()._enc_LeaderHandleDelayedFetch(s, f)
        finally:
            self.d = d


class RestartKeepsFetchCurrent(Encoder):
    """Narrower and wider: a restart leaves its sender's held fetch current (KIP-903's new broker
    epoch forgotten for the request in flight; the kernel's ``new_incarnation`` marks it stale)."""

    def new_incarnation(self, s, b):
        cur = s.reps[b].dreq_cur
        out = super().new_incarnation(s, b)
        return out.put(b, out.reps[b].but(dreq_cur=cur))


def _stale_request(state) -> bool:
    return any(r.fetch_request and not r.fetch_request[3] for r in state.replicas)


def _restart_with_request(state) -> bool:
    """A down broker with a fetch in flight that may restart now (KIP-380: its failure handled;
    issue 29ad: with fewer duplicate rows the sample of 6 drew only unhandled ones)."""
    return any(not r.alive and r.fetch_request and b not in state.controller.live_brokers
               for b, r in enumerate(state.replicas))


@pytest.mark.parametrize("broken, label, where, action", [
    (StaleFetchAccepted, ROW_37, _stale_request, "LeaderHandleDelayedFetch"),
    (RestartKeepsFetchCurrent, ROW_35, _restart_with_request, "BrokerRestart"),
])
def test_a_broken_delayed_fetch_is_caught(broken, label, where, action):
    assert crosscheck(CONFIGS[label], samples=6, seed=5, where=where).agrees
    result = crosscheck(CONFIGS[label], samples=6, seed=5, encoder=broken, where=where)
    assert result.disagreements
    assert {d.action.name for d in result.disagreements} == {action}


def test_the_engine_takes_delayed_fetches_and_replays_in_the_kernel():
    config = config_from_options(kafka_version="3.7", replication_factor=2,
                                 max_delayed_fetches=1)[0]
    require_encoded(config)
    assert isinstance(symbolic_model(config), KernelReplayed)
    enc = Encoder(symbolic_model(config))
    names = {a.name for a in enc.instances()}
    assert {"FetchDelayed", "LeaderHandleDelayedFetch"} <= names


def test_a_fault_bound_still_lacking_is_one_line_beside_delayed_fetches(monkeypatch):
    # (--retries: encoded without idempotence since issue 29aq; controlled shutdowns and session
    # expiries since issue 29ac; controller failovers since issue 29ak; --max-stale-metadata-reads
    # since issue 29bc; the consumer's restarts since issue 29be: none is left, so the helper
    # takes one out of scope's list for the test)
    name = lacking_fault_bound(monkeypatch)
    out = CliRunner().invoke(cli, ["prove", "--kafka-version", "3.7", "-r", "2", "-p",
                                   "no-acked-loss", "--max-delayed-fetches", "1", name, "1"])
    assert out.exit_code == 2, out.output
    assert "Traceback" not in out.output
    error = [line for line in out.output.splitlines() if "error" in line.lower()]
    assert len(error) == 1 and f"but not {name} (" in error[0], out.output
    with pytest.raises(ConfigError):
        require_encoded(config_from_options(kafka_version="3.7", replication_factor=2,
                                            max_delayed_fetches=1,
                                            **{name[2:].replace("-", "_"): 1})[0])


DELAYED_FACTS = ("delayed-fetch-sent-in-epoch", "delayed-fetch-as-remote-leo", "isr-remote-ge-hw",
                 "fetch-response-from-leader-log", "kept-remote-leo-is-follower-prefix")


@pytest.mark.parametrize("version", ["3.7", "2.7"])
def test_the_delayed_fetch_facts_hold_on_every_reachable_state(version):
    config = config_from_options(kafka_version=version, replication_factor=2, max_records=1,
                                 max_delayed_fetches=1)[0]
    states, complete, false = false_on_reachable(config, DELAYED_FACTS)
    assert complete and states > 1000
    assert false == {}, {n: c for n, (c, _) in false.items()}


def test_the_delayed_fetch_facts_are_not_vacuous():
    """Each new fact is false on a state it is meant to rule out (a formula and a predicate that
    can fail)."""
    config = config_from_options(kafka_version="3.7", replication_factor=2,
                                 max_delayed_fetches=1)[0]
    from model import make_model
    model = make_model(config)
    s = model.init_states()[0]
    ahead = s._replace(replicas=(s.replicas[0], s.replicas[1]._replace(
        fetch_request=(0, s.controller.leader_epoch + 1, 0, True))), delayed_fetches=1)
    assert not STRENGTHENINGS["delayed-fetch-sent-in-epoch"].holds(ahead, config)
    uncounted = s._replace(replicas=(s.replicas[0], s.replicas[1]._replace(
        fetch_request=(0, 0, 0, True))), delayed_fetches=0)
    assert not STRENGTHENINGS["delayed-fetch-sent-in-epoch"].holds(uncounted, config)


def test_kafka_3_7_with_a_delayed_fetch_is_proved():
    """1-induction with the library proves no-acked-loss for Kafka 3.7 at RF=2 with one delayed
    fetch (max-records=1 here to stay fast; the default bounds are PROVED too, docs/symbolic.md):
    KAFKA-15221 refuses the stale fetch and KIP-903 keeps one from adding its sender to the ISR.
    BFS holds beside it."""
    from checker.symbolic.induction import PROVED, prove

    config = config_from_options(kafka_version="3.7", replication_factor=2, max_records=1,
                                 max_delayed_fetches=1)[0]
    result = prove(config, "no-acked-loss", strengthen=["all"], search="none")
    assert result.status == PROVED, (result.status, result.action, result.failing)


def test_without_kafka_15221_a_delayed_fetch_loses_an_acked_record():
    """Kafka 4.1 with ``-stale-fetch-rejected`` (known-results: "KAFKA-15221 reproduced"): the
    inductive step fails and the search finds the real 15-step loss, ending in
    LeaderHandleDelayedFetch: ``kmc prove`` says VIOLATED, exit 1."""
    out = CliRunner().invoke(cli, [
        "prove", "--kafka-version", "4.1", "-r", "2", "--max-records", "1", "--crash-model",
        "power-loss", "--max-delayed-fetches", "1", "--rule", "-stale-fetch-rejected", "--rule",
        "+unordered-leader-moves", "-p", "no-acked-loss", "-s", "all", "--search", "bfs"])
    assert out.exit_code == 1, out.output
    assert "VIOLATED" in out.output
    assert "Step 15: LeaderHandleDelayedFetch(follower=1)" in out.output


def test_reachable_states_are_well_formed_and_the_formulas_match_the_predicates():
    """k-induction assumes every state well-formed (``state.well_formed``, which now bounds the
    held request): so is every reachable one with a delayed fetch; and the delayed-fetch facts'
    formulas (what is proved) agree with their predicates (what BFS checks) on reachable states."""
    from checker.symbolic.state import Dims, well_formed, well_formed_values
    from model import make_model
    from tests.symbolic.helpers import formula_evaluator, reachable

    config = config_from_options(kafka_version="3.7", replication_factor=2, max_records=1,
                                 max_delayed_fetches=1)[0]
    states = reachable(make_model(config))
    d = Dims.of(config)
    assert any(r.fetch_request for s in states for r in s.replicas)
    assert all(well_formed_values(d, s) for s in states)
    evaluate = formula_evaluator(d, {**{n: STRENGTHENINGS[n].formula for n in DELAYED_FACTS},
                                     "well-formed": well_formed})
    for s in states[::25]:
        assert all(evaluate(s).values()), [n for n, v in evaluate(s).items() if not v]
