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

OFF_WITH_BROKER_EPOCH = ("requests-to-live-brokers", "leader-isr-is-controller-isr",
                         "isr-followers-hold-hw")
"""The ones still false under a failover with KIP-380's broker epoch (2.2+: a broker registered
since the failover refuses the zombie's requests, issue 29bi). The others hold on every reachable
state there and stay on (BFS of the facts as written, 2026-11-29, lead, ``reachable``'s bounds:
2 records, epochs <= 2, 1 crash, 1 failover): Kafka 2.2 and 2.4, RF=2, 9,440 states (false on
4,188 / 996 / 230 of them); 3.1, 29,093 states (14,720 / 3,077 / 285); 2.7, 22,292 states
(11,714 / 2,559 / 0) and with 2 crashes 134,510 (51,841 / 10,556 / 0). At RF=3 (2.7, 1 record,
696,112 states: 483,030 / 131,798 / 9,134) ``next-leader-from-isr`` is false too (4,680), so it
is off there as well (``OFF_WITH_BROKER_EPOCH_RF3``); RF=3 was checked at 1 record only."""

OFF_WITH_BROKER_EPOCH_RF3 = OFF_WITH_BROKER_EPOCH + ("next-leader-from-isr",)


def _off_with_broker_epoch(name: str, replication_factor: int) -> bool:
    return name in (OFF_WITH_BROKER_EPOCH if replication_factor <= 2 else OFF_WITH_BROKER_EPOCH_RF3)

NOT_IN_ALL = ("committed-consistency",)
"""Left out of ``--strengthen all`` where ``committed_consistency_violated`` (issue 29ba)."""


def committed_consistency_violated(config) -> bool:
    """Is ``committed-consistency`` false on reachable states of ``config``? Under a controller
    failover with 2 records or more on Kafka 2.1's rules (without KIP-380's ``broker-epoch`` or
    KIP-497's ``alter-partition``): ``kmc check --kafka-version 2.1 -r 2 --max-records 2
    --max-leader-epoch 2 --max-crashes 1 --max-controller-failovers 1 -p committed-consistency``
    is VIOLATED in 11 steps (a shrink to the leader alone, a failover, the ISR grows back, a
    second record, the leader crashes and restarts, the zombie's view makes it leader again with
    the record uncommitted; docs/symbolic.md, issue 29ak), and larger bounds reach those states
    too. At 1 record it HOLDS (3,147 states), and at 2 records it HOLDS on 2.4 (12,513 states)
    and 2.7 (28,505), so it stays in the conjunction there (2026-11-29 06:52, issue 29ba)."""
    b = config.bounds
    return (b.max_controller_failovers > 0 and b.max_records >= 2
            and "broker-epoch" not in config.rules and "alter-partition" not in config.rules)


def _isr_grows_resent(s, config) -> bool:
    from checker.symbolic.strengthen.isr_hw import _isr_grows_only_under_its_leader

    return _isr_grows_only_under_its_leader(s, resent=True)


def _isr_grows_resent_z3(d, s):
    from checker.symbolic.strengthen.isr_hw import _isr_grows_only_under_its_leader_z3

    return _isr_grows_only_under_its_leader_z3(d, s, resent=True)


RF3_FORMS = {"isr-grows-only-under-its-leader": (_isr_grows_resent, _isr_grows_resent_z3)}
"""Facts that take a weaker form under controller failovers at RF>=3 (issue 29bm): the form is
implied by the fact as written, so it holds wherever that does; RF=2 keeps the fact as written
(its proofs unchanged). ``isr-grows-only-under-its-leader`` leaves out a request to a broker
already leading in the request's epoch (its committed view stays in): at RF=3 the new
controller's resend of the ISR it read at the failover is still on its way when it accepts the
leader's AlterPartition adding a member, and a failure handled next takes another member out
(false on 7,100-odd of 2.7's 779,281 states at 1 record; the form on none)."""


def _rf3_form(st: Strengthening) -> Strengthening:
    weak_check, weak_formula = RF3_FORMS[st.name]

    def check(s, config, _st=st):
        if config.bounds.max_controller_failovers > 0 and len(s.replicas) >= 3:
            return weak_check(s, config)
        return _st.holds(s, config)

    def formula(d, s, _st=st):
        return weak_formula(d, s) if d.failovers and d.n >= 3 else _st.formula(d, s)

    return Strengthening(st.name, st.description, check, formula, uses_config=True)


def switch(st: Strengthening) -> Strengthening:
    """``st`` under ``--max-controller-failovers``: held only until the first failover (with
    KIP-380's broker epoch only the facts of ``OFF_WITH_BROKER_EPOCH``, at RF=3
    ``OFF_WITH_BROKER_EPOCH_RF3``); unchanged otherwise.

    Before any failover a state is one the same configuration without the bound reaches (the
    three failover actions need a failover first, and the controller epoch and the zombie stay
    at their initial values), where the fact holds as written; from the first failover on it
    says nothing."""
    if st.name in RF3_FORMS:
        return _rf3_form(st)
    if st.name not in OFF_UNDER_FAILOVERS:
        return st

    def check(s, config, _st=st):
        kept = ("broker-epoch" in config.rules
                and not _off_with_broker_epoch(_st.name, len(s.replicas)))
        if config.bounds.max_controller_failovers > 0 and s.controller_failovers > 0 and not kept:
            return True
        return _st.holds(s, config)

    def formula(d, s, _st=st):
        kept = d.zombie_epoch and not _off_with_broker_epoch(_st.name, d.n)
        if d.failovers and not kept:
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


def _leaderless_counts(config) -> bool:
    """Is a leaderless view's ISR made of brokers that crashed? The controller leaves a
    partition leaderless only when it takes out a failed leader with no live ISR member to
    elect (the kernel's ``controller_remove_broker``; ``KafkaController.onBrokerFailure`` ->
    ``OfflinePartitionLeaderElectionStrategy`` at 2.1.0), and a broker leaves its live set only
    when its failure is handled: after a crash, unless a session expiry fenced it (a controlled
    shutdown in ZooKeeper mode never elects nobody, but stops the broker uncounted)."""
    b = config.bounds
    return (b.max_controller_failovers > 0 and b.max_session_expiries == 0
            and b.max_controlled_shutdowns == 0)


def _crashed(s) -> set:
    """Brokers the state shows to have crashed at some time: down, restarted and waiting for an
    epoch, or in the ISR of a leaderless view (the controller's, a LeaderAndIsr in flight, the
    zombie's)."""
    out = {b for b, r in enumerate(s.replicas) if not r.alive or r.leader_epoch == -1}
    c = s.controller
    if c.leader == -1:
        out |= set(c.isr)
    for _, _, leader, isr in s.leader_and_isr:
        if leader == -1:
            out |= set(isr)
    z = s.zombie_controller
    if z and z[1] == -1:
        out |= set(z[3])
    return out


def _leaderless_isr_crashed(s, config) -> bool:
    if not _leaderless_counts(config):
        return True
    return len(_crashed(s)) <= s.crashes


def _crashed_z3(d, s) -> list:
    out = []
    for b, r in enumerate(s.reps):
        views = [z3.And(s.c_leader == -1, s.c_isr[b])]
        views += [z3.And(s.lai[x][e], s.lai_leader[x][e] == -1, s.lai_isr[x][e][b])
                  for x in range(d.n) for e in range(len(s.lai[x]))]
        views.append(z3.And(s.zomb, s.z_leader == -1, s.z_isr[b]))
        out.append(z3.Or([z3.Not(r.alive), r.lep == -1] + views))
    return out


def _leaderless_isr_crashed_z3(d, s):
    if not d.failovers or d.expiries or d.shutdowns:
        return z3.BoolVal(True)
    return count(_crashed_z3(d, s)) <= s.crashes


def _newer_epochs_from_the_active_controller(s, config) -> bool:
    z = s.zombie_controller
    if config.bounds.max_controller_failovers == 0 or not z:
        return True
    zep = z[2]
    if any(r.alive and r.leader_epoch > zep and r.controller_epoch_seen != s.controller_epoch
           for r in s.replicas):
        return False
    return all(c == s.controller_epoch for _, e, c in s.leader_and_isr_controller_epochs
               if e > zep)


def _newer_epochs_from_the_active_controller_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    out = [z3.Implies(z3.And(r.alive, r.lep > s.z_lep), r.cseen == s.cep) for r in s.reps]
    out += [z3.Implies(z3.And(s.lai[b][e], e > s.z_lep), s.lai_cep[b][e] == s.cep)
            for b in range(d.n) for e in range(len(s.lai[b]))]
    return z3.Implies(s.zomb, z3.And(out))


def _active_controller_from_the_zombie_epoch_on(s, config) -> bool:
    z = s.zombie_controller
    if config.bounds.max_controller_failovers == 0 or not z:
        return True
    zep = z[2]
    if any(r.alive and r.controller_epoch_seen == s.controller_epoch and r.leader_epoch < zep
           for r in s.replicas):
        return False
    return all(e >= zep for _, e, c in s.leader_and_isr_controller_epochs
               if c == s.controller_epoch)


def _active_controller_from_the_zombie_epoch_on_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    out = [z3.Implies(z3.And(r.alive, r.cseen == s.cep), r.lep >= s.z_lep) for r in s.reps]
    out += [z3.Implies(z3.And(s.lai[b][e], s.lai_cep[b][e] == s.cep), e >= s.z_lep)
            for b in range(d.n) for e in range(len(s.lai[b]))]
    return z3.Implies(s.zomb, z3.And(out))


def _leaderless_epochs(s) -> set:
    """The leader epochs a view names no leader for: the controller's, a LeaderAndIsr in flight,
    the zombie's."""
    out = {e for _, e, leader, _ in s.leader_and_isr if leader == -1}
    if s.controller.leader == -1:
        out.add(s.controller.leader_epoch)
    z = s.zombie_controller
    if z and z[1] == -1:
        out.add(z[2])
    return out


def _leaderless_epochs_hold_no_records(s, config) -> bool:
    if config.bounds.max_controller_failovers == 0:
        return True
    none = _leaderless_epochs(s)
    return not any(ep in none for r in s.replicas for _, ep in r.log)


def _leaderless_epochs_hold_no_records_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    views = [(z3.BoolVal(True), s.c_leader, s.c_epoch), (s.zomb, s.z_leader, s.z_lep)]
    views += [(s.lai[b][e], s.lai_leader[b][e], e) for b in range(d.n) for e in range(len(s.lai[b]))]
    out = []
    for present, leader, e in views:
        held = z3.Or([z3.And(i < r.leo, r.log_ep[i] == e) for r in s.reps for i in range(d.slots)])
        out.append(z3.Implies(z3.And(present, leader == -1), z3.Not(held)))
    return z3.And(out)


def _no_leader_epochs(s) -> set:
    """``_leaderless_epochs`` and the epochs running brokers applied with no leader."""
    return _leaderless_epochs(s) | {r.leader_epoch for r in s.replicas
                                    if r.alive and r.leader_epoch >= 0 and r.leader == -1}


def _epoch_counts_apply(config) -> bool:
    """Where ``epoch-bumps-crashed`` applies (Kafka's elections, no operator moves, no epoch from
    an AlterPartition shrink), under the bound, without session expiries or controlled
    shutdowns (``_leaderless_counts``)."""
    from checker.symbolic.strengthen.crashes_restarts import _operator_moves

    return (_leaderless_counts(config) and "unordered-leader-moves" not in config.rules
            and not _operator_moves(config)
            and "alter-partition-shrink-bumps-leader-epoch" not in config.rules)


def _leaderless_epochs_crashed(s, config, extra=lambda s: 0) -> bool:
    from checker.symbolic.strengthen.crashes_restarts import _leaders_by_epoch, _unhandled_failures

    if not _epoch_counts_apply(config):
        return True
    from checker.symbolic.strengthen.base import held_records

    named, none = _leaders_by_epoch(s), _no_leader_epochs(s)
    named = set(named) | {ep for _, _, ep in held_records(s)}  # a record's epoch had a leader
    bumps = sum(1 for y in range(1, s.controller.leader_epoch + 1) if y - 1 in named or y in none)
    return bumps + _unhandled_failures(s, config) + extra(s) <= s.crashes


def _leaderless_epochs_crashed_z3(d, s, extra=lambda d, s: []):
    from checker.symbolic.strengthen.crashes_restarts import _named_epochs_z3

    if (not d.failovers or d.expiries or d.shutdowns or not d.ordered or d.operators
            or d.shrink_bumps):
        return z3.BoolVal(True)
    from checker.symbolic.strengthen.base import held_slots_z3

    _, known = _named_epochs_z3(d, s)
    slots = held_slots_z3(d, s)  # a record's epoch had a leader
    known = {x: z3.Or([k] + [z3.And(p, ep == x) for p, _, _, ep in slots]) for x, k in known.items()}
    views = [(s.c_leader == -1, s.c_epoch), (z3.And(s.zomb, s.z_leader == -1), s.z_lep)]
    views += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == -1), num.val(e))
              for b in range(d.n) for e in range(len(s.lai[b]))]
    views += [(z3.And(r.alive, r.lep >= 0, r.leader == -1), r.lep) for r in s.reps]
    bumps = [z3.And(y <= s.c_epoch, z3.Or([known[y - 1]] + [z3.And(p, e == y) for p, e in views]))
             for y in range(1, d.max_epoch + 1)]
    unhandled = [z3.And(z3.Not(r.alive), s.c_live[b]) for b, r in enumerate(s.reps)]
    return count(bumps + unhandled + extra(d, s)) <= s.crashes


def _zombie_leader_holds_its_records(s, config, unreached=True) -> bool:
    """``unreached`` (issue 29bm): under KIP-380 at RF=3, nothing is said of a zombie's leader the
    view no longer reaches: down or registered since the failover (it refuses the view), or
    running past the view's epoch (the zombie sends it nothing; it must restart, and so register,
    first). False is the mutant the tests catch (the fact as 29ay wrote it)."""
    from checker.symbolic.strengthen.base import held_records

    z = s.zombie_controller
    if config.bounds.max_controller_failovers == 0 or not z or z[1] == -1:
        return True
    if config.crash_model != "process":
        return True
    r = s.replicas[z[1]]
    if (unreached and "broker-epoch" in config.rules and len(s.replicas) >= 3
            and (not r.alive or r.registered_since_failover or r.leader_epoch > z[2])):
        return True  # KIP-380 at RF=3 (issue 29bm): the view no longer reaches it
    log = r.log
    return all(off < len(log) and log[off] == (rid, ep)
               for off, rid, ep in held_records(s) if ep == z[2])


def _zombie_leader_holds_its_records_z3(d, s, unreached=True):
    from checker.symbolic.strengthen.base import held_slots_z3

    if not d.failovers or d.power_loss or d.disk_loss:
        return z3.BoolVal(True)
    out = []
    for present, i, rid, ep in held_slots_z3(d, s):
        for lead, lr in enumerate(s.reps):
            reach = (z3.And(lr.alive, z3.Not(lr.zreg), lr.lep <= s.z_lep)
                     if unreached and d.zombie_epoch and d.n >= 3
                     else z3.BoolVal(True))  # KIP-380 at RF=3 (issue 29bm)
            out.append(z3.Implies(z3.And(s.zomb, s.z_leader == lead, present, ep == s.z_lep, reach),
                                  z3.And(i < lr.leo, lr.log_id[i] == rid, lr.log_ep[i] == ep)))
    return z3.And(out)


def _followed_past(s, b: int, zep: int) -> bool:
    """A running follower that is done truncating, with records, follows broker ``b`` in an epoch
    newer than ``zep``, or holds a fetch response ``b`` sent in such an epoch: ``b`` took that
    epoch (truncated-against-a-leader: a follower truncates against its leader's
    OffsetsForLeaderEpoch answer, fenced on the epoch; only a leader in the epoch answers a
    fetch)."""
    return any((r.alive and r.leader == b and f != b and r.leader_epoch > zep and not r.truncating
                and r.log) or (r.fetch_response and r.fetch_response[0] == b and f != b
                               and r.fetch_response[1] > zep)
               for f, r in enumerate(s.replicas))


def _followed_past_z3(d, s, b: int):
    return z3.Or([z3.Or(z3.And(r.alive, r.leader == b, r.lep > s.z_lep, z3.Not(r.truncating),
                               r.leo > 0),
                        z3.And(r.fr, r.fr_leader == b, r.fr_epoch > s.z_lep))
                  for f, r in enumerate(s.reps) if f != b])


def _zombie_epoch_passed_crashed(s, config) -> bool:
    z = s.zombie_controller
    if not _epoch_counts_apply(config) or not z:
        return True
    later = sum(1 for b, r in enumerate(s.replicas) if (not r.alive or r.leader_epoch == -1)
                and (any(ep > z[2] for _, ep in r.log) or _followed_past(s, b, z[2])))
    return later + (1 if s.controller.leader_epoch > z[2] else 0) <= s.crashes


def _zombie_epoch_passed_crashed_z3(d, s):
    if (not d.failovers or d.expiries or d.shutdowns or not d.ordered or d.operators
            or d.shrink_bumps):
        return z3.BoolVal(True)
    later = [z3.And(z3.Or(z3.Not(r.alive), r.lep == -1),
                    z3.Or([z3.And(i < r.leo, r.log_ep[i] > s.z_lep) for i in range(d.slots)]
                          + [_followed_past_z3(d, s, b)]))
             for b, r in enumerate(s.reps)]
    return z3.Implies(s.zomb, count(later + [s.c_epoch > s.z_lep]) <= s.crashes)



def _zombie_leaderless_isr_is_last_leader(s, config) -> bool:
    from checker.symbolic.strengthen.history import epoch_claims

    z = s.zombie_controller
    if config.bounds.max_controller_failovers == 0 or not z or z[1] != -1:
        return True
    if not _leaderless_isr_is_one(config):
        return True
    _, _, epoch, isr = z
    claims = epoch_claims(s) + [(0, 0)]  # epoch 0: the leader the partition was created with
    return all(leader in isr for e, leader in claims if e == epoch - 1 and leader >= 0)


def _zombie_leaderless_isr_is_last_leader_z3(d, s):
    from checker.symbolic.strengthen.history import epoch_claims_z3

    if not d.failovers or d.expands_dead or d.alter:
        return z3.BoolVal(True)
    claims = epoch_claims_z3(d, s) + [(z3.BoolVal(True), num.val(0), num.val(0))]
    out = []
    for present, e, leader in claims:
        member = z3.Or([z3.And(leader == j, s.z_isr[j]) for j in range(d.n)])
        out.append(z3.Implies(z3.And(present, e + 1 == s.z_lep, leader >= 0), member))
    return z3.Implies(z3.And(s.zomb, s.z_leader == -1), z3.And(out))


def _zombie_leaderless_next_leader_from_isr(s, config) -> bool:
    from checker.symbolic.strengthen.history import epoch_claims

    z = s.zombie_controller
    if config.bounds.max_controller_failovers == 0 or not z or z[1] != -1:
        return True
    if "eligible-leader-replicas" in config.rules:
        return True  # KIP-966: a leader from the ELR or the last known leader
    _, _, epoch, isr = z
    return all(leader in isr for e, leader in epoch_claims(s) if e == epoch + 1 and leader >= 0)


def _zombie_leaderless_next_leader_from_isr_z3(d, s):
    from checker.symbolic.strengthen.history import epoch_claims_z3

    if not d.failovers or d.elr:
        return z3.BoolVal(True)
    out = []
    for present, e, leader in epoch_claims_z3(d, s):
        member = z3.Or([z3.And(leader == j, s.z_isr[j]) for j in range(d.n)])
        out.append(z3.Implies(z3.And(present, e == s.z_lep + 1, leader >= 0), member))
    return z3.Implies(z3.And(s.zomb, s.z_leader == -1), z3.And(out))


def _zombie_leader_acked_below_hw(s, config) -> bool:
    z = s.zombie_controller
    if config.bounds.max_controller_failovers == 0 or not z or z[1] == -1:
        return True
    r = s.replicas[z[1]]
    if r.alive and r.leader_epoch >= z[2]:
        return True  # the zombie's request no longer reaches it (a crash first)
    if "broker-epoch" in config.rules and (not r.alive or r.registered_since_failover):
        return True  # KIP-380 (issue 29bi): it registers (again) since the failover, and refuses it
    return all(off < r.high_watermark for rid, off in s.acked
               if off < len(r.log) and r.log[off] == (rid, z[2]))


def _zombie_leader_acked_below_hw_z3(d, s):
    from checker.symbolic.formulas import holds_acked
    from checker.symbolic.state import sel

    if not d.failovers:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        for k in range(d.records):
            o = s.acked_off[k]
            reach = (z3.And(r.alive, z3.Not(r.zreg)) if d.zombie_epoch
                     else z3.BoolVal(True))  # KIP-380: refused once registered since
            own = z3.And(s.zomb, s.z_leader == b, z3.Or(z3.Not(r.alive), r.lep < s.z_lep), reach,
                         s.acked[k], holds_acked(s, r, k),
                         sel(r.log_ep, o, -1) == s.z_lep)
            out.append(z3.Implies(own, o < r.hw))
    return z3.And(out)


def _kept_alone(s, b: int, e: int) -> bool:
    """``history.kept_log_since``, or: no other broker can have taken any epoch broker ``b`` may
    have been in since ``e`` (each has, since its last restart, applied only older epochs, or
    waits for an older request: ``history.never_took``). A broker truncates only as a follower,
    against a leader that took the follower's epoch (truncated-against-a-leader; OffsetsForLeaderEpoch
    is fenced), so then ``b`` kept its log since ``e``: no epoch in between need be named, which a
    failover leaves unnamed (the new controller resends only the current epoch)."""
    from checker.symbolic.strengthen.history import kept_log_since, never_took, upto_epoch

    if kept_log_since(s, b, e):
        return True
    return all(never_took(s, m, x) for x in range(e + 1, upto_epoch(s, b) + 1)
               for m in range(len(s.replicas)) if m != b)


def _kept_alone_z3(d, s, b: int, e):
    from checker.symbolic.strengthen.history import kept_log_since_z3, never_took_z3, upto_epoch_z3

    upto = upto_epoch_z3(s, b)
    alone = [z3.Implies(z3.And(e < x, x <= upto), z3.And([never_took_z3(d, s, num.val(m), x)
                                                          for m in range(d.n) if m != b]))
             for x in range(d.max_epoch + 1)]
    return z3.Or(kept_log_since_z3(d, s, b, e), z3.And(alone))


def _fetch_response_from_lone_leader_log(s, config) -> bool:
    from checker.symbolic.strengthen.fetches import _fetch_response_from_leader_log

    if config.bounds.max_controller_failovers == 0 and config.bounds.max_session_expiries == 0:
        return True  # issue 29bd: under session expiries too
    return _fetch_response_from_leader_log(s, kept=_kept_alone)


def _fetch_response_from_lone_leader_log_z3(d, s):
    from checker.symbolic.strengthen.fetches import _fetch_response_from_leader_log_z3

    if not d.failovers and not d.expiries:  # issue 29bd: under session expiries too
        return z3.BoolVal(True)
    return _fetch_response_from_leader_log_z3(d, s, kept=_kept_alone_z3)


def _named_lone_leader_holds_its_records(s, config) -> bool:
    from checker.symbolic.strengthen.logs import _named_leader_holds_its_records

    if config.bounds.max_controller_failovers == 0 and config.bounds.max_session_expiries == 0:
        return True  # issue 29bd: under session expiries too
    return _named_leader_holds_its_records(s, kept=_kept_alone)


def _named_lone_leader_holds_its_records_z3(d, s):
    from checker.symbolic.strengthen.logs import _named_leader_holds_its_records_z3

    if not d.failovers and not d.expiries:  # issue 29bd: under session expiries too
        return z3.BoolVal(True)
    return _named_leader_holds_its_records_z3(d, s, kept=_kept_alone_z3)


def _leader_isr_is_controller_isr_past_the_zombie(s, config) -> bool:
    from checker.symbolic.strengthen.isr_hw import _leader_isr_is_controller_isr

    z = s.zombie_controller
    if config.bounds.max_controller_failovers == 0 or not z or s.controller.leader_epoch <= z[2]:
        return True
    return _leader_isr_is_controller_isr(s, config)


def _leader_isr_is_controller_isr_past_the_zombie_z3(d, s):
    from checker.symbolic.strengthen.isr_hw import _leader_isr_is_controller_isr_z3

    if not d.failovers:
        return z3.BoolVal(True)
    return z3.Implies(z3.And(s.zomb, s.c_epoch > s.z_lep), _leader_isr_is_controller_isr_z3(d, s))


def _waiting_in_isr(s, config) -> int:
    """Running brokers waiting for an epoch since a restart that are in the controller's ISR under
    another leader, or that are its leader in an epoch after one that had a leader (it was live
    when elected, so it restarted without the controller handling it) or with others in its ISR
    (after a leaderless epoch the restart's election makes the leaderless ISR, the broker alone,
    the new ISR; only the leader adds members once it took the epoch) or a request of the epoch
    carrying another ISR than the controller's, or the zombie's view of the epoch doing so (only
    the leader changes it within the epoch);
    running brokers behind the epoch they are the controller's leader of, after a leaderless
    epoch, with others in the ISR (they took it, then crashed and took the zombie's view); a
    running leader of the controller's epoch, the zombie's view's too, with another ISR than the
    controller's (it changed the ISR in that epoch, then restarted and took the zombie's view:
    a crash no epoch counts; not with AlterPartition, whose pending changes differ); and
    running brokers behind the controller's epoch (or waiting) that a running
    leader of that epoch, new leader in it (the epoch before names another leader, or none),
    holds a remote LEO of (a fetch in that epoch: ``Partition.makeLeader`` resets them for a new
    leader at 2.1.0, and a restart too; a broker leaves an epoch it took only by a crash, and the
    zombie's older view then)."""
    from checker.symbolic.strengthen.crashes_restarts import _leaders_by_epoch

    c = s.controller
    named, none = _leaders_by_epoch(s), _no_leader_epochs(s)
    fresh = [lead for lead, lr in enumerate(s.replicas)
             if lr.alive and lr.leader == lead and lr.leader_epoch == c.leader_epoch >= 1
             and (named.get(c.leader_epoch - 1, set()) - {lead} or c.leader_epoch - 1 in none)]
    from checker.symbolic.strengthen.base import held_records

    had_leader = (c.leader_epoch - 1 in named
                  or any(ep == c.leader_epoch - 1 for _, _, ep in held_records(s)))
    z = s.zombie_controller  # the zombie's view is of the controller's epoch (not with AlterPartition)
    zombie_epoch = bool(z) and z[2] == c.leader_epoch and "alter-partition" not in config.rules
    quick = had_leader or (len(c.isr) > 1 and _leaderless_isr_is_one(config)) or any(
        e == c.leader_epoch and set(isr) != set(c.isr) for _, e, _, isr in s.leader_and_isr) or (
        zombie_epoch and set(z[3]) != set(c.isr))
    return sum(1 for b, r in enumerate(s.replicas) if (
        (r.alive and r.leader_epoch == -1 and b in c.isr and c.leader not in (-1, b))
        or (r.alive and r.leader_epoch == -1 and b == c.leader and quick)
        or (r.alive and r.leader == b and r.leader_epoch == c.leader_epoch and zombie_epoch
            and set(r.isr) != set(c.isr))
        or (r.alive and 0 <= r.leader_epoch < c.leader_epoch and b == c.leader
            and c.leader_epoch - 1 in none and len(c.isr) > 1 and _leaderless_isr_is_one(config))
        or ((r.leader_epoch < c.leader_epoch if r.alive else b not in c.live_brokers)
            and any(lead != b and s.replicas[lead].remote_log_end_offsets[b] >= 0
                    for lead in fresh))))


def _waiting_in_isr_z3(d, s) -> list:
    from checker.symbolic.strengthen.crashes_restarts import _named_epochs_z3

    at, _ = _named_epochs_z3(d, s)
    views = [(s.c_leader == -1, s.c_epoch), (z3.And(s.zomb, s.z_leader == -1), s.z_lep)]
    views += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == -1), num.val(e))
              for b in range(d.n) for e in range(len(s.lai[b]))]
    views += [(z3.And(r.alive, r.lep >= 0, r.leader == -1), r.lep) for r in s.reps]
    fresh = []
    for lead, lr in enumerate(s.reps):
        before = []
        for x in range(d.max_epoch):
            before += [z3.And(s.c_epoch == x + 1, named, cl != lead) for named, cl in at[x]]
        before += [z3.And(p, e + 1 == s.c_epoch) for p, e in views]
        fresh.append(z3.And(lr.alive, lr.leader == lead, lr.lep == s.c_epoch, s.c_epoch >= 1,
                            z3.Or(before)))
    out = []
    from checker.symbolic.strengthen.base import held_slots_z3

    _, known = _named_epochs_z3(d, s)
    restarted = z3.Or([z3.And(known[x], s.c_epoch == x + 1) for x in range(d.max_epoch)]
                      + [z3.And(p, ep + 1 == s.c_epoch) for p, _, _, ep in held_slots_z3(d, s)])
    if not (d.expands_dead or d.alter):  # (_leaderless_isr_is_one)
        restarted = z3.Or(restarted, count(s.c_isr) > 1)
    restarted = z3.Or([restarted] + [
        z3.And(s.lai[b][e], s.c_epoch == e, z3.Or([x != y for x, y in zip(s.lai_isr[b][e], s.c_isr)]))
        for b in range(d.n) for e in range(len(s.lai[b]))])
    if not d.alter:
        restarted = z3.Or(restarted, z3.And(s.zomb, s.z_lep == s.c_epoch,
                                            z3.Or([x != y for x, y in zip(s.z_isr, s.c_isr)])))
    behind = z3.BoolVal(False)
    if not (d.expands_dead or d.alter):  # (_leaderless_isr_is_one)
        behind = z3.And(z3.Or([z3.And(p, e + 1 == s.c_epoch) for p, e in views]),
                        count(s.c_isr) > 1)
    for b, r in enumerate(s.reps):
        fetched = [z3.And(fresh[lead], s.reps[lead].remote[b] >= 0) for lead in range(d.n) if lead != b]
        out.append(z3.And(r.alive, r.lep >= 0, r.lep < s.c_epoch, s.c_leader == b, behind))
        if not d.alter:
            out.append(z3.And(r.alive, r.leader == b, r.lep == s.c_epoch, s.zomb, s.z_lep == s.c_epoch,
                              z3.Or([x != y for x, y in zip(r.isr, s.c_isr)])))
        out.append(z3.Or(z3.And(r.alive, r.lep == -1, s.c_isr[b], s.c_leader != -1,
                                s.c_leader != b),
                         z3.And(r.alive, r.lep == -1, s.c_leader == b, restarted),
                         z3.And(z3.If(r.alive, r.lep < s.c_epoch, z3.Not(s.c_live[b])),
                                z3.Or(fetched))))
    return out


def _unnamed_bumps(s, config) -> int:
    """Epochs ``y`` of the controller's, not leaderless, whose epoch before no view names a leader
    for (leaderless-epochs-crashed counts those already) but that name a leader other than the
    one epoch ``y - 2`` names: epoch ``y - 1`` had a leader then (a leaderless epoch's ISR is its
    last leader alone, whom the next election picks: ``leaderless-isr-is-last-leader``), so
    ``y`` was made by handling a failure. Not with AlterPartition or kmc 0.1's
    isr-expansion-as-own-step, where a leaderless ISR may hold more."""
    from checker.symbolic.strengthen.crashes_restarts import _leaders_by_epoch
    from checker.symbolic.strengthen.base import held_records

    if not _leaderless_isr_is_one(config):
        return 0
    named, none = _leaders_by_epoch(s), _no_leader_epochs(s)
    known = set(named) | {ep for _, _, ep in held_records(s)}  # counted already
    return sum(1 for y in range(2, s.controller.leader_epoch + 1)
               if y - 1 not in known and y not in none
               and named.get(y, set()) - named.get(y - 2, set()))


def _unnamed_bumps_z3(d, s) -> list:
    from checker.symbolic.strengthen.base import held_slots_z3
    from checker.symbolic.strengthen.crashes_restarts import _named_epochs_z3

    if d.expands_dead or d.alter:
        return []
    at, known = _named_epochs_z3(d, s)
    slots = held_slots_z3(d, s)
    views = [(s.c_leader == -1, s.c_epoch), (z3.And(s.zomb, s.z_leader == -1), s.z_lep)]
    views += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == -1), num.val(e))
              for b in range(d.n) for e in range(len(s.lai[b]))]
    views += [(z3.And(r.alive, r.lep >= 0, r.leader == -1), r.lep) for r in s.reps]
    out = []
    for y in range(2, d.max_epoch + 1):
        before = z3.Or([known[y - 1]] + [z3.And(p, ep == y - 1) for p, _, _, ep in slots])
        leaderless = z3.Or([z3.And(p, e == y) for p, e in views])
        other = z3.Or([z3.And(n, z3.And([z3.Not(z3.And(m, cm == c)) for m, cm in at[y - 2]]))
                       for n, c in at[y]])
        out.append(z3.And(y <= s.c_epoch, z3.Not(before), z3.Not(leaderless), other))
    return out


def _handled_down_in_isr(s, config) -> int:
    """Under KIP-497's AlterPartition (2.7+, without the ELR, which ``_unhandled_failures``
    counts its own way): brokers down, handled, and in the controller's ISR under another leader.
    The controller took such a broker's failure without an epoch (it was not in the ISR then:
    ``onBrokerFailure`` at 2.7.0 bumps the epoch of a partition only for an ISR member), and the
    leader's expansion, proposed before the crash, was accepted after (no eligibility check
    before KIP-841 / KIP-903): a crash no epoch counts. And brokers waiting after a restart that
    a running leader proposes to add, not in the controller's ISR: proposed only once it fetched
    in the leader's epoch (KIP-320), it crashed since, and its failure made no epoch (not an ISR
    member); the answer moves it into the ISR, where ``_waiting_in_isr`` counts it instead.
    Only below two crashes: with two the count is false on 1,636 of 2.7's 134,510 reachable
    states (the form without these terms holds on all of them; 2026-11-29, lead)."""
    if ("alter-partition" not in config.rules or "eligible-leader-replicas" in config.rules
            or s.crashes >= 2):
        return 0
    c = s.controller
    down = sum(1 for b, r in enumerate(s.replicas)
               if not r.alive and b not in c.live_brokers and b in c.isr
               and c.leader not in (b, -1))
    proposed = {m for b, r in enumerate(s.replicas)
                if r.alive and r.leader == b and r.leader_epoch == c.leader_epoch
                and r.alter_partition and r.alter_partition[2] == c.leader_epoch
                for m in r.alter_partition[1]}
    waiting = sum(1 for b, r in enumerate(s.replicas)
                  if b in proposed and b not in c.isr
                  and (r.alive and r.leader_epoch == -1 or not r.alive and b not in c.live_brokers))
    return down + waiting


def _handled_down_in_isr_z3(d, s) -> list:
    if not d.alter or d.elr:
        return []
    one = s.crashes < 2
    out = [z3.And(one, z3.Not(r.alive), z3.Not(s.c_live[b]), s.c_isr[b], s.c_leader != b,
                  s.c_leader != -1) for b, r in enumerate(s.reps)]
    for f, fr in enumerate(s.reps):
        proposed = z3.Or([z3.And(r.alive, r.leader == b, r.lep == s.c_epoch, r.alt != 0,
                                 r.alt_ep == s.c_epoch, r.alt_isr[f])
                          for b, r in enumerate(s.reps) if b != f])
        gone = z3.Or(z3.And(fr.alive, fr.lep == -1), z3.And(z3.Not(fr.alive), z3.Not(s.c_live[f])))
        out.append(z3.And(one, gone, proposed, z3.Not(s.c_isr[f])))
    return out


def _waiting_isr_members_crashed(s, config) -> bool:
    return _leaderless_epochs_crashed(
        s, config, extra=lambda s: (_waiting_in_isr(s, config) + _unnamed_bumps(s, config)
                                    + _handled_down_in_isr(s, config)))


def _waiting_isr_members_crashed_z3(d, s):
    return _leaderless_epochs_crashed_z3(
        d, s, extra=lambda d, s: (_waiting_in_isr_z3(d, s) + _unnamed_bumps_z3(d, s)
                                  + _handled_down_in_isr_z3(d, s)))


def _leaderless_epoch_leader_restarted(s, config) -> bool:
    from checker.symbolic.strengthen.crashes_restarts import _leaders_by_epoch

    if not _leaderless_counts(config):
        return True
    named = _leaders_by_epoch(s)
    z = s.zombie_controller
    for y in _no_leader_epochs(s):
        for lead in named.get(y - 1, ()):
            if any(b == lead and e < y for b, e, _, _ in s.leader_and_isr):
                return False
            r = s.replicas[lead]
            if r.alive and 0 <= r.leader_epoch < y and not (z and r.leader_epoch == z[2]):
                return False
    return True


def _leaderless_epoch_leader_restarted_z3(d, s):
    from checker.symbolic.strengthen.crashes_restarts import _named_epochs_z3

    if not d.failovers or d.expiries or d.shutdowns:
        return z3.BoolVal(True)
    at, _ = _named_epochs_z3(d, s)
    views = [(s.c_leader == -1, s.c_epoch), (z3.And(s.zomb, s.z_leader == -1), s.z_lep)]
    views += [(z3.And(s.lai[b][e], s.lai_leader[b][e] == -1), num.val(e))
              for b in range(d.n) for e in range(len(s.lai[b]))]
    views += [(z3.And(r.alive, r.lep >= 0, r.leader == -1), r.lep) for r in s.reps]
    out = []
    for present, y in views:
        for x in range(d.max_epoch):
            for named, lead in at[x]:
                for b, r in enumerate(s.reps):
                    older = z3.Or([z3.And(s.lai[b][e], e < y) for e in range(len(s.lai[b]))])
                    older = z3.Or(older, z3.And(r.alive, r.lep >= 0, r.lep < y,
                                                z3.Not(z3.And(s.zomb, r.lep == s.z_lep))))
                    out.append(z3.Implies(z3.And(present, y == x + 1, named, lead == b), z3.Not(older)))
    return z3.And(out)



def _epoch_views(s) -> list:
    """(leader epoch, leader, ISR) of every view of an epoch: the controller's, each LeaderAndIsr
    in flight, the zombie's frozen one."""
    c, z = s.controller, s.zombie_controller
    views = [(c.leader_epoch, c.leader, set(c.isr))]
    views += [(e, leader, set(isr)) for _, e, leader, isr in s.leader_and_isr]
    if z:
        views.append((z[2], z[1], set(z[3])))
    return views


def _epoch_views_z3(d, s) -> list:
    """``_epoch_views`` over z3 terms: (present, epoch, leader, ISR bits)."""
    views = [(z3.BoolVal(True), s.c_epoch, s.c_leader, s.c_isr), (s.zomb, s.z_lep, s.z_leader, s.z_isr)]
    return views + [(s.lai[b][e], num.val(e), s.lai_leader[b][e], s.lai_isr[b][e])
                    for b in range(d.n) for e in range(len(s.lai[b]))]

def _untaken_epoch_isr_agrees(s, config) -> bool:
    from checker.symbolic.strengthen.history import never_took

    if config.bounds.max_controller_failovers == 0:
        return True
    views = _epoch_views(s)
    for e, leader, isr in views:
        if leader < 0 or not never_took(s, leader, e):
            continue
        if any(e2 == e and isr2 != isr for e2, _, isr2 in views):
            return False
    return True


def _untaken_epoch_isr_agrees_z3(d, s):
    from checker.symbolic.strengthen.history import never_took_z3

    if not d.failovers:
        return z3.BoolVal(True)
    views = _epoch_views_z3(d, s)
    out = []
    for i, (p, e, leader, isr) in enumerate(views):
        untaken = z3.And(p, leader >= 0, never_took_z3(d, s, leader, e))
        for j, (p2, e2, _, isr2) in enumerate(views):
            if i != j:
                out.append(z3.Implies(z3.And(untaken, p2, e2 == e),
                                      z3.And([x == y for x, y in zip(isr, isr2)])))
    return z3.And(out)


def _kept_remote_leo_is_lone_follower_prefix(s, config) -> bool:
    from checker.symbolic.strengthen.remote_leos import _kept_remote_leo_is_follower_prefix

    if config.bounds.max_controller_failovers == 0 and config.bounds.max_session_expiries == 0:
        return True  # issue 29bd: under session expiries too
    return _kept_remote_leo_is_follower_prefix(s, config, kept=_kept_alone)


def _kept_remote_leo_is_lone_follower_prefix_z3(d, s):
    from checker.symbolic.strengthen.remote_leos import _kept_remote_leo_is_follower_prefix_z3

    if not d.failovers and not d.expiries:  # issue 29bd: under session expiries too
        return z3.BoolVal(True)
    return _kept_remote_leo_is_follower_prefix_z3(d, s, kept=_kept_alone_z3)

def _untaken_epoch_lost_a_member_applies(config) -> bool:
    return (config.bounds.max_controller_failovers > 0 and _epoch_counts_apply(config)
            and "alter-partition" not in config.rules)


def _untaken_epoch_lost_a_member(s, config) -> bool:
    from checker.symbolic.strengthen.history import never_took

    c = s.controller
    if not _untaken_epoch_lost_a_member_applies(config) or c.leader < 0 or c.leader_epoch < 1:
        return True
    if not never_took(s, c.leader, c.leader_epoch):
        return True
    return len(c.isr) < len(s.replicas)


def _untaken_epoch_lost_a_member_z3(d, s):
    from checker.symbolic.strengthen.history import never_took_z3

    if (not d.failovers or d.expiries or d.shutdowns or not d.ordered or d.operators
            or d.shrink_bumps or d.alter):
        return z3.BoolVal(True)
    untaken = never_took_z3(d, s, s.c_leader, s.c_epoch)
    return z3.Implies(z3.And(s.c_leader >= 0, s.c_epoch >= 1, untaken), count(s.c_isr) < d.n)


def _waiting_leader_requests_current(s, config) -> bool:
    c = s.controller
    if config.bounds.max_controller_failovers == 0 or (
            "alter-partition" in config.rules and "broker-epoch" not in config.rules):
        return True
    if c.leader < 0 or s.replicas[c.leader].leader_epoch != -1 or not s.replicas[c.leader].alive:
        return True
    return all(set(isr) == set(c.isr) for b, e, _, isr in s.leader_and_isr
               if b == c.leader and e == c.leader_epoch)


def _waiting_leader_requests_current_z3(d, s):
    if not d.failovers or (d.alter and not d.zombie_epoch):
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        for e in range(len(s.lai[b])):
            same = z3.And([x == y for x, y in zip(s.lai_isr[b][e], s.c_isr)])
            out.append(z3.Implies(z3.And(s.c_leader == b, r.alive, r.lep == -1, s.lai[b][e],
                                         s.c_epoch == e), same))
    return z3.And(out)


def _running_leader_isr_holds_hw(s) -> bool:
    from checker.symbolic.strengthen.base import holds_below
    from checker.symbolic.strengthen.history import follower_kept_log_since
    from checker.symbolic.strengthen.isr_hw import _isr_view
    for b, r in enumerate(s.replicas):
        if not (r.alive and r.leader == b):
            continue
        e = r.leader_epoch
        for f in set(_isr_view(r)) - {b}:
            fr = s.replicas[f]
            not_past = 0 <= fr.leader_epoch <= e or follower_kept_log_since(s, f, b, e)
            if not_past and not holds_below(fr, r, r.high_watermark):
                return False
    return True


def _running_leader_isr_holds_hw_z3(d, s):
    from checker.symbolic.strengthen.base import holds_below_z3
    from checker.symbolic.strengthen.history import follower_kept_log_since_z3
    from checker.symbolic.strengthen.isr_hw import _isr_view_z3
    out = []
    for b, r in enumerate(s.reps):
        isr = _isr_view_z3(d, r)
        for f, fr in enumerate(s.reps):
            if f == b:
                continue
            not_past = z3.Or(z3.And(fr.lep >= 0, fr.lep <= r.lep),
                             follower_kept_log_since_z3(d, s, f, b, r.lep))
            out.append(z3.Implies(z3.And(r.alive, r.leader == b, isr[f], not_past),
                                  holds_below_z3(d, fr, r, r.hw)))
    return z3.And(out)


def _waiting_leader_past_the_zombie_registered(s, config) -> bool:
    z = s.zombie_controller
    if not z or "broker-epoch" not in config.rules or s.crashes >= 2:
        return True
    named = {(b, e) for b, e, leader, _ in s.leader_and_isr if leader == b}
    c = s.controller
    if c.leader >= 0:
        named.add((c.leader, c.leader_epoch))
        if c.leader_epoch == z[2] and set(c.isr) != set(z[3]):
            named.add((c.leader, z[2] + 1))  # changed the ISR since: ran in the epoch since
    for b, e in named:
        r = s.replicas[b]
        if e > z[2] and r.alive and r.leader_epoch == -1 and not r.registered_since_failover:
            return False
    return True


def _waiting_leader_past_the_zombie_registered_z3(d, s):
    if not d.zombie_epoch:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        waiting = z3.And(s.zomb, r.alive, r.lep == -1, z3.Not(r.zreg), s.crashes < 2)
        changed = z3.Or([s.c_isr[j] != s.z_isr[j] for j in range(d.n)])
        named = [z3.And(s.c_leader == b, z3.Or(s.c_epoch > s.z_lep,
                                               z3.And(s.c_epoch == s.z_lep, changed)))]
        named += [z3.And(s.lai[b][e], s.lai_leader[b][e] == b, num.val(e) > s.z_lep)
                  for e in range(len(s.lai[b]))]
        out.append(z3.Implies(waiting, z3.Not(z3.Or(named))))
    return z3.And(out)


def _running_leader_isr_is_controller_isr(s, config) -> bool:
    from checker.symbolic.strengthen.isr_hw import KEEPS, _answered, _changed_to
    if not s.zombie_controller or "broker-epoch" not in config.rules:
        return True
    c = s.controller
    keeps = KEEPS in config.rules
    return all(r.isr == c.isr or _answered(r, c.isr)
               or keeps and _changed_to(s, b, c.leader_epoch, c.isr) for b, r in enumerate(s.replicas)
               if r.alive and r.leader == b and r.leader_epoch == c.leader_epoch)


def _running_leader_isr_is_controller_isr_z3(d, s):
    from checker.symbolic.strengthen.isr_hw import _answered_z3, _changed_to_z3
    if not d.zombie_epoch:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(s.zomb, r.alive, r.leader == b, r.lep == s.c_epoch),
                              z3.Or(z3.And([x == y for x, y in zip(r.isr, s.c_isr)]),
                                    _answered_z3(d, r, s.c_isr),
                                    _changed_to_z3(d, s, b, s.c_epoch, s.c_isr)))
                   for b, r in enumerate(s.reps)])


def _leaderless_epoch_isr_agrees(s, config) -> bool:
    if config.bounds.max_controller_failovers == 0:
        return True
    views = _epoch_views(s)
    leaderless = [(e, isr) for e, leader, isr in views if leader < 0]
    return all(isr2 == isr for e, isr in leaderless for e2, leader2, isr2 in views
               if e2 == e and leader2 < 0)


def _leaderless_epoch_isr_agrees_z3(d, s):
    if not d.failovers:
        return z3.BoolVal(True)
    views = _epoch_views_z3(d, s)
    out = []
    for i, (p, e, leader, isr) in enumerate(views):
        for p2, e2, leader2, isr2 in views[i + 1:]:
            both = z3.And(p, p2, leader < 0, leader2 < 0, e == e2)
            out.append(z3.Implies(both, z3.And([x == y for x, y in zip(isr, isr2)])))
    return z3.And(out)


def _waiting_unregistered_in_zombie_epoch(s, config) -> bool:
    z = s.zombie_controller
    if not z or "broker-epoch" not in config.rules or s.crashes >= 2:
        return True
    return s.controller.leader_epoch == z[2] or all(
        r.registered_since_failover for r in s.replicas if r.alive and r.leader_epoch == -1)


def _waiting_unregistered_in_zombie_epoch_z3(d, s):
    if not d.zombie_epoch:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(s.zomb, s.crashes < 2, r.alive, r.lep == -1, z3.Not(r.zreg)),
                              s.c_epoch == s.z_lep) for r in s.reps])



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
    Strengthening("leaderless-isr-crashed", "under controller failovers (without session "
                  "expiries or controlled shutdowns), the brokers that are down, restarted and "
                  "waiting for an epoch, or in the ISR of a leaderless view (the controller's, a "
                  "LeaderAndIsr in flight, the zombie's) are at most the crashes: each crashed at "
                  "least once, as the controller elects nobody only when it takes out a failed "
                  "leader with no live ISR member (``onBrokerFailure`` at 2.1.0), and a broker "
                  "leaves its live set only when its failure is handled. The zombie keeps a "
                  "leaderless view after the broker has restarted, so crashes-counted alone "
                  "forgets that crash",
                  _leaderless_isr_crashed, _leaderless_isr_crashed_z3, uses_config=True),
    Strengthening("newer-epochs-from-the-active-controller", "under controller failovers, a "
                  "leader epoch newer than the zombie's view is one the active controller made "
                  "(the zombie's view is the deposed controller's last, and a new controller "
                  "resends the current epoch, ``KafkaController.onControllerFailover`` at 2.1.0): "
                  "every LeaderAndIsr in flight of such an epoch carries the active controller "
                  "epoch, and a running broker in such an epoch has obeyed the active controller "
                  "(``becomeLeaderOrFollower`` records the request's controller epoch)",
                  _newer_epochs_from_the_active_controller,
                  _newer_epochs_from_the_active_controller_z3, uses_config=True),
    Strengthening("active-controller-from-the-zombie-epoch-on", "under controller failovers, "
                  "the active controller has sent no leader epoch older than the zombie's view: "
                  "the view is the partition as the active controller found it when it took over "
                  "and resent it (``KafkaController.onControllerFailover`` at 2.1.0), and it "
                  "only makes newer epochs since; so every LeaderAndIsr in flight that carries "
                  "the active controller epoch is of the view's epoch or newer, and so is a "
                  "running broker that has obeyed the active controller",
                  _active_controller_from_the_zombie_epoch_on,
                  _active_controller_from_the_zombie_epoch_on_z3, uses_config=True),
    Strengthening("leaderless-epochs-hold-no-records", "under controller failovers, no log "
                  "holds a record of a leader epoch that a view names no leader for (the "
                  "controller's, a LeaderAndIsr in flight, the zombie's): only a leader appends, "
                  "and the controller that made the epoch elected nobody in it (the zombie only "
                  "resends a view it held, never a new epoch)",
                  _leaderless_epochs_hold_no_records, _leaderless_epochs_hold_no_records_z3,
                  uses_config=True),
    Strengthening("leaderless-epochs-crashed", "under controller failovers (with Kafka's "
                  "elections, no operator moves, no session expiries or controlled shutdowns), "
                  "epoch-bumps-crashed counting a leader epoch that a view names no leader for "
                  "(the controller's, a LeaderAndIsr in flight, the zombie's, a running broker's) "
                  "as a crash too, and an epoch a record is of as one that named a leader (only "
                  "a leader appends): the controller elects nobody only when it handles a broker's "
                  "failure (``onBrokerFailure`` at 2.1.0), so only an epoch after a leaderless "
                  "one that names a leader can be a restart's; the zombie keeps leaderless views "
                  "that the active controller has left behind",
                  _leaderless_epochs_crashed, _leaderless_epochs_crashed_z3, uses_config=True),
    Strengthening("zombie-leader-holds-its-records", "under controller failovers with process "
                  "crashes, the leader the zombie's view names holds every record of the view's "
                  "epoch held anywhere (a log, a fetch response), at its offset: epoch-leader-holds-"
                  "its-records for the one holder history.epoch_claims leaves out (a leader "
                  "appends its epoch's records itself and a process crash keeps them; at RF=2 "
                  "a truncation removes only records the other broker, the next leader, lacks). "
                  "At RF=3 with KIP-380's broker epoch (2.2+; issue 29bm) only while the view can "
                  "still reach that leader: running, not registered since the failover, not past "
                  "the view's epoch (a broker registered since refuses the view, "
                  "``KafkaApis.handleLeaderAndIsrRequest``'s stale broker epoch at 2.7.0, and a "
                  "broker past it ignores an older leader epoch, ``becomeLeaderOrFollower``): a "
                  "third broker may take a record of the view's epoch while the leader restarts "
                  "and truncates against a new leader that lacks it",
                  _zombie_leader_holds_its_records, _zombie_leader_holds_its_records_z3,
                  uses_config=True),
    Strengthening("zombie-epoch-passed-crashed", "under controller failovers (where "
                  "leaderless-epochs-crashed applies), a leader epoch newer than the zombie's "
                  "view took a crash to make (the controller makes one only by handling a "
                  "failure, or by a restart's election after a leaderless epoch, itself a failure "
                  "handled), and a broker down, or restarted and waiting, that holds a record of "
                  "such an epoch, or that a running follower done truncating (with records) "
                  "follows in such an epoch (it took the epoch: truncated-against-a-leader), or "
                  "whose fetch response of such an epoch is on its way, "
                  "crashed after it was made: each is a crash of its own",
                  _zombie_epoch_passed_crashed, _zombie_epoch_passed_crashed_z3,
                  uses_config=True),
    Strengthening("zombie-leaderless-isr-is-last-leader", "under controller failovers, a "
                  "leaderless zombie view's ISR holds the leader of the epoch before it, when a "
                  "request in flight, a running broker or the controller names one (epoch 0 names "
                  "broker 0): leaderless-isr-is-last-leader for the zombie's view, which is a view "
                  "the deposed controller held (``removeReplicasFromIsr`` keeps the failed leader, "
                  "the last live ISR member, in the ISR, at 2.1.0); off where that fact is off",
                  _zombie_leaderless_isr_is_last_leader, _zombie_leaderless_isr_is_last_leader_z3,
                  uses_config=True),
    Strengthening("zombie-leaderless-next-leader-from-isr", "under controller failovers, the "
                  "leader a request in flight, a running broker or the controller names for the "
                  "epoch after a leaderless zombie view is in that view's ISR: next-leader-from-isr "
                  "for the zombie's view (switched off under failovers for the others): the "
                  "controller leaves the ISR of a leaderless partition alone and elects a member "
                  "that comes back (``OfflinePartitionLeaderElectionStrategy`` at 2.1.0, unclean "
                  "election off, the library's premise); off with KIP-966's ELR",
                  _zombie_leaderless_next_leader_from_isr,
                  _zombie_leaderless_next_leader_from_isr_z3, uses_config=True),
    Strengthening("zombie-leader-acked-below-hw", "under controller failovers, the broker the "
                  "zombie's view names leader, while down or behind the view's epoch, has its HW "
                  "above every acked record of the view's epoch it holds: acked-below-writer-hw "
                  "with the zombie's view among the epochs "
                  "a broker is named leader of (its request may still make the broker that "
                  "leader again, ``becomeLeaderOrFollower`` at 2.1.0, which keeps the HW)",
                  _zombie_leader_acked_below_hw, _zombie_leader_acked_below_hw_z3,
                  uses_config=True),
    Strengthening("fetch-response-from-lone-leader-log", "under controller failovers, "
                  "fetch-response-from-leader-log also when no other broker can have taken an "
                  "epoch the sender may have been in since the response's (each applied only "
                  "older epochs since it last started): the sender cannot have truncated, as a "
                  "follower truncates only against a leader that took its epoch "
                  "(``ReplicaFetcherThread`` / OffsetsForLeaderEpoch at 2.1.0), while the epochs in "
                  "between need no longer be named by any request (the new controller resends only "
                  "the current epoch, ``onControllerFailover``)",
                  _fetch_response_from_lone_leader_log, _fetch_response_from_lone_leader_log_z3,
                  uses_config=True),
    Strengthening("named-lone-leader-holds-its-records", "under controller failovers, "
                  "named-leader-holds-its-records also when no other broker can have taken an "
                  "epoch the named leader may have been in since (fetch-response-from-lone-leader-"
                  "log's reason): a leader appends its epoch's records itself and truncates only "
                  "as a follower of a leader that took its epoch",
                  _named_lone_leader_holds_its_records, _named_lone_leader_holds_its_records_z3,
                  uses_config=True),
    Strengthening("leader-isr-is-controller-isr-past-the-zombie", "under controller "
                  "failovers, leader-isr-is-controller-isr while the controller's epoch is newer "
                  "than the zombie's view: that epoch is the active controller's own "
                  "(newer-epochs-from-the-active-controller), every request of it carries the ISR "
                  "the controller wrote to ZooKeeper, and its leader's ISR changes go through "
                  "ZooKeeper too (``Partition.updateIsr`` at 2.1.0); only a view the zombie sent, "
                  "of its older epoch, carries an ISR the leader has changed since",
                  _leader_isr_is_controller_isr_past_the_zombie,
                  _leader_isr_is_controller_isr_past_the_zombie_z3, uses_config=True),
    Strengthening("waiting-isr-members-crashed", "under controller failovers (where "
                  "leaderless-epochs-crashed applies), leaderless-epochs-crashed counting too "
                  "each running broker that waits for an epoch since a restart while in the "
                  "controller's ISR under another leader: the controller takes a failed broker "
                  "out of the ISR when it handles the failure (``onBrokerFailure`` -> "
                  "``removeReplicasFromIsr`` at 2.1.0, a new epoch, counted), and only its leader "
                  "adds it back after it fetched in the epoch; so its crash was not handled (a "
                  "quick restart), or it crashed again after it was added back: a crash no epoch "
                  "counts; likewise a waiting broker that is the controller's leader, in an "
                  "epoch after one with a leader (it was live when elected) or with others in "
                  "its ISR (after a leaderless epoch it took the epoch to add them), or with a "
                  "request or the zombie's view of the epoch carrying another ISR than the "
                  "controller's (only the "
                  "leader changes it within its epoch), or running behind such an epoch after a "
                  "leaderless one with others in its ISR; a leader of the controller's epoch, "
                  "the zombie's view's too, with another ISR than the controller's (it took the "
                  "zombie's view after a restart; not with AlterPartition); and "
                  "a waiting broker, one behind the controller's epoch, or one down whose "
                  "failure the controller handled, that "
                  "a new leader of that epoch has a remote LEO of (it fetched in that epoch, then "
                  "crashed, and took the zombie's older view if behind: "
                  "``Partition.makeLeader`` resets the remote LEOs for a new leader); and an "
                  "epoch after one no view names that names another leader than the epoch two "
                  "before (the one between had a leader, as a leaderless ISR is its last leader "
                  "alone and elects it back)",
                  _waiting_isr_members_crashed, _waiting_isr_members_crashed_z3,
                  uses_config=True),
    Strengthening("leaderless-epoch-leader-restarted", "under controller failovers (without "
                  "session expiries or controlled shutdowns), the leader named for the epoch "
                  "before a leaderless one (by a request, a running broker, the controller, the "
                  "zombie; epoch 0 broker 0) has no LeaderAndIsr older than the leaderless epoch "
                  "on its way, and if running is not in an older epoch than the leaderless one "
                  "but the zombie's view's: the controller elects nobody only when it handles the failure of "
                  "the leader (``onBrokerFailure`` at 2.1.0), a stop drops the requests on their "
                  "way to a broker, and after its restart a broker is sent only the current epoch "
                  "(the zombie's request, of an older one, is not among those in flight, and "
                  "is the one way back to an older epoch)",
                  _leaderless_epoch_leader_restarted, _leaderless_epoch_leader_restarted_z3,
                  uses_config=True),
    Strengthening("untaken-epoch-isr-agrees", "under controller failovers, the views of a "
                  "leader epoch whose leader has not taken it (the controller's, a LeaderAndIsr in "
                  "flight, the zombie's) carry one ISR: the controller writes an epoch's ISR when "
                  "it makes the epoch and changes it only with a new epoch (``onBrokerFailure`` "
                  "at 2.1.0), only the epoch's leader changes it within the epoch, and the new "
                  "controller resends what it read (``onControllerFailover``)",
                  _untaken_epoch_isr_agrees, _untaken_epoch_isr_agrees_z3, uses_config=True),
    Strengthening("kept-remote-leo-is-lone-follower-prefix", "under controller failovers, "
                  "kept-remote-leo-is-follower-prefix also when no other broker can have taken an "
                  "epoch the follower may have been in since the leader's (fetch-response-from-"
                  "lone-leader-log's reason: it cannot have truncated since)",
                  _kept_remote_leo_is_lone_follower_prefix,
                  _kept_remote_leo_is_lone_follower_prefix_z3, uses_config=True),
    Strengthening("untaken-epoch-lost-a-member", "under controller failovers (where "
                  "leaderless-epochs-crashed applies; not with AlterPartition), while the "
                  "controller's leader has not taken its epoch (after the first), the "
                  "controller's ISR lacks a broker: the controller makes an epoch only by taking "
                  "a failed broker out of the ISR (its leader, or a follower: ``onBrokerFailure`` "
                  "-> ``removeReplicasFromIsr`` at 2.1.0) or by a restart's election after a "
                  "leaderless epoch, whose ISR is the last leader alone; only the leader, in the "
                  "epoch, adds members (a running leader's view of its older epoch may be the "
                  "zombie's, so isr-grows-only-under-its-leader does not see it)",
                  _untaken_epoch_lost_a_member, _untaken_epoch_lost_a_member_z3,
                  uses_config=True),
    Strengthening("waiting-leader-requests-current", "under controller failovers (not with "
                  "AlterPartition before KIP-380's broker epoch), a LeaderAndIsr of the "
                  "controller's epoch on its way to the controller's leader while it waits after a restart carries the controller's "
                  "ISR: a stop drops the requests on their way to a broker, the controller sends "
                  "the ISR it has to a broker that registers, and only the epoch's leader changes "
                  "the ISR within the epoch (``Partition.updateIsr`` at 2.1.0), which it cannot "
                  "while it waits",
                  _waiting_leader_requests_current, _waiting_leader_requests_current_z3,
                  uses_config=True),
    Strengthening("running-leader-isr-holds-hw", "under controller failovers with KIP-380's "
                  "broker epoch (2.2+), isr-followers-hold-hw's half for running leaders: each "
                  "member of a running leader's (maximal) ISR that cannot have truncated since "
                  "holds its records below its HW. A leader advances its HW only over its ISR "
                  "(``Partition.maybeIncrementLeaderHW`` at 2.2.0 / 2.7.0) and takes an ISR with a "
                  "new leader epoch only from a controller; the deposed controller's frozen view "
                  "may name a member that lags behind the HW of a broker that restarted and took "
                  "it (2.1: false on 187 of 13,531 states), which a broker registered since the "
                  "failover refuses (true on 2.4, 2.7 and 3.1, RF=2, all reachable states; the "
                  "other half, the requests on their way, is false there)",
                  _running_leader_isr_holds_hw, _running_leader_isr_holds_hw_z3),
    Strengthening("waiting-leader-past-the-zombie-registered", "under controller failovers "
                  "with KIP-380's broker epoch (2.2+) and fewer than two crashes, a broker waiting "
                  "after a restart whom the controller or a LeaderAndIsr on its way names leader "
                  "of an epoch newer than the zombie's view registered since the failover: that "
                  "epoch was made after the failover, and the controller elects a broker waiting "
                  "after a restart at the restart (a leaderless partition, "
                  "``onBrokerStartup`` -> ``OnlinePartition`` at 2.2.0), so after the failover, "
                  "when the restart registered a broker epoch the deposed controller never "
                  "reads; otherwise only on another leader's failure, a second crash. Also the "
                  "controller's leader of the zombie's epoch when the controller's ISR is not the "
                  "view's: in ZooKeeper mode only that leader changes the ISR within its epoch "
                  "(AlterPartition, ``KafkaController.processAlterIsr`` at 2.7.0; "
                  "``Partition.updateIsr`` before), and a crash drops its pending request, so it "
                  "ran in the epoch after the failover and restarted since",
                  _waiting_leader_past_the_zombie_registered,
                  _waiting_leader_past_the_zombie_registered_z3, uses_config=True),
    Strengthening("running-leader-isr-is-controller-isr", "under controller failovers with "
                  "KIP-380's broker epoch (2.2+), leader-isr-is-controller-isr's half for running "
                  "leaders: a broker leading in the controller's leader epoch holds the "
                  "controller's ISR (or its answer is on its way). The other half, the requests "
                  "on their way, is false there (the new controller resends the ISR it read, "
                  "``onControllerFailover`` at 2.2.0, after the leader changed it); a broker "
                  "registered since the failover refuses the zombie's view (true on 2.4, 2.7 and "
                  "3.1, RF=2, all reachable states)",
                  _running_leader_isr_is_controller_isr,
                  _running_leader_isr_is_controller_isr_z3, uses_config=True),
    Strengthening("leaderless-epoch-isr-agrees", "under controller failovers, the views of a "
                  "leaderless epoch (the controller's, a LeaderAndIsr on its way, the zombie's) "
                  "carry one ISR: the controller writes a leaderless epoch's ISR when it makes it "
                  "and changes the ISR only with a new epoch (``onBrokerFailure`` / "
                  "``removeReplicasFromIsr`` at 2.1.0), no leader changes it within the epoch, and "
                  "the new controller resends what it read (``onControllerFailover``); "
                  "untaken-epoch-isr-agrees for epochs without a leader",
                  _leaderless_epoch_isr_agrees, _leaderless_epoch_isr_agrees_z3, uses_config=True),
    Strengthening("waiting-unregistered-in-zombie-epoch", "under controller failovers with "
                  "KIP-380's broker epoch (2.2+) and fewer than two crashes, while a broker "
                  "waits after a restart it made before the failover (not registered since), "
                  "the controller is still in the zombie's view's leader epoch: with one crash, "
                  "that broker's, the only epoch the new controller can make is the one handling "
                  "its failure, and in 2.2+ the controller that read its new registration handled "
                  "the bounce then (``processBrokerChange``'s bounced brokers at 2.2.0), before "
                  "the failover froze the zombie's view (false on 702 of 134,510 states of 2.7 "
                  "with two crashes, hence the bound)",
                  _waiting_unregistered_in_zombie_epoch,
                  _waiting_unregistered_in_zombie_epoch_z3, uses_config=True),
)
"""Facts only controller failovers need (issue 29ak), each from a counterexample to induction."""


KIP380 = (
    "running-leader-isr-holds-hw", "waiting-leader-past-the-zombie-registered",
    "running-leader-isr-is-controller-isr", "leaderless-epoch-isr-agrees",
    "waiting-unregistered-in-zombie-epoch",
)
"""The facts the lead added for a failover with KIP-380's broker epoch (2.2+, 2026-11-29): true by
definition without it (``_kip380``), so out of ``--strengthen all`` there (``library.all_names``):
Kafka 2.1's failover conjunction stays the one issue 29ba proved."""


def _kip380(st: Strengthening) -> Strengthening:
    """``st`` only under a controller failover with KIP-380's ``broker-epoch``; True otherwise."""
    def check(s, config, _st=st):
        if config.bounds.max_controller_failovers == 0 or "broker-epoch" not in config.rules:
            return True
        return _st.holds(s, config)

    def formula(d, s, _st=st):
        return _st.formula(d, s) if d.zombie_epoch else z3.BoolVal(True)

    return Strengthening(st.name, st.description, check, formula, uses_config=True)


STRENGTHENINGS = tuple(_kip380(st) if st.name in KIP380 else st for st in STRENGTHENINGS)


ONLY_UNDER_FAILOVERS = (
    "zombie-leaderless-isr-is-last-leader", "zombie-leaderless-next-leader-from-isr",
    "zombie-leader-acked-below-hw", "fetch-response-from-lone-leader-log",
    "named-lone-leader-holds-its-records", "leader-isr-is-controller-isr-past-the-zombie",
    "waiting-isr-members-crashed", "leaderless-epoch-leader-restarted",
    "untaken-epoch-isr-agrees", "kept-remote-leo-is-lone-follower-prefix",
    "untaken-epoch-lost-a-member", "waiting-leader-requests-current",
) + KIP380
"""The facts issue 29ba added: True by definition without ``--max-controller-failovers``, so left
out of ``--strengthen all`` there (``library.all_names``), as ``hw_checkpoint``'s and
``disk_loss_facts``' are where they do not apply; the no-failover conjunction and its count
stay as they were."""
