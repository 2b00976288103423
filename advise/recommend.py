"""From a sweep's cells to advice: does a cell keep the user's goal, which settings are the
weakest that keep it, and what each step to a stronger setting changes.

A goal is a property name: an invariant must hold at every corner of the cell's bounds
(``advise/core.py``, ``advise/evidence.py``), an availability question must have its good
answer (``advise/availability.py``). A goal about acknowledged records with ``acks=0`` is
*vacuous* (nothing is ever acknowledged) and does not count as kept.

The weakest settings keeping the goal are the minimal elements, under the weak-to-strong order
of ``Settings``, of the cells that keep it, at each replication factor (an operator rarely
changes the replication factor of a topic to relax other settings). For each cell that keeps
the goal and each setting one step stronger (one more replica, acks 1 -> all, one more min.insync.replicas, unclean election off,
an fsync per write), the change says what the explorer found different: properties that now
hold or are now violated, availability answers that turn good or bad. What kmc does not model
(latency, throughput, disk) is named as such, never presented as found.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from advise import availability as A
from advise.settings import ACKS, CRASH_MODELS, Settings
from checker.result import HOLDS, VIOLATED

KEPT, BROKEN, UNKNOWN, VACUOUS = "kept", "broken", "unknown", "vacuous"

NOT_MODELLED = {
    "replication.factor": "one more copy of every record (disk, network)",
    "acks": "the producer waits for more brokers before its write is acknowledged (latency)",
    "min.insync.replicas": "",
    "unclean.leader.election.enable": "",
    "flush": "an fsync for every write (throughput)",
}


def all_kept(statuses) -> str:
    """The status of several goals together."""
    statuses = list(statuses)
    for s in (BROKEN, VACUOUS, UNKNOWN):
        if s in statuses:
            return s
    return KEPT


def weakest(keeping: list[Settings]) -> list[Settings]:
    """The minimal elements of ``keeping`` (no other is weaker or equal in every coordinate)."""
    return [s for s in keeping if not any(o != s and o.at_most(s) for o in keeping)]


def stronger_steps(s: Settings, replication_factors) -> list[tuple[str, str, Settings]]:
    """``(setting name, "from -> to", settings)`` for each single step up from ``s``."""
    steps = []
    if s.replication_factor + 1 in replication_factors:
        steps.append(("replication.factor", f"{s.replication_factor} -> {s.replication_factor + 1}",
                      s.but(replication_factor=s.replication_factor + 1)))
    i = ACKS.index(s.acks)
    if i + 1 < len(ACKS):
        steps.append(("acks", f"{s.acks} -> {ACKS[i + 1]}", s.but(acks=ACKS[i + 1])))
    if s.min_insync_replicas < s.replication_factor:
        m = s.min_insync_replicas
        steps.append(("min.insync.replicas", f"{m} -> {m + 1}", s.but(min_insync_replicas=m + 1)))
    if s.unclean_leader_election_enable:
        steps.append(("unclean.leader.election.enable", "true -> false",
                      s.but(unclean_leader_election_enable=False)))
    i = CRASH_MODELS.index(s.crash_model)
    if i + 1 < len(CRASH_MODELS):
        steps.append(("flush", "default -> every write (flush.messages=1)",
                      s.but(crash_model=CRASH_MODELS[i + 1])))
    return steps


@dataclass
class Change:
    """What one step from ``start`` to a stronger ``to`` changes, as found by the explorer."""

    start: Settings
    to: Settings
    setting: str
    step: str
    goal: str  # the goal's status at ``to``
    gains: list = field(default_factory=list)
    losses: list = field(default_factory=list)
    not_modelled: str = ""

    def to_json(self) -> dict:
        return {"from": self.start.to_json(), "to": self.to.to_json(), "setting": self.setting,
                "step": self.step, "goal": self.goal, "gains": self.gains, "losses": self.losses,
                "not_modelled": self.not_modelled or None}


def compare(a_safety, a_avail, b_safety, b_avail) -> tuple[list, list]:
    """What the explorer found better (gains) and worse (losses) going from a to b."""
    gains, losses = [], []
    if a_safety and b_safety:
        for name, va in a_safety.verdicts.items():
            vb = b_safety.verdicts.get(name)
            if vb is None or {va.verdict, vb.verdict} != {HOLDS, VIOLATED}:
                continue
            (gains if vb.verdict == HOLDS else losses).append(
                f"{name} {'holds' if vb.verdict == HOLDS else 'is violated'}")
    if a_avail and b_avail:
        for q in A.QUESTIONS:
            ta, tb = a_avail.verdicts[q.property_name].answer, b_avail.verdicts[q.property_name].answer
            if ta == tb or ta not in (A.YES, A.NO) or tb not in (A.YES, A.NO):
                continue
            text = f"{q.label}: {ta} -> {tb}"
            (gains if tb == q.good else losses).append(text)
    return gains, losses

