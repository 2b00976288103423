"""Strengthening invariants for k-induction: facts every reachable state satisfies that the
target property alone does not say, so that a state satisfying them all cannot step out of the
property.

Each has a Python predicate over a ``ClusterState`` (the tests check it holds on every state the
explicit BFS reaches for small configurations: a strengthening invariant that is not itself an
invariant would make a proof unsound) and a z3 formula over an ``SState`` (checked to agree with
the predicate). The built-in properties can strengthen too (``--strengthen hw-le-leo``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3

from checker.symbolic.formulas import FORMULAS
from checker.symbolic.state import sel
from model.constants import NO_LEADER


@dataclass(frozen=True)
class Strengthening:
    name: str
    description: str
    check: Callable  # ClusterState -> bool
    formula: Callable  # (Dims, SState) -> z3 Bool


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
    out = []
    for b in range(d.n):
        r = s.reps[b]
        held = [z3.Implies(s.acked[k], z3.And(s.acked_off[k] < r.leo,
                                              sel(r.log_id, s.acked_off[k], -1) == k + 1))
                for k in range(d.records)]
        out.append(z3.Implies(s.c_isr[b], z3.And(held)))
    return z3.And(out)


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
    ]
}


def formula_of(name: str):
    """The z3 formula of a strengthening invariant or a built-in property, or None."""
    if name in STRENGTHENINGS:
        return STRENGTHENINGS[name].formula
    return FORMULAS.get(name)


def check_of(name: str):
    """The Python predicate of a strengthening invariant or a built-in property."""
    if name in STRENGTHENINGS:
        return STRENGTHENINGS[name].check
    from properties import get_properties

    return get_properties([name])[0].check


def library_names() -> list:
    return list(STRENGTHENINGS) + list(FORMULAS)
