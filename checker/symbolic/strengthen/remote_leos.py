"""Strengthening invariants about the follower LEOs a leader keeps across its own epochs (Kafka's
rule, issue 29k).

A leader records a follower's LEO from each fetch (``Partition.updateFollowerFetchState``) and
computes its HW from its ISR members' recorded LEOs (``maybeIncrementLeaderHW``). What it does
with them when it is made leader of a new epoch is the finding of docs/findings.md:
``Partition.makeLeader`` (Kafka 2.1.0, lines 398 and 407-413) resets them only when the broker is
a *new* leader (``isNewLeader = !leaderReplicaIdOpt.contains(localBrokerId)``); a broker that was
leader already keeps them (kmc keeps only its ISR members', the kernel's ``make_leader`` says
why). kmc 0.1 forgot them on every epoch (the rule ``reset-followers-on-epoch``), and the
library's ``remote-leo-is-follower-prefix`` is that rule's fact: the follower is in the leader's
epoch or a later one. Under Kafka's rule a leader re-elected in place (a follower's failure
handled by the controller at RF=3, a reassignment) keeps the LEO of a follower still in an older
epoch, so that fact is false on reachable states and is off there (``Dims.keeps_remote``).

What stays true, and what the leader's HW needs: a kept LEO was recorded while the same broker
led every epoch since (with Kafka's ordered elections and LeaderAndIsr requests applied in order
a broker that led an epoch and leads a later one without a restart led every epoch between: a
leader that is moved applies the request that makes it a follower, and is then a new leader when
it comes back). So a follower still in an older epoch follows this very leader and, having
fetched only from it since, holds a prefix of its log; and until the follower may have truncated
its log since the leader's epoch, it holds the leader's first that-many records. Under the
over-approximation ``+unordered-leader-moves -leader-and-isr-in-order`` a leader can skip the
request that moved it away; there this is false, and the loss of docs/findings.md is real.
"""

from __future__ import annotations

from itertools import permutations

import z3

from checker.symbolic.strengthen.base import Strengthening, holds_below_z3
from checker.symbolic.strengthen.history import (
    epoch_claims, epoch_claims_z3, kept_log_since, kept_log_since_z3, upto_epoch, upto_epoch_z3,
)


def _followed_only(s, f: int, lead: int, e: int) -> bool:
    """Every epoch follower ``f`` may have been in after ``lead``'s epoch ``e`` is named, by some
    request, live broker or the controller, with ``lead`` as leader: since ``lead`` learnt its
    LEO, ``f`` has followed no other broker (an epoch names one leader)."""
    claims = epoch_claims(s)
    return all(any(ce == x and leader == lead for ce, leader in claims)
               for x in range(e + 1, upto_epoch(s, f) + 1))


def _followed_only_z3(d, s, f: int, lead: int, e):
    upto, claims = upto_epoch_z3(s, f), epoch_claims_z3(d, s)
    return z3.And([z3.Implies(z3.And(e < x, x <= upto),
                              z3.Or([z3.And(p, ce == x, cl == lead) for p, ce, cl in claims]))
                   for x in range(d.max_epoch + 1)])


def _leaders_may_skip(config) -> bool:
    """Kafka's rule with healthy leaders moved (the over-approximation, or the operator's moves)
    and LeaderAndIsr requests applied out of order: a moved leader may skip the request that made
    it a follower and come back keeping a LEO learnt before the follower truncated against another
    leader (docs/findings.md); the fact is false there, and off."""
    moves = ("unordered-leader-moves" in config.rules or config.bounds.max_preferred_elections
             or config.bounds.max_reassignments)
    return ("reset-followers-on-epoch" not in config.rules and "leader-and-isr-in-order" not in config.rules
            and bool(moves))


def _kept_remote_leo_is_follower_prefix(s, config, kept=kept_log_since) -> bool:
    if _leaders_may_skip(config):
        return True
    for lead, lr in enumerate(s.replicas):
        if not (lr.alive and lr.leader == lead):
            continue
        e = lr.leader_epoch
        for f, x in enumerate(lr.remote_log_end_offsets):
            if x < 0 or f == lead:
                continue
            fr = s.replicas[f]
            if x > len(lr.log):
                return False
            behind = 0 <= fr.leader_epoch < e
            if behind and fr.leader != lead:
                return False
            # every request to it of an epoch it has yet to apply, up to the leader's, names this
            # leader (it led every epoch since it learnt the LEO)
            if any(q == f and fr.leader_epoch < ep <= e and leader != lead
                   for q, ep, leader, _ in s.leader_and_isr):
                return False
            if kept(s, f, e) and not (x <= len(fr.log) and fr.log[:x] == lr.log[:x]):
                return False
            if _followed_only(s, f, lead, e) and fr.log != lr.log[:len(fr.log)]:
                return False
    return True


def _kept_remote_leo_is_follower_prefix_z3(d, s, kept=kept_log_since_z3):
    if d.keeps_remote and d.skips_requests and (not d.ordered or d.operators):
        return z3.BoolVal(True)  # _leaders_may_skip
    out = []
    for lead, f in permutations(range(d.n), 2):
        lr, fr, x = s.reps[lead], s.reps[f], s.reps[lead].remote[f]
        behind = z3.And(fr.lep >= 0, fr.lep < lr.lep)
        body = z3.And(x <= lr.leo,
                      z3.Implies(behind, fr.leader == lead),
                      z3.And([z3.Implies(z3.And(s.lai[f][ep], fr.lep < ep, ep <= lr.lep),
                                         s.lai_leader[f][ep] == lead)
                              for ep in range(len(s.lai[f]))]),
                      z3.Implies(kept(d, s, f, lr.lep), holds_below_z3(d, fr, lr, x)),
                      z3.Implies(_followed_only_z3(d, s, f, lead, lr.lep),
                                 holds_below_z3(d, lr, fr, fr.leo)))
        out.append(z3.Implies(z3.And(lr.alive, lr.leader == lead, x >= 0), body))
    return z3.And(out)


# in the order `kmc list` shows them
STRENGTHENINGS = (
    Strengthening("kept-remote-leo-is-follower-prefix", "a leader's record of a follower's LEO, "
                  "from a fetch in its epoch or kept from an earlier epoch it also led (Kafka's "
                  "Partition.makeLeader at 2.1.0 keeps it for a broker that was leader already), "
                  "is at most its own LEO; a follower still in an older epoch follows this leader, "
                  "and every request on its way to it up to the leader's epoch names this leader; "
                  "a follower that has followed no other leader since (in an older epoch, in the "
                  "leader's, down or restarted) holds a prefix of the leader's log; and until the "
                  "follower may have truncated its log since the leader's epoch, its log starts "
                  "with the leader's first that-many records",
                  _kept_remote_leo_is_follower_prefix, _kept_remote_leo_is_follower_prefix_z3,
                  uses_config=True),
)
