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
from dataclasses import dataclass, field, replace
from pathlib import Path

from conformance.events import bounds_from_events, split_topic, topics_in
from conformance.projection import CONTROLLER_NODE, Fact, holds, load_events, project, restrict

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


KMC_FLAG_KEYS = ("kafka_version", "replication_factor", "min_insync_replicas", "acks", "unclean_leader_election",
                 "crash_model", "rule_changes")
"""The keys of ``result.json``'s ``kmc_flags`` that are ``model.options.config_from_options``
arguments; ``assignment`` and ``bounds`` are read beside them."""


def read_result(run: Path) -> dict:
    result = run / "result.json" if run.is_dir() else run.parent / "result.json"
    if not result.exists():
        raise RunError(f"{run}: not a run of the harness: no {result} beside it (kmc conformance "
                       "run and nemesis write result.json beside events.jsonl)")
    try:
        meta = json.loads(result.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        raise RunError(f"{result}: not JSON") from None
    if not isinstance(meta, dict):
        raise RunError(f"{result}: not a JSON object")
    return meta


def run_flags(run: Path, events: list[dict]) -> dict:
    """kmc's configuration for the run. Runs recorded since issue 31b carry it explicitly in
    ``result.json`` as ``kmc_flags`` (release line, rules, replication factor, assignment,
    min.insync.replicas, acks, unclean election, bounds); older runs are read from
    ``kmc_command`` (the ``kmc check`` line of the same question). The bounds the run needs come
    from its events when ``kmc_flags`` has none (``projection.bounds_from_events``)."""
    meta = read_result(run)
    from conformance.kmcside import kmc_line  # noqa: PLC0415 - one table, kept there
    saved = meta.get("kmc_flags")
    flags: dict = {}
    if isinstance(saved, dict):
        for key in KMC_FLAG_KEYS:
            if saved.get(key) is not None:
                flags[key] = tuple(saved[key]) if key == "rule_changes" else saved[key]
        rf = int(flags.get("replication_factor", 3))
        assignment = saved.get("assignment")
        if assignment is not None and list(assignment) != list(range(rf)):
            raise RunError(f"assignment {list(assignment)}: validation maps broker b to kmc's replica b, "
                           f"so it takes only {list(range(rf))}")
        # a bound the harness did not save comes from the events; one it saved was counted from the
        # same events when the run ended, maybe by an older count: the larger of the two
        bounds = bounds_from_events(events)
        if isinstance(saved.get("bounds"), dict):
            for key, value in saved["bounds"].items():
                bounds[key] = max(int(value), bounds.get(key, 0))
        flags.update({k: int(v) for k, v in bounds.items()})
        if not flags.get("kafka_version"):
            raise RunError("result.json: kmc_flags names no Kafka release")
        return flags
    cmd = str(meta.get("kmc_command") or "")
    m = re.search(r"--kafka-version (\S+)", cmd)
    version = m.group(1) if m else str(meta.get("version", ""))
    line = ".".join(version.split(".")[:2])
    if not line:
        raise RunError("result.json names no Kafka release")
    flags["kafka_version"] = kmc_line(line)
    for opt, key in (("--acks", "acks"), ("--min-insync-replicas", "min_insync_replicas"),
                     ("-r", "replication_factor")):
        m = re.search(rf"(?:^| ){re.escape(opt)} (\S+)", cmd)
        if m:
            flags[key] = m.group(1) if key == "acks" else int(m.group(1))
    if "--unclean-leader-election" in cmd:
        flags["unclean_leader_election"] = True
    flags["rule_changes"] = tuple(re.findall(r"--rule (\S+)", cmd))
    if not flags["rule_changes"]:
        del flags["rule_changes"]
    flags.update(bounds_from_events(events))
    return flags


def validate(run, *, max_steps: int = DEFAULT_MAX_STEPS, max_states: int = DEFAULT_MAX_STATES,
             rule_changes: tuple = (), flags: dict | None = None, events: list | None = None,
             topic: str | None = None) -> Validation:
    """Validate the run (a directory with ``events.jsonl`` and ``result.json``, or the
    ``events.jsonl`` file) against kmc's model of its release and settings."""
    from model.compiled_model import CompiledModel  # noqa: PLC0415 - numba loads with the kernel
    from model.options import config_from_options  # noqa: PLC0415
    t0 = time.monotonic()
    run = Path(run)
    events = events if events is not None else load_events(run)
    topics = topics_in(events)
    if topic is not None:
        try:
            events = split_topic(events, topic)
        except ValueError as e:
            raise RunError(str(e)) from None
    elif len(topics) > 1:
        raise RunError(f"the stream holds {len(topics)} runs (topics {', '.join(topics[:4])}"
                       f"{', ...' if len(topics) > 4 else ''}): validate one with --topic")
    projection = project(events)
    flags = dict(flags or run_flags(run, events))
    if rule_changes:
        flags["rule_changes"] = tuple(flags.get("rule_changes", ())) + tuple(rule_changes)
    from model.errors import ConfigError  # noqa: PLC0415
    try:
        config, _prov = config_from_options(**flags)
    except (ConfigError, TypeError) as e:
        raise RunError(f"the run's model cannot be built: {e}") from None
    projection = restrict(projection, config.replication_factor)
    model = CompiledModel(config)
    observed = exact_shrinks(projection.observed, config)
    init = model.init_states()[0]
    search = _Search(model, observed, max_steps, max_states,
                     prefix_limits(events, observed, config.replication_factor),
                     paused_between(events, observed))
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


def exact_shrinks(observed: list[Fact], config) -> list[Fact]:
    """A ``Shrinking ISR from I to J`` line that kmc's model takes in one step is matched only
    by that step. kmc's ``LeaderShrinkIsr`` removes one follower per step, and the projection
    lets a line that removes several match part-way through them (``holds``, "leader_shrink");
    where the model also has the one-step removal, ``LeaderShrinkIsrSet`` (rule
    isr-shrink-out-of-sync-set under KIP-966's ELR: from at least min.insync.replicas + 1 members
    to fewer than min.insync.replicas), the one-follower steps would give another ELR, so the
    line must be the set's proposal itself."""
    rules = set(config.rules)
    if not {"isr-shrink-out-of-sync-set", "eligible-leader-replicas", "alter-partition"} <= rules:
        return observed
    need = config.min_insync_replicas
    out = []
    for f in observed:
        c = f.check
        if c and c[0] == "leader_shrink" and len(c[2]) - 1 >= need and len(c[3]) < need \
                and len(c[2]) - len(c[3]) >= 2:
            f = replace(f, check=tuple(c[:5]) + (None,) * (5 - len(c)) + (True,))
        out.append(f)
    return out


COUNTERS = {"max_records": "records_written", "max_crashes": "crashes",
            "max_controlled_shutdowns": "controlled_shutdowns", "max_preferred_elections": "preferred_elections",
            "max_reassignments": "reassignments", "max_session_expiries": "session_expiries"}
"""Each bound of ``events.bounds_from_events`` and the field of kmc's state that counts it."""


LOOKAHEAD = 2
"""One model step can change what several lines report (the controller fences a broker and
elects a new leader in one step: ``Fencing broker 0`` and ``leader: 0 -> 1, leaderEpoch: 0 ->
1`` are two lines, two facts): the limits at fact k are the run's as it stood at fact k + 2."""


def prefix_limits(events: list[dict], observed: list[Fact], replication_factor: int | None = None) -> list[dict]:
    """For each observed fact k, what the real run had done by the time of its event: records
    sent, kill -9s, SIGTERMs, preferred elections, reassignments, fences of a running broker (the
    harness notes every intervention before it makes it; the client notes every send before it
    sends), the highest leader epoch logged and the ISRs the controller can have committed
    (the controller logs every partition change, ISR changes included: ``logged_isrs``).
    A model state waiting for fact k that is ahead of these (its producer wrote more records,
    its controller reached a higher epoch or an ISR no line shows, ...) cannot be the real run
    at that moment: the search drops it. This completeness of the logs is part of the
    observation, and it keeps the search from spending its budget on behaviours that use a
    fault, or an ISR change nobody logged, early."""
    out = []
    for k in range(len(observed) + 1):
        ahead = k + LOOKAHEAD
        prefix = events[:observed[ahead].index] if ahead < len(observed) else events
        limit = bounds_from_events(prefix, False)
        if replication_factor is not None:
            limit["isrs"] = logged_isrs(prefix, replication_factor)
        out.append(limit)
    return out


_ISR_CHANGE = re.compile(r"\bisr: \[([^\]]*)\] -> \[([^\]]*)\]")


def logged_isrs(events: list[dict], replication_factor: int) -> frozenset:
    """The ISRs kmc's controller may hold after ``events``: the new topic's (every replica), each
    ISR a controller ``partition change`` line or a ``Leader ... ISR`` line names, and every set
    between the two sides of a logged change (kmc takes a change of several followers one
    follower per step where that is exact: docs/model.md, "An ISR shrink removes one
    follower"). KRaft's controller logs every PartitionChangeRecord
    (``ReplicationControlManager``), an AlterPartition's ISR change included."""
    seen = {tuple(range(replication_factor))}
    for e in events:
        kind = e.get("kind")
        if kind == "partition-change" and e.get("source") == f"node{CONTROLLER_NODE}":
            m = _ISR_CHANGE.search(str(e.get("diff", "")))
            if m:
                a, b = (frozenset(int(x) for x in re.findall(r"-?\d+", g)) for g in m.groups())
                lo, hi = a & b, a | b
                extra = sorted(hi - lo)
                for mask in range(1 << len(extra)):
                    seen.add(tuple(sorted(lo | {x for i, x in enumerate(extra) if mask >> i & 1})))
        elif kind == "become-leader" and "isr" in e:
            seen.add(tuple(sorted(int(x) for x in re.findall(r"-?\d+", str(e["isr"])))))
    return frozenset(seen)


def within(state, limit: dict) -> bool:
    for bound, name in COUNTERS.items():
        if getattr(state, name, 0) > limit[bound]:
            return False
    if "isrs" in limit and tuple(sorted(state.controller.isr)) not in limit["isrs"]:
        return False
    return state.controller.leader_epoch <= limit["max_leader_epoch"]


PAUSED_ACTOR = {"ProduceRecord": 0, "LeaderHandleFetch": 0, "FollowerHandleFetchResponse": 0, "FollowerTruncate": 0,
                "LeaderShrinkIsr": 0, "LeaderShrinkIsrSet": 0, "LeaderExpandIsr": 0, "BecomeLeaderOrFollower": 0,
                "BrokerApplyPartitionChange": 0, "LeaderHandleAlterPartitionResponse": 0, "FlushLog": 0,
                "CheckpointHighWatermark": 0, "BrokerShutdown": 0}
"""kmc's actions a broker takes itself, and the argument naming it: a broker under SIGSTOP takes
none of them (the controller's own actions about it, a fence included, go on)."""


def paused_between(events: list[dict], observed: list[Fact]) -> list[frozenset]:
    """For each observed fact k: the brokers paused (SIGSTOP) for the whole stretch of the run
    between fact k - 1 and fact k, in which the model steps that lead to fact k happen. The
    harness notes a SIGSTOP just before it sends it, so a broker counts as paused only from the
    first fact after the note, and a line the broker itself logged (fact k - 1 or k) exempts it."""
    out = []
    paused: set = set()
    pos = 0
    prev_source = None
    for k, f in enumerate(observed):
        resumed: set = set()
        for e in events[pos:f.index - 1]:
            b = e.get("broker")
            if e.get("source") != "harness" or b is None:
                continue
            if e.get("kind") == "SIGSTOP":
                resumed.add(int(b))     # not paused yet for this stretch
                paused.add(int(b))
            elif e.get("kind") in ("SIGCONT", "kill -9", "SIGTERM", "restart"):
                resumed.add(int(b))
                paused.discard(int(b))
        pos = f.index - 1
        now = (paused - resumed) - {_node_of(prev_source), _node_of(f.source)}
        out.append(frozenset(now))
        prev_source = f.source
        pos = f.index   # fact k's own event is behind us
    return out


def _node_of(source):
    if isinstance(source, str) and source.startswith("node") and source[4:].isdigit():
        return int(source[4:])
    return None


class _Search:
    """A search of the product of kmc's model and the run's facts: a node is ``(state, k)``, a
    model state after the first ``k`` facts were matched. Its successors are the model's steps
    (``(t, k)``: an unobserved step of the model, stuttering on the run) and, if the state
    satisfies fact ``k``, ``(state, k + 1)`` (several facts may hold of one state). The run is
    admitted when some ``(state, n)`` is reached. Nodes are expanded furthest-in-the-run first,
    then fewest steps (a best-first search), and each is expanded once, so the search explores
    at most (reachable states) x (facts + 1) nodes and, when it ends without a bound, it has
    tried every behaviour within the model's own bounds (records, crashes, epochs)."""

    def __init__(self, model, facts, max_gap: int, max_states: int, limits: list | None = None,
                 paused: list | None = None) -> None:
        self.model, self.facts, self.max_gap, self.max_states = model, facts, max_gap, max_states
        self.visited = 0
        self.bound_hit = False
        self.depth_cut = False
        self.deepest = 0
        self.deepest_starts: list = []
        # the records the client has sent by fact k (fact k included: its record is written
        # before the fact "sent" is matched): no behaviour writes a record before its send
        self.limits = limits or [None] * (len(facts) + 1)
        self.paused = paused or [frozenset()] * (len(facts) + 1)

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
                if self.paused[k] and act.name in PAUSED_ACTOR and act.args[PAUSED_ACTOR[act.name]] in self.paused[k]:
                    continue  # that broker was under SIGSTOP all along
                if self.limits[k] is not None and not within(succ, self.limits[k]):
                    continue  # ahead of what the real run had done by fact k
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
