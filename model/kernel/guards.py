"""The guards of the kernel's actions that the mutation check may skip, one bit each of the
kernel's ``MUTATION`` parameter (``cfg[MUTATION]``, 0 in every real run).

A guard is a condition an action checks before it acts, as Kafka does: a broker answers a fetch
only while it believes it leads, a leader's HW is the smallest LEO of its ISR, an election picks
from the ISR. ``kmc``'s known-results suite should notice if one were wrong; the mutation check
(``gate/mutation.py``, ``make mutation``) skips each in turn and reports the guards no row
notices. The kernel reads the bits at run time (``skipped(cfg, G_...)``), so a mutant needs no
recompilation. A guard listed here is skipped only where it can be without leaving the state's
ranges (a skipped guard must give a wrong model, never garbage in a row).

Adding a guard: one ``guard(...)`` line here and ``and not skipped(cfg, G_NAME)`` beside the
condition in the kernel.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from model.kernel.jit import kernel
from model.kernel.params import MUTATION


@dataclass(frozen=True)
class Guard:
    name: str
    bit: int
    action: str  # the action (or kernel function) that checks it
    summary: str
    words: tuple = ()  # words in a row's name that make it a likely killer
    unobservable: str = ""  # why no configuration shows it, if that is known and written down


GUARDS: dict[str, Guard] = {}


def guard(name: str, *, action: str, summary: str, words=(), unobservable: str = "") -> int:
    bit = len(GUARDS)
    if bit >= 31:
        raise ValueError("MUTATION is an int32: at most 31 guards")
    GUARDS[name] = Guard(name, bit, action, summary, tuple(words), unobservable)
    return bit


G_FETCH_NEEDS_LEADER = guard(
    "fetch-needs-leader", action="LeaderHandleFetch",
    summary="a broker answers a fetch only while it believes it leads (NOT_LEADER_FOR_PARTITION)",
    words=("zombie", "KIP-320"))
G_DELAYED_FETCH_NEEDS_LEADER = guard(
    "delayed-fetch-needs-leader", action="LeaderHandleDelayedFetch",
    summary="a delayed fetch is handled only by a broker that still believes it leads",
    words=("delayed fetch",))
G_SHRINK_ONLY_LAGGING = guard(
    "shrink-only-lagging", action="LeaderShrinkIsr",
    summary="only a follower whose remote LEO is behind the leader's LEO leaves the ISR",
    words=("ISR shrinks", "last replica"))
G_ONE_ALTER_IN_FLIGHT = guard(
    "one-alter-in-flight", action="LeaderShrinkIsr",
    summary="a leader sends one AlterPartition at a time (Partition.prepareIsrShrink)",
    words=("AlterPartition", "KIP-497"))
G_PRODUCE_NEEDS_MIN_ISR = guard(
    "produce-needs-min-isr", action="ProduceRecord",
    summary="acks=all is refused while the ISR is smaller than min.insync.replicas "
            "(NOT_ENOUGH_REPLICAS)",
    words=("min.insync.replicas",))
G_ISR_JOIN_NEEDS_HW = guard(
    "isr-join-needs-hw", action="is_follower_in_sync",
    summary="a follower rejoins the ISR only once its LEO reached the leader's HW",
    words=("ISR",))
G_HW_MIN_OVER_ISR = guard(
    "hw-min-over-isr", action="maybe_increment_leader_hw",
    summary="the HW is the smallest LEO of the (maximal) ISR, not the leader's own LEO",
    words=("acks=1",))
G_CLEAN_ELECTION_FROM_ISR = guard(
    "clean-election-from-isr", action="leader_candidates",
    summary="a clean election picks an ISR member (any live replica only if unclean election is "
            "allowed)",
    words=("unclean",))
G_TRUNCATE_NEEDS_LEADER = guard(
    "truncate-needs-leader", action="FollowerTruncate",
    summary="OffsetsForLeaderEpoch is answered only by a broker that believes it leads",
    words=("KIP-101", "KIP-279"))
G_LEADER_AND_ISR_NEWER_EPOCH = guard(
    "leader-and-isr-newer-epoch", action="BecomeLeaderOrFollower",
    summary="a broker applies LeaderAndIsr only for a leader epoch newer than its own",
    words=("stale follower LEO", "fast leader"))
G_ALTER_NEEDS_CURRENT_LEADER = guard(
    "alter-needs-current-leader", action="ControllerHandleAlterPartition",
    summary="the controller accepts AlterPartition only from the current leader in its current "
            "leader epoch (FENCED_LEADER_EPOCH / NOT_LEADER_OR_FOLLOWER)",
    words=("AlterPartition", "KRaft"))

G_ZOMBIE_BROKER_EPOCH = guard(
    "zombie-broker-epoch", action="BrokerHandleZombieLeaderAndIsr",
    summary="KIP-380 (2.2): a broker that registered since the controller failover refuses the "
            "zombie controller's LeaderAndIsr (STALE_BROKER_EPOCH)",
    words=("zombie controller", "broker epoch"))


@kernel
def skipped(cfg, bit):
    """Is guard ``bit`` turned off by the mutation check? (Never in a real run.)"""
    return (cfg[MUTATION] >> bit) & 1 != 0


_active = [0]


def active_mutation() -> int:
    """The ``MUTATION`` bits the next kernel configuration gets (``model/kernel/spec.py``)."""
    return _active[0]


@contextmanager
def mutated_guards(*names):
    """Within the block, configurations built for the compiled kernel skip the guards
    ``names`` (in-process engines only: the mutation check's)."""
    bits = 0
    for name in names:
        bits |= 1 << GUARDS[name].bit
    before = _active[0]
    _active[0] = bits
    try:
        yield
    finally:
        _active[0] = before
