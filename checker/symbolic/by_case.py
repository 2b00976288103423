"""k-induction's inductive step asked one transition case at a time (``kmc prove --step cases``).

The step (``inductive_step.py``) asks z3 for a path ``s0 -> ... -> sk`` whose first k states
satisfy every conjunct and whose last violates one. Its last transition is the whole transition
relation: a disjunction over every *case* of every action (``Encoder.all_cases``: a guard and the
next state it gives, one per branch of the kernel's action: a fetch answered with records, with a
truncation, with nothing, ...), with the next state an if-then-else over all of them. Asked as
one query, z3 works on that whole disjunction at once; at large bounds that is the query that
does not come back (Kafka 4.1, RF=3, power loss, 5 records, leader epochs <= 4: no answer in 77
minutes, docs/symbolic.md "Choosing the conjuncts").

Here the last transition is asked case by case instead: for each case, the same path with that
case's guard, its next state (``Encoder.finish`` of the case's successor, as the whole relation
gives it when that case fires) and the action's index. The step is unsatisfiable iff every one
of these is, **provided no two cases of one action can fire together**: the whole relation lets
several fire variables be true at once when their guards overlap (each implies the same action
index), and then mixes their next states. So this module first checks that the guards of each
action's cases exclude each other on every well-formed state (``exclusive``: one small query per
pair, cheap next to the step); if any pair overlaps, the split is not used and the step is asked
whole. Then a model of one case's query is a model of the whole step (the same path, the case's
fire variable true and every other false), and a whole-step model has exactly one fire variable
true, whose case's query it satisfies: the two questions have the same answer, and the CTI found
is a CTI of the whole step.

What it buys is z3's focus: each query carries one case's next state, in which the fields the
case leaves alone are the previous state's, so the conjuncts over them fold against the
assumption on ``s0`` before the search starts, and the search is over what that case changes.
The cases are independent questions, so ``--workers`` asks several at once, on threads with a
z3 context each (z3 lets go of Python's lock while it solves; every term is translated into a
worker's context before the workers start, and no context is used by two threads). The first
case with a way out stops the others, and is asked again in the main context for its model.

Measured in docs/symbolic.md ("The step one case at a time").
"""

from __future__ import annotations

import itertools
import threading
import time

import z3

from checker.interrupt import cancel_on_interrupt, check_interrupted
from checker.symbolic.solving import HEARTBEAT_SECONDS, solve
from checker.symbolic.state import leaves, well_formed

WHOLE, CASES, AUTO_STEP = "whole", "cases", "auto"
STEPS = (AUTO_STEP, WHOLE, CASES)
"""``kmc prove --step``: the step's last transition as one query (``whole``), one query per case
(``cases``), or (``auto``, the default) whole for ``WHOLE_FIRST_SECONDS`` and then by case."""

WHOLE_FIRST_SECONDS = 60.0
"""How long ``--step auto`` lets z3 work on the whole step before asking it case by case. At
small bounds the whole query is the faster (each case's query repeats the assumptions: Kafka 4.1
RF=3 power loss at 1 record, epochs <= 2: 78 s whole against 115 s by case), and it answers in
well under a minute; past that the split wins and grows with the bounds (docs/symbolic.md, "The
step one case at a time"). So a proof that the whole query settles quickly never pays for the
split, and one it does not loses at most this minute."""


def exclusive(d, pre, cases, solver, beat) -> tuple | None:
    """None when no two cases of one action can fire together on a well-formed state ``pre``;
    else the first overlapping pair of case numbers. ``cases``: ``Encoder.all_cases(pre)``."""
    by_action: dict = {}
    for c, (i, guard, _) in enumerate(cases):
        by_action.setdefault(i, []).append((c, guard))
    wf = well_formed(d, pre)
    for members in by_action.values():
        for (a, ga), (b, gb) in itertools.combinations(members, 2):
            sv = solver()
            sv.add(wf, ga, gb)
            if solve(sv, beat) != z3.unsat:
                return a, b
    return None


class StepAsker:
    """Asks the step's question for each round's conjuncts, whole or by case (``--step``).
    ``path``/``acts``: the step's states and action variables; the last transition
    (``path[-2] -> path[-1]``) is the one asked here, the earlier ones are among the
    assumptions the caller passes."""

    def __init__(self, enc, d, path, acts, mode, solver, beat, tell, started, workers=1):
        if mode not in STEPS:
            raise ValueError(f"step mode {mode!r}")
        self.enc, self.d, self.path, self.acts = enc, d, path, acts
        self.mode, self.solver, self.beat, self.tell, self.started = mode, solver, beat, tell, started
        self.by_case = mode == CASES
        self.workers = max(int(workers), 1)  # cases asked at once (threads, a z3 context each)
        self._whole = None
        self._cases = None
        self.overlap = None
        self.switched_at = None  # auto: seconds into the proof when it went case by case
        self.skipped = 0  # cases whose changes no conjunct over the last state reads
        self._read_cache: dict = {}

    def ask(self, assumed, last):
        """``(answer, model)``: ``model`` is z3's when ``answer`` is sat, else None. ``assumed``:
        every other constraint of the step; ``last``: the conjuncts over its last state."""
        if not self.by_case:
            cap = WHOLE_FIRST_SECONDS if self.mode == AUTO_STEP else None
            answer, model = self._ask_whole(assumed, last, cap)
            if answer != z3.unknown or self.mode == WHOLE or not self._time_left():
                return answer, model
            self.by_case = True
            self.switched_at = round(time.monotonic() - self.started, 1)
            self.tell(f"  no answer to the whole step in {WHOLE_FIRST_SECONDS:.0f} s: asking it "
                      f"one transition case at a time")
        if self._cases is None:
            self._cases = self.cases()
            self.overlap = exclusive(self.d, self.path[-2], self._cases, self.solver, self.beat)
            if self.overlap is not None:  # the split would not be the same question
                self.tell(f"  cases {self.overlap} of one action can fire together: the step is "
                          f"asked whole")
        if self.overlap is not None:
            self.by_case = False
            return self._ask_whole(assumed, last, None)
        return self._ask_cases(assumed, last)

    def cases(self) -> list:
        """The last transition's cases (``Encoder.all_cases`` of the state before it)."""
        return self.enc.all_cases(self.path[-2])

    def summary(self) -> dict:
        """How the step was asked, for the result (``ProofResult.step``)."""
        out = {"mode": self.mode, "asked": CASES if self.by_case else WHOLE}
        if self._cases is not None:
            out["cases"] = len(self._cases)
            out["skipped"] = self.skipped
        if self.switched_at is not None:
            out["switched_at"] = self.switched_at
        if self.overlap is not None:
            out["overlap"] = list(self.overlap)
        return out

    def _time_left(self) -> bool:
        """Whether ``--time-limit`` leaves time (``solver.left``: induction._prove), so the whole
        step's "unknown" was the cap, not the limit."""
        return getattr(self.solver, "left", lambda: float("inf"))() > 1.0

    def _ask_whole(self, assumed, last, cap):
        if self._whole is None:
            k = len(self.acts) - 1
            self._whole = self.enc.step(self.path[-2], self.path[-1], self.acts[-1], tag=f"it{k}")
        sv = self.solver(cap) if cap is not None else self.solver()
        sv.add(assumed)
        sv.add(self._whole, z3.Not(z3.And(last)))
        answer = solve(sv, self.beat)
        return answer, (sv.model() if answer == z3.sat else None)

    def _ask_cases(self, assumed, last):
        queries = self._queries(last)
        base = list(assumed) + [well_formed(self.d, self.path[-1])]
        if self.workers > 1 and len(queries) > 1:
            answer, j = self._in_parallel(base, queries)
            if answer != z3.sat:
                return answer, None
            queries = queries[j:j + 1]  # the case with a way out, asked again here for its model
        for n, terms in enumerate(queries):
            sv = self.solver()
            sv.add(base)
            sv.add(terms)
            answer = solve(sv, self.beat)
            if answer != z3.unsat:
                return answer, (sv.model() if answer == z3.sat else None)
            if (n + 1) % 25 == 0:
                self.tell(f"  {n + 1} of {len(queries)} cases: no way out "
                          f"({time.monotonic() - self.started:.1f} s)")
        return z3.unsat, None

    def _queries(self, last) -> list:
        """Each case's own constraints (its guard, its action's index, the last state as its next
        state, the conjuncts it may break negated), in case order; cases that change nothing a
        conjunct over the last state reads are left out (counted in ``skipped``)."""
        pre, post, act = self.path[-2], self.path[-1], self.acts[-1]
        before, after_vars = leaves(pre), leaves(post)
        reads = [self._reads(c) for c in last]
        out, self.skipped = [], 0
        for i, guard, nxt in self._cases:
            after = leaves(self.enc.finish(nxt))
            changed = {v.decl().name() for v, a, b in zip(after_vars, before, after)
                       if not a.eq(b) and _is_var(v)}
            # a conjunct over the last state that reads nothing this case changes is the same
            # formula as over the state before, which the step assumes: it cannot be the one
            # violated, so only the others are asked (none: nothing to ask)
            touched = [f for f, r in zip(last, reads) if r & changed]
            if not touched:
                self.skipped += 1
                continue
            out.append([guard, act == i, z3.Not(z3.And(touched))]
                       + [v == a for v, a in zip(after_vars, after)])
        return out

    def _in_parallel(self, base, queries):
        """The cases' queries on ``self.workers`` threads, each with a z3 context of its own (z3
        lets go of Python's lock while it solves; one context is never used by two threads).
        ``(unsat, None)`` when every case is unsatisfiable; else the first other answer and the
        case's index (sat: the caller asks that case again in the main context for its model)."""
        contexts = [z3.Context() for _ in range(self.workers)]
        # translated here, in the calling thread, before any worker starts
        copies = [([t.translate(ctx) for t in base],
                   [[t.translate(ctx) for t in terms] for terms in queries]) for ctx in contexts]
        lock, stop, found, done = threading.Lock(), threading.Event(), {}, [0]
        order = iter(range(len(queries)))

        def work(w):
            ctx, (b, qs) = contexts[w], copies[w]
            while not stop.is_set():
                with lock:
                    j = next(order, None)
                if j is None:
                    return
                sv = z3.Solver(ctx=ctx)
                sv.set("ctrl_c", False)  # signals are the main thread's (checker.interrupt)
                left = getattr(self.solver, "left", lambda: float("inf"))()
                if left != float("inf"):
                    sv.set("timeout", max(1, int(left * 1000)))
                sv.add(b)
                sv.add(qs[j])
                with cancel_on_interrupt(ctx.interrupt):
                    answer = sv.check()
                if stop.is_set():
                    return
                with lock:
                    done[0] += 1
                    if answer != z3.unsat:
                        found[j] = answer
                        stop.set()
                if answer != z3.unsat:
                    for other in contexts:
                        if other is not ctx:
                            other.interrupt()
                    return

        threads = [threading.Thread(target=work, args=(w,), daemon=True,
                                    name=f"kmc-case-{w}") for w in range(self.workers)]
        for t in threads:
            t.start()
        told = time.monotonic()
        try:
            while any(t.is_alive() for t in threads):
                for t in threads:
                    t.join(timeout=1.0)
                if time.monotonic() - told >= HEARTBEAT_SECONDS:
                    told = time.monotonic()
                    self.tell(f"  {done[0]} of {len(queries)} cases: no way out "
                              f"({told - self.started:.1f} s, {self.workers} at once)")
        finally:
            stop.set()
            for ctx in contexts:
                ctx.interrupt()
            for t in threads:
                t.join()
        check_interrupted()
        if not found:
            return z3.unsat, None
        j = min(found)
        return found[j], j

    def _reads(self, term) -> set:
        """The names of the variables ``term`` reads (cached: each round's conjuncts over the
        last state are the same terms, z3 hash-conses them)."""
        key = term.get_id()
        if key not in self._read_cache:
            seen, out, stack = set(), set(), [term]
            while stack:
                t = stack.pop()
                if t.get_id() in seen:
                    continue
                seen.add(t.get_id())
                if _is_var(t):
                    out.add(t.decl().name())
                else:
                    stack.extend(t.children())
            self._read_cache[key] = out
        return self._read_cache[key]


def _is_var(t) -> bool:
    return z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED
