"""Write tests/slow_tests.txt from a measured `make test`: every test that took longer than a
threshold goes to `make test-slow`, except the few `make test` keeps on purpose (KEEP, each with
its reason).

Why a measured list and not hand-picked marks: `make test` grew past CI's 25-minute line three
times as the z3 library grew (docs/testing.md, "Slow tests"); each trim picked tests by hand
from a durations list. The fourth trim made the rule the mechanism: measure a whole run once,
move what is over the threshold, keep the named exceptions. tests/conftest.py marks every test
named in tests/slow_tests.txt `slow`, as `@pytest.mark.slow` would.

    .venv/bin/python -m pytest -q --junitxml=out/make-test.xml      # a whole make test
    .venv/bin/python bench/slow_tests.py out/make-test.xml --over 6   # rewrites the list

Tests already marked slow in code do not appear in the JUnit file and stay slow. A test the list
names that no longer exists is reported by tests/test_slow_list.py.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

LIST = Path(__file__).resolve().parent.parent / "tests" / "slow_tests.txt"

KEEP = {
    "test_the_known_results_suite_is_green":
        "DESIGN.md's known-results table through `kmc gate`; CI keeps its JUnit report",
    "test_acks_all_survives_kill_9_of_the_leader_and_no_jvm_is_left":
        "the one real Kafka cluster in make test (kill -9 of the leader, acks=all)",
    "test_kernel_successors_equal_the_reference_models_on_every_reachable_state":
        "the kernel (the model) against the reference model on every reachable state",
    "test_killed_executor_gives_the_same_result":
        "the one real Spark standalone master and worker (127.0.0.1) in make test",
    "test_the_library_proves_no_acked_loss_and_committed_consistency_for_kip_320":
        "one k-induction proof of the z3 library end to end",
}


def node_id(classname: str, name: str) -> str:
    """pytest's node id from a JUnit testcase: ``tests.unit.test_x.TestY`` + ``test_z[p]``
    -> ``tests/unit/test_x.py::TestY::test_z[p]``."""
    parts = classname.split(".")
    module_end = max(i for i, p in enumerate(parts) if p.startswith("test")
                     and not p[:1].isupper() and not p.startswith("Test"))
    path = "/".join(parts[:module_end + 1]) + ".py"
    return "::".join([path, *parts[module_end + 1:], name])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("junit", type=Path, help="JUnit XML of a whole make test run")
    ap.add_argument("--over", type=float, default=6.0,
                    help="seconds (wall, setup included) above which a test goes to make test-slow")
    args = ap.parse_args(argv)
    if args.over <= 0:
        print("slow_tests: --over must be a positive number of seconds", file=sys.stderr)
        return 2
    try:
        cases = list(ET.parse(args.junit).iter("testcase"))
    except (OSError, ET.ParseError) as e:
        print(f"slow_tests: cannot read {args.junit}: {e}", file=sys.stderr)
        return 2
    total = sum(float(c.get("time", 0)) for c in cases)
    slow, kept = [], []
    for c in cases:
        t = float(c.get("time", 0))
        if t < args.over:
            continue
        (kept if c.get("name").split("[")[0] in KEEP else slow).append((t, node_id(c.get("classname"), c.get("name"))))
    moved = sum(t for t, _ in slow)
    lines = [f"# Tests make test leaves to make test-slow: each took over {args.over:g} s in the run of",
             f"# {args.junit.name} (written by bench/slow_tests.py; tests/conftest.py marks them slow).",
             f"# That run: {len(cases)} tests, {total:.0f} s; these {len(slow)}: {moved:.0f} s; left: {total - moved:.0f} s.",
             "# Kept in make test although over the threshold: " + ", ".join(sorted(KEEP)) + "."]
    lines += [f"{nid}  # {t:.1f} s" for t, nid in sorted(slow, key=lambda x: x[1])]
    LIST.write_text("\n".join(lines) + "\n")
    print(f"{LIST}: {len(slow)} tests to make test-slow ({moved:.0f} s of {total:.0f} s); "
          f"{len(kept)} over the threshold kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
