"""The library's power-loss forms (``--crash-model power-loss``, issue 29p).

With power-loss crashes a broker that crashes loses what it had not flushed: the kernel's
BrokerCrash cuts its log at ``flushed_offset`` (and its HW with it), counting the loss in
``unflushed_losses`` up to ``--max-unflushed-losses`` (model/kernel/actions/faults.py). That is
Kafka's own behaviour: a broker writes its log to the page cache and fsyncs only every
``log.flush.interval.messages`` (``Log.append`` -> ``flush`` at 2.2.0, default Long.MaxValue), and
recovery after an unclean shutdown (``LogManager.loadLogs`` -> ``Log.recoverLog`` at 2.2.0) keeps
what is on disk. So a power loss is a truncation that no leader asked for, and every library
invariant that says "this broker still holds what it held in epoch e, for it cannot have truncated
since" (``history.kept_log_since``) is false of a broker that may have lost power since. Such a
broker cannot be told from the state: the state keeps no history of who lost power. What it keeps:

* ``unflushed_losses``: with 0 no broker has lost anything, and every process-crash fact holds;
* a broker that leads epoch e and is running cannot have lost power since it took e: under
  KIP-380 (``broker-epoch``, Kafka 2.2) a restarted broker registers again only after the
  controller has handled its failure, and the failure of a leader always makes a new epoch
  (``KafkaController.onBrokerFailure`` -> ``onReplicasBecomeOffline`` at 2.2.0), so it never
  leads e again;
* a running broker that has applied an epoch older than e has not been in e yet.

``lost_since`` says "may have lost power since epoch e" from these (and from membership of an
ISR of several in the controller's epoch: a member's failure would have made a newer epoch); the
power-loss forms replace "kept its log since e" by "kept its log since e and cannot have lost
power since" (``kept``). Facts about high watermarks survive a power loss only in part: a record
below a HW need not be anywhere but in the log of one broker that then loses it
(min.insync.replicas guards acked records, not committed ones: the HW advances over the ISR,
which may be the leader alone), so ``committed-consistency`` is false under power loss and left
out of ``--strengthen all`` there (``NOT_IN_ALL``), and the HW facts keep a form only for an ISR
of several members in the controller's epoch, or hold until the first loss (``UNTIL_A_LOSS``).
The facts about acked records keep a form: every acked record is in the log of every *running*
member of the controller's ISR and of some member always, and (2.2-2.6, ``acked-on-min-isr``) of
min.insync.replicas members until a crash or a later record.

Each form is switched by ``Dims.power_loss`` in z3 and by the configuration's crash model in
Python, so process-crash proofs get the library's formulas unchanged. ``switch`` wraps the
library's entries; ``STRENGTHENINGS`` holds the invariants only power loss needs.
"""

from __future__ import annotations

import z3

from checker.symbolic.formulas import holds_acked, holds_every_acked
from checker.symbolic.state import count
from checker.symbolic.strengthen import fetches, isr_hw, logs, remote_leos
from checker.symbolic.strengthen.base import (
    Strengthening, held_records, held_slots_z3, holds_below, holds_below_z3,
)
from checker.symbolic.strengthen.history import (
    epoch_claims, epoch_claims_z3, epochs_led, follower_kept_log_since, follower_kept_log_since_z3,
    kept_log_since, kept_log_since_z3, leads_epoch_z3, never_took, never_took_z3,
)

POWER_LOSS = "power-loss"


# ---------------------------------------------------------------- who may have lost power since when


def lost_since(s, b: int, e: int) -> bool:
    """Broker ``b`` may have lost power since epoch ``e`` (the module's docstring): a power loss
    happened, and ``b`` is not a running broker that is in an older epoch, leads ``e``, or has
    has led every epoch since ``e`` (a leader's crash makes the next epoch another's), is in
    the controller's ISR of several in epoch ``e`` (its failure would have taken it out with a
    newer epoch), or has
    restarted and waits for a request older than ``e`` or one of ``e`` that makes it leader (the
    requests to a broker die with it, and the one its restart brings carries the controller's
    epoch, newer than any it led before: so it never led ``e`` before its crash)."""
    if s.unflushed_losses == 0:
        return False
    r = s.replicas[b]
    if not r.alive:
        return True
    c = s.controller
    if b in c.isr and len(c.isr) > 1 and e >= c.leader_epoch:
        return False  # its failure in the controller's epoch would have made a newer one
    if r.leader_epoch >= 0:
        if r.leader_epoch < e or (r.leader_epoch == e and r.leader == b):
            return False
        # a leader that has led every epoch since e: a leader's crash makes the next epoch
        # another's (or none's), so it has not crashed since
        claims = epoch_claims(s)
        return not (r.leader == b and all(any(ce == x and cl == b for ce, cl in claims)
                                          for x in range(e + 1, r.leader_epoch)))
    return not any(q == b and (x < e or (x == e and leader == b)) for q, x, leader, _ in s.leader_and_isr)


def lost_since_z3(d, s, b: int, e):
    r = s.reps[b]
    waits = z3.Or([z3.And(s.lai[b][x], z3.Or(x < e, z3.And(x == e, s.lai_leader[b][x] == b)))
                   for x in range(len(s.lai[b]))])
    claims = epoch_claims_z3(d, s)
    led_since = z3.And([z3.Implies(z3.And(e < x, x < r.lep), z3.Or([z3.And(p, ce == x, cl == b) for p, ce, cl in claims]))
                        for x in range(d.max_epoch + 1)])
    in_isr = z3.And(s.c_isr[b], count(s.c_isr) > 1, e >= s.c_epoch)
    safe = z3.And(r.alive, z3.Or(in_isr, z3.If(r.lep >= 0, z3.Or(r.lep < e, z3.And(r.lep >= e, r.leader == b, led_since)), waits)))
    return z3.And(s.losses > 0, z3.Not(safe))


def kept(s, b: int, e: int) -> bool:
    return kept_log_since(s, b, e) and not lost_since(s, b, e)


def kept_z3(d, s, b: int, e):
    return z3.And(kept_log_since_z3(d, s, b, e), z3.Not(lost_since_z3(d, s, b, e)))


def lost_any(s) -> bool:
    return s.unflushed_losses > 0


# ---------------------------------------------------------------- logs (logs.py)


def _epoch_leader_holds_its_records(s) -> bool:
    """Every record of an epoch is at its offset in its leader's log, or past the log's end of a
    leader that is down after a power loss (it lost its unflushed tail)."""
    for lead, lr in enumerate(s.replicas):
        epochs = epochs_led(s, lead)
        lossy = lost_any(s) and not lr.alive
        for off, rid, ep in held_records(s):
            if ep not in epochs:
                continue
            if off >= len(lr.log):
                if not lossy:
                    return False
            elif lr.log[off] != (rid, ep):
                return False
    return True


def _epoch_leader_holds_its_records_z3(d, s):
    slots = held_slots_z3(d, s)
    out = []
    for lead, lr in enumerate(s.reps):
        lossy = z3.And(s.losses > 0, z3.Not(lr.alive))
        for present, i, rid, ep in slots:
            out.append(z3.Implies(z3.And(present, leads_epoch_z3(s, lead, ep)),
                                  z3.And(z3.Or(i < lr.leo, lossy),
                                         z3.Implies(i < lr.leo, z3.And(lr.log_id[i] == rid,
                                                                       lr.log_ep[i] == ep)))))
    return z3.And(out)


# ---------------------------------------------------------------- fetches (fetches.py)


def _with_kept(check, formula):
    """A library fact stated with "cannot have truncated since" (``kept_log_since``), restated
    with ``kept``: "cannot have truncated nor lost power since"."""
    return (lambda s: check(s, kept)), (lambda d, s: formula(d, s, kept_z3))


# ---------------------------------------------------------------- acks (acks.py)


def _acked_in_isr(s) -> bool:
    """Every acked record is in the log of every running member of the controller's ISR, of every
    member while no power was lost, and of some member always (a dead member that lost it has
    another beside it: with one left it would lead again with the record gone)."""
    for rid, off in s.acked:
        holders = [b for b in s.controller.isr
                   if off < len(s.replicas[b].log) and s.replicas[b].log[off][0] == rid]
        if not holders:
            return False
        for b in s.controller.isr:
            if b not in holders and (s.replicas[b].alive or not lost_any(s)):
                return False
    return True


def _acked_in_isr_z3(d, s):
    out = [z3.Implies(z3.And(s.c_isr[b], z3.Or(s.losses == 0, r.alive)), holds_every_acked(d, s, r))
           for b, r in enumerate(s.reps)]
    out += [z3.Implies(s.acked[k], z3.Or([z3.And(s.c_isr[b], holds_acked(s, r, k)) for b, r in enumerate(s.reps)]))
            for k in range(d.records)]
    return z3.And(out)


# ---------------------------------------------------------------- ISR and HW (isr_hw.py)


def _isr_followers_hold_hw(s, aside=None) -> bool:
    """A follower in a leader's ISR that is in the leader's epoch or an older one, or that can
    have neither truncated nor lost power since, holds the leader's records below its HW (one
    that lost power in the epoch was in the controller's ISR, and left it with a new epoch, or
    was not, and rejoins only caught up)."""
    for lead, epoch, isr in isr_hw._isr_views(s):
        lr = s.replicas[lead]
        for f in isr:
            fr = s.replicas[f]
            not_past = 0 <= fr.leader_epoch <= epoch or (follower_kept_log_since(s, f, lead, epoch)
                                                         and not lost_since(s, f, epoch))
            if aside is not None and aside(lr, f):
                continue  # issue 29w (power_loss_kraft): set aside under KRaft's rules
            if f != lead and not_past and not holds_below(fr, lr, lr.high_watermark):
                return False
    return True


def _isr_followers_hold_hw_z3(d, s, aside=None):
    out = []
    for lead, present, epoch, isr in isr_hw._isr_views_z3(d, s):
        lr = s.reps[lead]
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            not_past = z3.Or(z3.And(fr.lep >= 0, fr.lep <= epoch),
                             z3.And(follower_kept_log_since_z3(d, s, f, lead, epoch),
                                    z3.Not(lost_since_z3(d, s, f, epoch))))
            if aside is not None:
                not_past = z3.And(not_past, z3.Not(aside(d, lr, f)))
            out.append(z3.Implies(z3.And(present, isr[f], not_past), holds_below_z3(d, fr, lr, lr.hw)))
    return z3.And(out)


def _isr_holds_every_hw(s) -> bool:
    """A running member of the controller's ISR of several holds the records below the HW of
    every running replica in the controller's epoch (and every member every replica's, while no
    power was lost): a record below a HW in an older epoch may be gone with the one broker that
    held it, but an ISR of several in the current epoch holds what its leader committed. (A
    replica still truncating may hold such a lost record below its HW: for it, only the records
    the controller's leader also holds.)"""
    c = s.controller
    if not lost_any(s):
        return isr_hw._isr_holds_every_hw(s)
    if len(c.isr) < 2:
        return True
    lead = s.replicas[c.leader] if c.leader >= 0 else None
    for b in c.isr:
        br = s.replicas[b]
        if not br.alive:
            continue
        for r in s.replicas:
            if not (r.alive and r.leader_epoch == c.leader_epoch):
                continue
            for i in range(min(r.high_watermark, len(r.log))):
                if r.truncating and not (lead is not None and i < len(lead.log) and lead.log[i] == r.log[i]):
                    continue
                if i >= len(br.log) or br.log[i] != r.log[i]:
                    return False
    return True


def _isr_holds_every_hw_z3(d, s):
    out = []
    for b, br in enumerate(s.reps):
        member = z3.And(s.c_isr[b], br.alive, count(s.c_isr) > 1)
        for x, r in enumerate(s.reps):
            if x == b:
                continue
            current = z3.And(member, r.alive, r.lep == s.c_epoch)
            for i in range(d.slots):
                led = z3.Or([z3.And(s.c_leader == m, i < mr.leo, mr.log_id[i] == r.log_id[i],
                                    mr.log_ep[i] == r.log_ep[i]) for m, mr in enumerate(s.reps)])
                below = z3.And(current, i < r.hw, i < r.leo, z3.Or(z3.Not(r.truncating), led))
                out.append(z3.Implies(below, z3.And(i < br.leo, br.log_id[i] == r.log_id[i],
                                                    br.log_ep[i] == r.log_ep[i])))
    return z3.If(s.losses > 0, z3.And(out), isr_hw._isr_holds_every_hw_z3(d, s))


def _fetch_hw_committed(s) -> bool:
    """After a power loss, fetches.py's fact for the running members of an ISR of several and
    the fetch responses of the controller's epoch: what a HW of that epoch covers is on them
    (a member that lost power left the ISR with a newer epoch; one added since caught up)."""
    if not lost_any(s):
        return fetches._fetch_hw_committed(s)
    c = s.controller
    holders = [b for b in c.isr if s.replicas[b].alive] if len(c.isr) > 1 else []
    for r in s.replicas:
        if r.fetch_response and r.fetch_response[1] == c.leader_epoch and r.fetch_response[2] <= r.fetch_response[5]:
            covered = fetches._fetch_hw_covered(r)
            if covered is None:
                return False
            if any(s.replicas[b].log[:len(covered)] != covered for b in holders):
                return False
    return True


def _fetch_hw_committed_z3(d, s):
    lossy = s.losses > 0
    out = []
    for r in s.reps:
        for i in range(d.slots):
            covered = z3.And(r.fr, r.fr_offset <= r.fr_leo, i < r.fr_hw, i < r.fr_leo)
            counted = z3.Or(z3.Not(lossy), r.fr_epoch == s.c_epoch)  # as the predicate reads them
            out.append(z3.Implies(z3.And(covered, counted, i < r.fr_offset), i < r.leo))
            rid = z3.If(i < r.fr_offset, r.log_id[i], r.fr_id[i])
            ep = z3.If(i < r.fr_offset, r.log_ep[i], r.fr_ep[i])
            for b, br in enumerate(s.reps):
                holds = z3.And(i < br.leo, br.log_id[i] == rid, br.log_ep[i] == ep)
                before = z3.Or(s.c_isr[b], r.fr_leader == b)
                after = z3.And(s.c_isr[b], br.alive, count(s.c_isr) > 1, r.fr_epoch == s.c_epoch)
                out.append(z3.Implies(z3.And(covered, z3.If(lossy, after, before)), holds))
    return z3.And(out)


# ---------------------------------------------------------------- remote LEOs (remote_leos.py)


def _kept_or_rejoined(s, f: int, e: int) -> bool:
    """``kept``, or ``f`` follows in epoch ``e`` and is in the ISR of the running leader of ``e``:
    if it lost power in ``e`` it was out of the ISR then (KIP-380: a member's failure makes a new
    epoch), and the leader added it back only on a fetch after its restart, which set the LEO the
    leader holds for it."""
    r = s.replicas[f]
    return kept(s, f, e) or (r.alive and r.leader_epoch == e and any(
        lr.alive and lr.leader == b and lr.leader_epoch == e and f in lr.isr
        for b, lr in enumerate(s.replicas) if b != f))


def _kept_or_rejoined_z3(d, s, f: int, e):
    r = s.reps[f]
    rejoined = z3.And(r.alive, r.lep == e, z3.Or([z3.And(lr.alive, lr.leader == b, lr.lep == e, lr.isr[f])
                                                  for b, lr in enumerate(s.reps) if b != f]))
    return z3.Or(kept_z3(d, s, f, e), rejoined)


def _kept_remote_leo_is_follower_prefix(s, config) -> bool:
    """remote_leos' fact with "cannot have truncated since" also "cannot have lost power since,
    or rejoined the leader's ISR since" (``_kept_or_rejoined``)."""
    return remote_leos._kept_remote_leo_is_follower_prefix(s, config, _kept_or_rejoined)


def _kept_remote_leo_is_follower_prefix_z3(d, s):
    return remote_leos._kept_remote_leo_is_follower_prefix_z3(d, s, _kept_or_rejoined_z3)


def _follower_kept(s, f: int, lead: int, e: int) -> bool:
    return follower_kept_log_since(s, f, lead, e) and not lost_since(s, f, e)


def _follower_kept_z3(d, s, f: int, lead: int, e):
    return z3.And(follower_kept_log_since_z3(d, s, f, lead, e), z3.Not(lost_since_z3(d, s, f, e)))


def _remote_leo_is_follower_prefix(s, config) -> bool:
    """kmc 0.1's reset rule's fact with "cannot have truncated since" also "nor lost power"."""
    return fetches._remote_leo_is_follower_prefix(s, config, _follower_kept)


def _remote_leo_is_follower_prefix_z3(d, s):
    return fetches._remote_leo_is_follower_prefix_z3(d, s, _follower_kept_z3)


# ---------------------------------------------------------------- the switch


def _until_a_loss(st: Strengthening):
    """A fact that holds until the first power loss and says nothing after it."""
    def check(s, config=None):
        return s.unflushed_losses > 0 or st.holds(s, config)

    def formula(d, s):
        return z3.Or(s.losses > 0, st.formula(d, s))

    return check, formula


# name -> (Python predicate of a state, z3 formula): the form each takes under power loss
FORMS = {
    "epoch-leader-holds-its-records": (_epoch_leader_holds_its_records, _epoch_leader_holds_its_records_z3),
    "named-leader-holds-its-records": _with_kept(logs._named_leader_holds_its_records,
                                                 logs._named_leader_holds_its_records_z3),
    "follower-log-is-leader-prefix": _with_kept(logs._follower_log_is_leader_prefix,
                                                logs._follower_log_is_leader_prefix_z3),
    "fetch-response-from-leader-log": _with_kept(fetches._fetch_response_from_leader_log,
                                                 fetches._fetch_response_from_leader_log_z3),
    "acked-in-isr": (_acked_in_isr, _acked_in_isr_z3),
    # a record below a HW may be lost with the one broker that held it, so only an ISR of several
    "fetch-hw-on-later-isr": ((lambda s: fetches._fetch_hw_on_later_isr(s, kept, several=True)),
                              (lambda d, s: fetches._fetch_hw_on_later_isr_z3(d, s, kept_z3, several=True))),
    "isr-followers-hold-hw": (_isr_followers_hold_hw, _isr_followers_hold_hw_z3),
    "isr-holds-every-hw": (_isr_holds_every_hw, _isr_holds_every_hw_z3),
    "fetch-hw-committed": (_fetch_hw_committed, _fetch_hw_committed_z3),
}
# name -> (Python predicate of a state and the configuration, z3 formula)
CONFIG_FORMS = {
    "hw-behind-epoch-leader": ((lambda s, config: isr_hw._hw_behind_epoch_leader(s, config, True)),
                               (lambda d, s: isr_hw._hw_behind_epoch_leader_z3(d, s, True))),
    "kept-remote-leo-is-follower-prefix": (_kept_remote_leo_is_follower_prefix,
                                           _kept_remote_leo_is_follower_prefix_z3),
    "remote-leo-is-follower-prefix": (_remote_leo_is_follower_prefix, _remote_leo_is_follower_prefix_z3),
}

# facts about high watermarks, true until the first power loss only (the module's docstring)
UNTIL_A_LOSS = (
    "fetch-hw-on-later-leaders", "hw-prefix-of-true-leader",
    "leader-holds-followers-hw", "requested-leaders-hold-hw", "later-leaders-hold-hw",
)


def switch(st: Strengthening, wraps=None) -> Strengthening:
    """``st`` with its power-loss form under ``--crash-model power-loss``; unchanged otherwise.
    ``wraps`` (name -> function of the form's check and formula) adjusts forms further: issue
    29w's KRaft forms (``power_loss_kraft.switch`` passes them)."""
    wraps = wraps or {}
    if st.name in FORMS:
        pl_check, pl_formula = FORMS[st.name]

        def pl_holds(s, config, _c=pl_check):
            return _c(s)
    elif st.name in CONFIG_FORMS:
        pl_holds, pl_formula = CONFIG_FORMS[st.name]
    elif st.name in UNTIL_A_LOSS:
        pl_holds, pl_formula = _until_a_loss(st)
    elif st.name in wraps:
        pl_holds, pl_formula = st.holds, st.formula
    else:
        return st
    if st.name in wraps:  # issue 29w: KRaft keeps the epoch across a failure
        pl_holds, pl_formula = wraps[st.name](pl_holds, pl_formula)

    def check(s, config):
        return pl_holds(s, config) if config.crash_model == POWER_LOSS else st.holds(s, config)

    def formula(d, s):
        return pl_formula(d, s) if d.power_loss else st.formula(d, s)

    return Strengthening(st.name, st.description, check, formula, uses_config=True)


# built-in properties false under power loss, left out of ``--strengthen all`` there: a record
# below the HW may be in one log only (the HW advances over the ISR, which may be the leader
# alone; min.insync.replicas guards acks), and a power loss takes it (`kmc check --kafka-version
# 2.2 -r 2 --crash-model power-loss --max-unflushed-losses 1 --max-records 1 -p
# committed-consistency`: VIOLATED in 5 steps)
NOT_IN_ALL = ("committed-consistency",)

# ---------------------------------------------------------------- invariants only power loss needs


def _isr_member_holds_remote_leo(s) -> bool:
    """The controller's leader, running, holds a LEO for each running member of the controller's
    ISR that has applied an epoch and is done truncating: that member's log holds the leader's
    records below it."""
    c = s.controller
    if c.leader < 0:
        return True
    lr = s.replicas[c.leader]
    if not (lr.alive and lr.leader == c.leader):
        return True
    for f in c.isr:
        fr = s.replicas[f]
        x = lr.remote_log_end_offsets[f]
        if f == c.leader or x < 0 or not fr.alive or fr.leader_epoch < 0:
            continue
        if not (x <= len(fr.log) and x <= len(lr.log) and fr.log[:x] == lr.log[:x]):
            return False
    return True


def _isr_member_holds_remote_leo_z3(d, s):
    if not d.power_loss:
        return z3.BoolVal(True)
    out = []
    for lead, lr in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f == lead:
                continue
            x = lr.remote[f]
            cond = z3.And(s.c_leader == lead, lr.alive, lr.leader == lead, s.c_isr[f], x >= 0,
                          fr.alive, fr.lep >= 0)
            out.append(z3.Implies(cond, z3.And(x <= lr.leo, holds_below_z3(d, fr, lr, x))))
    return z3.And(out)


def _acked_on_min_isr(s, config) -> bool:
    """Without KIP-497 (the leader writes its ISR itself, 2.2-2.6), an acked record is in the logs
    of at least min.insync.replicas members of the controller's ISR until a crash or a later
    record: the ack needed that many members holding it (``Partition.checkEnoughReplicasReachOffset``
    at 2.2.0), the controller removes a member only on a failure, and the leader only one whose
    LEO is behind its own (``Partition.getOutOfSyncReplicas`` at 2.2.0), which needs a later
    record. (Under KIP-497 the ack counts the maximal ISR while a shrink is on its way, and the
    fact is false: the 3.2 counterexample in docs/symbolic.md.)"""
    if ("alter-partition" in config.rules or config.bounds.max_preferred_elections
            or config.bounds.max_reassignments or "unordered-leader-moves" in config.rules):
        return True
    if s.crashes > 0:
        return True
    for rid, off in s.acked:
        if s.records_written > rid:
            continue
        holders = [b for b in s.controller.isr
                   if off < len(s.replicas[b].log) and s.replicas[b].log[off][0] == rid]
        if len(holders) < config.min_insync_replicas:
            return False
        # and the running leader knows its ISR members are past it (so none lags behind it)
        for lead, lr in enumerate(s.replicas):
            if lr.alive and lr.leader == lead and any(
                    f != lead and lr.remote_log_end_offsets[f] <= off for f in lr.isr):
                return False
    return True


def _acked_on_min_isr_z3(d, s):
    if not d.power_loss or d.alter or d.operators or not d.ordered:
        return z3.BoolVal(True)
    out = []
    for k in range(d.records):
        held = [z3.If(z3.And(s.c_isr[b], holds_acked(s, r, k)), 1, 0) for b, r in enumerate(s.reps)]
        quiet = z3.And(s.acked[k], s.crashes == 0, s.written <= k + 1)
        out.append(z3.Implies(quiet, z3.Sum(held) >= d.min_isr))
        out += [z3.Implies(z3.And(quiet, lr.alive, lr.leader == lead, lr.isr[f]), lr.remote[f] > s.acked_off[k])
                for lead, lr in enumerate(s.reps) for f in range(d.n) if f != lead]
    return z3.And(out)


def _restarted_out_of_isr(s, aside=None) -> bool:
    """A running broker that has applied no epoch since its restart is not in the controller's
    ISR, unless it is all of it (an offline partition keeps its last member)."""
    isr = s.controller.isr
    if any(r.alive and r.leader_epoch == -1 and b in isr and len(isr) > 1 for b, r in enumerate(s.replicas)):
        return False
    # and a running leader whose ISR still holds it is a stale one: its crash made a newer epoch,
    # so no request of the leader's epoch or older is on its way to it
    for lead, lr in enumerate(s.replicas):
        if not (lr.alive and lr.leader == lead):
            continue
        for f in lr.isr:
            fr = s.replicas[f]
            if aside is not None and aside(lr, f):
                continue  # issue 29w (power_loss_kraft): set aside under KRaft's rules
            if f != lead and fr.alive and fr.leader_epoch == -1 and any(
                    q == f and x <= lr.leader_epoch for q, x, _, _ in s.leader_and_isr):
                return False
    return True


def _restarted_out_of_isr_z3(d, s, aside=None):
    if not d.power_loss:
        return z3.BoolVal(True)
    out = [z3.Implies(z3.And(r.alive, r.lep == -1, s.c_isr[b]), count(s.c_isr) == 1)
           for b, r in enumerate(s.reps)]
    for lead, lr in enumerate(s.reps):
        for f, fr in enumerate(s.reps):
            if f != lead:
                kept_in = z3.BoolVal(True) if aside is None else z3.Not(aside(d, lr, f))
                out.append(z3.Implies(z3.And(lr.alive, lr.leader == lead, lr.isr[f], fr.alive, fr.lep == -1, kept_in),
                                      z3.And([z3.Not(z3.And(s.lai[f][x], x <= lr.lep))
                                              for x in range(len(s.lai[f]))])))
    return z3.And(out)


def _flushed_offsets(s) -> bool:
    """Every flushed offset is within its log, a dead broker's is its LEO (its crash kept all it
    had flushed, or cut the log there), and no more losses happened than crashes."""
    return (all(r.flushed_offset <= len(r.log) and (r.alive or r.flushed_offset == len(r.log))
                for r in s.replicas) and s.unflushed_losses <= s.crashes)


def _flushed_offsets_z3(d, s):
    if not d.power_loss:
        return z3.BoolVal(True)
    return z3.And([z3.And(r.flushed <= r.leo, z3.Or(r.alive, r.flushed == r.leo)) for r in s.reps]
                  + [s.losses <= s.crashes])


def _replaced_leader_out_of_isr(s, config) -> bool:
    """A broker named leader of an epoch is not in the controller's ISR of the next epoch while
    another broker leads that one and has not taken it: with Kafka's ordered elections a leader is
    replaced only when its failure is handled, which takes it out of the ISR
    (``PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection`` at 2.2.0 elects from the
    live ISR, and the new leader and ISR are written together), and only the new leader, once it
    has taken its epoch, adds members back."""
    if ("unordered-leader-moves" in config.rules or config.bounds.max_preferred_elections
            or config.bounds.max_reassignments):
        return True
    c = s.controller
    if c.leader < 0 or not never_took(s, c.leader, c.leader_epoch):
        return True
    return not any(e + 1 == c.leader_epoch and b >= 0 and b != c.leader and b in c.isr
                   for e, b in epoch_claims(s))


def _replaced_leader_out_of_isr_z3(d, s):
    if not d.power_loss or not d.ordered or d.operators:
        return z3.BoolVal(True)
    waiting = z3.And(s.c_leader >= 0, never_took_z3(d, s, s.c_leader, s.c_epoch))
    out = []
    for present, e, named in epoch_claims_z3(d, s):
        replaced = z3.And(waiting, present, s.c_epoch == e + 1, named != s.c_leader)
        out += [z3.Implies(z3.And(replaced, named == b), z3.Not(s.c_isr[b])) for b in range(d.n)]
    return z3.And(out)


def _restarts_counted(s) -> bool:
    """crashes_restarts' ``crashes-counted`` also counting a follower still truncating in the
    first epoch: no broker starts out truncating, and the first epoch's LeaderAndIsr reaches a
    broker again only after a restart, so it crashed."""
    return sum(1 for r in s.replicas if not r.alive or r.leader_epoch == -1
               or (r.truncating and r.leader_epoch == 0)) <= s.crashes


def _restarts_counted_z3(d, s):
    if not d.power_loss:
        return z3.BoolVal(True)
    return count([z3.Or(z3.Not(r.alive), r.lep == -1, z3.And(r.truncating, r.lep == 0))
                  for r in s.reps]) <= s.crashes


def _pl_only(check, with_config=False):
    def holds(s, config):
        return config.crash_model != POWER_LOSS or (check(s, config) if with_config else check(s))
    return holds


STRENGTHENINGS: tuple = (
    Strengthening("flushed-offsets", "(power loss) every broker's flushed offset is within its "
                  "log, a dead broker's is its LEO (BrokerCrash keeps what was flushed and cuts "
                  "the rest, model/kernel/actions/faults.py), and there were no more losses than "
                  "crashes", _pl_only(_flushed_offsets), _flushed_offsets_z3, uses_config=True),
    Strengthening("isr-member-holds-remote-leo", "(power loss) the running controller's leader's "
                  "LEO for a running member of the controller's ISR that has applied an epoch "
                  "is at most its own, and that member holds its records below "
                  "it: a follower that lost power left the ISR (KIP-380: its failure is handled "
                  "before it registers again) and rejoins it only after fetching again",
                  _pl_only(_isr_member_holds_remote_leo), _isr_member_holds_remote_leo_z3,
                  uses_config=True),
    Strengthening("acked-on-min-isr", "(power loss, without KIP-497) until a crash or a later "
                  "record, an acked record is in the logs of at least min.insync.replicas members "
                  "of the controller's ISR, and a running leader has every member of its ISR past "
                  "it: the ack needed them, and only a failure or a leader ahead of a follower's "
                  "LEO takes a member out", _pl_only(_acked_on_min_isr, True),
                  _acked_on_min_isr_z3, uses_config=True),
    Strengthening("restarted-out-of-isr", "(power loss, KIP-380) a running broker that has "
                  "applied no epoch since its restart is not in the controller's ISR unless it is "
                  "the whole ISR, and a running leader whose ISR holds it is older than every "
                  "request on its way to it: its failure was handled before it registered again, "
                  "which took it out of an ISR of several with a new epoch "
                  "(KafkaController.onReplicasBecomeOffline at 2.2.0), and only a leader it "
                  "fetched from adds it back", _pl_only(_restarted_out_of_isr),
                  _restarted_out_of_isr_z3, uses_config=True),
    Strengthening("replaced-leader-out-of-isr", "(power loss, Kafka's ordered elections) a broker "
                  "named leader of an epoch is not in the controller's ISR of the next while "
                  "another broker leads that one and has not taken it: a leader is replaced only "
                  "when its failure is handled, which takes it out of the ISR, and only the new "
                  "leader adds members back", _pl_only(_replaced_leader_out_of_isr, True),
                  _replaced_leader_out_of_isr_z3, uses_config=True),
    Strengthening("restarts-counted", "(power loss) the brokers down, restarted and waiting, or "
                  "truncating in the first epoch are no more than the crashes: no broker starts "
                  "out truncating, and the first epoch's LeaderAndIsr reaches a broker again only "
                  "after a restart", _pl_only(_restarts_counted), _restarts_counted_z3,
                  uses_config=True),
)

__all__ = ["FORMS", "STRENGTHENINGS", "UNTIL_A_LOSS", "kept", "kept_z3", "lost_since", "lost_since_z3", "switch"]
