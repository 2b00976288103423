"""What a KRaft leader has not applied yet, under power loss (issue 29aa).

Issue 29w's forms (power_loss_kraft.py) set aside a follower that the leader's pending
``PartitionChangeRecord`` removes: the controller fenced it (KIP-841: a broker whose heartbeats
stop is fenced and leaves the ISR, ``ReplicationControlManager.handleBrokerFenced`` at 4.1.0) or
its leader's shrink was accepted, and the leader, which keeps its ISR until it hears of the
change, may still count a member that lost power and came back with a shorter log. Those forms
are only as strong as the proof's knowledge that such a change *is* pending. The state keeps it,
but nothing in the library said so: a counterexample to induction had the controller's leader,
in the controller's leader epoch, with an ISR larger than the controller's, its accepted
AlterPartition's answer on its way and no change pending, so the follower its shrink removed,
back from a power loss with an empty log, counted in its ISR.

KRaft's controller sends every ISR change that keeps the leader epoch to the leader as a
metadata record (``write_partition`` -> ``put_change`` in model/kernel/controller.py; Kafka's
``PartitionChangeRecord``, replayed by every broker's ``KRaftMetadataCache`` and applied by
``Partition.makeLeader`` with only the partition epoch newer, 3.6.0+), and the leader takes the
controller's ISR only by applying it or its own AlterPartition's answer
(``Partition.handleAlterPartitionUpdate``). So a running leader in the controller's leader epoch
whose ISR is not the controller's has that change still to apply. Power loss only (True
elsewhere), like 29w's facts, so the process-crash library is unchanged.
"""

from __future__ import annotations

import z3

from checker.symbolic.strengthen.base import holds_below, holds_below_z3
from model.constants import ALTER_SENT

SHRINK_KEEPS = "isr-shrink-keeps-leader-epoch"


def _leader_change_pending(s, config) -> bool:
    """A running leader that the controller names in its leader epoch and whose ISR is not the
    controller's has a pending ``PartitionChangeRecord`` of that epoch carrying the controller's
    ISR (``kraft-leader-isr-change-pending``)."""
    if not ("kraft" in config.rules and SHRINK_KEEPS in config.rules):
        return True
    c = s.controller
    for b, r in enumerate(s.replicas):
        if not (r.alive and r.leader == b and c.leader == b and r.leader_epoch == c.leader_epoch):
            continue
        if set(r.isr) == set(c.isr):
            continue
        chg = r.partition_change
        if not (chg and chg[1] == c.leader_epoch and set(chg[0]) == set(c.isr)):
            return False
    return True


def _leader_change_pending_z3(d, s):
    if not (d.power_loss and d.kraft and d.shrink_keeps):
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        differs = z3.Or([r.isr[j] != s.c_isr[j] for j in range(d.n)])
        out.append(z3.Implies(
            z3.And(r.alive, r.leader == b, s.c_leader == b, r.lep == s.c_epoch, differs),
            z3.And([r.chg, r.chg_ep == s.c_epoch] + [r.chg_isr[j] == s.c_isr[j] for j in range(d.n)])))
    return z3.And(out)


def _holders(s, config) -> list:
    """The running members of the controller's ISR, and the replicas ``elr-holds-every-hw``
    vouches for (the last known leader and, under Kafka 3.7's ``hw-needs-min-isr``, every ELR
    member; under power loss only running ones)."""
    from checker.symbolic.strengthen.elr import _vouched
    return [s.replicas[b] for b in s.controller.isr if s.replicas[b].alive] + _vouched(s, config)


def _holders_z3(d, s) -> list:
    from checker.symbolic.strengthen.elr import _vouched_z3
    return [z3.Or(z3.And(s.c_isr[b], r.alive), v) for b, (r, v) in enumerate(zip(s.reps, _vouched_z3(d, s)))]


def _isr_elr_hold_fetch_hw(s, config) -> bool:
    """Every replica of ``_holders`` holds what every fetch response's HW covers: its
    follower's log below the fetch offset where it has one, the response's records past it
    (``isr-elr-hold-fetch-hw``)."""
    from checker.symbolic.strengthen.elr import ELR
    if ELR not in config.rules:
        return True
    members = _holders(s, config)
    for r in s.replicas:
        if not r.fetch_response:
            continue
        _, _, offset, records, hw, leo = r.fetch_response
        if offset > leo:
            continue
        for i in range(min(hw, leo)):
            if i < offset and i >= len(r.log):
                continue
            x = r.log[i] if i < offset else records[i - offset]
            if any(i >= len(m.log) or m.log[i] != x for m in members):
                return False
    return True


def _isr_elr_hold_fetch_hw_z3(d, s):
    if not (d.power_loss and d.elr):
        return z3.BoolVal(True)
    out = []
    for member, m in zip(_holders_z3(d, s), s.reps):
        for r in s.reps:
            for i in range(d.slots):
                covered = z3.And(r.fr, r.fr_offset <= r.fr_leo, i < r.fr_hw, i < r.fr_leo,
                                 z3.Or(i >= r.fr_offset, i < r.leo))
                rid = z3.If(i < r.fr_offset, r.log_id[i], r.fr_id[i])
                ep = z3.If(i < r.fr_offset, r.log_ep[i], r.fr_ep[i])
                out.append(z3.Implies(z3.And(member, covered),
                                      z3.And(i < m.leo, m.log_id[i] == rid, m.log_ep[i] == ep)))
    return z3.And(out)


def _added_member_remote_ge_hw(s, config) -> bool:
    """KIP-903: a running leader's LEO for a follower its pending AlterPartition adds from the
    follower's current incarnation (member-epoch bit set) is at least its HW
    (``current-added-member-remote-ge-hw``)."""
    if "broker-epoch-in-fetch" not in config.rules:
        return True
    for b, r in enumerate(s.replicas):
        a = r.alter_partition
        if not (a and a[4] and r.alive and r.leader == b):
            continue
        if any(f != b and f not in r.isr and r.remote_log_end_offsets[f] < r.high_watermark for f in a[1]):
            return False
    return True


def _added_member_remote_ge_hw_z3(d, s):
    if not (d.power_loss and d.fetch_epochs):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alt != 0, r.alt_mcur, r.alive, r.leader == b, r.alt_isr[f],
                                     z3.Not(r.isr[f])), r.remote[f] >= r.hw)
                   for b, r in enumerate(s.reps) for f in range(d.n) if f != b])


def _added_member_fetch_current(s, config) -> bool:
    """KIP-903: the leader's last fetch from a follower its pending AlterPartition adds from the
    follower's current incarnation came from that incarnation (``current-added-member-fetch-current``)."""
    if "broker-epoch-in-fetch" not in config.rules:
        return True
    for b, r in enumerate(s.replicas):
        a = r.alter_partition
        if not (a and a[4] and r.alive and r.leader == b):
            continue
        if any(f != b and f not in r.isr and not r.remote_current[f] for f in a[1]):
            return False
    return True


def _added_member_fetch_current_z3(d, s):
    if not (d.power_loss and d.fetch_epochs):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alt != 0, r.alt_mcur, r.alive, r.leader == b, r.alt_isr[f],
                                     z3.Not(r.isr[f])), r.rcur[f])
                   for b, r in enumerate(s.reps) for f in range(d.n) if f != b])


def _remote_leo_is_prefix(s, counted) -> bool:
    """A running leader's LEO for each running follower of its epoch that ``counted(s, b, r, f)``
    picks is within that follower's log, which holds the leader's records below it."""
    for b, r in enumerate(s.replicas):
        if not (r.alive and r.leader == b):
            continue
        for f, fr in enumerate(s.replicas):
            if f == b or not (fr.alive and fr.leader_epoch == r.leader_epoch and counted(s, b, r, f)):
                continue
            x = r.remote_log_end_offsets[f]
            if x > len(fr.log) or not holds_below(fr, r, x):
                return False
    return True


def _remote_leo_is_prefix_z3(d, s, counted):
    out = []
    for b, r in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == b:
                continue
            cond = z3.And(r.alive, r.leader == b, fr.alive, fr.lep == r.lep, counted(s, b, r, f))
            out.append(z3.Implies(cond, z3.And(r.remote[f] <= fr.leo, holds_below_z3(d, fr, r, r.remote[f]))))
    return z3.And(out)


def _current_remote_leo_is_prefix(s, config) -> bool:
    """KIP-903: a running leader's LEO for a running follower of its epoch whose last fetch
    came from its current incarnation is within the follower's log, which holds the leader's
    records below it (``current-remote-leo-is-follower-prefix``)."""
    if "broker-epoch-in-fetch" not in config.rules:
        return True
    return _remote_leo_is_prefix(s, lambda s, b, r, f: bool(r.remote_current) and bool(r.remote_current[f])
                                 and s.replicas[f].leader == b)


def _current_remote_leo_is_prefix_z3(d, s):
    if not (d.power_loss and d.fetch_epochs):
        return z3.BoolVal(True)
    return _remote_leo_is_prefix_z3(d, s, lambda s, b, r, f: z3.And(r.rcur[f], s.reps[f].leader == b))


def _restarted_not_current(s, config) -> bool:
    """KIP-903: no leader's last fetch from a running broker that has applied no leader epoch
    since it started came from that broker's current incarnation (``restarted-broker-not-current``)."""
    if "broker-epoch-in-fetch" not in config.rules:
        return True
    return not any(fr.alive and fr.leader_epoch == -1 and r.remote_current and r.remote_current[f]
                   for f, fr in enumerate(s.replicas) for r in s.replicas)


def _restarted_not_current_z3(d, s):
    if not (d.power_loss and d.fetch_epochs):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(fr.alive, fr.lep == -1), z3.Not(r.rcur[f]))
                   for f, fr in enumerate(s.reps) for r in s.reps])


def _restarted_out_of_elr(s, config) -> bool:
    """KIP-966: a running broker that has applied no leader epoch since it started is not in
    the ELR (``restarted-out-of-elr``)."""
    from checker.symbolic.strengthen.elr import ELR
    if ELR not in config.rules:
        return True
    return not any(s.replicas[b].alive and s.replicas[b].leader_epoch == -1 for b in s.elr)


def _restarted_out_of_elr_z3(d, s):
    if not (d.power_loss and d.elr):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alive, r.lep == -1), z3.Not(e)) for e, r in zip(s.elr, s.reps)])


def _stale_added_out_of_isr_elr(s, config) -> bool:
    """KIP-903 with KIP-966: a follower that a running leader's pending AlterPartition of the
    controller's leader epoch adds with a stale broker epoch is in neither the controller's ISR
    nor its ELR, nor the last known leader (``stale-added-member-out-of-isr-elr``)."""
    from checker.symbolic.strengthen.elr import ELR
    if not ("broker-epoch-in-fetch" in config.rules and ELR in config.rules):
        return True
    c = s.controller
    keepers = set(c.isr) | set(s.elr) | set(s.last_known_elr)
    for b, r in enumerate(s.replicas):
        a = r.alter_partition
        if not (a and not a[4] and r.alive and r.leader == b and a[2] == c.leader_epoch):
            continue
        if any(f != b and f not in r.isr and f in keepers for f in a[1]):
            return False
    return True


def _stale_added_out_of_isr_elr_z3(d, s):
    if not (d.power_loss and d.fetch_epochs and d.elr):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alt != 0, z3.Not(r.alt_mcur), r.alive, r.leader == b,
                                     r.alt_ep == s.c_epoch, r.alt_isr[f], z3.Not(r.isr[f])),
                              z3.Not(z3.Or(s.c_isr[f], s.elr[f], s.lke[f])))
                   for b, r in enumerate(s.reps) for f in range(d.n) if f != b])


def _behind_member_has_request(s, config) -> bool:
    """A running follower in the controller's ISR that has not applied the controller's leader
    epoch has that epoch's LeaderAndIsr on its way, naming it in the ISR
    (``isr-member-behind-has-its-request``)."""
    if not ("kraft" in config.rules and SHRINK_KEEPS in config.rules):
        return True
    c = s.controller
    for f in c.isr:
        fr = s.replicas[f]
        if f == c.leader or not fr.alive or fr.leader_epoch >= c.leader_epoch:
            continue
        if not any(q == f and x == c.leader_epoch and f in isr for q, x, _, isr in s.leader_and_isr):
            return False
    return True


def _behind_member_has_request_z3(d, s):
    if not (d.power_loss and d.kraft and d.shrink_keeps):
        return z3.BoolVal(True)
    out = []
    for f, fr in enumerate(s.reps):
        sent = z3.Or([z3.And(s.c_epoch == e, s.lai[f][e], s.lai_isr[f][e][f]) for e in range(len(s.lai[f]))])
        out.append(z3.Implies(z3.And(s.c_isr[f], s.c_leader != f, fr.alive, fr.lep < s.c_epoch), sent))
    return z3.And(out)


def _leaderless_isr_down(s, config) -> bool:
    """KIP-966: while the partition has no leader, every member of the controller's ISR is
    down (``leaderless-isr-down``)."""
    from checker.symbolic.strengthen.elr import ELR
    if ELR not in config.rules or s.controller.leader != -1:
        return True
    return not any(s.replicas[b].alive for b in s.controller.isr)


def _leaderless_isr_down_z3(d, s):
    if not (d.power_loss and d.elr):
        return z3.BoolVal(True)
    return z3.Implies(s.c_leader == -1, z3.And([z3.Not(z3.And(i, r.alive)) for i, r in zip(s.c_isr, s.reps)]))


def _current_request_knows_isr(s, config) -> bool:
    """KIP-497: an AlterPartition on its way to the controller that carries the current
    partition epoch comes from a running broker holding the controller's ISR, in the
    controller's leader epoch (``current-alter-partition-knows-isr``)."""
    if not ("kraft" in config.rules and SHRINK_KEEPS in config.rules):
        return True
    c = s.controller
    for r in s.replicas:
        a = r.alter_partition
        if a and a[0] == ALTER_SENT and a[3] and r.alive:
            if set(r.isr) != set(c.isr) or a[2] != c.leader_epoch:
                return False
    return True


def _current_request_knows_isr_z3(d, s):
    if not (d.power_loss and d.kraft and d.shrink_keeps and d.alter):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.alt == ALTER_SENT, r.alt_cur, r.alive),
                              z3.And([r.alt_ep == s.c_epoch] + [x == y for x, y in zip(r.isr, s.c_isr)]))
                   for r in s.reps])


def _elr_member_holds_remote_leo(s, config) -> bool:
    """KIP-966: a running leader's LEO for a running ELR member of its epoch is within that
    member's log, which holds the leader's records below it (``elr-member-holds-remote-leo``)."""
    from checker.symbolic.strengthen.elr import ELR
    if ELR not in config.rules:
        return True
    return _remote_leo_is_prefix(s, lambda s, b, r, f: f in s.elr)


def _elr_member_holds_remote_leo_z3(d, s):
    if not (d.power_loss and d.elr):
        return z3.BoolVal(True)
    return _remote_leo_is_prefix_z3(d, s, lambda s, b, r, f: s.elr[f])


def _change_on_applied_leader(s, config) -> bool:
    """KRaft: a broker with a pending ``PartitionChangeRecord`` of the leader epoch it has
    applied leads in it (``kraft-change-on-applied-leader``)."""
    if "kraft" not in config.rules:
        return True
    return all(r.leader == b for b, r in enumerate(s.replicas)
               if r.partition_change and r.partition_change[1] == r.leader_epoch)


def _change_on_applied_leader_z3(d, s):
    if not (d.power_loss and d.kraft):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.chg, r.chg_ep == r.lep), r.leader == b) for b, r in enumerate(s.reps)])


def _leader_holds_members_hw(s, config) -> bool:
    """KIP-966: the controller's leader, while it runs (whether or not it has applied its
    epoch yet), holds every other replica's records below that replica's HW, running or not
    (``controller-leader-holds-every-hw``)."""
    from checker.symbolic.strengthen.elr import ELR
    if ELR not in config.rules:
        return True
    c = s.controller
    if c.leader < 0:
        return True
    lead = s.replicas[c.leader]
    if not lead.alive:
        return True
    return all(holds_below(lead, r, r.high_watermark) for b, r in enumerate(s.replicas) if b != c.leader)


def _leader_holds_members_hw_z3(d, s):
    if not (d.power_loss and d.elr):
        return z3.BoolVal(True)
    out = []
    for b, lr in enumerate(s.reps):
        taken = z3.And(s.c_leader == b, lr.alive)
        for m, mr in enumerate(s.reps):
            if m != b:
                out.append(z3.Implies(taken, holds_below_z3(d, lr, mr, mr.hw)))
    return z3.And(out)


def _isr_elr_hold_every_hw(s, config) -> bool:
    """KIP-966: every replica of ``_holders`` (running ISR members, vouched ELR members) holds
    every other replica's records below that replica's HW, running or not
    (``isr-elr-hold-every-hw``)."""
    from checker.symbolic.strengthen.elr import ELR
    if ELR not in config.rules:
        return True
    return all(holds_below(m, r, r.high_watermark) for m in _holders(s, config) for r in s.replicas if r is not m)


def _isr_elr_hold_every_hw_z3(d, s):
    if not (d.power_loss and d.elr):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(member, holds_below_z3(d, m, r, r.hw))
                   for member, m in zip(_holders_z3(d, s), s.reps) for r in s.reps if r is not m])


def strengthenings(pl_only):
    """The invariants of this module (``pl_only``: power_loss's switch to True under process
    crashes, where ``--strengthen all`` leaves them out)."""
    from checker.symbolic.strengthen.base import Strengthening
    return (
        Strengthening("kraft-leader-isr-change-pending", "(power loss, KRaft 3.6+) a running "
                      "leader the controller names in its leader epoch whose ISR is not the "
                      "controller's has the PartitionChangeRecord carrying the controller's ISR "
                      "still to apply: the controller sends every ISR change that keeps the "
                      "epoch to the leader, which takes the controller's ISR only by applying "
                      "it or its AlterPartition's answer",
                      pl_only(_leader_change_pending, True), _leader_change_pending_z3,
                      uses_config=True),
        Strengthening("isr-elr-hold-fetch-hw", "(power loss, KIP-966) the running members of "
                      "the controller's ISR, and the replicas elr-holds-every-hw vouches for (the "
                      "last known leader, every ELR member under hw-needs-min-isr; running ones), "
                      "hold what every fetch response's HW covers: that HW was its leader's, so "
                      "the records below it were on min.insync.replicas members of the maximal "
                      "ISR; the response may outlive its leader's epoch and its follower's power "
                      "loss, but a member that lost power leaves the ISR and the ELR as it "
                      "registers again, and one that joins them has caught up",
                      pl_only(_isr_elr_hold_fetch_hw, True), _isr_elr_hold_fetch_hw_z3,
                      uses_config=True),
        Strengthening("current-added-member-remote-ge-hw", "(power loss, KIP-903) a running "
                      "leader's LEO for a follower its pending AlterPartition adds from the "
                      "follower's current incarnation is at least the leader's HW: it proposed "
                      "the follower on a fetch at the HW (isFollowerAtHighwatermark), the HW since "
                      "waits for it (the maximal ISR counts it), and only a restart, which marks "
                      "the request stale, lets a fetch from a shorter log lower that LEO",
                      pl_only(_added_member_remote_ge_hw, True), _added_member_remote_ge_hw_z3,
                      uses_config=True),
        Strengthening("current-added-member-fetch-current", "(power loss, KIP-903) the "
                      "leader's last fetch from a follower its pending AlterPartition adds from "
                      "the follower's current incarnation came from that incarnation: the "
                      "request carries the broker epoch of the fetch it was proposed on, and a "
                      "restart makes both stale at once",
                      pl_only(_added_member_fetch_current, True), _added_member_fetch_current_z3,
                      uses_config=True),
        Strengthening("current-remote-leo-is-follower-prefix", "(power loss, KIP-903) a "
                      "running leader's LEO for a running follower of its epoch whose last fetch "
                      "came from its current incarnation is within the follower's log, which "
                      "holds the leader's records below it: that fetch was at the follower's LEO, "
                      "in the epoch, after its truncation to the epoch's start, and within one "
                      "incarnation and one epoch the follower's log only grows (its truncation to "
                      "the epoch's start came before that fetch)",
                      pl_only(_current_remote_leo_is_prefix, True), _current_remote_leo_is_prefix_z3,
                      uses_config=True),
        Strengthening("restarted-broker-not-current", "(power loss, KIP-903) no leader's "
                      "last fetch from a running broker that has applied no leader epoch since it "
                      "started came from its current incarnation: its registration made every "
                      "earlier fetch's broker epoch stale, and it fetches only once it has an "
                      "epoch",
                      pl_only(_restarted_not_current, True), _restarted_not_current_z3,
                      uses_config=True),
        Strengthening("restarted-out-of-elr", "(power loss, KIP-966) a running broker that "
                      "has applied no leader epoch since it started is not in the ELR: under "
                      "power loss every crash is an unclean shutdown, and the controller takes a "
                      "broker back from one out of the ELR as it registers "
                      "(ReplicationControlManager.handleBrokerUncleanShutdown, 4.1.0)",
                      pl_only(_restarted_out_of_elr, True), _restarted_out_of_elr_z3,
                      uses_config=True),
        Strengthening("stale-added-member-out-of-isr-elr", "(power loss, KIP-903 and "
                      "KIP-966) a follower that a running leader's pending AlterPartition of the "
                      "controller's leader epoch adds with a stale broker epoch is in neither the "
                      "controller's ISR nor its ELR, nor the last known leader: only a restart "
                      "makes the epoch stale, the registration after that unclean shutdown took "
                      "the broker out of both, and only an AlterPartition from its new "
                      "incarnation would bring it back",
                      pl_only(_stale_added_out_of_isr_elr, True), _stale_added_out_of_isr_elr_z3,
                      uses_config=True),
        Strengthening("isr-member-behind-has-its-request", "(power loss, KRaft 3.6+) a "
                      "running follower in the controller's ISR that has not applied the "
                      "controller's leader epoch has that epoch's LeaderAndIsr on its way, naming "
                      "it in the ISR: the controller keeps a member in the ISR of a new epoch only "
                      "with the request that says so, and adds one within the epoch only on its "
                      "fetch in that epoch (KIP-320), which it cannot send before applying it",
                      pl_only(_behind_member_has_request, True), _behind_member_has_request_z3,
                      uses_config=True),
        Strengthening("leaderless-isr-down", "(power loss, KIP-966) while the partition has "
                      "no leader every member of the controller's ISR is down: the controller "
                      "elects a live ISR member when the leader fails, and a member that "
                      "registers again while the partition is offline is elected (or, back from "
                      "an unclean shutdown, leaves the ISR)",
                      pl_only(_leaderless_isr_down, True), _leaderless_isr_down_z3,
                      uses_config=True),
        Strengthening("current-alter-partition-knows-isr", "(power loss, KRaft 3.6+) an "
                      "AlterPartition on its way to the controller that carries the current "
                      "partition epoch comes from a running leader that holds the controller's "
                      "ISR in the controller's leader epoch: the leader sent the epoch it knew, "
                      "which it learned with the ISR, and every ISR change since (the fencing of "
                      "a member that lost power among them) would have made it stale "
                      "(INVALID_UPDATE_VERSION; the kernel's commit)",
                      pl_only(_current_request_knows_isr, True), _current_request_knows_isr_z3,
                      uses_config=True),
        Strengthening("elr-member-holds-remote-leo", "(power loss, KIP-966) a running "
                      "leader's LEO for a running ELR member of its epoch is within the member's "
                      "log, which holds the leader's records below it (isr-member-holds-remote-leo "
                      "for the ELR): the member left the ISR without a crash, and one that lost "
                      "power since has left the ELR as it registered again",
                      pl_only(_elr_member_holds_remote_leo, True), _elr_member_holds_remote_leo_z3,
                      uses_config=True),
        Strengthening("kraft-change-on-applied-leader", "(power loss, KRaft) a broker with a "
                      "pending PartitionChangeRecord of the leader epoch it has applied leads in "
                      "that epoch: the controller sends such a record only to the epoch's leader, "
                      "whose LeaderAndIsr of the epoch named it",
                      pl_only(_change_on_applied_leader, True), _change_on_applied_leader_z3,
                      uses_config=True),
        Strengthening("controller-leader-holds-every-hw", "(power loss, KIP-966) the "
                      "controller's leader, while it runs (its epoch applied or not), holds every other replica's "
                      "records below that replica's HW: a HW covers only records committed on "
                      "min.insync.replicas members (hw-needs-min-isr), a power loss cuts a log "
                      "and its HW together, and a leader is elected from the ISR or the ELR, "
                      "which a broker back from an unclean shutdown has left (with one crash; "
                      "with two, 4.1 elects the last known leader without the record)",
                      pl_only(_leader_holds_members_hw, True), _leader_holds_members_hw_z3,
                      uses_config=True),
        Strengthening("isr-elr-hold-every-hw", "(power loss, KIP-966, one crash) the running "
                      "members of the controller's ISR, and the replicas elr-holds-every-hw "
                      "vouches for, hold every other replica's records below that replica's HW, "
                      "a down one's too: what a HW covers was on min.insync.replicas members "
                      "(hw-needs-min-isr), a power loss cuts a log and its HW together, and a "
                      "member that lost power leaves the ISR and the ELR as it registers again",
                      pl_only(_isr_elr_hold_every_hw, True), _isr_elr_hold_every_hw_z3,
                      uses_config=True),
    )
