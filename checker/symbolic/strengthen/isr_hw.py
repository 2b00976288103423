"""Strengthening invariants about the ISR and the high watermark: how the controller's ISR and a
leader's ISR relate, who may join it, and which replicas hold the records below each HW."""

from __future__ import annotations

import z3

from checker.symbolic import numbers as num
from checker.symbolic.formulas import true_leader_is
from checker.symbolic.state import count, ite
from checker.symbolic.strengthen.base import Strengthening, holds_below, holds_below_z3
from checker.symbolic.strengthen.history import (
    epoch_claims, follower_kept_log_since, follower_kept_log_since_z3, kept_log_since,
    kept_log_since_z3, leads_in, never_took, never_took_z3,
)
from model.constants import ALTER_ACCEPTED, NO_LEADER


def _isr_view(r) -> tuple:
    """A running leader's ISR and, under KIP-497 while an AlterPartition of its is pending, the
    members it proposes: the controller may have written them already (issue 29i). Without
    ``alter-partition`` (no request ever pending) its ISR."""
    if not r.alter_partition:
        return r.isr
    return tuple(sorted(set(r.isr) | set(r.alter_partition[1])))


def _isr_view_z3(d, r) -> list:
    if not d.alter:
        return r.isr
    return [z3.Or(r.isr[j], z3.And(r.alt != 0, r.alt_isr[j])) for j in range(d.n)]


def _committed_view(r) -> tuple:
    """The ISR the controller holds for a running leader's epoch, as far as the leader knows:
    under KIP-497 the one its accepted AlterPartition carries back (the controller wrote it),
    else its ISR (a request on its way to the controller, or stuck, was not written)."""
    a = r.alter_partition
    return a[1] if a and a[0] == ALTER_ACCEPTED else r.isr


def _committed_view_z3(d, r) -> list:
    if not d.alter:
        return r.isr
    return [ite(r.alt == ALTER_ACCEPTED, r.alt_isr[j], r.isr[j]) for j in range(d.n)]


def _answered(r, isr) -> bool:
    """KIP-497: the controller has written ``isr`` for this leader's AlterPartition and the
    answer is on its way (state ALTER_ACCEPTED)."""
    return bool(r.alter_partition) and r.alter_partition[0] == ALTER_ACCEPTED and \
        r.alter_partition[1] == isr


def _answered_z3(d, r, isr):
    if not d.alter:
        return z3.BoolVal(False)
    return z3.And([r.alt == ALTER_ACCEPTED] + [x == y for x, y in zip(r.alt_isr, isr)])


KEEPS = "isr-shrink-keeps-leader-epoch"


def _changed_to(s, b, e, isr) -> bool:
    """KRaft with 3.6's ``isr-shrink-keeps-leader-epoch`` (issue 29m): broker ``b`` has a pending
    change of leader epoch ``e`` carrying ``isr`` (the controller shrank the ISR on a failure
    under the same leader epoch, and the leader has not applied it yet)."""
    c = s.replicas[b].partition_change if 0 <= b < len(s.replicas) else ()
    return bool(c) and c[1] == e and tuple(c[0]) == tuple(isr)


def _changed_to_z3(d, s, b, e, isr):
    if not (d.kraft and d.shrink_keeps):
        return z3.BoolVal(False)
    return z3.Or([z3.And([b == k, r.chg, r.chg_ep == e] + [x == y for x, y in zip(r.chg_isr, isr)])
                  for k, r in enumerate(s.reps)])


def _leader_isr_is_controller_isr(s, config) -> bool:
    c = s.controller
    keeps = KEEPS in config.rules
    return all(r.isr == c.isr or _answered(r, c.isr)
               or keeps and _changed_to(s, b, c.leader_epoch, c.isr) for b, r in enumerate(s.replicas)
               if r.alive and r.leader == b and r.leader_epoch == c.leader_epoch) and all(
        isr == c.isr or keeps and _changed_to(s, leader, e, c.isr)
        for b, e, leader, isr in s.leader_and_isr
        if e == c.leader_epoch and (leader == b or never_took(s, leader, e)))


def _leader_isr_is_controller_isr_z3(d, s):
    out = [z3.Implies(z3.And(r.alive, r.leader == b, r.lep == s.c_epoch),
                      z3.Or(z3.And([x == y for x, y in zip(r.isr, s.c_isr)]),
                            _answered_z3(d, r, s.c_isr), _changed_to_z3(d, s, b, s.c_epoch, s.c_isr)))
           for b, r in enumerate(s.reps)]
    out += [z3.Implies(z3.And(s.lai[b][e], s.c_epoch == e,
                              z3.Or(s.lai_leader[b][e] == b, never_took_z3(d, s, s.lai_leader[b][e], e))),
                       z3.Or(z3.And([x == y for x, y in zip(s.lai_isr[b][e], s.c_isr)]),
                             _changed_to_z3(d, s, s.lai_leader[b][e], e, s.c_isr)))
            for b in range(d.n) for e in range(len(s.lai[b]))]
    return z3.And(out)


def _isr_remote_ge_hw(s) -> bool:
    for lead, lr in enumerate(s.replicas):
        if lr.alive and lr.leader == lead:
            for f in _isr_view(lr):  # KIP-497: the maximal ISR
                x = lr.remote_log_end_offsets[f]
                if f != lead and 0 <= x < lr.high_watermark:
                    return False
    return True


def _isr_remote_ge_hw_z3(d, s):
    return z3.And([z3.Implies(z3.And(lr.alive, lr.leader == lead, _isr_view_z3(d, lr)[f],
                                     lr.remote[f] >= 0),
                              lr.remote[f] >= lr.hw)
                   for lead, lr in enumerate(s.reps) for f in range(d.n) if f != lead])


def _hw_prefix_of_true_leader(s) -> bool:
    c = s.controller
    if c.leader == NO_LEADER or not leads_in(s.replicas[c.leader], c.leader, c.leader_epoch):
        return True
    leader = s.replicas[c.leader]
    return all(holds_below(leader, r, r.high_watermark) for r in s.replicas)


def _hw_prefix_of_true_leader_z3(d, s):
    out = []
    for lead in range(d.n):
        lr = s.reps[lead]
        for b in range(d.n):
            if b == lead:
                continue
            r = s.reps[b]
            out.append(z3.Implies(true_leader_is(s, lead), holds_below_z3(d, lr, r, r.hw)))
    return z3.And(out)


def _controller_isr_nonempty(s, config) -> bool:
    if "eligible-leader-replicas" in config.rules:
        return True  # KIP-966 (issue 29l): the last member leaves too
    return len(s.controller.isr) > 0


def _controller_isr_nonempty_z3(d, s):
    if d.elr:
        return z3.BoolVal(True)
    return z3.Or(s.c_isr)


def _controller_isr_live(s, config, kraft_eligibility: bool = False) -> bool:
    """``kraft_eligibility`` (issue 29bo, controlled.py): on KRaft 3.3 to 4.0 the AlterPartition
    exception does not apply (``epochs_requests._eligibility_closes_the_race``)."""
    from checker.symbolic.strengthen.epochs_requests import _eligibility_closes_the_race

    rules = config.rules
    if not (kraft_eligibility and _eligibility_closes_the_race(rules)) and (
            "isr-expansion-as-own-step" in rules or "alter-partition" in rules):
        return True  # a leader may add a follower that died since it fetched
    c = s.controller
    return len(c.isr) == 1 or set(c.isr) <= set(c.live_brokers)


def _controller_isr_live_z3(d, s, kraft_eligibility: bool = False):
    closed = kraft_eligibility and d.kraft and d.eligibility and not d.elr and not d.expands_dead
    if not closed and (d.expands_dead or d.alter):
        return z3.BoolVal(True)
    several = count(s.c_isr) > 1
    return z3.And([z3.Implies(z3.And(several, s.c_isr[b]), s.c_live[b]) for b in range(d.n)])


def _isr_views(s):
    """(broker, epoch, ISR): each running leader's ISR, and the ISR a LeaderAndIsr request in
    flight will hand its target as leader."""
    views = [(b, r.leader_epoch, _isr_view(r)) for b, r in enumerate(s.replicas)
             if r.alive and r.leader == b]  # (KIP-497: the maximal ISR, which the HW waits for)
    return views + [(b, e, isr) for b, e, leader, isr in s.leader_and_isr if leader == b]


def _isr_followers_hold_hw(s) -> bool:
    for lead, epoch, isr in _isr_views(s):
        lr = s.replicas[lead]
        hw = lr.high_watermark
        for f in isr:
            fr = s.replicas[f]
            not_past = 0 <= fr.leader_epoch <= epoch or follower_kept_log_since(s, f, lead, epoch)
            if f != lead and not_past and not holds_below(fr, lr, hw):
                return False
    return True


def _isr_views_z3(d, s):
    views = [(lead, z3.And(lr.alive, lr.leader == lead), lr.lep, _isr_view_z3(d, lr))
             for lead, lr in enumerate(s.reps)]
    return views + [(b, z3.And(s.lai[b][e], s.lai_leader[b][e] == b), num.val(e), s.lai_isr[b][e])
                    for b in range(d.n) for e in range(len(s.lai[b]))]


def _isr_followers_hold_hw_z3(d, s):
    out = []
    for lead, present, epoch, isr in _isr_views_z3(d, s):
        lr = s.reps[lead]
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            prefix = holds_below_z3(d, fr, lr, lr.hw)
            not_past = z3.Or(z3.And(fr.lep >= 0, fr.lep <= epoch), follower_kept_log_since_z3(d, s, f, lead, epoch))
            out.append(z3.Implies(z3.And(present, isr[f], not_past), prefix))
    return z3.And(out)


def _isr_holds_every_hw(s) -> bool:
    for r in s.replicas:
        hw = r.high_watermark
        if any(not holds_below(s.replicas[b], r, hw) for b in s.controller.isr):
            return False
    return True


def _isr_holds_every_hw_z3(d, s):
    out = []
    for lead, lr in enumerate(s.reps):
        for b, r in enumerate(s.reps):
            if b == lead:
                continue
            out.append(z3.Implies(s.c_isr[b], holds_below_z3(d, r, lr, lr.hw)))
    return z3.And(out)


def _leader_holds_followers_hw(s) -> bool:
    for f, r in enumerate(s.replicas):
        lead = r.leader
        if r.alive and r.leader_epoch >= 0 and lead >= 0 and lead != f:
            hw = r.high_watermark
            if not holds_below(s.replicas[lead], r, hw):
                return False
    return True


def _leader_holds_followers_hw_z3(d, s):
    out = []
    for f, r in enumerate(s.reps):
        for lead, lr in enumerate(s.reps):
            if lead == f:
                continue
            prefix = holds_below_z3(d, lr, r, r.hw)
            out.append(z3.Implies(z3.And(r.alive, r.lep >= 0, r.leader == lead), prefix))
    return z3.And(out)


def _isr_grows_only_under_its_leader(s, resent=False) -> bool:
    """``resent`` (issue 29bm: under a controller failover at RF=3): leave out a request to a
    broker already leading in the request's epoch, whose own (committed) view is among the views;
    the new controller resends the ISR it read (``onControllerFailover`` at 2.7.0) and may accept
    the leader's AlterPartition after, and the leader ignores a request of its own epoch."""
    c = s.controller
    if not never_took(s, c.leader, c.leader_epoch):
        return True  # the new leader may have added members
    # only the previous epoch: a leader of an epoch in between may have added members
    previous = c.leader_epoch - 1
    views = [_committed_view(lr) for lead, lr in enumerate(s.replicas)
             if lr.alive and lr.leader == lead and lr.leader_epoch == previous]
    views += [isr for b, e, leader, isr in s.leader_and_isr if leader in (b, NO_LEADER) and e == previous
              and not (resent and _leads_in(s.replicas[b], b, e))]
    return all(set(c.isr) <= set(view) | {c.leader} for view in views)


def _leads_in(r, b: int, e: int) -> bool:
    return r.alive and r.leader == b and r.leader_epoch == e


def _isr_grows_only_under_its_leader_z3(d, s, resent=False):
    out = []
    new_leader_waiting = never_took_z3(d, s, s.c_leader, s.c_epoch)

    def older(e):
        return e + 1 == s.c_epoch

    def target_not_leading(b, e):
        r = s.reps[b]
        return z3.Not(z3.And(r.alive, r.leader == b, r.lep == e)) if resent else z3.BoolVal(True)

    views = [(z3.And(lr.alive, lr.leader == lead, older(lr.lep)), _committed_view_z3(d, lr))
             for lead, lr in enumerate(s.reps)]
    views += [(z3.And(s.lai[b][e], z3.Or(s.lai_leader[b][e] == b, s.lai_leader[b][e] == -1), older(num.val(e)),
                      target_not_leading(b, e)),
               s.lai_isr[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    for present, isr in views:
        within = z3.And([z3.Implies(s.c_isr[b], z3.Or(isr[b], s.c_leader == b)) for b in range(d.n)])
        out.append(z3.Implies(z3.And(new_leader_waiting, present), within))
    return z3.And(out)


def _next_leader_from_isr(s, config) -> bool:
    if "eligible-leader-replicas" in config.rules:
        return True  # KIP-966 (issue 29l): a leader from the ELR or the last known leader
    claims = epoch_claims(s)
    # a running leader's ISR, the ISR a request will hand its target as leader, and the ISR of a
    # leaderless epoch (the next leader is a member that restarts)
    views = [(lr.leader_epoch, _committed_view(lr)) for lead, lr in enumerate(s.replicas)
             if lr.alive and lr.leader == lead]
    views += [(e, isr) for b, e, leader, isr in s.leader_and_isr if leader in (b, NO_LEADER)]
    if s.controller.leader == NO_LEADER:
        views.append((s.controller.leader_epoch, s.controller.isr))
    if any(e == epoch + 1 and m >= 0 and m not in isr for epoch, isr in views for e, m in claims):
        return False
    # and so is the ISR a request of the next epoch carries (the controller only removes members),
    # while that epoch's leader has not taken it (then it may add members, and a restart request
    # carries them)
    return all(set(next_isr) <= set(isr) for epoch, isr in views
               for _, e, leader, next_isr in s.leader_and_isr if e == epoch + 1 and never_took(s, leader, e))


def _next_leader_from_isr_z3(d, s):
    if d.elr:
        return z3.BoolVal(True)
    claims = [(s.lai[b][e], e, s.lai_leader[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    claims += [(z3.And(r.alive, r.lep >= 0), r.lep, r.leader) for r in s.reps]
    claims.append((True, s.c_epoch, s.c_leader))
    views = [(z3.And(lr.alive, lr.leader == lead), lr.lep, _committed_view_z3(d, lr))
             for lead, lr in enumerate(s.reps)]
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
                not_taken = never_took_z3(d, s, s.lai_leader[b][e], e)
                out.append(z3.Implies(z3.And(leads, s.lai[b][e], epoch + 1 == e, not_taken), within))
    return z3.And(out)


def _later_leaders_hold_hw(s) -> bool:
    claims = epoch_claims(s)
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
            if m >= 0 and e >= after and kept_log_since(s, m, e) \
                    and not holds_below(s.replicas[m], r, hw):
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
            later = z3.Or([z3.And(present, leader == m, e >= after, kept_log_since_z3(d, s, m, e))
                           for present, e, leader in claims])
            prefix = holds_below_z3(d, mr, r, r.hw)
            out.append(z3.Implies(z3.And(z3.Or(r.lep >= 0, r.alive), later), prefix))
    return z3.And(out)


def _added_members_caught_up(s) -> bool:
    leaders = [(b, r) for b, r in enumerate(s.replicas) if r.alive and r.leader == b]
    for lead, lr in leaders:
        e = lr.leader_epoch
        for _, zr in leaders:
            if zr.leader_epoch != e - 1:
                continue
            for f in lr.isr:
                if f == lead or f in zr.isr or not follower_kept_log_since(s, f, lead, e):
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
                added = z3.And(both, lr.isr[f], z3.Not(zr.isr[f]), follower_kept_log_since_z3(d, s, f, lead, lr.lep))
                held = [z3.Implies(z3.And(i < lr.leo, lr.log_ep[i] < lr.lep),
                                   z3.And(i < fr.leo, fr.log_id[i] == lr.log_id[i], fr.log_ep[i] == lr.log_ep[i]))
                        for i in range(d.slots)]
                out.append(z3.Implies(added, z3.And(held)))
    return z3.And(out)


def _epoch_leaders(s, dead_leader=True):
    """(broker, epoch) for each running leader, for each restarted broker with a request on its
    way that makes it leader (it led that epoch before its crash, and kept its HW), and for the
    controller's leader while it is down (the records of the controller's epoch are its)."""
    for b, r in enumerate(s.replicas):
        if r.alive and r.leader == b:
            yield b, r.leader_epoch
    for b, e, leader, _ in s.leader_and_isr:
        r = s.replicas[b]
        if leader == b and r.alive and r.leader_epoch == -1:
            yield b, e
    c = s.controller
    if dead_leader and c.leader >= 0 and not s.replicas[c.leader].alive:  # down, not yet handled
        yield c.leader, c.leader_epoch


def _hw_behind_epoch_leader(s, config, power_loss=False, down=True) -> bool:
    """``down`` False: not for a down leader, and only for the controller's epoch
    (``--hw-checkpoint interval``: a leader's HW moves back when it crashes)."""
    if (config.bounds.max_preferred_elections or config.bounds.max_reassignments
            or "unordered-leader-moves" in config.rules):
        # the operator's moves and the over-approximation move healthy leaders: false on
        # reachable states (test_strengthen_ordered)
        return True
    reps = s.replicas
    # (a leader that is down may have lost power: issue 29p)
    for lead, e in _epoch_leaders(s, down and not (power_loss and s.unflushed_losses > 0)):
        if not down and e != s.controller.leader_epoch:
            continue
        hw = reps[lead].high_watermark
        for f, fr in enumerate(reps):
            if f == lead:
                continue
            for i, (_, ep) in enumerate(fr.log[:fr.high_watermark]):
                if ep == e and i >= hw:
                    return False
    return True


def epochs_led_z3(s, lead):
    """``(leads, e)`` pairs: ``lead`` leads epoch ``e`` when ``leads`` holds, running as its
    leader, or restarted and waiting (no epoch yet) with a LeaderAndIsr of ``e`` naming it on its
    way (the epoch it is about to lead)."""
    lr = s.reps[lead]
    return [(z3.And(lr.alive, lr.leader == lead), lr.lep)] + [
        (z3.And(lr.alive, lr.lep == -1, s.lai[lead][e], s.lai_leader[lead][e] == lead), e)
        for e in range(len(s.lai[lead]))]


def _hw_behind_epoch_leader_z3(d, s, power_loss=False, down=True):
    if d.operators or not d.ordered:
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        cases = epochs_led_z3(s, lead)
        if not down:
            cases = [(z3.And(leads, e == s.c_epoch), e) for leads, e in cases]
        if down:
            stopped = z3.And(z3.Not(lr.alive), s.c_leader == lead)
            cases.append((z3.And(stopped, s.losses == 0) if power_loss else stopped, s.c_epoch))
        for leads, e in cases:
            for f, fr in enumerate(s.reps):
                if f == lead:
                    continue
                out += [z3.Implies(z3.And(leads, i < fr.hw, i < fr.leo, fr.log_ep[i] == e), i < lr.hw)
                        for i in range(d.slots)]
    return z3.And(out)



def _requested_leaders_hold_hw(s) -> bool:
    return all(holds_below(s.replicas[leader], s.replicas[b], s.replicas[b].high_watermark)
               for b, _, leader, _ in s.leader_and_isr if leader >= 0 and leader != b)


def _requested_leaders_hold_hw_z3(d, s):
    out = []
    for b, r in enumerate(s.reps):
        for lead, lr in enumerate(s.reps):
            if lead == b:
                continue
            prefix = holds_below_z3(d, lr, r, r.hw)
            out += [z3.Implies(z3.And(s.lai[b][e], s.lai_leader[b][e] == lead), prefix)
                    for e in range(len(s.lai[b]))]
    return z3.And(out)


# in the order `kmc list` shows them
STRENGTHENINGS = (
    Strengthening("controller-isr-nonempty", "the controller's ISR always has a member (its "
                  "last member stays when it fails); off under KIP-966's ELR "
                  "(``eligible-leader-replicas``), where the last member leaves too",
                  _controller_isr_nonempty, _controller_isr_nonempty_z3, uses_config=True),
    Strengthening("controller-isr-live", "every member of the controller's ISR is in its live "
                  "set, unless it is the last member: the controller removes a failed broker from "
                  "both at once (``removeReplicasFromIsr`` keeps only the last member); off with "
                  "kmc 0.1's isr-expansion-as-own-step, where a leader may add a follower that "
                  "died since it fetched", _controller_isr_live, _controller_isr_live_z3,
                  uses_config=True),
    Strengthening("leader-isr-is-controller-isr", "a broker leading in the controller's epoch, "
                  "a request making it leader in it, and any request of that epoch whose leader has "
                  "not taken it, carry the controller's ISR (with 3.6's "
                  "isr-shrink-keeps-leader-epoch on KRaft, or their leader has a pending change of "
                  "that epoch carrying it, issue 29m)", _leader_isr_is_controller_isr,
                  _leader_isr_is_controller_isr_z3, uses_config=True),
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
                  "controller's while it leads; off under KIP-966's ELR "
                  "(``eligible-leader-replicas``), which elects from the ELR or the last known "
                  "leader when the ISR is empty", _next_leader_from_isr,
                  _next_leader_from_isr_z3, uses_config=True),
    Strengthening("added-members-caught-up", "a member a leader added to its ISR (one not in "
                  "the previous epoch's running leader's ISR) holds the leader's records from before "
                  "its epoch (KAFKA-7128: it caught up to the epoch's start offset)",
                  _added_members_caught_up, _added_members_caught_up_z3),
    Strengthening("hw-behind-epoch-leader", "no replica's HW, running, down or restarted, "
                  "covers a record of the epoch a running leader leads in (or a restarted broker "
                  "will lead again, by a request on its way) unless that leader's HW does (only "
                  "that leader, in that epoch, sends an HW past its records; its HW only grows "
                  "while it leads, and a process crash keeps it); off with the operator's leader "
                  "moves, where it is false on reachable states", _hw_behind_epoch_leader,
                  _hw_behind_epoch_leader_z3, uses_config=True),
    Strengthening("isr-remote-ge-hw", "a leader's HW is at most the known LEO of each ISR "
                  "follower", _isr_remote_ge_hw, _isr_remote_ge_hw_z3),
    Strengthening("isr-followers-hold-hw", "each member of a leader's ISR (or of the ISR a request "
                  "will give it) that cannot have truncated since that epoch holds the leader's records below the leader's HW",
                  _isr_followers_hold_hw, _isr_followers_hold_hw_z3),
    Strengthening("isr-holds-every-hw", "every member of the controller's ISR holds "
                  "every broker's records below that broker's HW (committed records are on the ISR)",
                  _isr_holds_every_hw, _isr_holds_every_hw_z3),
    Strengthening("hw-prefix-of-true-leader", "every replica's records below its own HW are "
                  "the true leader's (committed records are never lost)", _hw_prefix_of_true_leader,
                  _hw_prefix_of_true_leader_z3),
    Strengthening("leader-holds-followers-hw", "the broker a follower follows holds the "
                  "follower's records below the follower's HW", _leader_holds_followers_hw,
                  _leader_holds_followers_hw_z3),
    Strengthening("requested-leaders-hold-hw", "the leader a LeaderAndIsr request on its way "
                  "to a broker names holds that broker's records below the broker's HW: a "
                  "follower keeps its HW when it applies the request (leader-holds-followers-hw)",
                  _requested_leaders_hold_hw, _requested_leaders_hold_hw_z3),
    Strengthening("later-leaders-hold-hw", "a broker named leader of an epoch later than another "
                  "broker's holds that broker's records below its HW, unless it may have "
                  "truncated since",
                  _later_leaders_hold_hw, _later_leaders_hold_hw_z3),
)
