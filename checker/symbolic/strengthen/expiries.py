"""The library under session expiries (``--max-session-expiries``, issue 29bd): what 29ac switched
off, kept where it still holds, and the facts a proof with a session expiry needs.

29ac switched off, under ``--max-session-expiries``, every fact BFS found false on some reachable
state with a session expiry (``shutdowns.OFF_UNDER_EXPIRIES``). Each was false only on states
after the expiry: before the first ControllerFenceBroker, the controller has lost no running
broker, and ControllerUnfenceBroker needs such a broker, so a state whose expiry counter is 0 was
reached by the steps of the configuration without the bound. (Not quite: the kernel drops the
in-order delivery of LeaderAndIsr under the bound, ``broker_become_leader_or_follower``, whatever
the counter; the facts that read the order already have their unordered forms, ``Dims.unordered``,
and BFS checks the rest.) So each holds in the form "no session expiry yet, or the fact":
``UNTIL_EXPIRY``, checked on every reachable state (docs/symbolic.md, "A session expiry proved by
induction").
"""

from __future__ import annotations

import dataclasses

import z3

UNTIL_EXPIRY = (
    "stale-leader-still-leads", "epoch-bumps-crashed", "running-leaders-kept-leading",
    "quick-restarts-crashed", "replaced-leaders-crashed", "hw-behind-epoch-leader",
    "current-epoch-on-its-way", "offline-isr-restarted",
    "requests-to-live-brokers", "controller-isr-live", "leaderless-isr-is-last-leader",
    "kraft-stale-change-has-next-epoch", "kraft-running-leader-is-current",
    "answer-members-left-by-crash",
)
"""Facts 29ac switched off under session expiries that hold until the first one (module
docstring)."""


def until_expiry(holds: bool, s) -> bool:
    """The predicate's form: no session expiry yet, or the fact."""
    return s.session_expiries > 0 or holds


def until_expiry_z3(formula, s):
    return z3.Or(s.sexp > 0, formula)


AS_CRASHES = ("epoch-bumps-crashed", "quick-restarts-crashed", "replaced-leaders-crashed")
"""Facts that count a crash for each time the controller moved leadership, or for each broker
that lost it: a session expiry moves leadership as a crash does (ControllerFenceBroker runs
ControllerHandleBrokerFailure's cases, ``onBrokerFailure`` at 2.1.0; KRaft ``handleBrokerFenced``
at 3.5.0), once per expiry, so under session expiries they count the crashes and the expiries
together. Each form is the fact with the crash counter raised by the expiry counter; with no
expiry yet it is the fact."""


def with_expiries_as_crashes(s):
    """``s`` (a ``ClusterState``) with each session expiry counted as a crash."""
    return s._replace(crashes=s.crashes + s.session_expiries)


def with_expiries_as_crashes_z3(s):
    """``s`` (an ``SState``) likewise."""
    return dataclasses.replace(s, crashes=s.crashes + s.sexp)
