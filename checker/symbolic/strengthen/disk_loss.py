"""The library under disk-loss crashes (``--crash-model disk-loss``, issue 29aj).

A disk-loss crash replaces the broker's disk: its log, its leader-epoch cache and its HW
checkpoint are gone, and it restarts empty (the kernel's ``broker_crash``; ``Encoder.lose_disk``).
Kafka itself does nothing to tell the controller: before KIP-903 (3.5) the broker registers with
the same identity and may be counted in the ISR on evidence from before the loss (KAFKA-14139).
So every fact of the library of the form "this broker holds what it held (or what the leader, the
HW, an acked record put there), for it cannot have truncated below it since" is false of a broker
whose disk went, and, unlike a power loss (power_loss.py), nothing of the log is left to keep a
weaker form on: no flushed prefix survives. The state keeps no history of who lost a disk.

The facts below are false on reachable states (BFS of the compiled model with every invariant
checked, ``python -m checker.symbolic.strengthen.reachable --kafka-version V -r 2 --crash-model
disk-loss --max-records 2 --max-leader-epoch 2 --max-crashes 2 --max-unflushed-losses 1`` for V
in 2.1 (6,489 states), 2.7 (6,378), 3.3 (13,657), 3.5 (15,177) and 4.1 (12,032), run 2026-11-28
on the shared machine, load about 2, 24 to 47 s each; the counts per invariant are in ``FALSE_ON``), and are switched off under
disk loss (``switch``). The others held on every state of those five searches. A fact missing
here that is false under disk loss in some other configuration cannot make a proof wrong: a
conjunct false on a reachable state cannot be inductive together with the property, so the base
case or the inductive step fails on it (``induction._prove``: not PROVED; review s13); it can only
keep a proof from closing.

``committed-consistency`` is false under disk loss (a record below the HW may be in one log only,
as under power loss: ``kmc check --kafka-version 3.5 -r 2 --crash-model disk-loss --max-crashes 2
-p committed-consistency``, VIOLATED in 5 steps), so ``--strengthen all`` leaves it out there
(``NOT_IN_ALL``; library.all_names). ``kmc prove -p NAME`` refuses an invariant switched off here
(``library.takes_another_form``).
"""

from __future__ import annotations

from dataclasses import replace

import z3

from checker.symbolic.strengthen.base import Strengthening

DISK_LOSS = "disk-loss"

FALSE_ON = {
    # name: reachable states it is false on, Kafka 2.1 / 2.7 / 3.3 / 3.5 / 4.1 (0: true there)
    "epoch-leader-holds-its-records": (1236, 162, 76, 100, 280),
    "named-leader-holds-its-records": (2199, 686, 754, 894, 784),
    "fetch-response-from-leader-log": (1130, 464, 774, 885, 516),
    "follower-log-is-leader-prefix": (2045, 632, 1224, 1427, 712),
    "fetch-hw-committed": (1030, 420, 870, 765, 288),
    "acked-in-isr": (1298, 880, 1467, 1415, 429),
    "kept-remote-leo-is-follower-prefix": (327, 572, 1942, 2025, 1109),
    "isr-followers-hold-hw": (376, 714, 2839, 1993, 798),
    "isr-holds-every-hw": (1455, 649, 1570, 1214, 199),
    "hw-behind-epoch-leader": (668, 76, 25, 33, 97),
    "leader-holds-followers-hw": (1462, 419, 928, 1114, 278),
    "fetch-hw-on-later-isr": (209, 141, 294, 346, 18),
    "fetch-hw-on-later-leaders": (89, 45, 182, 234, 18),
    "epoch-offset-names-one-record": (128, 0, 0, 0, 0),
    "epoch-anchors-prefix": (128, 0, 0, 0, 0),
    "fetch-offsets-in-range": (337, 0, 0, 0, 0),
    "requested-leaders-hold-hw": (175, 70, 206, 262, 28),
    "later-leaders-hold-hw": (175, 70, 206, 262, 28),
    "hw-prefix-of-true-leader": (528, 38, 0, 0, 19),
    "isr-remote-ge-hw": (140, 298, 1550, 204, 332),
    "leaders-hold-older-acked": (159, 145, 321, 467, 70),
    "alter-partition-added-member-caught-up": (0, 56, 522, 455, 0),
    "alter-partition-proposal-holds-acked": (0, 276, 306, 262, 482),
    "kraft-leader-isr-holds-acked": (0, 0, 0, 0, 530),
    "kraft-leader-isr-holds-every-hw": (0, 0, 0, 0, 402),
    "elr-holds-acked": (0, 0, 0, 0, 423),
    "elr-holds-every-hw": (0, 0, 0, 0, 309),
}
"""Each invariant false under disk loss, with the reachable states it is false on (the module's
docstring says the searches)."""

OFF_UNDER_DISK_LOSS = tuple(FALSE_ON)

NOT_IN_ALL = ("committed-consistency",)
"""Built-in properties false under disk loss, left out of ``--strengthen all`` there."""


# ---------------------------------------------------------------- under KIP-903 (issue 29an)

ONLY_BEFORE_KIP_380 = ("epoch-offset-names-one-record", "epoch-anchors-prefix", "fetch-offsets-in-range")
"""Switched off, but false only on Kafka 2.1 (no broker epochs: a broker back with an empty disk
may take its old epoch again): under KIP-903 they keep their form as written."""

NO_FORM = ("acked-in-isr", "isr-followers-hold-hw", "isr-remote-ge-hw",
           "alter-partition-proposal-holds-acked", "leaders-hold-older-acked",
           "alter-partition-added-member-caught-up", "kraft-leader-isr-holds-acked",
           "kraft-leader-isr-holds-every-hw", "elr-holds-acked", "elr-holds-every-hw")
"""Switched off, with no form under disk loss: their power-loss forms (if any) are false on
reachable disk-loss states too (``python -m checker.symbolic.strengthen.reachable`` as the
module's docstring says, on 3.5: ``acked-in-isr`` 1,143 states, ``isr-followers-hold-hw`` 150,
``isr-remote-ge-hw`` 204, ``alter-partition-proposal-holds-acked`` 262; on 4.1 also
``acked-in-isr`` 212 and ``alter-partition-proposal-holds-acked`` 48)."""

AS_POWER_LOSS = tuple(n for n in FALSE_ON if n not in NO_FORM + ONLY_BEFORE_KIP_380)
"""Switched off under disk loss as written, and under KIP-903 given their power-loss form
(power_loss.py, power_loss_kraft.py): a disk loss is a power loss with nothing flushed, and the
power-loss forms reason only from what the state keeps of who may have lost data since when
(``power_loss.lost_since``: the loss counter, a running leader of an epoch, a member of an ISR of
several in the controller's epoch), never from a flushed prefix."""

PL_ONLY_NOT_UNDER_DISK_LOSS = ("isr-elr-hold-fetch-hw", "controller-leader-holds-every-hw",
                               "isr-elr-hold-every-hw", "flushed-offsets")
"""Of the invariants only power loss needs (``power_loss_kraft.POWER_LOSS_ONLY``), the ones not
used under disk loss: the three KIP-966 facts are false on 4.1's disk-loss states (18, 38 and
38), and ``flushed-offsets`` speaks of a flushed offset no disk-loss action keeps."""

POWER_LOSS = "power-loss"


def kip_903(config) -> bool:
    """KIP-903 (3.5, ``broker-epoch-in-fetch``): an AlterPartition carries the added member's
    broker epoch and the controller refuses a stale one, so a broker back with an empty disk
    joins the ISR only by fetching again (KAFKA-14139 closed)."""
    return "broker-epoch-in-fetch" in config.rules


def switch(st: Strengthening, pl_only=()) -> Strengthening:
    """``st`` under disk loss (unchanged for every other crash model): off if it is in
    ``OFF_UNDER_DISK_LOSS``; but with KIP-903, its power-loss form if it is in ``AS_POWER_LOSS``
    or ``pl_only`` (the power-loss-only invariants used here), and as written if it is in
    ``ONLY_BEFORE_KIP_380``. A power-loss form is evaluated by reading the configuration as a
    power-loss one (``Dims.power_loss`` in z3): the loss counter ``unflushed_losses`` counts the
    disk losses."""
    if st.name not in OFF_UNDER_DISK_LOSS and st.name not in pl_only:
        return st
    kept = st.name in AS_POWER_LOSS or st.name in pl_only or st.name in ONLY_BEFORE_KIP_380

    def check(s, config, _st=st):
        if config.crash_model != DISK_LOSS:
            return _st.holds(s, config)
        if kept and kip_903(config):
            return _st.holds(s, replace(config, crash_model=POWER_LOSS))
        return True

    def formula(d, s, _st=st):
        if not d.disk_loss:
            return _st.formula(d, s)
        if kept and d.fetch_epochs:
            return _st.formula(replace(d, power_loss=True), s)
        return z3.BoolVal(True)

    return Strengthening(st.name, st.description, check, formula, uses_config=True)
