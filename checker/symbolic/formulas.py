"""The built-in properties (``properties/invariants.py``) as z3 formulas over an ``SState``.

Each formula is the Python predicate of the same name, read for a fixed-size state: a
property holds in a state exactly when its formula is true of the state's encoding (the tests
check this on sampled reachable states, and the three of issue 29ai on every reachable state of
configurations where they are false somewhere). For a reachability question
(``properties.registry.reachable``) the formula is that of its ``check``: true outside the
states to reach, so BMC's "violation" is a shortest witness, as BFS's is.

``FORMULAS`` holds every property with a formula; ``DEFAULT_FORMULAS`` only the default
invariants (``properties.BUILT_IN``), which hold on every reachable state of the configurations
``kmc prove -s all`` is used on and so are what the strengthening library adds
(``strengthen.library_names``). The others are asked by name: ``isr-members-eligible`` is false
by design on ZooKeeper mode and KRaft before 3.3, a reachability question is false wherever its
state is reached; ``no-duplicates``, ``in-order`` and ``exactly-once-to-log`` (issue 29as)
are false with ``--retries`` without idempotence, as Kafka documents; ``at-least-once`` and
``at-most-once`` (issue 29be) read the consumer's scalars and are each false for one commit
order, as the KafkaConsumer javadoc says.

Which properties have no formula, and why (issue 29ai; docs/symbolic.md, "What the 20 refused
rows lack"): the
liveness properties (``properties/liveness.py``) speak of infinite behaviours, which BMC's
finite paths do not.
"""

from __future__ import annotations

import z3

from checker.symbolic.state import Dims, SState, count, sel, zmin


def true_leader_is(s: SState, l: int):
    r = s.reps[l]
    return z3.And(s.c_leader == l, r.alive, r.leader == l, r.lep == s.c_epoch)


def holds_acked(s: SState, r, k: int):
    """Replica ``r``'s log holds record ``k + 1`` at the offset it was acked at."""
    return z3.And(s.acked_off[k] < r.leo, sel(r.log_id, s.acked_off[k], -1) == k + 1)


def holds_every_acked(d: Dims, s: SState, r):
    return z3.And([z3.Implies(s.acked[k], holds_acked(s, r, k)) for k in range(d.records)])


def no_acked_loss(d: Dims, s: SState):
    return z3.And([z3.Implies(true_leader_is(s, l), holds_every_acked(d, s, s.reps[l]))
                   for l in range(d.n)])


def _prefix_equal(d: Dims, a, b, k):
    """``a.log[:k] == b.log[:k]`` for ``k <= a.leo``."""
    return z3.And([b.leo >= k] + [z3.Implies(i < k, z3.And(a.log_id[i] == b.log_id[i],
                                                            a.log_ep[i] == b.log_ep[i]))
                                  for i in range(d.slots)])


def committed_consistency(d: Dims, s: SState):
    out = []
    for l in range(d.n):
        lr = s.reps[l]
        k = zmin(lr.hw, lr.leo)
        each = [z3.Implies(s.c_isr[b], _prefix_equal(d, lr, s.reps[b], k)) for b in range(d.n)]
        out.append(z3.Implies(true_leader_is(s, l), z3.And(each)))
    return z3.And(out)


def log_matching(d: Dims, s: SState):
    out = []
    for i in range(d.n):
        for j in range(i + 1, d.n):
            a, b = s.reps[i], s.reps[j]
            both = zmin(a.leo, b.leo)
            for o in range(d.slots):
                later_differ = [z3.Or(o2 >= both, a.log_ep[o2] != b.log_ep[o2])
                                for o2 in range(o + 1, d.slots)]
                is_last_match = z3.And([o < both, a.log_ep[o] == b.log_ep[o]] + later_differ)
                agree = z3.And([z3.And(a.log_id[x] == b.log_id[x], a.log_ep[x] == b.log_ep[x])
                                for x in range(o + 1)])
                out.append(z3.Implies(is_last_match, agree))
    return z3.And(out)


def monotonic_visibility(d: Dims, s: SState):
    out = []
    for l in range(d.n):
        r = s.reps[l]
        kept = z3.And([r.leo >= s.cv_len] + [z3.Implies(i < s.cv_len, r.log_id[i] == s.cv[i])
                                              for i in range(d.slots)])
        out.append(z3.Implies(true_leader_is(s, l), kept))
    return z3.And(out)


def leader_in_isr(d: Dims, s: SState):
    out = [z3.Implies(s.c_leader == l, s.c_isr[l]) for l in range(d.n)]
    out += [z3.Implies(z3.And(r.alive, r.leader == b), r.isr[b]) for b, r in enumerate(s.reps)]
    return z3.And(out)


def hw_le_leo(d: Dims, s: SState):
    return z3.And([r.hw <= r.leo for r in s.reps])


def isr_members_eligible(d: Dims, s: SState):
    """KIP-841 (Kafka 3.3, rule ``isr-eligibility``): a member of an ISR of two or more is live
    in the controller's view (registered and unfenced: ``c_live``) and not in a controlled
    shutdown (``SReplica.sd``). The KRaft controller takes a fenced or shutting-down broker out of
    every ISR it is not the only member of (``ReplicationControlManager.handleBrokerFenced``,
    "we remove this broker from any non-singleton ISR", and
    ``handleBrokerInControlledShutdown``) and answers INELIGIBLE_REPLICA to an AlterPartition
    that would put one back (``ineligibleReplicasForIsr``: "not registered", "shutting down",
    "fenced"), all read at 3.3.0. ZooKeeper mode and KRaft before 3.3 have no such check, so
    there a leader's AlterPartition can add a shutting-down follower that has caught up (the
    known-results row "without KIP-841", 7 steps). Without ``--max-controlled-shutdowns`` no
    broker is ever shutting down and ``sd`` is the constant False, as the kernel's flag is."""
    two_or_more = count(s.c_isr) >= 2
    return z3.Implies(two_or_more, z3.And([
        z3.Implies(s.c_isr[b], z3.And(s.c_live[b], z3.Not(s.reps[b].sd))) for b in range(d.n)]))


def acked_without_a_down_broker(d: Dims, s: SState):
    """The reachability question ``acked-without-a-down-broker``'s ``check``: no broker that is
    down (crashed, not yet restarted: ``alive`` false) lacks an acknowledged record at the offset
    it was acknowledged at. Reached, it shows a write Kafka acknowledged without that broker
    (acks=1, or an ISR shrunk to fewer members: ``Partition.appendRecordsToLeader`` checks only
    ``inSyncReplicaIds.size < minIsr``, 2.1.0), or a record the broker's power loss took
    (``kmc advise`` tells the two apart by replay)."""
    return z3.And([z3.Or(r.alive, holds_every_acked(d, s, r)) for r in s.reps])


def offline_with_a_live_broker(d: Dims, s: SState):
    """The reachability question ``offline-with-a-live-broker``'s ``check``: the controller has
    a leader for the partition, or no broker runs. Reached, the partition is offline while a
    broker could serve it: the only live replicas are out of the ISR and unclean election is off
    (``OfflinePartitionLeaderElectionStrategy``, 2.1.0), or KRaft before 3.9 ignores
    ``unclean.leader.election.enable`` (KAFKA-12670)."""
    return z3.Or(s.c_leader != -1, z3.Not(z3.Or([r.alive for r in s.reps])))


def _committed_at(s: SState, r, i: int, k: int, upto=None):
    """Slot ``i`` of replica ``r``'s log is below its HW (or ``upto``) and holds record ``k + 1``:
    the committed log consumers read (``properties.invariants._committed_ids``)."""
    return z3.And(i < (r.hw if upto is None else upto), r.log_id[i] == k + 1)


def _copies_once(d: Dims, s: SState, r, k: int, upto=None):
    """Record ``k + 1`` is at no two slots of replica ``r``'s committed log."""
    return z3.And([z3.Not(z3.And(_committed_at(s, r, i, k, upto), _committed_at(s, r, j, k, upto)))
                   for j in range(d.slots) for i in range(j)])


def no_duplicates(d: Dims, s: SState, upto=None):
    """``no-duplicates`` (issue 26; formula issue 29as): an acknowledged record is at most once in
    the true leader's log below its HW. Without idempotence (KIP-98) a retry appends its record
    again when the first attempt was written but its acknowledgement lost, so this is false
    with ``--retries`` (``Dims.retries``) and Kafka says so; asked by name only."""
    return z3.And([z3.Implies(true_leader_is(s, l), z3.And([
        z3.Implies(s.acked[k], _copies_once(d, s, s.reps[l], k, upto))
        for k in range(d.records)])) for l in range(d.n)])


def _before_first(d: Dims, s: SState, r, k1: int, k2: int, upto=None):
    """If both records are in replica ``r``'s committed log, the first copy of ``k1 + 1`` is
    before the first copy of ``k2 + 1``: every copy of ``k2 + 1`` has one of ``k1 + 1`` before
    it, or ``k1 + 1`` is absent."""
    absent = z3.Not(z3.Or([_committed_at(s, r, i, k1, upto) for i in range(d.slots)]))
    return z3.Or(absent, z3.And([
        z3.Implies(_committed_at(s, r, j, k2, upto),
                   z3.Or([_committed_at(s, r, i, k1, upto) for i in range(j)]))
        for j in range(d.slots)]))


def in_order(d: Dims, s: SState, upto=None):
    """``in-order`` (issue 26; formula issue 29as): of two acknowledged records, the one sent
    first (the smaller id: the producer sends in id order) has its first copy earlier in the
    true leader's committed log. With more than one request in flight and no idempotence, a
    retried batch lands after a later one (``max.in.flight.requests.per.connection`` docs)."""
    return z3.And([z3.Implies(true_leader_is(s, l), z3.And([
        z3.Implies(z3.And(s.acked[k1], s.acked[k2]), _before_first(d, s, s.reps[l], k1, k2, upto))
        for k2 in range(d.records) for k1 in range(k2)])) for l in range(d.n)])


def exactly_once_to_log(d: Dims, s: SState):
    """``exactly-once-to-log``: ``no-duplicates`` and ``in-order``."""
    return z3.And(no_duplicates(d, s), in_order(d, s))


def at_least_once(d: Dims, s: SState):
    """``at-least-once`` (issue 26; formula issue 29be): the group's committed offset passes no
    offset the consumer did not process, aside from the record it holds, committed before
    processing and about to be processed (``properties.invariants._skipped_offset``; the
    kernel's ``at_least_once``). True without a consumer (``Dims.consumer`` 0: the constants
    fold). Kafka promises it to a consumer that commits after processing (KafkaConsumer javadoc,
    "Manual Offset Control", 2.8.0), so it is false with ``--consumer-commit before`` and a
    restart."""
    holding = z3.And(s.chand, s.ccom == s.cpos, s.ccom == s.cproc + 1)
    return z3.Or(s.ccom <= s.cproc, holding)


def at_most_once(d: Dims, s: SState):
    """``at-most-once`` (issue 26; formula issue 29be): no offset was processed twice
    (``consumer_processed_twice``). Promised to a consumer that commits before processing;
    false with ``--consumer-commit after`` and a restart."""
    return z3.Not(s.ctwice)


def no_read_loss(d: Dims, s: SState):
    """``no-read-loss`` (issue 29bf): every record a consumer could have read (``SState.rd``,
    the kernel's ``read_offsets``: below the HW of a broker serving reads, ``Encoder.record_reads``)
    is in the true leader's log at the offset it was read at. True of every state without the
    history (``Dims.reads`` off), as the kernel's ``no_read_loss`` is in a layout without it;
    ``kmc check`` and ``kmc prove`` turn ``track_reads`` on when the property is asked."""
    if not s.rd:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(true_leader_is(s, l), z3.And([
        z3.Implies(s.rd[k] >= 0, z3.And(s.rd[k] < s.reps[l].leo,
                                        sel(s.reps[l].log_id, s.rd[k], -1) == k + 1))
        for k in range(d.records)])) for l in range(d.n)])


FORMULAS = {
    "no-acked-loss": no_acked_loss,
    "committed-consistency": committed_consistency,
    "log-matching": log_matching,
    "monotonic-visibility": monotonic_visibility,
    "leader-in-isr": leader_in_isr,
    "hw-le-leo": hw_le_leo,
    "isr-members-eligible": isr_members_eligible,
    "acked-without-a-down-broker": acked_without_a_down_broker,
    "offline-with-a-live-broker": offline_with_a_live_broker,
    "no-duplicates": no_duplicates,
    "in-order": in_order,
    "exactly-once-to-log": exactly_once_to_log,
    "at-least-once": at_least_once,  # the consumer (issue 29be)
    "at-most-once": at_most_once,
    "no-read-loss": no_read_loss,
}

DEFAULT_FORMULAS = ("no-acked-loss", "committed-consistency", "log-matching",
                    "monotonic-visibility", "leader-in-isr", "hw-le-leo")
"""The formulas of the default invariants (``properties.BUILT_IN``): those the strengthening
library may assume (``strengthen.library_names``); the rest are asked by name (module doc)."""
