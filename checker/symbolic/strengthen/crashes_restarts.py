"""Strengthening invariants about crashes and restarts: what a crash erases, what a restarted
broker holds until it applies a LeaderAndIsr, and what the controller's live set and the crash
count say about them."""

from __future__ import annotations

import z3

from model.constants import ALTER_SENT

from checker.symbolic import numbers as num
from checker.symbolic.state import count, ite
from checker.symbolic.strengthen.base import Strengthening, first_of_epoch, first_of_epoch_z3
from checker.symbolic.strengthen.history import epoch_claims, epoch_claims_z3
from model.constants import NO_LEADER


def _dead_replica_reset(s) -> bool:
    return all(r.alive or (r.leader_epoch == -1 and r.leader == NO_LEADER and not r.isr
                           and not r.truncating and not r.fetch_response)
               for r in s.replicas)


def _dead_replica_reset_z3(d, s):
    return z3.And([z3.Implies(z3.Not(r.alive), z3.And([r.lep == -1, r.leader == -1, z3.Not(r.truncating),
                                                         z3.Not(r.fr)] + [z3.Not(x) for x in r.isr]))
                   for r in s.reps])


def _restarted_replica_reset(s) -> bool:
    return all(r.leader == NO_LEADER and not r.fetch_response and not r.truncating and not r.isr
               and all(x == -1 for x in r.remote_log_end_offsets)
               for r in s.replicas if r.leader_epoch == -1)


def _restarted_replica_reset_z3(d, s):
    return z3.And([z3.Implies(r.lep == -1, z3.And([r.leader == -1, z3.Not(r.fr), z3.Not(r.truncating)]
                                                 + [z3.Not(x) for x in r.isr] + [x == -1 for x in r.remote]))
                   for r in s.reps])


def _live_brokers_registered(s) -> bool:
    c = s.controller
    return all(b in c.live_brokers for b, r in enumerate(s.replicas) if r.alive) and (
        c.leader == NO_LEADER or c.leader in c.live_brokers)


def _live_brokers_registered_z3(d, s):
    out = [z3.Implies(r.alive, s.c_live[b]) for b, r in enumerate(s.reps)]
    out += [z3.Implies(s.c_leader == b, s.c_live[b]) for b in range(d.n)]
    return z3.And(out)


def _crashes_counted(s) -> bool:
    return sum(1 for r in s.replicas if not r.alive or r.leader_epoch == -1) <= s.crashes


def _crashes_counted_z3(d, s):
    return count([z3.Or(z3.Not(r.alive), r.lep == -1) for r in s.reps]) <= s.crashes


def _operator_moves(config) -> bool:
    """The operator's preferred elections and reassignments move a healthy leader too."""
    return bool(config.bounds.max_preferred_elections or config.bounds.max_reassignments)


def _stale_leader_still_leads(s, config) -> bool:
    if "unordered-leader-moves" in config.rules or _operator_moves(config):
        return True  # the over-approximation and the operator move healthy leaders
    c = s.controller
    running = all(c.leader == b for b, r in enumerate(s.replicas)
                  if r.alive and r.leader == b and r.leader_epoch < c.leader_epoch)
    queued = all(c.leader == b for b, e, leader, _ in s.leader_and_isr
                 if leader == b and e < c.leader_epoch)
    # a running leader has not crashed since its epoch, so every later epoch is its too
    for b, r in enumerate(s.replicas):
        if not (r.alive and r.leader == b):
            continue
        if any(e > r.leader_epoch and leader != b for _, e, leader, _ in s.leader_and_isr):
            return False
        if any(x.alive and x.leader_epoch > r.leader_epoch and x.leader != b for x in s.replicas):
            return False
    return running and queued


def _stale_leader_still_leads_z3(d, s):
    if not d.ordered or d.operators:
        return z3.BoolVal(True)
    out = [z3.Implies(z3.And(r.alive, r.leader == b, r.lep < s.c_epoch), s.c_leader == b)
           for b, r in enumerate(s.reps)]
    out += [z3.Implies(z3.And(s.lai[b][e], s.lai_leader[b][e] == b, s.c_epoch > e), s.c_leader == b)
            for b in range(d.n) for e in range(len(s.lai[b]))]
    for b, r in enumerate(s.reps):
        leads = z3.And(r.alive, r.leader == b)
        out += [z3.Implies(z3.And(leads, s.lai[x][e], r.lep < e), s.lai_leader[x][e] == b)
                for x in range(d.n) for e in range(len(s.lai[x]))]
        out += [z3.Implies(z3.And(leads, xr.alive, xr.lep > r.lep), xr.leader == b)
                for xr in s.reps]
    return z3.And(out)


def _replaced_leaders(s) -> set:
    """Running brokers, in an epoch, named leader by a request of an epoch older than the
    controller's, that are not the controller's leader: with Kafka's elections each has crashed
    since (leadership moves only from a failed leader)."""
    c = s.controller
    return {leader for _, e, leader, _ in s.leader_and_isr
            if leader >= 0 and leader != c.leader and e < c.leader_epoch
            and s.replicas[leader].alive and s.replicas[leader].leader_epoch >= 0}


def _replaced_leaders_crashed(s, config) -> bool:
    if "unordered-leader-moves" in config.rules or _operator_moves(config):
        return True
    down = sum(1 for r in s.replicas if not r.alive or r.leader_epoch == -1)
    return down + len(_replaced_leaders(s)) <= s.crashes


def _replaced_leaders_crashed_z3(d, s):
    if not d.ordered or d.operators:
        return z3.BoolVal(True)
    down = [z3.Or(z3.Not(r.alive), r.lep == -1) for r in s.reps]
    replaced = []
    for l, lr in enumerate(s.reps):
        named = z3.Or([z3.And(s.lai[b][e], s.lai_leader[b][e] == l, s.c_epoch > e)
                       for b in range(d.n) for e in range(len(s.lai[b]))])
        replaced.append(z3.And(named, s.c_leader != l, lr.alive, lr.lep >= 0))
    return count(down + replaced) <= s.crashes



def _leaders_by_epoch(s) -> dict:
    """epoch -> the brokers named its leader by a request, a live broker or the controller (one,
    by ``epoch-names-one-leader``; leaderless epochs left out), and epoch 0 -> broker 0, the
    leader the partition was created with, whether or not the state still names it."""
    named: dict = {0: {0}}
    claims = epoch_claims(s)
    if s.zombie_controller:  # the zombie's view names its epoch's leader too (issue 29ap)
        claims = claims + [(s.zombie_controller[2], s.zombie_controller[1])]
    for e, leader in claims:
        if leader >= 0:
            named.setdefault(e, set()).add(leader)
    return named


def _epoch_bumps(s) -> int:
    """How many of the controller's epochs after the first follow an epoch the state names a
    leader for: each was made by the controller handling a broker's failure (a restarted
    broker is elected only after a leaderless epoch)."""
    named = _leaders_by_epoch(s)
    return sum(1 for y in range(1, s.controller.leader_epoch + 1) if y - 1 in named)


def _unhandled_failures(s, config=None) -> int:
    """Brokers down whose failure the controller has not handled (each will make an epoch when
    it does), and under KIP-966 (issue 29l) brokers down, handled, and in the ISR or in a
    AlterPartition of the current epoch on its way (proposed before the crash, accepted after): each may make an epoch
    when it restarts (``handleBrokerUncleanShutdown`` takes it out of the ISR)."""
    c = s.controller
    unhandled = sum(1 for b, r in enumerate(s.replicas) if not r.alive and b in c.live_brokers)
    if config is None or "eligible-leader-replicas" not in config.rules:
        return unhandled
    # issue 29v: only a proposal with the current partition epoch can be accepted (a controller
    # write since makes it stale: the kernel's ``commit``, Kafka's INVALID_UPDATE_VERSION)
    proposed = {m for r in s.replicas if r.alter_partition and r.alter_partition[0] == ALTER_SENT
                and r.alter_partition[2] == c.leader_epoch and r.alter_partition[3]
                for m in r.alter_partition[1]}
    return unhandled + sum(1 for b, r in enumerate(s.replicas)
                           if not r.alive and b not in c.live_brokers
                           and (b in c.isr or b in proposed))


def _epoch_bumps_crashed(s, config) -> bool:
    if "unordered-leader-moves" in config.rules or _operator_moves(config):
        return True
    if "alter-partition-shrink-bumps-leader-epoch" in config.rules:
        return True  # an AlterPartition shrink makes an epoch too (issue 29f)
    return _epoch_bumps(s) + _unhandled_failures(s, config) <= s.crashes


def _named_epochs_z3(d, s):
    """epoch -> (named, leader) of every claim on it, and epoch -> "the state names a leader"
    (``_leaders_by_epoch``)."""
    claims = epoch_claims_z3(d, s)
    if d.failovers:  # the zombie's view names its epoch's leader too (issue 29ap)
        claims = claims + [(s.zomb, s.z_lep, s.z_leader)]
    epochs = range(d.max_epoch + 1)
    at = {x: [(z3.And(p, ce == x, cl >= 0), cl) for p, ce, cl in claims] for x in epochs}
    at[0].append((z3.BoolVal(True), num.val(0)))  # the leader the partition was created with
    return at, {x: z3.Or([named for named, _ in at[x]]) for x in epochs}


def _named_changes_z3(d, s):
    """(x, "x and y > x are named, none in between", claims at x, claims at y)."""
    at, known = _named_epochs_z3(d, s)
    epochs = range(d.max_epoch + 1)
    return [(x, z3.And([known[x], known[y]] + [z3.Not(known[z]) for z in range(x + 1, y)]), at[x], at[y])
            for x in epochs for y in epochs if x < y]


def _bumps_and_unhandled_z3(d, s, known) -> list:
    """``_epoch_bumps`` and ``_unhandled_failures`` as z3 Bools, one per crash they count."""
    bumps = [z3.And(known[y - 1], y <= s.c_epoch) for y in range(1, d.max_epoch + 1)]
    if d.elr:  # KIP-966: a restart takes a broker out of the ISR with a new epoch (issue 29l)
        proposed = [z3.Or([z3.And(lr.alt == ALTER_SENT, lr.alt_ep == s.c_epoch, lr.alt_cur,
                                  lr.alt_isr[b])
                           for lr in s.reps])
                    for b in range(d.n)]
        bumps += [z3.And(z3.Not(r.alive), z3.Not(s.c_live[b]), z3.Or(s.c_isr[b], proposed[b]))
                  for b, r in enumerate(s.reps)]
    return bumps + [z3.And(z3.Not(r.alive), s.c_live[b]) for b, r in enumerate(s.reps)]


def _epoch_bumps_crashed_z3(d, s):
    if not d.ordered or d.operators or d.shrink_bumps:
        return z3.BoolVal(True)
    _, known = _named_epochs_z3(d, s)
    return count(_bumps_and_unhandled_z3(d, s, known)) <= s.crashes


def _running_since(s, b: int):
    """The epoch from which broker ``b`` has been running without a crash, as far as the state
    tells: the epoch it applied, or after a restart the oldest request on its way to it (the
    controller's epoch when it restarted: a crash drops every request to it); None if it is down
    or waits for nothing."""
    r = s.replicas[b]
    if not r.alive:
        return None
    if r.leader_epoch >= 0:
        return r.leader_epoch
    mine = [e for q, e, _, _ in s.leader_and_isr if q == b]
    return min(mine) if mine else None


def _running_leaders_kept_leading(s, config, shutting_down_let_through: bool = False) -> bool:
    """``shutting_down_let_through`` (issue 29bl, controlled.py): a broker marked shutting down
    is not held to it."""
    if "unordered-leader-moves" in config.rules or _operator_moves(config):
        return True
    named = _leaders_by_epoch(s)
    epochs = sorted(named)
    for b, r in enumerate(s.replicas):
        since = _running_since(s, b)
        if since is None or (shutting_down_let_through and r.shutting_down):
            continue
        for x, y in zip(epochs, epochs[1:]):
            if b in named[x] and any(m != b for m in named[y]) and x >= since:
                return False
    return True


def _running_leaders_kept_leading_z3(d, s, shutting_down_let_through: bool = False):
    if not d.ordered or d.operators:
        return z3.BoolVal(True)
    pairs = _named_changes_z3(d, s)
    out = []
    for b, r in enumerate(s.reps):
        oldest = None
        for e in range(len(s.lai[b]) - 1, -1, -1):
            oldest = (s.lai[b][e], num.val(e)) if oldest is None else (
                z3.Or(s.lai[b][e], oldest[0]), ite(s.lai[b][e], num.val(e), oldest[1]))
        waits = oldest[0] if oldest else z3.BoolVal(False)
        since = ite(r.lep >= 0, r.lep, oldest[1] if oldest else num.val(0))
        let_through = [z3.Not(r.sd)] if shutting_down_let_through else []
        running = z3.And(r.alive, *let_through, z3.Or(r.lep >= 0, waits))
        for x, adjacent, at_x, at_y in pairs:
            from_b = z3.Or([z3.And(a, la == b) for a, la in at_x])
            to_other = z3.Or([z3.And(a, la != b) for a, la in at_y])
            out.append(z3.Implies(z3.And(running, adjacent, from_b, to_other), x < since))
    return z3.And(out)


def _quick_restart(s, b: int) -> bool:
    """Broker ``b`` restarted after a crash the controller never handled, as the state still
    shows it: ``b`` is running, has applied nothing since it restarted, and the oldest request on
    its way to it (sent when it restarted: a request to a dead broker is lost, and a restart gets
    the controller's current epoch) makes it leader of an epoch ``y`` the controller made by
    handling another broker's failure (``y - 1`` names a leader; ``_epoch_bumps``).

    Why its last crash was not handled: the controller elects from its live set
    (``KafkaController.onBrokerFailure`` -> ``offlinePartitionLeaderElection``, 2.1.0), so ``b``
    was in it when ``y`` was made; it stayed in it while the controller's epoch was ``y``
    (handling the failure of ``y``'s leader makes a new epoch, or is impossible at the epoch
    bound), and ``b`` restarted during ``y``; so its crash, before or after ``y`` was made, left
    it registered, and a broker leaves the live set only when its failure is handled."""
    r = s.replicas[b]
    if not r.alive or r.leader_epoch != -1:
        return False
    mine = sorted((e, leader) for q, e, leader, _ in s.leader_and_isr if q == b)
    if not mine:
        return False
    y, leader = mine[0]
    return leader == b and y >= 1 and (y - 1) in _leaders_by_epoch(s)


def _quick_restarts_crashed(s, config) -> bool:
    if "unordered-leader-moves" in config.rules or _operator_moves(config):
        return True
    if "alter-partition-shrink-bumps-leader-epoch" in config.rules:
        return True  # an AlterPartition shrink makes an epoch too (issue 29f)
    quick = sum(1 for b in range(len(s.replicas)) if _quick_restart(s, b))
    return _epoch_bumps(s) + _unhandled_failures(s, config) + quick <= s.crashes


def _epoch_start_recorded(s) -> bool:
    """Kafka 2.1 (the kernel's ``epoch_start_offset``): only a running leader holds a recorded
    start of its epoch, and only above a record of that epoch (it took the epoch up again after
    a restart) and at most at its LEO (a leader appends, never truncates)."""
    for b, r in enumerate(s.replicas):
        if r.epoch_start_offset < 0:
            continue
        if not (r.alive and r.leader == b and first_of_epoch(r) < r.epoch_start_offset <= len(r.log)):
            return False
    return True


def _epoch_start_recorded_z3(d, s):
    if not d.epoch_start:
        return z3.BoolVal(True)
    out = []
    for b, r in enumerate(s.reps):
        out.append(z3.Implies(r.esta >= 0, z3.And(r.alive, r.leader == b,
                                                  first_of_epoch_z3(d, r) < r.esta, r.esta <= r.leo)))
    return z3.And(out)


def _quick_restarts_crashed_z3(d, s):
    if not d.ordered or d.operators or d.shrink_bumps:
        return z3.BoolVal(True)
    _, known = _named_epochs_z3(d, s)
    quick = []
    for b, r in enumerate(s.reps):
        oldest_names_b = [z3.And([s.lai[b][y], s.lai_leader[b][y] == b, known[y - 1]]
                                 + [z3.Not(s.lai[b][x]) for x in range(y)])
                          for y in range(1, len(s.lai[b]))]
        quick.append(z3.And(r.alive, r.lep == -1, z3.Or(oldest_names_b)))
    return count(_bumps_and_unhandled_z3(d, s, known) + quick) <= s.crashes


# in the order `kmc list` shows them
STRENGTHENINGS = (
    Strengthening("dead-replica-reset", "a crashed broker has no role, epoch, ISR, truncation "
                  "or fetch response", _dead_replica_reset, _dead_replica_reset_z3),
    Strengthening("restarted-replica-reset", "a broker that has applied no LeaderAndIsr since "
                  "it restarted follows nobody and holds no ISR, remote LEO, truncation or fetch",
                  _restarted_replica_reset, _restarted_replica_reset_z3),
    Strengthening("epoch-start-recorded", "a recorded start of a leader's epoch (Kafka 2.1: "
                  "a broker that took its own epoch up again after a restart) is on a running "
                  "leader, above its first record of the epoch and at most its LEO",
                  _epoch_start_recorded, _epoch_start_recorded_z3),
    Strengthening("crashes-counted", "no more brokers are down or waiting after a restart "
                  "than crashes have happened", _crashes_counted, _crashes_counted_z3),
    Strengthening("stale-leader-still-leads", "with Kafka's elections and no operator moves, a "
                  "running broker that leads an epoch older than the controller's, or a request on its way that makes "
                  "its broker leader of one, is about the controller's leader (the controller moves "
                  "leadership only from a failed leader, and a crash erases the role and the "
                  "requests; under a live leader only the controller's ISR changes bump the epoch); "
                  "and every request or broker of a later epoch than a running leader's names it",
                  _stale_leader_still_leads, _stale_leader_still_leads_z3, uses_config=True),
    Strengthening("replaced-leaders-crashed", "with Kafka's elections and no operator moves, a "
                  "running broker named leader by a request of an older epoch than the controller's, and no longer its "
                  "leader, has crashed since: it counts as a crash besides the brokers down or "
                  "waiting after a restart", _replaced_leaders_crashed, _replaced_leaders_crashed_z3,
                  uses_config=True),
    Strengthening("epoch-bumps-crashed", "with Kafka's elections and no operator moves, the "
                  "controller's epochs that follow an epoch the state names a leader for (by a "
                  "request, a live broker or the controller) are at most as many as the crashes: "
                  "the controller makes each by handling a broker's failure, once per crash (only "
                  "after a leaderless epoch does a restart make one); a broker down whose failure it "
                  "has not handled yet is one crash more", _epoch_bumps_crashed,
                  _epoch_bumps_crashed_z3, uses_config=True),
    Strengthening("running-leaders-kept-leading", "with Kafka's elections and no operator "
                  "moves, leadership has not passed from a running broker to another in an epoch "
                  "the controller made after the broker's own epoch, or after it restarted (the "
                  "oldest request on its way): the controller moves leadership only when it "
                  "handles the leader's failure, and the broker has not crashed since",
                  _running_leaders_kept_leading, _running_leaders_kept_leading_z3, uses_config=True),
    Strengthening("live-brokers-registered", "every running broker, and the controller's "
                  "leader, is in the controller's live set", _live_brokers_registered,
                  _live_brokers_registered_z3),
    Strengthening("quick-restarts-crashed", "with Kafka's elections and no operator moves, a "
                  "restarted broker that waits for the request making it leader of an epoch the "
                  "controller made by handling another broker's failure crashed without the "
                  "controller handling it (it was in the live set when elected, and stayed there): "
                  "one crash more besides the epoch bumps and the unhandled failures of "
                  "epoch-bumps-crashed", _quick_restarts_crashed, _quick_restarts_crashed_z3,
                  uses_config=True),
)
