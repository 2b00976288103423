"""Checking a liveness property ``P ~> Q`` under weak fairness on the behaviour graph.

The graph is built here, in a pass of its own through the compiled kernel's successors
(``model.kernel.actions.successors``, the same function the compiled engine's search calls), with
an action label on every edge; it is held in memory, so this is for configurations of up to a
few hundred thousand states (``max_states``). States are the kernel's rows, *without* symmetry
reduction: an edge of the graph is then an edge of the kernel, and a lasso replays as it is.

**What is a violation.** A behaviour violates ``P ~> Q`` when it reaches a state where ``P``
holds and ``Q`` does not, and from there on never reaches a ``Q`` state. In a finite graph such a
behaviour ends in a cycle (or stutters in one state for ever), so a counterexample is a *lasso*:
a stem from the initial state through a ``P and not Q`` state into a set of ``not Q`` states, and
a loop repeated for ever. It counts only if the loop is **fair**:

* *weak fairness* (``properties/liveness.py``, ``FAIRNESS``) for every action instance (name and
  arguments) of a weakly fair family: if it is enabled in *every* state of the loop it must be
  *taken* in the loop. Stuttering for ever in one state is a loop too, fair only if no weakly fair
  action is enabled there (a dead end, or only faults, operator actions or produce enabled).
* with ``faults_stop`` no fault or operator step (``STOPPING``) comes after the ``P`` state:
  not in the rest of the stem, not in the loop; before it, any may.

**The check** (Lichtenstein-Pnueli / TLC's for weak fairness): let ``G`` be the subgraph of the
``not Q`` states reachable from a reachable ``P and not Q`` state along ``not Q`` states and
allowed edges (with ``faults_stop``: no fault or operator step);
take its strongly connected components (networkx). A component
``C`` with at least one edge holds a fair loop **iff** every weakly fair instance enabled in all
of ``C``'s states labels an edge inside ``C``. *Sound*: the loop built then (below) passes
through every state of ``C`` (so an instance not enabled in all of them is not continuously
enabled along it) and crosses an edge of every instance that labels an edge inside ``C`` (so
every one that is enabled in all of them is taken). *Complete*: a fair loop lies inside one
component ``C``; an instance enabled in all of ``C`` is enabled in all of the loop's states, so
the loop takes it, inside ``C``. (Weak fairness only: strong fairness would need the component split again, which
this does not do.) Without fairness (``fair=False``) every ``not Q`` state may stutter for ever,
so the first reachable ``P and not Q`` state is a counterexample.

**The lasso**: the shortest stem (breadth-first through "before P" and "pending" phases) into a
fair component, then a loop from its entry state through every state of the component and across
an edge of every required instance, back to the entry. ``Trace`` holds stem and loop together;
``loop_start`` is the index of the state the loop returns to, ITF's ``loop``.

A limit (``max_states``, ``time_limit``) hit before the graph is whole is INCOMPLETE, never HOLDS.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from checker.result import (
    EXIT_HOLDS, EXIT_INCOMPLETE, EXIT_VIOLATED, HOLDS, INCOMPLETE, VIOLATED, CheckResult, CheckStats,
    PropertyResult,
)
from checker.trace import Trace, replay_actions
from model.compiled_model import CompiledModel
from model.config import ModelConfig
from model.kernel.actions import successors as kernel_successors
from model.kernel.codec import decode, decode_action
from model.kernel.spec import kernel_spec
from properties.liveness import EVENTUALLY, LeadsTo, stops, weakly_fair
from properties import acks_zero_note, vacuous_with_acks

DEFAULT_MAX_STATES = 300_000


@dataclass
class LivenessResult:
    property_name: str
    description: str
    verdict: str
    fair: bool
    faults_stop: bool
    form: str = "leads-to"  # properties.liveness.FORMS
    states: int = 0
    edges: int = 0
    components: int = 0  # strongly connected components of the pending subgraph
    seconds: float = 0.0
    limit: str | None = None
    trace: Trace | None = None
    loop_start: int | None = None  # index in trace.states where the loop returns to
    stuttering: bool = False  # the loop is stuttering in the last state
    notes: list = field(default_factory=list)
    engine: str = "graph"  # or "bmc": checker/symbolic/lasso.py, ``states`` the length reached

    @property
    def exit_code(self) -> int:
        return {HOLDS: EXIT_HOLDS, VIOLATED: EXIT_VIOLATED}.get(self.verdict, EXIT_INCOMPLETE)

    def to_json(self) -> dict:
        out = {
            "property": self.property_name, "kind": self.form, "verdict": self.verdict,
            "fairness": "weak" if self.fair else "none", "faults_stop": self.faults_stop,
            "states": self.states, "edges": self.edges, "components": self.components,
            "seconds": round(self.seconds, 3), "limit": self.limit,
        }
        if self.engine == "bmc":  # a lasso search: no graph, the length searched to
            out = {**{k: v for k, v in out.items() if k not in ("states", "edges", "components")},
                   "engine": "bmc", "length": self.states}
        if self.trace is not None:
            out["trace"] = self.trace.to_json()
            out["loop_start"] = self.loop_start
            out["stuttering"] = self.stuttering
        return out


class _Graph:
    """The explored states (kernel rows) and labelled edges, by state index."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []
        self.index: dict[bytes, int] = {}
        self.out: list[list[tuple[int, int]]] = []  # state -> [(label id, successor)]
        self.labels: list = []  # label id -> Action
        self.label_ids: dict[tuple, int] = {}

    def label(self, acts_row) -> int:
        key = tuple(int(x) for x in acts_row)
        lid = self.label_ids.get(key)
        if lid is None:
            lid = self.label_ids[key] = len(self.labels)
            self.labels.append(decode_action(acts_row))
        return lid


def _explore(config: ModelConfig, max_states: int, deadline: float | None):
    spec = kernel_spec(config)
    out = np.zeros((spec.max_successors, spec.width), dtype=np.int8)
    acts = np.zeros((spec.max_successors, 3), dtype=np.int16)
    g = _Graph()
    init = np.array(spec.initial, dtype=np.int8)
    g.rows.append(init)
    g.index[init.tobytes()] = 0
    g.out.append([])
    queue = deque([0])
    while queue:
        if deadline is not None and time.monotonic() > deadline:
            return g, spec, "time"
        s = queue.popleft()
        k = kernel_successors(g.rows[s], spec.lay, spec.cfg, out, acts)
        edges = []
        for j in range(k):
            key = out[j].tobytes()
            t = g.index.get(key)
            if t is None:
                if len(g.rows) >= max_states:
                    return g, spec, "states"
                t = g.index[key] = len(g.rows)
                g.rows.append(out[j].copy())
                g.out.append([])
                queue.append(t)
            edges.append((g.label(acts[j]), t))
        g.out[s] = edges
    return g, spec, None


def check_liveness(config: ModelConfig, prop: LeadsTo, *, fair: bool = True,
                   max_states: int | None = None, time_limit: float | None = None) -> LivenessResult:
    """Judge ``prop`` on ``config``'s behaviour graph (see the module docstring)."""
    started = time.monotonic()
    deadline = started + time_limit if time_limit else None
    result = LivenessResult(prop.name, prop.description, INCOMPLETE, fair, prop.faults_stop,
                            prop.form)
    if vacuous_with_acks(prop.name, config.acks):  # as kmc check notes of no-acked-loss (s13)
        result.notes.append(acks_zero_note(prop.name))
    g, spec, limit = _explore(config, max_states or DEFAULT_MAX_STATES, deadline)
    result.states, result.edges = len(g.rows), sum(len(e) for e in g.out)
    if limit is not None:
        result.limit, result.seconds = limit, time.monotonic() - started
        return result
    states = [decode(r, spec.layout) for r in g.rows]
    p_of, q_of = prop.predicates(config)
    if prop.form == EVENTUALLY:  # <>Q: the initial state (index 0: the graph is built from it)
        p = [i == 0 for i in range(len(states))]
    else:
        p = [bool(p_of(s)) for s in states]
    q = [bool(q_of(s)) for s in states]
    wf = [weakly_fair(a.name) for a in g.labels]
    loop_ok = [not (prop.faults_stop and stops(a.name)) for a in g.labels]

    target, result.components = fair_targets(g.out, p, q, wf, loop_ok, fair)
    result.seconds = time.monotonic() - started
    if not target:
        result.verdict = HOLDS
        return result
    # a loop through a state at the leader-epoch bound may be the bound's: the controller can
    # elect, and change the ISR, no further there (every other bound limits faults or produce)
    top = config.bounds.max_leader_epoch if fair else None  # unfair: no step is forced anyway
    # (the controller's leader epoch never goes down, so a loop below the bound has a stem that
    # never reached it either)
    at_bound = {s for comp in target.values() for s in comp
                if top is not None and states[s].controller.leader_epoch >= top}
    cut = {s for s in target if at_bound & target[s]}
    if len(cut) == len(target):
        result.limit = "max-leader-epoch"
        result.notes.append(
            f"every fair loop that violates it passes a state at the leader-epoch bound "
            f"({top}), where the controller can elect no further: raise --max-leader-epoch")
        return result
    for s in cut:
        del target[s]

    stem, loop = lasso(g.out, p, q, wf, loop_ok, target, fair)
    model = CompiledModel(config)
    actions = [g.labels[lid] for lid in stem + loop]
    trace = replay_actions(model, model.init_states()[0], actions, prop.name)
    result.trace, result.loop_start, result.stuttering = trace, len(stem), not loop
    if loop and trace.states[-1] != trace.states[len(stem)]:
        raise AssertionError("the lasso's loop does not return to its first state")
    result.verdict = VIOLATED
    return result


LIMIT_NAMES = {"states": "max-states", "time": "time-limit", "max-leader-epoch": "max-leader-epoch"}


def as_check_result(result: LivenessResult, config: ModelConfig) -> CheckResult:
    """``result`` in the form every other engine answers in (a ``CheckResult`` with one
    property), for ``kmc gate``: distinct states are the behaviour graph's states (kept without
    symmetry reduction), generated states its edges; the trace is the lasso, stem and loop, and a
    note says where the loop starts."""
    stats = CheckStats(states_generated=result.edges, distinct_states=result.states,
                       seconds=result.seconds)
    notes = [f"liveness ({result.form}, {'weak fairness' if result.fair else 'no fairness'}"
             f"{', once faults stop' if result.faults_stop else ''}): {result.description}"]
    notes += result.notes
    if result.trace is not None:
        where = (f"state {len(result.trace.steps)} stutters for ever" if result.stuttering
                 else f"steps {result.loop_start + 1}-{len(result.trace.steps)} repeat for ever")
        notes.append(f"the lasso's loop: {where}")
    verdict = PropertyResult(result.property_name, result.verdict, result.trace)
    return CheckResult("liveness", config.as_dict(), [verdict], stats,
                       LIMIT_NAMES.get(result.limit, result.limit), notes)


def fair_targets(out, p, q, wf, loop_ok, fair):
    """The states a fair violating loop can be entered at, each with its component (``{s}``:
    stuttering in ``s``), and the number of components: ``out[s]`` lists ``(label, successor)``,
    ``wf[label]`` says the label is weakly fair, ``loop_ok[label]`` that it may come after the
    ``P`` state (see the module docstring)."""
    import networkx as nx  # loaded lazily, as for kmc graph

    n = len(out)
    # the pending region: not-Q states reachable from a P-and-not-Q state along not-Q states
    # (and, once faults stop, along no fault step)
    pending = [False] * n
    work = [s for s in range(n) if p[s] and not q[s]]
    for s in work:
        pending[s] = True
    while work:
        s = work.pop()
        for lid, t in out[s]:
            if not q[t] and not pending[t] and loop_ok[lid]:
                pending[t] = True
                work.append(t)
    # (every state is reachable: the graph was built forwards from the initial state)

    target: dict[int, set] = {}  # entry state -> the fair component's states
    comps = []
    if not fair:
        for s in range(n):
            if pending[s]:
                target[s] = {s}
    else:
        sub = nx.DiGraph()
        sub.add_nodes_from(s for s in range(n) if pending[s])
        sub.add_edges_from((s, t) for s in range(n) if pending[s]
                           for lid, t in out[s] if pending[t] and loop_ok[lid])
        comps = list(nx.strongly_connected_components(sub))
        for comp in comps:
            enabled_everywhere = None
            for s in comp:
                here = {lid for lid, _ in out[s] if wf[lid]}
                enabled_everywhere = here if enabled_everywhere is None else enabled_everywhere & here
            for s in comp:  # stuttering for ever where nothing weakly fair is enabled is fair
                if not any(wf[lid] for lid, _ in out[s]):
                    target.setdefault(s, {s})
            if len(comp) == 1 and not sub.has_edge(*comp, *comp):
                continue
            taken = {lid for s in comp for lid, t in out[s] if t in comp and loop_ok[lid]}
            if enabled_everywhere <= taken:
                for s in comp:
                    target[s] = comp
    return target, len(comps)


def lasso(out, p, q, wf, loop_ok, target, fair):
    """The label ids of the shortest stem into a state of ``target`` through a ``P``-and-not-``Q``
    state, and of a fair loop from there (empty: stuttering)."""
    # the shortest stem: phase 0 before a P-and-not-Q state, phase 1 pending after it
    parent: dict[tuple, tuple | None] = {(0, 0): None}
    queue = deque([(0, 0)])
    end = None
    while queue:
        node = queue.popleft()
        s, phase = node
        if phase == 0 and p[s] and not q[s] and (s, 1) not in parent:
            parent[(s, 1)] = (node, None)
            queue.appendleft((s, 1))
        if phase == 1 and s in target:
            end = node
            break
        for lid, t in out[s]:
            if phase == 1 and (q[t] or not loop_ok[lid]):
                continue
            nxt = (t, phase)
            if nxt not in parent:
                parent[nxt] = (node, lid)
                queue.append(nxt)
    assert end is not None, "a fair component was found but no stem reaches it"
    stem = []
    node = end
    while parent[node] is not None:
        prev, lid = parent[node]
        if lid is not None:
            stem.append(lid)
        node = prev
    stem.reverse()
    entry = end[0]
    comp = target[entry]
    has_edge = any(t in comp and loop_ok[lid] for s in comp for lid, t in out[s])
    # no fairness, or a fair state with nothing weakly fair enabled and no loop: stutter there
    loop = _loop(out, entry, comp, wf, loop_ok) if fair and has_edge else []
    return stem, loop


def _loop(out, entry: int, comp: set, wf: list, loop_ok: list) -> list:
    """Label ids of a cycle from ``entry`` inside ``comp`` through every state of ``comp`` and
    across an edge of every weakly fair instance labelling an edge inside ``comp``."""
    inside = {s: [(lid, t) for lid, t in out[s] if t in comp and loop_ok[lid]] for s in comp}
    path: list = []
    seen, taken = {entry}, set()
    cur = entry

    def step(lid, t) -> None:
        nonlocal cur
        path.append(lid)
        taken.add(lid)
        seen.add(t)
        cur = t

    def go(goal) -> None:  # the shortest path from cur to goal, inside comp
        if cur == goal:
            return
        prev = {cur: None}
        queue = deque([cur])
        while queue:
            s = queue.popleft()
            for lid, t in inside[s]:
                if t not in prev:
                    prev[t] = (s, lid)
                    if t == goal:
                        steps = []
                        while prev[t] is not None:
                            steps.append((prev[t][1], t))
                            t = prev[t][0]
                        for lid_t in reversed(steps):
                            step(*lid_t)
                        return
                    queue.append(t)
        raise AssertionError("a strongly connected component is not connected")

    required = {lid: (s, t) for s in comp for lid, t in inside[s] if wf[lid]}
    for lid, (s, t) in sorted(required.items()):
        if lid not in taken:
            go(s)
            step(lid, t)
    for s in sorted(comp):  # pass every state, so an instance disabled somewhere is disabled
        if s not in seen:
            go(s)
    if not path:  # one step out of entry, then back
        step(*inside[entry][0])
    go(entry)
    return path
