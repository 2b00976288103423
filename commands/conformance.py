"""``kmc conformance list|run``: kmc's verdicts beside real Kafka brokers (docs/conformance.md).

Exit codes: 0 every row ran and kmc's verdict agrees with what the real cluster did; 1 a row
disagrees; 2 bad input; 3 a row could not run (no Java, no jars, a cluster that did not start,
the time bound): the table says which.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from commands.params import BoundedInt
from commands.usage import check_output_path, write_output
from conformance import jars, processes, report, scenarios
from conformance.cluster import ClusterStartError
from conformance.scenarios import ScenarioResult

EXIT_DISAGREE, EXIT_NOT_RUN = 1, 3


def run_dir_for(base: str | None, name: str) -> Path:
    """A new directory under ``base`` (default ``./kmc-runs``): never one that exists."""
    root = Path(base or "kmc-runs")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1000):
        d = root / (f"{stamp}-{name}" + (f"-{n}" if n else ""))
        if not d.exists():
            d.mkdir(parents=True)
            return d
    raise click.UsageError(f"cannot make a run directory under {root}")


def releases(versions) -> list:
    out = []
    for v in versions:
        try:
            jars.resolve(v)
        except ValueError as e:
            raise click.UsageError(str(e)) from None
        out.append(v)
    return out


@click.group("conformance")
def conformance_group():
    """Run kmc's scenarios on real Kafka brokers (one KRaft controller, three brokers, 127.0.0.1)."""


@conformance_group.command("list")
def list_command():
    """The scenarios and the Kafka releases the harness runs."""
    for name in scenarios.SCENARIOS:
        click.echo(f"{name:18} {scenarios.DESCRIPTIONS[name]}")
    click.echo("releases: " + ", ".join(f"{k} -> {v}" for k, v in jars.VERSIONS.items()))
    return 0


@conformance_group.command("run")
@click.argument("names", nargs=-1)
@click.option("--kafka-version", "versions", multiple=True, default=("4.0", "4.1"), show_default=True,
              help="Kafka release line(s) to run (4.0, 4.1, 4.4).")
@click.option("--runs", type=BoundedInt(1, 500), default=20, show_default=True,
              help="Randomised runs of acks-all-random per release.")
@click.option("--repeat", type=BoundedInt(1, 50), default=1, show_default=True,
              help="Run each of the other scenarios this many times.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Where run directories go (default ./kmc-runs); each run gets a new one.")
@click.option("--time-limit", type=float, default=3600, show_default=True, help="Seconds for the whole command.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), default=None,
              help="Also write every row as JSON to this file (a new file).")
@click.option("--markdown", is_flag=True, help="Print the table as Markdown.")
def run_command(names, versions, runs, repeat, out_dir, time_limit, json_out, markdown):
    """Run scenarios (all by default) and print kmc's verdict beside the real outcome."""
    unknown = [n for n in names if n not in scenarios.SCENARIOS]
    if unknown:
        raise click.UsageError(f"unknown scenario {unknown[0]!r}: 'kmc conformance list' names them")
    check_output_path(json_out, False, "--json")
    names = list(names) or list(scenarios.SCENARIOS)
    results: list[ScenarioResult] = []
    code = 0
    t0 = time.monotonic()
    with processes.time_bound(time_limit):
        for v in releases(versions):
            try:
                release = jars.ensure(v, log=lambda s: click.echo(s, err=True))
            except jars.JarsUnavailable as e:
                click.echo(f"kmc: cannot run Kafka {v}: {e}", err=True)
                code = EXIT_NOT_RUN
                continue
            for name in names:
                for i in range(1 if name == "acks-all-random" else repeat):
                    d = run_dir_for(out_dir, f"{name}-{release.version}")
                    click.echo(f"== {name} on Kafka {release.version} ({d})", err=True)
                    kwargs = {"runs": runs} if name == "acks-all-random" else {}
                    try:
                        res = scenarios.SCENARIOS[name](release, d, log=lambda s: click.echo(s, err=True), **kwargs)
                    except (ClusterStartError, TimeoutError, processes.RunTimeout) as e:
                        res = ScenarioResult(name, release.version, "-", "-", f"did not run: {e}"[:300], None,
                                             0.0, str(d))
                        code = EXIT_NOT_RUN
                    results.append(res)
                    click.echo(f"   {res.real}", err=True)
                    if res.agrees is False and code == 0:
                        code = EXIT_DISAGREE
    click.echo(report.table(results, markdown=markdown))
    click.echo(f"({len(results)} rows in {time.monotonic() - t0:.0f} s)")
    if json_out:
        text = json.dumps([r.as_dict() for r in results], indent=1, default=str)
        write_output(json_out, "--json", lambda tmp: Path(tmp).write_text(text, encoding="utf-8"), force=False)
    return code
