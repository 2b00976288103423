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
broker is down, or restarted and waiting for its epoch, only after a crash or a controlled
shutdown, so such brokers are at most the crashes plus the controlled shutdowns.

``kmc prove -p NAME`` refuses an invariant switched here (``library.takes_another_form``).
"""

from __future__ import annotations

import z3

from checker.symbolic.state import count
from checker.symbolic.strengthen.base import Strengthening

OFF_UNDER_SHUTDOWNS = (
    "stale-leader-still-leads", "epoch-bumps-crashed", "running-leaders-kept-leading",
    "quick-restarts-crashed", "replaced-leaders-crashed", "hw-behind-epoch-leader",
)
"""False under controlled shutdowns (BFS, the module's docstring): off there."""

OFF_UNDER_EXPIRIES = (
    "stale-leader-still-leads", "epoch-bumps-crashed", "running-leaders-kept-leading",
    "quick-restarts-crashed", "replaced-leaders-crashed", "hw-behind-epoch-leader",
    # a running broker out of the controller's live set: not in it, sent nothing, its ISR
    # membership kept by a ZooKeeper leader, an offline partition whose ISR runs
    "live-brokers-registered", "current-epoch-on-its-way", "offline-isr-restarted",
    "requests-to-live-brokers", "controller-isr-live", "leaderless-isr-is-last-leader",
)
"""False under session expiries (BFS, the module's docstring): off there."""


def _crashes_or_shutdowns_counted(s, config) -> bool:
    down = sum(1 for r in s.replicas if not r.alive or r.leader_epoch == -1)
    return down <= s.crashes + s.controlled_shutdowns


def _crashes_or_shutdowns_counted_z3(d, s):
    return count([z3.Or(z3.Not(r.alive), r.lep == -1) for r in s.reps]) <= s.crashes + s.cshut


FORMS_UNDER_SHUTDOWNS = {
    "crashes-counted": (_crashes_or_shutdowns_counted, _crashes_or_shutdowns_counted_z3),
}
"""Facts that take a form under controlled shutdowns (the module's docstring)."""


def _on(config) -> tuple:
    b = config.bounds
    return b.max_controlled_shutdowns > 0, b.max_session_expiries > 0


def switch(st: Strengthening) -> Strengthening:
    """``st`` in its form under controlled shutdowns or session expiries (off, or
    ``FORMS_UNDER_SHUTDOWNS``); unchanged otherwise."""
    off_cs, off_se = st.name in OFF_UNDER_SHUTDOWNS, st.name in OFF_UNDER_EXPIRIES
    form = FORMS_UNDER_SHUTDOWNS.get(st.name)
    if not (off_cs or off_se or form):
        return st

    def check(s, config, _st=st):
        cs, se = _on(config)
        if (off_cs and cs) or (off_se and se):
            return True
        if form and cs:
            return form[0](s, config)
        return _st.holds(s, config)

    def formula(d, s, _st=st):
        if (off_cs and d.shutdowns) or (off_se and d.expiries):
            return z3.BoolVal(True)
        if form and d.shutdowns:
            return form[1](d, s)
        return _st.formula(d, s)

    return Strengthening(st.name, st.description, check, formula, uses_config=True)
