"""``kmc trace show|replay|html|run``: reading the trace files ``kmc check --trace-out`` writes.

Commands return their exit code; bad input raises ``click.UsageError`` or a ``KmcError`` (a
``TraceFormatError`` for a bad trace file), which the ``kmc`` group turns into one line on stderr
and exit code 2.
"""

from __future__ import annotations

from pathlib import Path

import click

from commands.params import BoundedInt
from commands.usage import check_output_path, fail, same_file, say, write_output
from conformance import jars, processes
from conformance import replay as cluster_replay
from conformance.cluster import ClusterStartError
from viewer.html import render_html
from viewer.replay import replay
from viewer.safe_text import terminal_safe
from viewer.terminal import make_console, render_trace
from viewer.trace_file import read_trace


@click.group("trace")
def trace_group():
    """Show, replay or draw a trace file written by 'kmc check --trace-out'."""


@trace_group.command("show")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--diff", "diff_only", is_flag=True, help="Show only what each step changed.")
@click.option("--step", type=BoundedInt(None, None), metavar="N", help="Show only step N (0 = the initial state).")
def show_command(file, diff_only, step):
    """Print a trace file step by step: logs with HW and LEO, controller, what changed."""
    tf = read_trace(file)
    n = len(tf.trace.steps)
    if step is not None and not 0 <= step <= n:
        raise click.UsageError(f"--step must be between 0 and {n} (the trace has {n} steps)")
    render_trace(make_console(), tf.trace, tf.view_meta(), diff_only=diff_only, step=step)
    return 0


@trace_group.command("replay")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--allow-model-change", is_flag=True,
              help="Accept a trace recorded with another version of the model if its steps still replay identically.")
def replay_command(file, allow_model_change):
    """Re-run a trace's actions against the current model and compare every state.

    Exit code 0: every step replays identically (and the property is still violated where the
    file says); 1: the trace diverges, or was recorded with another model version; 2: the file is
    not a kmc trace.
    """
    report = replay(read_trace(file, judge=False), allow_model_change=allow_model_change)
    for line in report.lines:  # they quote the file's values
        click.echo(terminal_safe(line))
    return report.exit_code


@trace_group.command("html")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False), metavar="OUT.html",
              help="Where to write the page.")
@click.option("--force", is_flag=True, help="Overwrite OUT.html if it exists.")
def html_command(file, output, force):
    """Write a trace file as one self-contained HTML page (no network needed to view it)."""
    if same_file(file, output):
        fail(f"--output {output} is the trace file itself; give the page its own name")
    check_output_path(output, force, "--output", inputs=[file])
    tf = read_trace(file)
    page = render_html(tf.trace, tf.view_meta())
    write_output(output, "--output", lambda tmp: Path(tmp).write_text(page, encoding="utf-8"), force=force)
    click.echo(f"HTML trace viewer written to {output} ({len(tf.trace.steps)} steps)")
    return 0


@trace_group.command("run")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--cluster", is_flag=True, help="Run the trace on a real Kafka cluster (required: the only target).")
@click.option("--kafka-version", default=jars.DEFAULT_VERSION, show_default=True,
              help="Kafka release line to run (4.0, 4.1, 4.4).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Where the run directory goes (default ./kmc-runs; always a new directory).")
@click.option("--time-limit", type=float, default=900, show_default=True, help="Seconds for the whole run.")
def run_command(file, cluster, kafka_version, out_dir, time_limit):
    """Replay a KRaft counterexample on real brokers: per step reproduced / diverged / not forceable.

    Exit code 1: the violation happened on the real cluster (an acknowledged record a real
    consumer cannot read back); 0: it did not; 2: bad input; 3: the run could not finish (no
    Java or jars, a cluster that did not start, the time bound).
    """
    from commands.conformance import run_dir_for  # noqa: PLC0415 - one helper, no cycle at import time
    if not cluster:
        fail("kmc trace run needs --cluster (replay on kmc's own model is 'kmc trace replay')")
    try:
        jars.resolve(kafka_version)
    except ValueError as e:
        fail(str(e))
    read_trace(file)  # a bad file fails here, with one line, before any JVM starts
    try:
        cluster_replay.check_trace(Path(file))
    except ValueError as e:
        fail(str(e))
    try:
        release = jars.ensure(kafka_version, log=lambda s: click.echo(s, err=True))
    except jars.JarsUnavailable as e:
        say(f"cannot run Kafka {kafka_version}: {e}")
        return 3
    run_dir = run_dir_for(out_dir, f"trace-{release.version}")
    click.echo(f"replaying {terminal_safe(file)} on Kafka {release.version} (run directory {run_dir})")
    try:
        with processes.time_bound(time_limit):
            rep = cluster_replay.run(release, Path(file), run_dir, log=lambda s: click.echo(terminal_safe(s)))
    except ValueError as e:
        fail(str(e))
    except (ClusterStartError, TimeoutError, processes.RunTimeout) as e:
        say(f"the run did not finish: {e}")
        return 3
    click.echo(terminal_safe(rep.summary()))
    click.echo(f"events: {run_dir / 'events.jsonl'}; result: {run_dir / 'replay.json'} ({rep.seconds:.0f} s)")
    return 1 if rep.violation_observed else 0
