"""Strengthening invariants about epochs, roles and LeaderAndIsr requests.

Facts about who believes what in which epoch. In Kafka a leader epoch names one leader (the
controller bumps it on every election: ``PartitionStateMachine`` / KRaft's
``PartitionChangeBuilder``), and a broker's in-memory role (ISR, followers' LEOs, fetcher state)
lives only between a LeaderAndIsr and the next one or a crash. The controller's decisions reach
brokers as LeaderAndIsr requests, delivered later and in any order: these invariants also say
which requests can be on their way, to whom, and what they carry."""

from __future__ import annotations

import z3

from checker.symbolic import numbers as num
from checker.symbolic.state import count
from checker.symbolic.strengthen.base import Strengthening, held_records
from checker.symbolic.strengthen.history import epoch_claims
from model.constants import NO_LEADER


def _epochs_le_controller(s) -> bool:
    c = s.controller
    return (all(r.leader_epoch <= c.leader_epoch for r in s.replicas)
            and all(e <= c.leader_epoch for _, e, _, _ in s.leader_and_isr))


def _epochs_le_controller_z3(d, s):
    out = [r.lep <= s.c_epoch for r in s.reps]
    out += [z3.Implies(s.lai[b][e], s.c_epoch >= e) for b in range(d.n) for e in range(len(s.lai[b]))]
    return z3.And(out)


def _requests_to_live_brokers(s) -> bool:
    return all(s.replicas[b].alive and e > s.replicas[b].leader_epoch
               for b, e, _, _ in s.leader_and_isr)


def _requests_to_live_brokers_z3(d, s):
    return z3.And([z3.Implies(s.lai[b][e], z3.And(s.reps[b].alive, s.reps[b].lep < e))
                   for b in range(d.n) for e in range(len(s.lai[b]))])


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


def _epoch_names_one_leader(s) -> bool:
    named = {}
    if not all(named.setdefault(e, leader) == leader for e, leader in epoch_claims(s)):
        return False
    # nobody writes in a leaderless epoch
    return not any(named.get(ep) == NO_LEADER for _, _, ep in held_records(s))


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


def _first_epoch_leader(s) -> bool:
    return all(leader == 0 for e, leader in epoch_claims(s) if e == 0)


def _first_epoch_leader_z3(d, s):
    out = [z3.Implies(s.lai[b][0], s.lai_leader[b][0] == 0) for b in range(d.n)]
    out += [z3.Implies(z3.And(r.alive, r.lep == 0), r.leader == 0) for r in s.reps]
    out.append(z3.Implies(s.c_epoch == 0, s.c_leader == 0))
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
        for x, prev in epoch_claims(s):
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



def _eligibility_closes_the_race(rules) -> bool:
    """KRaft's controller with KIP-841 and without KIP-966 (Kafka 3.3 to 4.0): it refuses an
    AlterPartition that adds a broker it fenced or that is in a controlled shutdown
    (``ReplicationControlManager`` INELIGIBLE_REPLICA, ``ClusterControlManager.isActive``, 3.6.0;
    the kernel's ``members_eligible``), so a leader cannot add a follower whose failure the
    controller has handled; without the ELR the last ISR member is kept
    (``PartitionChangeBuilder.build``, 3.6.0)."""
    return ("kraft" in rules and "isr-eligibility" in rules
            and "eligible-leader-replicas" not in rules and "isr-expansion-as-own-step" not in rules)


def _leaderless_isr_is_last_leader(s, config, kraft_eligibility: bool = False) -> bool:
    """``kraft_eligibility`` (issue 29bo, controlled.py): on KRaft 3.3 to 4.0 the AlterPartition
    exception does not apply (``_eligibility_closes_the_race``)."""
    rules = config.rules
    if not (kraft_eligibility and _eligibility_closes_the_race(rules)) and (
            "isr-expansion-as-own-step" in rules or "alter-partition" in rules):
        return True  # a leader may add a follower that died since it fetched
    views = [(e, isr) for _, e, leader, isr in s.leader_and_isr if leader == NO_LEADER]
    c = s.controller
    if c.leader == NO_LEADER:
        views.append((c.leader_epoch, c.isr))
    claims = epoch_claims(s) + [(0, 0)]  # epoch 0: the leader the partition was created with
    return all(len(isr) == 1 and not any(x == e - 1 and leader >= 0 and leader != isr[0]
                                         for x, leader in claims)
               for e, isr in views)


def _leaderless_isr_is_last_leader_z3(d, s, kraft_eligibility: bool = False):
    closed = kraft_eligibility and d.kraft and d.eligibility and not d.elr and not d.expands_dead
    if not closed and (d.expands_dead or d.alter):
        return z3.BoolVal(True)
    views = [(z3.And(s.lai[b][e], s.lai_leader[b][e] == -1), num.val(e), s.lai_isr[b][e])
             for b in range(d.n) for e in range(len(s.lai[b]))]
    views.append((s.c_leader == -1, s.c_epoch, s.c_isr))
    claims = [(s.lai[b][e], num.val(e), s.lai_leader[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    claims += [(z3.And(r.alive, r.lep >= 0), r.lep, r.leader) for r in s.reps]
    claims += [(z3.BoolVal(True), s.c_epoch, s.c_leader), (z3.BoolVal(True), num.val(0), num.val(0))]
    out = []
    for leaderless, e, isr in views:
        out.append(z3.Implies(leaderless, count(isr) == 1))
        for present, x, leader in claims:
            member = z3.Or([z3.And(leader == j, isr[j]) for j in range(d.n)])
            out.append(z3.Implies(z3.And(leaderless, present, x + 1 == e, leader >= 0), member))
    return z3.And(out)


# in the order `kmc list` shows them
STRENGTHENINGS = (
    Strengthening("epochs-le-controller", "no broker and no LeaderAndIsr request is in an "
                  "epoch newer than the controller's", _epochs_le_controller,
                  _epochs_le_controller_z3),
    Strengthening("one-leader-per-epoch", "no two live brokers lead in the same epoch, and a "
                  "broker leading in the controller's epoch is the controller's leader",
                  _one_leader_per_epoch, _one_leader_per_epoch_z3),
    Strengthening("epoch-names-one-leader", "every LeaderAndIsr request, live broker and the "
                  "controller holding the same epoch name the same leader, and no record carries "
                  "an epoch they name no leader for",
                  _epoch_names_one_leader, _epoch_names_one_leader_z3),
    Strengthening("first-epoch-leader", "epoch 0 names broker 0, the leader the topic was "
                  "created with", _first_epoch_leader, _first_epoch_leader_z3),
    Strengthening("followers-keep-no-leader-state", "a broker that does not lead has no ISR "
                  "and no remote LEOs; no broker keeps a remote LEO for itself",
                  _followers_keep_no_leader_state, _followers_keep_no_leader_state_z3),
    Strengthening("leader-not-fetching", "a broker that believes it leads has no fetch "
                  "response in flight and is not truncating", _leader_not_fetching,
                  _leader_not_fetching_z3),
    Strengthening("requests-to-live-brokers", "every LeaderAndIsr request in flight goes to a "
                  "live broker in an older epoch", _requests_to_live_brokers,
                  _requests_to_live_brokers_z3),
    Strengthening("requests-lead-their-isr", "every LeaderAndIsr request names a leader in its "
                  "ISR (or no leader)", _requests_lead_their_isr, _requests_lead_their_isr_z3),
    Strengthening("leaderless-isr-is-last-leader", "the ISR of a leaderless epoch (the "
                  "controller's, or a request's) is one broker, the leader of the epoch before it "
                  "when the state names one: the controller leaves a partition without a leader "
                  "only when its failed leader was the last live ISR member, and keeps the last "
                  "member in the ISR (``removeReplicasFromIsr``; a failed follower was removed "
                  "when it failed); off with kmc 0.1's isr-expansion-as-own-step, where a leader "
                  "may add a follower that died since it fetched", _leaderless_isr_is_last_leader,
                  _leaderless_isr_is_last_leader_z3, uses_config=True),
    Strengthening("current-epoch-on-its-way", "every running broker behind the controller's "
                  "epoch has a LeaderAndIsr request of that epoch on its way, and of every epoch "
                  "after its own (the controller sends each new epoch to every live broker)", _current_epoch_on_its_way,
                  _current_epoch_on_its_way_z3),
    Strengthening("offline-isr-restarted", "while the partition has no leader, no ISR member is "
                  "live to the controller (unless the epoch budget is spent) and every running "
                  "ISR member has restarted since (it waits, or applied the leaderless epoch) and "
                  "has no request of an older epoch on its way; the same holds for the ISR of "
                  "every leaderless request in flight",
                  _offline_isr_restarted, _offline_isr_restarted_z3, uses_config=True),
)
