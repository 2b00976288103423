"""Which strengthening invariants are false on a reachable state? The check every new invariant
needs before it goes into the library (a wrong one cannot make a proof unsound, only make it
fail, but it must not cost a proof that should go through).

BFS over the compiled model (``model.make_model``), one state per class of broker renamings, each
state checked with every predicate asked for as it is found; only the canonical rows are kept, so
a few hundred thousand states fit in well under a GiB. Used by the tests, `bench/symbolic_bench.py --check-library`, and by hand for
configurations too large for them::

    nice -n 19 .venv/bin/python -m checker.symbolic.strengthen.reachable --kafka-version 2.1 -r 3 \\
        --rule +reset-followers-on-epoch --max-leader-epoch 3 --max-crashes 2
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

from checker.symbolic.scope import require_encoded
from checker.symbolic.strengthen import STRENGTHENINGS
from model import make_model
from model.constants import CRASH_MODELS
from model.errors import ConfigError
from model.options import config_from_options


def false_on_reachable(config, names=None, *, max_states=None):
    """BFS over ``config``'s reachable states checking the strengthening invariants ``names``
    (default: all). Returns ``(states explored, complete, {name: (states false on, first such
    state)})``; ``complete`` is False when ``max_states`` stopped the search."""
    names = list(STRENGTHENINGS) if names is None else list(names)
    checks = [(n, STRENGTHENINGS[n]) for n in names]
    model = make_model(config)
    false: dict = {}
    seen = set()
    frontier = []
    for s in model.init_states():
        key = model.canonical(s)
        if key not in seen:
            seen.add(key)
            frontier.append(s)
    done = 0
    while frontier:
        nxt = []
        for s in frontier:
            done += 1
            for name, st in checks:
                if not st.holds(s, config):
                    count, first = false.get(name, (0, s))
                    false[name] = (count + 1, first)
            if max_states is not None and done >= max_states:
                return done, False, false
            for _, t in model.successors(s):
                key = model.canonical(t)
                if key not in seen:
                    seen.add(key)
                    nxt.append(t)
        frontier = nxt
    return done, True, false


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m checker.symbolic.strengthen.reachable",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--kafka-version")
    ap.add_argument("--protocol")
    ap.add_argument("-r", "--replication-factor", type=int, default=3)
    ap.add_argument("--rule", action="append", default=[])
    ap.add_argument("--max-records", type=int)
    ap.add_argument("--max-leader-epoch", type=int)
    ap.add_argument("--max-crashes", type=int)
    ap.add_argument("--max-preferred-elections", type=int)
    ap.add_argument("--max-reassignments", type=int)
    ap.add_argument("--crash-model", choices=CRASH_MODELS)
    ap.add_argument("--max-unflushed-losses", type=int)
    ap.add_argument("--max-delayed-fetches", type=int)  # issue 29z
    ap.add_argument("--max-controlled-shutdowns", type=int)  # issue 29ac
    ap.add_argument("--max-session-expiries", type=int)  # issue 29ac
    ap.add_argument("--max-controller-failovers", type=int)  # issue 29ak
    ap.add_argument("--max-stale-metadata-reads", type=int)  # issue 29bc
    ap.add_argument("--hw-checkpoint", choices=("immediate", "interval"))  # the HW checkpoint file
    ap.add_argument("--consumer-commit", choices=("before", "after"))  # issue 29be
    ap.add_argument("--max-consumer-restarts", type=int)  # issue 29be
    ap.add_argument("--fetch-from-followers", action="store_true")  # issue 29bf (KIP-392)
    ap.add_argument("--track-reads", action="store_true",
                    help="keep what consumers read (no-read-loss's history; issue 29bf)")
    ap.add_argument("--max-states", type=int)
    ap.add_argument("--only", action="append", help="an invariant's name (repeatable; default all)")
    args = ap.parse_args(argv)
    bounds = {k: v for k, v in (("max_records", args.max_records),
                                ("max_leader_epoch", args.max_leader_epoch),
                                ("max_crashes", args.max_crashes),
                                ("max_preferred_elections", args.max_preferred_elections),
                                ("max_reassignments", args.max_reassignments),
                                ("max_unflushed_losses", args.max_unflushed_losses),
                                ("max_delayed_fetches", args.max_delayed_fetches),
                                ("max_controlled_shutdowns", args.max_controlled_shutdowns),
                                ("max_session_expiries", args.max_session_expiries),
                                ("max_controller_failovers", args.max_controller_failovers),
                                ("max_stale_metadata_reads", args.max_stale_metadata_reads),
                                ("max_consumer_restarts", args.max_consumer_restarts))
              if v is not None}
    if args.crash_model:  # the library is built for process crashes (docs/symbolic.md, issue 29e)
        bounds["crash_model"] = args.crash_model
    if args.hw_checkpoint:
        bounds["hw_checkpoint"] = args.hw_checkpoint
    if args.consumer_commit:
        bounds["consumer_commit"] = args.consumer_commit
    try:
        config = config_from_options(kafka_version=args.kafka_version, protocol=args.protocol,
                                     replication_factor=args.replication_factor,
                                     rule_changes=tuple(args.rule), **bounds)[0]
        if args.track_reads or args.fetch_from_followers:  # (issue 29bf)
            config = replace(config, track_reads=True,
                             fetch_from_followers=args.fetch_from_followers)
        require_encoded(config)  # the library's facts are about the rule sets the encoding has
    except ConfigError as e:
        print(f"reachable: error: {e}", file=sys.stderr)
        return 2
    unknown = [n for n in args.only or () if n not in STRENGTHENINGS]
    if unknown:
        print(f"reachable: no strengthening invariant named {unknown[0]!r}", file=sys.stderr)
        return 2
    started = time.monotonic()
    n, complete, false = false_on_reachable(config, args.only, max_states=args.max_states)
    names = args.only or list(STRENGTHENINGS)
    print(f"{len(names)} invariants on {n:,} reachable states "
          f"({'all of them' if complete else 'stopped at --max-states'}), bounds "
          f"{ {k: v for k, v in config.bounds.as_dict().items() if v} }, crash model {config.crash_model}, "
          f"{time.monotonic() - started:.1f} s")
    for name, (count, first) in false.items():
        print(f"  FALSE {name} on {count:,} states, first:\n    {first}")
    if not false:
        print("  every one holds")
    return 1 if false else (0 if complete else 3)


if __name__ == "__main__":
    sys.exit(main())
