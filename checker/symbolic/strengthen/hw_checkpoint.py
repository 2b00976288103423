"""The library under a lagging HW checkpoint file (``--hw-checkpoint interval``).

kmc's default abstraction has each broker's HW checkpoint file (``replication-offset-checkpoint``)
follow its HW, so a broker that stops keeps its HW. With ``--hw-checkpoint interval`` the file is
written at intervals (the kernel's CheckpointHighWatermark; ``ReplicaManager.checkpointHighWatermarks``
every ``replica.high.watermark.checkpoint.interval.ms``, 5 s by default, at 2.1.0) and a broker that
stops reads its HW back from the file when it starts (``stop_broker``), so a crash can move a
broker's HW *back*, below records it had already counted committed. The facts that bound some
other offset by a broker's HW from above ("an acked record is below its writer's HW", "a
follower's HW is at most its epoch leader's", "a fetch response's HW is the leader's") then fail
on the leader that crashed: false on reachable states (BFS, ``python -m
checker.symbolic.strengthen.reachable --kafka-version V -r 2 --hw-checkpoint interval``, the counts
in docs/symbolic.md, "The HW checkpoint file in the proof") and switched off under the setting.
Facts that bound by the HW from below (a broker holds the records below its HW) stay: the HW only
goes down. ``kmc prove -p NAME`` refuses an invariant switched here (``library.takes_another_form``).
"""

from __future__ import annotations

import z3

from checker.symbolic import numbers as num
from checker.symbolic.formulas import holds_acked
from checker.symbolic.state import count
from checker.symbolic.strengthen.base import (
    Strengthening, first_of_epoch, first_of_epoch_z3, holds_below, holds_below_z3,
)

OFF_UNDER_LAGGING_CHECKPOINT = (
    "acked-below-writer-hw", "hw-behind-epoch-leader", "fetch-response-from-leader-log",
)
"""False under ``--hw-checkpoint interval`` (BFS, the module's docstring): off there, but
``fetch-response-from-leader-log`` (``WITHOUT_HW``) and, with broker epochs,
``hw-behind-epoch-leader`` (``NOT_FOR_A_DOWN_LEADER``), which keep weaker forms where no other
switch has changed them."""

WITHOUT_HW = "fetch-response-from-leader-log"
NOT_FOR_A_DOWN_LEADER = "hw-behind-epoch-leader"
"""Kept with KIP-380's broker epochs (2.2+) for running and restarted leaders of the controller's
epoch, not for the controller's leader while it is down (its HW moved back): a leader that
restarted cannot lead the epoch it led before, so a running one has not restarted since it took
it."""


BEFORE_A_RESTART = "acked-below-writer-hw"
"""Issue 29bh: kept at RF>=3 (process crashes, no other fault bound) for running brokers until a
broker restarts (``_no_restart_yet``): the HW moves back only when a broker stops and reads its
file, and a running broker that never stopped has its HW only grown since it wrote a record. At
RF=2 the proofs close without it, so it is left off there (RF=2's invariant forms unchanged)."""


def _no_restart_yet(s) -> bool:
    """Every crash so far left its broker down: no broker has restarted (process crashes and no
    other way to stop, ``_written_form``), so every running broker has run since the start."""
    return s.crashes == sum(1 for r in s.replicas if not r.alive)


def _no_restart_yet_z3(s):
    return s.crashes == count([z3.Not(r.alive) for r in s.reps])


def _acked_below_running_writer(s) -> bool:
    from checker.symbolic.strengthen.history import epochs_led

    for b, r in enumerate(s.replicas):
        # a running leader below an acked record of its epoch restarted into the epoch since it
        # wrote it: its epoch started past the record (fetch-hw-past-restart's argument)
        if r.alive and r.leader == b and any(
                off < len(r.log) and r.log[off] == (rid, r.leader_epoch)
                and off >= r.high_watermark and _start(r) <= off for rid, off in s.acked):
            return False
    if not _no_restart_yet(s):
        return True
    for b, r in enumerate(s.replicas):
        if not r.alive:
            continue
        epochs = epochs_led(s, b)
        if any(off < len(r.log) and r.log[off][0] == rid and r.log[off][1] in epochs
               and off >= r.high_watermark for rid, off in s.acked):
            return False
    return True


def _acked_below_running_writer_z3(d, s):
    from checker.symbolic.state import sel
    from checker.symbolic.strengthen.history import leads_epoch_z3

    out = []
    for b, r in enumerate(s.reps):
        for k in range(d.records):
            o = s.acked_off[k]
            own = z3.And(r.alive, s.acked[k], holds_acked(s, r, k),
                         leads_epoch_z3(s, b, sel(r.log_ep, o, -1)))
            out.append(z3.Implies(own, o < r.hw))
    mine = []
    for b, r in enumerate(s.reps):
        start = z3.If(r.esta >= 0, r.esta, first_of_epoch_z3(d, r))
        for k in range(d.records):
            o = s.acked_off[k]
            own = z3.And(r.alive, r.leader == b, s.acked[k], holds_acked(s, r, k),
                         sel(r.log_ep, o, -1) == r.lep, o >= r.hw)
            mine.append(z3.Implies(own, start > o))
    return z3.And(z3.Implies(_no_restart_yet_z3(s), z3.And(out)), z3.And(mine))


def lagging(config) -> bool:
    return config.hw_checkpoint != "immediate"


def _written_form(config) -> bool:
    """No other switch of the library takes the facts kept here in a form of their own to another
    form: process crashes and no fault bound (power_loss.py, delayed.py, shutdowns.py,
    failovers.py switch some of them)."""
    return config.crash_model == "process" and not config.bounds.faults()


def _written_form_z3(d) -> bool:
    return not (d.power_loss or d.disk_loss or d.delayed or d.shutdowns or d.expiries
                or d.failovers or d.retries or d.bumps or d.max_preferred or d.max_reassign)


def switch(st: Strengthening) -> Strengthening:
    """``st`` under ``--hw-checkpoint interval``: off (or its weaker form, above) if it is in
    ``OFF_UNDER_LAGGING_CHECKPOINT``; unchanged otherwise, and unchanged for every configuration
    without the setting."""
    if st.name not in OFF_UNDER_LAGGING_CHECKPOINT:
        return st
    from checker.symbolic.strengthen import fetches, isr_hw

    def check(s, config, _st=st):
        if not lagging(config):
            return _st.holds(s, config)
        if st.name == BEFORE_A_RESTART and _written_form(config) and len(s.replicas) >= 3:
            return _acked_below_running_writer(s)
        if st.name == WITHOUT_HW and _written_form(config):
            return fetches._fetch_response_from_leader_log(
                s, hw_bound="leading" if "broker-epoch" in config.rules else False)
        if (st.name == NOT_FOR_A_DOWN_LEADER and _written_form(config)
                and "broker-epoch" in config.rules):
            return isr_hw._hw_behind_epoch_leader(s, config, down=False)
        if st.name == NOT_FOR_A_DOWN_LEADER and _written_form(config) and len(s.replicas) >= 3:
            return _hw_behind_restarted_leader(s)
        return True

    def formula(d, s, _st=st):
        if not d.ckpt:
            return _st.formula(d, s)
        if st.name == BEFORE_A_RESTART and _written_form_z3(d) and d.n >= 3:
            return _acked_below_running_writer_z3(d, s)
        if st.name == WITHOUT_HW and _written_form_z3(d):
            return fetches._fetch_response_from_leader_log_z3(
                d, s, hw_bound="leading" if d.bounce_noticed else False)
        if st.name == NOT_FOR_A_DOWN_LEADER and _written_form_z3(d) and d.bounce_noticed:
            return isr_hw._hw_behind_epoch_leader_z3(d, s, down=False)
        if st.name == NOT_FOR_A_DOWN_LEADER and _written_form_z3(d) and d.n >= 3:
            return _hw_behind_restarted_leader_z3(d, s)
        return z3.BoolVal(True)

    return Strengthening(st.name, st.description, check, formula, uses_config=True)


def _restarted_2_1(s, config) -> bool:
    """Issue 29bb, redone in 29bh: on Kafka 2.1 (no broker epochs, no ELR) at RF=3 a leader may
    restart into its own epoch with its HW moved back while its followers keep theirs; its fetch
    responses then carry the lower HW and a follower's HW falls below its file
    (``checkpoint-behind-running-hw`` as written is false on 352 of 23,716 reachable states of 2.1
    ``+reset-followers-on-epoch`` RF=3 with one crash). It needs a crash: true before the first
    (29bb gated it on the crash bound being spent, which equals "a crash happened" only at
    ``--max-crashes 1``)."""
    return (len(s.replicas) >= 3 and "broker-epoch" not in config.rules
            and "eligible-leader-replicas" not in config.rules and s.crashes >= 1)


def _restarted_2_1_z3(d, s):
    if d.n < 3 or d.bounce_noticed or d.elr:
        return z3.BoolVal(False)
    return s.crashes >= 1


def _after_a_restart(s) -> bool:
    """Issue 29bh: ``checkpoint-behind-running-hw`` where ``_restarted_2_1``. Only a follower's HW
    is moved down by a fetch response (2.1.0 ``ReplicaFetcherThread.processPartitionData``: the
    follower's HW is ``min(LEO, response HW)``, no max with its own); a running leader's HW only
    grows while it leads (``Partition.maybeIncrementLeaderHW``), a restart reads the file back, and
    the file is written with the HW, so a restarted broker's (epoch -1) and a down broker's file
    is at most its HW, and every broker's at most its LEO; a running leader's too while only one
    crash happened (after a second, a follower whose HW a restarted leader moved back may lead)."""
    if s.crashes <= 1:
        # the HWs a restarted leader moved back are its followers', settled (29bk,
        # _settled_follower: nothing moves the epoch on after an unnoticed bounce), and only its
        # responses in that epoch carry an HW below their receiver's
        for b, r in enumerate(s.replicas):
            care = _settled_follower(s, b)
            if r.checkpointed_hw > r.high_watermark and not care:
                return False
            if r.fetch_response and r.fetch_response[4] < r.high_watermark and not (
                    care and r.fetch_response[:2] == (r.leader, r.leader_epoch)):
                return False
        if not _above_leader_settled(s):
            return False
    for b, r in enumerate(s.replicas):
        if r.checkpointed_hw > len(r.log):
            return False
        if ((not r.alive or r.leader_epoch < 0 or (r.leader == b and s.crashes <= 1))
                and r.checkpointed_hw > r.high_watermark):
            return False
    return True


def _settled_follower(s, b) -> bool:
    """Issue 29bk: where, with one crash so far, a broker's file may be past its HW (or a response
    on its way to it carry an HW below its own): the crash is over (every broker runs, and the
    controller counts every one live: the broker that crashed restarted before the controller
    noticed, which is how it took its own epoch up again, 2.1.0 ``KafkaController.onBrokerStartup``
    resends the partition's state without a new epoch), the broker follows the controller's leader
    in the controller's epoch, that leader runs and leads that epoch, and no LeaderAndIsr is on its
    way to the broker. Nothing then changes the epoch: with every broker live the controller
    elects no one (``onBrokerFailure`` needs a broker it counts dead), so the broker keeps
    following the leader that moved its HW back. 29bh named the follower's own running leader in
    an epoch at least its own; that let a LeaderAndIsr on its way (one with no leader, or one its
    leader had not applied yet) end the form (its 16th and 17th CTIs)."""
    r = s.replicas[b]
    c = s.controller
    lead = c.leader
    return (all(x.alive for x in s.replicas) and len(c.live_brokers) == len(s.replicas)
            and 0 <= lead < len(s.replicas) and lead != b
            and r.leader == lead and r.leader_epoch == c.leader_epoch
            and s.replicas[lead].leader == lead
            and s.replicas[lead].leader_epoch == c.leader_epoch
            and not any(q == b for q, _, _, _ in s.leader_and_isr))


def _above_leader_settled(s) -> bool:
    """Issue 29bk: with one crash so far and every broker running, a follower's HW above its
    running leader's (in the same epoch) is seen only with the partition settled: that leader is
    the controller's, in the controller's epoch, every broker is live to the controller and no
    LeaderAndIsr is on its way to either. Either the leader restarted into its own epoch before
    the controller noticed (its HW read back from its file; 2.1.0 ``KafkaController.BrokerChange``
    computes new and dead brokers as differences of two reads of the broker list, so a bounce
    between them is neither, lines 1238-1261) or it was elected after the crash and the crashed
    broker has registered again since (its new HW catches up only with its followers' fetches,
    ``Partition.maybeIncrementLeaderHW``)."""
    reps = s.replicas
    if not all(x.alive for x in reps):
        return True
    for L, lr in enumerate(reps):
        if lr.leader != L:
            continue
        for b, r in enumerate(reps):
            if (b != L and r.leader == L and r.leader_epoch == lr.leader_epoch
                    and r.high_watermark > lr.high_watermark
                    and not (s.controller.leader == L
                             and s.controller.leader_epoch == lr.leader_epoch
                             and len(s.controller.live_brokers) == len(reps)
                             and not any(q in (b, L) for q, _, _, _ in s.leader_and_isr))):
                return False
    return True


def _above_leader_settled_z3(d, s):
    out = []
    for L, lr in enumerate(s.reps):
        for b, r in enumerate(s.reps):
            if b == L:
                continue
            pending = [s.lai[q][e] for q in (b, L) for e in range(len(s.lai[q]))]
            above = z3.And([x.alive for x in s.reps] + [
                s.crashes <= 1, lr.leader == L, r.leader == L, r.lep == lr.lep, r.hw > lr.hw])
            out.append(z3.Implies(above, z3.And(
                [s.c_leader == L, s.c_epoch == lr.lep] + list(s.c_live)
                + [z3.Not(z3.Or([z3.BoolVal(False)] + pending))])))
    return z3.And(out)


def _settled_follower_z3(d, s, b):
    r = s.reps[b]
    pending = [s.lai[b][e] for e in range(len(s.lai[b]))]
    return z3.And([x.alive for x in s.reps] + list(s.c_live) + [
        r.leader == s.c_leader, r.lep == s.c_epoch, s.c_leader != b,
        z3.Or([z3.And(s.c_leader == L, lr.leader == L, lr.lep == s.c_epoch)
               for L, lr in enumerate(s.reps) if L != b]),
        z3.Not(z3.Or([z3.BoolVal(False)] + pending))])


def _after_a_restart_z3(d, s):
    follows = []
    for b, r in enumerate(s.reps):
        care = _settled_follower_z3(d, s, b)
        follows.append(z3.Implies(z3.And(s.crashes <= 1, r.ckpt > r.hw), care))
        follows.append(z3.Implies(z3.And(s.crashes <= 1, r.fr, r.fr_hw < r.hw),
                                  z3.And(care, r.fr_leader == r.leader, r.fr_epoch == r.lep)))
    return z3.And(follows + [_above_leader_settled_z3(d, s)]
                  + [z3.And(r.ckpt <= r.leo,
                            z3.Implies(z3.Or(z3.Not(r.alive), r.lep < 0,
                                             z3.And(r.leader == b, s.crashes <= 1)),
                                       r.ckpt <= r.hw))
                     for b, r in enumerate(s.reps)])


def _process_crashes(crash_model: str) -> bool:
    return crash_model == "process"


def _acked_copies(s, config) -> bool:
    if not (lagging(config) and _process_crashes(config.crash_model)):
        return True
    return all(sum(1 for r in s.replicas if off < len(r.log) and r.log[off][0] == rid)
               >= config.min_insync_replicas for rid, off in s.acked)


def _acked_copies_z3(d, s):
    if not d.ckpt or d.power_loss or d.disk_loss:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(s.acked[k], count([holds_acked(s, r, k) for r in s.reps])
                              >= num.val(d.min_isr)) for k in range(d.records)])


def _noticed_rf3(s, config) -> bool:
    """Issue 29bn: at RF>=3 with KIP-380's broker epochs (3.5's KRaft rules, no ELR) the form
    without the ELR is false on 2,906 of 251,130 reachable states of 3.5 RF=3 with the setting
    (its response clause on 794): a broker that restarted with its HW from its file follows
    the leader the controller elected after its crash, whose HW still lags (its HW rises only
    with its followers' fetches, ``Partition.maybeIncrementLeaderHW``), so a response carries
    an HW below the receiver's and the follower takes it (3.5.0 ``ReplicaFetcherThread``
    line 132, ``UnifiedLog.maybeUpdateHighWatermark``/``updateHighWatermark`` lines 258-331:
    the HW is set to the leader's, capped by the LEO, not maxed with its own), its file then
    above its HW. The ELR form (29bb: a running follower's file at most its LEO) is the one
    that holds there; RF=2 keeps its form (same terms)."""
    return len(s.replicas) >= 3 and "broker-epoch" in config.rules


def _checkpoint_behind(s, config) -> bool:
    if not lagging(config):
        return True
    if _restarted_2_1(s, config):
        return _after_a_restart(s)
    elr = "eligible-leader-replicas" in config.rules or _noticed_rf3(s, config)
    for b, r in enumerate(s.replicas):
        if not elr or not r.alive or r.leader_epoch < 0:
            bound = r.high_watermark
        elif r.leader == b:
            bound = max(r.high_watermark, first_of_epoch(r))
        else:
            bound = len(r.log)
        if r.checkpointed_hw > bound:
            return False
    return elr or all(r.high_watermark <= r.fetch_response[4]
                      for r in s.replicas if r.fetch_response)


def _checkpoint_behind_z3(d, s):
    if not d.ckpt:
        return z3.BoolVal(True)
    if not d.elr and not (d.n >= 3 and d.bounce_noticed):
        plain = z3.And([r.ckpt <= r.hw for r in s.reps]
                       + [z3.Implies(r.fr, r.hw <= r.fr_hw) for r in s.reps])
        if d.n < 3 or d.bounce_noticed:  # the term before 29bh, so RF=2's proofs see the same formula
            return z3.Or(z3.BoolVal(False), plain)
        return z3.If(_restarted_2_1_z3(d, s), _after_a_restart_z3(d, s), plain)
    out = []
    for b, r in enumerate(s.reps):
        start = first_of_epoch_z3(d, r)
        leading = z3.If(r.hw >= start, r.hw, start)
        out.append(r.ckpt <= z3.If(z3.Or(z3.Not(r.alive), r.lep < 0), r.hw,
                                   z3.If(r.leader == b, leading, r.leo)))
    return z3.And(out)


def _fetch_hw_on_elr(s, config) -> bool:
    if not (lagging(config) and _process_crashes(config.crash_model)):
        return True
    from checker.symbolic.strengthen import elr, fetches

    holders = elr._vouched(s, config)
    for r in s.replicas:
        if not r.fetch_response:
            continue
        for i, record in fetches._fetch_hw_slots(r):
            if any(i >= len(h.log) or h.log[i] != record for h in holders):
                return False
    return True


def _fetch_hw_on_elr_z3(d, s):
    if not d.ckpt or not d.elr or d.power_loss or d.disk_loss:
        return z3.BoolVal(True)
    from checker.symbolic.strengthen import elr, fetches

    vouched = elr._vouched_z3(d, s)
    out = []
    for r in s.reps:
        for i in range(d.slots):
            covered, rid, ep = fetches._fetch_hw_slot_z3(r, i)
            for member, h in zip(vouched, s.reps):
                out.append(z3.Implies(z3.And(covered, member),
                                      z3.And(i < h.leo, h.log_id[i] == rid, h.log_ep[i] == ep)))
    return z3.And(out)


def _checkpoint_committed(s, config) -> bool:
    if not (lagging(config) and _process_crashes(config.crash_model)):
        return True
    from checker.symbolic.strengthen import elr

    holders = [s.replicas[b] for b in s.controller.isr] + elr._vouched(s, config)
    if _leader_isr_too(s, config):
        from checker.symbolic.strengthen.kraft_epochs import _current_leader_views

        holders += [s.replicas[b] for view in _current_leader_views(s) for b in view]
    return all(holds_below(h, r, r.checkpointed_hw) for h in holders for r in s.replicas)


def _leader_isr_too(s, config) -> bool:
    """Issue 29bq: at RF>=3 under KIP-966's ELR (4.1) ``checkpoint-committed`` also speaks of
    the ISR the controller's leader holds in the controller's epoch, or will take from the
    LeaderAndIsr of that epoch on its way to it (``kraft-leader-isr-holds-every-hw``'s members,
    which may still hold a member the controller removed): each holds every broker's records
    below that broker's file, as it holds them below its HW. 4.1 RF=3's fifth CTI: a leader's
    AlterPartition adds a member lacking a record below a follower's file (the follower's HW
    fell below its file when it took its new leader's lower HW) and the controller writes it
    into its ISR. A leader adds a follower to its ISR only once its fetch offset reached the
    leader's HW and the epoch's start (``Partition.isFollowerInSync``,
    ``core/src/main/scala/kafka/cluster/Partition.scala`` line 1064 at trunk 1eb7644), so it
    holds the leader's records below them, and a record below any file was committed. Only with
    process crashes and no other fault bound (``_written_form``), where it was checked."""
    from checker.symbolic.strengthen.kraft_epochs import _only_failed_leaders_bump

    return (len(s.replicas) >= 3 and "eligible-leader-replicas" in config.rules
            and _written_form(config) and _only_failed_leaders_bump(config))


def _checkpoint_committed_z3(d, s, leader_isr=True):
    """``leader_isr=False``: without 29bq's clause (the slow test's mutant)."""
    if not d.ckpt or d.power_loss or d.disk_loss:
        return z3.BoolVal(True)
    from checker.symbolic.strengthen import elr

    vouched = elr._vouched_z3(d, s) if d.elr else [z3.BoolVal(False)] * d.n
    # (the Or keeps the term as it was before 29bh dropped 29bb's gate, false wherever it applied
    # at RF=2: RF=2's proofs see the same formula)
    same = z3.Or(z3.BoolVal(False), z3.And([
        z3.Implies(z3.Or(s.c_isr[b], vouched[b]), holds_below_z3(d, h, r, r.ckpt))
        for b, h in enumerate(s.reps) for r in s.reps if r is not h]))
    from checker.symbolic.strengthen.kraft_epochs import (
        _current_leader_views_z3, _only_failed_leaders_bump_z3,
    )

    if not (leader_isr and d.n >= 3 and d.elr and _written_form_z3(d)
            and _only_failed_leaders_bump_z3(d)):
        return same  # the term before 29bq
    return z3.And(same, z3.And([  # (29bq: _leader_isr_too)
        z3.Implies(z3.And(present, isr[b]), holds_below_z3(d, h, r, r.ckpt))
        for present, isr in _current_leader_views_z3(d, s)
        for b, h in enumerate(s.reps) for r in s.reps if r is not h]))


def _checkpoint_behind_epoch_leader(s, config) -> bool:
    if not (lagging(config) and _written_form(config)):
        return True
    if "unordered-leader-moves" in config.rules or "broker-epoch" not in config.rules:
        return True  # (2.1: a leader may restart into its own epoch, as for hw-behind-epoch-leader)
    from checker.symbolic.strengthen import isr_hw

    reps = s.replicas
    for lead, e in isr_hw._epoch_leaders(s, dead_leader=False):
        if e != s.controller.leader_epoch:
            continue
        hw = reps[lead].high_watermark
        for f, fr in enumerate(reps):
            if f != lead and any(ep == e and i >= hw
                                 for i, (_, ep) in enumerate(fr.log[:fr.checkpointed_hw])):
                return False
    return True


def _checkpoint_behind_epoch_leader_z3(d, s):
    if (not d.ckpt or not _written_form_z3(d) or d.power_loss or d.disk_loss or not d.ordered
            or not d.bounce_noticed):
        return z3.BoolVal(True)
    from checker.symbolic.strengthen.isr_hw import epochs_led_z3

    out = []
    for lead, lr in enumerate(s.reps):
        for leads, e in epochs_led_z3(s, lead):
            for f, fr in enumerate(s.reps):
                if f == lead:
                    continue
                out += [z3.Implies(z3.And(leads, e == s.c_epoch, i < fr.ckpt, i < fr.leo,
                                          fr.log_ep[i] == e), i < lr.hw)
                        for i in range(d.slots)]
    return z3.And(out)


def _start(r) -> int:
    """Where a leader's epoch started, as the kernel reads it (``leader_epoch_start_offset``):
    the recorded slot if set, else its first record of the epoch, else its LEO."""
    return r.epoch_start_offset if r.epoch_start_offset >= 0 else first_of_epoch(r)


def _hw_behind_restarted_leader(s) -> bool:
    """Issue 29bh, ``hw-behind-epoch-leader`` at RF>=3 without broker epochs (2.1) under the
    setting: a broker's HW (or file) covers a record of a running leader's epoch past that
    leader's HW only if the leader restarted into the epoch since, so its epoch started past the
    record (``fetch-hw-past-restart``'s argument: the record came from that leader's log)."""
    for lead, lr in enumerate(s.replicas):
        if not (lr.alive and lr.leader == lead):
            continue
        start = _start(lr)
        for f, fr in enumerate(s.replicas):
            top = max(fr.high_watermark, fr.checkpointed_hw)
            if f != lead and any(ep == lr.leader_epoch and lr.high_watermark <= i and start <= i
                                 for i, (_, ep) in enumerate(fr.log[:top])):
                return False
    return True


def _hw_behind_restarted_leader_z3(d, s):
    out = []
    for lead, lr in enumerate(s.reps):
        start = z3.If(lr.esta >= 0, lr.esta, first_of_epoch_z3(d, lr))
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            out += [z3.Implies(z3.And(lr.alive, lr.leader == lead, z3.Or(i < fr.hw, i < fr.ckpt),
                                      i < fr.leo, fr.log_ep[i] == lr.lep, i >= lr.hw),
                               start > i) for i in range(d.slots)]
    return z3.And(out)


def _fetch_hw_past_start(s, config) -> bool:
    if not (lagging(config) and _written_form(config)) or len(s.replicas) < 3:
        return True
    # (29bk) an epoch start is recorded only by a broker that restarted into an epoch it had
    # records of (and a stop forgets it), so each broker down, restarted and waiting for its
    # LeaderAndIsr (epoch -1), or with an epoch start recorded took a crash of its own
    unnoticed = "broker-epoch" not in config.rules and "eligible-leader-replicas" not in config.rules
    if unnoticed and sum(1 for r in s.replicas
                         if not r.alive or r.leader_epoch < 0 or r.epoch_start_offset >= 0) > s.crashes:
        return False
    # (29bk) with one crash, a broker that restarted into its own epoch did so before the
    # controller noticed (2.1.0 KafkaController.BrokerChange, lines 1238-1261: a bounce between
    # two reads of the broker list is neither new nor dead), so it leads the controller's epoch
    # as the controller's leader, every broker is live to it, and no LeaderAndIsr is on its way
    # to it or to a follower of it in its epoch (the registration's is the one it applied)
    c = s.controller
    for b, r in enumerate(s.replicas):
        # a restarted broker still waiting (epoch -1) has on its way only the LeaderAndIsr its
        # registration sent (a stop drops what was on its way: the connection is gone), of the
        # controller's epoch: with one crash nothing moves the epoch on after it
        if (unnoticed and s.crashes <= 1 and r.alive and r.leader_epoch < 0
                and any(q == b and e != c.leader_epoch for q, e, _, _ in s.leader_and_isr)):
            return False
        if not (unnoticed and s.crashes <= 1 and r.alive and r.epoch_start_offset >= 0):
            continue
        mine = [q for q, f in enumerate(s.replicas)
                if q == b or (f.leader == b and f.leader_epoch == r.leader_epoch)]
        if not (r.leader == b and c.leader == b and c.leader_epoch == r.leader_epoch
                and len(c.live_brokers) == len(s.replicas)
                and not any(q in mine for q, _, _, _ in s.leader_and_isr)):
            return False
    if "broker-epoch" in config.rules and "kraft" in config.rules:
        # (29bn) with KRaft's broker epochs a restarted broker is fenced before it may lead again,
        # and the fencing gives the partition a new leader epoch (3.5.0 ReplicationControlManager
        # .handleBrokerFenced, line 1200; handleBrokerUnfenced, line 1249, elects it only with a
        # new epoch), so a LeaderAndIsr on its way to a restarted broker still waiting (epoch -1)
        # names it leader only of an epoch newer than every record of its log
        for q, e, lead, _ in s.leader_and_isr:
            r = s.replicas[q]
            if r.alive and r.leader_epoch < 0 and lead == q and any(ep >= e for _, ep in r.log):
                return False
        # (29bn) with one crash, a fetch response's HW is above its running sender's only while
        # the sender waits after a restart (epoch -1) or follows another broker, the controller's
        # leader is another broker and every LeaderAndIsr on its way to the sender names another
        # broker leader (none names it, none is leaderless: the sender's crash, the one crash,
        # had the controller elect another ISR member, the HW having moved with min.insync
        # members):
        # a leader's HW only grows while it leads (3.5.0 Partition.maybeIncrementLeaderHW, line
        # 1081), a restart is fenced and leads only a new epoch (above), and a broker's HW falls
        # below one it sent only by a restart or as a follower taking its new leader's HW
        # (ReplicaFetcherThread line 132)
        elr = "eligible-leader-replicas" in config.rules  # (4.1's CTI; 3.5 proved without it)
        for r in s.replicas if s.crashes <= 1 and elr else ():
            if r.fetch_response:
                lead, epoch, _, _, hw, _ = r.fetch_response
                lr = s.replicas[lead]
                if lr.alive and hw > lr.high_watermark and not (
                        (lr.leader_epoch < 0 or 0 <= lr.leader != lead)
                        and 0 <= s.controller.leader != lead
                        and all(0 <= l != lead for q, _, l, _ in s.leader_and_isr if q == lead)):
                    return False
                # (29bq) the sender down, its HW (read back from its file at the crash) below the
                # response's: once the controller has noticed (the sender out of its live set,
                # which a restart needs under broker epochs), it has elected another broker.
                # The fencing takes the sender out of the ISR and elects another live member,
                # or an ELR member if the ISR is left empty (ReplicationControlManager
                # .handleBrokerFenced, PartitionChangeBuilder.electAnyLeader/isValidNewLeader;
                # the ISR and ELR keep min.insync.replicas members until a restart,
                # elr-keeps-min-isr), and with one crash every other broker runs and is live
                if (not lr.alive and hw > lr.high_watermark
                        and lead not in s.controller.live_brokers
                        and not 0 <= s.controller.leader != lead):
                    return False
    for r in s.replicas:
        if r.fetch_response:
            lead, epoch, _, _, hw, _ = r.fetch_response
            lr = s.replicas[lead]
            if (lr.alive and lr.leader == lead and lr.leader_epoch == epoch
                    and hw > lr.high_watermark and _start(lr) < hw):
                return False
            # restarted, about to take the epoch up again: its log still reaches that HW
            if (lr.alive and lr.leader_epoch < 0 and hw > len(lr.log)
                    and any(q == lead and e == epoch and l == lead
                            for q, e, l, _ in s.leader_and_isr)):
                return False
            # down, and still the controller's leader of that epoch: likewise
            if (not lr.alive and hw > len(lr.log) and s.controller.leader == lead
                    and s.controller.leader_epoch == epoch):
                return False
    return True


def _fetch_hw_past_start_z3(d, s, down_sender=True):
    """``down_sender=False``: without 29bq's clause (the slow test's mutant)."""
    if not d.ckpt or not _written_form_z3(d) or d.n < 3:
        return z3.BoolVal(True)
    out = []
    if not (d.bounce_noticed or d.elr):  # (29bk: checked on 2.1's reachable states only)
        out.append(count([z3.Or(z3.Not(r.alive), r.lep < 0, r.esta >= 0) for r in s.reps])
                   <= s.crashes)
    for b, r in enumerate(s.reps if not (d.bounce_noticed or d.elr) else ()):
        out += [z3.Implies(z3.And(s.crashes <= 1, r.alive, r.lep < 0, s.lai[b][e]), s.c_epoch == e)
                for e in range(len(s.lai[b]))]
        sent = [z3.And(z3.Or(q == b, z3.And(f.leader == b, f.lep == r.lep)), s.lai[q][e])
                for q, f in enumerate(s.reps) for e in range(len(s.lai[q]))]
        out.append(z3.Implies(z3.And(s.crashes <= 1, r.alive, r.esta >= 0), z3.And(
            [r.leader == b, s.c_leader == b, s.c_epoch == r.lep,
             z3.Not(z3.Or([z3.BoolVal(False)] + sent))] + list(s.c_live))))
    for b, r in enumerate(s.reps if d.bounce_noticed and d.kraft else ()):  # (29bn)
        for e in range(len(s.lai[b])):
            out.append(z3.Implies(
                z3.And(r.alive, r.lep < 0, s.lai[b][e], s.lai_leader[b][e] == b),
                z3.And([z3.Implies(i < r.leo, r.log_ep[i] < e) for i in range(d.slots)])))
    for r in s.reps if d.bounce_noticed and d.kraft and d.elr else ():  # (29bn; 4.1's CTI)
        for lead, lr in enumerate(s.reps):
            named = [z3.And(s.lai[lead][e], z3.Or(s.lai_leader[lead][e] == lead,
                                                  s.lai_leader[lead][e] < 0))
                     for e in range(len(s.lai[lead]))]
            out.append(z3.Implies(
                z3.And(s.crashes <= 1, r.fr, r.fr_leader == lead, lr.alive, r.fr_hw > lr.hw),
                z3.And(z3.Or(lr.lep < 0, z3.And(lr.leader >= 0, lr.leader != lead)),
                       s.c_leader >= 0, s.c_leader != lead,
                       z3.Not(z3.Or([z3.BoolVal(False)] + named)))))
            out += [z3.Implies(  # (29bq: a down sender, once the controller noticed)
                z3.And(s.crashes <= 1, r.fr, r.fr_leader == lead, z3.Not(lr.alive),
                       z3.Not(s.c_live[lead]), r.fr_hw > lr.hw),
                z3.And(s.c_leader >= 0, s.c_leader != lead))] if down_sender else []
    for r in s.reps:
        for lead, lr in enumerate(s.reps):
            start = z3.If(lr.esta >= 0, lr.esta, first_of_epoch_z3(d, lr))
            leading = z3.And(r.fr, r.fr_leader == lead, lr.alive, lr.leader == lead,
                             lr.lep == r.fr_epoch, r.fr_hw > lr.hw)
            out.append(z3.Implies(leading, start >= r.fr_hw))
            for e in range(len(s.lai[lead])):
                back = z3.And(r.fr, r.fr_leader == lead, lr.alive, lr.lep < 0, s.lai[lead][e],
                              s.lai_leader[lead][e] == lead, r.fr_epoch == e)
                out.append(z3.Implies(back, r.fr_hw <= lr.leo))
            down = z3.And(r.fr, r.fr_leader == lead, z3.Not(lr.alive), s.c_leader == lead,
                          s.c_epoch == r.fr_epoch)
            out.append(z3.Implies(down, r.fr_hw <= lr.leo))
    return z3.And(out)


STRENGTHENINGS = (
    Strengthening("checkpoint-behind-running-hw",
                  "(--hw-checkpoint interval) a broker's checkpoint file holds no higher an HW "
                  "than its own (under the ELR a running follower's only no higher than its "
                  "LEO), and "
                  "without the ELR a fetch response on its way to a broker carries an HW no lower "
                  "than the broker's, so no follower's HW falls below its file: the file is "
                  "written with the HW and a stop reads it back; on 4.1's reachable states a "
                  "running follower can take a lower HW from its new leader after the write",
                  _checkpoint_behind, _checkpoint_behind_z3, uses_config=True),
    Strengthening("acked-copies-lagging-checkpoint",
                  "(--hw-checkpoint interval, process crashes) an acked record is in at least "
                  "min.insync.replicas logs, at its offset: the ack needed that many copies, a "
                  "process crash keeps the log, and no truncation reaches a committed record "
                  "(the HW a crash moves back is not what a follower truncates to since KIP-101)",
                  _acked_copies, _acked_copies_z3, uses_config=True),
    Strengthening("fetch-hw-on-elr",
                  "(--hw-checkpoint interval, process crashes, KIP-966) the records a fetch "
                  "response's HW covers (the follower's log to the fetch offset, then the "
                  "response's records) are in the log of the last known leader and, under "
                  "hw-needs-min-isr, of every ELR member, at their offsets: the HW the response "
                  "carries moved only while the ISR had min.insync.replicas members, and a "
                  "replica joins the ELR as it leaves such an ISR (the sender's HW, which bounds "
                  "the response's without the setting, can move back in a crash)",
                  _fetch_hw_on_elr, _fetch_hw_on_elr_z3, uses_config=True),
    Strengthening("checkpoint-committed",
                  "(--hw-checkpoint interval, process crashes) every member of the controller's "
                  "ISR, the last known leader and (under hw-needs-min-isr) every ELR member holds "
                  "every broker's records below that broker's checkpointed HW, as it holds them "
                  "below its HW (isr-holds-every-hw): the file holds an HW the broker had, and a "
                  "committed record stays committed",
                  _checkpoint_committed, _checkpoint_committed_z3, uses_config=True),
    Strengthening("checkpoint-behind-epoch-leader",
                  "(--hw-checkpoint interval, process crashes, no other fault bound, KIP-380's "
                  "broker epochs) no broker's "
                  "checkpointed HW covers a record of the controller's leader epoch unless the "
                  "HW of the broker leading that epoch, running (or restarted, with a request on "
                  "its way that makes it leader again), does: hw-behind-epoch-leader for the "
                  "HW a broker wrote to its file (only that leader, in that epoch, sends an HW "
                  "past its records, and its HW only grows while it leads)",
                  _checkpoint_behind_epoch_leader, _checkpoint_behind_epoch_leader_z3,
                  uses_config=True),
    Strengthening("fetch-hw-past-restart",
                  "(--hw-checkpoint interval, process crashes, no other fault bound, RF>=3; issue "
                  "29bh) a fetch response's HW is above its sender's HW, while the sender runs and "
                  "leads the response's epoch, only if the sender restarted into that epoch since "
                  "it sent it, and then its epoch started at or past that HW: a leader's HW only "
                  "grows while it runs, and a broker that takes up an epoch records its LEO as the "
                  "epoch's start (Partition.makeLeader, leaderEpochStartOffsetOpt, 2.1.0 "
                  "Partition.scala lines 380-386), at least the HW it had sent; so a restarted "
                  "sender with a request on its way that makes it leader of that epoch again "
                  "still holds a log that long (a process crash keeps the log), as does a down "
                  "sender the controller still names leader of that epoch; and (issue 29bk) each "
                  "broker down, restarted and waiting (epoch -1), or with a recorded epoch start "
                  "took a crash of its own: a broker "
                  "applies only a LeaderAndIsr of an epoch newer than its own (2.1.0 "
                  "ReplicaManager.becomeLeaderOrFollower, line 1044), so it takes up an epoch it "
                  "already has records of only after a restart, and a stop forgets the start",
                  _fetch_hw_past_start, _fetch_hw_past_start_z3, uses_config=True),
)
"""Facts only the lagging checkpoint needs (true by definition elsewhere): ``--strengthen all``
leaves them out unless the setting is on (``library.all_names``)."""
