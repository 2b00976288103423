"""The library under ZooKeeper controller failovers (``--max-controller-failovers``, issue 29ak).

Many facts of the library rest on "every LeaderAndIsr a broker takes is the active controller's,
of a newer leader epoch than the broker's, and the controller's view is the partition's". A
failover breaks that (the kernel's ControllerFailover, ZombieControllerSendLeaderAndIsr and
BrokerHandleZombieLeaderAndIsr; ``KafkaController.onControllerFailover`` at 2.1.0):

* the new controller resends the partition's state in the same leader epoch to every live
  broker, so requests of the current epoch are on their way to brokers that already have it;
* the deposed controller keeps its view frozen at the failover and may still send it, with its
  old controller epoch, to a broker behind that view's leader epoch (a broker that restarted, or
  one that had not yet heard of the epoch): that broker then leads or follows as the old view
  says, with an ISR the leader's shrinks have changed since, which the active controller does not
  know about (docs/model.md; the 2.1 RF=3 known-results row, 9 steps, is such a path).

The facts below are false on reachable states (BFS, ``python -m
checker.symbolic.strengthen.reachable --kafka-version 2.1 -r 2 --max-records 2
--max-leader-epoch 2 --max-crashes 1 --max-controller-failovers 1``: 12,768 states, the count of
states each is false on beside it in docs/symbolic.md, "Controller failovers in the proof") and
are switched off under the bound. ``kmc prove -p NAME`` refuses an invariant switched here
(``library.takes_another_form``).
"""

from __future__ import annotations

import z3

from checker.symbolic.strengthen.base import Strengthening

OFF_UNDER_FAILOVERS = (
    # the new controller's resend, and the zombie's request to a broker that restarted
    "requests-to-live-brokers", "current-epoch-on-its-way",
    # a broker that took the zombie's view leads or follows with the view's ISR and epoch
    "leader-isr-is-controller-isr", "stale-leader-still-leads", "running-leaders-kept-leading",
    "offline-isr-restarted", "next-leader-from-isr", "hw-behind-epoch-leader",
    # and so the ISR, the HW and the remote LEOs lose their ties to the active controller's ISR
    "isr-followers-hold-hw", "isr-remote-ge-hw", "isr-holds-every-hw",
    "requested-leaders-hold-hw", "later-leaders-hold-hw", "fetch-hw-committed",
    "hw-prefix-of-true-leader", "leader-holds-followers-hw",
)
"""False under controller failovers (BFS, the module's docstring): off there."""


def switch(st: Strengthening) -> Strengthening:
    """``st`` switched off under ``--max-controller-failovers``; unchanged otherwise."""
    if st.name not in OFF_UNDER_FAILOVERS:
        return st

    def check(s, config, _st=st):
        if config.bounds.max_controller_failovers > 0:
            return True
        return _st.holds(s, config)

    def formula(d, s, _st=st):
        if d.failovers:
            return z3.BoolVal(True)
        return _st.formula(d, s)

    return Strengthening(st.name, st.description, check, formula, uses_config=True)
