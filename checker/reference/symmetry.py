"""Symmetry reduction: replicas are interchangeable, so states that differ only by a renaming
of brokers are explored once.

Broker 0 is the leader of the initial state, so the renamings used are the permutations of
brokers ``1 .. N-1`` that keep 0 in place: the set of initial states is closed under them, and
kmc's properties never name a broker, so a property holds in a state iff it holds in every
renaming of it. This cuts the state space by up to ``(N-1)!`` (nothing for 2 replicas, about 2x
for 3, 6x for 4, 24x for 5).

``canonical_plain(state, perms)`` is the smallest plain-tuple form over all renamings; the
explorer fingerprints that. Traces are unaffected: the explorer keeps and replays the concrete
states it found, so a counterexample is a real behaviour with the brokers it really used.
A user property that singles out a broker other than 0 needs ``symmetry=False``
(``kmc check --no-symmetry``).
"""

from __future__ import annotations

from itertools import permutations

from model import schema as S
from model.state import ClusterState, to_plain


def broker_permutations(replication_factor: int) -> tuple:
    """Every renaming ``perm[old] = new`` of brokers 1..N-1 that keeps broker 0, identity first."""
    rest = range(1, replication_factor)
    return tuple((0,) + p for p in permutations(rest))


def _ids(perm, items) -> tuple:
    return tuple(sorted(perm[x] for x in items))


def permute_plain(state: ClusterState, perm: tuple) -> tuple:
    """The plain-tuple form of ``state`` with every broker id ``b`` renamed ``perm[b]``: each
    field renamed by its readable type (``model/schema.py``), the replicas moved."""
    replicas = [None] * len(perm)
    for b, r in enumerate(state.replicas):
        replicas[perm[b]] = tuple(_renamed(perm, f, v) for f, v in zip(S.REPLICA, r))
    return (tuple(replicas),) + tuple(_renamed(perm, f, v) for f, v in zip(S.CLUSTER, state[1:]))


def _broker(perm, b: int) -> int:
    return perm[b] if b >= 0 else b


def _renamed(perm, f: S.Field, value):
    """A field's value under a renaming: broker ids and sets renamed, per-broker arrays moved,
    requests and parked acknowledgements renamed and sorted again."""
    t = f.type
    if t == S.BROKER:
        return _broker(perm, value)
    if t == S.BROKERS_SET:
        return _ids(perm, value)
    if t == S.PER_BROKER:
        if not value:
            return value
        moved = [0] * len(value)
        for old, v in enumerate(value):
            moved[perm[old]] = v
        return tuple(moved)
    if t in (S.MESSAGE, S.RECORD):
        if not value:
            return value
        return tuple(_renamed(perm, p, v) for p, v in zip(f.parts, value))
    if t == S.REQUESTS:
        return tuple(sorted((perm[b], e, _broker(perm, l), _ids(perm, isr)) for b, e, l, isr in value))
    if t in (S.REQUEST_FLAGS, S.REQUEST_VALUES):
        return tuple(sorted((perm[q[0]],) + tuple(q[1:]) for q in value))
    if t == S.ACKS_PENDING:
        return tuple(sorted((perm[l], rid, off) for l, rid, off in value))
    return value  # numbers, flags, logs, record ids and offsets name no broker


def _broker_key(state: ClusterState, b: int) -> tuple:
    """What broker ``b`` looks like without naming the other renamable brokers: equal for two
    brokers that a renaming can swap, so sorting by it is a first cut at a canonical order."""
    r = state.replicas[b]
    c = state.controller
    return (
        r.alive, r.log, r.high_watermark, r.leader_epoch, r.leader == b, r.leader == 0,
        r.leader < 0, r.truncating, bool(r.fetch_response), r.flushed_offset,
        b in c.isr, b in c.live_brokers, c.leader == b,
    )


def canonical_plain(state: ClusterState, perms: tuple) -> tuple:
    """The least plain form of ``state`` over the renamings that sort brokers 1..N-1 by
    ``_broker_key``. Brokers with different keys are placed by the key alone (one renaming to
    apply); only brokers with equal keys are tried in every order. ``perms`` (all renamings) is
    used when every key ties. The result depends only on the state's orbit, so it is a canonical
    form (the key is invariant under renaming)."""
    n = len(state.replicas)
    order = sorted(range(1, n), key=lambda b: _broker_key(state, b))
    keys = [_broker_key(state, b) for b in order]
    groups, start = [], 0
    for i in range(1, len(order) + 1):
        if i == len(order) or keys[i] != keys[start]:
            groups.append(order[start:i])
            start = i
    if len(groups) == 1 and len(order) > 1:
        candidates = perms  # every key ties: try every renaming
    else:
        candidates = [()]
        for group in groups:
            candidates = [c + tuple(p) for c in candidates for p in permutations(group)]
        candidates = [_as_perm(order_, n) for order_ in candidates]
    best = None
    for perm in candidates:
        plain = to_plain(state) if perm == tuple(range(n)) else permute_plain(state, perm)
        if best is None or plain < best:
            best = plain
    return best


def _as_perm(order: tuple, n: int) -> tuple:
    """The renaming that puts broker ``order[i]`` at position ``i + 1`` (broker 0 stays)."""
    perm = [0] * n
    for position, b in enumerate(order, 1):
        perm[b] = position
    return tuple(perm)
