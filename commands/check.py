"""``kmc check``: check properties of a configuration with one of the registered engines."""

from __future__ import annotations

import json
import re

import click

import spark_explore  # noqa: F401  (joins the engine registry, so --engine lists it)
from checker import check
from checker.engines import ENGINES, engine_choices
from checker.result import HOLDS
from commands.params import BoundedInt
from commands.options import config_options, pop_config_options, source_options
from commands.usage import check_output_path, fail, same_file, write_output
from gate.known import beyond
from model.bounded import MAX_DIGITS, shown
from model.options import config_from_options
from viewer.html import write_html, write_lasso_html
from viewer.report import render_result
from viewer.safe_text import terminal_safe
from viewer.trace_file import write_lasso, write_trace
from checker.compiled.progress import describe_eta
from checker.liveness import check_liveness
from properties import PROPERTIES
from properties.liveness import LIVENESS, get_liveness
from viewer.lasso import render_liveness


@click.command("check")
@config_options
@source_options
@click.option("--symmetry/--no-symmetry", default=True, show_default=True,
              help="Explore states that differ only by renaming brokers 1..N-1 once.")
@click.option("--property", "-p", "properties", multiple=True, metavar="NAME",
              help="Property to check (repeatable); a property named here fails the run when "
                   "violated. Default: every invariant; those Kafka promises fail the run, the "
                   "stronger ones are reported only ('kmc list').")
@click.option("--engine", type=click.Choice(engine_choices()), default="compiled", show_default=True,
              help="; ".join(f"{e.name}: {e.description}" for e in ENGINES.values()) + ".")
@click.option("--max-states", type=BoundedInt(None, None), help="Stop (INCOMPLETE) after this many distinct states.")
@click.option("--workers", type=BoundedInt(None, None), metavar="N",
              help="Compiled engine: threads exploring at once (default: the cores available).")
@click.option("--memory-limit", metavar="SIZE",
              help="Keep the explorer's memory under this (e.g. 2G, 500M): past it, the "
                   "fingerprints, the frontier and the parent index go on on disk; default: half "
                   "the machine's RAM.")
@click.option("--disk-limit", metavar="SIZE",
              help="Compiled engine: stop (INCOMPLETE) before its files would pass this (0: never "
                   "use the disk, stop at the memory limit instead); default: 80% of the free "
                   "space.")
@click.option("--disk-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Compiled engine: where its files go (a new directory inside DIR, removed at "
                   "the end); default: the system's temporary directory.")
@click.option("--fp-bits", type=click.Choice(["64", "128"]),
              help="Compiled engine: fingerprint width (128 for runs past about 10^9 states); "
                   "default 64.")
@click.option("--coverage", is_flag=True,
              help="Print, per action, how often it was enabled and the states it produced.")
@click.option("--time-limit", type=float, help="Stop (INCOMPLETE) after this many seconds.")
@click.option("--depth", "max_depth", type=BoundedInt(None, None), help="Explore at most this many steps (bmc: the depth K).")
@click.option("--spark-master", metavar="URL", help="Spark master URL (default local[*]).")
@click.option("--partitions", type=BoundedInt(None, None), help="Spark: number of partitions of the state space.")
@click.option("--checkpoint-dir", metavar="DIR",
              help="Checkpoint between levels into DIR (Spark: a path or a Hadoop URI), to "
                   "--resume after a stop or a crash.")
@click.option("--checkpoint-every", type=BoundedInt(None, None), metavar="N",
              help="Levels between checkpoints (default: Spark 5; compiled: the first level "
                   "boundary 10 minutes after the last checkpoint).")
@click.option("--resume", is_flag=True,
              help="Continue the run checkpointed in --checkpoint-dir (same options).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
@click.option("--trace-out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the (first) counterexample as a trace file.")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the (first) counterexample as a self-contained HTML page.")
@click.option("--force", is_flag=True, help="Overwrite --trace-out/--html files that exist.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@click.option("--unbounded", "unbounded", metavar="BOUNDS", default="",
              help="Forget bounds: 'crashes' (any number of crashes) or 'crashes,leader-epochs' "
                   "(any number of leader epochs too, with at most --max-waiting-requests "
                   "LeaderAndIsr requests waiting for one broker); a search over normal forms "
                   "(docs/checker.md, 'Any number of crashes and leader epochs'); -p defaults to "
                   "no-acked-loss there.")
@click.option("--max-waiting-requests", type=BoundedInt(1, 20), metavar="N",
              help="With --unbounded ...,leader-epochs: the most LeaderAndIsr requests on their "
                   "way to one broker in the behaviours explored. [default: 2]")
@click.option("--fairness/--no-fairness", default=True, show_default=True,
              help="Liveness properties (-p NAME of one, 'kmc list'): weak fairness for the "
                   "protocol's own steps, or none (docs/liveness.md).")
def check_command(kafka_version, config_files, symmetry, properties, engine, max_states, workers,
                  memory_limit, disk_limit, disk_dir, fp_bits, coverage, time_limit, max_depth,
                  spark_master, partitions, checkpoint_dir, checkpoint_every, resume, as_json,
                  trace_out, html_out, force, quiet, unbounded, max_waiting_requests, fairness,
                  **options):
    """Check properties of a Kafka replication configuration.

    Exit code 0: every property holds within the bounds; 1: a property is violated (the shortest
    counterexample is printed); 2: bad input; 3: incomplete (a limit was hit). Without -p, a
    violated invariant stronger than what Kafka promises is reported and does not change it.
    """
    if same_file(trace_out, html_out):
        fail("--trace-out and --html name the same file")
    check_output_path(trace_out, force, "--trace-out", inputs=config_files)
    check_output_path(html_out, force, "--html", inputs=config_files)
    config_options_given = pop_config_options(options)
    options_given = {k for k, v in config_options_given.items() if v is not None}
    config, provenance = config_from_options(
        kafka_version=kafka_version, config_files=config_files, symmetry=symmetry,
        **config_options_given,
    )
    unknown = [name for name in properties if name not in PROPERTIES and name not in LIVENESS]
    if unknown:
        # -p takes both kinds: the list names both, so a typo'd liveness name finds its match
        fail(f"unknown property {shown(unknown[0])}; choose from: {', '.join(PROPERTIES)}; "
             f"or a liveness property: {', '.join(LIVENESS)}")
    if unbounded or max_waiting_requests is not None:
        given = {"--engine": engine != "compiled", "--workers": workers, "--memory-limit": memory_limit,
                 "--disk-limit": disk_limit, "--disk-dir": disk_dir, "--fp-bits": fp_bits,
                 "--coverage": coverage, "--depth": max_depth, "--spark-master": spark_master,
                 "--partitions": partitions, "--checkpoint-dir": checkpoint_dir,
                 "--checkpoint-every": checkpoint_every, "--resume": resume,
                 "--trace-out": trace_out, "--html": html_out}
        if provenance and not as_json:
            for line in provenance:
                click.echo(terminal_safe(line))
        return _check_unbounded(config, properties, unbounded, max_waiting_requests, options_given,
                                [flag for flag, value in given.items() if value], max_states,
                                time_limit, as_json, quiet)
    if any(name in LIVENESS for name in properties):
        ignored = [flag for flag, value in (
            ("--depth", max_depth and engine != "bmc"), ("--coverage", coverage), ("--workers", workers),
            ("--memory-limit", memory_limit), ("--disk-limit", disk_limit),
            ("--disk-dir", disk_dir), ("--fp-bits", fp_bits), ("--checkpoint-dir", checkpoint_dir),
            ("--resume", resume)) if value]
        if ignored:
            fail(f"{', '.join(ignored)} do not apply to a liveness property (its check holds the "
                 "graph in memory: bound it with --max-states and --time-limit; --depth with "
                 "--engine bmc, the lasso search)")
        return _check_liveness(config, properties, fairness, max_states, time_limit, engine,
                               as_json, trace_out, html_out, force, max_depth, quiet)
    progress = None if quiet or as_json else _progress_line
    checkpoints = {"checkpoint_dir": checkpoint_dir, "checkpoint_every": checkpoint_every,
                   "resume": resume}
    spark_options = {"master": spark_master, "partitions": partitions}
    compiled_options = {"workers": workers, "disk_limit": parse_size(disk_limit, "--disk-limit", 0),
                        "disk_dir": disk_dir, "fp_bits": int(fp_bits) if fp_bits else None}
    engine_options = {}
    if engine == "spark":
        engine_options = dict(spark_options, **checkpoints)
    elif engine in ("compiled", "bfs"):
        engine_options = dict(compiled_options, **checkpoints)
    if engine != "spark" and any(v for v in spark_options.values()):
        fail("--spark-master and --partitions need --engine spark")
    if engine not in ("compiled", "bfs") and any(v is not None for v in compiled_options.values()):
        fail("--workers, --disk-limit, --disk-dir and --fp-bits need the compiled engine (the "
             "default)")
    if engine not in ("compiled", "bfs", "spark") and any(v for v in checkpoints.values()):
        fail("--checkpoint-dir, --checkpoint-every and --resume need --engine compiled or spark")
    if provenance and not as_json:
        for line in provenance:  # it quotes the user's files: keep their bytes off the terminal
            click.echo(terminal_safe(line))
    result = check(
        config, list(properties) or None, engine=engine, max_states=max_states,
        time_limit=time_limit, max_depth=max_depth, memory_limit=parse_size(memory_limit),
        coverage=coverage, progress=progress, notice=None if quiet else _notice,
        warn=_notice,  # even with --quiet: a run that cannot finish must not be silent
        **engine_options,
    )
    if not result.interrupted:  # a HOLDS says what it does not cover: known losses beyond it
        result.known_beyond = beyond(config, [p.name for p in result.properties if p.verdict == HOLDS])
    # (notes quote the user's files: their bytes are kept off the terminal)
    result.notes += [f"note: {terminal_safe(n)}" for n in getattr(provenance, "notes", ())]
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(render_result(result))
    trace = next((p.trace for p in sorted(result.properties, key=lambda p: p.reported_only)
                  if p.trace is not None), None)  # a failing property's first
    if trace is not None and trace_out:
        write_output(trace_out, "--trace-out", lambda tmp: write_trace(tmp, trace, result), force=force)
        if not as_json:
            click.echo(f"trace written to {terminal_safe(trace_out)}")
    if trace is not None and html_out:
        write_output(html_out, "--html", lambda tmp: write_html(tmp, trace, result), force=force)
        if not as_json:
            click.echo(f"HTML trace viewer written to {terminal_safe(html_out)}")
    if (trace_out or html_out) and trace is None and not as_json:
        click.echo("no counterexample, so no trace file was written")
    return result.exit_code


def _check_unbounded(config, properties, unbounded, max_waiting, options_given, other_flags,
                     max_states, time_limit, as_json, quiet) -> int:
    """``kmc check --unbounded crashes[,leader-epochs]``: the search of ``checker/unbounded.py``
    over normal forms (crash count forgotten, leader epochs renamed by their order)."""
    from checker.unbounded import explore

    if not unbounded:
        fail("--max-waiting-requests needs --unbounded crashes,leader-epochs")
    if other_flags:
        fail(f"{', '.join(other_flags)} do not apply to --unbounded (a search of its own over "
             "normal forms, in memory; the counterexample is printed, not written)")
    chosen = tuple(u.strip() for u in unbounded.split(",") if u.strip())
    if "leader-epochs" not in chosen and max_waiting is not None:
        fail("--max-waiting-requests applies to --unbounded crashes,leader-epochs only")
    for bound, option in (("crashes", "max_crashes"), ("leader-epochs", "max_leader_epoch")):
        if bound in chosen and option in options_given:
            fail(f"--{option.replace('_', '-')} and --unbounded {bound} contradict each other")
    names = list(properties) or ["no-acked-loss"]
    if any(name in LIVENESS for name in names):
        fail("--unbounded checks invariants, not liveness properties")
    progress = None if quiet or as_json else _progress_line
    result = explore(config, names, chosen, max_waiting or 2, max_states=max_states,
                     time_limit=time_limit, progress=progress)
    click.echo(json.dumps(result.to_json(), indent=2) if as_json else render_result(result))
    return result.exit_code


def _check_liveness(config, properties, fair, max_states, time_limit, engine, as_json,
                    trace_out, html_out, force, max_depth=None, quiet=False) -> int:
    """``kmc check -p NAME`` of a liveness property: its own check on the behaviour graph
    (``checker/liveness.py``), or with ``--engine bmc --depth K`` the search for a shortest
    lasso of up to K steps (``checker/symbolic/lasso.py``: VIOLATED or INCOMPLETE, never
    HOLDS); ``--trace-out`` writes the lasso as ITF with its ``loop``."""
    if len(properties) != 1:
        fail("a liveness property is checked on its own: give one -p NAME")
    if engine == "bmc":
        result = _lasso_search(config, get_liveness(properties[0]), fair, max_states,
                               time_limit, max_depth, quiet or as_json)
    elif engine != "compiled":
        fail("liveness properties are checked on the compiled kernel's graph (the default "
             "engine) or by --engine bmc's lasso search")
    else:
        result = check_liveness(config, get_liveness(properties[0]), fair=fair,
                                max_states=max_states, time_limit=time_limit)
    click.echo(json.dumps(result.to_json(), indent=2) if as_json else render_liveness(result))
    if result.trace is not None and trace_out:
        write_output(trace_out, "--trace-out",
                     lambda tmp: write_lasso(tmp, result, config.as_dict()), force=force)
        if not as_json:
            click.echo(f"lasso written to {terminal_safe(trace_out)}")
    elif trace_out and not as_json:
        click.echo("no counterexample, so no trace file was written")
    if result.trace is not None and html_out:
        write_output(html_out, "--html",
                     lambda tmp: write_lasso_html(tmp, result, config.as_dict()), force=force)
        if not as_json:
            click.echo(f"HTML lasso viewer written to {terminal_safe(html_out)}")
    elif html_out and not as_json:
        click.echo("no counterexample, so no HTML page was written")
    return result.exit_code


def _lasso_search(config, prop, fair, max_states, time_limit, max_depth, quiet=False):
    """``--engine bmc`` on a liveness property: the lasso search of ``checker/symbolic/lasso.py``
    on the encoding ``scope.symbolic_model`` builds (one line, exit 2, for what it lacks), with a
    progress line on stderr per length refuted."""
    from checker.symbolic.lasso import lasso_check
    from checker.symbolic.scope import symbolic_model

    if max_states:
        fail("--max-states does not apply to --engine bmc (it unrolls --depth K steps)")
    if max_depth is None:
        fail("--engine bmc needs --depth K: the longest lasso to look for")
    def progress(k, seconds):
        click.echo(f"lasso search: no lasso of up to {k} steps, {seconds:.1f} s", err=True)

    return lasso_check(symbolic_model(config), prop, max_depth=max_depth, fair=fair,
                       time_limit=time_limit, kernel_config=config,
                       progress=None if quiet else progress)


def _progress_line(stats) -> None:
    memory = f", {stats.memory_bytes / 2**20:,.0f} MiB" if stats.memory_bytes else ""
    disk = f", disk {stats.disk_bytes / 2**20:,.0f} MiB" if stats.disk_bytes else ""
    eta = ""
    if stats.eta_seconds is not None:
        eta = f", {describe_eta(stats.eta_seconds)}"
    elif stats.seconds >= 60 and stats.queue and stats.levels_growing:  # say why there is none yet
        eta = f", {describe_eta(None)}"
    click.echo(
        f"progress: {stats.states_generated:,} states generated, {stats.distinct_states:,} "
        f"distinct states, depth {stats.depth}, queue {stats.queue:,}, "
        f"{stats.states_per_second:,.0f} states/s, {stats.seconds:.1f} s{memory}{disk}{eta}"
        + (f"; {stats.activity}" if stats.activity else ""),
        err=True,
    )


def _notice(line: str) -> None:
    click.echo(line, err=True)


_SIZE_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(text, option: str = "--memory-limit", least: float = 1):
    """``--memory-limit``, ``--disk-limit``: a byte count with an optional K/M/G/T suffix
    (powers of 1024), at least ``least``."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d{1,%d}(?:\.\d{1,%d})?)\s*([KMGT]?)i?B?\s*" % (MAX_DIGITS, MAX_DIGITS),
                     str(text), re.IGNORECASE)
    if not m or float(m.group(1)) < least or (least > 0 and float(m.group(1)) <= 0):
        fail(f"{option} {shown(text)} is not a size; write e.g. 500M or 2G")
    size = float(m.group(1)) * _SIZE_UNITS[m.group(2).upper()]
    if size > 2**63 - 1:  # a 40-digit count is finite, but no machine has that memory
        fail(f"{option} {shown(text)} is larger than any memory or disk (at most 8 EiB)")
    return int(size)
