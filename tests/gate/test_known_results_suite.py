"""The known-results suite (scenarios/known-results.toml) runs inside ``make test``, through the
real ``kmc gate``, and every row says what its expectation rests on.

``.ci/run`` gets the suite's JUnit report from here (``KMC_GATE_JUNIT``) instead of running the
gate a second time."""

from __future__ import annotations

import os
from pathlib import Path

from gate.suite import OUTSIDE_KINDS, REGRESSION_PIN, load_suite

SUITE = Path(__file__).resolve().parents[2] / "scenarios" / "known-results.toml"
SLOW = SUITE.with_name("slow-results.toml")  # `make gate-slow`: loaded here, not run


def test_every_row_says_what_it_rests_on():
    for path in (SUITE, SLOW):
        suite = load_suite(str(path))
        unstated = [c.name for c in suite.checks if c.evidence == "unstated"]
        assert unstated == [], f"{path.name}: rows without rests-on: {unstated}"
        kinds = {kind for c in suite.checks for kind, _ in c.rests_on}
        assert kinds <= {*OUTSIDE_KINDS, REGRESSION_PIN}


def test_a_slow_row_is_not_also_a_row_of_the_fast_suite():
    fast = {c.name for c in load_suite(str(SUITE)).checks}
    slow = [c.name for c in load_suite(str(SLOW)).checks]
    assert slow and not fast & set(slow)


def test_the_known_results_suite_is_green(kmc, tmp_path):
    junit = os.environ.get("KMC_GATE_JUNIT") or str(tmp_path / "known-results.xml")
    r = kmc("gate", str(SUITE), "--junit", junit, "--force", "-q")
    assert r.exit_code == 0, r.output[-6000:]
    suite = load_suite(str(SUITE))
    outside = sum(c.evidence == "outside" for c in suite.checks)
    pins = sum(c.evidence == REGRESSION_PIN for c in suite.checks)
    assert outside + pins == len(suite.checks)
    assert (f"evidence: {outside} rows rest on an outside source" in r.stdout
            and f", {pins} are regression pins (kmc's own output only)" in r.stdout), r.stdout[-2000:]
