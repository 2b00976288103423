"""The power-loss forms where KRaft keeps the leader epoch across a member's failure (issue 29w).

issue 29p's power-loss forms (power_loss.py) rest on ZooKeeper's controller of Kafka 2.2-2.6 and
KIP-380: the failure of a member of an ISR of several is handled with a *new* leader epoch
without it (``KafkaController.onReplicasBecomeOffline`` at 2.2.0), so a broker still in a
leader's ISR in that leader's epoch cannot have lost power in it. From Kafka 3.6 on KRaft's
controller removes a fenced broker from the ISR *keeping* the leader epoch
(``isr-shrink-keeps-leader-epoch``, KAFKA-15021: ``PartitionChangeBuilder`` at 3.6.0 bumps the
epoch only for a new leader), and the change reaches the leader as a ``PartitionChangeRecord``
it applies later (the kernel's ``partition_change``; ``Partition.makeLeader`` at 3.6.0 with the
same leader epoch). Until it applies it, the leader's ISR still holds a follower that may have
lost power, restarted and fetched again in the same epoch. So under power loss with that rule:

* a follower removed by the leader's pending change is set aside by the facts about the leader's
  ISR (``isr-remote-ge-hw``, ``isr-followers-hold-hw``, the "rejoined" case of
  ``kept-remote-leo-is-follower-prefix``, and ``restarted-out-of-isr``'s second clause);
* KIP-966 (4.1, ``eligible-leader-replicas``): an acked record is held, always, by some member of
  the controller's ISR *or ELR or the last known leader* (``acked-in-isr``): the last ISR member
  may lose power while a member that left the ISR for the ELR still holds the record, and a
  broker back from an unclean shutdown leaves both (``BrokerRegistration``'s
  ``previousBrokerEpoch``, ``ReplicationControlManager`` at 4.1.0);
* the members of an AlterPartition of the controller's epoch hold every acked record only while
  they run (``alter-partition-proposal-holds-acked``): a proposed member may lose power with the
  request on its way (the controller then refuses it for its stale broker epoch, KIP-903).

Each form is switched on by ``Dims.power_loss`` with ``Dims.shrink_keeps`` (``Dims.elr`` for the
ELR one, ``Dims.alter`` for the proposal) in z3 and by the configuration's rules in Python;
elsewhere the entry is issue 29p's power-loss form, unchanged. Where power loss loses an acked
record at all (2.7-4.0 at min.insync.replicas=2: docs/symbolic.md, issue 29w) no form is needed:
``kmc prove`` ends VIOLATED with BFS's trace.
"""

from __future__ import annotations

import z3

from checker.symbolic.formulas import holds_acked, holds_every_acked
from checker.symbolic.strengthen.base import holds_below, holds_below_z3

SHRINK_KEEPS = "isr-shrink-keeps-leader-epoch"
ELR = "eligible-leader-replicas"


def _keeps(config) -> bool:
    return SHRINK_KEEPS in config.rules


def removed_by_change(r, f: int) -> bool:
    """Running leader ``r`` has a pending ``PartitionChangeRecord`` whose ISR lacks ``f``."""
    return bool(r.partition_change) and f not in r.partition_change[0]


def removed_by_change_z3(d, r, f: int):
    if not (d.kraft and d.shrink_keeps):
        return z3.BoolVal(False)
    return z3.And(r.chg, z3.Not(r.chg_isr[f]))


def stale_added(r, f: int, config) -> bool:
    """Leader ``r``'s pending AlterPartition adds ``f`` on evidence from an incarnation of
    ``f``'s that is gone (KIP-903, ``broker-epoch-in-fetch``: the kernel's member-epoch bit,
    cleared when ``f`` registers again): the controller refuses it (``INELIGIBLE_REPLICA``,
    ``members_eligible`` in model/kernel/actions/controller.py)."""
    a = r.alter_partition
    return ("broker-epoch-in-fetch" in config.rules and bool(a) and not a[4]
            and f in a[1] and f not in r.isr)


def stale_added_z3(d, r, f: int):
    if not d.fetch_epochs:
        return z3.BoolVal(False)
    return z3.And(r.alt != 0, z3.Not(r.alt_mcur), r.alt_isr[f], z3.Not(r.isr[f]))


def set_aside(r, f: int, config) -> bool:
    return removed_by_change(r, f) or stale_added(r, f, config)


def set_aside_z3(d, r, f: int):
    return z3.Or(removed_by_change_z3(d, r, f), stale_added_z3(d, r, f))


def shrinking(r, f: int) -> bool:
    """Leader ``r`` has an AlterPartition pending whose ISR lacks ``f`` (a shrink on its way)."""
    a = r.alter_partition
    return bool(a) and f not in a[1]


def shrinking_z3(d, r, f: int):
    if not d.alter:
        return z3.BoolVal(False)
    return z3.And(r.alt != 0, z3.Not(r.alt_isr[f]))


# ---------------------------------------------------------------- ISR facts of the leader


def _isr_remote_ge_hw(base_check, base_formula):
    """isr_hw's fact setting aside a running follower the leader's pending change removes or
    (running or not) or its AlterPartition adds with a stale broker epoch (running: back from a
    power loss, it fetched from a shorter log; a down one's LEO at the leader is still its last
    incarnation's)."""
    from checker.symbolic.strengthen.isr_hw import _isr_view, _isr_view_z3

    def check(s, config):
        if not _keeps(config):
            return base_check(s, config)
        for lead, lr in enumerate(s.replicas):
            if lr.alive and lr.leader == lead:
                for f in _isr_view(lr):
                    x = lr.remote_log_end_offsets[f]
                    if f != lead and 0 <= x < lr.high_watermark and not removed_by_change(lr, f) and not (
                            stale_added(lr, f, config) and s.replicas[f].alive):
                        return False
        return True

    def formula(d, s):
        if not d.shrink_keeps:
            return base_formula(d, s)
        return z3.And([z3.Implies(z3.And(lr.alive, lr.leader == lead, _isr_view_z3(d, lr)[f],
                                         lr.remote[f] >= 0,
                                         z3.Not(removed_by_change_z3(d, lr, f)),
                                         z3.Not(z3.And(stale_added_z3(d, lr, f), s.reps[f].alive))),
                                  lr.remote[f] >= lr.hw)
                       for lead, lr in enumerate(s.reps) for f in range(d.n) if f != lead])
    return check, formula


def _isr_followers_hold_hw(base_check, base_formula):
    """power_loss's form, setting aside a follower the leader's pending change removes or its
    AlterPartition adds with a stale broker epoch."""
    from checker.symbolic.strengthen import power_loss

    def check(s, config):
        if not _keeps(config):
            return base_check(s, config)
        return power_loss._isr_followers_hold_hw(s, lambda lr, f: set_aside(lr, f, config))

    def formula(d, s):
        if not d.shrink_keeps:
            return base_formula(d, s)
        return power_loss._isr_followers_hold_hw_z3(d, s, set_aside_z3)
    return check, formula


# ---------------------------------------------------------------- acked records


def _acked_in_isr(base_check, base_formula):
    """With the ELR: every acked record is on every running member of the controller's ISR, and
    on some member of its ISR, its ELR or the last known leader always."""
    def check(s, config):
        if ELR not in config.rules:
            return base_check(s, config)
        keepers = set(s.controller.isr) | set(s.elr) | set(s.last_known_elr)
        for rid, off in s.acked:
            def holds(b):
                log = s.replicas[b].log
                return off < len(log) and log[off][0] == rid
            if not any(holds(b) for b in keepers):
                return False
            if any(s.replicas[b].alive and not holds(b) for b in s.controller.isr):
                return False
        return True

    def formula(d, s):
        if not d.elr:
            return base_formula(d, s)
        out = [z3.Implies(z3.And(s.c_isr[b], r.alive), holds_every_acked(d, s, r))
               for b, r in enumerate(s.reps)]
        out += [z3.Implies(s.acked[k], z3.Or([z3.And(z3.Or(s.c_isr[b], s.elr[b], s.lke[b]), holds_acked(s, r, k))
                                              for b, r in enumerate(s.reps)]))
                for k in range(d.records)]
        return z3.And(out)
    return check, formula


def _proposal_holds_acked(base_check, base_formula):
    """Only the running members of a pending AlterPartition, and not one it adds with a stale
    broker epoch or one the leader's pending change removes (RF=3: the controller fenced it,
    and it may have lost power and come back), hold every acked record."""
    from checker.symbolic.strengthen import alter_partition

    def check(s, config):
        if not _keeps(config):
            return base_check(s, config)
        return alter_partition._proposal_holds_acked(
            s, lambda r, m: not s.replicas[m].alive or stale_added(r, m, config) or removed_by_change(r, m))

    def formula(d, s):
        if not d.shrink_keeps:
            return base_formula(d, s)
        return alter_partition._proposal_holds_acked_z3(
            d, s, lambda d, s, r, m: z3.Or(z3.Not(s.reps[m].alive), stale_added_z3(d, r, m),
                                           removed_by_change_z3(d, r, m)))
    return check, formula


# ---------------------------------------------------------------- remote LEOs, restarts


def _rejoined_kept(s, f: int, e: int) -> bool:
    """power_loss's ``_kept_or_rejoined`` with the "rejoined" case only for a leader whose
    pending change and pending AlterPartition keep ``f``: a follower that lost power in ``e`` is
    still in the ISR of a leader that has not applied the controller's change removing it, or
    whose shrink is on its way."""
    from checker.symbolic.strengthen.power_loss import kept
    r = s.replicas[f]
    return kept(s, f, e) or (r.alive and r.leader_epoch == e and any(
        lr.alive and lr.leader == b and lr.leader_epoch == e and f in lr.isr
        and not removed_by_change(lr, f) and not shrinking(lr, f)
        for b, lr in enumerate(s.replicas) if b != f))


def _rejoined_kept_z3(d, s, f: int, e):
    from checker.symbolic.strengthen.power_loss import kept_z3
    r = s.reps[f]
    rejoined = z3.And(r.alive, r.lep == e, z3.Or([z3.And(lr.alive, lr.leader == b, lr.lep == e, lr.isr[f],
                                                         z3.Not(removed_by_change_z3(d, lr, f)),
                                                         z3.Not(shrinking_z3(d, lr, f)))
                                                  for b, lr in enumerate(s.reps) if b != f]))
    return z3.Or(kept_z3(d, s, f, e), rejoined)


def _kept_remote_leo(base_check, base_formula):
    from checker.symbolic.strengthen import remote_leos

    def check(s, config):
        if not _keeps(config):
            return base_check(s, config)
        return remote_leos._kept_remote_leo_is_follower_prefix(s, config, _rejoined_kept)

    def formula(d, s):
        if not d.shrink_keeps:
            return base_formula(d, s)
        return remote_leos._kept_remote_leo_is_follower_prefix_z3(d, s, _rejoined_kept_z3)
    return check, formula


def _restarted_out_of_isr(base_check, base_formula):
    """power_loss's fact with its second clause (a running leader whose ISR holds a restarted
    broker is older than every request on its way to it) only for a follower the leader's
    pending change and pending AlterPartition keep (the controller may have removed it with the
    leader epoch kept, and the leader not yet applied it)."""
    from checker.symbolic.strengthen import power_loss

    def aside(lr, f):
        return removed_by_change(lr, f) or shrinking(lr, f)

    def check(s, config):
        if not _keeps(config) or config.crash_model != "power-loss":
            return base_check(s, config)
        return power_loss._restarted_out_of_isr(s, aside)

    def formula(d, s):
        if not (d.power_loss and d.shrink_keeps):
            return base_formula(d, s)
        return power_loss._restarted_out_of_isr_z3(
            d, s, lambda d, lr, f: z3.Or(removed_by_change_z3(d, lr, f), shrinking_z3(d, lr, f)))
    return check, formula


# name -> a function of the entry's power-loss (check(s, config), formula(d, s)) giving the form
# under power loss, which falls back to it where the rule it rests on is off
WRAPS = {
    "isr-remote-ge-hw": _isr_remote_ge_hw,
    "isr-followers-hold-hw": _isr_followers_hold_hw,
    "acked-in-isr": _acked_in_isr,
    "alter-partition-proposal-holds-acked": _proposal_holds_acked,
    "kept-remote-leo-is-follower-prefix": _kept_remote_leo,
    "restarted-out-of-isr": _restarted_out_of_isr,
}


# ---------------------------------------------------------------- invariants only power loss needs


def _restarted_added_stale(s, config) -> bool:
    """KIP-903: a follower a pending AlterPartition adds that has restarted since (running, no
    epoch applied yet: the proposal needed its fetch in the leader's epoch) carries a stale
    broker epoch in it: its new registration cleared the bit (``new_incarnation``)."""
    if "broker-epoch-in-fetch" not in config.rules:
        return True
    for r in s.replicas:
        a = r.alter_partition
        if not a or not a[4]:
            continue
        if any(m not in r.isr and s.replicas[m].alive and s.replicas[m].leader_epoch == -1 for m in a[1]):
            return False
    return True


def _restarted_added_stale_z3(d, s):
    if not (d.power_loss and d.fetch_epochs):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alt != 0, r.alt_isr[m], z3.Not(r.isr[m]), s.reps[m].alive,
                                     s.reps[m].lep == -1), z3.Not(r.alt_mcur))
                   for r in s.reps for m in range(d.n)])


def _stale_member_after_a_crash(s, config) -> bool:
    """KIP-903: a pending AlterPartition whose added member's broker epoch is stale exists only
    after a crash: only a restart registers a broker again (``broker_restart`` ->
    ``new_incarnation``), and a leader proposes a member only on a fetch from its current
    incarnation."""
    if "broker-epoch-in-fetch" not in config.rules or s.crashes > 0:
        return True
    return all(not r.alter_partition or r.alter_partition[4] for r in s.replicas)


def _stale_member_after_a_crash_z3(d, s):
    if not (d.power_loss and d.fetch_epochs):
        return z3.BoolVal(True)
    return z3.Or(s.crashes > 0, z3.And([z3.Implies(r.alt != 0, r.alt_mcur) for r in s.reps]))


def _current_added_member_holds_hw(s, config) -> bool:
    """KIP-903: a running follower that a running leader's pending AlterPartition adds from its
    current incarnation (member-epoch bit set), in the leader's epoch, holds the leader's records
    below the leader's HW: it was proposed on a fetch at the HW (``isFollowerAtHighwatermark``),
    the HW since waits for it (the maximal ISR counts it), and it has not restarted since (a
    restart clears the bit) nor truncated (it is in the same epoch)."""
    if "broker-epoch-in-fetch" not in config.rules:
        return True
    for b, r in enumerate(s.replicas):
        a = r.alter_partition
        if not (a and a[4] and r.alive and r.leader == b):
            continue
        for f in a[1]:
            fr = s.replicas[f]
            if (f != b and f not in r.isr and fr.alive and fr.leader_epoch == r.leader_epoch
                    and not holds_below(fr, r, r.high_watermark)):
                return False
    return True


def _current_added_member_holds_hw_z3(d, s):
    if not (d.power_loss and d.fetch_epochs):
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == b:
                continue
            cond = z3.And(r.alt != 0, r.alt_mcur, r.alive, r.leader == b, r.alt_isr[f], z3.Not(r.isr[f]),
                          fr.alive, fr.lep == r.lep)
            out.append(z3.Implies(cond, holds_below_z3(d, fr, r, r.hw)))
    return z3.And(out)


def _leaderless_elr_down(s, config) -> bool:
    """KIP-966: while the partition has no leader, every ELR member is down: with the ISR empty
    the controller elects a live ELR member (``PartitionChangeBuilder.electLeader`` at 4.1.0),
    and one that comes back after an unclean shutdown leaves the ELR as it registers."""
    if ELR not in config.rules or s.controller.leader != -1:
        return True
    return not any(s.replicas[b].alive for b in s.elr)


def _leaderless_elr_down_z3(d, s):
    if not (d.power_loss and d.elr):
        return z3.BoolVal(True)
    return z3.Implies(s.c_leader == -1, z3.And([z3.Not(z3.And(e, r.alive)) for e, r in zip(s.elr, s.reps)]))


def _acked_on_min_isr_elr(s, config) -> bool:
    """KIP-966: until a crash or a later record, an acked record is on min.insync.replicas
    members of the controller's ISR and ELR: the ack needed that many in the maximal ISR
    (``Partition.checkEnoughReplicasReachOffset`` at 4.1.0), a member the ISR loses below
    min.insync.replicas goes to the ELR, and only an unclean shutdown (a crash) takes it out; the
    leader drops a holder from the ISR only for lagging behind a later record. (power_loss's
    ``acked-on-min-isr`` for 2.2-2.6, with the ELR for 4.1.)"""
    if ELR not in config.rules or s.crashes > 0:
        return True
    keepers = set(s.controller.isr) | set(s.elr)
    for rid, off in s.acked:
        if s.records_written > rid:
            continue
        held = sum(1 for b in keepers if off < len(s.replicas[b].log) and s.replicas[b].log[off][0] == rid)
        if held < config.min_insync_replicas:
            return False
    return True


def _acked_on_min_isr_elr_z3(d, s):
    if not (d.power_loss and d.elr):
        return z3.BoolVal(True)
    out = []
    for k in range(d.records):
        held = [z3.If(z3.And(z3.Or(s.c_isr[b], s.elr[b]), holds_acked(s, r, k)), 1, 0) for b, r in enumerate(s.reps)]
        out.append(z3.Implies(z3.And(s.acked[k], s.crashes == 0, s.written <= k + 1), z3.Sum(held) >= d.min_isr))
    return z3.And(out)


def strengthenings(pl_only):
    """The invariants power loss needs on KRaft (``pl_only``: power_loss's switch to True under
    process crashes, where ``--strengthen all`` leaves them out)."""
    from checker.symbolic.strengthen.base import Strengthening
    return (
        Strengthening("restarted-added-member-stale", "(power loss, KIP-903) a follower that a "
                      "pending AlterPartition adds and that has restarted since (running, no "
                      "epoch applied) is there with a stale broker epoch: its new registration "
                      "marked the request (the controller refuses it, INELIGIBLE_REPLICA), so "
                      "the facts about the leader's maximal ISR set it aside",
                      pl_only(_restarted_added_stale, True), _restarted_added_stale_z3,
                      uses_config=True),
        Strengthening("stale-member-after-a-crash", "(power loss, KIP-903) a pending "
                      "AlterPartition adds a member with a stale broker epoch only after a crash: "
                      "only a restart registers a broker again, and a leader proposes a member "
                      "only on a fetch from its current incarnation",
                      pl_only(_stale_member_after_a_crash, True), _stale_member_after_a_crash_z3,
                      uses_config=True),
        Strengthening("current-added-member-holds-hw", "(power loss, KIP-903) a running follower "
                      "that a running leader's pending AlterPartition adds from its current "
                      "incarnation, in the leader's epoch, holds the leader's records below its "
                      "HW: proposed on a fetch at the HW, which since waits for it, and neither "
                      "restarted (which marks the request stale) nor truncated since",
                      pl_only(_current_added_member_holds_hw, True),
                      _current_added_member_holds_hw_z3, uses_config=True),
        Strengthening("leaderless-elr-down", "(power loss, KIP-966) while the partition has no "
                      "leader every ELR member is down: with the ISR empty the controller elects "
                      "a live ELR member, and one back from an unclean shutdown leaves the ELR",
                      pl_only(_leaderless_elr_down, True), _leaderless_elr_down_z3,
                      uses_config=True),
        Strengthening("acked-on-min-isr-elr", "(power loss, KIP-966) until a crash or a later "
                      "record an acked record is on min.insync.replicas members of the "
                      "controller's ISR and ELR: the ack needed them in the maximal ISR, a member "
                      "leaving an ISR below min.insync.replicas goes to the ELR, and only an "
                      "unclean shutdown takes it out", pl_only(_acked_on_min_isr_elr, True),
                      _acked_on_min_isr_elr_z3, uses_config=True),
    )


# Composed here, not in power_loss.py, so the two modules import one way only (29p's forms, then
# 29w's wraps; library.py takes both from here).
def switch(st):
    """29p's ``power_loss.switch`` with 29w's KRaft wraps."""
    from checker.symbolic.strengthen import power_loss

    return power_loss.switch(st, WRAPS)


def _all_power_loss_only():
    from checker.symbolic.strengthen import power_loss, power_loss_fence  # issue 29aa
    from checker.symbolic.strengthen.base import Strengthening

    # the power-loss-only facts that KRaft's epoch-keeping shrink weakens, and the ones power
    # loss on KRaft needs
    return tuple(
        Strengthening(st.name, st.description, *WRAPS[st.name](st.holds, st.formula),
                      uses_config=True)
        if st.name in WRAPS else st for st in power_loss.STRENGTHENINGS
    ) + strengthenings(power_loss._pl_only) + power_loss_fence.strengthenings(power_loss._pl_only)


POWER_LOSS_ONLY = _all_power_loss_only()
"""Every invariant only power loss needs: 29p's (with 29w's wraps) and 29w's."""
