"""``kmc conformance list|run``: kmc's verdicts beside real Kafka brokers (docs/conformance.md).

Exit codes: 0 every row ran and kmc's verdict agrees with what the real cluster did; 1 a row
disagrees; 2 bad input; 3 a row could not run (no Java, no jars, a cluster that did not start,
the time bound): the table says which.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import click

from commands.params import BoundedInt
from commands.usage import check_output_path, say, write_output
from conformance import jars, processes, projection, report, scenarios
from conformance import validate as validate_lib
from conformance.cluster import ClusterStartError
from conformance.scenarios import ScenarioResult
from viewer.safe_text import terminal_safe


def _check_time_limit(seconds: float) -> None:
    """The whole command's time bound: a positive, finite number of seconds (every run here is
    bounded in time, so there is no "no limit")."""
    if not math.isfinite(seconds) or seconds <= 0:
        raise click.BadParameter(f"must be a positive, finite number of seconds, got {seconds}",
                                 param_hint="'--time-limit'")


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
    _check_time_limit(time_limit)
    names = list(names) or list(scenarios.SCENARIOS)
    results: list[ScenarioResult] = []
    code = 0
    t0 = time.monotonic()
    with processes.time_bound(time_limit):
        for v in releases(versions):
            try:
                release = jars.ensure(v, log=lambda s: click.echo(s, err=True))
            except jars.JarsUnavailable as e:
                say(f"cannot run Kafka {v}: {e}")
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


@conformance_group.command("validate")
@click.argument("run", type=click.Path(exists=True))
@click.option("--trace-out", type=click.Path(dir_okay=False), metavar="FILE", default=None,
              help="Write the model behaviour that explains an admitted run here (kmc ITF; "
                   "'kmc trace show FILE' reads it).")
@click.option("--force", is_flag=True, help="Overwrite --trace-out if it exists.")
@click.option("--max-steps", type=BoundedInt(1, 100_000), default=validate_lib.DEFAULT_MAX_STEPS, show_default=True,
              help="Longest model behaviour followed (a longer one makes the answer INCOMPLETE, not NOT ADMITTED).")
@click.option("--max-states", type=BoundedInt(1, 100_000_000), default=validate_lib.DEFAULT_MAX_STATES,
              show_default=True, help="Search nodes (state, facts matched) expanded before the answer is INCOMPLETE.")
@click.option("--rule", "rule_changes", multiple=True, metavar="[+|-]RULE",
              help="Turn a rule of kmc's model on or off for the search (kmc list rules), e.g. to see the check fail.")
@click.option("--topic", default=None, metavar="TOPIC",
              help="Validate the run of TOPIC in a stream that holds several runs (one topic each) on one cluster.")
def validate_command(run, trace_out, force, max_steps, max_states, rule_changes, topic):
    """Is the real run RUN (a run directory, or its events.jsonl) a behaviour of kmc's model?

    Exit 0 ADMITTED, 1 NOT ADMITTED (at the event named), 3 INCOMPLETE (a search bound), 2 bad input."""
    check_output_path(trace_out, force, "--trace-out", inputs=[run])
    try:
        v = validate_lib.validate(Path(run), max_steps=max_steps, max_states=max_states,
                                  rule_changes=tuple(rule_changes), topic=topic)
    except (projection.ProjectionError, validate_lib.RunError, OSError) as e:
        raise click.UsageError(str(e)) from None
    flags = " ".join(f"{k}={val}" for k, val in v.flags.items())
    click.echo(f"model: {flags}")
    if v.verdict == validate_lib.ADMITTED:
        click.echo(f"ADMITTED: {v.facts} observed facts matched in order by a {len(v.trace)}-step behaviour "
                   f"of kmc's model ({v.states_visited} states visited, {v.seconds:.1f} s)")
        if trace_out:
            doc_config = v.config.as_dict()
            write_output(trace_out, "--trace-out", lambda tmp: _write_validation_trace(tmp, v.trace, doc_config),
                         force=force)
            click.echo(f"model trace: {trace_out}")
        return 0
    head = ("NOT ADMITTED" if v.verdict == validate_lib.NOT_ADMITTED else
            f"INCOMPLETE (search bound: --max-states {max_states} or --max-steps {max_steps})")
    click.echo(f"{head} at {terminal_safe(v.failed.describe())}")
    click.echo(f"  {v.matched} of {v.facts} observed facts matched before it; the fact: {v.failed.check}")
    if v.verdict == validate_lib.NOT_ADMITTED:
        click.echo("  no behaviour of the model that matches the facts before it reaches a state that "
                   "satisfies it; a state that matched the facts before it:")
        for line in state_lines(v.last_states[:1]):
            click.echo("    " + line)
    return v.exit_code


def state_lines(states) -> list[str]:
    out = []
    for s in states:
        c = s.controller
        out.append(f"controller: leader {c.leader}, epoch {c.leader_epoch}, isr {list(c.isr)}, "
                   f"live {list(c.live_brokers)}; acked {list(s.acked)}")
        for b, r in enumerate(s.replicas):
            out.append(f"broker {b}: {'up' if r.alive else 'down'}, leader {r.leader}, epoch {r.leader_epoch}, "
                       f"log {[rec[0] for rec in r.log]}, hw {r.high_watermark}")
    return out


def _write_validation_trace(path, trace, config: dict) -> None:
    from viewer.trace_file import dumps, trace_to_itf  # noqa: PLC0415 - only an admitted run writes one
    doc = trace_to_itf(trace, config, engine="conformance-validate")
    Path(path).write_text(dumps(doc), encoding="utf-8")


@conformance_group.command("nemesis")
@click.option("--kafka-version", "versions", multiple=True, default=("4.0", "4.1"), show_default=True,
              help="Kafka release line(s) to run (4.0, 4.1, 4.4).")
@click.option("--runs", type=BoundedInt(1, 500), default=10, show_default=True,
              help="Bounded randomised runs per release, each validated.")
@click.option("--seed", type=BoundedInt(0, 2**31 - 1), default=1, show_default=True,
              help="Seed of the random schedules (per release).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Where run directories go (default ./kmc-runs); each release gets a new one.")
@click.option("--max-states", type=BoundedInt(1, 100_000_000), default=100_000, show_default=True,
              help="Search nodes per validation before its answer is INCOMPLETE.")
@click.option("--time-limit", type=float, default=3600, show_default=True, help="Seconds for the whole command.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), default=None,
              help="Also write every run as JSON to this file (a new file).")
def nemesis_command(versions, runs, seed, out_dir, max_states, time_limit, json_out):
    """Random bounded real runs (kill -9, SIGSTOP/SIGCONT, controlled shutdown, preferred elections,
    produce and read), each validated against kmc's model; admitted / not admitted counts per release.

    Exit 0 every run admitted, 1 some run NOT ADMITTED, 3 some run incomplete or not run, 2 bad input."""
    from conformance import campaign  # noqa: PLC0415 - only this command starts clusters
    check_output_path(json_out, False, "--json")
    _check_time_limit(time_limit)
    all_runs = []
    summaries = []
    code = 0
    t0 = time.monotonic()
    with processes.time_bound(time_limit):
        for v in releases(versions):
            if time.monotonic() - t0 >= time_limit:
                say(f"Kafka {v}: not run (--time-limit {time_limit:.0f} s reached)")
                code = max(code, EXIT_NOT_RUN)
                continue
            try:
                release = jars.ensure(v, log=lambda s: click.echo(s, err=True))
            except jars.JarsUnavailable as e:
                say(f"cannot run Kafka {v}: {e}")
                code = max(code, EXIT_NOT_RUN)
                continue
            d = run_dir_for(out_dir, f"nemesis-{release.version}")
            click.echo(f"== {runs} validated random runs on Kafka {release.version} ({d})", err=True)
            try:
                recs = campaign.run_release(release, d, runs, seed=seed, max_states=max_states,
                                            log=lambda s: click.echo(terminal_safe(s), err=True))
            except (ClusterStartError, TimeoutError, processes.RunTimeout) as e:
                say(f"Kafka {release.version}: did not run: {e}"[:300])
                code = max(code, EXIT_NOT_RUN)
                continue
            all_runs += recs
            summaries.append(campaign.summary(release.version, recs))
    if any(r.verdict == validate_lib.NOT_ADMITTED for r in all_runs):
        code = EXIT_DISAGREE
    elif any(r.verdict != validate_lib.ADMITTED for r in all_runs):
        code = EXIT_NOT_RUN
    for s in summaries:
        click.echo(s)
    for r in all_runs:
        if r.verdict != validate_lib.ADMITTED:
            click.echo(f"  {r.version} run {r.index}: {terminal_safe(campaign.line_of(r))} ({r.run_dir})")
    if json_out:
        text = json.dumps([r.as_dict() for r in all_runs], indent=1, default=str)
        write_output(json_out, "--json", lambda tmp: Path(tmp).write_text(text, encoding="utf-8"), force=False)
    return code
