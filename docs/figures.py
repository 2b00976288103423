"""The figures of the README and the docs, taken from the tool rather than typed:
``python docs/figures.py`` checks them (``tests/test_readme.py`` runs the same check),
``python docs/figures.py --write`` updates the files from fresh runs (``--slow`` runs the
figures marked slow too: ``kmc advise`` on the example files, minutes cold).

What is checked:

* the README's example counterexample: the output of the command it names, run here; only its
  timing (seconds and states/s) may differ;
* the number of strengthening invariants ``kmc prove --strengthen all`` proves with;
* the protocol table: each preset with the Kafka releases ``kmc list`` gives it;
* docs/model.md's known-results table: one line per row of ``scenarios/known-results.toml``
  (written between its marker lines by ``--write``), so its counts are the suite's;
* every *figure block* of ``FILES``: a fenced code block right after a marker line

      <!-- figure: kmc ARGS; OPTION; OPTION ... -->

  holds the output of ``kmc ARGS`` (run in a scratch directory where ``examples/`` is the
  repository's, so files a command writes stay there and later figures of the same page can
  read them). Options: ``prompt`` (the block starts with ``$ kmc ARGS``), ``exit=N`` (the exit
  code to expect), ``keep=1:6,-2:`` (only these lines: 1-based ranges, negative from the end,
  an open end to the last line; ``...`` where lines are left out), ``grep=TEXT`` (only the lines
  containing TEXT; repeatable),
  ``slow`` (run only with ``--slow``). Timings (``12.3 s``, ``45,678 states/s``) may differ; the
  rest must not;
* prose figures of slow blocks: the README's sentence about ``kmc advise`` on the example files
  names the settings, checks and distinct states its figure block in docs/advise.md shows.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import sys
import tempfile
import tomllib

from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.symbolic.strengthen import all_names  # noqa: E402  (after the path: a checkout)
from cli import cli  # noqa: E402
from model.rules import PROTOCOLS  # noqa: E402
from properties import BUILT_IN, PROPERTIES  # noqa: E402

README = ROOT / "README.md"
FILES = (README, ROOT / "docs" / "traces.md", ROOT / "docs" / "ci.md", ROOT / "docs" / "advise.md",
         ROOT / "docs" / "liveness.md")
EXAMPLE = ["check", "-q", "--protocol", "hw-truncation", "-r", "2", "--max-crashes", "2", "-p", "no-acked-loss"]
EXAMPLE_HEAD = f"`kmc {' '.join(EXAMPLE)}` prints (exit code 1):\n\n```\n"
TIMING = re.compile(r"[\d.]+ s \([\d,]+ states/s\)")
SECONDS = re.compile(r"\b\d+(?:\.\d+)? s\b|[\d,]+ states/s|\d+ min \d+ s"
                     r"|\b\d+\.\d(?=\s+(?:pass|FAIL|INCOMPLETE|cached|ERROR|INTERRUPTED)\b)")  # gate's seconds
LIBRARY = re.compile(r"library of (\d+) strengthening invariants")
MARKER = re.compile(r"^<!-- figure: (?P<spec>.*?) -->\n```[^\n]*\n(?P<body>.*?)^```$", re.M | re.S)
ADVISE_PROSE = re.compile(r"\((\d+) settings, ([\d,]+) checks, ([\d,]+) distinct states\)")
MODEL = ROOT / "docs" / "model.md"
KNOWN_RESULTS = ROOT / "scenarios" / "known-results.toml"
TABLE = re.compile(r"^<!-- known-results table: .*? -->\n(?P<body>.*?)^<!-- end of the known-results table -->$",
                   re.M | re.S)
ADVISE_CHECKED = re.compile(r"checked: (\d+) settings, ([\d,]+) checks run \(([\d,]+) distinct states\)")


class FigureError(Exception):
    """A figure's command did not run as its figure says (its exit code changed): one line."""


def example_output() -> str:
    result = CliRunner().invoke(cli, EXAMPLE)
    if result.exit_code != 1:
        raise FigureError(f"README: kmc {' '.join(EXAMPLE)}: exit code {result.exit_code}, the "
                          f"README says 1{_last_line(result.output)}")
    return result.stdout


def _last_line(output: str) -> str:
    """The command's last line of output, to say why its exit code changed."""
    lines = [line for line in output.splitlines() if line.strip()]
    return f" (its last line: {lines[-1].strip()[:200]})" if lines else ""


def strengthening_count() -> int:
    """How many invariants ``kmc prove -p no-acked-loss --strengthen all`` adds."""
    return len([n for n in all_names() if n != "no-acked-loss"])


class Figure:
    """One figure block: where it is, the command, its options and what the file shows (a
    plain class: the tests load this file without registering it as a module)."""

    def __init__(self, path: Path, args: list, options: dict, shown: str, span: tuple):
        self.path, self.args, self.options, self.shown, self.span = path, args, options, shown, span

    @property
    def slow(self) -> bool:
        return "slow" in self.options

    @property
    def label(self) -> str:
        return f"{self.path.relative_to(ROOT)}: kmc {' '.join(self.args)}"


def figures(path: Path, text: str) -> list[Figure]:
    found = []
    for m in MARKER.finditer(text):
        parts = [p.strip() for p in m.group("spec").split(";")]
        command, options = parts[0], {}
        for part in parts[1:]:
            key, _, value = part.partition("=")
            options.setdefault(key.strip(), []).append(value.strip())
        args = shlex.split(command)
        if args[:1] != ["kmc"]:
            raise ValueError(f"{path}: a figure's command starts with kmc: {command!r}")
        found.append(Figure(path, args[1:], options, m.group("body"), m.span("body")))
    return found


def render(figure: Figure, workdir: Path) -> str:
    """The block ``figure`` should show: the command's output, shaped by its options."""
    cwd = os.getcwd()
    os.chdir(workdir)
    loaded = {n: p for n, p in PROPERTIES.items() if n not in BUILT_IN and not p.is_reachability
              and not p.history and not p.by_name}  # properties a test of the same process --loaded: not kmc's
    for name in loaded:
        del PROPERTIES[name]
    try:
        result = CliRunner().invoke(cli, figure.args)
    finally:
        os.chdir(cwd)
        PROPERTIES.update(loaded)
    want = int(figure.options.get("exit", ["0"])[0])
    if result.exit_code != want:
        raise FigureError(f"{figure.label}: exit code {result.exit_code}, the figure says "
                          f"{want}{_last_line(result.output)}")
    lines = [line.rstrip() for line in result.stdout.rstrip("\n").split("\n")]
    for text in figure.options.get("grep", []):
        lines = [line for line in lines if text in line]
    if "keep" in figure.options:
        lines = _keep(lines, figure.options["keep"][0])
    if "prompt" in figure.options:
        lines.insert(0, "$ kmc " + " ".join(shlex.quote(a) for a in figure.args))
    return "\n".join(lines) + "\n"


def _keep(lines: list, spec: str) -> list:
    chosen: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.partition(":") if ":" in part else (part, "", part)
        first = _index(int(lo), len(lines))
        last = _index(int(hi), len(lines)) if hi else len(lines) - 1
        chosen += [i for i in range(first, last + 1) if i not in chosen]
    out, previous = [], -1
    for i in chosen:
        if i > previous + 1:
            out.append("...")
        out.append(lines[i])
        previous = i
    if previous < len(lines) - 1:
        out.append("...")
    return out


def _index(n: int, size: int) -> int:
    return n - 1 if n > 0 else size + n


def _same(a: str, b: str) -> bool:
    def norm(text):
        return [SECONDS.sub("T", line.rstrip()) for line in text.strip("\n").split("\n")]
    return norm(a) == norm(b)


@contextlib.contextmanager
def _workdir():
    """A scratch directory for the figures' commands (they write reports and traces), removed
    afterwards: every README check used to leave one in $TMPDIR."""
    with tempfile.TemporaryDirectory(prefix="kmc-figures-") as name:
        work = Path(name)
        (work / "examples").symlink_to(ROOT / "examples")
        yield work


def block_problems(path: Path, text: str, *, slow: bool = False) -> list:
    """What in ``path``'s figure blocks disagrees with the tool, one entry each."""
    out = []
    with _workdir() as work:
        for figure in figures(path, text):
            if figure.slow and not slow:
                continue
            try:
                real = render(figure, work)
            except FigureError as e:
                out.append(str(e))
                continue
            if not _same(figure.shown, real):
                first = next((f"shown: {a!r}\n  kmc:   {b!r}" for a, b in zip(
                    figure.shown.split("\n"), real.split("\n"))
                    if SECONDS.sub("T", a.rstrip()) != SECONDS.sub("T", b.rstrip())),
                    "the number of lines differs")
                out.append(f"{figure.label}: the figure differs from a real run:\n  {first}")
    return out


def write_blocks(path: Path, text: str, *, slow: bool = False) -> str:
    """``text`` with every figure block (the slow ones only with ``slow``) from a fresh run."""
    pieces, last = [], 0
    with _workdir() as work:
        for figure in figures(path, text):
            real = render(figure, work) if (slow or not figure.slow) else figure.shown
            start, end = figure.span
            pieces += [text[last:start], real]
            last = end
    return "".join(pieces) + text[last:]


def prose_problems(texts: dict) -> list:
    """The README's figures of the slow advise run agree with docs/advise.md's block."""
    advise = texts.get(ROOT / "docs" / "advise.md", "")
    checked = ADVISE_CHECKED.search(advise)
    said = ADVISE_PROSE.findall(texts.get(README, ""))
    if checked is None:
        return ["docs/advise.md has no figure block with kmc advise's 'checked:' line"]
    if not said:
        return ["the README no longer names the settings, checks and states of kmc advise's run"]
    want = tuple(x.replace(",", "") for x in checked.groups())
    return [f"the README says {', '.join(s)} for kmc advise's run; docs/advise.md's run says "
            f"{', '.join(want)}" for s in said if tuple(x.replace(",", "") for x in s) != want]


def problems(text: str) -> list:
    """What in the README's ``text`` disagrees with the tool, one line each."""
    out = []
    try:
        shown = text.split(EXAMPLE_HEAD, 1)[1].split("```", 1)[0]
    except IndexError:
        shown = None
        out.append(f"the README no longer shows the output of `kmc {' '.join(EXAMPLE)}`")
    if shown is not None:
        try:
            real = example_output()
        except FigureError as e:
            out.append(str(e))
            real = shown
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


def known_results_table(suite: Path = KNOWN_RESULTS) -> str:
    """docs/model.md's known-results table: one line per row of the suite, its configuration
    (what it sets beyond the suite's defaults) and the verdict it pins."""
    data = tomllib.loads(suite.read_text(encoding="utf-8"))
    defaults = data.get("defaults", {})
    lines = ["| row | configuration (beyond the suite's defaults) | pinned verdict |", "| --- | --- | --- |"]
    for row in data["check"]:
        where = [f"Kafka {row['kafka-version']}" if "kafka-version" in row else
                 f"`{row['protocol']}`" if "protocol" in row else "(default protocol)"]
        where += [f"`--rule {r}`" for r in row.get("rules", [])]
        where += [f"{key}={_toml_value(value)}" for key, value in row.items()
                  if key not in _NOT_SETTINGS and defaults.get(key) != value]
        if row["expect"] == "violated":
            violates = [row["violates"]] if "violates" in row else row.get("properties", [])  # liveness
            verdict = (", ".join(f"`{p}`" for p in violates) + " VIOLATED"
                       + (f", {row['trace-length']} steps" if "trace-length" in row else ""))
        else:
            props = row.get("properties")
            verdict = "HOLDS: " + ("every invariant" if props == "all" else
                                   ", ".join(f"`{p}`" for p in props) if props else "kmc check's default set")
        cells = [row["name"], ", ".join(where), verdict]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


_NOT_SETTINGS = {"name", "rests-on", "description", "expect", "violates", "trace-length",
                 "properties", "kafka-version", "protocol", "rules"}


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def table_problems(text: str) -> list:
    """docs/model.md's known-results table disagrees with scenarios/known-results.toml."""
    m = TABLE.search(text)
    if m is None:
        return ["docs/model.md has no generated known-results table (its marker lines are gone)"]
    if m.group("body") != known_results_table():
        return ["docs/model.md's known-results table differs from scenarios/known-results.toml"]
    return []


def write_table(text: str) -> str:
    m = TABLE.search(text)
    return text if m is None else text[:m.start("body")] + known_results_table() + text[m.end("body"):]


def all_problems(*, slow: bool = False) -> list:
    texts = {path: path.read_text(encoding="utf-8") for path in FILES}
    out = problems(texts[README])
    for path, text in texts.items():
        out += block_problems(path, text, slow=slow)
    out += table_problems(MODEL.read_text(encoding="utf-8"))
    return out + prose_problems(texts)


def write(text: str) -> str:
    """``text`` with the example output and the strengthening count from the tool."""
    before, rest = text.split(EXAMPLE_HEAD, 1)
    after = rest.split("```", 1)[1]
    text = before + EXAMPLE_HEAD + example_output() + "```" + after
    return LIBRARY.sub(f"library of {strengthening_count()} strengthening invariants", text)


def main() -> int:
    slow = "--slow" in sys.argv[1:]
    if "--write" in sys.argv[1:]:
        fresh = {}
        for path in FILES:  # every file is run before any is written: a figure that fails leaves all
            text = path.read_text(encoding="utf-8")
            try:
                fresh[path] = write_blocks(path, write(text) if path == README else text, slow=slow)
            except FigureError as e:
                print(f"{e}; nothing was written (fix the command or its exit=N)")
                return 1
        for path, text in fresh.items():
            path.write_text(text, encoding="utf-8")
        MODEL.write_text(write_table(MODEL.read_text(encoding="utf-8")), encoding="utf-8")
        advise = (ROOT / "docs" / "advise.md").read_text(encoding="utf-8")
        checked = ADVISE_CHECKED.search(advise)
        if checked is not None:  # the README's sentence about the advise run, from its block
            settings, checks, states = checked.groups()
            README.write_text(ADVISE_PROSE.sub(
                f"({settings} settings, {checks} checks, {states} distinct states)",
                README.read_text(encoding="utf-8")), encoding="utf-8")
    found = all_problems(slow=slow)
    for line in found:
        print(line)
    print("figures agree with the tool" if not found else f"{len(found)} figure(s) to update")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
