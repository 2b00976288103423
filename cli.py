"""``kmc``: the command line. It parses, calls the library, and prints; nothing more.

Exit codes: 0 every property holds, 1 a property is violated, 2 usage or input error,
3 incomplete (a limit was hit before the search finished).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from pathlib import Path

import click

import spark_explore  # noqa: F401  (joins the engine registry)
from checker.engines import ENGINES
from checker.result import EXIT_USAGE
from model.errors import KmcError
from viewer.config_options import config_options, pop_config_options

__version__ = "0.1.0"


class KmcGroup(click.Group):
    """A click group whose errors are one line on stderr with exit code 2, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not isinstance(sys.stdout, _PipeSafe):
            sys.stdout = _PipeSafe(sys.stdout)
        try:
            rv = super().main(
                args=args, prog_name=prog_name or "kmc", complete_var=complete_var,
                standalone_mode=False, **extra,
            )
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.exceptions.Abort:
            click.echo("kmc: aborted", err=True)
            sys.exit(1)
        except click.ClickException as e:
            msg = e.format_message().replace("\n", " ")
            ctx_cmd = getattr(getattr(e, "ctx", None), "command_path", "kmc")
            click.echo(f"{ctx_cmd}: error: {msg}", err=True)
            sys.exit(EXIT_USAGE)
        except KmcError as e:
            click.echo(f"kmc: error: {e}", err=True)
            sys.exit(EXIT_USAGE)
        except BrokenPipeError:
            # the reader went away (`kmc ... | head`): not a verdict, and not worth a traceback
            _silence_stdout()
            sys.exit(EXIT_USAGE)
        except OSError as e:
            _silence_stdout()
            click.echo(f"kmc: error: cannot write output: {e.strerror or e}", err=True)
            sys.exit(EXIT_USAGE)
        code = rv if isinstance(rv, int) else 0
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
        except OSError as e:
            _silence_stdout()
            click.echo(f"kmc: error: cannot write output: {e.strerror or e}", err=True)
            code = EXIT_USAGE
        sys.exit(code)


class _PipeSafe:
    """stdout that survives its reader going away (``kmc check | head``): later writes are
    dropped, so the command still finishes and exits with its verdict, not with click's 1."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self._closed = False

    def write(self, text):
        if self._closed:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._closed = True
            _silence_stdout()
            return len(text)

    def flush(self) -> None:
        if self._closed:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed = True
            _silence_stdout()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def fail(message: str) -> None:
    """Abort the command with one line and exit code 2."""
    raise click.UsageError(message)


def _load_plugins(specs) -> None:
    for spec in specs:
        try:
            if spec.endswith(".py") or os.path.sep in spec:
                path = Path(spec)
                if not path.is_file():
                    fail(f"--load {spec}: no such file")
                mod_spec = importlib.util.spec_from_file_location(path.stem, path)
                module = importlib.util.module_from_spec(mod_spec)
                mod_spec.loader.exec_module(module)
            else:
                importlib.import_module(spec)
        except click.UsageError:
            raise
        except Exception as e:  # a user's module may fail in any way; say so in one line
            fail(f"--load {spec} failed: {type(e).__name__}: {e}")


@click.group(cls=KmcGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kmc")
@click.option("--load", "load", multiple=True, metavar="MODULE|FILE.py",
              help="Import a module or file first (e.g. one that registers properties).")
def cli(load):
    """kmc: a model checker for Apache Kafka's replication protocol."""
    _load_plugins(load)


def main() -> None:  # console script entry point
    cli.main()



# ---------------------------------------------------------------------------- kmc check

def _protocol_names():
    from model.variants import VARIANTS
    from model.protocols import load_entry_point_variants

    load_entry_point_variants()
    return sorted(VARIANTS)


@cli.command("check")
@config_options
@click.option("--kafka-version", metavar="X.Y",
              help="Pick the protocol the given Kafka version ran (instead of --protocol).")
@click.option("--config", "config_files", multiple=True, type=click.Path(dir_okay=False),
              metavar="FILE", help="Kafka properties file (server/topic/producer); repeatable.")
@click.option("--symmetry/--no-symmetry", default=True, show_default=True,
              help="Explore states that differ only by renaming brokers 1..N-1 once.")
@click.option("--property", "-p", "properties", multiple=True, metavar="NAME",
              help="Property to check (repeatable); default: all of them.")
@click.option("--engine", type=click.Choice(list(ENGINES)), default="bfs", show_default=True,
              help="; ".join(f"{e.name}: {e.description}" for e in ENGINES.values()) + ".")
@click.option("--max-states", type=int, help="Stop (INCOMPLETE) after this many distinct states.")
@click.option("--time-limit", type=float, help="Stop (INCOMPLETE) after this many seconds.")
@click.option("--depth", "max_depth", type=int, help="Explore at most this many steps (bmc: the depth K).")
@click.option("--spark-master", metavar="URL", help="Spark master URL (default local[*]).")
@click.option("--partitions", type=int, help="Spark: number of partitions of the state space.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
@click.option("--trace-out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the (first) counterexample as a trace file.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the (first) counterexample as a self-contained HTML page.")
@click.option("--force", is_flag=True, help="Overwrite --trace-out/--html files that exist.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def check_command(kafka_version, config_files, symmetry, properties, engine, max_states, time_limit,
                  max_depth, spark_master, partitions, as_json, trace_out, html_out, force, quiet,
                  **options):
    """Check properties of a Kafka replication configuration.

    Exit code 0: every property holds within the bounds; 1: a property is violated (the shortest
    counterexample is printed); 2: bad input; 3: incomplete (a limit was hit).
    """
    from checker import check
    from viewer.outputs import check_output_path
    from model.options import config_from_options
    from viewer.report import render_result

    check_output_path(trace_out, force, "--trace-out")
    check_output_path(html_out, force, "--html")
    if trace_out and html_out and os.path.abspath(trace_out) == os.path.abspath(html_out):
        fail("--trace-out and --html name the same file")
    config, provenance = config_from_options(
        kafka_version=kafka_version, config_files=config_files, symmetry=symmetry,
        **pop_config_options(options),
    )
    progress = None if quiet or as_json else _progress_line
    engine_options = {}
    if engine == "spark":
        engine_options = {"master": spark_master, "partitions": partitions}
    elif spark_master or partitions:
        fail("--spark-master and --partitions need --engine spark")
    if provenance and not as_json:
        for line in provenance:
            click.echo(line)
    result = check(
        config, list(properties) or None, engine=engine, max_states=max_states,
        time_limit=time_limit, max_depth=max_depth, progress=progress, **engine_options,
    )
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(render_result(result))
    trace = next((p.trace for p in result.properties if p.trace is not None), None)
    if trace is not None and trace_out:
        from viewer.trace_file import write_trace

        write_trace(trace_out, trace, result)
        if not as_json:
            click.echo(f"trace written to {trace_out}")
    if trace is not None and html_out:
        from viewer.html import write_html

        write_html(html_out, trace, result)
        if not as_json:
            click.echo(f"HTML trace viewer written to {html_out}")
    if (trace_out or html_out) and trace is None and not as_json:
        click.echo("no counterexample, so no trace file was written")
    return result.exit_code


def _progress_line(stats) -> None:
    click.echo(
        f"progress: {stats.states_generated:,} states generated, {stats.distinct_states:,} "
        f"distinct states, depth {stats.depth}, queue {stats.queue:,}, "
        f"{stats.states_per_second:,.0f} states/s, {stats.seconds:.1f} s",
        err=True,
    )


# ---------------------------------------------------------------------------- kmc list

@cli.command("list")
def list_command():
    """List the protocol variants, the properties and the strengthening invariants."""
    from model.variants import VARIANTS
    from properties import PROPERTIES

    _protocol_names()
    click.echo("Protocols (--protocol):")
    for name in sorted(VARIANTS, key=lambda n: list(VARIANTS).index(n)):
        cls = VARIANTS[name]
        click.echo(f"  {name:<15} Kafka {cls.kafka_versions:<15} {cls.summary}")
    click.echo("")
    click.echo("Properties (--property):")
    for name, prop in PROPERTIES.items():
        click.echo(f"  {name:<23} {prop.description}")
    from checker.symbolic.strengthen import STRENGTHENINGS

    click.echo("")
    click.echo("Strengthening invariants (kmc prove --strengthen NAME, or --strengthen all):")
    width = max(len(n) for n in STRENGTHENINGS) + 2
    for name, st in STRENGTHENINGS.items():
        click.echo(f"  {name:<{width}}{st.description}")
    return 0


# ---------------------------------------------------------------------------- kmc trace, kmc graph

from viewer.commands import graph_command, trace_group

cli.add_command(trace_group)
cli.add_command(graph_command)


# ---------------------------------------------------------------------------- kmc gate

from gate.commands import gate_command

cli.add_command(gate_command)


if __name__ == "__main__":
    main()

from checker.symbolic.commands import prove_command

cli.add_command(prove_command)
