"""The verdict of every known-results row with and without kmc's time abstraction, as the table
in docs/model.md ("Time"): each row of ``scenarios/known-results.toml`` is run as it stands
(kmc's default, the untimed over-approximation: a leader may remove any lagging follower at
any time) and again with ``--rule +timed`` (a leader removes a follower only if it can have
stayed behind for replica.lag.time.max.ms).

    python docs/time_table.py            # print the table
    python docs/time_table.py --write    # and put it in docs/model.md between its markers

It runs the whole suite twice (minutes; the time each row took is in the JSON of ``kmc gate``).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gate.run import run_check  # noqa: E402
from gate.suite import load_suite  # noqa: E402

SUITE = ROOT / "scenarios" / "known-results.toml"
MODEL_MD = ROOT / "docs" / "model.md"
BEGIN, END = "<!-- time-table: python docs/time_table.py --write -->", "<!-- /time-table -->"


def timed(spec):
    """``spec`` with ``+timed`` after its own rule changes."""
    config = dataclasses.replace(spec.config, rule_changes=(*spec.config.rule_changes, "+timed"))
    return dataclasses.replace(spec, config=config)


def verdict(outcome) -> str:
    """The verdict in a few words: holds, or the violated properties with trace lengths."""
    return outcome.got.replace("|", "/")


def table(progress=print) -> str:
    lines = ["| known-results row | untimed (kmc's default) | timed (`--rule +timed`) |",
             "| --- | --- | --- |"]
    for spec in load_suite(str(SUITE)).checks:
        loose, strict = run_check(spec), run_check(timed(spec))
        same = "" if strict.got == loose.got else " **(differs)**"
        lines.append(f"| {spec.name.replace('|', '/')} | {verdict(loose)} | {verdict(strict)}{same} |")
        progress(lines[-1])
    return "\n".join(lines)


def write(text: str) -> None:
    doc = MODEL_MD.read_text()
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    MODEL_MD.write_text(doc[:start] + "\n" + text + "\n" + doc[end:])


def main(argv) -> int:
    text = table(progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(text)
    if "--write" in argv:
        write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
