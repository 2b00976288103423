"""Strengthening invariants about records and logs: record ids and epochs, the order of epochs
along a log, and which logs agree with which (an epoch's leader writes each offset once, and a
follower truncates only against a leader that has taken its epoch)."""

from __future__ import annotations

import z3

from checker.symbolic.state import ite
from checker.symbolic.strengthen.base import (
    Strengthening, held_records, held_slots_z3, holds_below_z3,
)
from checker.symbolic.strengthen.history import (
    epoch_claims, epoch_claims_z3, epochs_led, kept_log_since, kept_log_since_z3, leads_epoch_z3,
    never_took, never_took_z3,
)


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


def _record_identity(s) -> bool:
    where = {}
    for off, rid, ep in held_records(s):
        if where.setdefault(rid, (off, ep)) != (off, ep):
            return False
    return all(where.get(rid, (off, None))[0] == off for rid, off in s.acked)


def _record_identity_z3(d, s):
    slots = held_slots_z3(d, s)  # (present, offset, id, epoch)
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
    return all(ep <= s.controller.leader_epoch for _, _, ep in held_records(s))


def _log_epochs_le_controller_z3(d, s):
    out = []
    for r in s.reps:
        for i in range(d.slots):
            out.append(z3.Implies(i < r.leo, r.log_ep[i] <= s.c_epoch))
            out.append(z3.Implies(z3.And(r.fr, i >= r.fr_offset, i < r.fr_leo), r.fr_ep[i] <= s.c_epoch))
    return z3.And(out)


def _log_epochs_monotonic(s) -> bool:
    return all(all(a[1] <= b[1] for a, b in zip(r.log, r.log[1:])) for r in s.replicas)


def _log_epochs_monotonic_z3(d, s):
    return z3.And([z3.Implies(i + 1 < r.leo, r.log_ep[i] <= r.log_ep[i + 1])
                   for r in s.reps for i in range(d.slots - 1)])


def _follower_log_is_leader_prefix(s, kept=kept_log_since) -> bool:
    for f, r in enumerate(s.replicas):
        lead = r.leader
        if not r.alive or r.leader_epoch < 0 or lead < 0 or lead == f or r.truncating:
            continue
        lr = s.replicas[lead]
        if kept(s, lead, r.leader_epoch) and r.log != lr.log[:len(r.log)]:
            return False
    return True


def _follower_log_is_leader_prefix_z3(d, s, kept=kept_log_since_z3):
    out = []
    for f, r in enumerate(s.reps):
        for lead, lr in enumerate(s.reps):
            if lead == f:
                continue
            prefix = holds_below_z3(d, lr, r, r.leo)
            not_past = kept(d, s, lead, r.lep)
            out.append(z3.Implies(z3.And(r.alive, r.lep >= 0, r.leader == lead, z3.Not(r.truncating),
                                         not_past), prefix))
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


def _epoch_leader_holds_its_records(s) -> bool:
    for lead, lr in enumerate(s.replicas):
        epochs = epochs_led(s, lead)
        for off, rid, ep in held_records(s):
            if ep in epochs and (off >= len(lr.log) or lr.log[off] != (rid, ep)):
                return False
    return True


def _epoch_leader_holds_its_records_z3(d, s):
    slots = held_slots_z3(d, s)  # (present, offset, id, epoch)
    out = []
    for lead, lr in enumerate(s.reps):
        for present, i, rid, ep in slots:
            out.append(z3.Implies(z3.And(present, leads_epoch_z3(s, lead, ep)),
                                  z3.And(i < lr.leo, lr.log_id[i] == rid, lr.log_ep[i] == ep)))
    return z3.And(out)


def _epoch_offset_names_one_record(s) -> bool:
    named = {}
    return all(named.setdefault((off, ep), rid) == rid for off, rid, ep in held_records(s))


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
            if never_took(s, lead, r.leader_epoch):
                return False
    return True


def _truncated_against_a_leader_z3(d, s):
    return z3.And([z3.Implies(z3.And(r.alive, r.lep >= 0, r.leader >= 0, r.leader != f, z3.Not(r.truncating),
                                     r.leo > 0), z3.Not(never_took_z3(d, s, r.leader, r.lep)))
                   for f, r in enumerate(s.reps)])



def _named_leader_holds_its_records(s, kept=kept_log_since) -> bool:
    held = list(held_records(s))
    for e, lead in epoch_claims(s):
        if lead < 0 or not kept(s, lead, e):
            continue
        log = s.replicas[lead].log
        if any(ep == e and (off >= len(log) or log[off] != (rid, ep)) for off, rid, ep in held):
            return False
    return True


def _named_leader_holds_its_records_z3(d, s, kept=kept_log_since_z3):
    slots = held_slots_z3(d, s)  # (present, offset, id, epoch)
    out = []
    for present, e, named in epoch_claims_z3(d, s):
        for lead, lr in enumerate(s.reps):
            named_kept = z3.And(present, named == lead, kept(d, s, lead, e))
            for there, i, rid, ep in slots:
                out.append(z3.Implies(z3.And(named_kept, there, ep == e),
                                      z3.And(i < lr.leo, lr.log_id[i] == rid, lr.log_ep[i] == ep)))
    return z3.And(out)


# in the order `kmc list` shows them
STRENGTHENINGS = (
    Strengthening("record-ids-written", "every record id in a log, a fetch response, an ack "
                  "or a pending ack was written by the producer", _record_ids_written, _record_ids_written_z3),
    Strengthening("record-identity", "a record id has one offset and one epoch in every log, "
                  "fetch response and ack that holds it", _record_identity, _record_identity_z3),
    Strengthening("epoch-offset-names-one-record", "an (offset, epoch) pair names one record "
                  "in every log and fetch response: an epoch's leader writes each offset once and "
                  "never truncates", _epoch_offset_names_one_record, _epoch_offset_names_one_record_z3),
    Strengthening("log-epochs-monotonic", "epochs never decrease along a log",
                  _log_epochs_monotonic, _log_epochs_monotonic_z3),
    Strengthening("log-epochs-le-controller", "no record carries an epoch newer than the "
                  "controller's", _log_epochs_le_controller, _log_epochs_le_controller_z3),
    Strengthening("log-epochs-le-own-epoch", "a running broker that has applied an epoch holds "
                  "no record of a later one, nor does a broker a LeaderAndIsr request older than "
                  "it is on its way to", _log_epochs_le_own_epoch, _log_epochs_le_own_epoch_z3),
    Strengthening("epoch-leader-holds-its-records", "every record of an epoch, in any log or "
                  "fetch response, is in the log of the broker that leads that epoch (or is named "
                  "its leader by a request or the controller), at its offset: only the epoch's "
                  "leader writes in it", _epoch_leader_holds_its_records,
                  _epoch_leader_holds_its_records_z3),
    Strengthening("named-leader-holds-its-records", "every record of an epoch, in any log or "
                  "fetch response, is at its offset in the log of the broker any request, live "
                  "broker or the controller names that epoch's leader, unless that broker may have "
                  "truncated since the epoch (only a follower truncates): the leader of an epoch "
                  "wrote its records and, leading, kept them", _named_leader_holds_its_records,
                  _named_leader_holds_its_records_z3),
    Strengthening("epoch-anchors-prefix", "if a log holds a record of epoch e at an offset and "
                  "another log (or a follower's log with its fetch response) holds one of epoch e at "
                  "the same or a lower offset, both logs agree up to that lower offset: an epoch's "
                  "leader appends after the prefix it was elected with", _epoch_anchors_prefix,
                  _epoch_anchors_prefix_z3),
    Strengthening("follower-log-is-leader-prefix", "a follower done truncating holds a "
                  "prefix of its leader's log while the leader cannot have truncated since",
                  _follower_log_is_leader_prefix, _follower_log_is_leader_prefix_z3),
    Strengthening("truncated-against-a-leader", "a follower with records that is done "
                  "truncating follows a leader that has taken its epoch (a non-empty log starts "
                  "out truncating, and OffsetsForLeaderEpoch is fenced)", _truncated_against_a_leader,
                  _truncated_against_a_leader_z3),
)
