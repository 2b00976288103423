"""The rule-mutation check's fast subset (``make test``): each rule of the rule table and each
guard of ``model/kernel/guards.py`` that ``make mutation`` found a killer for is still killed by
that row, and a new rule or guard without a pinned killer (or a written reason why nothing can
kill it) fails here until ``make mutation`` is run and this table updated.

``KILLERS`` is ``make mutation``'s output (python -m gate.mutation, 2026-11-26): the first row of
scenarios/known-results.toml that notices the mutant, or a story of ``gate/stories.py`` (a few
steps of the model pinned to Kafka's code) told differently on it. ``SURVIVORS`` are the mutants
nothing notices, each with what was tried (docs/testing.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gate.mutation import GUARD, RULE, Mutant, run_mutant
from gate.stories import STORIES, tell
from gate.suite import load_suite
from model.kernel.guards import GUARDS
from model.rules import RULES

SUITE = Path(__file__).resolve().parents[2] / "scenarios" / "known-results.toml"
SLOW = SUITE.with_name("slow-results.toml")
SLOW_ROWS = os.environ.get("KMC_SLOW_ROWS") == "1"
"""A killer in scenarios/slow-results.toml (millions of states: too slow for ``make test``) is
run by ``make gate-slow``, which sets KMC_SLOW_ROWS=1; ``make test`` checks only that its row
exists."""

KILLERS = {
    (RULE, "epoch-truncation"): "KIP-101 scenario 1: truncation to a stale HW loses an acked record",
    (RULE, "epoch-truncation-loop"): "KIP-279 scenario: fast leader changes diverge KIP-101 logs",
    (RULE, "fenced-fetch"): "what KIP-320 fencing protects: Kafka 2.1 without fenced fetches",
    (RULE, "epoch-cache-on-election"): "KAFKA-7415 reproduced: a new leader's epoch cache without its own epoch",
    (RULE, "isr-join-needs-epoch-start"): "KAFKA-7128 reproduced: without the epoch-start check a follower rejoins the ISR early",
    (RULE, "reset-followers-on-epoch"): "Kafka 2.1, 3 replicas: a re-elected leader's HW counts a follower LEO from before its truncation",
    (RULE, "isr-expansion-as-own-step"): "Kafka 3.7 (KRaft, AlterPartition, KAFKA-15583): the stale follower LEO still loses an acked record",
    (RULE, "broker-epoch"): "power loss before KIP-380: a bounced broker leads again in the same epoch",
    (RULE, "hw-needs-min-isr"): "before KAFKA-15583 (2.2): acks=1 makes a record visible with an ISR of one, power loss takes it back",
    (RULE, "alter-partition"): "ISR of one, then unclean election (Jepsen 2013)",
    (RULE, "kraft"): "ISR of one, then unclean election (Jepsen 2013)",
    (RULE, "broker-epoch-in-fetch"): "KAFKA-14139: a replaced disk put back in the ISR by a stale AlterPartition (KRaft without KIP-903)",
    (RULE, "alter-partition-shrink-bumps-leader-epoch"): "Kafka 3.7 (KRaft, AlterPartition, KAFKA-15583): the stale follower LEO still loses an acked record",
    (RULE, "hw-on-alter-partition-answer"): "liveness: KAFKA-13091: Kafka 3.0 leaves an acks=all produce unanswered for ever after an AlterIsr shrink away from a crashed follower",
    (RULE, "kraft-unclean-election"): "KRaft before 3.9 ignores unclean.leader.election.enable (KAFKA-12670): no unclean loss",
    (RULE, "eligible-leader-replicas"): "last replica standing on Kafka 3.7 (KRaft): the sole ISR member loses power and leads again",
    (RULE, "in-flight-per-partition"): "KAFKA-3197: before 0.10 one request in flight is one per broker, and a leader change reorders records",
    (RULE, "idempotent-producer"): "Kafka 3.0's default producer is idempotent (KIP-679): no duplicates, in order",
    (RULE, "idempotence-by-default"): "Kafka 3.0's default producer is idempotent (KIP-679): no duplicates, in order",
    (RULE, "replica-lag-time"): "ISR of one, then unclean election (Jepsen 2013)",
    (RULE, "stale-fetch-rejected"): "KAFKA-15221: a delayed fetch from before a power loss cannot acknowledge a record (Kafka 4.1)",
    (RULE, "unordered-leader-moves"): "Kafka 2.1, 3 replicas: a re-elected leader's HW counts a follower LEO from before its truncation",
    (RULE, "truncate-on-epoch-change"): "KAFKA-7164 (2.1): a follower that missed a leader epoch truncates though its leader is the same: no acked loss",
    (RULE, "leader-and-isr-in-order"): "Kafka 2.1, 3 replicas: a re-elected leader's HW counts a follower LEO from before its truncation",
    (GUARD, "fetch-needs-leader"): "what KIP-320 fencing protects: Kafka 2.1 without fenced fetches",
    (GUARD, "shrink-only-lagging"): "last replica standing on Kafka 2.2 (KIP-380): the ISR shrinks to the leader, it loses power and leads again",
    (GUARD, "one-alter-in-flight"): "Kafka 3.7 (KRaft, AlterPartition, KAFKA-15583): the stale follower LEO still loses an acked record",
    (GUARD, "isr-join-needs-hw"): "KAFKA-7128 reproduced: without the epoch-start check a follower rejoins the ISR early",
    (GUARD, "hw-min-over-isr"): "before KAFKA-15583 (2.2): acks=1 makes a record visible with an ISR of one, power loss takes it back",
    (GUARD, "clean-election-from-isr"): "KRaft before 3.9 ignores unclean.leader.election.enable (KAFKA-12670): no unclean loss",
    (GUARD, "leader-and-isr-newer-epoch"): "zombie controller (ZooKeeper, controller failover): no loss with the controller epoch",
    (RULE, "isr-eligibility"): "KIP-841 (3.9): a broker in a controlled shutdown is never put back in the ISR",
    (RULE, "epoch-bump-rewrites-in-flight"): "KAFKA-14034 (unfixed): the idempotent producer's epoch bump gives a record in flight a new identity, and its retry is written twice (Kafka 4.1)",
    # stories (gate/stories.py): a few steps pinned to Kafka's code, where no property of states
    # tells the mutant apart (issue 32d)
    (RULE, "isr-shrink-keeps-leader-epoch"): "KAFKA-15021 (3.6): a fenced follower leaves the ISR in the same leader epoch",
    (GUARD, "produce-needs-min-isr"): "NOT_ENOUGH_REPLICAS (2.4): acks=all is refused while the ISR is below min.insync.replicas",
    (GUARD, "truncate-needs-leader"): "NOT_LEADER_FOR_PARTITION (2.0): a follower cannot truncate against a broker that does not lead yet",
    (GUARD, "delayed-fetch-needs-leader"): "NOT_LEADER_FOR_PARTITION (2.0): a delayed fetch that reaches a broker no longer leading changes nothing there",
    (GUARD, "alter-needs-current-leader"): "FENCED_LEADER_EPOCH (2.8, ZooKeeper): an AlterIsr from an older leader epoch is refused, even one asking for the ISR the controller already has",
    (RULE, "isr-shrink-out-of-sync-set"): "KIP-966 (4.1): one AlterPartition takes two lagging followers out of the ISR, below min.insync.replicas, and both join the ELR",
    # issue 29ae: the unclean-shutdown record elects, so a fenced last known leader can win there
    (RULE, "last-known-leader-check"): "KAFKA-19522 (4.1): the record that empties the ELR does not elect a fenced last known leader",
    # issue 29al: the timed HW wait for a caught-up follower outside the ISR
    (RULE, "hw-waits-for-caught-up-replica"): "KAFKA-4485 (timed, 3.6): the HW waits for a caught-up follower outside the ISR",
    # issue 29bi: KIP-380's broker epoch in the zombie controller's requests
    (GUARD, "zombie-broker-epoch"): "STALE_BROKER_EPOCH (KIP-380, 2.2): a broker that restarted after the controller failover refuses the zombie controller's LeaderAndIsr",
}

SURVIVORS = {
    (RULE, "controller-epoch"): RULES["controller-epoch"].unobservable,
    (RULE, "producer-state-five-batches"): RULES["producer-state-five-batches"].unobservable,
    (RULE, "unknown-producer-accepts-any-sequence"):
        RULES["unknown-producer-accepts-any-sequence"].unobservable,
    (RULE, "last-known-leader-when-leaderless"): RULES["last-known-leader-when-leaderless"].unobservable,
    (RULE, "idempotent-epoch-bump"): RULES["idempotent-epoch-bump"].unobservable,
}


def test_every_rule_and_guard_has_a_pinned_killer_or_a_written_reason():
    known = set(KILLERS) | set(SURVIVORS)
    missing = [f"{kind} {name}" for kind, table in ((RULE, RULES), (GUARD, GUARDS))
               for name in table if (kind, name) not in known]
    assert missing == [], (f"no killing row pinned for {missing}: run `make mutation` and add the row "
                           "that kills it to KILLERS here (or a row to scenarios/known-results.toml)")
    assert not set(KILLERS) & set(SURVIVORS)


def test_a_rule_with_its_reason_written_down_is_reported_with_it():
    """``make mutation`` exits 0 only when every survivor has its reason written down: a rule's
    ``unobservable`` (model/rules.py) reaches the mutant, and no killed rule claims one."""
    from gate.mutation import mutants
    reasons = {m.name: m.why_survives for m in mutants((RULE,))}
    assert all(reasons[name] == RULES[name].unobservable for name in RULES)
    assert not [name for kind, name in KILLERS if kind == RULE and RULES[name].unobservable]


@pytest.fixture(scope="module")
def specs():
    return load_suite(str(SUITE)).checks + load_suite(str(SLOW)).checks


def _slow_row_names() -> set:
    return {c.name for c in load_suite(str(SLOW)).checks}


@pytest.mark.parametrize("kind, name", sorted(KILLERS))
def test_the_pinned_row_still_kills_the_mutant(specs, kind, name):
    row = KILLERS[(kind, name)]
    assert row in {s.name for s in specs} | set(STORIES), f"{row!r} is no longer a row or story"
    if row in _slow_row_names() and not SLOW_ROWS:
        return  # make gate-slow runs it (KMC_SLOW_ROWS=1): millions of states
    outcome = run_mutant(Mutant(kind, name), specs, only_rows={row})
    assert outcome.killed, (f"{kind} {name} flipped: {row!r} still passes, so nothing in the suite "
                            f"would notice this {kind} breaking")


@pytest.mark.parametrize("name", sorted(STORIES))
def test_each_story_goes_as_kafkas_code_says_on_the_model(name):
    """A story kills a mutant only if it holds on the model itself (gate/stories.py)."""
    assert tell(STORIES[name]) == ""


def test_a_story_kills_without_any_row_and_is_skipped_where_the_flip_changes_nothing():
    from gate.mutation import tell_on
    outcome = run_mutant(Mutant(GUARD, "produce-needs-min-isr"), [])
    assert outcome.killed_by == KILLERS[(GUARD, "produce-needs-min-isr")]
    assert "min.insync.replicas=2" in outcome.reason
    story = STORIES[KILLERS[(GUARD, "truncate-needs-leader")]]
    assert tell_on(Mutant(RULE, "last-known-leader-check"), story) is None  # no KRaft in 2.0


def test_an_unkilled_mutant_with_its_reason_is_equivalent_and_one_without_survives():
    """The report's words: a mutant no row or story kills is EQUIVALENT when its reason is written
    down, and only the others SURVIVE (and fail ``make mutation``)."""
    from gate.mutation import MutantOutcome, describe

    equivalent = MutantOutcome(Mutant(RULE, "controller-epoch", why_survives="a reason"), applicable=3)
    survivor = MutantOutcome(Mutant(GUARD, "fetch-needs-leader"), applicable=0)
    killed = MutantOutcome(Mutant(RULE, "kraft"), killed_by="a row", rows_run=["a row"])
    assert describe(equivalent).startswith("EQUIVALENT rule controller-epoch: all 3 row(s)")
    assert describe(equivalent).endswith("why no configuration can tell: a reason")
    assert describe(survivor) == ("SURVIVES  guard fetch-needs-leader: no row of the suite or story "
                                  "is changed by it")
    assert describe(killed).startswith("killed    rule kraft: by 'a row'")
