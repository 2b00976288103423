"""``kmc simulate``: random walks through the compiled kernel, for configurations beyond
exhaustive reach; a violation is shortened and written as a trace file."""

from __future__ import annotations

import json
import secrets

import click

from checker.compiled import ensure_compiled
from checker.simulate import DEFAULT_DEPTH, MAX_DEPTH, simulate
from commands.params import BoundedInt, Seconds
from commands.options import config_options, pop_config_options, source_options
from commands.usage import check_output_path, write_output
from model.options import config_from_options
from properties import get_properties, promised
from viewer.safe_text import terminal_safe
from viewer.simulation import progress_line, render_simulation
from viewer.trace_file import write_trace

DEFAULT_TIME_LIMIT = 60.0


@click.command("simulate")
@config_options
@source_options
@click.option("--property", "-p", "properties", multiple=True, metavar="NAME",
              help="Property to check in every state (repeatable); default: those Kafka promises "
                   "('kmc list').")
@click.option("--seed", type=BoundedInt(0, 2**64 - 1),
              help="Seed of the random walks: the same seed gives the same walks. [default: a "
                   "random one, printed]")
@click.option("--depth", type=BoundedInt(1, MAX_DEPTH), default=DEFAULT_DEPTH, show_default=True,
              help="Steps per walk at most.")
@click.option("--walks", type=BoundedInt(1), help="Stop after this many walks.")
@click.option("--time-limit", type=Seconds(),
              help=f"Stop after this many seconds. [default: {DEFAULT_TIME_LIMIT:.0f} unless --walks is given]")
@click.option("--no-shorten", is_flag=True, help="Show the violating walk as found, not shortened.")
@click.option("--trace-out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the counterexample (shortened) as a trace file. [default: none written]")
@click.option("--force", is_flag=True, help="Overwrite the --trace-out file if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def simulate_command(kafka_version, config_files, properties, seed, depth, walks, time_limit,
                     no_shorten, trace_out, force, as_json, quiet, **options):
    """Random walks through the model, judging properties in every state.

    For configurations too big to explore exhaustively. Exit code 1: a property is violated
    (the walk, shortened by delta debugging, is printed and written as a trace file); 3: no
    violation found, which is not a proof (INCOMPLETE); 2: bad input.
    """
    check_output_path(trace_out, force, "--trace-out", inputs=config_files)
    config, provenance = config_from_options(
        kafka_version=kafka_version, config_files=config_files, **pop_config_options(options))
    props = get_properties(list(properties) or None)
    if not properties:
        # by default what Kafka promises: walks stop at the first violation, so a stronger
        # invariant (reported only by kmc check) would end them for nothing; and the compiled
        # ones only (a property loaded with --load is asked by name)
        props = tuple(p for p in promised() if getattr(p, "compiled", False))
    if seed is None:
        seed = secrets.randbits(32)
    if time_limit is None and walks is None:
        time_limit = DEFAULT_TIME_LIMIT
    if provenance and not as_json:
        for line in provenance:
            click.echo(line)
    progress = None if quiet or as_json else (lambda r: click.echo(progress_line(r), err=True))
    ensure_compiled(None if quiet else (lambda line: click.echo(line, err=True)))
    result = simulate(config, props, seed=seed, depth=depth, walks=walks, time_limit=time_limit,
                      progress=progress, shorten=not no_shorten)
    trace = next((p.trace for p in result.properties if p.trace is not None), None)
    written = None
    if trace is not None and trace_out:
        write_output(trace_out, "--trace-out", lambda tmp: write_trace(tmp, trace, result), force=force)
        written = trace_out
    if as_json:
        click.echo(json.dumps({**result.to_json(), "trace_file": written}, indent=2))
    else:
        click.echo(render_simulation(result))
        if written:
            click.echo(f"trace written to {terminal_safe(written)} (kmc trace show / replay / html "
                       "read it)")
        elif trace is not None:
            click.echo("--trace-out FILE writes this counterexample as a trace file (kmc trace "
                       "show / replay / html read it)")
    return result.exit_code
