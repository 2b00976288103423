"""What a state still tells of a broker's past epochs, shared by several topics.

A crash resets a broker's epoch to -1 (``ReplicaState.leader_epoch``), erasing which epochs it led
or followed and so whether it can have truncated its log since. These helpers recover that history
from what the state still holds: the epochs LeaderAndIsr requests, live brokers and the controller
name leaders for (``epoch_claims``), the epochs a broker leads or is named to lead
(``epochs_led``), whether a leader can have taken an epoch (``never_took``), and whether a broker
can have truncated its log since one (``kept_log_since``)."""

from __future__ import annotations

import z3

from checker.symbolic import numbers as num
from checker.symbolic.state import ite
from model.constants import NO_LEADER


def epoch_claims(s):
    """(epoch, leader) as every LeaderAndIsr request, live broker and the controller hold it."""
    claims = [(e, leader) for _, e, leader, _ in s.leader_and_isr]
    claims += [(r.leader_epoch, r.leader) for r in s.replicas if r.alive and r.leader_epoch >= 0]
    claims.append((s.controller.leader_epoch, s.controller.leader))
    return claims


def leads_in(r, b: int, epoch) -> bool:
    return r.alive and r.leader == b and r.leader_epoch == epoch


def follower_kept_log_since(s, f: int, lead: int, e: int) -> bool:
    """Follower ``f`` fetched from ``lead`` in epoch ``e``: is it still in ``e`` or later, and can
    it not have truncated since? (``lead`` still leads ``e``, so it never took a later epoch.)"""
    r = s.replicas[f]
    return (r.leader_epoch == -1 or r.leader_epoch >= e) and kept_log_since(s, f, e)


def follower_kept_log_since_z3(d, s, f: int, lead: int, e):
    r = s.reps[f]
    return z3.And(z3.Or(r.lep == -1, r.lep >= e), kept_log_since_z3(d, s, f, e))


def epochs_led(s, b: int) -> set:
    """The epochs broker ``b`` leads in, is made leader of by a request in flight, or is the
    controller's leader in (it may be down or waiting for that request after a quick restart)."""
    epochs = {e for q, e, leader, _ in s.leader_and_isr if q == b and leader == b}
    r = s.replicas[b]
    if r.alive and r.leader == b:
        epochs.add(r.leader_epoch)
    if s.controller.leader == b:
        epochs.add(s.controller.leader_epoch)
    return epochs


def leads_epoch_z3(s, b: int, ep):
    """z3: ``ep`` is one of ``epochs_led(s, b)``."""
    r = s.reps[b]
    out = [z3.And(r.alive, r.leader == b, ep == r.lep), z3.And(s.c_leader == b, ep == s.c_epoch)]
    out += [z3.And(s.lai[b][e], s.lai_leader[b][e] == b, ep == e) for e in range(len(s.lai[b]))]
    return z3.Or(out)


def never_took(s, b: int, e: int) -> bool:
    """Broker ``b`` has never taken epoch ``e`` as leader (or ``b`` is no broker): since its last
    restart it applied only older epochs, or it waits for a request older than ``e`` (a crash in
    ``e`` or later would have left only newer requests to it)."""
    if b == NO_LEADER:
        return True
    r = s.replicas[b]
    if not r.alive:
        return False
    if r.leader_epoch >= 0:
        return r.leader_epoch < e
    return any(q == b and x < e for q, x, _, _ in s.leader_and_isr)


def never_took_z3(d, s, b, e):
    """``never_took`` for a symbolic broker ``b`` (a term, -1 for none) and epoch ``e``."""
    out = [b == -1]
    for m, r in enumerate(s.reps):
        waits = z3.Or([z3.And(s.lai[m][x], x < e) for x in range(len(s.lai[m]))])
        out.append(z3.And(b == m, r.alive, z3.If(r.lep >= 0, r.lep < e, waits)))
    return z3.Or(out)


def upto_epoch(s, b: int) -> int:
    """The last epoch broker ``b`` may have been in: its own; after a restart, the oldest request
    on its way to it (the epoch it restarted in); if it is down or has none, the controller's."""
    r = s.replicas[b]
    if r.leader_epoch >= 0:
        return r.leader_epoch
    mine = [x for q, x, _, _ in s.leader_and_isr if q == b]
    return min(mine) if r.alive and mine else s.controller.leader_epoch


def upto_epoch_z3(s, b: int):
    r = s.reps[b]
    oldest = s.c_epoch  # the oldest request on its way to b, else the controller's epoch
    for x in range(len(s.lai[b]) - 1, -1, -1):
        oldest = ite(s.lai[b][x], num.val(x), oldest)
    return ite(r.lep >= 0, r.lep, ite(r.alive, oldest, s.c_epoch))


def kept_log_since(s, b: int, e: int) -> bool:
    """Broker ``b`` cannot have truncated its log since epoch ``e``. Only a follower truncates, and
    only against a leader that has taken the follower's epoch. So ``b`` kept its log if it has not
    passed ``e``, or if every epoch it may have been in since (up to its current one; after a
    restart, up to the oldest request on its way to it, the epoch it restarted in; if it is down,
    up to the controller's) is named, by some request, broker or the controller, with ``b``
    itself, nobody, or a leader that has never taken it."""
    r = s.replicas[b]
    if 0 <= r.leader_epoch <= e:
        return True
    upto = upto_epoch(s, b)
    claims = epoch_claims(s)
    return all(any(ce == x and (leader == b or never_took(s, leader, x)) for ce, leader in claims)
               for x in range(e + 1, upto + 1))


def epoch_claims_z3(d, s) -> list:
    """(present, epoch, leader) of every request, live broker and the controller, as z3 terms."""
    claims = [(s.lai[q][x], num.val(x), s.lai_leader[q][x]) for q in range(d.n) for x in range(len(s.lai[q]))]
    claims += [(z3.And(r.alive, r.lep >= 0), r.lep, r.leader) for r in s.reps]
    return claims + [(z3.BoolVal(True), s.c_epoch, s.c_leader)]


def kept_log_since_z3(d, s, b: int, e):
    r = s.reps[b]
    upto = upto_epoch_z3(s, b)
    claims = epoch_claims_z3(d, s)
    each = []
    for x in range(d.max_epoch + 1):
        harmless = z3.Or([z3.And(p, ce == x, z3.Or(cl == b, never_took_z3(d, s, cl, x))) for p, ce, cl in claims])
        each.append(z3.Implies(z3.And(e < x, x <= upto), harmless))
    return z3.Or(z3.And(r.lep >= 0, r.lep <= e), z3.And(each))
