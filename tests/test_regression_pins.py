"""Every ``distinct_states == N`` a test pins is listed in tests/regression_pins.py, with what
checks it besides the kernel (or that nothing does)."""

import re
from pathlib import Path

from tests.regression_pins import PINS

ROOT = Path(__file__).resolve().parent.parent
PINNED = re.compile(r"distinct_states\s*==\s*(\d[\d_]*)\b")


def test_every_pinned_state_count_is_listed_with_its_second_computation_or_as_a_regression_pin():
    found = set()
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for m in PINNED.finditer(path.read_text(encoding="utf-8")):
            found.add((str(path.relative_to(ROOT)), int(m.group(1).replace("_", ""))))
    found = {pin for pin in found if pin[1] not in (1000,)}  # max-states limits, not counts
    unlisted = sorted(found - set(PINS))
    assert unlisted == [], f"pinned state counts not in tests/regression_pins.py: {unlisted}"
    stale = sorted(set(PINS) - found)
    assert stale == [], f"tests/regression_pins.py lists counts no test pins any more: {stale}"
