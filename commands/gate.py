"""``kmc gate SUITE.toml``: it parses, calls the gate library, and prints.

Exit codes: 0 every check matched its expectation (cached and allowed-incomplete checks count as
matched); 1 a check did not match; 2 a bad suite (nothing ran), a bad option, or a check that
could not run; 3 nothing mismatched but a check was INCOMPLETE and not allowed to be.
"""

from __future__ import annotations

import json
import os
import sys

import click

from gate.cache import GateCache
from gate.report import details, json_report, junit_xml, summary_table, verdict_line
from gate.run import exit_code, run_suite
from gate.suite import load_suite


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
    does not allow it.
    """
    if junit_out and json_out and os.path.abspath(junit_out) == os.path.abspath(json_out):
        raise click.UsageError("--junit and --json name the same file")
    for path in (junit_out, json_out):
        if not path:
            continue
        if os.path.exists(path) and not force:
            raise click.UsageError(f"{path} exists; pass --force to overwrite it")
        parent = os.path.dirname(path) or "."
        if not os.path.isdir(parent):
            raise click.UsageError(f"{path}: directory {parent} does not exist")
    suite = load_suite(suite_path)
    if only:
        names = {c.name for c in suite.checks}
        unknown = [n for n in only if n not in names]
        if unknown:
            raise click.UsageError(f"--only {unknown[0]!r}: {suite_path} has no check of that name")
        suite.checks = [c for c in suite.checks if c.name in only]
    cache = GateCache(cache_dir) if cache_dir else None

    def progress(i, total, outcome):
        if not quiet:
            took = "" if outcome.status == "cached" else f" ({outcome.seconds:.1f} s)"
            click.echo(f"[{i}/{total}] {outcome.spec.name}: {outcome.status}{took}", err=True)
            sys.stderr.flush()

    outcomes = run_suite(suite, cache=cache, progress=progress)
    click.echo(summary_table(outcomes))
    text = details(outcomes)
    if text:
        click.echo("")
        click.echo(text)
    click.echo("")
    click.echo(verdict_line(outcomes))
    if junit_out:
        _write(junit_out, junit_xml(suite, outcomes))
        click.echo(f"JUnit report written to {junit_out}")
    if json_out:
        _write(json_out, (json.dumps(json_report(suite, outcomes), indent=2) + "\n").encode())
        click.echo(f"JSON results written to {json_out}")
    return exit_code(outcomes)


def _write(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise click.UsageError(f"cannot write {path}: {e.strerror or e}") from None
