"""The availability questions ``kmc advise`` asks the explorer, and how their witnesses are
checked.

Safety alone would recommend the strongest settings; what they cost is availability, and kmc
computes it rather than assuming it: each question is a reachability property
(``properties/invariants.py``, ``@reachable``) that the compiled explorer answers like any
other check, with a shortest witness when the answer is yes.

* ``acked-without-a-down-broker``: can the partition acknowledge a write without a broker that
  is down? Reached when a down broker's log lacks an acknowledged record. With process
  crashes a broker's log does not change while it is down, so the partition either
  acknowledged the write without it, or the broker had lost an acknowledged record before it
  went down (a protocol without KIP-101 can truncate one away: a safety violation, not
  availability). The shortest witness is therefore checked: it is replayed with that broker
  crashed *first* and its own steps left out (``broker_down_first``); if the write is still
  acknowledged, the witness shows writes acknowledged while the broker is down from the start,
  and the answer is yes. Otherwise the answer is "unclear" (the explorer's shortest witness is
  a lost record; a longer genuine one may exist).
* ``offline-with-a-live-broker``: can the partition lose its leader while a broker still runs
  (what ``unclean.leader.election.enable=false`` costs)? Reached when the controller has no
  leader and some broker is alive.

The questions are asked with small bounds of their own (one record, leader epochs up to 1, one
crash: enough for a crash, the controller's reaction, a write and its acknowledgement) and with
process crashes whatever the cell's flush policy: a power loss changes what a crashed broker
keeps, not whether the partition takes writes or has a leader.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from checker.trace import Step, Trace
from model import Action, make_model
from model.config import Bounds, ModelConfig
from properties import PROPERTIES

ACKED_WITHOUT = "acked-without-a-down-broker"
OFFLINE = "offline-with-a-live-broker"

BOUNDS = Bounds(max_records=1, max_leader_epoch=1, max_crashes=1, max_unflushed_losses=0)
"""The bounds availability questions are asked with."""

YES, NO, UNCLEAR, INCOMPLETE = "yes", "no", "unclear", "incomplete"


@dataclass(frozen=True)
class Question:
    """An availability question: the reachability property, the words for it, and which answer
    is the good one for an operator."""

    property_name: str
    label: str  # a table header
    ask: str  # a sentence
    good: str  # YES or NO


QUESTIONS = (
    Question(ACKED_WITHOUT, "acked, 1 down",
             "can a write be acknowledged while a broker is down?", YES),
    Question(OFFLINE, "leaderless, 1 up",
             "can the partition be left without a leader while a broker runs?", NO),
)
BY_NAME = {q.property_name: q for q in QUESTIONS}


def question_config(config: ModelConfig) -> ModelConfig:
    """The configuration availability questions about ``config`` are asked in."""
    return replace(config, crash_model="process", bounds=BOUNDS)


def _down_broker_missing_an_ack(state):
    for b, r in enumerate(state.replicas):
        if not r.alive and any(o >= len(r.log) or r.log[o][0] != rid for rid, o in state.acked):
            return b
    return None


# parameters that name a broker acted *upon*, not acting: a leader shrinking the ISR of a
# follower, the controller noticing a dead broker. Any other parameter naming the down broker
# makes the step its own (or makes it leader), and it is left out.
_ACTED_UPON = {("LeaderShrinkIsr", "follower"), ("LeaderExpandIsr", "follower"),
               ("ControllerHandleBrokerFailure", "broker")}


def _involves(act: Action, broker: int) -> bool:
    """Is ``act`` a step ``broker`` takes itself (impossible while it is down), or one that
    makes it leader?"""
    return any(value == broker and (act.name, name) not in _ACTED_UPON
               for name, value in act.params().items())


def broker_down_first(config: ModelConfig, witness: Trace) -> Trace | None:
    """``witness`` (reaching ``acked-without-a-down-broker``) replayed with the down broker
    crashed first and its own steps left out, up to the first state where the question is
    reached; None if that is not a behaviour of the model or never reaches it."""
    broker = _down_broker_missing_an_ack(witness.states[-1])
    if broker is None:
        return None
    actions = [Action("BrokerCrash", (broker,))] + [
        a for a in witness.actions if not _involves(a, broker)]
    model = make_model(question_config(config))
    prop = PROPERTIES[ACKED_WITHOUT]
    state = model.init_states()[0]
    trace = Trace(state, [], ACKED_WITHOUT)
    for act in actions:
        state = model.next_state(state, act)
        if state is None:
            return None
        trace.steps.append(Step(act, state))
        if not prop.check(state):
            return trace
    return None
