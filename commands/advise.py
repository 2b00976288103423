"""``kmc advise``: sweep what an operator controls around their settings and say which settings
keep their goal, the weakest that do, and what stronger ones cost."""

from __future__ import annotations

import json
import sys

import click

from advise import DEFAULT_GOALS, advise
from advise.delivery import DELIVERY_GOALS, advise_delivery, is_delivery, render_delivery
from advise.liveness import (
    advise_liveness, check_liveness_goals, render_liveness_advice, render_liveness_markdown,
)
from advise.render import progress_words, render_markdown, render_text, to_json
from advise.sweep import DEFAULT_CELL_MAX_STATES
from advise.traces import write_traces
from checker.compiled import ensure_compiled
from commands.params import BoundedInt, Seconds
from commands.options import config_options, pop_config_options, source_options
from commands.usage import fail
from gate.cache import GateCache, default_cache_dir
from model.bounded import parse_int, shown
from model.config import BOUND_NAMES
from model.errors import KmcError
from model.options import config_from_options
from properties.liveness import LIVENESS


def _replication_factors(text):
    """``2,3``, ``2-5`` or a mix: the replication factors to sweep."""
    if text is None:
        return None
    out = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        try:  # bounded before the range is built: "2-99999999999" is not a list to make
            lo, hi = (parse_int(v, "", minimum=2, maximum=5) for v in (lo, hi or lo))
        except KmcError as e:
            if "whole number" in str(e):
                fail(f"--replication-factors {shown(text)}: write a list or range, e.g. 2,3 or 2-5")
            fail(f"--replication-factors {shown(text)}: replication factors go from 2 to 5")
        out += list(range(lo, hi + 1))
    if not out:
        fail(f"--replication-factors {shown(text)}: write a list or range, e.g. 2,3 or 2-5")
    return sorted(set(out))


@click.command("advise")
@config_options
@source_options
@click.option("--goal", "goals", multiple=True, metavar="PROPERTY",
              help=f"What the settings must keep: a property that must hold, an availability "
                   f"question, or a liveness property, swept on its own ('kmc list'); "
                   f"repeatable. [default: {', '.join(DEFAULT_GOALS)}]")
@click.option("--replication-factors", metavar="LIST",
              help="Replication factors to sweep every setting at, e.g. 2,3 or 2-5. RF=4 and 5 "
                   "are far bigger searches (see --cell-time-limit). [default: 2,3]")
@click.option("--full", is_flag=True,
              help="Sweep every setting under every release, not only your settings.")
@click.option("--no-releases", is_flag=True, help="Do not check your settings under other releases.")
@click.option("--cell-time-limit", type=Seconds(), default=300.0,
              show_default=True, help="Seconds one check may take before it is left incomplete "
                                      "(its setting is then 'not refuted', never kept).")
@click.option("--max-states", type=BoundedInt(1),
              help=f"Distinct states one check may explore. [default: {DEFAULT_CELL_MAX_STATES:,}]")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Result cache (cells answered before on the same model are not re-run). "
                   "[default: results in kmc's cache directory]")
@click.option("--no-cache", is_flag=True, help="Check every cell again.")
@click.option("--trace-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write every counterexample and witness as a trace file, "
                   "DIR/<cell>/<property>.itf.json. [default: none written]")
@click.option("--force", is_flag=True, help="Overwrite trace files that differ from this run's.")
@click.option("--json", "as_json", is_flag=True, help="Print the advice as JSON.")
@click.option("--markdown", is_flag=True, help="Print the advice as Markdown.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def advise_command(kafka_version, config_files, goals, replication_factors, full, no_releases,
                   cell_time_limit, max_states, cache_dir, no_cache, trace_dir, force,
                   as_json, markdown, quiet, **options):
    """Which settings keep your data safe, and what they cost.

    Starting from your settings (flags or --config Kafka properties files), every combination
    of acks, min.insync.replicas, unclean.leader.election.enable and the flush policy is checked
    at replication factors 2 and 3, and your settings under each Kafka release where a rule
    changed. Each setting's goal is checked at kmc's default bounds and at the bounds of every
    loss the known-results suite finds at its replication factor (the bound flags replace the
    default ones, never the known losses'); a setting is listed as keeping the goal only if it
    holds at all of them. Availability (can a write be acknowledged with a broker down? can the
    partition lose its leader while a broker runs?) is asked of the explorer too. Checks are
    cached.

    Exit code 0: your settings keep the goal; 1: they do not; 2: bad input; 3: undecided.
    """
    if as_json and markdown:
        fail("--json and --markdown: choose one")
    if cache_dir and no_cache:
        fail("--cache and --no-cache: choose one")
    opts = pop_config_options(options)
    bound_overrides = {k: opts[k] for k in BOUND_NAMES}
    config, provenance = config_from_options(
        kafka_version=kafka_version, config_files=config_files, **opts)
    rfs = _replication_factors(replication_factors)
    cache = None if no_cache else GateCache(cache_dir or str(default_cache_dir()))
    if provenance and not (as_json or markdown):
        for line in provenance:
            click.echo(line)
        click.echo("")
    ensure_compiled(None if quiet else (lambda line: click.echo(line, err=True)))
    if any(g in DELIVERY_GOALS for g in goals):
        return _advise_delivery(config, goals, cell_time_limit, max_states, as_json, markdown,
                                quiet)
    if any(g in LIVENESS for g in goals):
        if cache_dir:
            fail("--cache is not used by the liveness goals yet: every setting is checked again "
                 "(leave it out)")
        return _advise_liveness(config, goals, rfs, bound_overrides, full, trace_dir, cell_time_limit,
                                max_states, as_json, markdown, quiet)

    def progress(i, n, advice, settings):
        if not quiet:
            click.echo(f"[{i}/{n}] {settings.words(release=True)}: {progress_words(advice, settings)}",
                       err=True)
            sys.stderr.flush()

    advice = advise(config, goals=goals, replication_factors=rfs, bound_overrides=bound_overrides,
                    sweep_releases=not no_releases, full=full, cache=cache,
                    time_limit=cell_time_limit, max_states=max_states, progress=progress)
    # the configuration's notes (a typo in the files ...), but the flush policy's: advise sweeps
    # both policies, each with the crash model it matters under
    advice.notes += [n for n in getattr(provenance, "notes", ()) if "flush policy matters" not in n]
    if trace_dir and not advice.interrupted:
        advice.notes += write_traces(advice, trace_dir, force=force)
    if as_json:
        click.echo(json.dumps(to_json(advice), indent=2))
    elif markdown:
        click.echo(render_markdown(advice), nl=False)
    else:
        click.echo(render_text(advice).replace("TRACE-DIR", trace_dir or "TRACE-DIR"))
    return advice.exit_code


def _advise_delivery(config, goals, time_limit, max_states, as_json, markdown, quiet) -> int:
    """The delivery goals (no-duplicates, in-order, exactly-once-to-log): a sweep of the
    producer's settings (``advise/delivery.py``), on their own."""
    if not is_delivery(goals):
        fail(f"--goal {', '.join(g for g in goals if g in DELIVERY_GOALS)} is about the producer's "
             "settings and is advised on its own: ask it without the other goals")
    if as_json or markdown:
        fail("--json and --markdown are not written for the delivery goals yet: the text "
             "advice only")

    def progress(i, n, cell):
        if not quiet:
            click.echo(f"[{i}/{n}] {cell.settings.words()}: "
                       + ("refused" if cell.refused else "keeps the goal" if cell.keeps
                          else "does not keep it"), err=True)

    advice = advise_delivery(config, goals, time_limit=time_limit, max_states=max_states,
                             progress=progress)
    click.echo(render_delivery(advice), nl=False)
    return advice.exit_code


def _advise_liveness(config, goals, rfs, bound_overrides, full, trace_dir, time_limit, max_states,
                     as_json, markdown, quiet) -> int:
    """The liveness goals (``properties/liveness.py``): a sweep of the operator's settings, each
    judged on its behaviour graph under weak fairness (``advise/liveness.py``), on their own."""
    try:
        goals = check_liveness_goals(goals)
    except KmcError as e:
        fail(str(e))
    for flag, given in (("--full", full), ("--trace-dir", trace_dir)):
        if given:
            fail(f"{flag} is not written for the liveness goals yet: the text, --markdown or "
                 "--json advice only (kmc check -p NAME --trace-out FILE writes a setting's lasso)")

    def progress(i, n, cell):
        if not quiet:
            click.echo(f"[{i}/{n}] {cell.settings.words()}: {cell.status}", err=True)

    advice = advise_liveness(config, goals, replication_factors=rfs,
                             bound_overrides=bound_overrides, time_limit=time_limit,
                             max_states=max_states, progress=progress)
    if as_json:
        click.echo(json.dumps(advice.to_json(), indent=2))
    elif markdown:
        click.echo(render_liveness_markdown(advice), nl=False)
    else:
        click.echo(render_liveness_advice(advice), nl=False)
    return advice.exit_code

