"""k-induction: prove a property for every reachable state, not just those within K steps.

With ``I = P and Q1 and ... and Qm`` (the property and the strengthening invariants):

* base case: no ``I`` conjunct is violated within ``k - 1`` steps of an initial state (BMC);
* inductive step: no path ``s0 -> ... -> sk`` of well-formed states with ``I`` in ``s0..s(k-1)``
  ends in a state violating ``I``.

Both unsatisfiable: PROVED. A satisfiable base case is a real counterexample (a trace from an
initial state): FAILED. A satisfiable step gives a counterexample to induction (CTI): a state
satisfying every conjunct and a step to one that does not. It may be unreachable (then a
stronger invariant rules it out) or real, so the proof then settles the question by searching
the model itself (``settle.py``, ``kmc prove --search``): by default BFS of the compiled kernel
(``kmc check``'s engine) within the time and memory left, then BMC up to ``bmc_depth`` steps
when BFS stopped shallower (BMC then asks only the depths past BFS's). A violation found is VIOLATED, with a shortest trace; BFS
exhausting the reachable states without one is HOLDS (the property holds within the bounds by
exhaustive search; the CTI is unreachable and the library lacks an invariant that says so); a
search stopped by its limits leaves the proof INCONCLUSIVE. z3 answering "unknown" (a time
limit) is UNKNOWN, and SIGINT/SIGTERM stop the query under way: INTERRUPTED. The command's exit
codes follow (``outcome.py``): PROVED and HOLDS 0, FAILED and VIOLATED 1, the other three 3
(nothing was decided).

Every trace, of the base case or of BMC, is found in the encoding and replayed in the compiled
kernel of the configuration asked for (``model.make_model``). The encoding has Kafka's ordered
elections and in-order LeaderAndIsr as the kernel does (``crosscheck.py`` holds it to the kernel
in both directions), so the kernel takes its traces; should it not (a defect of the encoding),
the trace is refused, not reported, and z3 asked for another of the same length (up to
``bmc.MAX_REJECTED``). BFS's traces are the kernel's own.

Scope, stated honestly: the encoding is the bounded one (log slots = max.records, one flag per
leader epoch up to max.leader.epoch), so PROVED covers every reachable state *of the configured
bounds*, however long the behaviour; it is not a proof for any number of records. With
``unbounded=("crashes",)`` (``kmc prove --unbounded crashes``, issue 29y) the crash bound is
dropped from the encoding and PROVED covers every number of crashes (``unbounded.py``).
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass, replace

import z3

from checker.compiled.workers import available_cores
from checker.interrupt import interrupted
from checker.limits import check_limit
from checker.symbolic import numbers as num
from checker.symbolic.by_case import AUTO_STEP, STEPS
from checker.symbolic.bmc import MAX_REJECTED, decode_trace, unroll_init
from checker.symbolic.conjunction import conjunction
from checker.symbolic.inductive_step import AUTO, inductive_step, seed_bounds
from checker.symbolic.outcome import (  # noqa: F401 (re-exported: callers take the statuses from here)
    FAILED, HOLDS, INCONCLUSIVE, INTERRUPTED, PROVED, UNKNOWN, VIOLATED, ProofResult,
)
from checker.symbolic.scope import require_encoded, symbolic_model
from checker.symbolic.settle import SEARCH, in_kernel, require_search, settle
from checker.symbolic.solving import solve
from checker.symbolic.state import fresh, well_formed
from checker.symbolic.strengthen import all_names, check_of, formula_of
from checker.symbolic.strengthen.library import takes_another_form
from checker.symbolic.transitions import Encoder
from checker.symbolic.unbounded import (
    counters_read, past_the_bounds, replay_config, require_unbounded,
)
from model.errors import ConfigError
from properties import PROPERTIES, vacuous_with_acks
from properties.liveness import LIVENESS

MAX_K = 64  # the unrolling grows with k; far beyond this z3 does not answer in any useful time
MAX_WORKERS = 64  # threads asking the step's cases at once (by_case.py)
MAX_BMC_DEPTH = 200  # likewise for the search after a CTI
BMC_DEPTH = 8  # the default BMC after a CTI: each depth costs about twice the one before;
# Kafka 2.1 RF=2 refutes depth 8 in about 2 minutes on a loaded 2-core machine (docs/symbolic.md)


def prove(config, prop_name: str, *, strengthen=(), k: int = 1, time_limit: float | None = None,
          progress=None, bmc_depth: int = BMC_DEPTH, search: str = SEARCH,
          memory_limit: int | None = None, max_states: int | None = None, unbounded=(),
          step: str = AUTO_STEP, workers: int | None = None):
    """k-induction on ``prop_name`` with the ``strengthen`` invariants; a ``ProofResult``.
    ``progress(line)`` is told which query z3 is working on (the step can take minutes).
    After a CTI, ``search`` (``settle.SEARCHES``) settles it: "both" BFS of the compiled kernel
    (within the time left, ``memory_limit`` and ``max_states``), then BMC up to ``bmc_depth``
    steps (0: no BMC) when BFS stopped shallower; "bfs" or "bmc" one of them; "none"
    neither. ``unbounded`` (``unbounded.UNBOUNDED``, issue 29y): bounds the proof drops, so a
    PROVED holds past them (the search after a CTI can then only find a real counterexample).
    ``step`` (``by_case.STEPS``): the inductive step's last transition asked as one query, one
    per transition case, or (auto) whole first and by case if that takes long; ``workers``: the
    cases asked at once (threads; default: the cores available)."""
    request = check_request(config, prop_name, strengthen=strengthen, k=k, time_limit=time_limit,
                            bmc_depth=bmc_depth, search=search, memory_limit=memory_limit,
                            max_states=max_states, unbounded=unbounded, step=step, workers=workers)
    config, names, candidates, unbounded, workers = (
        request.config, request.names, request.candidates, request.unbounded, request.workers)
    started = time.monotonic()
    phase = ["base"]  # where we are, for an interruption's report
    try:
        seed = {}
        if candidates is not None:  # --strengthen auto: first choose at the smallest bounds
            names, candidates, seed = _seeded(config, prop_name, names, candidates, k, time_limit,
                                              progress, started, phase, unbounded, step, workers)
        result = _prove(config, prop_name, names, k, time_limit, progress, started, phase,
                        unbounded, candidates, step, workers)
        if seed:
            result.selection = {**result.selection, "seed": seed,
                                "candidates": result.selection.get("candidates", 0) + seed["taken"]}
        if result.status == INCONCLUSIVE:
            phase[0] = "search"
            if progress and len(names) == 1 and search != "none":
                # a bare property is rarely inductive: say so before a search that may take long
                progress("the inductive step fails with no strengthening invariant (most proofs "
                         "of docs/proofs.md use --strengthen all, the library); "
                         "searching for a real counterexample now")
            result = settle(config, result, search=search, bmc_depth=bmc_depth,
                            time_limit=time_limit, memory_limit=memory_limit,
                            max_states=max_states, progress=progress, started=started)
            result = past_the_bounds(result, unbounded, config)
        result.unbounded = tuple(unbounded)
        if vacuous_with_acks(prop_name, config.acks):
            result.vacuous = True  # never acknowledged: it cannot fail (as kmc check notes; review s12)
        return result
    except KeyboardInterrupt:  # SIGINT or SIGTERM (checker.interrupt)
        return ProofResult(prop_name, names[1:], k, INTERRUPTED, time.monotonic() - started, phase[0])
    except (z3.Z3Exception, ctypes.ArgumentError):  # the interruption, seen through z3 (bmc.py)
        if not interrupted():
            raise
        return ProofResult(prop_name, names[1:], k, INTERRUPTED, time.monotonic() - started, phase[0])



@dataclass(frozen=True)
class ProofRequest:
    """A ``kmc prove`` request after its checks (``check_request``): the configuration (with
    what consumers read kept when a property judges it), the conjuncts (the property first),
    the library invariants ``--strengthen auto`` may take in (None without it), the bounds
    dropped and the step's workers."""

    config: object
    names: list
    candidates: list | None
    unbounded: tuple
    workers: int


def check_request(config, prop_name: str, *, strengthen=(), k: int = 1,
                  time_limit: float | None = None, bmc_depth: int = BMC_DEPTH,
                  search: str = SEARCH, memory_limit: int | None = None,
                  max_states: int | None = None, unbounded=(), step: str = AUTO_STEP,
                  workers: int | None = None) -> ProofRequest:
    """Every check ``prove`` makes before z3 starts, and nothing else (so the proof ledger,
    ``commands/proofs.py``, can check a row without proving it): a ``ConfigError`` (one line, exit
    2) for a configuration the encoding lacks, an unknown or unprovable property or invariant,
    or a limit out of range."""
    if (any(p.history == "reads" for n in [prop_name] + list(strengthen) if n in PROPERTIES
            for p in [PROPERTIES[n]]) and not config.track_reads):
        config = replace(config, track_reads=True)  # no-read-loss: keep what consumers read
        # (as ``checker.api.check`` does; issue 29bf)
    require_encoded(config)
    unbounded = require_unbounded(config, unbounded)
    if "all" in strengthen and AUTO in strengthen:
        raise ConfigError("--strengthen all and --strengthen auto exclude each other: all uses the "
                          "whole library, auto chooses from it by the CTIs")
    auto = AUTO in strengthen
    strengthen = [s for s in strengthen if s != AUTO]
    if "all" in strengthen:  # the library and the built-in properties (strengthen.all_names)
        strengthen = [s for s in strengthen if s != "all"] + all_names(config)
    names = [prop_name] + list(dict.fromkeys(s for s in strengthen if s != prop_name))
    # --strengthen auto (inductive_step.py): the library's other invariants, taken in as the
    # CTIs need them
    candidates = [n for n in all_names(config) if n not in names] if auto else None
    for n in names:
        if formula_of(n) is None and n in LIVENESS:  # (review s14)
            raise ConfigError(f"{n!r} is a liveness property: kmc prove proves invariants; kmc check "
                              f"-p {n} checks it on the behaviour graph, --engine bmc --depth K "
                              "searches for a lasso")
        if formula_of(n) is None and n in PROPERTIES:  # a property kmc check has, z3 not
            raise ConfigError(f"kmc prove has no z3 formula for the property {n!r} (docs/symbolic.md, "
                              "'Properties asked by name'); kmc check checks it")
        if formula_of(n) is None:
            raise ConfigError(f"unknown property or strengthening invariant {n!r}; `kmc list` shows "
                              "them all (or use --strengthen all, or auto)")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ConfigError(f"--k must be a whole number from 1 to {MAX_K}, got {k!r}")
    if isinstance(bmc_depth, bool) or not isinstance(bmc_depth, int) or not 0 <= bmc_depth <= MAX_BMC_DEPTH:
        raise ConfigError(f"--bmc-depth must be a whole number from 0 to {MAX_BMC_DEPTH}, got {bmc_depth!r}")
    require_search(search)
    if step not in STEPS:
        raise ConfigError(f"--step must be one of {', '.join(STEPS)}, got {step!r}")
    if workers is None:
        workers = available_cores()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise ConfigError(f"--workers must be a whole number from 1 to {MAX_WORKERS}, got {workers!r}")
    check_limit("time-limit", time_limit)
    check_limit("memory-limit", memory_limit, whole=True)
    check_limit("max-states", max_states, whole=True)
    if search == "bmc" and bmc_depth == 0:
        raise ConfigError("--search bmc with --bmc-depth 0 would search nothing; give a depth, "
                          "or --search none")
    if search in ("bmc", "none") and (memory_limit is not None or max_states is not None):
        raise ConfigError(f"--memory-limit and --max-states bound the BFS search, which --search "
                          f"{search} does not run")
    return ProofRequest(config, names, candidates, tuple(unbounded), workers)


def _seeded(config, prop_name, names, candidates, k, time_limit, progress, started, phase,
            unbounded, step=AUTO_STEP, workers=1):
    """``--strengthen auto`` at large bounds: the rounds run first at the smallest bounds
    (``inductive_step.seed_bounds``), where a round takes seconds, not minutes, and what they
    chose is taken in before the first round at the bounds asked for. The names, the candidates
    left, and what the seeding did (empty when the bounds are the smallest already)."""
    small = seed_bounds(config)
    if small is None:
        return names, candidates, {}
    what = ", ".join(f"{n.replace('_', '-')}={v}" for n, v in small.bounds.as_dict().items()
                     if v != getattr(config.bounds, n))
    (progress or (lambda line: None))(f"--strengthen auto: choosing first at {what}")
    began = time.monotonic()
    result = _prove(small, prop_name, names, k, time_limit, progress, started, phase, unbounded,
                    candidates, step, workers)
    taken = [n for n in candidates if n in result.strengthen]
    seed = {"bounds": what, "taken": len(taken), "names": taken, "status": result.status,
            "rounds": len(result.selection.get("rounds", [])),
            "seconds": round(time.monotonic() - began, 3)}
    return names + taken, [n for n in candidates if n not in taken], seed


def _prove(config, prop_name, names, k, time_limit, progress, started, phase, unbounded=(),
           candidates=None, step=AUTO_STEP, workers=1):
    tell = progress or (lambda line: None)
    beat = None if progress is None else (
        lambda seconds: progress(f"  z3 still working on it ({seconds:.0f} s so far)"))
    # --unbounded crashes (issue 29y): the base case's traces may crash more often than
    # --max-crashes, so they are replayed (in the oracle and the kernel) with the bound raised to
    # their length; the encoding itself reads no crash bound then (unbounded.py)
    replayed_in = replay_config(config, unbounded, k)
    model = symbolic_model(replayed_in)
    enc = Encoder(model, unbounded=frozenset(unbounded))
    d = enc.d
    if takes_another_form(prop_name, d):
        faults = [what for what, on in (("power loss", d.power_loss), ("disk loss", d.disk_loss),
                                        ("delayed fetches", d.delayed),
                                        ("controlled shutdowns", d.shutdowns),
                                        ("session expiries", d.expiries)) if on]
        raise ConfigError(f"{prop_name} takes a weaker form under this configuration "
                          f"({' and '.join(faults) or 'its faults'}; docs/symbolic.md), so kmc prove "
                          f"would not prove it as written: prove a built-in property, or use "
                          f"{prop_name} with --strengthen")
    read = counters_read(enc, formula_of(prop_name)) if unbounded else []
    if read:  # (unbounded.py: the abstraction keeps the counters only up to num.TOP)
        raise ConfigError(f"--unbounded crashes proves properties that do not read the crash "
                          f"counters; {prop_name} reads {' and '.join(read)}")

    def left():
        return float("inf") if time_limit is None else time_limit - (time.monotonic() - started)

    def solver(cap=None):
        """A solver whose timeout is what --time-limit leaves, or ``cap`` seconds if sooner."""
        s = z3.Solver()
        limit = min(left(), float("inf") if cap is None else cap)
        if limit != float("inf"):
            s.set("timeout", max(1, int(limit * 1000)))
        return s
    solver.left = left

    # Each conjunct's formula is built once (the costly part) and renamed for every state of the
    # base case and the step (conjunction.py). The base case checks every conjunct that may be
    # used: with --strengthen auto the library's candidates too (as --strengthen all would), so
    # whichever the step then chooses holds there.
    formulas = {n: conjunction(d, [n]) for n in names + list(candidates or ())}

    def conj(s):
        return z3.And([formula(s) for formula in formulas.values()])
    # a property whose formula is true of every state here (it speaks of a fault these bounds
    # leave out) is PROVED, but says nothing: the result says so (review 2026-11-28, finding 5)
    vacuous = z3.is_true(z3.simplify(formula_of(prop_name)(d, fresh(d, "v"))))

    # base case
    states, acts, unrolling = [fresh(d, "b0")], [], []
    unrolling.append(unroll_init(enc, states[0]))
    for j in range(k):
        if j > 0:
            states.append(fresh(d, f"b{j}"))
            acts.append(num.action_var(f"ba{j - 1}"))
            unrolling.append(enc.step(states[j - 1], states[j], acts[j - 1], tag=f"bt{j}"))
        sv = solver()
        sv.add(unrolling)
        sv.add(z3.Not(z3.And(conj(states[j]), well_formed(d, states[j]))))
        question = (f"can {j} step(s) from an initial state violate a conjunct?" if j
                    else "does every initial state satisfy every conjunct?")
        tell(f"base case: {question} ({time.monotonic() - started:.1f} s)")
        answer = solve(sv, beat)
        rejected = 0
        while answer == z3.sat:
            trace = decode_trace(enc, sv.model(), states, acts, j, prop_name)
            kernel_trace, _ = in_kernel(replayed_in, trace)
            if kernel_trace is not None:
                last = kernel_trace.states[-1]
                failing = [n for n in formulas if not check_of(n, replayed_in)(last)]
                return ProofResult(prop_name, names[1:], k, FAILED, time.monotonic() - started,
                                   "base", failing=failing, trace=kernel_trace, settled_by="base case")
            # only an encoding wider than the kernel has it (a defect): ask for another; after
            # MAX_REJECTED such traces nothing is decided (with k >= 2 a shallower violation
            # need not make the step fail, so going on could skip a real one: review 2026-11-28)
            rejected += 1
            if rejected >= MAX_REJECTED:
                return ProofResult(prop_name, names[1:], k, UNKNOWN, time.monotonic() - started,
                                   "base", search=f"the base case found {rejected} traces the "
                                   f"compiled kernel refuses and none it takes: the encoding is "
                                   f"wider than the kernel here (a defect of kmc)")
            taken = [num.to_int(sv.model().eval(a, model_completion=True)) for a in acts[:j]]
            sv.add(z3.Or([a != t for a, t in zip(acts[:j], taken)]))
            answer = solve(sv, beat)
        if answer == z3.unknown:
            return ProofResult(prop_name, names[1:], k, UNKNOWN, time.monotonic() - started, "base")
    # inductive step
    phase[0] = "step"
    return inductive_step(enc, d, prop_name, names, candidates or [], formulas, k, solver, tell,
                          beat, started, vacuous, step, workers)
