"""Shared helpers for the symbolic-engine tests: the explicit reachable states of a small config."""

from __future__ import annotations

import random

from checker.reference import make_reference_model


def reachable(model) -> list:
    """Every reachable state of ``model`` (small configurations only), in BFS order."""
    seen = {}
    frontier = model.init_states()
    for s in frontier:
        seen[model.canonical(s)] = s
    while frontier:
        nxt = []
        for s in frontier:
            for _, t in model.successors(s):
                key = model.canonical(t)
                if key not in seen:
                    seen[key] = t
                    nxt.append(t)
        frontier = nxt
    return list(seen.values())


def sample_states(config, k: int, seed: int = 7):
    model = make_reference_model(config)
    states = reachable(model)
    rnd = random.Random(seed)
    # always include the initial state, then a random sample of the rest
    return model, [states[0]] + rnd.sample(states[1:], min(k, len(states) - 1))


def formula_evaluator(d, formulas: dict):
    """A function ``state -> {name: bool}`` giving each z3 formula's value on an explicit state.

    The formulas are built once over a symbolic state; each state then becomes a z3 model of
    that state (one small solver call), in which every formula is evaluated: about 35 times faster
    than building the formulas over each state's constants."""
    import z3

    from checker.symbolic.state import encode, fresh, leaves

    symbolic = fresh(d, "eval")
    built = {name: f(d, symbolic) for name, f in formulas.items()}
    names = leaves(symbolic)

    def evaluate(state) -> dict:
        solver = z3.Solver()
        solver.add([a == b for a, b in zip(names, leaves(encode(d, state)))])
        assert solver.check() == z3.sat
        model = solver.model()
        return {name: z3.is_true(model.eval(f, model_completion=True)) for name, f in built.items()}

    return evaluate


def assert_formulas_agree(config, asked: dict, min_states: int) -> None:
    """Each formula of ``asked`` (name -> mutant formulas) equals its Python predicate on every
    reachable state of ``config``, is decided both ways there, and each mutant disagrees with
    the predicate somewhere (issues 29ai and 29as)."""
    from checker.symbolic.formulas import FORMULAS
    from checker.symbolic.state import Dims
    from model import make_model
    from properties import get_properties

    states = reachable(make_model(config))
    assert len(states) > min_states
    d = Dims.of(config)
    mutants = {f"{n} mutant {i}": m for n, ms in asked.items() for i, m in enumerate(ms)}
    evaluate = formula_evaluator(d, {**{n: FORMULAS[n] for n in asked}, **mutants})
    props = {p.name: p for p in get_properties(list(asked))}
    false = {n: 0 for n in asked}
    caught = {m: 0 for m in mutants}
    for s in states:
        values = evaluate(s)
        for n, p in props.items():
            holds = p.check(s)
            assert values[n] == holds, (n, s)
            false[n] += not holds
        for m in mutants:
            caught[m] += values[m] != props[m.split(" mutant ")[0]].check(s)
    for n in asked:  # decided both ways
        assert 0 < false[n] < len(states), (n, false[n], len(states))
    assert all(caught.values()), caught  # every mutant disagrees somewhere


def lacking_fault_bound(monkeypatch) -> str:
    """A fault bound ``scope.require_encoded`` refuses, as its flag: one kmc has and the encoding
    lacks (``scope.OPERATOR_BOUNDS`` + ``scope.FAULT_BOUNDS`` against ``Bounds``'s fault
    bounds), if any is left. Since issue 29be none is (the consumer's restarts were the last),
    so the refusal's path (one line, exit 2) is tested on ``--max-session-expiries`` taken out of
    ``scope.FAULT_BOUNDS`` for the test: a bound ``Bounds`` has and the lists lack, as a new
    one would be."""
    from dataclasses import fields

    from checker.symbolic import scope
    from model import Bounds

    faults = [f.name for f in fields(Bounds) if f.metadata.get("fault")]
    lacking = [b for b in faults if b not in scope.OPERATOR_BOUNDS + scope.FAULT_BOUNDS]
    if not lacking:
        monkeypatch.setattr(scope, "FAULT_BOUNDS", tuple(
            b for b in scope.FAULT_BOUNDS if b != "max_session_expiries"))
        lacking = ["max_session_expiries"]
    return "--" + lacking[0].replace("_", "-")
