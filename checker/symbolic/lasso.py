"""Liveness in BMC: a search for the shortest fair lasso that violates ``P ~> Q``.

``checker/liveness.py`` judges a liveness property (``properties/liveness.py``) on the compiled
kernel's whole behaviour graph. This module asks z3 the same question on the unrolling of
``checker/symbolic/bmc.py``, one length ``k`` at a time: is there a path ``s0 .. sk`` that is a
*lasso*, a behaviour repeated for ever, which violates the property under its fairness?

* **the loop**: ``sk`` equals some ``sj`` (``j < k``; ``state.eq``, every field of the state),
  so the steps ``j+1 .. k`` repeat for ever; or the behaviour *stutters* in ``sk`` for ever,
  which is fair only where no weakly fair action instance is enabled (a dead end, or only faults,
  operator actions or produce enabled), as in ``checker/liveness.py``;
* **the violation**: ``P`` holds at some ``si`` (``i <= k``), and no state from ``si`` on is a
  ``Q`` state (with the loop repeating, the loop's states count as "from ``si`` on" whenever
  ``i`` falls inside it: every state from ``min(i, j)``); with ``faults_stop`` no step from there
  on is a fault or operator step (``properties.liveness.STOPPING``);
* **weak fairness** (``FAIRNESS``, per action *instance*: name and arguments): every instance of
  a weakly fair family is taken somewhere in the loop or disabled in some state of it (one it is
  continuously enabled along and never takes makes the loop unfair). An instance is *enabled* in
  a state when the guard of one of its cases (``Encoder.cases``: pairwise exclusive ``(guard,
  next state)`` pairs, the guard a formula of the state alone) holds: the encoding's guards are
  the kernel's enabledness, which ``make crosscheck`` checks action by action (a successor the
  kernel has and the encoding lacks would be a narrower encoding);
* **the bound**: a loop whose states are at the controller's leader-epoch bound is the bound's
  (the controller can elect no further there), so, as ``checker/liveness.py`` does, it does not
  count: the loop's leader epoch is below ``--max-leader-epoch``.

Each length is one query (selectors choose ``j``, stuttering, and ``i``), asked after every
shorter one was refuted, so the first lasso found is a **shortest** one: the fewest steps, stem
and loop together. (``checker/liveness.py`` measures differently: the shortest stem into a fair
strongly connected component, then a loop through *every* state of the component; a stuttering
lasso has the same length in both.)

A lasso found is replayed in the explicit model the encoding is built on (``bmc.decode_trace``,
every state compared), then in the compiled kernel (``settle.in_kernel``), and judged there
again by ``judge``, from the kernel's own successors and the Python predicates, independently of
the encoding: the loop returns to the same kernel state, ``P`` and no ``Q``, no fault, every
weakly fair instance taken or disabled. A lasso the kernel does not confirm raises
``EncodingMismatch``. No lasso up to ``K`` is **never** HOLDS: the verdict is INCOMPLETE (exit 3),
"no violating lasso up to length K", since a longer one may exist.
"""

from __future__ import annotations

import time

import z3

from checker.limits import check_limit
from checker.liveness import LivenessResult
from checker.result import INCOMPLETE, INTERRUPTED, VIOLATED
from checker.symbolic import numbers as num
from checker.symbolic.bmc import STOPPED, EncodingMismatch, decode_trace, interruption, unroll_init
from checker.symbolic.liveness_formulas import LIVENESS_FORMULAS
from checker.symbolic.solving import solve
from checker.symbolic.state import eq, fresh
from checker.symbolic.transitions import Encoder, UnsupportedVariant
from model.errors import ConfigError
from properties.liveness import ALWAYS_EVENTUALLY, EVENTUALLY, LeadsTo, stops, weakly_fair


def enabled(enc: Encoder, s, act):
    """Action instance ``act`` is enabled in ``s``: one of its cases' guards holds."""
    guards = [g for g, _ in enc.cases(s, act)]
    return z3.Or(guards) if guards else z3.BoolVal(False)


class _Unrolling:
    """``s0 -T-> s1 -T-> ... -T-> sk`` with, per state, ``P``, ``Q`` and the enabledness of every
    weakly fair instance, built once and shared by every length's query."""

    def __init__(self, enc: Encoder, prop: LeadsTo, config) -> None:
        self.enc, self.prop = enc, prop
        p, q = LIVENESS_FORMULAS[prop.name](enc.d, config)
        self.p_of = p if prop.form not in (EVENTUALLY, ALWAYS_EVENTUALLY) else None
        self.q_of = q
        instances = enc.instances()
        self.fair = [i for i, a in enumerate(instances) if weakly_fair(a.name)]
        self.stopping = [i for i, a in enumerate(instances) if stops(a.name)]
        self.states = [fresh(enc.d, "s0")]
        self.acts: list = []
        self.path = [unroll_init(enc, self.states[0])]
        self.p, self.q, self.en = [], [], []
        self._annotate(0)

    def _annotate(self, m: int) -> None:
        s = self.states[m]
        if self.p_of is not None:
            self.p.append(self.p_of(s))
        elif self.prop.form == EVENTUALLY:  # <>Q: P is the initial state
            self.p.append(z3.BoolVal(m == 0))
        else:  # []<>Q: P is every state
            self.p.append(z3.BoolVal(True))
        self.q.append(self.q_of(s))
        insts = self.enc.instances()
        self.en.append({i: enabled(self.enc, s, insts[i]) for i in self.fair})

    def extend(self) -> None:
        k = len(self.states)
        self.states.append(fresh(self.enc.d, f"s{k}"))
        self.acts.append(num.action_var(f"a{k - 1}"))
        self.path.append(self.enc.step(self.states[k - 1], self.states[k], self.acts[k - 1],
                                       tag=f"t{k - 1}"))
        self._annotate(k)

    def lasso(self, k: int, *, fair: bool, top: int | None):
        """The constraints of a violating lasso of length ``k`` and its selectors: ``stut``
        (stuttering in ``sk``), ``loop[j]`` (``sk`` is ``sj``), ``at[i]`` (``P`` judged at
        ``si``)."""
        stut = z3.Bool(f"k{k}_stutter")
        loop = [z3.Bool(f"k{k}_loop{j}") for j in range(k)]
        at = [z3.Bool(f"k{k}_p{i}") for i in range(k + 1)]
        cons = [z3.PbEq([(x, 1) for x in [stut] + loop], 1), z3.Or(at)]
        cons += [z3.Implies(at[i], z3.And(self.p[i], z3.Not(self.q[i]))) for i in range(k + 1)]
        pending = z3.BoolVal(False)  # "from min(i, j) on", state by state
        in_loop = z3.BoolVal(False)
        in_loop_at = []
        for m in range(k + 1):
            pending = z3.Or(pending, at[m], loop[m]) if m < k else z3.Or(pending, at[m])
            cons.append(z3.Implies(pending, z3.Not(self.q[m])))
            if m < k:
                in_loop = z3.Or(in_loop, loop[m])
                in_loop_at.append(in_loop)
                if self.prop.faults_stop and self.stopping:
                    cons.append(z3.Implies(pending, z3.And([self.acts[m] != i for i in self.stopping])))
        cons += [z3.Implies(loop[j], eq(self.states[j], self.states[k])) for j in range(k)]
        if fair:
            for a in self.fair:
                kept = [z3.And(in_loop_at[m], z3.Or(self.acts[m] == a, z3.Not(self.en[m][a])))
                        for m in range(k)]
                cons.append(z3.Or([z3.And(stut, z3.Not(self.en[k][a]))] + kept))
            if top is not None:  # a loop at the leader-epoch bound is the bound's
                cons.append(self.states[k].c_epoch < top)
        return cons, stut, loop, at


def lasso_check(model, prop: LeadsTo, *, max_depth: int, fair: bool = True,
                time_limit: float | None = None, progress=None, kernel_config=None,
                judged: bool = True) -> LivenessResult:
    """The shortest violating lasso of ``prop`` of at most ``max_depth`` steps in ``model``'s
    encoding (``scope.symbolic_model``), as a ``LivenessResult`` (``states``: the length
    reached). ``judged=False`` skips the kernel's judgement (the tests' mutants use it)."""
    if max_depth is None:
        raise ConfigError("the bmc engine needs --depth K (the longest lasso to look for)")
    check_limit("depth", max_depth, whole=True)  # (review s14: --depth -1 searched nothing, exit 3)
    check_limit("time-limit", time_limit)
    if prop.name not in LIVENESS_FORMULAS:
        raise ConfigError(f"{prop.name} has no z3 formulas (checker/symbolic/liveness_formulas.py)")
    try:
        enc = Encoder(model)
    except UnsupportedVariant as e:
        raise ConfigError(f"the bmc engine cannot check this model: {e}") from None
    config = kernel_config or model.config
    started = time.monotonic()
    result = LivenessResult(prop.name, prop.description, INCOMPLETE, fair, prop.faults_stop,
                            prop.form, engine="bmc")
    top = config.bounds.max_leader_epoch if fair else None
    u = _Unrolling(enc, prop, config)
    limit, reached = None, -1
    try:
        for k in range(max_depth + 1):
            if k > 0:
                u.extend()
            solver = z3.Solver()
            if time_limit is not None:
                left = time_limit - (time.monotonic() - started)
                if left <= 0:
                    limit = "time"
                    break
                solver.set("timeout", max(1, int(left * 1000)))
            cons, stut, loop, at = u.lasso(k, fair=fair, top=top)
            solver.add(u.path)
            solver.add(cons)
            answer = solve(solver)
            if answer == z3.unknown:
                limit = "time"
                break
            if answer == z3.sat:
                m = solver.model()
                trace = decode_trace(enc, m, u.states, u.acts, k, prop.name)
                j = next((j for j in range(k) if z3.is_true(m.eval(loop[j], model_completion=True))), k)
                stuttering = j == k
                if judged:
                    trace = _confirmed(config, prop, trace, j, fair)
                result.trace, result.loop_start, result.stuttering = trace, j, stuttering
                result.verdict = VIOLATED
                reached = k
                break
            reached = k
            if progress is not None:
                progress(k, time.monotonic() - started)
    except STOPPED as e:  # SIGINT or SIGTERM: report how far it got
        limit = interruption(e)
    result.states = max(reached, 0)
    result.seconds = time.monotonic() - started
    if result.verdict != VIOLATED:
        result.limit = limit or "max-depth"
        why = {"time": f"time limit hit before length {max_depth}",
               INTERRUPTED: f"interrupted before length {max_depth}"}.get(limit, "")
        searched = (f"no violating lasso of up to {reached} steps" if reached >= 0
                    else "no length searched to the end")
        result.notes.append(searched + (f" ({why})" if why else "")
                            + ": not a proof, a longer lasso may exist (--depth)")
        if fair and top is not None:
            result.notes.append(f"a loop at the leader-epoch bound ({top}) does not count, as in "
                                f"kmc check: raise --max-leader-epoch")
    return result


def _confirmed(config, prop: LeadsTo, trace, loop_start: int, fair: bool):
    """``trace`` replayed in the compiled kernel and judged there (``judge``); raises
    ``EncodingMismatch`` if the kernel does not take it or does not confirm the lasso."""
    from checker.symbolic.settle import in_kernel

    replayed, why = in_kernel(config, trace)
    if replayed is None:
        raise EncodingMismatch(why)
    problem = judge(config, prop, replayed, loop_start, fair)
    if problem:
        raise EncodingMismatch(f"the kernel does not confirm z3's lasso: {problem}")
    return replayed


def judge(config, prop: LeadsTo, trace, loop_start: int, fair: bool = True) -> str:
    """Why ``trace`` (a kernel trace; the steps ``loop_start+1 ..`` repeat for ever, or, with
    ``loop_start == len(trace)``, its last state stutters for ever) is not a fair lasso violating
    ``prop`` in ``config``'s compiled kernel, or "" if it is one. Reads the kernel's successors
    and the Python predicates only, not the encoding."""
    from model import make_model
    from model.kernel.codec import encode as row_of

    kernel = make_model(config)
    layout = kernel.spec.layout
    states, acts = trace.states, [s.action for s in trace.steps]
    k = len(acts)
    if loop_start < k and row_of(states[k], layout).tobytes() != row_of(states[loop_start], layout).tobytes():
        return f"state {k} is not state {loop_start}: the loop does not close"
    p_of, q_of = prop.predicates(config)
    if prop.form == EVENTUALLY:
        candidates = [0]
    else:
        candidates = [i for i in range(k + 1) if p_of(states[i]) and not q_of(states[i])]
    ok_from = None
    for i in candidates:  # the earliest P state from which the rest is pending
        start = min(i, loop_start)
        if any(q_of(states[m]) for m in range(start, k + 1)):
            continue
        if prop.faults_stop and any(stops(a.name) for a in acts[start:]):
            continue
        ok_from = i
        break
    if ok_from is None:
        return "no P state from which every later state is a not-Q state (with no fault after it)"
    if not fair:
        return ""
    if config.bounds.max_leader_epoch <= states[k].controller.leader_epoch:
        return "the loop is at the leader-epoch bound"
    if loop_start == k:
        required = [a for a, _ in kernel.successors(states[k]) if weakly_fair(a.name)]
        return f"it stutters where {required[0]} is enabled (weakly fair)" if required else ""
    loop_states = states[loop_start:k]
    always = None
    for s in loop_states:
        here = {a for a, _ in kernel.successors(s) if weakly_fair(a.name)}
        always = here if always is None else always & here
    missed = sorted(always - set(acts[loop_start:]), key=str)
    return f"{missed[0]} is enabled in every state of the loop and never taken" if missed else ""
