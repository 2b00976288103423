"""Bounded model checking: is a property violated within K steps of an initial state?

The unrolling grows one step at a time (``s0 -T-> s1 -T-> ... -T-> sk``), a fresh z3 query per
depth and property asking ``not P(sk)``. Since every shorter depth
was refuted first, the first violation found is a shortest one: the same length the explicit BFS
reports. The z3 model is turned into a trace by reading off the action taken at each step and
replaying those actions through ``model.next_state``; every replayed state must equal the state
z3 decoded, which checks the encoding on every counterexample it produces. (With the operator's
leader moves, which the oracle lacks, ``model`` is ``scope.KernelReplayed`` and the replay is the
compiled kernel's.)

No violation up to K is never "holds": the verdict is INCOMPLETE, with the note "no violation up
to depth K" (exit code 3).
"""

from __future__ import annotations

import ctypes
import time

import z3

from checker.interrupt import interrupted
from checker.result import INCOMPLETE, INTERRUPTED, VIOLATED, CheckResult, CheckStats, PropertyResult
from checker.symbolic import numbers as num
from checker.symbolic.formulas import FORMULAS
from checker.symbolic.solving import solve
from checker.symbolic.state import decode, encode, eq, fresh
from checker.symbolic.transitions import Encoder, UnsupportedVariant
from checker.trace import Step, Trace
from model.errors import ConfigError, KmcError


class EncodingMismatch(KmcError):
    """A z3 counterexample did not replay through the explicit model: the encoding is wrong."""


def unroll_init(enc: Encoder, s0) -> z3.BoolRef:
    return z3.Or([eq(s0, encode(enc.d, i)) for i in enc.model.init_states()])


def decode_trace(enc: Encoder, m: z3.ModelRef, states: list, acts: list, depth: int, prop_name):
    """Replay the actions z3 chose through the explicit model (the oracle's, or the kernel's
    with the operator's leader moves: ``enc.model.next_state``), checking every state."""
    model, d = enc.model, enc.d
    decoded = [decode(d, m, s) for s in states[: depth + 1]]
    canon = model.canonical
    init = next((i for i in model.init_states() if canon(i) == canon(decoded[0])), None)
    if init is None:
        raise EncodingMismatch("the z3 counterexample does not start in an initial state")
    trace = Trace(init, [], prop_name)
    state = init
    for k in range(depth):
        act = enc.instances()[num.to_int(m.eval(acts[k], model_completion=True))]
        nxt = model.next_state(state, act)
        if nxt is None:
            raise EncodingMismatch(f"step {k + 1}: z3 took {act}, which the explicit model does not enable")
        if canon(nxt) != canon(decoded[k + 1]):
            raise EncodingMismatch(
                f"step {k + 1}: {act} leads to a different state in z3 than in the explicit model"
            )
        trace.steps.append(Step(act, nxt))
        state = nxt
    return trace


STOPPED = (KeyboardInterrupt, z3.Z3Exception, ctypes.ArgumentError)
"""What a search loop catches to stop on SIGINT or SIGTERM (``interruption`` tells)."""


def interruption(e: BaseException) -> str:
    """``INTERRUPTED`` if ``e`` (one of ``STOPPED``) is a signal's arrival, else ``e`` raised
    again. A signal between two queries can leave the context cancelled (the watcher calls
    ``Context.interrupt`` as it arrives), so building the next query fails with a
    ``Z3Exception``; and a signal that lands while ctypes converts a call's arguments reaches
    us as ``ctypes.ArgumentError`` wrapping the ``KeyboardInterrupt``: both are the
    interruption."""
    if isinstance(e, KeyboardInterrupt) or interrupted():
        return INTERRUPTED
    raise e


MAX_REJECTED = 64  # traces ``accept`` may refuse per depth and property before BMC moves on


def bmc_check(model, properties, *, max_depth=None, time_limit=None, progress=None,
              config=None, accept=None, start_depth=0, **_ignored) -> CheckResult:
    """Bounded model checking to depth ``max_depth`` (a ``CheckResult`` with engine "bmc").

    ``start_depth`` > 0: the depths below it are unrolled but not queried, because the caller
    already knows no behaviour that short violates a property (``kmc prove``'s search: BFS of the
    compiled kernel covered them, and the cross-check holds the encoding to that kernel). A
    violation found is then still a shortest one, and the notes say which depths were not asked.

    ``accept(trace)``, if given, may refuse a counterexample (``kmc prove``'s search refuses one
    the compiled kernel does not take, a defect of the encoding): z3 is then asked again at the same
    depth for a different sequence of actions, up to ``MAX_REJECTED`` times (after that the depth
    counts as not refuted, said in the notes)."""
    if max_depth is None:
        raise ConfigError("the bmc engine needs --depth K (the number of steps to unroll)")
    try:
        enc = Encoder(model)
    except UnsupportedVariant as e:
        raise ConfigError(f"the bmc engine cannot check this model: {e}") from None
    started = time.monotonic()
    d = enc.d
    stats = CheckStats()
    notes: list = []
    results: dict = {}
    open_props = []
    for p in properties:
        if getattr(p, "history", None) == "reads" and not d.reads:  # (issue 29bf)
            raise ConfigError(f"{p.name} needs the history of what consumers read "
                              f"(track_reads), which this configuration does not keep: without "
                              f"it the formula is true of every state")
        if p.name in FORMULAS:
            open_props.append(p)
        else:
            results[p.name] = PropertyResult(p.name, INCOMPLETE)
            notes.append(f"{p.name}: no symbolic encoding of this property; bmc cannot judge it")
    states = [fresh(d, "s0")]
    acts: list = []
    unrolling = [unroll_init(enc, states[0])]
    limit = None
    reached = -1
    try:
        for k in range(max_depth + 1):
            for p in (list(open_props) if k >= start_depth else []):
                if time_limit is not None:
                    left = time_limit - (time.monotonic() - started)
                    if left <= 0:
                        limit = "time-limit"
                        break
                # a fresh solver per query: z3 bit-blasts a non-incremental query and runs its SAT
                # preprocessing, which is an order of magnitude faster here than push/pop
                solver = z3.Solver()
                if time_limit is not None:
                    solver.set("timeout", max(1, int(left * 1000)))
                solver.add(unrolling)
                solver.add(z3.Not(FORMULAS[p.name](d, states[k])))
                answer = solve(solver)
                rejected = 0
                while answer == z3.sat:
                    trace = decode_trace(enc, solver.model(), states, acts, k, p.name)
                    if p.check(trace.states[-1]):
                        raise EncodingMismatch(
                            f"{p.name}: z3 found a violation the explicit property does not confirm")
                    if accept is None or accept(trace):
                        results[p.name] = PropertyResult(p.name, VIOLATED, trace)
                        open_props.remove(p)
                        break
                    rejected += 1
                    if rejected >= MAX_REJECTED:
                        notes.append(f"{p.name}: depth {k} not refuted: {rejected} counterexamples "
                                     f"refused, more may exist")
                        answer = z3.unsat
                        break
                    taken = [num.to_int(solver.model().eval(a, model_completion=True)) for a in acts[:k]]
                    solver.add(z3.Or([a != t for a, t in zip(acts[:k], taken)]))  # another one
                    answer = solve(solver)
                if answer == z3.unknown:
                    limit = "time-limit"
                if limit:
                    break
            if limit or not open_props:
                reached = k if not limit else k - 1
                break
            reached = k
            stats.depth = k
            stats.seconds = time.monotonic() - started
            if progress is not None:
                progress(stats)
            if k == max_depth:
                break
            states.append(fresh(d, f"s{k + 1}"))
            acts.append(num.action_var(f"a{k}"))
            unrolling.append(enc.step(states[k], states[k + 1], acts[k], tag=f"t{k}"))
    except STOPPED as e:  # SIGINT or SIGTERM: report how deep we got
        limit = interruption(e)
    stats.depth = max(reached, 0)
    stats.seconds = time.monotonic() - started
    for p in open_props:
        results[p.name] = PropertyResult(p.name, INCOMPLETE)
    if start_depth > 0:
        notes.append(f"depths 0 to {min(start_depth, max_depth + 1) - 1} not queried: known "
                     f"clean before BMC started")
    if open_props:
        if limit == INTERRUPTED:
            notes.append(f"no violation up to depth {max(reached, 0)} (interrupted before depth {max_depth})")
        elif limit == "time-limit":
            notes.append(f"no violation up to depth {max(reached, 0)} (time limit hit before depth {max_depth})")
        else:
            limit = "max-depth"
            notes.append(f"no violation up to depth {max_depth}")
    ordered = [results[p.name] for p in properties]
    return CheckResult("bmc", config or {}, ordered, stats, limit, notes)
