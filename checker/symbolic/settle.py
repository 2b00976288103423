"""After a counterexample to induction (CTI): settle whether the property holds, by searching
for a real violation in the model itself.

A CTI is a state satisfying every conjunct with a step to one that does not. It may be
unreachable (the strengthening invariants are too weak: the property may still hold) or
reachable (the property is false). Two engines can tell:

* **BFS** of the compiled kernel (``checker.check`` with engine "compiled", what ``kmc check``
  runs) on the same configuration and bounds: breadth-first, so a violation it finds is a
  shortest one, and it is the kernel's own trace (nothing to replay into another model); a
  search that exhausts the reachable states finds none, and the property *holds within the
  bounds by exhaustive search* (the CTI is unreachable); a search stopped by a limit has
  checked every state of fewer steps than the depth it reached.
* **BMC** (``bmc.bmc_check``) on the encoding, one depth at a time, each trace replayed in the
  kernel (a trace the kernel refuses is a defect of the encoding, and z3 is asked for another).

The order (``--search both``, the default): **BFS first, then BMC only if BFS stopped
shallower than ``--bmc-depth``** (BMC then queries only the depths past those BFS covered:
``bmc_check(start_depth=...)`` unrolls the shorter ones without asking, since BFS found no
violation there in the kernel and the cross-check holds the encoding to it). The encodings ``kmc prove`` proves are ones BFS exhausts in
seconds to minutes (docs/symbolic.md: every bound proved so far, up to 20 million states), and
per depth BFS is cheaper by orders of magnitude: Kafka 2.1's over-approximation at RF=3 (2
records, epochs <= 3) has its loss at 13 steps, which BFS reaches in 0.6 s and BMC had not
reached after 24 minutes (depth 10). BMC is kept for when a state
or memory limit stopped BFS shallower than ``--bmc-depth``. ``--search bfs`` / ``bmc`` runs one
engine, ``none`` neither (the proof then ends INCONCLUSIVE on its CTI).

BFS runs within what is left of ``--time-limit``, within ``--memory-limit`` (default, as for
``kmc check``, half the machine's RAM) and ``--max-states``, in memory only (the compiled
engine's spill to disk is off: a proof's search that outgrows memory stops, INCONCLUSIVE).
"""

from __future__ import annotations

import time
from dataclasses import replace

from checker.symbolic.outcome import (
    HOLDS, INCONCLUSIVE, INTERRUPTED, VIOLATED, ProofResult, SearchRun,
)
from model.bounded import shown
from model.errors import ConfigError

SEARCHES = ("both", "bfs", "bmc", "none")
SEARCH = "both"  # the default


def require_search(search) -> str:
    """``search`` if it is one of ``SEARCHES``; a ``ConfigError`` (one line, exit 2) else."""
    if search not in SEARCHES:
        raise ConfigError(f"--search must be one of {', '.join(SEARCHES)}, got {shown(search)}")
    return search


def in_kernel(config, trace):
    """``trace`` (found in the encoding, replayed in the oracle) replayed in the compiled kernel
    of ``config``: ``(the kernel's trace, "")``, or ``(None, why)`` when the kernel does not take
    one of its steps (the encoding is wider than the kernel there: a defect)."""
    from checker.trace import replay_actions
    from model import make_model
    from model.errors import KmcError

    kernel = make_model(config)
    try:
        replayed = replay_actions(kernel, kernel.init_states()[0], [s.action for s in trace.steps],
                                  trace.property_name)
    except KmcError as e:
        return None, (f"the encoding has a counterexample of {len(trace)} steps, but {config_name(config)} "
                      f"does not take it ({e}): the encoding is wider than the kernel there (a "
                      f"defect `make crosscheck` should find), so its trace is not a violation; "
                      f"`kmc check` searches the kernel")
    return replayed, ""


def config_name(config) -> str:
    return f"Kafka {config.kafka_version}'s model" if config.kafka_version else "kmc's model of these rules"


def settle(config, cti: ProofResult, *, search: str, bmc_depth: int, time_limit, memory_limit,
           max_states, progress, started: float) -> ProofResult:
    """The proof's result after the CTI ``cti`` (INCONCLUSIVE): VIOLATED or HOLDS if a search
    settles it, INTERRUPTED if a signal stops one, else ``cti`` with ``searches`` and
    ``search`` saying how far each went."""
    from properties import PROPERTIES

    name = cti.property_name
    if search == "none" or (search == "bmc" and not bmc_depth):
        return cti
    if name not in PROPERTIES:  # a strengthening invariant proved on its own
        cti.search = (f"no search for a real counterexample: {name} is a strengthening invariant, "
                      "not a property kmc check or BMC checks")
        return cti
    tell = progress or (lambda line: None)

    def left():
        return None if time_limit is None else time_limit - (time.monotonic() - started)

    checked = -1  # every behaviour of up to this many steps is known not to violate it
    if search in ("both", "bfs"):
        run, outcome = _bfs(config, name, left(), memory_limit, max_states, tell, started)
        cti.searches.append(run)
        if outcome is not None:
            return _settled(cti, run, outcome, started)
        checked = run.depth
    skipped = ""
    if search in ("both", "bmc") and bmc_depth:
        if checked >= bmc_depth:
            skipped = (f"BMC not run: BFS covered its --bmc-depth {bmc_depth} (every behaviour of "
                       f"up to {checked} steps)")
        elif left() is not None and left() <= 0:
            skipped = "BMC not run: no time left"
        else:
            run, outcome = _bmc(config, name, bmc_depth, left(), tell, started, checked + 1)
            cti.searches.append(run)
            if outcome is not None:
                return _settled(cti, run, outcome, started)
    cti.seconds = time.monotonic() - started
    cti.search = "; ".join([describe(r) for r in cti.searches] + ([skipped] if skipped else [])
                           + ["a longer counterexample may exist"])
    return cti


def _settled(cti: ProofResult, run: SearchRun, outcome, started: float) -> ProofResult:
    """``cti`` settled by ``run``: ``outcome`` is INTERRUPTED, HOLDS, or the kernel's trace of
    a violation."""
    seconds = time.monotonic() - started
    if outcome == INTERRUPTED:
        return replace(cti, status=INTERRUPTED, phase="search", seconds=seconds)
    words = "; ".join(describe(r) for r in cti.searches)
    if outcome == HOLDS:
        return replace(cti, status=HOLDS, phase="search", seconds=seconds, settled_by=run.engine,
                       search=words)
    return replace(cti, status=VIOLATED, phase="search", seconds=seconds, settled_by=run.engine,
                   failing=[cti.property_name], trace=outcome, search=words)


def describe(run: SearchRun) -> str:
    """One search in words, for the proof's report."""
    if run.engine == "bfs":
        if run.outcome == "violated":
            return (f"BFS of the compiled model found it in {run.seconds:.1f} s, {run.states:,} "
                    f"states: the shortest there is, and the kernel's own trace")
        what = f"BFS of the compiled model ({run.states:,} states, {run.seconds:.1f} s)"
        if run.outcome == "holds":
            return (f"{what} explored every reachable state within the bounds and none violates "
                    f"it (fingerprint collision probability {run.collision_probability:.1e}, "
                    f"TLC's optimistic estimate)")
        return (f"{what} stopped at {_limit_words(run.limit)}: no violation within "
                f"{run.depth} steps")
    extra = "".join(f"; {n}" for n in run.notes)
    if run.outcome == "violated":
        return f"BMC found it in {run.seconds:.1f} s: {'; '.join(run.notes)}; replayed in the compiled model"
    return (f"BMC ({run.seconds:.1f} s): no violation up to depth {run.depth} "
            f"({_limit_words(run.limit)}){extra}")


def _limit_words(limit) -> str:
    from checker.limits import LIMIT_WORDS  # the words kmc check uses

    if limit == "max-depth":
        return "the --bmc-depth"
    return LIMIT_WORDS.get(limit, limit or "no limit")


def _bfs(config, name, time_limit, memory_limit, max_states, tell, started):
    """BFS of the compiled kernel for a violation of ``name``: ``(SearchRun, outcome)`` with
    outcome the kernel's trace, HOLDS, INTERRUPTED or None (stopped at a limit)."""
    from checker import HOLDS as BFS_HOLDS, VIOLATED as BFS_VIOLATED, check
    from model.estimate import config_states

    if time_limit is not None and time_limit <= 0:
        return SearchRun("bfs", "stopped", 0, 0.0, limit="time-limit"), None
    tell(f"search: nothing decided; is there a real counterexample? BFS of the compiled model "
         f"(kmc check's engine; model/estimate.py: about {_rounded(config_states(config))} states; "
         f"{time.monotonic() - started:.1f} s)")

    def beat(stats):
        tell(f"  search: BFS {stats.distinct_states:,} states, depth {stats.depth} "
             f"({time.monotonic() - started:.1f} s)")

    searched = time.monotonic()
    result = check(config, [name], engine="compiled", max_states=max_states, time_limit=time_limit,
                   memory_limit=memory_limit, progress=beat, notice=tell, warn=tell, disk_limit=0)
    seconds = time.monotonic() - searched
    s = result.stats
    verdict = result.by_name(name)
    if result.interrupted:
        return SearchRun("bfs", "stopped", max(s.depth - 1, 0), seconds, s.distinct_states,
                         result.limit), INTERRUPTED
    if verdict.verdict == BFS_VIOLATED:
        return SearchRun("bfs", "violated", len(verdict.trace), seconds, s.distinct_states,
                         collision_probability=s.collision_probability), verdict.trace
    if verdict.verdict == BFS_HOLDS:
        return SearchRun("bfs", "holds", s.depth, seconds, s.distinct_states,
                         collision_probability=s.collision_probability), HOLDS
    # stopped at a limit within a level: the states of the deepest level were not all found,
    # so only the levels before it are known clean (``compiled/driver.py``'s depth counts it)
    return SearchRun("bfs", "stopped", max(s.depth - 1, 0), seconds, s.distinct_states,
                     result.limit), None


def _rounded(n: float) -> str:
    """An estimate to two significant digits: 190,000."""
    return f"{float(f'{n:.2g}'):,.0f}"


def _bmc(config, name, depth, time_limit, tell, started, start_depth=0):
    """BMC on the encoding for a violation of ``name`` of ``start_depth`` to ``depth`` steps
    (shorter ones are known clean: BFS covered them), each trace replayed in the kernel:
    ``(SearchRun, outcome)`` with outcome the kernel's trace, INTERRUPTED or None (none within
    the depth or the time)."""
    from checker.result import VIOLATED as FOUND
    from checker.symbolic.bmc import EncodingMismatch, bmc_check
    from checker.symbolic.formulas import FORMULAS
    from checker.symbolic.scope import symbolic_model
    from properties import get_properties

    if name not in FORMULAS:
        return SearchRun("bmc", "stopped", 0, 0.0, limit=f"no formula of {name}"), None
    span = f"of {start_depth} to {depth} steps" if start_depth > 1 else f"of up to {depth} steps"
    tell(f"search: is there a real counterexample {span}? (BMC; "
         f"{time.monotonic() - started:.1f} s)")

    def beat(stats):
        tell(f"  search: none of up to {stats.depth} steps ({time.monotonic() - started:.1f} s)")

    searched = time.monotonic()
    refused: list = []  # why each trace of the encoding was not one of the kernel's
    prop = get_properties([name])[0]

    def accept(trace) -> bool:
        taken, why = in_kernel(config, trace)
        if taken is None:
            refused.append(why)
            return False
        if prop.check(taken.states[-1]):  # the kernel takes the steps but reaches another state
            raise EncodingMismatch(f"{name}: a counterexample of the encoding replays in the "
                                   f"kernel to a state that satisfies it")
        return True

    result = bmc_check(symbolic_model(config), [prop], max_depth=depth,
                       time_limit=None if time_limit is None else max(0.001, time_limit),
                       progress=beat, accept=accept, start_depth=start_depth)
    seconds = time.monotonic() - searched
    outcome = result.properties[0]
    unrefuted = [n for n in result.notes if "refused" in n]  # MAX_REJECTED traces refused at a depth
    if outcome.verdict == FOUND:
        trace, _ = in_kernel(config, outcome.trace)
        notes = ["the shortest there is" if not unrefuted else
                 "not necessarily the shortest: " + "; ".join(unrefuted)]
        if start_depth > 1:
            notes.append(f"asked from depth {start_depth}, BFS having covered the shorter ones")
        if refused:
            notes.append(f"after {len(refused)} shorter or equal ones of the encoding the kernel "
                         f"does not take")
        return SearchRun("bmc", "violated", len(trace), seconds, notes=notes), trace
    if result.limit == "interrupted":
        return SearchRun("bmc", "stopped", result.stats.depth, seconds, limit=result.limit), INTERRUPTED
    notes = list(unrefuted)
    if start_depth > 1:
        asked = f"depth {depth}" if start_depth == depth else f"depths {start_depth} to {depth}"
        notes.insert(0, f"it asked only {asked}, BFS having covered the shorter ones")
    if refused:
        notes.append(f"{len(refused)} counterexamples of the encoding were refused because the "
                     f"kernel does not take them (the first: {refused[0]})")
    return SearchRun("bmc", "stopped", result.stats.depth, seconds, limit=result.limit,
                     notes=notes), None
