"""``kmc prove``: k-induction on one property, with strengthening invariants."""

from __future__ import annotations

import click

from commands.params import BoundedInt
from commands.options import config_options, pop_config_options, source_options
from model.options import config_from_options


@click.command("prove")
@click.option("--property", "-p", "prop", required=True, metavar="NAME", help="The property to prove.")
@click.option("--strengthen", "-s", multiple=True, metavar="NAME",
              help="A strengthening invariant (or built-in property) to prove with it; repeatable; "
              "'all' for the whole library (kmc list shows it).")
@click.option("--k", "k", type=BoundedInt(None, None), default=1, show_default=True, help="Induction depth (1-64).")
@click.option("--bmc-depth", type=BoundedInt(None, None), default=8, show_default=True, metavar="N",
              help="When the inductive step fails, search for a real counterexample of up to N "
              "steps by BMC (0-200; 0: no search).")
@source_options
@config_options
@click.option("--time-limit", type=float, metavar="SECONDS",
              help="Give up (exit 3) after this many seconds.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def prove_command(prop, strengthen, k, bmc_depth, kafka_version, config_files, time_limit, quiet,
                  **options):
    """Prove a property by k-induction (z3).

    Exit code 0: PROVED (for every reachable state within the bounds); 1: FAILED or VIOLATED (the
    base case, or the BMC search that follows a failed inductive step, found a real
    counterexample, printed); 2: bad input; 3: nothing decided: INCONCLUSIVE (a counterexample to
    induction, printed, that may be unreachable, and no real counterexample within --bmc-depth),
    UNKNOWN (z3 gave up, e.g. at --time-limit) or INTERRUPTED (SIGINT/SIGTERM).
    """
    # lazy on purpose: z3, which only kmc prove and --engine bmc load
    from checker.symbolic.induction import FAILED, PROVED, VIOLATED, prove
    from viewer.proof import render_proof

    config, _ = config_from_options(kafka_version=kafka_version, config_files=config_files,
                                    **pop_config_options(options))
    progress = None if quiet else (lambda line: click.echo(f"prove: {line}", err=True))
    result = prove(config, prop, strengthen=list(strengthen), k=k, time_limit=time_limit,
                   progress=progress, bmc_depth=bmc_depth)
    click.echo(render_proof(result, config))
    return {PROVED: 0, FAILED: 1, VIOLATED: 1}.get(result.status, 3)
