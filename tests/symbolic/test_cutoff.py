"""The cutoff for the number of records (``checker/symbolic/cutoff.py``, docs/symbolic.md,
"Unbounded records"): the projection lemma checked on every reachable step, the widened
one-record image checked for ``no-acked-loss``, and the ways either can fail."""

from __future__ import annotations

import subprocess
import sys

from checker import check
from checker.reference import make_reference_model
from checker.symbolic.cutoff import (
    AbstractOneRecord, check_abstract, check_projection, normal, one_record, project, replays,
)
from properties.invariants import no_acked_loss
from tests.conftest import LOOSE, config


def _cfg(records=2, rules=(), **kw):
    return config(max_records=records, rule_changes=LOOSE + tuple(rules), **kw)


def _reachable(cfg):
    model = make_reference_model(cfg)
    seen, todo = set(model.init_states()), list(model.init_states())
    while todo:
        for _, nxt in model.successors(todo.pop()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_lemma_and_image_hold_for_kafka_2_1_rule_at_rf2():
    cfg = _cfg(2)
    lemma = check_projection(cfg)
    assert lemma.holds, lemma.failures
    assert lemma.states == len(_reachable(cfg))  # every reachable state was stepped from
    assert check_abstract(cfg).holds


def test_lemma_holds_for_kmc_0_1_rules():
    assert check_projection(_cfg(2, ("+kmc-0.1",))).holds


def test_the_projection_keeps_exactly_the_losses_of_its_record():
    """The other half of the argument: a state loses acked record r exactly when its
    projection onto r violates no-acked-loss (so a loss projects to a loss of the image)."""
    for s in _reachable(_cfg(2)):
        for rid in (1, 2):
            lost = any(i == rid for i, _ in s.acked) and not no_acked_loss(
                s._replace(acked=tuple(a for a in s.acked if a[0] == rid)))
            assert (not no_acked_loss(project(s, rid))) == lost


def test_the_lemma_fails_without_the_widened_shrink():
    """Erasing the record a follower lags by makes its shrink a step the one-record model does
    not take: the check finds it (so a clean result is not vacuous)."""
    lemma = check_projection(_cfg(2), widen=False, first_only=True)
    assert not lemma.holds
    (name, example), = lemma.examples.items()
    assert name == "LeaderShrinkIsr"
    assert example.projected_after != example.projected_before


def test_the_lemma_fails_on_kip_101_truncation():
    """Before KIP-320 a follower truncates against a leader of another epoch, and what it keeps
    depends on the erased records' epochs: the cutoff does not apply there."""
    lemma = check_projection(_cfg(2, protocol="kip-101"), first_only=True)
    assert set(lemma.failures) == {"FollowerTruncate"}


def test_the_image_is_wider_than_the_one_record_model():
    cfg = _cfg(1)
    image, model = AbstractOneRecord(cfg), make_reference_model(one_record(cfg))
    for s in _reachable(cfg):
        mine = {normal(n) for _, n in model.successors(s)}
        assert mine <= {normal(n) for _, n in image.successors(s)}


def test_the_image_finds_a_real_loss_with_acks_1():
    cfg = _cfg(1, acks="1", min_isr=1)
    image = check_abstract(cfg)
    assert not image.holds
    assert replays(cfg, image.trace)
    assert not no_acked_loss(image.trace[-1][1])
    bfs = check(cfg, ["no-acked-loss"], engine="reference")
    assert len(image.trace) - 1 == len(bfs.properties[0].trace.steps)  # shortest, as BFS finds


def test_the_image_finds_hw_truncation_loss_with_bfs_length():
    cfg = _cfg(1, protocol="hw-truncation")
    image = check_abstract(cfg)
    assert not image.holds and replays(cfg, image.trace)
    assert len(image.trace) - 1 == 9  # BFS's shortest (tests/symbolic/test_bmc.py)


def test_the_command_exit_codes():
    run = [sys.executable, "-m", "checker.symbolic.cutoff", "--lemma-records"]
    ok = subprocess.run(run + ["2"], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "no-acked-loss holds for every number of records" in ok.stdout
    lost = subprocess.run(run + ["1", "--acks", "1", "--min-insync-replicas", "1"],
                          capture_output=True, text=True, timeout=300)
    assert lost.returncode == 1 and "a real loss with one record" in lost.stdout
    undecided = subprocess.run(run + ["2", "--protocol", "kip-101"], capture_output=True,
                               text=True, timeout=300)
    assert undecided.returncode == 3 and "FollowerTruncate" in undecided.stdout
    bad = subprocess.run(run + ["1", "--rule", "+nonsense"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
