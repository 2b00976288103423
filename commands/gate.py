"""``kmc gate SUITE.toml``: it parses, calls the gate library, and prints.

Exit codes: 0 every check matched its expectation (cached and allowed-incomplete checks count as
matched); 1 a check did not match; 2 a bad suite (nothing ran), a bad option, or a check that
could not run; 3 nothing mismatched but a check was INCOMPLETE and not allowed to be, or the gate
was interrupted (SIGINT/SIGTERM: the checks not finished are errors in the JUnit report, which is
still written); 70 a check's run raised an unexpected exception (a bug in kmc, ``gate/run.py``).
"""

from __future__ import annotations

import json
import sys

import click

from commands.usage import check_output_path, same_file, write_output
from gate.cache import GateCache
from gate.report import (
    WITHIN_NOTE, details, evidence_line, json_report, junit_xml, summary_table, verdict_line,
)
from gate.run import exit_code, run_suite
from gate.suite import load_suite
from model.bounded import shown
from viewer.safe_text import terminal_safe


@click.command("gate")
@click.argument("suite_path", metavar="SUITE.toml", type=click.Path(dir_okay=False))
@click.option("--junit", "junit_out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write a JUnit XML report (one test case per check).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the full results as JSON.")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Skip checks that passed before on the same model source and configuration.")
@click.option("--only", "only", multiple=True, metavar="NAME",
              help="Run only the check with this name (repeatable).")
@click.option("--force", is_flag=True, help="Overwrite --junit/--json files that exist.")
@click.option("--quiet", "-q", is_flag=True, help="No per-check progress lines on stderr.")
def gate_command(suite_path, junit_out, json_out, cache_dir, only, force, quiet):
    """Run a suite of checks with expected outcomes; fail if any does not match.

    Exit code 0: every check matched; 1: a check did not match (the reason and the counterexample
    are printed); 2: bad suite or options (nothing ran); 3: a check was incomplete and the suite
    does not allow it, or the gate was interrupted; 70: an internal error (a bug in kmc).
    """
    if same_file(junit_out, json_out):
        raise click.UsageError("--junit and --json name the same file")
    suite = load_suite(suite_path)
    inputs = [suite_path, *(f for c in suite.checks for f in c.config_files)]
    check_output_path(junit_out, force, "--junit", inputs=inputs)
    check_output_path(json_out, force, "--json", inputs=inputs)
    if only:
        names = {c.name for c in suite.checks}
        unknown = [n for n in only if n not in names]
        if unknown:
            raise click.UsageError(f"--only {shown(unknown[0])}: {suite_path} has no check of that name")
        suite.checks = [c for c in suite.checks if c.name in only]
    cache = GateCache(cache_dir) if cache_dir else None

    def progress(i, total, outcome):
        if not quiet:
            took = "" if outcome.status == "cached" else f" ({outcome.seconds:.1f} s)"
            click.echo(f"[{i}/{total}] {terminal_safe(outcome.spec.name)}: {outcome.status}{took}", err=True)
            sys.stderr.flush()

    def warn(line):
        click.echo(terminal_safe(line), err=True)

    outcomes = run_suite(suite, cache=cache, progress=progress, warn=warn)
    click.echo(summary_table(outcomes))
    click.echo(WITHIN_NOTE)
    text = details(outcomes)
    if text:
        click.echo("")
        click.echo(text)
    click.echo("")
    if any(c.rests_on for c in suite.checks):  # a suite that says what its rows rest on
        click.echo(evidence_line(suite.checks))
    click.echo(verdict_line(outcomes))
    if junit_out:
        report = junit_xml(suite, outcomes)
        write_output(junit_out, "--junit", lambda tmp: _write(tmp, report), force=force)
        click.echo(f"JUnit report written to {terminal_safe(junit_out)}")
    if json_out:
        report = (json.dumps(json_report(suite, outcomes), indent=2) + "\n").encode()
        write_output(json_out, "--json", lambda tmp: _write(tmp, report), force=force)
        click.echo(f"JSON results written to {terminal_safe(json_out)}")
    return exit_code(outcomes)


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
