"""Strengthening invariants for k-induction: facts every reachable state satisfies that the
target property alone does not say, so that a state satisfying them all cannot step out of the
property.

Each has a Python predicate over a ``ClusterState`` and a z3 formula over an ``SState``. The tests
check that every predicate holds on every state BFS reaches (kip-320, RF=2) and that each formula
agrees with its predicate on reachable states and on mutated, unreachable ones; the RF=3 check
(331,010 states) is ``bench/symbolic_bench.py --check-library``. A wrong strengthening cannot make a
proof unsound (it is proved along with the property: the base case and the inductive step cover
it), only make it fail.

How the library was built: run ``kmc prove`` with what there is, read the counterexample to
induction (an unreachable state that steps out), name the Kafka fact that rules it out, check the
fact on every reachable state by BFS, state it as a formula, repeat. With the library, 1-induction
proves ``no-acked-loss`` and ``committed-consistency`` for kip-320 (acks=all,
min.insync.replicas=2, unclean election off, process crashes) at RF=2; docs/symbolic.md has the
bounds and times.

The recurring difficulty: a crash resets a broker's epoch to -1 (``ReplicaState.leader_epoch``),
erasing which epochs it led or followed and so whether it can have truncated its log since. The
library recovers that history from what the state still holds: the LeaderAndIsr requests on
their way to it (a restarted broker has one for every epoch since the one it restarted in, see
``current-epoch-on-its-way``), the epochs other brokers and the controller name leaders for, and
whether those leaders can have taken their epochs (``_never_took``, ``_kept_log_since``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from checker.symbolic import numbers as num
from checker.symbolic.formulas import FORMULAS, holds_acked, holds_every_acked, true_leader_is
from checker.symbolic.state import ite, sel, zmin
from model.constants import NO_LEADER


@dataclass(frozen=True)
class Strengthening:
    name: str
    description: str
    check: Callable  # ClusterState -> bool, or (ClusterState, ModelConfig) -> bool with uses_config
    formula: Callable  # (Dims, SState) -> z3 Bool
    uses_config: bool = False  # the fact depends on the configuration (a bound, min.insync.replicas)

    def holds(self, state, config) -> bool:
        return self.check(state, config) if self.uses_config else self.check(state)


def _holds_below(holder, owner, k: int) -> bool:
    """``holder``'s log has ``owner``'s records below offset ``k`` (at most ``owner``'s LEO)."""
    k = min(k, len(owner.log))
    return holder.log[:k] == owner.log[:k]


def _holds_below_z3(d, holder, owner, k):
    k = zmin(k, owner.leo)
    return z3.And([k <= holder.leo] + [z3.Implies(i < k, z3.And(holder.log_id[i] == owner.log_id[i],
                                                               holder.log_ep[i] == owner.log_ep[i]))
                                       for i in range(d.slots)])


def _dead_replica_reset(s) -> bool:
    return all(r.alive or (r.leader_epoch == -1 and r.leader == NO_LEADER and not r.isr
                           and not r.truncating and not r.fetch_response)
               for r in s.replicas)


def _dead_replica_reset_z3(d, s):
    return z3.And([z3.Implies(z3.Not(r.alive), z3.And([r.lep == -1, r.leader == -1, z3.Not(r.truncating),
                                                         z3.Not(r.fr)] + [z3.Not(x) for x in r.isr]))
                   for r in s.reps])


def _epochs_le_controller(s) -> bool:
    c = s.controller
    return (all(r.leader_epoch <= c.leader_epoch for r in s.replicas)
            and all(e <= c.leader_epoch for _, e, _, _ in s.leader_and_isr))


def _epochs_le_controller_z3(d, s):
    out = [r.lep <= s.c_epoch for r in s.reps]
    out += [z3.Implies(s.lai[b][e], s.c_epoch >= e) for b in range(d.n) for e in range(len(s.lai[b]))]
    return z3.And(out)


def _record_ids_written(s) -> bool:
    w = s.records_written
    ids = [rid for r in s.replicas for rid, _ in r.log] + [rid for rid, _ in s.acked]
    ids += [rid for _, rid, _ in s.pending_acks]
    ids += [rid for r in s.replicas if r.fetch_response for rid, _ in r.fetch_response[3]]
    return all(1 <= rid <= w for rid in ids)


def _record_ids_written_z3(d, s):
    out = []
    for r in s.reps:
        out += [z3.Implies(i < r.leo, z3.And(r.log_id[i] >= 1, r.log_id[i] <= s.written))
                for i in range(d.slots)]
    out += [z3.Implies(z3.And(r.fr, i >= r.fr_offset, i < r.fr_leo),
                       z3.And(r.fr_id[i] >= 1, r.fr_id[i] <= s.written))
            for r in s.reps for i in range(d.slots)]
    out += [z3.Implies(z3.Or(s.acked[k], s.pend[k]), s.written >= k + 1) for k in range(d.records)]
    return z3.And(out)


def _acked_in_isr(s) -> bool:
    """Every acked record is in the log of every member of the controller's ISR, at its offset."""
    for b in s.controller.isr:
        log = s.replicas[b].log
        if not all(off < len(log) and log[off][0] == rid for rid, off in s.acked):
            return False
    return True


def _acked_in_isr_z3(d, s):
    return z3.And([z3.Implies(s.c_isr[b], holds_every_acked(d, s, r)) for b, r in enumerate(s.reps)])


def _requests_to_live_brokers(s) -> bool:
    return all(s.replicas[b].alive and e > s.replicas[b].leader_epoch
               for b, e, _, _ in s.leader_and_isr)


def _requests_to_live_brokers_z3(d, s):
    return z3.And([z3.Implies(s.lai[b][e], z3.And(s.reps[b].alive, s.reps[b].lep < e))
                   for b in range(d.n) for e in range(len(s.lai[b]))])


def _slots(s):
    """Every (offset, record id, epoch) held in a log or a fetch response."""
    for r in s.replicas:
        for off, (rid, ep) in enumerate(r.log):
            yield off, rid, ep
        if r.fetch_response:
            _, _, fo, recs, _, _ = r.fetch_response
            for k, (rid, ep) in enumerate(recs):
                yield fo + k, rid, ep


def _record_identity(s) -> bool:
    where = {}
    for off, rid, ep in _slots(s):
        if where.setdefault(rid, (off, ep)) != (off, ep):
            return False
    return all(where.get(rid, (off, None))[0] == off for rid, off in s.acked)


def _record_identity_z3(d, s):
    slots = []  # (present, offset, id, epoch)
    for r in s.reps:
        for i in range(d.slots):
            slots.append((i < r.leo, i, r.log_id[i], r.log_ep[i]))
            slots.append((z3.And(r.fr, i >= r.fr_offset, i < r.fr_leo), i, r.fr_id[i], r.fr_ep[i]))
    out = []
    for a in range(len(slots)):
        pa, oa, ia, ea = slots[a]
        for b in range(a + 1, len(slots)):
            pb, ob, ib, eb = slots[b]
            same = z3.And(pa, pb, ia == ib)
            out.append(z3.Implies(same, ea == eb) if oa == ob else z3.Not(same))
        for k in range(d.records):
            out.append(z3.Implies(z3.And(pa, s.acked[k], ia == k + 1), s.acked_off[k] == oa))
    return z3.And(out)


def _log_epochs_le_controller(s) -> bool:
    return all(ep <= s.controller.leader_epoch for _, _, ep in _slots(s))


def _log_epochs_le_controller_z3(d, s):
    out = []
    for r in s.reps:
        for i in range(d.slots):
            out.append(z3.Implies(i < r.leo, r.log_ep[i] <= s.c_epoch))
            out.append(z3.Implies(z3.And(r.fr, i >= r.fr_offset, i < r.fr_leo), r.fr_ep[i] <= s.c_epoch))
    return z3.And(out)


def _leader_not_fetching(s) -> bool:
    return all(not (r.fetch_response or r.truncating) for b, r in enumerate(s.replicas)
               if r.leader == b)


def _leader_not_fetching_z3(d, s):
    return z3.And([z3.Implies(r.leader == b, z3.And(z3.Not(r.fr), z3.Not(r.truncating)))
                   for b, r in enumerate(s.reps)])


def _requests_lead_their_isr(s) -> bool:
    return all(leader == -1 or leader in isr for _, _, leader, isr in s.leader_and_isr)


def _requests_lead_their_isr_z3(d, s):
    out = []
    for b in range(d.n):
        for e in range(len(s.lai[b])):
            lead_in = z3.Or([z3.And(s.lai_leader[b][e] == j, s.lai_isr[b][e][j]) for j in range(d.n)])
            out.append(z3.Implies(s.lai[b][e], z3.Or(s.lai_leader[b][e] == -1, lead_in)))
    return z3.And(out)


def _log_epochs_monotonic(s) -> bool:
    return all(all(a[1] <= b[1] for a, b in zip(r.log, r.log[1:])) for r in s.replicas)


def _log_epochs_monotonic_z3(d, s):
    return z3.And([z3.Implies(i + 1 < r.leo, r.log_ep[i] <= r.log_ep[i + 1])
                   for r in s.reps for i in range(d.slots - 1)])


def _one_leader_per_epoch(s) -> bool:
    leaders = [(r.leader_epoch, b) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    if len({e for e, _ in leaders}) != len(leaders):
        return False
    c = s.controller
    return all(b == c.leader for e, b in leaders if e == c.leader_epoch)


def _one_leader_per_epoch_z3(d, s):
    lead = [z3.And(r.alive, r.leader == b) for b, r in enumerate(s.reps)]
    out = [z3.Implies(z3.And(lead[a], lead[b]), s.reps[a].lep != s.reps[b].lep)
           for a in range(d.n) for b in range(a + 1, d.n)]
    out += [z3.Implies(z3.And(lead[b], s.reps[b].lep == s.c_epoch), s.c_leader == b) for b in range(d.n)]
    return z3.And(out)


# ---------------------------------------------------------------------------- epochs and roles
# Facts about who believes what in which epoch. In Kafka a leader epoch names one leader
# (the controller bumps it on every election: ``PartitionStateMachine`` / KRaft's
# ``PartitionChangeBuilder``), and a broker's in-memory role (ISR, followers' LEOs, fetcher
# state) lives only between a LeaderAndIsr and the next one or a crash.

def _restarted_replica_reset(s) -> bool:
    return all(r.leader == NO_LEADER and not r.fetch_response and not r.truncating and not r.isr
               and all(x == -1 for x in r.remote_log_end_offsets)
               for r in s.replicas if r.leader_epoch == -1)


def _restarted_replica_reset_z3(d, s):
    return z3.And([z3.Implies(r.lep == -1, z3.And([r.leader == -1, z3.Not(r.fr), z3.Not(r.truncating)]
                                                 + [z3.Not(x) for x in r.isr] + [x == -1 for x in r.remote]))
                   for r in s.reps])


def _live_brokers_registered(s) -> bool:
    c = s.controller
    return all(b in c.live_brokers for b, r in enumerate(s.replicas) if r.alive) and (
        c.leader == NO_LEADER or c.leader in c.live_brokers)


def _live_brokers_registered_z3(d, s):
    out = [z3.Implies(r.alive, s.c_live[b]) for b, r in enumerate(s.reps)]
    out += [z3.Implies(s.c_leader == b, s.c_live[b]) for b in range(d.n)]
    return z3.And(out)


def _epoch_claims(s):
    """(epoch, leader) as every LeaderAndIsr request, live broker and the controller hold it."""
    claims = [(e, leader) for _, e, leader, _ in s.leader_and_isr]
    claims += [(r.leader_epoch, r.leader) for r in s.replicas if r.alive and r.leader_epoch >= 0]
    claims.append((s.controller.leader_epoch, s.controller.leader))
    return claims


def _epoch_names_one_leader(s) -> bool:
    named = {}
    if not all(named.setdefault(e, leader) == leader for e, leader in _epoch_claims(s)):
        return False
    # nobody writes in a leaderless epoch
    return not any(named.get(ep) == NO_LEADER for _, _, ep in _slots(s))


def _epoch_names_one_leader_z3(d, s):
    claims = [(s.lai[b][e], e, s.lai_leader[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    claims += [(z3.And(r.alive, r.lep >= 0), r.lep, r.leader) for r in s.reps]
    claims.append((True, s.c_epoch, s.c_leader))
    out = []
    for i in range(len(claims)):
        pa, ea, la = claims[i]
        for j in range(i + 1, len(claims)):
            pb, eb, lb = claims[j]
            if isinstance(ea, int) and isinstance(eb, int):
                if ea != eb:
                    continue
                out.append(z3.Implies(z3.And(pa, pb), la == lb))
            else:
                out.append(z3.Implies(z3.And(pa, pb, ea == eb), la == lb))
    slots = []
    for r in s.reps:
        for i in range(d.slots):
            slots.append((i < r.leo, r.log_ep[i]))
            slots.append((z3.And(r.fr, i >= r.fr_offset, i < r.fr_leo), r.fr_ep[i]))
    for pc, ec, lc in claims:
        for present, ep in slots:
            out.append(z3.Implies(z3.And(pc, lc == -1, present), ep != ec))
    return z3.And(out)


def _followers_keep_no_leader_state(s) -> bool:
    return all(b == r.leader or (not r.isr and all(x == -1 for x in r.remote_log_end_offsets))
               for b, r in enumerate(s.replicas)) and all(
        r.remote_log_end_offsets[b] == -1 for b, r in enumerate(s.replicas))


def _followers_keep_no_leader_state_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        out.append(z3.Implies(r.leader != b, z3.And([z3.Not(x) for x in r.isr] + [x == -1 for x in r.remote])))
        out.append(r.remote[b] == -1)
    return z3.And(out)


def _leader_isr_is_controller_isr(s) -> bool:
    c = s.controller
    return all(r.isr == c.isr for b, r in enumerate(s.replicas)
               if r.alive and r.leader == b and r.leader_epoch == c.leader_epoch) and all(
        isr == c.isr for b, e, leader, isr in s.leader_and_isr
        if e == c.leader_epoch and (leader == b or _never_took(s, leader, e)))


def _leader_isr_is_controller_isr_z3(d, s):
    out = [z3.Implies(z3.And(r.alive, r.leader == b, r.lep == s.c_epoch),
                      z3.And([x == y for x, y in zip(r.isr, s.c_isr)]))
           for b, r in enumerate(s.reps)]
    out += [z3.Implies(z3.And(s.lai[b][e], s.c_epoch == e,
                              z3.Or(s.lai_leader[b][e] == b, _never_took_z3(d, s, s.lai_leader[b][e], e))),
                       z3.And([x == y for x, y in zip(s.lai_isr[b][e], s.c_isr)]))
            for b in range(d.n) for e in range(len(s.lai[b]))]
    return z3.And(out)


# ---------------------------------------------------------------------------- fetches
# What a leader learns from a fetch (the follower's fetch offset becomes its remote LEO:
# ``Partition.updateFollowerFetchState``) and what the response carries (the leader's records
# from that offset, its HW and LEO) stay true while the leader keeps its epoch: within an epoch a
# leader's log only grows (KIP-320 fences every fetch and OffsetsForLeaderEpoch by epoch).

def _fetch_response_current(s) -> bool:
    def sender_took_epoch(r) -> bool:  # the leader served it in that epoch, then moved on or crashed
        lead, epoch = r.fetch_response[:2]
        older = any(q == lead and e < epoch for q, e, _, _ in s.leader_and_isr)
        return s.replicas[lead].leader_epoch >= epoch or (s.replicas[lead].leader_epoch == -1 and not older)

    return all(r.fetch_response[0] == r.leader and r.fetch_response[1] == r.leader_epoch
               and r.leader != b and r.fetch_response[2] == len(r.log) and not r.truncating
               and sender_took_epoch(r)
               for b, r in enumerate(s.replicas) if r.fetch_response)


def _fetch_response_current_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        sender = [z3.Implies(r.fr_leader == lead, z3.Or(lr.lep >= r.fr_epoch, z3.And(
            [lr.lep == -1] + [z3.Not(z3.And(s.lai[lead][e], r.fr_epoch > e)) for e in range(len(s.lai[lead]))])))
                  for lead, lr in enumerate(s.reps)]
        out.append(z3.Implies(r.fr, z3.And([r.fr_leader == r.leader, r.fr_epoch == r.lep, r.leader != b,
                                            r.fr_offset == r.leo, z3.Not(r.truncating)] + sender)))
    return z3.And(out)


def _leads_in(r, b: int, epoch) -> bool:
    return r.alive and r.leader == b and r.leader_epoch == epoch


def _fetch_response_from_leader_log(s) -> bool:
    for f, r in enumerate(s.replicas):
        if not r.fetch_response:
            continue
        lead, epoch, offset, records, hw, leo = r.fetch_response
        if lead == f:
            continue  # fetch-response-current rules that out
        lr = s.replicas[lead]
        if _kept_log_since(s, lead, epoch):
            # the sender has not truncated since it served the fetch: its log still holds what it
            # sent, and its HW has only grown
            if leo > len(lr.log) or lr.log[offset:leo] != records or hw > lr.high_watermark:
                return False
        if _leads_in(lr, lead, epoch) and offset <= leo and lr.remote_log_end_offsets[f] not in (offset, -1):
            return False
    return True


def _fetch_response_from_leader_log_z3(d, s):
    out = []
    for f, r in enumerate(s.reps):
        for lead in range(d.n):
            if lead == f:
                continue
            lr = s.reps[lead]
            same = [z3.Implies(z3.And(i >= r.fr_offset, i < r.fr_leo),
                               z3.And(r.fr_id[i] == lr.log_id[i], r.fr_ep[i] == lr.log_ep[i]))
                    for i in range(d.slots)]
            sent = z3.And(r.fr, r.fr_leader == lead)
            kept = _kept_log_since_z3(d, s, lead, r.fr_epoch)
            out.append(z3.Implies(z3.And(sent, kept), z3.And([r.fr_leo <= lr.leo, r.fr_hw <= lr.hw] + same)))
            in_epoch = z3.And(sent, lr.alive, lr.leader == lead, lr.lep == r.fr_epoch, r.fr_offset <= r.fr_leo)
            out.append(z3.Implies(in_epoch, z3.Or(lr.remote[f] == r.fr_offset, lr.remote[f] == -1)))
    return z3.And(out)


def _follower_kept_log_since(s, f: int, lead: int, e: int) -> bool:
    """Follower ``f`` fetched from ``lead`` in epoch ``e``: is it still in ``e`` or later, and can
    it not have truncated since? (``lead`` still leads ``e``, so it never took a later epoch.)"""
    r = s.replicas[f]
    return (r.leader_epoch == -1 or r.leader_epoch >= e) and _kept_log_since(s, f, e)


def _follower_kept_log_since_z3(d, s, f: int, lead: int, e):
    r = s.reps[f]
    return z3.And(z3.Or(r.lep == -1, r.lep >= e), _kept_log_since_z3(d, s, f, e))


def _remote_leo_is_follower_prefix(s) -> bool:
    for lead, lr in enumerate(s.replicas):
        if not (lr.alive and lr.leader == lead):
            continue
        for f, x in enumerate(lr.remote_log_end_offsets):
            if x < 0 or f == lead:
                continue
            fr = s.replicas[f]
            if x > len(lr.log) or (fr.leader_epoch != -1 and fr.leader_epoch < lr.leader_epoch):
                return False
            if any(b == f and e < lr.leader_epoch for b, e, _, _ in s.leader_and_isr):
                return False
            if _follower_kept_log_since(s, f, lead, lr.leader_epoch):
                if not (x <= len(fr.log) and fr.log[:x] == lr.log[:x]):
                    return False
            # in the epoch (or restarted in it) its whole log is the leader's, even while it
            # truncates again after a quick restart
            in_epoch = fr.leader_epoch == lr.leader_epoch or (fr.leader_epoch == -1 and (
                s.controller.leader_epoch == lr.leader_epoch
                or any(q == f and ep == lr.leader_epoch for q, ep, _, _ in s.leader_and_isr)))
            if in_epoch and fr.log != lr.log[:len(fr.log)]:
                return False
    return True


def _remote_leo_is_follower_prefix_z3(d, s):
    out = []
    for lead, lr in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            x = lr.remote[f]
            prefix = _holds_below_z3(d, fr, lr, x)  # with x <= the leader's LEO, below
            whole = _holds_below_z3(d, lr, fr, fr.leo)
            kept = _follower_kept_log_since_z3(d, s, f, lead, lr.lep)
            restarted_in_epoch = z3.And(fr.lep == -1, z3.Or([s.c_epoch == lr.lep] + [
                z3.And(s.lai[f][e], lr.lep == e) for e in range(len(s.lai[f]))]))
            body = z3.And([x <= lr.leo, z3.Or(fr.lep == -1, fr.lep >= lr.lep),
                           z3.Implies(kept, prefix),
                           z3.Implies(z3.Or(fr.lep == lr.lep, restarted_in_epoch), whole)]
                          + [z3.Implies(s.lai[f][e], lr.lep <= e) for e in range(len(s.lai[f]))])
            out.append(z3.Implies(z3.And(lr.alive, lr.leader == lead, x >= 0), body))
    return z3.And(out)


def _isr_remote_ge_hw(s) -> bool:
    for lead, lr in enumerate(s.replicas):
        if lr.alive and lr.leader == lead:
            for f in lr.isr:
                x = lr.remote_log_end_offsets[f]
                if f != lead and 0 <= x < lr.high_watermark:
                    return False
    return True


def _isr_remote_ge_hw_z3(d, s):
    return z3.And([z3.Implies(z3.And(lr.alive, lr.leader == lead, lr.isr[f], lr.remote[f] >= 0),
                              lr.remote[f] >= lr.hw)
                   for lead, lr in enumerate(s.reps) for f in range(d.n) if f != lead])


# ---------------------------------------------------------------------------- acks and the HW

def _pending_acks_on_leader(s) -> bool:
    for lead, rid, off in s.pending_acks:
        lr = s.replicas[lead]
        if not (lr.alive and lr.leader == lead and off < len(lr.log) and lr.log[off][0] == rid
                and off >= lr.high_watermark):
            return False
    return True


def _pending_acks_on_leader_z3(d, s):
    out = []
    for k in range(d.records):
        for lead, lr in enumerate(s.reps):
            held = z3.And(lr.alive, lr.leader == lead, s.pend_off[k] < lr.leo,
                          sel(lr.log_id, s.pend_off[k], -1) == k + 1, s.pend_off[k] >= lr.hw)
            out.append(z3.Implies(z3.And(s.pend[k], s.pend_leader[k] == lead), held))
    return z3.And(out)


def _hw_prefix_of_true_leader(s) -> bool:
    c = s.controller
    if c.leader == NO_LEADER or not _leads_in(s.replicas[c.leader], c.leader, c.leader_epoch):
        return True
    leader = s.replicas[c.leader]
    return all(_holds_below(leader, r, r.high_watermark) for r in s.replicas)


def _hw_prefix_of_true_leader_z3(d, s):
    out = []
    for lead in range(d.n):
        lr = s.reps[lead]
        for b in range(d.n):
            if b == lead:
                continue
            r = s.reps[b]
            out.append(z3.Implies(true_leader_is(s, lead), _holds_below_z3(d, lr, r, r.hw)))
    return z3.And(out)


def _epochs_led(s, b: int) -> set:
    """The epochs broker ``b`` leads in, is made leader of by a request in flight, or is the
    controller's leader in (it may be down or waiting for that request after a quick restart)."""
    epochs = {e for q, e, leader, _ in s.leader_and_isr if q == b and leader == b}
    r = s.replicas[b]
    if r.alive and r.leader == b:
        epochs.add(r.leader_epoch)
    if s.controller.leader == b:
        epochs.add(s.controller.leader_epoch)
    return epochs


def _leads_epoch_z3(s, b: int, ep):
    """z3: ``ep`` is one of ``_epochs_led(s, b)``."""
    r = s.reps[b]
    out = [z3.And(r.alive, r.leader == b, ep == r.lep), z3.And(s.c_leader == b, ep == s.c_epoch)]
    out += [z3.And(s.lai[b][e], s.lai_leader[b][e] == b, ep == e) for e in range(len(s.lai[b]))]
    return z3.Or(out)


def _acked_below_writer_hw(s) -> bool:
    for b, r in enumerate(s.replicas):
        epochs = _epochs_led(s, b)
        for rid, off in s.acked:
            if off < len(r.log) and r.log[off][0] == rid and r.log[off][1] in epochs \
                    and off >= r.high_watermark:
                return False
    return True


def _acked_below_writer_hw_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        for k in range(d.records):
            o = s.acked_off[k]
            own = z3.And(s.acked[k], holds_acked(s, r, k),
                         _leads_epoch_z3(s, b, sel(r.log_ep, o, -1)))
            out.append(z3.Implies(own, o < r.hw))
    return z3.And(out)


def _controller_isr_nonempty(s) -> bool:
    return len(s.controller.isr) > 0


def _controller_isr_nonempty_z3(d, s):
    return z3.Or(s.c_isr)


def _isr_views(s):
    """(broker, epoch, ISR): each running leader's ISR, and the ISR a LeaderAndIsr request in
    flight will hand its target as leader."""
    views = [(b, r.leader_epoch, r.isr) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    return views + [(b, e, isr) for b, e, leader, isr in s.leader_and_isr if leader == b]


def _isr_followers_hold_hw(s) -> bool:
    for lead, epoch, isr in _isr_views(s):
        lr = s.replicas[lead]
        hw = lr.high_watermark
        for f in isr:
            fr = s.replicas[f]
            not_past = 0 <= fr.leader_epoch <= epoch or _follower_kept_log_since(s, f, lead, epoch)
            if f != lead and not_past and not _holds_below(fr, lr, hw):
                return False
    return True


def _isr_views_z3(d, s):
    views = [(lead, z3.And(lr.alive, lr.leader == lead), lr.lep, lr.isr) for lead, lr in enumerate(s.reps)]
    return views + [(b, z3.And(s.lai[b][e], s.lai_leader[b][e] == b), num.val(e), s.lai_isr[b][e])
                    for b in range(d.n) for e in range(len(s.lai[b]))]


def _isr_followers_hold_hw_z3(d, s):
    out = []
    for lead, present, epoch, isr in _isr_views_z3(d, s):
        lr = s.reps[lead]
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            prefix = _holds_below_z3(d, fr, lr, lr.hw)
            not_past = z3.Or(z3.And(fr.lep >= 0, fr.lep <= epoch), _follower_kept_log_since_z3(d, s, f, lead, epoch))
            out.append(z3.Implies(z3.And(present, isr[f], not_past), prefix))
    return z3.And(out)


def _never_took(s, b: int, e: int) -> bool:
    """Broker ``b`` has never taken epoch ``e`` as leader (or ``b`` is no broker): since its last
    restart it applied only older epochs, or it waits for a request older than ``e`` (a crash in
    ``e`` or later would have left only newer requests to it)."""
    if b == NO_LEADER:
        return True
    r = s.replicas[b]
    if not r.alive:
        return False
    if r.leader_epoch >= 0:
        return r.leader_epoch < e
    return any(q == b and x < e for q, x, _, _ in s.leader_and_isr)


def _never_took_z3(d, s, b, e):
    """``_never_took`` for a symbolic broker ``b`` (a term, -1 for none) and epoch ``e``."""
    out = [b == -1]
    for m, r in enumerate(s.reps):
        waits = z3.Or([z3.And(s.lai[m][x], x < e) for x in range(len(s.lai[m]))])
        out.append(z3.And(b == m, r.alive, z3.If(r.lep >= 0, r.lep < e, waits)))
    return z3.Or(out)


def _kept_log_since(s, b: int, e: int) -> bool:
    """Broker ``b`` cannot have truncated its log since epoch ``e``. Only a follower truncates, and
    only against a leader that has taken the follower's epoch. So ``b`` kept its log if it has not
    passed ``e``, or if every epoch it may have been in since (up to its current one; after a
    restart, up to the oldest request on its way to it, the epoch it restarted in; if it is down,
    up to the controller's) is named, by some request, broker or the controller, with ``b``
    itself, nobody, or a leader that has never taken it."""
    r = s.replicas[b]
    if 0 <= r.leader_epoch <= e:
        return True
    mine = [x for q, x, _, _ in s.leader_and_isr if q == b]
    if r.leader_epoch >= 0:
        upto = r.leader_epoch
    elif r.alive and mine:
        upto = min(mine)
    else:
        upto = s.controller.leader_epoch
    claims = _epoch_claims(s)
    return all(any(ce == x and (leader == b or _never_took(s, leader, x)) for ce, leader in claims)
               for x in range(e + 1, upto + 1))


def _epoch_claims_z3(d, s) -> list:
    """(present, epoch, leader) of every request, live broker and the controller, as z3 terms."""
    claims = [(s.lai[q][x], num.val(x), s.lai_leader[q][x]) for q in range(d.n) for x in range(len(s.lai[q]))]
    claims += [(z3.And(r.alive, r.lep >= 0), r.lep, r.leader) for r in s.reps]
    return claims + [(z3.BoolVal(True), s.c_epoch, s.c_leader)]


def _kept_log_since_z3(d, s, b: int, e):
    r = s.reps[b]
    oldest = s.c_epoch  # the oldest request on its way to b, else the controller's epoch
    for x in range(len(s.lai[b]) - 1, -1, -1):
        oldest = ite(s.lai[b][x], num.val(x), oldest)
    upto = ite(r.lep >= 0, r.lep, ite(r.alive, oldest, s.c_epoch))
    claims = _epoch_claims_z3(d, s)
    each = []
    for x in range(d.max_epoch + 1):
        harmless = z3.Or([z3.And(p, ce == x, z3.Or(cl == b, _never_took_z3(d, s, cl, x))) for p, ce, cl in claims])
        each.append(z3.Implies(z3.And(e < x, x <= upto), harmless))
    return z3.Or(z3.And(r.lep >= 0, r.lep <= e), z3.And(each))


def _follower_log_is_leader_prefix(s) -> bool:
    for f, r in enumerate(s.replicas):
        lead = r.leader
        if not r.alive or r.leader_epoch < 0 or lead < 0 or lead == f or r.truncating:
            continue
        lr = s.replicas[lead]
        if _kept_log_since(s, lead, r.leader_epoch) and r.log != lr.log[:len(r.log)]:
            return False
    return True


def _follower_log_is_leader_prefix_z3(d, s):
    out = []
    for f, r in enumerate(s.reps):
        for lead, lr in enumerate(s.reps):
            if lead == f:
                continue
            prefix = _holds_below_z3(d, lr, r, r.leo)
            not_past = _kept_log_since_z3(d, s, lead, r.lep)
            out.append(z3.Implies(z3.And(r.alive, r.lep >= 0, r.leader == lead, z3.Not(r.truncating),
                                         not_past), prefix))
    return z3.And(out)


def _fetch_response_epochs(s) -> bool:
    for r in s.replicas:
        if r.fetch_response:
            epochs = [ep for _, ep in r.fetch_response[3]]
            if any(ep > r.fetch_response[1] for ep in epochs) or epochs != sorted(epochs):
                return False
            if epochs and r.log and r.fetch_response[2] == len(r.log) and r.log[-1][1] > epochs[0]:
                return False
    return True


def _fetch_response_epochs_z3(d, s):
    out = []
    for r in s.reps:
        inside = [z3.And(i >= r.fr_offset, i < r.fr_leo) for i in range(d.slots)]
        for i in range(d.slots):
            out.append(z3.Implies(z3.And(r.fr, inside[i]), r.fr_ep[i] <= r.fr_epoch))
            if i + 1 < d.slots:
                out.append(z3.Implies(z3.And(r.fr, inside[i], inside[i + 1]), r.fr_ep[i] <= r.fr_ep[i + 1]))
            if i > 0:
                out.append(z3.Implies(z3.And(r.fr, inside[i], r.fr_offset == i, r.leo == i),
                                      r.log_ep[i - 1] <= r.fr_ep[i]))
    return z3.And(out)


def _log_epochs_le_own_epoch(s) -> bool:
    own = all(ep <= r.leader_epoch for r in s.replicas if r.alive and r.leader_epoch >= 0 for _, ep in r.log)
    return own and all(ep <= e for b, e, _, _ in s.leader_and_isr for _, ep in s.replicas[b].log)


def _log_epochs_le_own_epoch_z3(d, s):
    out = [z3.Implies(z3.And(r.alive, r.lep >= 0, i < r.leo), r.log_ep[i] <= r.lep)
           for r in s.reps for i in range(d.slots)]
    out += [z3.Implies(z3.And(s.lai[b][e], i < s.reps[b].leo), s.reps[b].log_ep[i] <= e)
            for b in range(d.n) for e in range(len(s.lai[b])) for i in range(d.slots)]
    return z3.And(out)


def _crashes_counted(s) -> bool:
    return sum(1 for r in s.replicas if not r.alive or r.leader_epoch == -1) <= s.crashes


def _crashes_counted_z3(d, s):
    from checker.symbolic.state import count

    return count([z3.Or(z3.Not(r.alive), r.lep == -1) for r in s.reps]) <= s.crashes


def _first_epoch_leader(s) -> bool:
    return all(leader == 0 for e, leader in _epoch_claims(s) if e == 0)


def _first_epoch_leader_z3(d, s):
    out = [z3.Implies(s.lai[b][0], s.lai_leader[b][0] == 0) for b in range(d.n)]
    out += [z3.Implies(z3.And(r.alive, r.lep == 0), r.leader == 0) for r in s.reps]
    out.append(z3.Implies(s.c_epoch == 0, s.c_leader == 0))
    return z3.And(out)


def _fetch_offsets_in_range(s) -> bool:
    return all(r.fetch_response[2] <= r.fetch_response[5] for r in s.replicas if r.fetch_response)


def _fetch_offsets_in_range_z3(d, s):
    return z3.And([z3.Implies(r.fr, r.fr_offset <= r.fr_leo) for r in s.reps])


def _isr_holds_every_hw(s) -> bool:
    for r in s.replicas:
        hw = r.high_watermark
        if any(not _holds_below(s.replicas[b], r, hw) for b in s.controller.isr):
            return False
    return True


def _isr_holds_every_hw_z3(d, s):
    out = []
    for lead, lr in enumerate(s.reps):
        for b, r in enumerate(s.reps):
            if b == lead:
                continue
            out.append(z3.Implies(s.c_isr[b], _holds_below_z3(d, r, lr, lr.hw)))
    return z3.And(out)


def _epoch_leader_holds_its_records(s) -> bool:
    for lead, lr in enumerate(s.replicas):
        epochs = _epochs_led(s, lead)
        for off, rid, ep in _slots(s):
            if ep in epochs and (off >= len(lr.log) or lr.log[off] != (rid, ep)):
                return False
    return True


def _epoch_leader_holds_its_records_z3(d, s):
    slots = []  # (present, offset, id, epoch)
    for r in s.reps:
        for i in range(d.slots):
            slots.append((i < r.leo, i, r.log_id[i], r.log_ep[i]))
            slots.append((z3.And(r.fr, i >= r.fr_offset, i < r.fr_leo), i, r.fr_id[i], r.fr_ep[i]))
    out = []
    for lead, lr in enumerate(s.reps):
        for present, i, rid, ep in slots:
            out.append(z3.Implies(z3.And(present, _leads_epoch_z3(s, lead, ep)),
                                  z3.And(i < lr.leo, lr.log_id[i] == rid, lr.log_ep[i] == ep)))
    return z3.And(out)


def _leaderless_requests_isr_was_down(s) -> bool:
    """The ISR of a leaderless epoch had no live member when the controller made it, so each has
    restarted since: no older request is on its way to it, and it applied no older epoch."""
    for _, e, leader, isr in s.leader_and_isr:
        if leader != NO_LEADER:
            continue
        for j in isr:
            r = s.replicas[j]
            if any(b == j and x < e for b, x, _, _ in s.leader_and_isr) or (r.alive and 0 <= r.leader_epoch < e):
                return False
    # a leaderless epoch follows the failure of the previous epoch's leader (or an offline one)
    leaderless = {e for _, e, leader, _ in s.leader_and_isr if leader == NO_LEADER}
    if s.controller.leader == NO_LEADER:
        leaderless.add(s.controller.leader_epoch)
    for e in leaderless:
        for x, prev in _epoch_claims(s):
            if x == e - 1 and prev >= 0:
                r = s.replicas[prev]
                if any(b == prev and y < e for b, y, _, _ in s.leader_and_isr) or (r.alive and 0 <= r.leader_epoch < e):
                    return False
    return True


def _offline_isr_restarted(s, config) -> bool:
    c = s.controller
    if c.leader != NO_LEADER:
        return _leaderless_requests_isr_was_down(s)
    # the controller elects a restarting ISR member at once, unless the epoch budget is spent
    live = c.leader_epoch >= config.bounds.max_leader_epoch or not set(c.isr) & set(c.live_brokers)
    older = any(b in c.isr and e != c.leader_epoch for b, e, _, _ in s.leader_and_isr)
    return live and not older and _leaderless_requests_isr_was_down(s) and all(
        not s.replicas[b].alive or s.replicas[b].leader_epoch in (-1, c.leader_epoch) for b in c.isr)


def _offline_isr_restarted_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        offline_member = z3.And(s.c_leader == -1, s.c_isr[b])
        out.append(z3.Implies(z3.And(offline_member, r.alive), z3.Or(r.lep == -1, r.lep == s.c_epoch)))
        out.append(z3.Implies(z3.And(offline_member, s.c_live[b]), s.c_epoch >= d.max_epoch))
        out += [z3.Implies(z3.And(offline_member, s.lai[b][e]), s.c_epoch == e) for e in range(len(s.lai[b]))]
    for q in range(d.n):
        for e in range(len(s.lai[q])):
            leaderless = z3.And(s.lai[q][e], s.lai_leader[q][e] == -1)
            for j, r in enumerate(s.reps):
                was_down = z3.And([z3.Not(s.lai[j][x]) for x in range(e)]
                                  + [z3.Not(z3.And(r.alive, r.lep >= 0, r.lep < e))])
                out.append(z3.Implies(z3.And(leaderless, s.lai_isr[q][e][j]), was_down))
    claims = [(s.lai[b][e], num.val(e), s.lai_leader[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    claims += [(z3.And(x.alive, x.lep >= 0), x.lep, x.leader) for x in s.reps]
    claims.append((True, s.c_epoch, s.c_leader))
    leaderless = [(z3.And(s.lai[q][e], s.lai_leader[q][e] == -1), num.val(e))
                  for q in range(d.n) for e in range(len(s.lai[q]))]
    leaderless.append((s.c_leader == -1, s.c_epoch))
    for present, e in leaderless:
        for cp, x, prev in claims:
            for j, r in enumerate(s.reps):
                was_down = z3.And([z3.Not(z3.And(s.lai[j][y], y < e)) for y in range(len(s.lai[j]))]
                                  + [z3.Not(z3.And(r.alive, r.lep >= 0, r.lep < e))])
                out.append(z3.Implies(z3.And(present, cp, x + 1 == e, prev == j), was_down))
    return z3.And(out)


def _leader_holds_followers_hw(s) -> bool:
    for f, r in enumerate(s.replicas):
        lead = r.leader
        if r.alive and r.leader_epoch >= 0 and lead >= 0 and lead != f:
            hw = r.high_watermark
            if not _holds_below(s.replicas[lead], r, hw):
                return False
    return True


def _leader_holds_followers_hw_z3(d, s):
    out = []
    for f, r in enumerate(s.reps):
        for lead, lr in enumerate(s.reps):
            if lead == f:
                continue
            prefix = _holds_below_z3(d, lr, r, r.hw)
            out.append(z3.Implies(z3.And(r.alive, r.lep >= 0, r.leader == lead), prefix))
    return z3.And(out)


def _leaders_hold_older_acked(s, config) -> bool:
    if config.min_insync_replicas < config.replication_factor:
        return True  # an acked record need not have reached every replica
    acked = dict(s.acked)
    older = {(rid, off, ep) for r in s.replicas for off, (rid, ep) in enumerate(r.log) if acked.get(rid) == off}
    for b, r in enumerate(s.replicas):
        epochs = _epochs_led(s, b)
        for rid, off, ep in older:
            if any(ep < e for e in epochs) and (off >= len(r.log) or r.log[off][0] != rid):
                return False
    return True


def _leaders_hold_older_acked_z3(d, s):
    if d.min_isr < d.n:
        return z3.BoolVal(True)
    out = []
    for b, lr in enumerate(s.reps):
        # the epochs b leads in, as in _epochs_led
        led = [(z3.And(lr.alive, lr.leader == b), lr.lep), (s.c_leader == b, s.c_epoch)]
        led += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == b), num.val(e)) for e in range(len(s.lai[b]))]
        for k in range(d.records):
            o = s.acked_off[k]
            held = holds_acked(s, lr, k)
            for r in s.reps:
                for i in range(d.slots):
                    seen = z3.And(s.acked[k], o == i, i < r.leo, r.log_id[i] == k + 1)
                    for leads, e in led:
                        out.append(z3.Implies(z3.And(leads, seen, r.log_ep[i] < e), held))
    return z3.And(out)


def _current_epoch_on_its_way(s) -> bool:
    c = s.controller
    sent = {(b, e) for b, e, _, _ in s.leader_and_isr}
    for b, r in enumerate(s.replicas):
        if r.alive and r.leader_epoch < c.leader_epoch and (b, c.leader_epoch) not in sent:
            return False
        if r.alive and r.leader_epoch >= 0 and any(
                (b, e) not in sent for e in range(r.leader_epoch + 1, c.leader_epoch + 1)):
            return False
    # and from the oldest one on its way, every later epoch (it has been live since)
    return all((b, x) in sent for b, e in sent for x in range(e, c.leader_epoch + 1))


def _current_epoch_on_its_way_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        sent = z3.Or([z3.And(s.c_epoch == e, s.lai[b][e]) for e in range(len(s.lai[b]))])
        out.append(z3.Implies(z3.And(r.alive, r.lep < s.c_epoch), sent))
        out += [z3.Implies(z3.And(r.alive, r.lep >= 0, r.lep < e, s.c_epoch >= e), s.lai[b][e])
                for e in range(len(s.lai[b]))]
        out += [z3.Implies(z3.And(s.lai[b][e], s.c_epoch >= x), s.lai[b][x])
                for e in range(len(s.lai[b])) for x in range(e + 1, len(s.lai[b]))]
    return z3.And(out)


def _fetch_hw_covered(r):
    """The records a fetch response's HW would commit on its follower, by offset: the follower's
    log below the fetch offset, then the response's records, up to the leader's HW (None if the
    follower's log is shorter than the fetch offset, which no reachable state has)."""
    _, _, offset, records, hw, leo = r.fetch_response
    covered = []
    for i in range(min(hw, leo)):
        if i < offset:
            if i >= len(r.log):
                return None
            covered.append(r.log[i])
        else:
            covered.append(records[i - offset])
    return tuple(covered)


def _fetch_hw_committed(s) -> bool:
    for r in s.replicas:
        if r.fetch_response and r.fetch_response[2] <= r.fetch_response[5]:
            covered = _fetch_hw_covered(r)
            if covered is None:
                return False
            holders = [r.fetch_response[0]] + list(s.controller.isr)
            if any(s.replicas[b].log[:len(covered)] != covered for b in holders):
                return False
    return True


def _fetch_hw_committed_z3(d, s):
    out = []
    for r in s.reps:
        for i in range(d.slots):
            covered = z3.And(r.fr, r.fr_offset <= r.fr_leo, i < r.fr_hw, i < r.fr_leo)
            out.append(z3.Implies(z3.And(covered, i < r.fr_offset), i < r.leo))
            rid = ite(i < r.fr_offset, r.log_id[i], r.fr_id[i])
            ep = ite(i < r.fr_offset, r.log_ep[i], r.fr_ep[i])
            for b, br in enumerate(s.reps):
                holds = z3.And(i < br.leo, br.log_id[i] == rid, br.log_ep[i] == ep)
                out.append(z3.Implies(z3.And(covered, z3.Or(s.c_isr[b], r.fr_leader == b)), holds))
    return z3.And(out)


def _isr_grows_only_under_its_leader(s) -> bool:
    c = s.controller
    if not _never_took(s, c.leader, c.leader_epoch):
        return True  # the new leader may have added members
    # only the previous epoch: a leader of an epoch in between may have added members
    previous = c.leader_epoch - 1
    views = [lr.isr for lead, lr in enumerate(s.replicas)
             if lr.alive and lr.leader == lead and lr.leader_epoch == previous]
    views += [isr for b, e, leader, isr in s.leader_and_isr if leader in (b, NO_LEADER) and e == previous]
    return all(set(c.isr) <= set(view) | {c.leader} for view in views)


def _isr_grows_only_under_its_leader_z3(d, s):
    out = []
    new_leader_waiting = _never_took_z3(d, s, s.c_leader, s.c_epoch)

    def older(e):
        return e + 1 == s.c_epoch

    views = [(z3.And(lr.alive, lr.leader == lead, older(lr.lep)), lr.isr) for lead, lr in enumerate(s.reps)]
    views += [(z3.And(s.lai[b][e], z3.Or(s.lai_leader[b][e] == b, s.lai_leader[b][e] == -1), older(num.val(e))),
               s.lai_isr[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    for present, isr in views:
        within = z3.And([z3.Implies(s.c_isr[b], z3.Or(isr[b], s.c_leader == b)) for b in range(d.n)])
        out.append(z3.Implies(z3.And(new_leader_waiting, present), within))
    return z3.And(out)


def _next_leader_from_isr(s) -> bool:
    claims = _epoch_claims(s)
    # a running leader's ISR, the ISR a request will hand its target as leader, and the ISR of a
    # leaderless epoch (the next leader is a member that restarts)
    views = [(lr.leader_epoch, lr.isr) for lead, lr in enumerate(s.replicas) if lr.alive and lr.leader == lead]
    views += [(e, isr) for b, e, leader, isr in s.leader_and_isr if leader in (b, NO_LEADER)]
    if s.controller.leader == NO_LEADER:
        views.append((s.controller.leader_epoch, s.controller.isr))
    if any(e == epoch + 1 and m >= 0 and m not in isr for epoch, isr in views for e, m in claims):
        return False
    # and so is the ISR a request of the next epoch carries (the controller only removes members),
    # while that epoch's leader has not taken it (then it may add members, and a restart request
    # carries them)
    return all(set(next_isr) <= set(isr) for epoch, isr in views
               for _, e, leader, next_isr in s.leader_and_isr if e == epoch + 1 and _never_took(s, leader, e))


def _next_leader_from_isr_z3(d, s):
    claims = [(s.lai[b][e], e, s.lai_leader[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    claims += [(z3.And(r.alive, r.lep >= 0), r.lep, r.leader) for r in s.reps]
    claims.append((True, s.c_epoch, s.c_leader))
    views = [(z3.And(lr.alive, lr.leader == lead), lr.lep, lr.isr) for lead, lr in enumerate(s.reps)]
    views += [(z3.And(s.lai[b][e], z3.Or(s.lai_leader[b][e] == b, s.lai_leader[b][e] == -1)), num.val(e),
               s.lai_isr[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    views.append((s.c_leader == -1, s.c_epoch, s.c_isr))
    out = []
    for leads, epoch, isr in views:
        for present, e, m in claims:
            in_isr = z3.Or([z3.And(m == j, isr[j]) for j in range(d.n)])
            out.append(z3.Implies(z3.And(leads, present, e == epoch + 1, m >= 0), in_isr))
        for b in range(d.n):
            for e in range(len(s.lai[b])):
                within = z3.And([z3.Implies(s.lai_isr[b][e][j], isr[j]) for j in range(d.n)])
                not_taken = _never_took_z3(d, s, s.lai_leader[b][e], e)
                out.append(z3.Implies(z3.And(leads, s.lai[b][e], epoch + 1 == e, not_taken), within))
    return z3.And(out)


def _later_leaders_hold_hw(s) -> bool:
    claims = _epoch_claims(s)
    for b, r in enumerate(s.replicas):
        if r.leader_epoch >= 0:
            after = r.leader_epoch + 1
        elif r.alive:  # restarted: it crashed no later than the oldest epoch on its way to it
            after = min(e for q, e, _, _ in s.leader_and_isr if q == b) if any(
                q == b for q, _, _, _ in s.leader_and_isr) else s.controller.leader_epoch + 1
        else:
            continue
        hw = r.high_watermark
        for e, m in claims:
            if m >= 0 and e >= after and _kept_log_since(s, m, e) \
                    and not _holds_below(s.replicas[m], r, hw):
                return False
    return True


def _later_leaders_hold_hw_z3(d, s):
    out = []
    claims = [(s.lai[b][e], num.val(e), s.lai_leader[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    claims += [(z3.And(x.alive, x.lep >= 0), x.lep, x.leader) for x in s.reps]
    claims.append((True, s.c_epoch, s.c_leader))
    for b, r in enumerate(s.reps):
        oldest_pending = s.c_epoch + 1
        for e in range(len(s.lai[b]) - 1, -1, -1):
            oldest_pending = ite(s.lai[b][e], num.val(e), oldest_pending)
        after = ite(r.lep >= 0, r.lep + 1, oldest_pending)
        for m, mr in enumerate(s.reps):
            later = z3.Or([z3.And(present, leader == m, e >= after, _kept_log_since_z3(d, s, m, e))
                           for present, e, leader in claims])
            prefix = _holds_below_z3(d, mr, r, r.hw)
            out.append(z3.Implies(z3.And(z3.Or(r.lep >= 0, r.alive), later), prefix))
    return z3.And(out)


def _epoch_offset_names_one_record(s) -> bool:
    named = {}
    return all(named.setdefault((off, ep), rid) == rid for off, rid, ep in _slots(s))


def _epoch_offset_names_one_record_z3(d, s):
    out = []
    for i in range(d.slots):
        at = []  # (present, id, epoch) of every log and fetch response slot at offset i
        for r in s.reps:
            at.append((i < r.leo, r.log_id[i], r.log_ep[i]))
            at.append((z3.And(r.fr, i >= r.fr_offset, i < r.fr_leo), r.fr_id[i], r.fr_ep[i]))
        for a in range(len(at)):
            for b in range(a + 1, len(at)):
                pa, ia, ea = at[a]
                pb, ib, eb = at[b]
                out.append(z3.Implies(z3.And(pa, pb, ea == eb), ia == ib))
    return z3.And(out)


def _logs_and_fetched(s) -> list:
    """Every replica's log, and for each fetch response the log its follower would have after it."""
    logs = [r.log for r in s.replicas]
    for r in s.replicas:
        if r.fetch_response and r.fetch_response[2] <= len(r.log):
            logs.append(r.log[:r.fetch_response[2]] + r.fetch_response[3])
    return logs


def _epoch_anchors_prefix(s) -> bool:
    logs = _logs_and_fetched(s)
    for a in logs:
        for b in logs:
            for off, (_, epoch) in enumerate(a):
                for off2 in range(min(off + 1, len(b))):
                    if b[off2][1] == epoch and a[:off2 + 1] != b[:off2 + 1]:
                        return False
    return True


def _epoch_anchors_prefix_z3(d, s):
    logs = [[(i < r.leo, r.log_id[i], r.log_ep[i]) for i in range(d.slots)] for r in s.reps]
    for r in s.reps:
        ok = z3.And(r.fr, r.fr_offset <= r.fr_leo, r.fr_offset <= r.leo)
        logs.append([(z3.And(ok, i < r.fr_leo), ite(i < r.fr_offset, r.log_id[i], r.fr_id[i]),
                      ite(i < r.fr_offset, r.log_ep[i], r.fr_ep[i])) for i in range(d.slots)])
    out = []
    for a in logs:
        for b in logs:
            if a is b:
                continue
            for off in range(d.slots):
                for off2 in range(off + 1):
                    anchor = z3.And(a[off][0], b[off2][0], a[off][2] == b[off2][2])
                    same = z3.And([z3.And(a[i][1] == b[i][1], a[i][2] == b[i][2]) for i in range(off2 + 1)])
                    out.append(z3.Implies(anchor, same))
    return z3.And(out)


def _truncated_against_a_leader(s) -> bool:
    for f, r in enumerate(s.replicas):
        lead = r.leader
        if r.alive and r.leader_epoch >= 0 and lead >= 0 and lead != f and not r.truncating and r.log:
            if _never_took(s, lead, r.leader_epoch):
                return False
    return True


def _truncated_against_a_leader_z3(d, s):
    return z3.And([z3.Implies(z3.And(r.alive, r.lep >= 0, r.leader >= 0, r.leader != f, z3.Not(r.truncating),
                                     r.leo > 0), z3.Not(_never_took_z3(d, s, r.leader, r.lep)))
                   for f, r in enumerate(s.reps)])


def _added_members_caught_up(s) -> bool:
    leaders = [(b, r) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    for lead, lr in leaders:
        e = lr.leader_epoch
        for _, zr in leaders:
            if zr.leader_epoch != e - 1:
                continue
            for f in lr.isr:
                if f == lead or f in zr.isr or not _follower_kept_log_since(s, f, lead, e):
                    continue
                log = s.replicas[f].log
                for i, record in enumerate(lr.log):
                    if record[1] < e and (i >= len(log) or log[i] != record):
                        return False
    return True


def _added_members_caught_up_z3(d, s):
    out = []
    for lead, lr in enumerate(s.reps):
        for z, zr in enumerate(s.reps):
            if z == lead:
                continue
            both = z3.And(lr.alive, lr.leader == lead, zr.alive, zr.leader == z, zr.lep + 1 == lr.lep)
            for f, fr in enumerate(s.reps):
                if f == lead:
                    continue
                added = z3.And(both, lr.isr[f], z3.Not(zr.isr[f]), _follower_kept_log_since_z3(d, s, f, lead, lr.lep))
                held = [z3.Implies(z3.And(i < lr.leo, lr.log_ep[i] < lr.lep),
                                   z3.And(i < fr.leo, fr.log_id[i] == lr.log_id[i], fr.log_ep[i] == lr.log_ep[i]))
                        for i in range(d.slots)]
                out.append(z3.Implies(added, z3.And(held)))
    return z3.And(out)


STRENGTHENINGS = {
    st.name: st
    for st in [
        Strengthening("dead-replica-reset", "a crashed broker has no role, epoch, ISR, truncation "
                      "or fetch response", _dead_replica_reset, _dead_replica_reset_z3),
        Strengthening("epochs-le-controller", "no broker and no LeaderAndIsr request is in an "
                      "epoch newer than the controller's", _epochs_le_controller,
                      _epochs_le_controller_z3),
        Strengthening("requests-to-live-brokers", "every LeaderAndIsr request in flight goes to a "
                      "live broker in an older epoch", _requests_to_live_brokers,
                      _requests_to_live_brokers_z3),
        Strengthening("record-ids-written", "every record id in a log, a fetch response, an ack "
                      "or a pending ack was written by the producer", _record_ids_written, _record_ids_written_z3),
        Strengthening("record-identity", "a record id has one offset and one epoch in every log, "
                      "fetch response and ack that holds it", _record_identity, _record_identity_z3),
        Strengthening("log-epochs-le-controller", "no record carries an epoch newer than the "
                      "controller's", _log_epochs_le_controller, _log_epochs_le_controller_z3),
        Strengthening("leader-not-fetching", "a broker that believes it leads has no fetch "
                      "response in flight and is not truncating", _leader_not_fetching,
                      _leader_not_fetching_z3),
        Strengthening("requests-lead-their-isr", "every LeaderAndIsr request names a leader in its "
                      "ISR (or no leader)", _requests_lead_their_isr, _requests_lead_their_isr_z3),
        Strengthening("log-epochs-monotonic", "epochs never decrease along a log",
                      _log_epochs_monotonic, _log_epochs_monotonic_z3),
        Strengthening("one-leader-per-epoch", "no two live brokers lead in the same epoch, and a "
                      "broker leading in the controller's epoch is the controller's leader",
                      _one_leader_per_epoch, _one_leader_per_epoch_z3),
        Strengthening("acked-in-isr", "every acked record is in the log of every member of the "
                      "controller's ISR, at the offset it was acked at", _acked_in_isr, _acked_in_isr_z3),
        Strengthening("restarted-replica-reset", "a broker that has applied no LeaderAndIsr since "
                      "it restarted follows nobody and holds no ISR, remote LEO, truncation or fetch",
                      _restarted_replica_reset, _restarted_replica_reset_z3),
        Strengthening("live-brokers-registered", "every running broker, and the controller's "
                      "leader, is in the controller's live set", _live_brokers_registered,
                      _live_brokers_registered_z3),
        Strengthening("epoch-names-one-leader", "every LeaderAndIsr request, live broker and the "
                      "controller holding the same epoch name the same leader, and no record carries "
                      "an epoch they name no leader for",
                      _epoch_names_one_leader, _epoch_names_one_leader_z3),
        Strengthening("followers-keep-no-leader-state", "a broker that does not lead has no ISR "
                      "and no remote LEOs; no broker keeps a remote LEO for itself",
                      _followers_keep_no_leader_state, _followers_keep_no_leader_state_z3),
        Strengthening("leader-isr-is-controller-isr", "a broker leading in the controller's epoch, "
                      "a request making it leader in it, and any request of that epoch whose leader has "
                      "not taken it, carry the controller's ISR", _leader_isr_is_controller_isr,
                      _leader_isr_is_controller_isr_z3),
        Strengthening("fetch-response-current", "a fetch response in flight answers the "
                      "follower's current leader, epoch and log end offset, from a leader that took "
                      "that epoch (and may have moved on or crashed since)",
                      _fetch_response_current, _fetch_response_current_z3),
        Strengthening("fetch-response-from-leader-log", "while its leader still leads in its "
                      "epoch, it knows the fetch offset (or forgot it in a restart), and until it may "
                      "have truncated its log holds the response's records at their offsets and its HW "
                      "and LEO are no lower than the response's", _fetch_response_from_leader_log,
                      _fetch_response_from_leader_log_z3),
        Strengthening("remote-leo-is-follower-prefix", "a leader knows a follower's LEO only from "
                      "a fetch in its epoch: it is at most the leader's LEO, the follower is in that epoch, a later one, or "
                      "restarted, no request of an older epoch is on its way to it, and while it "
                      "stays in that epoch (or restarted in it), leads, or still follows this leader, "
                      "its log starts with the leader's first that-many records", _remote_leo_is_follower_prefix,
                      _remote_leo_is_follower_prefix_z3),
        Strengthening("isr-remote-ge-hw", "a leader's HW is at most the known LEO of each ISR "
                      "follower", _isr_remote_ge_hw, _isr_remote_ge_hw_z3),
        Strengthening("pending-acks-on-leader", "a parked acks=all request waits on a broker that "
                      "leads, holds the record at its offset and has not passed it with its HW",
                      _pending_acks_on_leader, _pending_acks_on_leader_z3),
        Strengthening("hw-prefix-of-true-leader", "every replica's records below its own HW are "
                      "the true leader's (committed records are never lost)", _hw_prefix_of_true_leader,
                      _hw_prefix_of_true_leader_z3),
        Strengthening("acked-below-writer-hw", "a broker's HW is above every acked record it holds "
                      "of an epoch it leads in, is named leader of by a request in flight, or by the "
                      "controller", _acked_below_writer_hw, _acked_below_writer_hw_z3),
        Strengthening("controller-isr-nonempty", "the controller's ISR always has a member (its "
                      "last member stays when it fails)", _controller_isr_nonempty, _controller_isr_nonempty_z3),
        Strengthening("isr-followers-hold-hw", "each member of a leader's ISR (or of the ISR a request "
                      "will give it) that cannot have truncated since that epoch holds the leader's records below the leader's HW",
                      _isr_followers_hold_hw, _isr_followers_hold_hw_z3),
        Strengthening("follower-log-is-leader-prefix", "a follower done truncating holds a "
                      "prefix of its leader's log while the leader cannot have truncated since",
                      _follower_log_is_leader_prefix, _follower_log_is_leader_prefix_z3),
        Strengthening("fetch-response-epochs", "a fetch response's records carry epochs no newer "
                      "than the fetch's, in order, and not older than the follower's last record",
                      _fetch_response_epochs, _fetch_response_epochs_z3),
        Strengthening("log-epochs-le-own-epoch", "a running broker that has applied an epoch holds "
                      "no record of a later one, nor does a broker a LeaderAndIsr request older than "
                      "it is on its way to", _log_epochs_le_own_epoch, _log_epochs_le_own_epoch_z3),
        Strengthening("crashes-counted", "no more brokers are down or waiting after a restart "
                      "than crashes have happened", _crashes_counted, _crashes_counted_z3),
        Strengthening("first-epoch-leader", "epoch 0 names broker 0, the leader the topic was "
                      "created with", _first_epoch_leader, _first_epoch_leader_z3),
        Strengthening("fetch-offsets-in-range", "no fetch response is OFFSET_OUT_OF_RANGE (holds "
                      "when fetches are fenced and logs survive crashes)", _fetch_offsets_in_range,
                      _fetch_offsets_in_range_z3),
        Strengthening("isr-holds-every-hw", "every member of the controller's ISR holds "
                      "every broker's records below that broker's HW (committed records are on the ISR)",
                      _isr_holds_every_hw, _isr_holds_every_hw_z3),
        Strengthening("epoch-leader-holds-its-records", "every record of an epoch, in any log or "
                      "fetch response, is in the log of the broker that leads that epoch (or is named "
                      "its leader by a request or the controller), at its offset: only the epoch's "
                      "leader writes in it", _epoch_leader_holds_its_records,
                      _epoch_leader_holds_its_records_z3),
        Strengthening("offline-isr-restarted", "while the partition has no leader, no ISR member is "
                      "live to the controller (unless the epoch budget is spent) and every running "
                      "ISR member has restarted since (it waits, or applied the leaderless epoch) and "
                      "has no request of an older epoch on its way; the same holds for the ISR of "
                      "every leaderless request in flight",
                      _offline_isr_restarted, _offline_isr_restarted_z3, uses_config=True),
        Strengthening("leader-holds-followers-hw", "the broker a follower follows holds the "
                      "follower's records below the follower's HW", _leader_holds_followers_hw,
                      _leader_holds_followers_hw_z3),
        Strengthening("leaders-hold-older-acked", "with min.insync.replicas = replication.factor, a "
                      "broker leading an epoch (or named its leader by a request or the controller) "
                      "holds every acked record of an older epoch (with fewer, a record acked later by "
                      "another leader need not reach it)", _leaders_hold_older_acked,
                      _leaders_hold_older_acked_z3, uses_config=True),
        Strengthening("current-epoch-on-its-way", "every running broker behind the controller's "
                      "epoch has a LeaderAndIsr request of that epoch on its way, and of every epoch "
                      "after its own (the controller sends each new epoch to every live broker)", _current_epoch_on_its_way,
                      _current_epoch_on_its_way_z3),
        Strengthening("fetch-hw-committed", "the records a fetch response's HW covers (the "
                      "follower's log to the fetch offset, then the response's records) are in the "
                      "sender's log and on every member of the controller's ISR", _fetch_hw_committed,
                      _fetch_hw_committed_z3),
        Strengthening("isr-grows-only-under-its-leader", "until the controller's leader takes "
                      "the new epoch, the controller's ISR is within the ISR of the previous epoch's "
                      "leader (running, or on its way to it) plus the new leader: only a leader in its "
                      "current epoch adds members", _isr_grows_only_under_its_leader,
                      _isr_grows_only_under_its_leader_z3),
        Strengthening("next-leader-from-isr", "the leader named for the epoch after a running "
                      "leader's (or after a request making its target leader, or a leaderless epoch) is "
                      "in that ISR, and so is "
                      "every next-epoch request's ISR until its leader takes that epoch: clean elections "
                      "pick from the ISR, the controller only removes members, and a leader's ISR is the "
                      "controller's while it leads", _next_leader_from_isr,
                      _next_leader_from_isr_z3),
        Strengthening("later-leaders-hold-hw", "a broker named leader of an epoch later than another "
                      "broker's holds that broker's records below its HW, unless it may have "
                      "truncated since",
                      _later_leaders_hold_hw, _later_leaders_hold_hw_z3),
        Strengthening("epoch-offset-names-one-record", "an (offset, epoch) pair names one record "
                      "in every log and fetch response: an epoch's leader writes each offset once and "
                      "never truncates", _epoch_offset_names_one_record, _epoch_offset_names_one_record_z3),
        Strengthening("epoch-anchors-prefix", "if a log holds a record of epoch e at an offset and "
                      "another log (or a follower's log with its fetch response) holds one of epoch e at "
                      "the same or a lower offset, both logs agree up to that lower offset: an epoch's "
                      "leader appends after the prefix it was elected with", _epoch_anchors_prefix,
                      _epoch_anchors_prefix_z3),
        Strengthening("truncated-against-a-leader", "a follower with records that is done "
                      "truncating follows a leader that has taken its epoch (a non-empty log starts "
                      "out truncating, and OffsetsForLeaderEpoch is fenced)", _truncated_against_a_leader,
                      _truncated_against_a_leader_z3),
        Strengthening("added-members-caught-up", "a member a leader added to its ISR (one not in "
                      "the previous epoch's running leader's ISR) holds the leader's records from before "
                      "its epoch (KAFKA-7128: it caught up to the epoch's start offset)",
                      _added_members_caught_up, _added_members_caught_up_z3),
    ]
}


# The order `kmc list` shows them in: who is alive and in which epoch; LeaderAndIsr requests; the
# records in logs; fetches and remote LEOs; the ISR and the HW; acknowledgements.
_ORDER = [
    # brokers, epochs, the controller
    "dead-replica-reset", "restarted-replica-reset", "crashes-counted", "live-brokers-registered",
    "epochs-le-controller", "one-leader-per-epoch", "epoch-names-one-leader", "first-epoch-leader",
    "followers-keep-no-leader-state", "leader-not-fetching",
    # LeaderAndIsr requests
    "requests-to-live-brokers", "requests-lead-their-isr", "current-epoch-on-its-way",
    "offline-isr-restarted",
    # records and logs
    "record-ids-written", "record-identity", "epoch-offset-names-one-record", "log-epochs-monotonic",
    "log-epochs-le-controller", "log-epochs-le-own-epoch", "epoch-leader-holds-its-records",
    "epoch-anchors-prefix", "follower-log-is-leader-prefix", "truncated-against-a-leader",
    # fetches and remote LEOs
    "fetch-response-current", "fetch-offsets-in-range", "fetch-response-epochs",
    "fetch-response-from-leader-log", "fetch-hw-committed", "remote-leo-is-follower-prefix",
    # the ISR and the HW
    "controller-isr-nonempty", "leader-isr-is-controller-isr", "isr-grows-only-under-its-leader",
    "next-leader-from-isr", "added-members-caught-up", "isr-remote-ge-hw", "isr-followers-hold-hw",
    "isr-holds-every-hw", "hw-prefix-of-true-leader", "leader-holds-followers-hw", "later-leaders-hold-hw",
    # acknowledgements
    "pending-acks-on-leader", "acked-in-isr", "acked-below-writer-hw", "leaders-hold-older-acked",
]
assert sorted(_ORDER) == sorted(STRENGTHENINGS), set(_ORDER) ^ set(STRENGTHENINGS)
STRENGTHENINGS = {name: STRENGTHENINGS[name] for name in _ORDER}


def formula_of(name: str):
    """The z3 formula of a strengthening invariant or a built-in property, or None."""
    if name in STRENGTHENINGS:
        return STRENGTHENINGS[name].formula
    return FORMULAS.get(name)


def check_of(name: str, config):
    """The Python predicate (of a state) of a strengthening invariant or a built-in property."""
    if name in STRENGTHENINGS:
        st = STRENGTHENINGS[name]
        return lambda state: st.holds(state, config)
    from properties import get_properties

    return get_properties([name])[0].check


def library_names() -> list:
    return list(STRENGTHENINGS) + list(FORMULAS)


# ``monotonic-visibility`` speaks of the consumer-visible history, which no library invariant ties to
# the logs tightly enough for induction, so ``--strengthen all`` leaves it out. (A candidate, "every
# member of the controller's ISR holds the visible records", holds on every reachable state but is
# not inductive with the rest: a stale leader of an older epoch lacks records made visible later.)
NOT_IN_ALL = ("monotonic-visibility",)


def all_names() -> list:
    """What ``--strengthen all`` means: the library and every built-in property but ``NOT_IN_ALL``."""
    return [n for n in library_names() if n not in NOT_IN_ALL]
