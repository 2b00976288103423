"""The built-in properties (``properties/invariants.py``) as z3 formulas over an ``SState``.

Each formula is the Python predicate of the same name, read for a fixed-size state: a
property holds in a state exactly when its formula is true of the state's encoding (the tests
check this on sampled reachable states).
"""

from __future__ import annotations

import z3

from checker.symbolic.state import Dims, SState, sel, zmin


def true_leader_is(s: SState, l: int):
    r = s.reps[l]
    return z3.And(s.c_leader == l, r.alive, r.leader == l, r.lep == s.c_epoch)


def holds_acked(s: SState, r, k: int):
    """Replica ``r``'s log holds record ``k + 1`` at the offset it was acked at."""
    return z3.And(s.acked_off[k] < r.leo, sel(r.log_id, s.acked_off[k], -1) == k + 1)


def holds_every_acked(d: Dims, s: SState, r):
    return z3.And([z3.Implies(s.acked[k], holds_acked(s, r, k)) for k in range(d.records)])


def no_acked_loss(d: Dims, s: SState):
    return z3.And([z3.Implies(true_leader_is(s, l), holds_every_acked(d, s, s.reps[l]))
                   for l in range(d.n)])


def _prefix_equal(d: Dims, a, b, k):
    """``a.log[:k] == b.log[:k]`` for ``k <= a.leo``."""
    return z3.And([b.leo >= k] + [z3.Implies(i < k, z3.And(a.log_id[i] == b.log_id[i],
                                                            a.log_ep[i] == b.log_ep[i]))
                                  for i in range(d.slots)])


def committed_consistency(d: Dims, s: SState):
    out = []
    for l in range(d.n):
        lr = s.reps[l]
        k = zmin(lr.hw, lr.leo)
        each = [z3.Implies(s.c_isr[b], _prefix_equal(d, lr, s.reps[b], k)) for b in range(d.n)]
        out.append(z3.Implies(true_leader_is(s, l), z3.And(each)))
    return z3.And(out)


def log_matching(d: Dims, s: SState):
    out = []
    for i in range(d.n):
        for j in range(i + 1, d.n):
            a, b = s.reps[i], s.reps[j]
            both = zmin(a.leo, b.leo)
            for o in range(d.slots):
                later_differ = [z3.Or(o2 >= both, a.log_ep[o2] != b.log_ep[o2])
                                for o2 in range(o + 1, d.slots)]
                is_last_match = z3.And([o < both, a.log_ep[o] == b.log_ep[o]] + later_differ)
                agree = z3.And([z3.And(a.log_id[x] == b.log_id[x], a.log_ep[x] == b.log_ep[x])
                                for x in range(o + 1)])
                out.append(z3.Implies(is_last_match, agree))
    return z3.And(out)


def monotonic_visibility(d: Dims, s: SState):
    out = []
    for l in range(d.n):
        r = s.reps[l]
        kept = z3.And([r.leo >= s.cv_len] + [z3.Implies(i < s.cv_len, r.log_id[i] == s.cv[i])
                                              for i in range(d.slots)])
        out.append(z3.Implies(true_leader_is(s, l), kept))
    return z3.And(out)


def leader_in_isr(d: Dims, s: SState):
    out = [z3.Implies(s.c_leader == l, s.c_isr[l]) for l in range(d.n)]
    out += [z3.Implies(z3.And(r.alive, r.leader == b), r.isr[b]) for b, r in enumerate(s.reps)]
    return z3.And(out)


def hw_le_leo(d: Dims, s: SState):
    return z3.And([r.hw <= r.leo for r in s.reps])


FORMULAS = {
    "no-acked-loss": no_acked_loss,
    "committed-consistency": committed_consistency,
    "log-matching": log_matching,
    "monotonic-visibility": monotonic_visibility,
    "leader-in-isr": leader_in_isr,
    "hw-le-leo": hw_le_leo,
}
