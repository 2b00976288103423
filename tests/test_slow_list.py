"""tests/slow_tests.txt names tests that exist: a renamed or deleted test would otherwise leave
its slow twin in make test silently (the list matches pytest node ids exactly)."""

import re
from pathlib import Path

from tests.conftest import slow_list

ROOT = Path(__file__).resolve().parent.parent


def test_every_listed_slow_test_is_a_test_function_of_its_file():
    missing = []
    for nid in sorted(slow_list()):
        path, *names = nid.split("::")
        func = names[-1].split("[")[0]
        source = ROOT / path
        if not source.exists() or not re.search(rf"def {re.escape(func)}\(", source.read_text()):
            missing.append(nid)
    assert not missing, "listed in tests/slow_tests.txt but not found:\n" + "\n".join(missing)


def test_a_listed_test_is_left_to_make_test_slow():
    """Collected under ``-m slow``, deselected by make test's ``-m 'not slow'``."""
    import subprocess
    import sys
    listed = "tests/symbolic/test_elr.py::test_no_acked_loss_is_proved_under_the_elr"
    assert listed in slow_list()

    def collected(marker):
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marker,
                              "tests/symbolic/test_elr.py"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120).stdout
        return {line.strip() for line in out.splitlines() if "::" in line}

    assert listed in collected("slow")
    assert listed not in collected("not slow")
