"""k-induction: prove a property for every reachable state, not just those within K steps.

With ``I = P and Q1 and ... and Qm`` (the property and the strengthening invariants):

* base case: no ``I`` conjunct is violated within ``k - 1`` steps of an initial state (BMC);
* inductive step: no path ``s0 -> ... -> sk`` of well-formed states with ``I`` in ``s0..s(k-1)``
  ends in a state violating ``I``.

Both unsatisfiable: PROVED. A satisfiable base case is a real counterexample (a trace from an
initial state): FAILED. A satisfiable step gives a counterexample to induction (CTI): a state
satisfying every conjunct and a step to one that does not. It may be unreachable (then a
stronger invariant rules it out) or real (then BMC or BFS finds a trace), so the proof is
INCONCLUSIVE, not failed. z3 answering "unknown" (a time limit) is UNKNOWN, and SIGINT/SIGTERM
stop the query under way: INTERRUPTED. The command's exit codes follow: PROVED 0, FAILED 1, the
other three 3 (nothing was decided).

Scope, stated honestly: the encoding is the bounded one (log slots = max.records, one flag per
leader epoch up to max.leader.epoch), so PROVED covers every reachable state *of the configured
bounds*, however long the behaviour; it is not a proof for any number of records.
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass, field

import z3

from checker.interrupt import interrupted
from checker.limits import check_limit
from checker.symbolic import numbers as num
from checker.symbolic.bmc import decode_trace, unroll_init
from checker.symbolic.solving import solve
from checker.symbolic.state import decode, fresh, well_formed
from checker.symbolic.strengthen import all_names, check_of, formula_of
from checker.symbolic.transitions import Encoder
from model.errors import ConfigError
from checker.reference import make_reference_model as make_model

MAX_K = 64  # the unrolling grows with k; far beyond this z3 does not answer in any useful time

PROVED, FAILED, INCONCLUSIVE, UNKNOWN, INTERRUPTED = (
    "PROVED", "FAILED", "INCONCLUSIVE", "UNKNOWN", "INTERRUPTED")


@dataclass
class ProofResult:
    property_name: str
    strengthen: list
    k: int
    status: str
    seconds: float
    phase: str = ""  # "base" or "step": where it failed, gave up or was interrupted
    pre: object = None  # CTI: the state before the step
    action: object = None
    post: object = None
    failing: list = field(default_factory=list)  # conjuncts violated in the post state
    trace: object = None  # a real counterexample (base case)


def prove(config, prop_name: str, *, strengthen=(), k: int = 1, time_limit: float | None = None,
          progress=None):
    """k-induction on ``prop_name`` with the ``strengthen`` invariants; a ``ProofResult``.
    ``progress(line)`` is told which query z3 is working on (the step can take minutes)."""
    if "all" in strengthen:  # the library and the built-in properties (strengthen.all_names)
        strengthen = [s for s in strengthen if s != "all"] + all_names()
    names = [prop_name] + list(dict.fromkeys(s for s in strengthen if s != prop_name))
    for n in names:
        if formula_of(n) is None:
            raise ConfigError(f"unknown property or strengthening invariant {n!r}; `kmc list` shows "
                              "them all (or use --strengthen all)")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ConfigError(f"--k must be a whole number from 1 to {MAX_K}, got {k!r}")
    check_limit("time-limit", time_limit)
    started = time.monotonic()
    phase = ["base"]  # where we are, for an interruption's report
    try:
        return _prove(config, prop_name, names, k, time_limit, progress, started, phase)
    except KeyboardInterrupt:  # SIGINT or SIGTERM (checker.interrupt)
        return ProofResult(prop_name, names[1:], k, INTERRUPTED, time.monotonic() - started, phase[0])
    except (z3.Z3Exception, ctypes.ArgumentError):  # the interruption, seen through z3 (bmc.py)
        if not interrupted():
            raise
        return ProofResult(prop_name, names[1:], k, INTERRUPTED, time.monotonic() - started, phase[0])


def _prove(config, prop_name, names, k, time_limit, progress, started, phase):
    tell = progress or (lambda line: None)
    beat = None if progress is None else (
        lambda seconds: progress(f"  z3 still working on it ({seconds:.0f} s so far)"))
    model = make_model(config)
    enc = Encoder(model)
    d = enc.d

    def solver():
        s = z3.Solver()
        if time_limit is not None:
            s.set("timeout", max(1, int((time_limit - (time.monotonic() - started)) * 1000)))
        return s

    def conj(s):
        return z3.And([formula_of(n)(d, s) for n in names])

    # base case
    states, acts, unrolling = [fresh(d, "b0")], [], []
    unrolling.append(unroll_init(enc, states[0]))
    for j in range(k):
        if j > 0:
            states.append(fresh(d, f"b{j}"))
            acts.append(num.var(f"ba{j - 1}"))
            unrolling.append(enc.step(states[j - 1], states[j], acts[j - 1], tag=f"bt{j}"))
        sv = solver()
        sv.add(unrolling)
        sv.add(z3.Not(z3.And(conj(states[j]), well_formed(d, states[j]))))
        question = (f"can {j} step(s) from an initial state violate a conjunct?" if j
                    else "does every initial state satisfy every conjunct?")
        tell(f"base case: {question} ({time.monotonic() - started:.1f} s)")
        answer = solve(sv, beat)
        if answer == z3.unknown:
            return ProofResult(prop_name, names[1:], k, UNKNOWN, time.monotonic() - started, "base")
        if answer == z3.sat:
            trace = decode_trace(enc, sv.model(), states, acts, j, prop_name)
            last = trace.states[-1]
            failing = [n for n in names if not check_of(n, config)(last)]
            return ProofResult(prop_name, names[1:], k, FAILED, time.monotonic() - started, "base",
                               failing=failing, trace=trace)
    # inductive step
    phase[0] = "step"
    path = [fresh(d, f"i{j}") for j in range(k + 1)]
    step_acts = [num.var(f"ia{j}") for j in range(k)]
    sv = solver()
    # Every state of the path is assumed well-formed (each field within the range the explicit
    # model gives it): a fact about the model, not the property, checked on every reachable state
    # of the tests' configurations (tests/symbolic/test_induction.py).
    for j in range(k + 1):
        sv.add(well_formed(d, path[j]))
    for j in range(k):
        sv.add(conj(path[j]))
        sv.add(enc.step(path[j], path[j + 1], step_acts[j], tag=f"it{j}"))
    sv.add(z3.Not(conj(path[k])))
    tell(f"inductive step: can {k} step(s) from states satisfying every conjunct leave them? "
         f"({time.monotonic() - started:.1f} s; the long part)")
    answer = solve(sv, beat)
    seconds = time.monotonic() - started
    if answer == z3.unsat:
        return ProofResult(prop_name, names[1:], k, PROVED, seconds)
    if answer == z3.unknown:
        return ProofResult(prop_name, names[1:], k, UNKNOWN, seconds, "step")
    m = sv.model()
    pre, post = decode(d, m, path[k - 1]), decode(d, m, path[k])
    act = enc.instances()[num.to_int(m.eval(step_acts[k - 1], model_completion=True))]
    failing = []
    for n in names:
        if z3.is_false(m.eval(formula_of(n)(d, path[k]), model_completion=True)):
            failing.append(n)
    return ProofResult(prop_name, names[1:], k, INCONCLUSIVE, seconds, "step", pre=pre, action=act,
                       post=post, failing=failing)
