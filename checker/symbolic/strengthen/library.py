"""The library of strengthening invariants for k-induction: facts every reachable state satisfies that the
target property alone does not say, so that a state satisfying them all cannot step out of the
property.

Each has a Python predicate over a ``ClusterState`` and a z3 formula over an ``SState``. The tests
check that every predicate holds on every state BFS reaches (kip-320, RF=2) and that each formula
agrees with its predicate on reachable states and on mutated, unreachable ones; the RF=3 check
(331,010 states) is ``bench/symbolic_bench.py --check-library``. A wrong strengthening cannot make a
proof unsound (it is proved along with the property: the base case and the inductive step cover
it), only make it fail.

How the library was built: run ``kmc prove`` with what there is, read the counterexample to
induction (an unreachable state that steps out), name the Kafka fact that rules it out, check the
fact on every reachable state by BFS, state it as a formula, repeat. With the library, 1-induction
proves ``no-acked-loss`` and ``committed-consistency`` for kip-320 (acks=all,
min.insync.replicas=2, unclean election off, process crashes) at RF=2; docs/symbolic.md has the
bounds and times.

The recurring difficulty: a crash resets a broker's epoch to -1 (``ReplicaState.leader_epoch``),
erasing which epochs it led or followed and so whether it can have truncated its log since. The
library recovers that history from what the state still holds: the LeaderAndIsr requests on
their way to it (a restarted broker has one for every epoch since the one it restarted in, see
``current-epoch-on-its-way``), the epochs other brokers and the controller name leaders for, and
whether those leaders can have taken their epochs (``never_took``, ``kept_log_since``).
"""

from __future__ import annotations

from checker.symbolic.formulas import DEFAULT_FORMULAS, FORMULAS
from checker.symbolic.strengthen import (
    acks, crashes_restarts, epochs_requests, fetches, isr_hw, logs, remote_leos,
)
from checker.symbolic.strengthen import alter_partition
from checker.symbolic.strengthen import elr
from checker.symbolic.strengthen import power_loss
from checker.symbolic.strengthen import power_loss_kraft
from checker.symbolic.strengthen import kraft
from checker.symbolic.strengthen import kraft_epochs
from checker.symbolic.strengthen import delayed
from checker.symbolic.strengthen import disk_loss
from checker.symbolic.strengthen import disk_loss_facts
from checker.symbolic.strengthen import shutdowns
from checker.symbolic.strengthen import controlled
from checker.symbolic.strengthen import expiries
from checker.symbolic.strengthen import failovers
from checker.symbolic.strengthen import hw_checkpoint
from checker.symbolic.strengthen import consumer
from checker.symbolic.strengthen import reads
from properties import get_properties

# The order `kmc list` shows them in: who is alive and in which epoch; LeaderAndIsr requests; the
# records in logs; fetches and remote LEOs; the LEOs a re-elected leader keeps; the ISR and the HW;
# acknowledgements; KIP-497's AlterPartition (issue 29i); KIP-966's ELR (issue 29l); KRaft's
# pending changes (issue 29m); a pending change across a new leader epoch (issue 29q).
TOPICS = (crashes_restarts, epochs_requests, logs, fetches, remote_leos, isr_hw, acks,
          alter_partition, elr, kraft, kraft_epochs, reads)  # reads: issue 29bf

STRENGTHENINGS = {st.name: st for topic in TOPICS for st in topic.STRENGTHENINGS}
UNSWITCHED = dict(STRENGTHENINGS)
"""Each invariant as written, before power loss, delayed fetches, controlled shutdowns and session
expiries switch some to weaker forms (below): ``takes_another_form`` compares the two."""

# issue 29p: under ``--crash-model power-loss`` the facts a power loss breaks take their
# power-loss forms (power_loss.py), and the invariants only power loss needs are added
STRENGTHENINGS = {name: power_loss_kraft.switch(st) for name, st in STRENGTHENINGS.items()}
STRENGTHENINGS.update({st.name: st for st in power_loss_kraft.POWER_LOSS_ONLY})

# issue 29z: under ``--max-delayed-fetches`` the facts a delayed fetch breaks take their forms
# (delayed.py), and the delayed fetch's own fact is added
STRENGTHENINGS = {name: delayed.switch(st) for name, st in STRENGTHENINGS.items()}
STRENGTHENINGS["delayed-fetch-as-remote-leo"] = delayed.as_remote_leo(
    STRENGTHENINGS["kept-remote-leo-is-follower-prefix"])
STRENGTHENINGS.update({st.name: st for st in delayed.STRENGTHENINGS})

# issue 29ac: under ``--max-controlled-shutdowns`` and ``--max-session-expiries`` the facts that
# rest on "leadership moves only from a failed leader, a broker stops only by crashing" are off,
# and ``crashes-counted`` counts the controlled shutdowns too (shutdowns.py)
STRENGTHENINGS = {name: shutdowns.switch(st) for name, st in STRENGTHENINGS.items()}
STRENGTHENINGS.update({st.name: st for st in shutdowns.STRENGTHENINGS})
# issue 29bl: the facts only a controlled shutdown on KRaft needs (controlled.py)
STRENGTHENINGS.update({st.name: st for st in controlled.STRENGTHENINGS})
# issue 29bd: the facts only a session expiry needs (expiries.py)
STRENGTHENINGS.update({st.name: st for st in expiries.STRENGTHENINGS})

# issue 29aj: under ``--crash-model disk-loss`` the facts a replaced disk breaks are off
# (disk_loss.py: each false on reachable states)
# issue 29an: with KIP-903 most of them take their power-loss forms, the power-loss-only
# invariants that hold there are on, and disk_loss_facts.py adds the facts only disk loss needs
_DISK_LOSS_PL_ONLY = tuple(st.name for st in power_loss_kraft.POWER_LOSS_ONLY
                           if st.name not in disk_loss.PL_ONLY_NOT_UNDER_DISK_LOSS)
STRENGTHENINGS = {name: disk_loss.switch(st, _DISK_LOSS_PL_ONLY) for name, st in STRENGTHENINGS.items()}
STRENGTHENINGS.update({st.name: st for st in disk_loss_facts.STRENGTHENINGS})
# issue 29ak: under ``--max-controller-failovers`` the facts the new controller's resend and the
# zombie controller's stale view break are off (failovers.py)
STRENGTHENINGS = {name: failovers.switch(st) for name, st in STRENGTHENINGS.items()}
STRENGTHENINGS.update({st.name: st for st in failovers.STRENGTHENINGS})
# ``--hw-checkpoint interval``: a crash may move a broker's HW back to its checkpoint file's, so the
# facts that bound offsets by a broker's HW from above are off (hw_checkpoint.py)
STRENGTHENINGS = {name: hw_checkpoint.switch(st) for name, st in STRENGTHENINGS.items()}
STRENGTHENINGS.update({st.name: st for st in hw_checkpoint.STRENGTHENINGS})
# issue 29be: the consumer's three facts (consumer.py; True without a consumer, and each
# order's fact True under the other order): no other fact speaks of the consumer
STRENGTHENINGS.update({st.name: st for st in consumer.STRENGTHENINGS})


def takes_another_form(name: str, d) -> bool:
    """Does the library use a weaker form of invariant ``name`` on dimensions ``d`` (its power-loss,
    delayed-fetch, controlled-shutdown or session-expiry form, or switched off, as under
    controller failovers)? Then ``kmc prove -p name`` would prove that form, not
    ``name`` as written, and is refused (review of 2026-11-28: ``-p isr-remote-ge-hw`` with a
    delayed fetch said PROVED of an invariant false on 223 reachable states). The two formulas are
    built on one state; z3 shares equal terms, so an unswitched invariant gives the same term."""
    from checker.symbolic.state import fresh

    if name not in UNSWITCHED or name not in STRENGTHENINGS:
        return False
    s = fresh(d, "form")
    return not UNSWITCHED[name].formula(d, s).eq(STRENGTHENINGS[name].formula(d, s))


def formula_of(name: str):
    """The z3 formula of a strengthening invariant or a built-in property, or None."""
    if name in STRENGTHENINGS:
        return STRENGTHENINGS[name].formula
    return FORMULAS.get(name)


def check_of(name: str, config):
    """The Python predicate (of a state) of a strengthening invariant or a built-in property."""
    if name in STRENGTHENINGS:
        st = STRENGTHENINGS[name]
        return lambda state: st.holds(state, config)
    return get_properties([name])[0].check


def library_names() -> list:
    """The library and the default invariants' formulas (``formulas.DEFAULT_FORMULAS``): not the
    properties asked by name (``isr-members-eligible``, false on ZooKeeper mode by design; the
    reachability questions, false wherever reached), which no proof may assume (issue 29ai)."""
    return list(STRENGTHENINGS) + list(DEFAULT_FORMULAS)


# ``monotonic-visibility`` speaks of the consumer-visible history, which no library invariant ties to
# the logs tightly enough for induction, so ``--strengthen all`` leaves it out. (A candidate, "every
# member of the controller's ISR holds the visible records", holds on every reachable state but is
# not inductive with the rest: a stale leader of an older epoch lacks records made visible later.)
NOT_IN_ALL = ("monotonic-visibility",)


def all_names(config=None) -> list:
    """What ``--strengthen all`` means: the library and every built-in property but ``NOT_IN_ALL``;
    for a configuration with power-loss crashes (issue 29p) without the properties a power loss
    breaks (``power_loss.NOT_IN_ALL``), and otherwise (or with no configuration) without the
    invariants only power loss needs (``power_loss_kraft.POWER_LOSS_ONLY``, true by definition there);
    under disk loss also without the properties a replaced disk breaks (``disk_loss.NOT_IN_ALL``),
    but with the power-loss-only invariants used there and the disk-loss-only ones
    (``disk_loss_facts``), which are left out everywhere else (issue 29an); and under a controller
    failover on Kafka 2.1's rules at 2 records or more without ``committed-consistency``, which is
    violated there (``failovers.committed_consistency_violated``, issue 29ba), and the failover
    facts of KIP-380's broker epoch only with both (``failovers.KIP380``); the consumer's
    facts only with a consumer (issue 29be: true by definition without one)."""
    if config is not None and config.crash_model == power_loss.POWER_LOSS:
        left_out = NOT_IN_ALL + power_loss.NOT_IN_ALL
    else:
        left_out = NOT_IN_ALL + tuple(st.name for st in power_loss_kraft.POWER_LOSS_ONLY)
    if config is not None and config.crash_model == disk_loss.DISK_LOSS:  # (issue 29aj)
        # issue 29an: the power-loss-only invariants used under disk loss are in it
        left_out = tuple(n for n in left_out if n not in _DISK_LOSS_PL_ONLY) + disk_loss.NOT_IN_ALL
    else:  # issue 29an: the invariants only disk loss needs, true by definition elsewhere
        left_out += tuple(st.name for st in disk_loss_facts.STRENGTHENINGS)
    if config is None or not hw_checkpoint.lagging(config):  # likewise the lagging checkpoint's
        left_out += tuple(st.name for st in hw_checkpoint.STRENGTHENINGS)
    if config is not None and failovers.committed_consistency_violated(config):  # (issue 29ba)
        left_out += failovers.NOT_IN_ALL
    if config is None or config.bounds.max_controller_failovers == 0:  # True there (issue 29ba)
        expiring = config is not None and config.bounds.max_session_expiries > 0
        # issue 29bd: three of them apply under session expiries too (expiries.LONE)
        left_out += tuple(n for n in failovers.ONLY_UNDER_FAILOVERS
                          if not (expiring and n in expiries.LONE))
    if (config is None or config.bounds.max_controller_failovers == 0
            or "broker-epoch" not in config.rules):  # True there (failovers.KIP380)
        left_out += failovers.KIP380
    if config is None or config.bounds.max_session_expiries == 0:  # True there (issue 29bd)
        left_out += tuple(st.name for st in expiries.STRENGTHENINGS)
    if config is None:  # True there (issue 29bl)
        left_out += tuple(st.name for st in controlled.STRENGTHENINGS)
    else:
        left_out += controlled.not_in_all(config)
    if config is None or not config.consumer_commit:  # True without a consumer (issue 29be)
        left_out += tuple(st.name for st in consumer.STRENGTHENINGS)
    return [n for n in library_names() if n not in left_out]
