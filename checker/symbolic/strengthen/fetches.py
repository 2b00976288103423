"""Strengthening invariants about fetches and remote LEOs.

What a leader learns from a fetch (the follower's fetch offset becomes its remote LEO:
``Partition.updateFollowerFetchState``) and what the response carries (the leader's records from
that offset, its HW and LEO) stay true while the leader keeps its epoch: within an epoch a
leader's log only grows (KIP-320 fences every fetch and OffsetsForLeaderEpoch by epoch)."""

from __future__ import annotations

import z3

from checker.symbolic.state import count, ite
from checker.symbolic.strengthen.base import Strengthening, holds_below_z3
from checker.symbolic.strengthen.history import (
    epoch_claims, epoch_claims_z3, follower_kept_log_since, follower_kept_log_since_z3,
    kept_log_since, kept_log_since_z3, leads_in,
)


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


def _fetch_response_from_leader_log(s, kept=kept_log_since, hw_bound=True) -> bool:
    """``hw_bound`` False: without "the sender's HW is no lower than the response's", false when a
    crash moves the sender's HW back to its checkpoint file's (``--hw-checkpoint interval``);
    ``"leading"``: that clause only while the response's epoch is the controller's and the
    sender, running, leads it or has taken no epoch since it started (with KIP-380's broker
    epochs the controller handles a leader's restart with a new leader epoch, so such a sender
    has not restarted since it sent the response, and its HW has only grown)."""
    for f, r in enumerate(s.replicas):
        if not r.fetch_response:
            continue
        lead, epoch, offset, records, hw, leo = r.fetch_response
        if lead == f:
            continue  # fetch-response-current rules that out
        lr = s.replicas[lead]
        if kept(s, lead, epoch):
            # the sender has not truncated since it served the fetch: its log still holds what it
            # sent, and its HW has only grown
            hw_clause = hw_bound is True or (
                hw_bound == "leading" and epoch == s.controller.leader_epoch and lr.alive
                and (leads_in(lr, lead, epoch) or lr.leader_epoch == -1))
            if (leo > len(lr.log) or lr.log[offset:leo] != records
                    or (hw_clause and hw > lr.high_watermark)):
                return False
        if leads_in(lr, lead, epoch) and offset <= leo and lr.remote_log_end_offsets[f] not in (offset, -1):
            return False
    return True


def _fetch_response_from_leader_log_z3(d, s, kept=kept_log_since_z3, hw_bound=True):
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
            leading = z3.And(lr.alive, lr.leader == lead, lr.lep == r.fr_epoch)
            hw_le = r.fr_hw <= lr.hw
            current = z3.And(r.fr_epoch == s.c_epoch, lr.alive, z3.Or(leading, lr.lep == -1))
            bounds = [r.fr_leo <= lr.leo] + ([hw_le] if hw_bound is True else
                                             [z3.Implies(current, hw_le)] if hw_bound == "leading" else [])
            out.append(z3.Implies(z3.And(sent, kept(d, s, lead, r.fr_epoch)), z3.And(bounds + same)))
            in_epoch = z3.And(sent, leading, r.fr_offset <= r.fr_leo)
            out.append(z3.Implies(in_epoch, z3.Or(lr.remote[f] == r.fr_offset, lr.remote[f] == -1)))
    return z3.And(out)


def _remote_leo_is_follower_prefix(s, config, follower_kept=follower_kept_log_since) -> bool:
    if "reset-followers-on-epoch" not in config.rules:
        return True  # kmc 0.1's rule's fact, false under Kafka's (remote_leos.py, issue 29k)
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
            if follower_kept(s, f, lead, lr.leader_epoch):
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


def _remote_leo_is_follower_prefix_z3(d, s, follower_kept=follower_kept_log_since_z3):
    if d.keeps_remote:
        return z3.BoolVal(True)  # Kafka's rule: kept-remote-leo-is-follower-prefix instead
    out = []
    for lead, lr in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            x = lr.remote[f]
            prefix = holds_below_z3(d, fr, lr, x)  # with x <= the leader's LEO, below
            whole = holds_below_z3(d, lr, fr, fr.leo)
            kept = follower_kept(d, s, f, lead, lr.lep)
            restarted_in_epoch = z3.And(fr.lep == -1, z3.Or([s.c_epoch == lr.lep] + [
                z3.And(s.lai[f][e], lr.lep == e) for e in range(len(s.lai[f]))]))
            body = z3.And([x <= lr.leo, z3.Or(fr.lep == -1, fr.lep >= lr.lep),
                           z3.Implies(kept, prefix),
                           z3.Implies(z3.Or(fr.lep == lr.lep, restarted_in_epoch), whole)]
                          + [z3.Implies(s.lai[f][e], lr.lep <= e) for e in range(len(s.lai[f]))])
            out.append(z3.Implies(z3.And(lr.alive, lr.leader == lead, x >= 0), body))
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


def _fetch_offsets_in_range(s) -> bool:
    return all(r.fetch_response[2] <= r.fetch_response[5] for r in s.replicas if r.fetch_response)


def _fetch_offsets_in_range_z3(d, s):
    return z3.And([z3.Implies(r.fr, r.fr_offset <= r.fr_leo) for r in s.reps])


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



def _fetch_hw_slots(r):
    """(offset, (record id, epoch)) of each record a fetch response's HW covers on its follower
    that the state holds: the follower's log below the fetch offset, then the response's records,
    below ``min(HW, leader LEO)``. (A follower's log shorter than the fetch offset, which
    ``fetch-response-current`` rules out, leaves a gap: the slots there are not read.)"""
    _, _, offset, records, hw, leo = r.fetch_response
    if offset > leo:
        return []
    return [(i, r.log[i] if i < offset else records[i - offset])
            for i in range(min(hw, leo)) if i >= offset or i < len(r.log)]


def _fetch_hw_slot_z3(r, i: int):
    """``_fetch_hw_slots`` as z3 terms, slot ``i``: (covered, record id, epoch)."""
    below = ite(i < r.fr_offset, i < r.leo, True)
    covered = z3.And(r.fr, r.fr_offset <= r.fr_leo, i < r.fr_hw, i < r.fr_leo, below)
    return (covered, ite(i < r.fr_offset, r.log_id[i], r.fr_id[i]),
            ite(i < r.fr_offset, r.log_ep[i], r.fr_ep[i]))


def _fetch_hw_on_later_isr(s, kept=kept_log_since, several=False) -> bool:
    for g, r in enumerate(s.replicas):
        if not r.fetch_response:
            continue
        covered = _fetch_hw_slots(r)
        for _, e, _, isr in s.leader_and_isr:
            if e <= r.fetch_response[1] or (several and len(isr) < 2):
                continue
            for f in isr:
                log = s.replicas[f].log
                if f != g and kept(s, f, e) and any(
                        i >= len(log) or log[i] != record for i, record in covered):
                    return False
    return True


def _fetch_hw_on_later_isr_z3(d, s, kept=kept_log_since_z3, several=False):
    # (request present, its epoch, member f, f cannot have truncated since), built once
    members = [(z3.And(s.lai[b][e], s.lai_isr[b][e][f], kept(d, s, f, e),
                       count(s.lai_isr[b][e]) > 1 if several else z3.BoolVal(True)), e, f)
               for b in range(d.n) for e in range(len(s.lai[b])) for f in range(d.n)]
    out = []
    for g, r in enumerate(s.reps):
        for i in range(d.slots):
            covered, rid, ep = _fetch_hw_slot_z3(r, i)
            for member, e, f in members:
                if f == g:
                    continue
                fr = s.reps[f]
                out.append(z3.Implies(z3.And(covered, r.fr_epoch < e, member),
                                      z3.And(i < fr.leo, fr.log_id[i] == rid, fr.log_ep[i] == ep)))
    return z3.And(out)


def _fetch_hw_on_later_leaders(s) -> bool:
    """The records a fetch response's HW covers are, at their offsets, in the log of every broker
    a request, a live broker or the controller names leader of a later epoch (the follower
    itself aside)."""
    for g, r in enumerate(s.replicas):
        if not r.fetch_response:
            continue
        covered = _fetch_hw_slots(r)
        for e, leader in epoch_claims(s):
            if e <= r.fetch_response[1] or leader < 0 or leader == g:
                continue
            log = s.replicas[leader].log
            if any(i >= len(log) or log[i] != record for i, record in covered):
                return False
    return True


def _fetch_hw_on_later_leaders_z3(d, s):
    claims = epoch_claims_z3(d, s)
    out = []
    for g, r in enumerate(s.reps):
        for i in range(d.slots):
            covered, rid, ep = _fetch_hw_slot_z3(r, i)
            for present, e, leader in claims:
                later = z3.And(covered, present, r.fr_epoch < e)
                for b, br in enumerate(s.reps):
                    if b == g:
                        continue
                    out.append(z3.Implies(z3.And(later, leader == b),
                                          z3.And(i < br.leo, br.log_id[i] == rid, br.log_ep[i] == ep)))
    return z3.And(out)

# in the order `kmc list` shows them
STRENGTHENINGS = (
    Strengthening("fetch-response-current", "a fetch response in flight answers the "
                  "follower's current leader, epoch and log end offset, from a leader that took "
                  "that epoch (and may have moved on or crashed since)",
                  _fetch_response_current, _fetch_response_current_z3),
    Strengthening("fetch-offsets-in-range", "no fetch response is OFFSET_OUT_OF_RANGE (holds "
                  "when fetches are fenced and logs survive crashes)", _fetch_offsets_in_range,
                  _fetch_offsets_in_range_z3),
    Strengthening("fetch-response-epochs", "a fetch response's records carry epochs no newer "
                  "than the fetch's, in order, and not older than the follower's last record",
                  _fetch_response_epochs, _fetch_response_epochs_z3),
    Strengthening("fetch-response-from-leader-log", "while its leader still leads in its "
                  "epoch, it knows the fetch offset (or forgot it in a restart), and until it may "
                  "have truncated its log holds the response's records at their offsets and its HW "
                  "and LEO are no lower than the response's", _fetch_response_from_leader_log,
                  _fetch_response_from_leader_log_z3),
    Strengthening("fetch-hw-committed", "the records a fetch response's HW covers (the "
                  "follower's log to the fetch offset, then the response's records) are in the "
                  "sender's log and on every member of the controller's ISR", _fetch_hw_committed,
                  _fetch_hw_committed_z3),
    Strengthening("fetch-hw-on-later-isr", "the records a fetch response's HW covers are on "
                  "every member of the ISR of a LeaderAndIsr request of a later epoch in flight "
                  "that cannot have truncated since that epoch: they were committed before the "
                  "controller made that epoch, whose ISR it took from the members that held them "
                  "(the response's sender, in an older epoch, cannot change the ISR since)",
                  _fetch_hw_on_later_isr, _fetch_hw_on_later_isr_z3),
    Strengthening("remote-leo-is-follower-prefix", "a leader knows a follower's LEO only from "
                  "a fetch in its epoch: it is at most the leader's LEO, the follower is in that epoch, a later one, or "
                  "restarted, no request of an older epoch is on its way to it, and while it "
                  "stays in that epoch (or restarted in it), leads, or still follows this leader, "
                  "its log starts with the leader's first that-many records (kmc 0.1's "
                  "reset-followers-on-epoch only)", _remote_leo_is_follower_prefix,
                  _remote_leo_is_follower_prefix_z3, uses_config=True),
    Strengthening("fetch-hw-on-later-leaders", "the records a fetch response's HW covers are, at "
                  "their offsets, in the log of every broker named leader of a later epoch (by a "
                  "request, a live broker or the controller; the follower itself aside), whether "
                  "or not it may have truncated since: they were committed before the controller "
                  "made that epoch, it elected a member of the ISR that held them, and a leader "
                  "truncates only as a follower, to where its log leaves the log of a leader of a "
                  "still later epoch, which holds them too", _fetch_hw_on_later_leaders,
                  _fetch_hw_on_later_leaders_z3),
)
