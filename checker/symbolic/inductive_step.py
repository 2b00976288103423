"""k-induction's inductive step, and ``--strengthen auto``: the conjuncts chosen by the CTIs.

The step asks z3 for a path ``s0 -> ... -> sk`` of well-formed states whose first k satisfy
every conjunct and whose last violates one (``induction.py``). Unsatisfiable: PROVED. A model is
a counterexample to induction (CTI).

``--strengthen all`` puts the whole library into the conjunction, though a proof of one
configuration uses a part of it, and at large bounds every conjunct costs z3 time on every query
(Kafka 2.1 ``+reset-followers-on-epoch``, RF=3, 1 record, epochs <= 6, any number of crashes: 93
invariants proved in about 20 minutes, the 108 of ``all`` gave no answer in 35). ``--strengthen
auto`` chooses the part, counterexample-guided, as IC3/PDR-style tools and Houdini's users do:

1. start from the property and the invariants named with ``-s``;
2. ask the step; unsatisfiable: PROVED with the conjuncts in use;
3. a CTI: every library invariant ``all`` would take that is false on one of its first k states
   rules it out (the step assumes the conjuncts there), so all those are taken in; go to 2;
4. a CTI on which every library invariant holds ends the search: ``--strengthen all`` meets a
   CTI too (this one is one of its: its first k states satisfy the whole library, its last
   violates a conjunct), and the proof goes on as after any CTI (BFS settles it).

So auto proves whatever ``all`` proves (at the same k), with a conjunction that is never larger
and usually much smaller; it may prove more, since a part of the library can be inductive where
the whole is not. Its soundness is k-induction's: the base case checks every
candidate (so any chosen set holds there), and the last step's conjunction is inductive; nothing
is assumed of an invariant that was not chosen.

At bounds larger than ``SEED_BOUNDS`` the rounds run there first (``induction._seeded``).

The terms (the transition relation, each invariant's formula over the k + 1 states) are built
once; each round asks a solver of its own over the conjuncts in use. One solver for every round,
with each candidate behind an assumption literal, was tried first and dropped: it took 2.6 times
as long on the last, unsatisfiable round of Kafka 2.1 RF=2 (10 s against 3.8 s).
"""

from __future__ import annotations

import time
from dataclasses import replace

import z3

from checker.symbolic import numbers as num
from checker.symbolic.outcome import INCONCLUSIVE, PROVED, UNKNOWN, ProofResult
from checker.symbolic.by_case import AUTO_STEP, StepAsker
from checker.symbolic.state import decode, fresh, well_formed

AUTO = "auto"
"""``--strengthen auto``: choose the conjuncts from the library by the CTIs (above)."""

SEED_BOUNDS = {"max_records": 1, "max_leader_epoch": 2}
"""The bounds ``--strengthen auto`` chooses at first (every other bound at most 1): the facts a
proof needs at large bounds are mostly those it needs at small ones, and there a round of the
step takes seconds where at large bounds it takes minutes (Kafka 4.1 RF=3 power loss at 5
records: about 5 minutes a round past 80 conjuncts)."""


def seed_bounds(config):
    """``config`` at the smallest bounds (``SEED_BOUNDS``; every other bound at most 1), or None
    when its bounds are no larger. Whatever is chosen there is a part of the same library (the
    library depends on the rules, the crash model and the settings, not on the bounds)."""
    b = config.bounds
    small = {n: min(v, SEED_BOUNDS.get(n, 1)) for n, v in b.as_dict().items()}
    if small == b.as_dict():
        return None
    return replace(config, bounds=replace(b, **small))


def inductive_step(enc, d, prop_name, names, candidates, formulas, k, solver, tell, beat,
                   started, vacuous=False, step=AUTO_STEP, workers=1) -> ProofResult:
    """The step for the conjuncts ``names`` (the property first) and, with ``candidates`` (the
    library's other invariants: ``--strengthen auto``), the rounds that take them in.
    ``formulas``: each name's formula over a state (``conjunction.conjunction``); ``step``: how
    its last transition is asked (``by_case.STEPS``), case by case on ``workers`` threads."""
    path = [fresh(d, f"i{j}") for j in range(k + 1)]
    acts = [num.action_var(f"ia{j}") for j in range(k)]
    # Every state of the path is assumed well-formed (each field within the range the explicit
    # model gives it): a fact about the model, not the property, checked on every reachable state
    # of the tests' configurations (tests/symbolic/test_induction.py).
    frame = [well_formed(d, s) for s in path]
    frame += [enc.step(path[j], path[j + 1], acts[j], tag=f"it{j}") for j in range(k - 1)]
    asker = StepAsker(enc, d, path, acts, step, solver, beat, tell, started, workers)
    chosen: list = []
    rounds: list = []
    selection = {"candidates": len(candidates), "rounds": rounds} if candidates else {}
    while True:
        in_use = names[1:] + [n for n in candidates if n in chosen]  # the library's order
        if candidates:
            tell(f"inductive step, round {len(rounds) + 1}: can {k} step(s) from states satisfying "
                 f"{len(in_use) + 1} conjuncts leave them? ({time.monotonic() - started:.1f} s)")
        else:
            tell(f"inductive step: can {k} step(s) from states satisfying every conjunct leave "
                 f"them? ({time.monotonic() - started:.1f} s; the long part)")
        assumed = frame + [formulas[n](path[j]) for n in names[:1] + in_use for j in range(k)]
        asked = time.monotonic()
        answer, m = asker.ask(assumed, [formulas[n](path[k]) for n in names[:1] + in_use])
        seconds = time.monotonic() - started
        if answer == z3.unsat:
            rounds.append({"seconds": round(time.monotonic() - asked, 3), "added": []})
            return ProofResult(prop_name, in_use, k, PROVED, seconds, settled_by="induction",
                               vacuous=vacuous, selection=selection, step=asker.summary())
        if answer == z3.unknown:
            return ProofResult(prop_name, in_use, k, UNKNOWN, seconds, "step", selection=selection,
                               step=asker.summary())
        false_before = [n for n in candidates if n not in chosen and any(
            z3.is_false(m.eval(formulas[n](path[j]), model_completion=True)) for j in range(k))]
        rounds.append({"seconds": round(time.monotonic() - asked, 3), "added": false_before})
        if not false_before:
            break
        chosen += false_before
        tell(f"  a CTI; {len(false_before)} library invariant(s) rule it out, taken in "
             f"({len(chosen)} of {len(candidates)} now)")
    pre, post = decode(d, m, path[k - 1]), decode(d, m, path[k])
    act = enc.instances()[num.to_int(m.eval(acts[k - 1], model_completion=True))]
    failing = [n for n in [prop_name] + in_use
               if z3.is_false(m.eval(formulas[n](path[k]), model_completion=True))]
    return ProofResult(prop_name, in_use, k, INCONCLUSIVE, seconds, "step", pre=pre, action=act,
                       post=post, failing=failing, selection=selection, step=asker.summary())
