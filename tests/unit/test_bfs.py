"""The BFS engine on toy models whose state spaces are known exactly (stateright's habit)."""

from dataclasses import dataclass

import pytest

from checker import HOLDS, INCOMPLETE, VIOLATED, bfs
from checker.trace import NondeterministicModelError
from model import Action


@dataclass(frozen=True)
class Prop:
    name: str
    check: object


class Counters:
    """Two counters x, y in 0..n; actions: increment x, increment y. (n+1)^2 states."""

    def __init__(self, n):
        self.n = n

    def init_states(self):
        return [(0, 0)]

    def canonical(self, s):
        return s

    def successors(self, s):
        x, y = s
        out = []
        if x < self.n:
            out.append((Action("IncX", ()), (x + 1, y)))
        if y < self.n:
            out.append((Action("IncY", ()), (x, y + 1)))
        return out

    def next_state(self, s, a):
        return dict(self.successors(s)).get(a)


def test_counts_states_generated_and_distinct_like_tlc():
    result = bfs(Counters(3), [Prop("true", lambda s: True)])
    assert result.stats.distinct_states == 16
    assert result.stats.states_generated == 1 + 2 * 3 * 4  # init + every edge of the grid
    assert result.stats.depth == 6
    assert result.verdict("true") == HOLDS


def test_finds_a_shortest_counterexample():
    result = bfs(Counters(5), [Prop("x+y<4", lambda s: s[0] + s[1] < 4)])
    trace = result.by_name("x+y<4").trace
    assert result.verdict("x+y<4") == VIOLATED
    assert len(trace) == 4
    assert trace.states[-1] == (4, 0)  # actions in deterministic order: IncX first


def test_every_property_gets_its_own_shortest_trace():
    props = [Prop("x<2", lambda s: s[0] < 2), Prop("y<3", lambda s: s[1] < 3), Prop("ok", lambda s: True)]
    result = bfs(Counters(4), props)
    assert len(result.by_name("x<2").trace) == 2
    assert len(result.by_name("y<3").trace) == 3
    assert result.verdict("ok") == HOLDS


def test_a_state_limit_is_incomplete_and_exact():
    result = bfs(Counters(200), [Prop("ok", lambda s: True)], max_states=1000)
    assert result.verdict("ok") == INCOMPLETE and result.limit == "max-states"
    assert result.stats.distinct_states == 1000


def test_a_depth_limit_is_incomplete_and_counts_what_lies_beyond():
    result = bfs(Counters(5), [Prop("ok", lambda s: True)], max_depth=3)
    assert result.verdict("ok") == INCOMPLETE and result.limit == "max-depth"
    assert result.stats.depth == 3
    assert result.stats.queue == 5  # the states with x + y = 4, never checked


def test_a_depth_limit_that_covers_the_whole_space_is_complete():
    result = bfs(Counters(2), [Prop("ok", lambda s: True)], max_depth=4)
    assert result.verdict("ok") == HOLDS and result.limit is None


def test_a_violation_in_an_initial_state_has_an_empty_trace():
    result = bfs(Counters(2), [Prop("never", lambda s: False)])
    assert len(result.by_name("never").trace) == 0


class Flaky(Counters):
    """Successor order changes between calls: replay must notice."""

    calls = 0

    def successors(self, s):
        Flaky.calls += 1
        out = super().successors(s)
        return out if Flaky.calls % 2 else out[::-1]


def test_nondeterministic_models_are_caught_on_replay():
    with pytest.raises(NondeterministicModelError):
        bfs(Flaky(4), [Prop("x+y<3", lambda s: s[0] + s[1] < 3)])
