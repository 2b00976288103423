"""``kmc prove --unbounded crashes``: a proof for every number of broker crashes (issue 29y).

**The argument.** k-induction's step is a question about *every* well-formed state that
satisfies the conjuncts, reachable or not; the bounds enter it only where the encoding reads
them. For crashes that is two places, and nowhere else (``transitions.Encoder``,
``state.well_formed``; the compiled kernel likewise reads ``max_crashes`` and
``max_unflushed_losses`` only in BrokerCrash's guard, ``model/kernel/actions/faults.py``, and
every bound of 1 or more brings the same actions, ``model/kernel/spec.py``):

* BrokerCrash's guard ``crashes < max_crashes`` (under power loss also ``losses <
  max_unflushed_losses`` on the crash that cuts the log at its flushed offset);
* the counters' ranges in ``well_formed``.

With ``--unbounded crashes`` the encoding drops both guards, the counters range over ``0 ..
num.TOP`` and saturate there (``num.saturating_inc``) instead of wrapping. Let ``h`` map a state
of the model *without* a crash bound to the encoding with each counter ``c`` held as
``min(c, TOP)``. The initial state maps to the initial state, and every step of the unbounded
model maps to a step of the unguarded encoding (the guard is gone; the increment of ``c`` is the
saturating increment of ``min(c, TOP)``); every other field is within ``well_formed``'s ranges
whatever the number of crashes (they are set by the record and epoch bounds, which stay, and the
test checks it on every reachable state with more crashes than the bound). So every reachable
state of the unbounded model maps to a reachable state of the encoding, and an inductive
invariant of the encoding holds on the image of every one. The property itself must not read
the counters (``require_unbounded`` refuses one that does: ``min(c, TOP)`` keeps "is it 0",
"at least m" for small m, but not every comparison of two counters); then it holds on every
reachable state of the model with any number of crashes. That is what PROVED says.

What it does not do:

* **leader epochs.** The epoch bound is not only a guard (``Encoder.epoch_available``): it is the
  size of the state. The encoding keeps one LeaderAndIsr flag per (broker, leader epoch)
  ``0..max_leader_epoch`` (and 3.x's partition-epoch bits likewise), the action
  BecomeLeaderOrFollower is one instance per epoch, and the library's invariants range over
  those epochs (``for e in range(d.max_epoch + 1)``); one of them, ``offline-isr-restarted``
  (``epochs_requests``), says a leaderless partition keeps a live ISR member only once
  ``c_epoch >= max_epoch`` (the controller elects it at once unless the epoch budget is spent):
  true within the bound, and false past it. Dropping the guard
  would let the controller write an epoch whose requests have no slot, so they would vanish: an
  encoding narrower than the model, and a PROVED that would not mean anything. An unbounded epoch
  needs the requests as a z3 array over epochs (or a queue), and the invariants quantified over
  them; not done, so ``leader-epochs`` is refused, one line.
* **records**: the log has ``max_records`` slots; the cutoff of issue 29u (``cutoff.py``) is the
  argument for records, at fixed epochs and crashes, and the two are not chained (the cutoff's
  image is a BFS of the oracle with its own bounds, not this encoding).
* after a counterexample to induction the search (``settle.py``) explores the configured bounds
  only: a violation it finds is real (a trace with that many crashes is one with "some number"),
  but "no violation within --max-crashes N" says nothing past N, so HOLDS becomes INCONCLUSIVE
  (``past_the_bounds``).
"""

from __future__ import annotations

from dataclasses import replace

import z3

from checker.symbolic.outcome import HOLDS, INCONCLUSIVE, ProofResult
from model.bounded import shown
from model.errors import ConfigError

UNBOUNDED = ("crashes",)
"""The bounds ``kmc prove --unbounded`` can drop: ``crashes`` (``--max-crashes``, and under
power loss ``--max-unflushed-losses``)."""

REFUSED = {
    "leader-epochs": "the encoding holds one LeaderAndIsr flag per broker and leader epoch up to "
                     "--max-leader-epoch, so that bound is the size of its state, not a guard it "
                     "can drop",
    "records": "the log has --max-records slots; for records see python -m checker.symbolic.cutoff "
               "(issue 29u), a cutoff at fixed epochs and crashes",
}


def require_unbounded(config, names) -> tuple:
    """The bounds ``names`` asks ``kmc prove`` to drop, checked: a ``ConfigError`` (one line,
    exit 2) for a name it cannot drop, or a configuration where dropping means nothing."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n]
    out = []
    for name in names:
        if name in REFUSED:
            raise ConfigError(f"--unbounded {name}: not sound here: {REFUSED[name]} "
                              f"(docs/symbolic.md, 'Unbounded leader epochs and crashes')")
        if name not in UNBOUNDED:
            raise ConfigError(f"--unbounded takes {', '.join(UNBOUNDED)}, got {shown(name)}")
        if name not in out:
            out.append(name)
    if "crashes" in out and config.bounds.max_crashes < 1:
        raise ConfigError("--unbounded crashes with --max-crashes 0 asks for no crash and for any "
                          "number of crashes at once; leave --max-crashes at 1 or more")
    return tuple(out)


def counters_read(enc, formula) -> list:
    """The crash counters (``crashes``, ``losses``) that ``formula(d, s)`` reads on a fresh state:
    a property that reads them is refused with ``--unbounded crashes`` (``min(c, TOP)`` does not
    keep every comparison of two counters)."""
    from checker.symbolic.state import fresh

    s = fresh(enc.d, "u")
    names = {"u_crashes": "crashes", "u_losses": "losses"}
    seen, todo, out = set(), [formula(enc.d, s)], []
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and str(t) in names and names[str(t)] not in out:
            out.append(names[str(t)])
        todo.extend(t.children())
    return out


def replay_config(config, unbounded, steps: int):
    """The configuration a trace of ``steps`` steps of the unguarded encoding replays in: the
    crash bounds raised to ``steps`` (a trace past ``--max-crashes`` is a real one of the model
    without a crash bound; the kernel of the configured bound would refuse it)."""
    if "crashes" not in unbounded:
        return config
    b = config.bounds
    more = {"max_crashes": max(b.max_crashes, steps)}
    if config.crash_model != "process":
        more["max_unflushed_losses"] = max(b.max_unflushed_losses, steps)
    return replace(config, bounds=replace(b, **more))


def past_the_bounds(result: ProofResult, unbounded, config) -> ProofResult:
    """A search's answer read for a proof past the bounds: a real counterexample stands (VIOLATED),
    but BFS exhausting the configured bounds (HOLDS) says nothing past them: INCONCLUSIVE."""
    if not unbounded or result.status != HOLDS:
        return result
    why = (f"{result.search}; that covers --max-crashes {config.bounds.max_crashes} only, not "
           f"every number of crashes (--unbounded crashes), so nothing is decided past the bound")
    return replace(result, status=INCONCLUSIVE, settled_by="", search=why)


def scope_line(unbounded, config) -> str:
    """What a PROVED with ``unbounded`` covers, in one line."""
    b = config.bounds
    kept = [f"records <= {b.max_records}", f"leader epochs <= {b.max_leader_epoch}"]
    if b.max_preferred_elections:
        kept.append(f"preferred elections <= {b.max_preferred_elections}")
    if b.max_reassignments:
        kept.append(f"reassignments <= {b.max_reassignments}")
    if b.max_delayed_fetches:  # (issue 29z; review 2026-11-28: it was missing from this line)
        kept.append(f"delayed fetches <= {b.max_delayed_fetches}")
    dropped = "crashes" + {"power-loss": " and unflushed losses",
                           "disk-loss": " and disk losses"}.get(config.crash_model, "")
    return (f"every reachable state with any number of {dropped} (--unbounded crashes: "
            f"--max-crashes {b.max_crashes} is not used) and {', '.join(kept)} satisfies it, "
            f"however long the run")
