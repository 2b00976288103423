"""What every strengthening invariant is (``Strengthening``), and the helpers about logs that
several topics share: whether one log holds another's records below an offset, and every
(offset, record, epoch) a state holds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from checker.symbolic.state import zmin


@dataclass(frozen=True)
class Strengthening:
    name: str
    description: str
    check: Callable  # ClusterState -> bool, or (ClusterState, ModelConfig) -> bool with uses_config
    formula: Callable  # (Dims, SState) -> z3 Bool
    uses_config: bool = False  # the fact depends on the configuration (a bound, min.insync.replicas)

    def holds(self, state, config) -> bool:
        return self.check(state, config) if self.uses_config else self.check(state)


def holds_below(holder, owner, k: int) -> bool:
    """``holder``'s log has ``owner``'s records below offset ``k`` (at most ``owner``'s LEO)."""
    k = min(k, len(owner.log))
    return holder.log[:k] == owner.log[:k]


def holds_below_z3(d, holder, owner, k):
    k = zmin(k, owner.leo)
    return z3.And([k <= holder.leo] + [z3.Implies(i < k, z3.And(holder.log_id[i] == owner.log_id[i],
                                                               holder.log_ep[i] == owner.log_ep[i]))
                                       for i in range(d.slots)])


def held_records(s):
    """Every (offset, record id, epoch) held in a log or a fetch response."""
    for r in s.replicas:
        for off, (rid, ep) in enumerate(r.log):
            yield off, rid, ep
        if r.fetch_response:
            _, _, fo, recs, _, _ = r.fetch_response
            for k, (rid, ep) in enumerate(recs):
                yield fo + k, rid, ep


def held_slots_z3(d, s) -> list:
    """``held_records`` as z3 terms: (present, offset, id, epoch) of every log and fetch response
    slot."""
    slots = []
    for r in s.reps:
        for i in range(d.slots):
            slots.append((i < r.leo, i, r.log_id[i], r.log_ep[i]))
            slots.append((z3.And(r.fr, i >= r.fr_offset, i < r.fr_leo), i, r.fr_id[i], r.fr_ep[i]))
    return slots


def first_of_epoch(r) -> int:
    """A replica's first record of its current epoch, or its LEO: where a leader's epoch starts
    (it appends its epoch's records after the log it had as it took the epoch, and does not
    truncate), unless it took up an epoch it had records of (``epoch-start-recorded``)."""
    return next((i for i, (_, ep) in enumerate(r.log) if ep == r.leader_epoch), len(r.log))


def first_of_epoch_z3(d, r):
    out = r.leo
    for i in reversed(range(d.slots)):
        out = z3.If(z3.And(i < r.leo, r.log_ep[i] == r.lep), i, out)
    return out
