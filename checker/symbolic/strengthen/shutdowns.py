"""The library under controlled shutdowns and session expiries (``--max-controlled-shutdowns``,
``--max-session-expiries``, issue 29ac).

Several facts of the library rest on "the controller moves leadership only when it handles a
failed leader, and a broker stops only by crashing". Both faults break that:

* a controlled shutdown (the kernel's ControllerHandleControlledShutdown, then BrokerShutdown)
  moves leadership away from a leader that still runs and leads in its old epoch until the new
  epoch's LeaderAndIsr reaches it (``KafkaController.doControlledShutdown`` at 2.1.0), and then
  stops the broker without a crash being counted;
* a session expiry (ControllerFenceBroker) removes a running broker as if it had failed: a
  leader keeps serving as a zombie until a LeaderAndIsr reaches it, and may come back
  (ControllerUnfenceBroker) with no crash or restart in between.

The facts below are false on reachable states (BFS, ``python -m
checker.symbolic.strengthen.reachable --max-controlled-shutdowns 1`` or
``--max-session-expiries 1``, Kafka 2.1, 3.5 and 4.1, RF=2, 2 records, leader epochs <= 2, 1
crash: docs/symbolic.md, "Controlled shutdown and session expiry in the proof"), and are
switched off under the fault (the same facts the operator's leader moves switch off, for the
same reason, plus those that count crashes), except ``crashes-counted``, which takes a form: a
broker is down, restarted and waiting for its epoch, or in a controlled shutdown, only after a
crash or a controlled shutdown of its own, so such brokers are at most the crashes plus the
controlled shutdowns.

``kmc prove -p NAME`` refuses an invariant switched here (``library.takes_another_form``).
"""

from __future__ import annotations

import z3

from checker.symbolic.state import count
from checker.symbolic.strengthen import controlled, expiries
from checker.symbolic.strengthen.base import Strengthening

OFF_UNDER_SHUTDOWNS = (
    "stale-leader-still-leads", "epoch-bumps-crashed", "running-leaders-kept-leading",
    "quick-restarts-crashed", "replaced-leaders-crashed", "hw-behind-epoch-leader",
    # KRaft: a controlled shutdown of the last ISR member leaves the partition leaderless with
    # that member running (``handleBrokerInControlledShutdown`` elects nobody)
    "offline-isr-restarted",
)
"""False under controlled shutdowns (BFS, the module's docstring): off there."""

OFF_UNDER_EXPIRIES = (
    "stale-leader-still-leads", "epoch-bumps-crashed", "running-leaders-kept-leading",
    "quick-restarts-crashed", "replaced-leaders-crashed", "hw-behind-epoch-leader",
    # a running broker out of the controller's live set: not in it, sent nothing, its ISR
    # membership kept by a ZooKeeper leader, an offline partition whose ISR runs
    "current-epoch-on-its-way", "offline-isr-restarted",
    "requests-to-live-brokers", "controller-isr-live", "leaderless-isr-is-last-leader",
)
"""False under session expiries (BFS, the module's docstring): off there."""

KRAFT_OFF_UNDER_EXPIRIES = (
    "kraft-stale-change-has-next-epoch", "kraft-running-leader-is-current",
    "answer-members-left-by-crash",
)
"""KRaft facts false under session expiries (issue 29bc; found false by 29ac's BFS, not switched
then): a fenced leader still runs in its old epoch with its change pending and its accepted
answer on its way, while the controller has moved on without it (3.5 and 4.1 with a session
expiry, with or without a stale metadata read: docs/symbolic.md, "Stale metadata reads in the
proof"). Off there too; on a ZooKeeper release their formulas are already ``True``."""

OFF_UNDER_EXPIRIES = OFF_UNDER_EXPIRIES + KRAFT_OFF_UNDER_EXPIRIES


def _crashes_or_shutdowns_counted(s, config) -> bool:
    down = sum(1 for r in s.replicas if not r.alive or r.leader_epoch == -1 or r.shutting_down)
    return down <= s.crashes + s.controlled_shutdowns


def _crashes_or_shutdowns_counted_z3(d, s):
    return count([z3.Or(z3.Not(r.alive), r.lep == -1, r.sd) for r in s.reps]) <= s.crashes + s.cshut


FORMS_UNDER_SHUTDOWNS = {
    "crashes-counted": (_crashes_or_shutdowns_counted, _crashes_or_shutdowns_counted_z3),
}
"""Facts that take a form under controlled shutdowns (the module's docstring)."""


def _registered_or_expired(s, config) -> bool:
    c = s.controller
    lost = sum(1 for b, r in enumerate(s.replicas) if r.alive and b not in c.live_brokers)
    return lost <= s.session_expiries and (c.leader == -1 or c.leader in c.live_brokers)


def _registered_or_expired_z3(d, s):
    lost = count([z3.And(r.alive, z3.Not(s.c_live[b])) for b, r in enumerate(s.reps)])
    return z3.And([lost <= s.sexp]
                  + [z3.Implies(s.c_leader == b, s.c_live[b]) for b in range(d.n)])


FORMS_UNDER_EXPIRIES = {
    "live-brokers-registered": (_registered_or_expired, _registered_or_expired_z3),
}
"""Facts that take a form under session expiries: a running broker is out of the controller's
live set only after a session expiry of its own (one per expiry, until it registers again), and
the controller's leader is live (a fence of the leader elects another or nobody)."""


def _on(config) -> tuple:
    b = config.bounds
    return b.max_controlled_shutdowns > 0, b.max_session_expiries > 0


def switch(st: Strengthening) -> Strengthening:
    """``st`` in its form under controlled shutdowns or session expiries (off, or
    ``FORMS_UNDER_SHUTDOWNS``); unchanged otherwise."""
    off_cs, off_se = st.name in OFF_UNDER_SHUTDOWNS, st.name in OFF_UNDER_EXPIRIES
    off_se = off_se and st.name not in expiries.BACK_ON  # issue 29bd
    form, form_se = FORMS_UNDER_SHUTDOWNS.get(st.name), FORMS_UNDER_EXPIRIES.get(st.name)
    cs_form = controlled.form(st)  # issue 29bl: its form under a controlled shutdown
    if not (off_cs or off_se or form or form_se or cs_form):
        return st

    until = off_se and st.name in expiries.UNTIL_EXPIRY  # issue 29bd
    as_crashes = off_se and st.name in expiries.AS_CRASHES

    def check(s, config, _st=st):
        cs, se = _on(config)
        if cs_form and cs and not se:  # issue 29bl: its form under a controlled shutdown
            return cs_form[0](s, config)
        if off_cs and cs:
            return True
        if as_crashes and se:
            return _st.holds(expiries.with_expiries_as_crashes(s), config)
        if until and se:
            also = expiries.ALSO_AFTER.get(_st.name)
            return (expiries.until_expiry(_st.holds(s, config), s)
                    and (also is None or also[0](s, config)))
        if off_se and se:
            return True
        if form and cs:
            return form[0](s, config)
        if form_se and se:
            return form_se[0](s, config)
        return _st.holds(s, config)

    def formula(d, s, _st=st):
        if cs_form and d.shutdowns and not d.expiries:
            return cs_form[1](d, s)
        if off_cs and d.shutdowns:
            return z3.BoolVal(True)
        if as_crashes and d.expiries:
            return _st.formula(d, expiries.with_expiries_as_crashes_z3(s))
        if until and d.expiries:
            also = expiries.ALSO_AFTER.get(_st.name)
            until_form = expiries.until_expiry_z3(_st.formula(d, s), s)
            return until_form if also is None else z3.And(until_form, also[1](d, s))
        if off_se and d.expiries:
            return z3.BoolVal(True)
        if form and d.shutdowns:
            return form[1](d, s)
        if form_se and d.expiries:
            return form_se[1](d, s)
        return _st.formula(d, s)

    return Strengthening(st.name, st.description, check, formula, uses_config=True)


def _shutting_down_counted(s, config) -> bool:
    if not _on(config)[0]:
        return True
    return sum(1 for r in s.replicas if r.shutting_down) <= s.controlled_shutdowns


def _shutting_down_counted_z3(d, s):
    if not d.shutdowns:
        return z3.BoolVal(True)
    return count([r.sd for r in s.reps]) <= s.cshut


def _shutting_down_does_not_lead(s, config) -> bool:
    if not _on(config)[0]:
        return True
    return s.controller.leader == -1 or not s.replicas[s.controller.leader].shutting_down


def _shutting_down_does_not_lead_z3(d, s):
    if not d.shutdowns:
        return z3.BoolVal(True)
    return z3.And([z3.Implies(s.c_leader == b, z3.Not(r.sd)) for b, r in enumerate(s.reps)])


def _refused_back(config) -> bool:
    """No AlterPartition brings a shutting-down broker back into the ISR: before KIP-497 (the
    leader adds only a follower that fetches), or with KIP-841's eligibility (3.3). Kafka 2.7 to
    3.2's ZooKeeper controller accepts one proposed before the shutdown (BFS, 2.7: 818 of
    18,771 states)."""
    return "alter-partition" not in config.rules or "isr-eligibility" in config.rules


def _shutting_down_out_of_isr(s, config) -> bool:
    if not _on(config)[0] or not _refused_back(config):
        return True
    isr = s.controller.isr
    return all(not r.shutting_down or b not in isr or isr == (b,)
               for b, r in enumerate(s.replicas))


def _shutting_down_out_of_isr_z3(d, s):
    if not d.shutdowns or (d.alter and not d.eligibility):
        return z3.BoolVal(True)
    return z3.And([z3.Implies(z3.And(r.sd, s.c_isr[b]),
                              z3.Not(z3.Or([s.c_isr[j] for j in range(d.n) if j != b])))
                   for b, r in enumerate(s.reps)])


STRENGTHENINGS = (
    Strengthening("shutting-down-out-of-isr", "a broker in a controlled shutdown is not in the "
                  "controller's ISR unless it is its only member (the handling removes it, or "
                  "keeps it as the last member; it fetches no more, so no leader adds it back); "
                  "not on Kafka 2.7-3.2, whose controller accepts an AlterPartition proposed "
                  "before the shutdown",
                  _shutting_down_out_of_isr, _shutting_down_out_of_isr_z3, uses_config=True),
    Strengthening("shutting-down-counted", "no more brokers are in a controlled shutdown than "
                  "the controller has handled (each handling marks one broker, and only a "
                  "restart or the handling of its failure clears the mark)",
                  _shutting_down_counted, _shutting_down_counted_z3, uses_config=True),
    Strengthening("shutting-down-does-not-lead", "the controller's leader is not in a "
                  "controlled shutdown (the handling moves leadership away from it, and no "
                  "election picks such a broker: ``may_lead``)",
                  _shutting_down_does_not_lead, _shutting_down_does_not_lead_z3,
                  uses_config=True),
)
"""Facts only controlled shutdowns need (issue 29ac), each from a counterexample to induction."""
