"""The library under ZooKeeper controller failovers (``--max-controller-failovers``, issue 29ak).

Many facts of the library rest on "every LeaderAndIsr a broker takes is the active controller's,
of a newer leader epoch than the broker's, and the controller's view is the partition's". A
failover breaks that (the kernel's ControllerFailover, ZombieControllerSendLeaderAndIsr and
BrokerHandleZombieLeaderAndIsr; ``KafkaController.onControllerFailover`` at 2.1.0):

* the new controller resends the partition's state in the same leader epoch to every live
  broker, so requests of the current epoch are on their way to brokers that already have it;
* the deposed controller keeps its view frozen at the failover and may still send it, with its
  old controller epoch, to a broker behind that view's leader epoch (a broker that restarted, or
  one that had not yet heard of the epoch): that broker then leads or follows as the old view
  says, with an ISR the leader's shrinks have changed since, which the active controller does not
  know about (docs/model.md; the 2.1 RF=3 known-results row, 9 steps, is such a path).

The facts below are false on reachable states (BFS, ``python -m
checker.symbolic.strengthen.reachable --kafka-version 2.1 -r 2 --max-records 2
--max-leader-epoch 2 --max-crashes 1 --max-controller-failovers 1``: 12,768 states, the count of
states each is false on beside it in docs/symbolic.md, "Controller failovers in the proof") and
are switched off under the bound. ``kmc prove -p NAME`` refuses an invariant switched here
(``library.takes_another_form``).
"""

from __future__ import annotations

import z3

from checker.symbolic import numbers as num
from checker.symbolic.state import count
from checker.symbolic.strengthen.base import Strengthening

OFF_UNDER_FAILOVERS = (
    # the new controller's resend, and the zombie's request to a broker that restarted
    "requests-to-live-brokers", "current-epoch-on-its-way",
    # a broker that took the zombie's view leads or follows with the view's ISR and epoch
    "leader-isr-is-controller-isr", "stale-leader-still-leads", "running-leaders-kept-leading",
    "offline-isr-restarted", "next-leader-from-isr", "hw-behind-epoch-leader",
    # and so the ISR, the HW and the remote LEOs lose their ties to the active controller's ISR
    "isr-followers-hold-hw", "isr-remote-ge-hw", "isr-holds-every-hw",
    "requested-leaders-hold-hw", "later-leaders-hold-hw", "fetch-hw-committed",
    "hw-prefix-of-true-leader", "leader-holds-followers-hw",
)
"""False under controller failovers (BFS, the module's docstring): off there."""


def switch(st: Strengthening) -> Strengthening:
    """``st`` under ``--max-controller-failovers``: held only until the first failover; unchanged
    otherwise.

    Before any failover a state is one the same configuration without the bound reaches (the
    three failover actions need a failover first, and the controller epoch and the zombie stay
    at their initial values), where the fact holds as written; from the first failover on it
    says nothing."""
    if st.name not in OFF_UNDER_FAILOVERS:
        return st

    def check(s, config, _st=st):
        if config.bounds.max_controller_failovers > 0 and s.controller_failovers > 0:
            return True
        return _st.holds(s, config)

    def formula(d, s, _st=st):
        if d.failovers:
            return z3.Implies(s.cfail == 0, _st.formula(d, s))
        return _st.formula(d, s)

    return Strengthening(st.name, st.description, check, formula, uses_config=True)


def _zombie_is_the_last_controller(s, config) -> bool:
    if config.bounds.max_controller_failovers == 0:
        return True
    z = s.zombie_controller
    if bool(z) != (s.controller_failovers > 0):
        return False
    if z and z[0] + 1 != s.controller_epoch:
        return False
    return (all(r.controller_epoch_seen <= s.controller_epoch for r in s.replicas)
            and all(c <= s.controller_epoch for _, _, c in s.leader_and_isr_controller_epochs))


def _zombie_is_the_last_controller_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    out = [s.zomb == (s.cfail >= 1), z3.Implies(s.zomb, s.z_cep + 1 == s.cep)]
    out += [r.cseen <= s.cep for r in s.reps]
    out += [z3.Implies(s.lai[b][e], s.lai_cep[b][e] <= s.cep)
            for b in range(d.n) for e in range(len(s.lai[b]))]
    return z3.And(out)


def _leaderless_isr_is_one(config) -> bool:
    """A leaderless view's ISR is its last leader alone (``leaderless-isr-is-last-leader``), but
    with kmc 0.1's isr-expansion-as-own-step or AlterPartition, where that fact is off too."""
    return ("isr-expansion-as-own-step" not in config.rules
            and "alter-partition" not in config.rules)


def _zombie_view_from_the_past(s, config) -> bool:
    z = s.zombie_controller
    if config.bounds.max_controller_failovers == 0 or not z:
        return True
    _, leader, epoch, isr = z
    c = s.controller
    if epoch > c.leader_epoch or (leader != -1 and leader not in isr):
        return False
    if leader == -1 and len(isr) != 1 and _leaderless_isr_is_one(config):
        return False
    claims = [(c.leader_epoch, c.leader)] + [(e, lead) for _, e, lead, _ in s.leader_and_isr]
    claims += [(r.leader_epoch, r.leader) for r in s.replicas if r.alive and r.leader_epoch >= 0]
    claims.append((0, 0))  # epoch 0 names broker 0, the leader the topic was created with
    return all(lead == leader for e, lead in claims if e == epoch)


def _zombie_view_from_the_past_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    claims = [(z3.BoolVal(True), s.c_epoch, s.c_leader)]
    claims += [(s.lai[b][e], e, s.lai_leader[b][e]) for b in range(d.n) for e in range(len(s.lai[b]))]
    claims += [(z3.And(r.alive, r.lep >= 0), r.lep, r.leader) for r in s.reps]
    claims.append((z3.BoolVal(True), 0, num.val(0)))
    member = z3.Or([z3.And(s.z_leader == j, s.z_isr[j]) for j in range(d.n)])
    out = [s.z_lep <= s.c_epoch, z3.Or(s.z_leader == -1, member)]
    if not (d.expands_dead or d.alter):  # (leaderless-isr-is-last-leader's condition)
        out.append(z3.Implies(s.z_leader == -1, count(s.z_isr) == 1))
    out += [z3.Implies(z3.And(present, s.z_lep == e), leader == s.z_leader)
            for present, e, leader in claims]
    return z3.Implies(s.zomb, z3.And(out))


def _waiting_broker_has_a_request(s, config) -> bool:
    if config.bounds.max_controller_failovers == 0:
        return True
    waiting = {b for b, r in enumerate(s.replicas) if r.alive and r.leader_epoch == -1}
    return (waiting <= {b for b, _, _, _ in s.leader_and_isr}
            and all(s.replicas[b].controller_epoch_seen == 0 for b in waiting))


def _waiting_broker_has_a_request_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alive, r.lep == -1), z3.And(z3.Or(s.lai[b]), r.cseen == 0))
                   for b, r in enumerate(s.reps)])


def _requests_teach_or_lead(s, config) -> bool:
    if config.bounds.max_controller_failovers == 0:
        return True
    ceps = {(b, e): c for b, e, c in s.leader_and_isr_controller_epochs}
    for b, e, _, _ in s.leader_and_isr:
        r = s.replicas[b]
        if not r.alive or not (ceps.get((b, e), 0) > r.controller_epoch_seen or e > r.leader_epoch):
            return False
    return True


def _requests_teach_or_lead_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(s.lai[b][e], z3.And(r.alive, z3.Or(s.lai_cep[b][e] > r.cseen,
                                                                 e > r.lep)))
                   for b, r in enumerate(s.reps) for e in range(len(s.lai[b]))])


def _current_epoch_still_on_its_way(s, config) -> bool:
    if config.bounds.max_controller_failovers == 0:
        return True
    c = s.controller
    sent = {(b, e) for b, e, _, _ in s.leader_and_isr}
    return all((b, c.leader_epoch) in sent for b, r in enumerate(s.replicas)
               if r.alive and r.leader_epoch < c.leader_epoch)


def _current_epoch_still_on_its_way_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        sent = z3.Or([z3.And(s.c_epoch == e, s.lai[b][e]) for e in range(len(s.lai[b]))])
        out.append(z3.Implies(z3.And(r.alive, r.lep < s.c_epoch), sent))
    return z3.And(out)


def _stopped_broker_obeys_no_controller(s, config) -> bool:
    if config.bounds.max_controller_failovers == 0:
        return True
    return all(r.alive or r.controller_epoch_seen == 0 for r in s.replicas)


def _stopped_broker_obeys_no_controller_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    return z3.And([z3.Or(r.alive, r.cseen == 0) for r in s.reps])


def _requests_not_stale(s, config) -> bool:
    if config.bounds.max_controller_failovers == 0:
        return True
    ceps = {(b, e): c for b, e, c in s.leader_and_isr_controller_epochs}
    return all(ceps.get((b, e), 0) >= s.replicas[b].controller_epoch_seen
               for b, e, _, _ in s.leader_and_isr)


def _requests_not_stale_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(s.lai[b][e], s.lai_cep[b][e] >= r.cseen)
                   for b, r in enumerate(s.reps) for e in range(len(s.lai[b]))])


STRENGTHENINGS = (
    Strengthening("waiting-broker-has-a-request", "under controller failovers, a running broker "
                  "that has applied no leader epoch since it restarted has a LeaderAndIsr of the "
                  "active controller on its way (the controller sends one when it registers; "
                  "only applying it takes it away), and has obeyed no controller yet (a stop "
                  "forgets it): the part of current-epoch-on-its-way a zombie's view leaves true",
                  _waiting_broker_has_a_request, _waiting_broker_has_a_request_z3,
                  uses_config=True),
    Strengthening("requests-teach-or-lead", "under controller failovers, every LeaderAndIsr in "
                  "flight goes to a running broker, in a newer leader epoch than its own or from a "
                  "newer controller than it has obeyed (the form of requests-to-live-brokers the "
                  "new controller's resend leaves true: ``finish`` drops the others)",
                  _requests_teach_or_lead, _requests_teach_or_lead_z3, uses_config=True),
    Strengthening("zombie-is-the-last-controller", "under controller failovers there is a "
                  "zombie controller once a failover has happened, and it is the controller just "
                  "deposed (controller epoch one less than the active one's; each failover "
                  "supersedes the older zombie); no broker has obeyed, and no LeaderAndIsr in "
                  "flight carries, a controller epoch newer than the active one",
                  _zombie_is_the_last_controller, _zombie_is_the_last_controller_z3,
                  uses_config=True),
    Strengthening("zombie-view-from-the-past", "the zombie controller's view is one the "
                  "controller held: its leader epoch is not newer than the controller's, it names "
                  "the leader every other holder of that epoch names (the controller, a request in "
                  "flight, a running broker; epoch 0 names broker 0), its leader is in its ISR, and "
                  "a leaderless view's ISR is one broker (as leaderless-isr-is-last-leader says "
                  "of the controller's)",
                  _zombie_view_from_the_past, _zombie_view_from_the_past_z3, uses_config=True),
    Strengthening("current-epoch-still-on-its-way", "under controller failovers, every running "
                  "broker behind the active controller's leader epoch has a LeaderAndIsr of that "
                  "epoch on its way: the controller sent it to every live broker when it chose the "
                  "epoch, the new controller resends it to every live broker "
                  "(``KafkaController.onControllerFailover`` at 2.1.0), and one that registers "
                  "after a restart is sent it then; the zombie's view, never newer than the "
                  "controller's, cannot bring a broker past it. The part of "
                  "current-epoch-on-its-way a failover leaves true (not: a request of every epoch "
                  "after the broker's own, which the zombie's stale view breaks)",
                  _current_epoch_still_on_its_way, _current_epoch_still_on_its_way_z3,
                  uses_config=True),
    Strengthening("requests-not-stale", "under controller failovers, no LeaderAndIsr in flight "
                  "to a broker carries an older controller epoch than the broker has obeyed: "
                  "the broker refuses such a request with STALE_CONTROLLER_EPOCH "
                  "(``ReplicaManager.becomeLeaderOrFollower`` at 2.1.0), so ``finish`` drops it "
                  "as soon as the broker obeys a newer controller",
                  _requests_not_stale, _requests_not_stale_z3, uses_config=True),
    Strengthening("stopped-broker-obeys-no-controller", "under controller failovers, a broker "
                  "that is down remembers no controller epoch: the controller epoch a broker "
                  "checks LeaderAndIsr requests against lives in ``ReplicaManager``'s memory "
                  "(``controllerEpoch`` at 2.1.0), which a stop loses, so after a restart it "
                  "takes the first controller's request it gets (waiting-broker-has-a-request "
                  "needs it of the broker that restarts)",
                  _stopped_broker_obeys_no_controller, _stopped_broker_obeys_no_controller_z3,
                  uses_config=True),
)
"""Facts only controller failovers need (issue 29ak), each from a counterexample to induction."""
