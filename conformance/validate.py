"""Trace validation: is a real run's observed projection a behaviour of kmc's model?

The search runs over the product of kmc's model and the run's observed facts
(``conformance.projection``): from kmc's initial state, any number of the model's own steps may
come between two facts (stuttering on the run: the steps nobody observed), and several facts may
hold of one state. The successors are the compiled kernel's (``model.compiled_model.CompiledModel``,
the readable model every trace tool uses, so validation judges exactly the rules ``kmc check``
explores); states are concrete, not reduced by symmetry, because brokers are replicas by id
(docs/conformance.md, "Trace validation").

The answer: **admitted** (one model behaviour that matches every fact in order, written as a kmc
trace), **not admitted at fact k** (the search ended without a bound: no behaviour of the model,
within its own bounds of records and crashes, matches the first ``k`` facts and then fact ``k``;
the report names the event and shows states that matched the facts before it), or
**incomplete** (``max_states`` nodes expanded, or a behaviour longer than ``max_steps`` cut).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from conformance.projection import Fact, Projection, holds, load_events, project, restrict

ADMITTED, NOT_ADMITTED, INCOMPLETE = "ADMITTED", "NOT ADMITTED", "INCOMPLETE"
DEFAULT_MAX_STEPS = 200
DEFAULT_MAX_STATES = 200_000


@dataclass
class Validation:
    verdict: str
    facts: int                      # observed facts in the projection
    matched: int                    # how many were matched, in order
    failed: Fact | None = None      # the first fact no behaviour explains (or the one searched)
    last_states: list = field(default_factory=list)  # matching states before ``failed``
    trace: object = None            # checker.trace.Trace of an admitted run
    config: object = None           # the ModelConfig searched
    states_visited: int = 0
    seconds: float = 0.0
    flags: dict = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return {ADMITTED: 0, NOT_ADMITTED: 1, INCOMPLETE: 3}[self.verdict]


class RunError(ValueError):
    """The run directory or file cannot be validated (one line for the user)."""


def run_flags(run: Path, projection: Projection) -> dict:
    """kmc's configuration for the run: the release and settings the harness recorded in
    ``result.json`` (``kmc_command``, the ``kmc check`` line of the same question), and the
    bounds the run needs (records sent, broker kills)."""
    result = run / "result.json" if run.is_dir() else run.parent / "result.json"
    if not result.exists():
        raise RunError(f"{result}: missing (the harness writes it beside events.jsonl)")
    try:
        meta = json.loads(result.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        raise RunError(f"{result}: not JSON") from None
    cmd = str(meta.get("kmc_command") or "")
    flags: dict = {}
    m = re.search(r"--kafka-version (\S+)", cmd)
    version = m.group(1) if m else str(meta.get("version", ""))
    line = ".".join(version.split(".")[:2])
    if not line:
        raise RunError(f"{result}: names no Kafka release")
    from conformance.kmcside import kmc_line  # noqa: PLC0415 - one table, kept there
    flags["kafka_version"] = kmc_line(line)
    for opt, key in (("--acks", "acks"), ("--min-insync-replicas", "min_insync_replicas"),
                     ("-r", "replication_factor")):
        m = re.search(rf"(?:^| ){re.escape(opt)} (\S+)", cmd)
        if m:
            flags[key] = m.group(1) if key == "acks" else int(m.group(1))
    if "--unclean-leader-election" in cmd:
        flags["unclean_leader_election"] = True
    sends = sum(1 for f in projection.facts if f.kind == "send")
    kills = sum(1 for f in projection.facts if f.kind == "kill -9")
    flags["max_records"] = max(1, sends)
    flags["max_crashes"] = kills
    return flags


def validate(run, *, max_steps: int = DEFAULT_MAX_STEPS, max_states: int = DEFAULT_MAX_STATES,
             rule_changes: tuple = (), flags: dict | None = None, events: list | None = None) -> Validation:
    """Validate the run (a directory with ``events.jsonl`` and ``result.json``, or the
    ``events.jsonl`` file) against kmc's model of its release and settings."""
    from model.compiled_model import CompiledModel  # noqa: PLC0415 - numba loads with the kernel
    from model.options import config_from_options  # noqa: PLC0415
    t0 = time.monotonic()
    run = Path(run)
    projection = project(events if events is not None else load_events(run))
    flags = dict(flags or run_flags(run, projection))
    if rule_changes:
        flags["rule_changes"] = tuple(rule_changes)
    config, _prov = config_from_options(**flags)
    projection = restrict(projection, config.replication_factor)
    model = CompiledModel(config)
    observed = projection.observed
    init = model.init_states()[0]
    search = _Search(model, observed, max_steps, max_states)
    path = search.run(init)
    seconds = time.monotonic() - t0
    if path is None:
        verdict = INCOMPLETE if search.bound_hit else NOT_ADMITTED
        fact = observed[search.deepest]
        return Validation(verdict, len(observed), search.deepest, fact, search.deepest_starts[:3], None,
                          config, search.visited, seconds, flags)
    from checker.trace import Step, Trace  # noqa: PLC0415
    trace = Trace(init, [Step(a, s) for a, s in path])
    return Validation(ADMITTED, len(observed), len(observed), None, [], trace, config, search.visited,
                      seconds, flags)


class _Search:
    """A search of the product of kmc's model and the run's facts: a node is ``(state, k)``, a
    model state after the first ``k`` facts were matched. Its successors are the model's steps
    (``(t, k)``: an unobserved step of the model, stuttering on the run) and, if the state
    satisfies fact ``k``, ``(state, k + 1)`` (several facts may hold of one state). The run is
    admitted when some ``(state, n)`` is reached. Nodes are expanded furthest-in-the-run first,
    then fewest steps (a best-first search), and each is expanded once, so the search explores
    at most (reachable states) x (facts + 1) nodes and, when it ends without a bound, it has
    tried every behaviour within the model's own bounds (records, crashes, epochs)."""

    def __init__(self, model, facts, max_gap: int, max_states: int) -> None:
        self.model, self.facts, self.max_gap, self.max_states = model, facts, max_gap, max_states
        self.visited = 0
        self.bound_hit = False
        self.depth_cut = False
        self.deepest = 0
        self.deepest_starts: list = []

    def run(self, init):
        """The steps of one behaviour matching every fact, or None."""
        import heapq  # noqa: PLC0415
        n = len(self.facts)
        parent: dict = {(init, 0): None}
        order = 0
        heap = [(0, 0, order, init)]  # (-k, steps, tie, state)
        while heap:
            negk, steps, _o, state = heapq.heappop(heap)
            k = -negk
            if k > self.deepest:
                self.deepest, self.deepest_starts = k, []
            if k == self.deepest and len(self.deepest_starts) < 3:
                self.deepest_starts.append(state)
            if k == n:
                return self._path(parent, (state, k))
            self.visited += 1
            if self.visited > self.max_states:
                self.bound_hit = True
                return None
            if holds(self.facts[k].check, state):
                node = (state, k + 1)
                if node not in parent:
                    parent[node] = ((state, k), None)
                    order += 1
                    heapq.heappush(heap, (-(k + 1), steps, order, state))
                continue  # a state satisfying fact k advances; its model steps are explored at k + 1
            if steps >= self.max_gap:
                self.bound_hit = self.depth_cut = True  # a behaviour this long was not followed
                continue
            for act, succ in self.model.successors(state):
                node = (succ, k)
                if node not in parent:
                    parent[node] = ((state, k), act)
                    order += 1
                    heapq.heappush(heap, (-k, steps + 1, order, succ))
        return None

    @staticmethod
    def _path(parent, node):
        steps = []
        while parent[node] is not None:
            prev, act = parent[node]
            if act is not None:
                steps.append((act, node[0]))
            node = prev
        return steps[::-1]
