"""The compiled engine against the reference engine on every known-results row.

For each row of scenarios/known-results.toml both engines run the same check; the table shows
their distinct and generated counts, depth, verdicts with shortest-trace lengths, seconds,
and whether everything but the seconds is equal. ``--pin FILE`` also writes the reference
engine's figures as JSON (tests/data/reference-figures.json holds those of the rows too slow to
run the reference engine in the test suite; tests/unit/test_compiled_engine.py compares the
compiled engine with them).

    python bench/engines.py [--rows SUBSTRING] [--pin FILE] [--only-slow]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker import check  # noqa: E402
from tests.unit.test_compiled_engine import SLOW_ROWS, rows, summary  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="", help="only rows whose name contains this")
    ap.add_argument("--only-slow", action="store_true", help="only the rows pinned for the tests")
    ap.add_argument("--pin", metavar="FILE", help="write the reference figures of the rows run")
    args = ap.parse_args()
    pins, all_equal = {}, True
    print(f"{'row':<58} {'engine':<9} {'distinct':>9} {'generated':>10} {'depth':>5} {'seconds':>8}  equal")
    for name, config, props in rows():
        if args.rows not in name or (args.only_slow and name not in SLOW_ROWS):
            continue
        figures = {}
        for engine in ("compiled", "reference"):
            started = time.monotonic()
            result = check(config, props, engine=engine)
            figures[engine] = (summary(result), time.monotonic() - started)
        equal = figures["compiled"][0] == figures["reference"][0]
        all_equal &= equal
        for engine, (s, seconds) in figures.items():
            print(f"{name[:58]:<58} {engine:<9} {s['distinct']:>9,} {s['generated']:>10,} "
                  f"{s['depth']:>5} {seconds:>8.1f}  {'yes' if equal else 'NO'}")
        pins[name] = figures["reference"][0]
    if args.pin:
        Path(args.pin).write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
        print(f"reference figures written to {args.pin}")
    print("every row equal" if all_equal else "ROWS DIFFER")
    return 0 if all_equal else 1


if __name__ == "__main__":
    sys.exit(main())
