"""The README's figures, taken from the tool rather than typed: ``python docs/figures.py`` checks
them (``tests/test_readme.py`` runs the same check), ``python docs/figures.py --write`` updates
the README from a fresh run.

* the example counterexample: the README shows the output of the command it names, which is
  run here; only its timing (seconds and states/s) may differ;
* the number of strengthening invariants ``kmc prove --strengthen all`` proves with;
* the protocol table: each preset with the Kafka releases ``kmc list`` gives it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.symbolic.strengthen import all_names  # noqa: E402  (after the path: a checkout)
from cli import cli  # noqa: E402
from model.rules import PROTOCOLS  # noqa: E402

README = ROOT / "README.md"
EXAMPLE = ["check", "-q", "--protocol", "hw-truncation", "-r", "2", "-p", "no-acked-loss"]
EXAMPLE_HEAD = f"`kmc {' '.join(EXAMPLE)}` prints (exit code 1):\n\n```\n"
TIMING = re.compile(r"[\d.]+ s \([\d,]+ states/s\)")
LIBRARY = re.compile(r"library of (\d+) strengthening invariants")


def example_output() -> str:
    result = CliRunner().invoke(cli, EXAMPLE)
    assert result.exit_code == 1, result.output
    return result.stdout


def strengthening_count() -> int:
    """How many invariants ``kmc prove -p no-acked-loss --strengthen all`` adds."""
    return len([n for n in all_names() if n != "no-acked-loss"])


def problems(text: str) -> list:
    """What in the README's ``text`` disagrees with the tool, one line each."""
    out = []
    try:
        shown = text.split(EXAMPLE_HEAD, 1)[1].split("```", 1)[0]
    except IndexError:
        shown = None
        out.append(f"the README no longer shows the output of `kmc {' '.join(EXAMPLE)}`")
    if shown is not None:
        real = example_output()
        if TIMING.sub("T", shown) != TIMING.sub("T", real):
            first = next((f"README: {a!r}\n  kmc:    {b!r}" for a, b in zip(shown.splitlines(),
                          real.splitlines()) if TIMING.sub("T", a) != TIMING.sub("T", b)),
                         "the number of lines differs")
            out.append(f"the example output differs from a real run:\n  {first}")
    counts = [int(n) for n in LIBRARY.findall(text)]
    if counts != [strengthening_count()] * len(counts) or not counts:
        out.append(f"the README says {counts} strengthening invariants; "
                   f"kmc prove --strengthen all uses {strengthening_count()}")
    for name, protocol in PROTOCOLS.items():
        if f"| `{name}` | {protocol.versions} |" not in text:
            out.append(f"the protocol table's row for {name} does not say Kafka {protocol.versions}")
    return out


def write(text: str) -> str:
    """``text`` with the example output and the strengthening count from the tool."""
    before, rest = text.split(EXAMPLE_HEAD, 1)
    after = rest.split("```", 1)[1]
    text = before + EXAMPLE_HEAD + example_output() + "```" + after
    return LIBRARY.sub(f"library of {strengthening_count()} strengthening invariants", text)


def main() -> int:
    text = README.read_text(encoding="utf-8")
    if "--write" in sys.argv[1:]:
        README.write_text(write(text), encoding="utf-8")
        text = README.read_text(encoding="utf-8")
    found = problems(text)
    for line in found:
        print(line)
    print("README figures agree with the tool" if not found else f"{len(found)} figure(s) to update")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
