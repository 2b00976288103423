"""kmc's proof ledger: the results of ``kmc prove`` that docs/symbolic.md reports, as named data
that can be checked without proving and re-run on demand.

``kmc gate`` holds ``kmc check`` to the known-results table on every ``make test``. Proofs take
seconds to half an hour each, so they cannot run there; without a ledger a PROVED in the docs is
a sentence about one run on one day, and a library change that breaks it would go unseen. The
ledger (``scenarios/proofs.toml``) lists each result once::

    [[proof]]
    id = "2.1-own-rule-rf2"
    what = "Kafka 2.1, its own follower-LEO rule, RF=2"
    argv = "--kafka-version 2.1 -r 2 -p no-acked-loss -s all --search none"
    expect = "PROVED"
    invariants = 110
    section = "Kafka's own follower-LEO rule in the proof (issue 29k)"
    measured = "PROVED, 110 invariants, ..."
    minutes = 2

``argv`` is ``kmc prove``'s command line after the word ``prove``; ``expect`` the status it
ends on (``PROVED``, ``HOLDS`` by exhaustive search, ``VIOLATED`` or ``FAILED`` with a real
counterexample of ``steps`` steps, or ``INCONCLUSIVE``: a gap the docs report); ``invariants``
the conjuncts the docs' run used; ``section`` the docs/symbolic.md heading that reports it;
``measured`` the figure quoted there (what was seen, on which day); ``minutes`` a rough cost,
so a run can leave the long rows out.

Three uses, ``python -m commands.proofs [LEDGER]``:

* ``--dry-run`` (``make test`` does this: ``tests/gate/test_proofs.py``): every row's command is
  read as ``kmc prove`` reads it and put through every check the proof makes before z3 starts
  (``checker.symbolic.induction.check_request``): the encoding has the configuration, the
  property and invariants exist. A row that ``kmc prove`` would refuse fails here, at once.
* a run (``make proofs``): the same checks first, then each row as its own ``kmc prove ARGV
  --json -q --time-limit LIMIT`` process, in its own process group, stopped at its limit
  (``--timeout``, default four times its ``minutes`` and at least ten minutes; the child's own
  ``--time-limit`` is the backstop), on Ctrl-C, SIGTERM and SIGHUP to the runner and on failure.
  One line a row: **as expected**; **DIFFERENT** (the status differs, a counterexample's length
  differs from ``steps``, or a gap the ledger reports was closed: update the row); **ERROR**
  (``kmc prove`` ended without a result: a crash, or it refused the row); **not decided** (its
  time limit, or z3 gave up). An invariant count other than the ledger's is a note, not a
  difference (the library grows). Exit code 0 every row as expected, 1 some DIFFERENT or ERROR,
  3 none of those but some not decided, no row run, or interrupted, 2 bad input (one line).
  ``--json FILE`` keeps the run (its start, the commit, each row's command, expectation and
  outcome, the rows left out), rewritten after every row, so an interrupted run keeps what it
  did.
* ``--markdown``: the ledger as the table of docs/proofs.md (the test holds the docs to it).

A row's ``measured`` is what the docs saw, not what this run sees: the run's own times are in
its output (wall and CPU seconds a row) and in ``--json`` with the commit and the start time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from model.errors import KmcError

LEDGER = "scenarios/proofs.toml"
DOCS = "docs/symbolic.md"
ROOT = Path(__file__).resolve().parent.parent

EXPECTS = ("PROVED", "HOLDS", "VIOLATED", "FAILED", "INCONCLUSIVE")
REQUIRED = ("id", "what", "argv", "expect", "section", "measured", "minutes")
OPTIONAL = ("invariants", "steps")
RESERVED = ("--json", "--quiet", "-q", "--help", "--time-limit")  # the runner's own options: a row may not hold them
ID = re.compile(r"^[a-z0-9][a-z0-9.+-]{0,79}$")
MAX_LEDGER_BYTES = 1 << 20
MIN_TIMEOUT = 600.0

AS_EXPECTED, DIFFERENT, ERROR, UNDECIDED = "as expected", "DIFFERENT", "ERROR", "not decided"
OUTCOMES = (AS_EXPECTED, DIFFERENT, ERROR, UNDECIDED)
GRACE = 60.0  # past a row's limit, the seconds kmc prove gets to stop on its own --time-limit
UNDECIDED_STATUSES = ("UNKNOWN", "INTERRUPTED")


class LedgerError(KmcError):
    """A ledger that cannot run: the message names the file, the row and the key."""


@dataclass(frozen=True)
class ProofRow:
    """One result of ``kmc prove`` the docs report."""

    id: str
    what: str
    argv: str
    expect: str
    section: str
    measured: str
    minutes: float
    invariants: int | None = None
    steps: int | None = None

    @property
    def args(self) -> list:
        return shlex.split(self.argv)

    @property
    def command(self) -> str:
        return f"kmc prove {self.argv}"

    @property
    def property(self) -> str:
        """The property the row proves (``-p``/``--property``), as its command names it."""
        args = self.args
        for i, a in enumerate(args):
            if a in ("-p", "--property") and i + 1 < len(args):
                return args[i + 1]
            if a.startswith("--property="):
                return a.split("=", 1)[1]
        return "?"


@dataclass
class RowOutcome:
    """What one run of a row gave, as plain data."""

    id: str
    outcome: str  # one of OUTCOMES
    detail: str
    status: str = ""
    invariants: int | None = None
    trace_length: int | None = None
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    notes: list = field(default_factory=list)


def load(path: str | Path = LEDGER) -> list:
    """The ledger's rows, each checked for its keys and their types (not yet run): a
    ``LedgerError`` names the file, the row and the key."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_LEDGER_BYTES:
            raise LedgerError(f"{path}: larger than {MAX_LEDGER_BYTES} bytes; is it a ledger?")
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LedgerError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise LedgerError(f"{path}: a directory, not a ledger file") from None
    except UnicodeDecodeError:
        raise LedgerError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise LedgerError(f"{path}: not valid TOML: {e}") from None
    except OSError as e:
        raise LedgerError(f"{path}: cannot read: {e.strerror or e}") from None
    extra = sorted(set(data) - {"proof"})
    if extra:
        raise LedgerError(f"{path}: unknown top-level key {extra[0]!r}; a ledger is [[proof]] tables")
    rows = data.get("proof")
    if not isinstance(rows, list) or not rows:
        raise LedgerError(f"{path}: no [[proof]] rows")
    out, seen = [], set()
    for n, raw in enumerate(rows, 1):
        row = _row(path, n, raw)
        if row.id in seen:
            raise LedgerError(f"{path}: row {n}: id {row.id!r} is used twice")
        seen.add(row.id)
        out.append(row)
    return out


def _row(path, n, raw) -> ProofRow:
    where = f"{path}: row {n}"
    if not isinstance(raw, dict):
        raise LedgerError(f"{where}: not a table")
    if isinstance(raw.get("id"), str):
        where += f" ({raw['id'][:80]})"
    unknown = sorted(set(raw) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise LedgerError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(REQUIRED + OPTIONAL)})")
    for key in REQUIRED:
        if key not in raw:
            raise LedgerError(f"{where}: no {key!r}")
    for key in ("id", "what", "argv", "expect", "section", "measured"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise LedgerError(f"{where}: {key!r} must be a non-empty string")
    if not ID.match(raw["id"]):
        raise LedgerError(f"{where}: id must be lowercase letters, digits, '.', '+' and '-', "
                          f"at most 80 characters")
    if raw["expect"] not in EXPECTS:
        raise LedgerError(f"{where}: expect must be one of {', '.join(EXPECTS)}, got {raw['expect']!r}")
    minutes = raw["minutes"]
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not 0 < minutes <= 600:
        raise LedgerError(f"{where}: minutes must be a number above 0 and at most 600")
    for key in OPTIONAL:
        value = raw.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise LedgerError(f"{where}: {key!r} must be a whole number >= 0")
    if raw.get("steps") is not None and raw["expect"] not in ("VIOLATED", "FAILED"):
        raise LedgerError(f"{where}: 'steps' is a counterexample's length: only with expect "
                          f"VIOLATED or FAILED")
    try:
        args = shlex.split(raw["argv"])
    except ValueError as e:
        raise LedgerError(f"{where}: argv cannot be split as a command line: {e}") from None
    reserved = [a for a in args if a.split("=")[0] in RESERVED]
    if reserved:
        raise LedgerError(f"{where}: argv holds {reserved[0]}, which the runner adds itself")
    return ProofRow(raw["id"], raw["what"].strip(), raw["argv"].strip(), raw["expect"],
                    raw["section"].strip(), raw["measured"].strip(), float(minutes),
                    raw.get("invariants"), raw.get("steps"))


def check_row(row: ProofRow) -> None:
    """Read the row's command as ``kmc prove`` does and make every check the proof makes before
    z3 starts; a ``LedgerError`` names the row and what ``kmc prove`` would say."""
    import click

    from checker.symbolic.induction import check_request
    from commands.prove import proof_request, prove_command

    try:
        ctx = prove_command.make_context("prove", row.args, resilient_parsing=False)
    except click.ClickException as e:
        raise LedgerError(f"row {row.id}: kmc prove would refuse its argv: {e.format_message()}") from None
    params = dict(ctx.params)
    params.pop("quiet", None)
    params.pop("as_json", None)
    try:
        config, asked = proof_request(**params)
        check_request(config, params["prop"], **asked)
    except KmcError as e:
        raise LedgerError(f"row {row.id}: kmc prove would refuse it: {e}") from None
    except click.ClickException as e:  # (a size such as --memory-limit is read by click's rules)
        raise LedgerError(f"row {row.id}: kmc prove would refuse it: {e.format_message()}") from None


def check_sections(rows, docs: str | Path = ROOT / DOCS) -> None:
    """Every row's ``section`` is a heading of docs/symbolic.md."""
    headings = {line[4:].strip() for line in Path(docs).read_text(encoding="utf-8").splitlines()
                if line.startswith("### ")}
    for row in rows:
        if row.section not in headings:
            raise LedgerError(f"row {row.id}: section {row.section!r} is no '### ' heading of {docs}")


def judge(row: ProofRow, data: dict | None, why: str = "", failed: bool = False) -> RowOutcome:
    """The run's JSON (``kmc prove --json``) against the row. ``data`` None: no answer, ``why``
    says why; ``failed``: the process ended without a result (a crash, a refusal), an ERROR,
    not a time limit."""
    if data is None:
        return RowOutcome(row.id, ERROR if failed else UNDECIDED, why or "no answer")
    status = data.get("status", "")
    out = RowOutcome(row.id, AS_EXPECTED, "", status, data.get("invariants"),
                     data.get("trace_length"))
    if row.invariants is not None and out.invariants is not None and out.invariants != row.invariants:
        out.notes.append(f"{out.invariants} invariants (the ledger's run: {row.invariants})")
    if data.get("vacuous"):
        out.notes.append("vacuous: the property cannot fail in this configuration")
    if status in UNDECIDED_STATUSES:
        out.outcome, out.detail = UNDECIDED, f"{status}: nothing decided (expected {row.expect})"
    elif status != row.expect:
        closed = " (a gap the ledger reports is closed: update the row)" if row.expect == "INCONCLUSIVE" else ""
        out.outcome, out.detail = DIFFERENT, f"{status}, expected {row.expect}{closed}"
    elif row.steps is not None and out.trace_length != row.steps:
        out.outcome, out.detail = (DIFFERENT, f"{status} with a counterexample of "
                                   f"{out.trace_length} steps, expected {row.steps}")
    else:
        length = f", {out.trace_length} steps" if out.trace_length is not None else ""
        out.detail = f"{status}{length}"
    return out


def timeout_for(row: ProofRow, timeout: float | None = None) -> float:
    """A row's time limit: ``timeout`` if given, else four times its cost, at least 10 minutes
    (the docs' runs were on a shared machine; a loaded one takes longer)."""
    return timeout if timeout is not None else max(MIN_TIMEOUT, 4 * 60 * row.minutes)


def run_row(row: ProofRow, timeout: float | None = None, python: str = sys.executable,
            grace: float = GRACE) -> RowOutcome:
    """Run the row as ``kmc prove ARGV --json -q --time-limit LIMIT`` in a process group of its
    own (the time limit is the process's own backstop: an orphan still ends), stopped at the
    limit (``timeout_for``) and a grace period, on Ctrl-C, SIGTERM or SIGHUP to the runner
    (``main`` turns them into ``KeyboardInterrupt``) and on any failure here; judge its answer."""
    limit = timeout_for(row, timeout)
    cmd = [python, "-m", "cli", "prove", *row.args, "--json", "-q", "--time-limit", f"{limit:g}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, text=True)
    why, failed = "", False
    try:
        stdout, stderr = proc.communicate(timeout=limit + grace)
    except subprocess.TimeoutExpired:
        _stop(proc)
        stdout, stderr = "", ""
        why = f"no answer within its time limit ({limit:.0f} s); stopped"
    except BaseException:  # Ctrl-C, SIGTERM or SIGHUP (main), anything: stop it first
        _stop(proc)
        raise
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    data = None
    if not why:
        try:
            data = json.loads(stdout)
        except ValueError:
            data = None
        if not isinstance(data, dict) or data.get("status") not in EXPECTS + UNDECIDED_STATUSES:
            data, failed = None, True
            last = (stderr.strip().splitlines() or ["no output"])[-1]
            what = "refused the row" if proc.returncode == 2 else "failed"
            why = f"kmc prove {what} (exit {proc.returncode}) without a result: {last[:300]}"
    out = judge(row, data, why, failed)
    out.wall_seconds, out.cpu_seconds = round(wall, 1), round(cpu, 1)
    return out


def _stop(proc: subprocess.Popen) -> None:
    """Stop the row's process group: SIGTERM (kmc prove reports INTERRUPTED), then SIGKILL;
    its pipes are drained and closed."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.communicate(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
    try:
        proc.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError):
        pass


def render_line(row: ProofRow, out: RowOutcome) -> str:
    notes = f"; note: {'; '.join(out.notes)}" if out.notes else ""
    return (f"{row.id:40} {out.outcome}: {out.detail} ({out.wall_seconds:.0f} s wall, "
            f"{out.cpu_seconds:.0f} s cpu){notes}")


def render_markdown(rows) -> str:
    """The ledger as docs/proofs.md's table."""
    lines = ["| what | property | `kmc prove ...` | expected | the docs' run | section of docs/symbolic.md |",
             "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        expect = row.expect + (f", {row.steps} steps" if row.steps is not None else "")
        cells = [row.what, f"`{row.property}`", f"`{row.argv}`", expect, row.measured, row.section]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def select(rows, only=(), max_minutes: float | None = None):
    """The rows asked for (``only``: substrings, each of some row's id or ``what``; none: every
    row) and the ones left out for their cost."""
    only = [only] if isinstance(only, str) else list(only or ())
    for text in only:
        if not any(text in r.id or text.lower() in r.what.lower() for r in rows):
            raise LedgerError(f"--rows {text!r} matches no row's id or description")
    picked = [r for r in rows
              if not only or any(t in r.id or t.lower() in r.what.lower() for t in only)]
    kept = [r for r in picked if max_minutes is None or r.minutes <= max_minutes]
    return kept, [r for r in picked if r not in kept]


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error as one line (exit code 2), as every kmc command has it."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (--help shows the options)\n")


def main(argv=None) -> int:
    parser = _Parser(prog="python -m commands.proofs", description=__doc__.split("\n\n")[0])
    parser.add_argument("ledger", nargs="?", default=str(ROOT / LEDGER))
    parser.add_argument("--rows", action="append", default=[], metavar="TEXT",
                        help="only rows whose id or description holds TEXT (repeatable: any of them)")
    parser.add_argument("--max-minutes", type=float, metavar="N",
                        help="leave out rows whose cost (the ledger's minutes) is above N")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="each row's time limit (default: 4x its minutes, at least 600)")
    parser.add_argument("--dry-run", action="store_true", help="check every row without proving")
    parser.add_argument("--markdown", action="store_true", help="print the ledger as docs/proofs.md's table")
    parser.add_argument("--json", metavar="FILE",
                        help="write the run's outcomes to FILE (a new file; rewritten after every row)")
    parser.add_argument("--force", action="store_true", help="let --json overwrite FILE")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        if args.timeout is not None and not 0 < args.timeout <= 86400:
            raise LedgerError("--timeout must be above 0 and at most 86400 seconds")
        if args.max_minutes is not None and not args.max_minutes > 0:
            raise LedgerError("--max-minutes must be above 0")
        if any(not text.strip() for text in args.rows):
            raise LedgerError("--rows needs some text of a row's id or description")
        if args.json and (args.markdown or args.dry_run):
            raise LedgerError("--json keeps a run's outcomes: --markdown and --dry-run run nothing")
        if args.json:
            _check_json_path(args)
        rows = load(args.ledger)
        if args.markdown:
            sys.stdout.write(render_markdown(rows))
            return 0
        rows, costly = select(rows, args.rows, args.max_minutes)
        for row in rows:  # the dry run's checks come first in a run too: seconds, not hours
            check_row(row)
        check_sections(rows)
        if args.dry_run:
            print(f"{len(rows)} row{'s' if len(rows) != 1 else ''} checked: each command is one "
                  f"kmc prove takes (the configuration encoded, the property and invariants "
                  f"known); none was proved")
            return 0
    except LedgerError as e:
        print(f"python -m commands.proofs: error: {e}", file=sys.stderr)
        return 2
    for row in costly:
        print(f"{row.id:40} left out: about {row.minutes:g} minutes (--max-minutes {args.max_minutes:g})")
    if not rows:
        print("no row was run: every row asked for costs more than --max-minutes (nothing checked)")
        return 3
    run = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "commit": _commit(),
           "argv": list(sys.argv[1:] if argv is None else argv), "left_out": [r.id for r in costly],
           "rows": []}
    outcomes, interrupted = [], False
    previous = {sig: signal.signal(sig, _raise_interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        for row in rows:
            print(f"{row.id:40} running: {row.command} (limit {timeout_for(row, args.timeout):.0f} s)",
                  flush=True)
            out = run_row(row, args.timeout)
            outcomes.append(out)
            print(render_line(row, out), flush=True)
            run["rows"].append({"expect": row.expect, "command": row.command, **asdict(out)})
            if args.json:
                _write_json(args, run)
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP: the row under way was stopped (run_row)
        interrupted = True
        print(f"interrupted: {len(rows) - len(outcomes)} of {len(rows)} rows not run", flush=True)
    except LedgerError as e:  # --json could not be written
        print(f"python -m commands.proofs: error: {e}", file=sys.stderr)
        return 2
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    counts = {o: sum(1 for x in outcomes if x.outcome == o) for o in OUTCOMES}
    print(f"{counts[AS_EXPECTED]} as expected, {counts[DIFFERENT]} DIFFERENT (a closed gap counts "
          f"too), {counts[ERROR]} ERROR, {counts[UNDECIDED]} not decided, {len(costly)} left out "
          f"({len(outcomes)} of {len(rows)} rows run)")
    if args.json and interrupted:
        run["interrupted"] = True
        try:
            _write_json(args, run)
        except LedgerError as e:
            print(f"python -m commands.proofs: error: {e}", file=sys.stderr)
            return 2
    if counts[DIFFERENT] or counts[ERROR]:
        return 1
    return 3 if counts[UNDECIDED] or interrupted else 0


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _commit() -> str:
    """The checkout's commit, for the record of a run ("" outside a git checkout)."""
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    dirty = ""
    if done.returncode == 0:
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                capture_output=True, text=True, timeout=10)
        dirty = " (with uncommitted changes)" if status.stdout.strip() else ""
    return done.stdout.strip() + dirty if done.returncode == 0 else ""


def _check_json_path(args) -> None:
    from model.outputs import OutputError, check_output
    try:
        check_output(args.json, force=args.force, label="--json", inputs=[args.ledger])
    except OutputError as e:
        raise LedgerError(str(e)) from None


def _write_json(args, run: dict) -> None:
    """The run so far, written whole (a temporary file renamed into place); the first write
    takes the path only as ``--force`` allows, later ones replace the run's own file."""
    from model.outputs import OutputError, write_atomic
    first = not run.get("_written")
    data = {k: v for k, v in run.items() if not k.startswith("_")}
    try:
        write_atomic(args.json, lambda tmp: Path(tmp).write_text(json.dumps(data, indent=2),
                                                                 encoding="utf-8"),
                     force=args.force or not first)
    except (OutputError, OSError) as e:
        raise LedgerError(f"--json {args.json}: {getattr(e, 'strerror', None) or e}") from None
    run["_written"] = True


if __name__ == "__main__":
    sys.exit(main())
