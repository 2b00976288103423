"""The library under delayed fetches (``--max-delayed-fetches``, issue 29z).

A follower's fetch held up in flight (the kernel's FetchDelayed) reaches its leader later
(LeaderHandleDelayedFetch), and the leader records the request's fetch offset as the follower's
LEO (``Partition.updateFollowerFetchState`` at 2.1.0 sets the replica's LEO to the fetch offset,
lower or not). Two facts of the library are false then, on reachable states (BFS,
``strengthen.reachable --max-delayed-fetches 1`` at Kafka 2.7, 3.5 and 3.7, RF=2), and a third
before KIP-497 (``OFF_WITHOUT_ALTER``, Kafka 2.1):

* ``isr-remote-ge-hw``: the leader's HW never moves back, but the LEO it records for an ISR
  member does, to the old request's offset, below the HW. Off under delayed fetches.
* ``fetch-response-from-leader-log``'s second half ("while the leader leads in the response's
  epoch it knows the fetch offset"): the old request, handled after a fresh fetch's response
  left, records an older offset. The delayed form keeps the first half (the sender still holds
  what it sent until it may have truncated) by reading the fact with no remote LEO known.

And one fact is added, ``delayed-fetch-as-remote-leo``: what a leader would record from a
delayed fetch it would not refuse (it leads in the request's epoch under KIP-320, and under
KAFKA-15221 the request is from the follower's current incarnation) satisfies
``kept-remote-leo-is-follower-prefix`` as a remote LEO: the request was sent in the leader's
epoch by a follower of that leader that had finished truncating, so its offset was the end of
a prefix of the leader's log, which the follower keeps until it may have truncated since.
Without KIP-320 (no epoch in the request) it says nothing.
"""

from __future__ import annotations

import z3

from checker.symbolic import numbers as num
from checker.symbolic.state import count, ite
from checker.symbolic.strengthen.base import Strengthening
from checker.symbolic.strengthen.history import epoch_claims, epoch_claims_z3

OFF = ("isr-remote-ge-hw",)
"""False under delayed fetches (the module's docstring): off there."""

OFF_WITHOUT_ALTER = ("controller-isr-live",)
"""False under delayed fetches before KIP-497 (BFS, Kafka 2.1 RF=2: 9 of 6,997 states): a leader
that writes the ISR itself adds a follower on its held request after the follower has died, and
the controller's ISR then holds a dead broker. Off there."""

WITHOUT_REMOTE = ("fetch-response-from-leader-log",)
"""Read with no remote LEO known under delayed fetches (the module's docstring)."""


def _delays(config) -> bool:
    return config.bounds.max_delayed_fetches > 0


def _no_remote(s):
    return s._replace(replicas=tuple(r._replace(remote_log_end_offsets=(-1,) * len(r.remote_log_end_offsets))
                                     for r in s.replicas))


def _no_remote_z3(d, s):
    return s.but(reps=[r.but(remote=[num.val(-1)] * len(r.remote)) for r in s.reps])


def switch(st: Strengthening) -> Strengthening:
    """``st`` in its delayed-fetch form under ``--max-delayed-fetches``; unchanged otherwise."""
    if st.name in OFF:
        def check(s, config, _st=st):
            return True if _delays(config) else _st.holds(s, config)

        def formula(d, s, _st=st):
            return z3.BoolVal(True) if d.delayed else _st.formula(d, s)
    elif st.name in OFF_WITHOUT_ALTER:
        def check(s, config, _st=st):
            off = _delays(config) and "alter-partition" not in config.rules
            return True if off else _st.holds(s, config)

        def formula(d, s, _st=st):
            return z3.BoolVal(True) if d.delayed and not d.alter else _st.formula(d, s)
    elif st.name in WITHOUT_REMOTE:
        def check(s, config, _st=st):
            return _st.holds(_no_remote(s) if _delays(config) else s, config)

        def formula(d, s, _st=st):
            return _st.formula(d, _no_remote_z3(d, s) if d.delayed else s)
    else:
        return st
    return Strengthening(st.name, st.description, check, formula, uses_config=True)


def _accepted(s, config, f: int):
    """The leader broker ``f``'s delayed fetch was sent to, if it would not refuse it now
    (``leader_handle_delayed_fetch``'s tests; its offset is then within the leader's log, which
    the invariant says), else ``None``."""
    q = s.replicas[f].fetch_request
    if not q:
        return None
    lead, epoch, offset, current = q
    lr = s.replicas[lead]
    ok = (lr.alive and lr.leader == lead and lr.leader_epoch == epoch
          and (current or "stale-fetch-rejected" not in config.rules))
    return lead if ok else None


def as_remote_leo(kept_remote: Strengthening) -> Strengthening:
    """``delayed-fetch-as-remote-leo`` over the library's ``kept-remote-leo-is-follower-prefix``
    (in its power-loss form where that applies)."""

    def check(s, config):
        if not _delays(config) or "fenced-fetch" not in config.rules:
            return True
        reps = list(s.replicas)
        for f in range(len(reps)):
            lead = _accepted(s, config, f)
            if lead is not None:
                remote = list(reps[lead].remote_log_end_offsets)
                remote[f] = s.replicas[f].fetch_request[2]
                reps[lead] = reps[lead]._replace(remote_log_end_offsets=tuple(remote))
        return kept_remote.holds(s._replace(replicas=tuple(reps)), config)

    def formula(d, s):
        if not (d.delayed and d.fenced):
            return z3.BoolVal(True)
        reps = list(s.reps)
        for f, r in enumerate(s.reps):
            for lead in range(d.n):
                if lead == f:
                    continue
                lr = s.reps[lead]
                take = z3.And(r.dreq, r.dreq_leader == lead, lr.alive, lr.leader == lead,
                              lr.lep == r.dreq_epoch)
                if d.stale_rejected:
                    take = z3.And(take, r.dreq_cur)
                remote = list(reps[lead].remote)
                remote[f] = ite(take, r.dreq_offset, remote[f])
                reps[lead] = reps[lead].but(remote=remote)
        return kept_remote.formula(d, s.but(reps=reps))

    return Strengthening(
        "delayed-fetch-as-remote-leo", "a delayed fetch the leader it was sent to would not "
        "refuse now (it leads in the request's epoch, and since KAFKA-15221 the sender has not "
        "restarted) would record a follower LEO that "
        "kept-remote-leo-is-follower-prefix allows: the request was sent by a follower of that "
        "leader in its epoch, done truncating, from the end of a prefix of the leader's log",
        check, formula, uses_config=True)


def _sent_in_epoch(s, config) -> bool:
    c = s.controller
    if sum(1 for r in s.replicas if r.fetch_request) > s.delayed_fetches:
        return False
    for f, r in enumerate(s.replicas):
        if not r.fetch_request:
            continue
        lead, epoch, _, _ = r.fetch_request
        if not 0 <= epoch <= c.leader_epoch:
            return False
        if 0 <= r.leader_epoch < epoch:
            return False
        if r.leader_epoch == epoch and r.leader != lead:
            return False
        if any(ce == epoch and cl != lead for ce, cl in epoch_claims(s)):
            return False  # an epoch names one leader
        if any(q == f and ep < epoch for q, ep, _, _ in s.leader_and_isr):
            return False  # its epoch only grows; a restart brings the controller's (no older)
        # sent before its leader took the epoch: the sender then had no log to truncate (else it
        # would wait for that leader to truncate against, KIP-320 with a truncation on every
        # epoch, 2.1) and could fetch nothing since, so it asked from offset 0
        # (a request of an older epoch on its way to the leader says the same: it has not taken
        # the epoch since its last start, and before, requests to it died with it)
        ll = s.replicas[lead]
        before = ((ll.alive and 0 <= ll.leader_epoch < epoch)
                  or any(q == lead and ep < epoch for q, ep, _, _ in s.leader_and_isr))
        if "fenced-fetch" in config.rules and before and r.fetch_request[2] != 0:
            return False
        # ... and a sender that has not restarted since, still in that epoch (or down, while the
        # controller is still in it: it was in no later one), has fetched nothing since either
        stay = r.leader_epoch == epoch or (not r.alive and c.leader_epoch == epoch)
        if ("fenced-fetch" in config.rules and "broker-epoch-in-fetch" in config.rules and before
                and r.fetch_request[3] and stay and r.log):
            return False
        # KIP-903 tells a sender that has not restarted since: still in the epoch, it has not
        # truncated since (a follower truncates on a new epoch or a restart) and its log only grew
        if "broker-epoch-in-fetch" in config.rules and r.fetch_request[3]:
            if r.alive and r.leader_epoch < epoch:
                return False
            if r.leader_epoch == epoch and (r.truncating or r.fetch_request[2] > len(r.log)):
                return False
    return True


def _sent_in_epoch_z3(d, s):
    out = [count([r.dreq for r in s.reps]) <= s.delayed]
    claims = epoch_claims_z3(d, s)
    for f, r in enumerate(s.reps):
        out += [z3.Implies(z3.And(r.dreq, p, ce == r.dreq_epoch), cl == r.dreq_leader)
                for p, ce, cl in claims]
        out += [z3.Implies(z3.And(r.dreq, s.lai[f][x]), r.dreq_epoch <= x)
                for x in range(len(s.lai[f]))]
        out.append(z3.Implies(r.dreq, z3.And(
            r.dreq_epoch >= 0, r.dreq_epoch <= s.c_epoch, z3.Not(z3.And(r.lep >= 0, r.lep < r.dreq_epoch)),
            z3.Implies(r.lep == r.dreq_epoch, r.leader == r.dreq_leader))))
        if d.fenced:
            for lead in range(d.n):
                if lead == f:
                    continue
                ll = s.reps[lead]
                before = z3.Or([z3.And(ll.alive, ll.lep >= 0, ll.lep < r.dreq_epoch)]
                               + [z3.And(s.lai[lead][x], x < r.dreq_epoch)
                                  for x in range(len(s.lai[lead]))])
                out.append(z3.Implies(z3.And(r.dreq, r.dreq_leader == lead, before),
                                      r.dreq_offset == 0))
                if d.fetch_epochs:
                    stay = z3.Or(r.lep == r.dreq_epoch,
                                 z3.And(z3.Not(r.alive), s.c_epoch == r.dreq_epoch))
                    out.append(z3.Implies(z3.And(r.dreq, r.dreq_leader == lead, before,
                                                 r.dreq_cur, stay), r.leo == 0))
        if d.fetch_epochs:
            out.append(z3.Implies(z3.And(r.dreq, r.dreq_cur, r.lep == r.dreq_epoch),
                                  z3.And(z3.Not(r.truncating), r.dreq_offset <= r.leo)))
            out.append(z3.Implies(z3.And(r.dreq, r.dreq_cur, r.alive), r.lep >= r.dreq_epoch))
    return z3.And(out)


STRENGTHENINGS = (
    Strengthening("delayed-fetch-sent-in-epoch", "no more fetches are held up than the counter "
                  "says, and a delayed fetch was sent in a leader epoch the controller has made, "
                  "to the leader every request, broker and the controller name for it, "
                  "and no request older than it is on its way to its sender; "
                  "under KIP-320 one sent before its leader took the epoch asks from offset 0; which its sender has not left for an older one (a "
                  "broker's epoch only grows until a restart resets it), and a sender still in "
                  "that epoch follows the leader it sent it to; under KIP-903 (which tells whether the sender has "
                  "restarted since) a running sender that has not restarted is in that "
                  "epoch or a later one, and still in that epoch is done truncating and its LEO is at least the fetch offset", _sent_in_epoch,
                  _sent_in_epoch_z3, uses_config=True),
)
