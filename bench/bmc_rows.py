"""BMC's shortest counterexamples against BFS's on every violated known-results row (issue 29ag).

    .venv/bin/python bench/bmc_rows.py [--budget SECONDS] [--rows SUBSTRING] [--json] [--suite FILE]

Every row of ``scenarios/known-results.toml`` with ``expect = "violated"`` pins the length of
BFS's shortest counterexample (``trace-length``; ``kmc gate`` holds BFS to it). For each such
row and violated property this runs bounded model checking (the z3 encoding of
``checker/symbolic``, one depth at a time from 0, the call ``kmc check --engine bmc`` makes) up
to the pinned length, within ``--budget`` seconds of wall-clock time, and prints one line:

* **equal**: BMC's counterexample has the pinned length, every shorter depth was refuted (z3
  answered unsat at each: no behaviour that short violates the property in the encoding), and
  the compiled kernel replays the trace (``checker.symbolic.settle.in_kernel``, also
  ``checker.symbolic.induction.in_kernel``) to a state that violates the property;
* **not reached**: the budget ran out first; the line gives the depths refuted by then;
* **refused**: the encoding does not take the row (``checker/symbolic/scope.py``) or has no
  formula for its property (``checker/symbolic/formulas.py``); the line names each dimension it
  lacks (a fault bound, the crash model, the property, the rule set) with one reason;

A liveness row (issue 29ar) runs the lasso search (``checker/symbolic/lasso.py``, ``kmc check
--engine bmc`` of a liveness property) instead, with the same four outcomes: equal is a lasso of
the pinned length, every shorter length refuted, judged a fair violating lasso in the kernel
(``classify_liveness`` says how the two engines measure a lasso);
* **DIFFERENT**: the engines disagree, a defect of one of them: BMC found a shorter trace the
  kernel takes (BFS missed it, or the pin is wrong), refuted every depth up to the pinned
  length (no trace where BFS has one), offered a trace the kernel does not take (the encoding
  is wider than the kernel), or its trace does not replay to a violation. Exit code 1.

A summary line counts the four. Exit codes: 0 (no DIFFERENT), 1 (some DIFFERENT), 2 (bad input:
one line). Wall time is inflated on a loaded machine, so each line also gives the process's
CPU seconds (z3 runs in this process). The whole run is not part of ``make bench``: 22 minutes
at the default budget on the shared 2-core machine of 2026-11-28, and at least 18 on any machine
(the 18 rows not reached take their whole budget; docs/symbolic.md, "BMC against BFS on every
known-results row").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, field, replace

EQUAL, NOT_REACHED, REFUSED, DIFFERENT = "equal", "not reached", "refused", "DIFFERENT"
OUTCOMES = (EQUAL, NOT_REACHED, REFUSED, DIFFERENT)
SUITE = "scenarios/known-results.toml"
BUDGET = 60.0


@dataclass
class RowOutcome:
    """What BMC made of one violated row and property."""

    row: str
    prop: str
    pinned: int  # BFS's shortest counterexample, as the row pins it
    outcome: str  # one of OUTCOMES
    detail: str  # the one-line reason
    refuted: int = -1  # every depth 0..refuted was refuted (unsat); -1: none
    length: int | None = None  # BMC's counterexample, if it found one
    seconds: float = 0.0
    cpu: float = 0.0
    dimensions: list = field(default_factory=list)  # what the encoding lacks, when refused


def violated_rows(suite_path: str = SUITE, rows: str | None = None) -> list:
    """The suite's checks expecting a violation with a pinned length, optionally only those whose
    name contains ``rows`` (case-insensitive)."""
    from gate.suite import VIOLATED, load_suite

    checks = [c for c in load_suite(suite_path).checks
              if c.expect == VIOLATED and c.trace_length is not None]
    if rows:
        checks = [c for c in checks if rows.lower() in c.name.lower()]
    return checks


def _flag(bound: str) -> str:
    return "--" + bound.replace("_", "-")


def refusals(config, prop: str) -> list:
    """What the encoding lacks to run ``prop`` on ``config``: ``(dimension, reason)`` pairs, each
    dimension named once; empty when BMC can run it. Every dimension is named, not only the
    first ``scope.require_encoded`` stops at: the rule set is asked of the configuration with the
    other refused dimensions taken away."""
    from checker.symbolic.formulas import FORMULAS
    from checker.symbolic.liveness_formulas import LIVENESS_FORMULAS
    from checker.symbolic.scope import CRASH_MODELS, FAULT_BOUNDS, OPERATOR_BOUNDS, symbolic_model
    from model.bounded import shown
    from model.errors import KmcError
    from properties.liveness import LIVENESS

    out = []
    if prop in LIVENESS:
        if prop not in LIVENESS_FORMULAS:
            out.append(("property", f"{prop} is a liveness property without z3 formulas for its P "
                                    "and Q (checker/symbolic/liveness_formulas.py)"))
    elif prop not in FORMULAS:
        out.append(("property", f"{prop} has no z3 formula (checker/symbolic/formulas.py)"))
    if config.crash_model not in CRASH_MODELS:
        out.append(("crash model", f"--crash-model {config.crash_model}: the encoding has "
                                   f"{' and '.join(CRASH_MODELS)}"))
    lacking = [b for b in config.bounds.faults() if b not in OPERATOR_BOUNDS + FAULT_BOUNDS]
    if lacking:
        out.append(("fault bound", ", ".join(_flag(b) for b in lacking) + " not encoded"))
    settings = [(name, value) for name, value, off in (
        ("--hw-checkpoint", config.hw_checkpoint, "immediate"),
        ("--hw-checkpoint", config.hw_checkpoint, "immediate"),) if value != off]  # (the
    # consumer since issue 29be, what consumers read and --fetch-from-followers since 29bf)
    if settings:  # the kernel's environment features, which the oracle (and so the encoding) lacks
        out.append(("setting", ", ".join(name if value is True else f"{name} {value}"
                                         for name, value in settings) + " not encoded"))
    stripped = replace(config, crash_model="process" if config.crash_model not in CRASH_MODELS
                       else config.crash_model,
                       bounds=replace(config.bounds, **{b: 0 for b in lacking}),
                       hw_checkpoint="immediate", fetch_from_followers=False,
                       track_reads=False)  # (the consumer is encoded since issue 29be)
    try:
        symbolic_model(stripped)
    except KmcError as e:
        out.append(("rule set", _rule_set_reason(stripped, str(e))))
    except ValueError as e:  # a configuration the stripping made inconsistent: say so, as it is
        out.append(("configuration", shown(str(e))))
    return out


def _rule_set_reason(config, message: str) -> str:
    """A rule set the encoding refuses, in one short line: the rules it changes from its
    protocol's preset (kmc's mutant rows take one of a release's fixes away), else the refusal's
    first clause."""
    from checker.reference import ORACLE_SWITCHES
    from model.rules import RULES, rules_of

    ignored = set(ORACLE_SWITCHES) | {"unordered-leader-moves", "leader-and-isr-in-order"} | {
        n for n, r in RULES.items() if r.producer}
    preset = set(rules_of(config.protocol))
    taken = sorted(preset - set(config.rules) - ignored)
    added = sorted(set(config.rules) - preset - ignored)
    if taken or added:
        change = " ".join([f"-{n}" for n in taken] + [f"+{n}" for n in added])
        return (f"{change} on {config.protocol}'s rules: no preset the encoding reads its switches "
                f"from (the oracle's) has this mix")
    return message.split(";")[0]


def classify(row, prop: str, budget: float) -> RowOutcome:
    """BMC on ``row``'s configuration and ``prop`` up to the row's pinned length, within
    ``budget`` seconds: the row's ``RowOutcome``. A row whose pin is wrong (edited shorter) comes
    out DIFFERENT, never equal: the outcome is read off BMC's result, not off the pin."""
    from checker.result import INCOMPLETE, VIOLATED
    from checker.symbolic import bmc_check
    from checker.symbolic.bmc import EncodingMismatch
    from checker.symbolic.scope import symbolic_model
    from checker.symbolic.settle import in_kernel
    from model.errors import ConfigError
    from properties import PROPERTIES, get_properties
    from properties.liveness import LIVENESS

    pinned = row.trace_length
    out = RowOutcome(row.name, prop, pinned, REFUSED, "")
    lacks = refusals(row.config, prop)
    if lacks:
        out.dimensions = [d for d, _ in lacks]
        out.detail = "; ".join(f"{d}: {why}" for d, why in lacks)
        return out
    config = row.config
    if getattr(PROPERTIES.get(prop), "history", None) == "reads" and not config.track_reads:
        config = replace(config, track_reads=True)  # as checker.api.check does (issue 29bf)
    if prop in LIVENESS:
        return classify_liveness(row, prop, budget, out)
    refused_traces: list = []
    depths: list = []

    def accept(trace) -> bool:  # run_bmc's check, recorded: a refused trace is a defect
        taken, why = in_kernel(config, trace)
        if taken is None:
            refused_traces.append(why)
        return taken is not None

    wall, cpu = time.monotonic(), time.process_time()
    try:
        result = bmc_check(symbolic_model(config), get_properties([prop]), max_depth=pinned,
                           time_limit=budget, config=config.as_dict(), accept=accept,
                           progress=lambda stats: depths.append(stats.depth))
    except EncodingMismatch as e:
        out.outcome, out.detail = DIFFERENT, f"the encoding's trace does not replay in its model: {e}"
        return _timed(out, wall, cpu, depths)
    except ConfigError as e:  # the encoder's own refusal (``UnsupportedVariant``)
        out.dimensions, out.detail = ["encoding"], f"encoding: {str(e).splitlines()[0]}"
        return _timed(out, wall, cpu, depths)
    _timed(out, wall, cpu, depths)
    found = result.by_name(prop)
    if refused_traces:
        out.outcome = DIFFERENT
        out.detail = (f"the encoding offered {len(refused_traces)} trace(s) the kernel does not "
                      f"take (wider than the kernel): {refused_traces[0]}")
        return out
    if found.verdict == VIOLATED:
        out.length = len(found.trace)
        if out.length < pinned:
            out.outcome = DIFFERENT
            out.detail = (f"BMC found a {out.length}-step counterexample, shorter than BFS's "
                          f"{pinned}")
            return out
        taken, why = in_kernel(config, found.trace)
        if taken is None:
            out.outcome, out.detail = DIFFERENT, why
        elif get_properties([prop])[0].check(taken.states[-1]):
            out.outcome = DIFFERENT
            out.detail = "the kernel replays BMC's trace to a state that satisfies the property"
        elif out.refuted != pinned - 1:
            out.outcome = DIFFERENT
            out.detail = f"depths 0 to {pinned - 1} were not all refuted (refuted to {out.refuted})"
        else:
            out.outcome = EQUAL
            out.detail = (f"{out.length} steps, depths 0-{out.refuted} refuted, the kernel "
                          f"replays it to a violation")
        return out
    assert found.verdict == INCOMPLETE, found.verdict
    return _none_found(out, result.limit, budget, "depth", "counterexample")


def _none_found(out: RowOutcome, limit, budget: float, unit: str, what: str) -> RowOutcome:
    """No trace up to the pin: DIFFERENT if every ``unit`` (depth, length) up to it was refuted
    (the limit is the pin itself), else not reached within the budget."""
    if limit == "max-depth":
        out.outcome = DIFFERENT
        out.detail = (f"BMC refuted every {unit} up to {out.pinned}: no {what} where BFS has one "
                      f"of {out.pinned} steps")
    else:
        out.outcome = NOT_REACHED
        upto = f"{unit}s 0-{out.refuted} refuted" if out.refuted >= 0 else f"no {unit} refuted"
        out.detail = f"{upto} when the {budget:g} s budget ran out ({limit})"
    return out


def classify_liveness(row, prop: str, budget: float, out: RowOutcome) -> RowOutcome:
    """A liveness row: the lasso search (``checker/symbolic/lasso.py``) up to the pinned length.
    Equal: a lasso of the pinned length, every shorter length refuted, the kernel takes it and
    judges it a fair violating lasso (``lasso.judge``, done inside the search). The compiled
    engine's length is its shortest stem into a fair component plus a loop through every state
    of the component, BMC's the fewest steps of any lasso: for a stuttering lasso the two
    measures agree, so a shorter stuttering lasso is DIFFERENT; a shorter one with a loop is
    the measures' difference, said in the line. No lasso up to the pin is DIFFERENT (the
    compiled engine's lasso is one of the search's)."""
    from checker.result import VIOLATED
    from checker.symbolic.bmc import EncodingMismatch
    from checker.symbolic.lasso import lasso_check
    from checker.symbolic.scope import symbolic_model
    from properties.liveness import get_liveness

    pinned, depths = row.trace_length, []
    wall, cpu = time.monotonic(), time.process_time()
    try:
        result = lasso_check(symbolic_model(row.config), get_liveness(prop), max_depth=pinned,
                             time_limit=budget, kernel_config=row.config,
                             progress=lambda k, _s: depths.append(k))
    except EncodingMismatch as e:
        out.outcome, out.detail = DIFFERENT, f"the lasso search's trace is not a lasso in the kernel: {e}"
        return _timed(out, wall, cpu, depths)
    _timed(out, wall, cpu, depths)
    if result.verdict == VIOLATED:
        out.length = len(result.trace)
        form = ("stuttering in its last state" if result.stuttering
                else f"steps {result.loop_start + 1}-{out.length} repeating")
        if out.length < pinned and result.stuttering:
            out.outcome = DIFFERENT
            out.detail = f"BMC found a {out.length}-step lasso ({form}), shorter than BFS's {pinned}"
        elif out.refuted != out.length - 1:
            out.outcome = DIFFERENT
            out.detail = f"lengths 0 to {out.length - 1} were not all refuted (refuted to {out.refuted})"
        else:
            out.outcome = EQUAL
            shorter = (f"; shorter than the compiled engine's {pinned}, which loops through every "
                       f"state of its component" if out.length < pinned else "")
            out.detail = (f"{out.length}-step lasso ({form}), lengths 0-{out.refuted} refuted, the "
                          f"kernel replays it and judges it a fair violating lasso{shorter}")
        return out
    return _none_found(out, result.limit, budget, "length", "lasso")


def _timed(out: RowOutcome, wall: float, cpu: float, depths: list) -> RowOutcome:
    out.seconds = time.monotonic() - wall
    out.cpu = time.process_time() - cpu
    out.refuted = depths[-1] if depths else -1
    return out


def line(i: int, o: RowOutcome) -> str:
    timing = "" if o.outcome == REFUSED else f" ({o.seconds:.1f} s, cpu {o.cpu:.1f} s)"
    return f"{i:3d}  {o.row} [{o.prop}]  BFS {o.pinned}  {o.outcome}: {o.detail}{timing}"


def summary(outcomes: list) -> dict:
    return {k: sum(1 for o in outcomes if o.outcome == k) for k in OUTCOMES}


def summary_line(outcomes: list, budget: float) -> str:
    s = summary(outcomes)
    return (f"equal {s[EQUAL]}, not reached {s[NOT_REACHED]}, refused {s[REFUSED]}, "
            f"DIFFERENT {s[DIFFERENT]} ({len(outcomes)} violated rows with a pinned length; "
            f"budget {budget:g} s a row)")


class _OneLineParser(argparse.ArgumentParser):
    """Bad input is one line and exit 2 (argparse prints its usage first)."""

    def error(self, message):
        print(f"bmc_rows: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv=None) -> int:
    ap = _OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=BUDGET,
                    help=f"wall-clock seconds per row (default {BUDGET:g})")
    ap.add_argument("--rows", help="only rows whose name contains this (case-insensitive)")
    ap.add_argument("--json", action="store_true", help="one JSON document instead of lines")
    ap.add_argument("--suite", default=SUITE, help=f"the gate suite (default {SUITE})")
    args = ap.parse_args(argv)
    from model.errors import KmcError

    if not args.budget > 0 or args.budget == float("inf"):
        print(f"bmc_rows: --budget must be a positive number of seconds, got {args.budget}",
              file=sys.stderr)
        return 2
    if args.rows is not None and not args.rows.strip():
        print("bmc_rows: --rows must name part of a row (an empty one would run every row)",
              file=sys.stderr)
        return 2
    try:
        rows = violated_rows(args.suite, args.rows)
    except (KmcError, OSError) as e:
        print(f"bmc_rows: {str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
        return 2
    if not rows:
        print(f"bmc_rows: no violated row with a pinned length matches {args.rows!r} in {args.suite}",
              file=sys.stderr)
        return 2
    outcomes = []
    for row in rows:
        for prop in row.violates:
            o = classify(row, prop, args.budget)
            outcomes.append(o)
            if not args.json:
                print(line(len(outcomes), o), flush=True)
    if args.json:
        print(json.dumps({"suite": args.suite, "budget": args.budget, "rows": [asdict(o) for o in outcomes],
                          "summary": summary(outcomes)}, indent=1))
    else:
        print(summary_line(outcomes, args.budget))
    return 1 if any(o.outcome == DIFFERENT for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
