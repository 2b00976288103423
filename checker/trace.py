"""Traces: an initial state and the steps after it, rebuilt by replaying actions.

The explorer stores only ``fingerprint -> (parent fingerprint, action index)`` (TLC's
``TLCTrace``, stateright's ``Path::from_action_indices``). A trace is rebuilt by walking parent
pointers back to an initial state and replaying the action indices forwards through the model,
checking every fingerprint on the way: a mismatch means the model is not deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.fingerprint import fingerprint
from model.actions import Action
from model.errors import KmcError
from model.state import state_to_json

ROOT = -1
INDEX_BITS = 16


class NondeterministicModelError(KmcError):
    """Replaying the recorded actions did not reproduce the recorded states."""


@dataclass
class Step:
    action: Action
    state: object


@dataclass
class Trace:
    """``initial`` and ``steps``; ``property`` is the violated property's name, if any."""

    initial: object
    steps: list = field(default_factory=list)
    property_name: str | None = None

    @property
    def states(self) -> list:
        return [self.initial] + [s.state for s in self.steps]

    @property
    def actions(self) -> list:
        return [s.action for s in self.steps]

    def __len__(self) -> int:
        return len(self.steps)

    def to_json(self) -> dict:
        return {
            "property": self.property_name,
            "length": len(self.steps),
            "initial": state_to_json(self.initial),
            "steps": [
                {"index": i + 1, "action": s.action.to_json(), "state": state_to_json(s.state)}
                for i, s in enumerate(self.steps)
            ],
        }


def pack_parent(parent_fp: int, action_index: int) -> int:
    return (parent_fp << INDEX_BITS) | action_index


def reconstruct_trace(model, parents, target_fp: int, property_name: str | None = None) -> Trace:
    """Rebuild the path to ``target_fp`` from ``parents`` (fp -> packed parent, or ROOT).

    ``parents`` needs only ``__getitem__``: a dict locally, a lookup into Spark for the Spark engine.
    """
    indices = []
    fp = target_fp
    while True:
        packed = parents[fp]
        if packed == ROOT:
            break
        indices.append(packed & ((1 << INDEX_BITS) - 1))
        fp = packed >> INDEX_BITS
    root_fp = fp
    canonical = model.canonical
    for init in model.init_states():
        if fingerprint(canonical(init)) == root_fp:
            break
    else:
        raise NondeterministicModelError("no initial state has the trace's root fingerprint")
    return replay_indices(model, init, reversed(indices), property_name, expect_fp=target_fp)


def replay_indices(model, init, indices, property_name=None, expect_fp=None) -> Trace:
    state = init
    trace = Trace(init, [], property_name)
    for index in indices:
        succ = model.successors(state)
        if index >= len(succ):
            raise NondeterministicModelError(
                f"action index {index} is out of range in replay ({len(succ)} successors)"
            )
        act, state = succ[index]
        trace.steps.append(Step(act, state))
    if expect_fp is not None and fingerprint(model.canonical(state)) != expect_fp:
        raise NondeterministicModelError(
            "replaying the recorded actions reached a different state: the model's successors "
            "are not deterministic (iterate sorted tuples, never sets of str/Enum)"
        )
    return trace


def replay_actions(model, init, actions, property_name=None) -> Trace:
    """Replay named actions from ``init``; raises ``KmcError`` at the first one not enabled."""
    state = init
    trace = Trace(init, [], property_name)
    for i, act in enumerate(actions, 1):
        nxt = model.next_state(state, act)
        if nxt is None:
            raise KmcError(f"step {i}: {act} is not enabled in the model at that point")
        state = nxt
        trace.steps.append(Step(act, state))
    return trace
