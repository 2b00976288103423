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

from model.state import ClusterState, to_plain


def broker_permutations(replication_factor: int) -> tuple:
    """Every renaming ``perm[old] = new`` of brokers 1..N-1 that keeps broker 0, identity first."""
    rest = range(1, replication_factor)
    return tuple((0,) + p for p in permutations(rest))


def _ids(perm, items) -> tuple:
    return tuple(sorted(perm[x] for x in items))


def permute_plain(state: ClusterState, perm: tuple) -> tuple:
    """The plain-tuple form of ``state`` with every broker id ``b`` renamed ``perm[b]``."""
    n = len(perm)
    replicas = [None] * n
    for b, r in enumerate(state.replicas):
        remote = [0] * n
        for old, value in enumerate(r.remote_log_end_offsets):
            remote[perm[old]] = value
        resp = r.fetch_response
        if resp:
            resp = (perm[resp[0]],) + resp[1:]
        replicas[perm[b]] = (
            r.alive, r.log, r.high_watermark, r.leader_epoch,
            perm[r.leader] if r.leader >= 0 else r.leader, _ids(perm, r.isr), tuple(remote),
            r.truncating, resp, r.flushed_offset,
        )
    c = state.controller
    controller = (
        perm[c.leader] if c.leader >= 0 else c.leader, c.leader_epoch, _ids(perm, c.isr),
        _ids(perm, c.live_brokers),
    )
    requests = tuple(sorted(
        (perm[b], e, perm[l] if l >= 0 else l, _ids(perm, isr)) for b, e, l, isr in state.leader_and_isr
    ))
    pending = tuple(sorted((perm[l], rid, off) for l, rid, off in state.pending_acks))
    return (
        tuple(replicas), controller, requests, pending, state.acked, state.consumer_visible,
        state.records_written, state.crashes, state.unflushed_losses,
    )


def canonical_plain(state: ClusterState, perms: tuple) -> tuple:
    """The least plain form of ``state`` over the renamings ``perms`` (identity first)."""
    best = to_plain(state)
    for perm in perms[1:]:
        candidate = permute_plain(state, perm)
        if candidate < best:
            best = candidate
    return best
