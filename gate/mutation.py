"""The rule-mutation check: would the known-results suite notice if a rule were wrong?

A *mutant* is the model with one thing broken on purpose:

- a rule of the rule table (``model/rules.py``) flipped: turned off in the rows whose release has
  it, turned on in the rows whose release lacks it (``--rule -NAME`` / ``+NAME``; turning a rule
  off also drops the rules that need it, as ``--rule`` does);
- a guard of a kernel action skipped (``model/kernel/guards.py``: a bit of the kernel's
  ``MUTATION`` parameter; the kernel reads it at run time, so no mutant needs a recompilation).

A mutant is *killed* when some row of the suite, run on the mutant, no longer gets its expected
verdict (its status is FAIL), or when a *story* (``gate/stories.py``: a few steps of the model
and what Kafka's code says they lead to) is told differently on it. A mutant nothing kills
*survives*: nothing pins that rule or guard, so it could be deleted, or break, unnoticed.

Rules and guards are read from their tables, so a new rule is a new mutant with no edit here and
a new guard is one line of ``GUARDS``. To stay fast, each mutant runs the rows most likely to
kill it first (the stories about it, which take milliseconds; the rows that name the rule, its
KIP or JIRA, or the guard's action; then the rest in suite order) and stops at the first kill; a
row the mutation does not change (a rule whose requirements the row's release lacks) is not run.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from gate.run import FAIL, run_check
from gate.stories import STORIES, Story, tell
from model.errors import ConfigError
from model.kernel.guards import GUARDS, mutated_guards
from model.rules import RULES

RULE, GUARD = "rule", "guard"
DEFAULT_TIME_LIMIT = 120.0
"""Seconds a row may take on a mutant (a mutant can make the state space much larger); a row
cut short is not counted as a kill."""


@dataclass
class Mutant:
    """One thing broken on purpose: a rule flipped or a guard skipped."""

    kind: str  # RULE or GUARD
    name: str
    why_survives: str = ""  # for a rule or guard known to be unobservable: the reason, written down

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}"


@dataclass
class MutantOutcome:
    mutant: Mutant
    killed_by: str | None = None
    rows_run: list = field(default_factory=list)
    incomplete: list = field(default_factory=list)
    applicable: int = 0  # rows the mutation changes
    seconds: float = 0.0
    reason: str = ""  # the FAIL reason of the killing row

    @property
    def killed(self) -> bool:
        return self.killed_by is not None


def mutants(kinds=(RULE, GUARD)) -> list[Mutant]:
    """Every mutant, rules in the table's order, then guards in ``GUARDS``' order."""
    out = []
    if RULE in kinds:
        out += [Mutant(RULE, r.name, r.unobservable) for r in RULES.values()]
    if GUARD in kinds:
        out += [Mutant(GUARD, g.name, g.unobservable) for g in GUARDS.values()]
    return out


GUARD_APPLIES = {
    "delayed-fetch-needs-leader": lambda config: config.bounds.max_delayed_fetches > 0,
    "one-alter-in-flight": lambda config: "alter-partition" in config.rules,
    "alter-needs-current-leader": lambda config: "alter-partition" in config.rules,
}
"""Guards whose action runs only in some configurations: rows outside them are not run (a guard
not listed may change any row)."""


def flip_rule(config, name: str):
    """``config`` with rule ``name`` flipped, or None when that changes nothing (or is no
    configuration kmc accepts: ZooKeeper mode in 4.x)."""
    change = ("-" if name in config.rules else "+") + name
    try:
        mutated = replace(config, rule_changes=tuple(config.rule_changes) + (change,))
    except ConfigError:
        return None
    if mutated.rules == config.rules:
        return None
    return mutated


def mutate_rule(spec, name: str):
    """``spec`` with rule ``name`` flipped, or None when that changes nothing in this row (or is
    no configuration kmc accepts)."""
    mutated = flip_rule(spec.config, name)
    return None if mutated is None else replace(spec, config=mutated)


def tell_on(mutant: Mutant, story: Story) -> str | None:
    """The story told on ``mutant``: "" when it goes as Kafka's code says, else the difference;
    None when the mutation does not change the story's configuration."""
    if mutant.kind == RULE:
        config = flip_rule(story.config, mutant.name)
        if config is None:
            return None
        try:
            return tell(story, config)
        except ConfigError:
            return None
    with mutated_guards(mutant.name):
        return tell(story)


def _mentions(spec, words) -> bool:
    text = " ".join((spec.name, spec.description, *spec.config.rule_changes))
    return any(w and w in text for w in words)


def _rule_words(name: str) -> tuple:
    return (name, *re.findall(r"(?:KIP|KAFKA)-\d+", RULES[name].source))


def candidates(mutant: Mutant, specs) -> list:
    """The rows to try against ``mutant``, most likely killers first, each with the mutated spec
    (guards: the spec itself, the mutation is applied around the run)."""
    pairs = []
    for spec in specs:
        if mutant.kind == RULE:
            mutated = mutate_rule(spec, mutant.name)
            if mutated is None:
                continue
            words = _rule_words(mutant.name)
        else:
            applies = GUARD_APPLIES.get(mutant.name)
            if applies is not None and not applies(spec.config):
                continue
            mutated = spec
            words = GUARDS[mutant.name].words
        pairs.append((not _mentions(spec, words), spec, mutated))
    pairs.sort(key=lambda p: p[0])  # stable: suite order within each group
    return [(spec, mutated) for _, spec, mutated in pairs]


def run_mutant(mutant: Mutant, specs, *, time_limit: float = DEFAULT_TIME_LIMIT,
               only_rows=None) -> MutantOutcome:
    """Tell the stories about ``mutant``, then run the rows of ``specs``, then tell the other
    stories (or only the rows and stories named in ``only_rows``), until one notices it."""
    started = time.monotonic()
    result = MutantOutcome(mutant)
    pairs = candidates(mutant, specs)
    stories = list(STORIES.values())
    if only_rows is not None:
        pairs = [p for p in pairs if p[0].name in only_rows]
        stories = [s for s in stories if s.name in only_rows]
    about = [s for s in stories if mutant.name in s.words]
    others = [s for s in stories if mutant.name not in s.words]
    for s in about:
        _tell(mutant, s, result)
        if result.killed:
            break
    if not result.killed:
        result.applicable += len(pairs)
        for spec, mutated in pairs:
            _run_row(mutant, spec, mutated, time_limit, result)
            if result.killed:
                break
    if not result.killed:
        for s in others:
            _tell(mutant, s, result)
            if result.killed:
                break
    result.seconds = time.monotonic() - started
    return result


def _tell(mutant: Mutant, story: Story, result: MutantOutcome) -> None:
    told = tell_on(mutant, story)
    if told is None:
        return
    result.applicable += 1
    result.rows_run.append(story.name)
    if told:
        result.killed_by, result.reason = story.name, told


def _run_row(mutant: Mutant, spec, mutated, time_limit: float, result: MutantOutcome) -> None:
    limit = min(time_limit, mutated.time_limit or time_limit)
    mutated = replace(mutated, time_limit=limit)
    if mutant.kind == GUARD:
        with mutated_guards(mutant.name):
            outcome = run_check(mutated)
    else:
        outcome = run_check(mutated)
    result.rows_run.append(spec.name)
    if outcome.status == FAIL:
        result.killed_by = spec.name
        result.reason = outcome.reasons[0] if outcome.reasons else ""
    elif not outcome.green:
        result.incomplete.append(spec.name)


def run_all(specs, selected=None, *, time_limit: float = DEFAULT_TIME_LIMIT,
            progress: Callable[[MutantOutcome], None] | None = None) -> list[MutantOutcome]:
    outcomes = []
    for mutant in selected if selected is not None else mutants():
        outcome = run_mutant(mutant, specs, time_limit=time_limit)
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return outcomes


def describe(o: MutantOutcome) -> str:
    """One line per mutant."""
    if o.killed:
        return (f"killed    {o.mutant.label}: by {o.killed_by!r} ({len(o.rows_run)} row(s) or stories tried, "
                f"{o.seconds:.1f} s)")
    cut = f"; {len(o.incomplete)} row(s) not finished in time" if o.incomplete else ""
    tried = (f"all {o.applicable} row(s) and stories it changes still pass{cut}" if o.applicable
             else "no row of the suite or story is changed by it")
    if o.mutant.why_survives:  # an equivalent mutant of kmc's model, its reason written down
        return f"EQUIVALENT {o.mutant.label}: {tried}; why no configuration can tell: {o.mutant.why_survives}"
    return f"SURVIVES  {o.mutant.label}: {tried}"


def main(argv=None) -> int:
    """``python -m gate.mutation [SUITE] [--kind rule|guard] [--only NAME]`` (``make mutation``):
    one line per mutant, then the equivalent mutants and the survivors. A mutant no row or story
    kills is *equivalent* when its reason is written down (a rule's ``unobservable`` in
    ``model/rules.py``, a guard's in ``GUARDS``): an argument that no configuration of kmc's model
    can tell it apart, the mutation-testing term; otherwise it *survives*. Exit 0 when none
    survives, else 1; 2 for a bad suite or name."""
    import argparse
    import sys

    from gate.suite import load_suite
    from model.errors import KmcError

    parser = argparse.ArgumentParser(prog="python -m gate.mutation", description=main.__doc__)
    parser.add_argument("suite", nargs="*", default=["scenarios/known-results.toml"],
                        help="gate suites whose rows are tried, in order (default: the known results)")
    parser.add_argument("--kind", choices=(RULE, GUARD), action="append")
    parser.add_argument("--only", action="append", help="a rule or guard name (repeatable)")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT)
    args = parser.parse_args(argv)
    try:
        checks = [c for path in args.suite for c in load_suite(path).checks]
    except KmcError as e:
        print(f"mutation: error: {e}", file=sys.stderr)
        return 2
    selected = mutants(tuple(args.kind or (RULE, GUARD)))
    if args.only:
        unknown = set(args.only) - {m.name for m in selected}
        if unknown:
            print(f"mutation: error: no rule or guard named {', '.join(sorted(unknown))}",
                  file=sys.stderr)
            return 2
        selected = [m for m in selected if m.name in args.only]
    print(f"mutation check: {len(selected)} mutants against {len(checks)} rows of "
          f"{', '.join(args.suite)} (stopping at the first row that notices)", flush=True)
    outcomes = run_all(checks, selected, time_limit=args.time_limit,
                       progress=lambda o: print(describe(o), flush=True))
    equivalent = [o for o in outcomes if not o.killed and o.mutant.why_survives]
    survivors = [o for o in outcomes if not o.killed and not o.mutant.why_survives]
    print()
    print(f"{len(outcomes) - len(survivors) - len(equivalent)} of {len(outcomes)} mutants killed; "
          f"{len(equivalent)} equivalent (no configuration of kmc's model tells them apart; the "
          f"reason is written beside the rule or guard); {len(survivors)} survive"
          + (":" if survivors else ""))
    for o in equivalent + survivors:
        print("  " + describe(o))
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
