"""``kmc prove``: k-induction on one property, with strengthening invariants; after a
counterexample to induction, a search of the model settles it (``checker/symbolic/settle.py``)."""

from __future__ import annotations

import json

import click

from commands.check import parse_size
from commands.params import BoundedInt
from commands.options import config_options, pop_config_options, source_options
from model.options import config_from_options


@click.command("prove")
@click.option("--property", "-p", "prop", required=True, metavar="NAME", help="The property to prove.")
@click.option("--strengthen", "-s", multiple=True, metavar="NAME",
              help="A strengthening invariant (or built-in property) to prove with it; repeatable; "
              "'all' for the whole library (kmc list shows it); 'auto' to take in from the "
              "library only what the counterexamples to induction need (proves whatever 'all' "
              "proves, with fewer conjuncts; the result names them).")
@click.option("--k", "k", type=BoundedInt(None, None), default=1, show_default=True, help="Induction depth (1-64).")
@click.option("--search", type=click.Choice(["both", "bfs", "bmc", "none"]), default="both",
              show_default=True,
              help="When the inductive step fails, settle the question: bfs explores the compiled "
              "model (kmc check's engine; a violation, or every reachable state without one); "
              "bmc searches by z3 up to --bmc-depth steps; both runs BFS, then BMC if BFS "
              "stopped shallower than --bmc-depth (BMC then asks only the depths past BFS's); none stops on the counterexample to induction.")
@click.option("--bmc-depth", type=BoundedInt(None, None), default=8, show_default=True, metavar="N",
              help="The BMC search's depth: counterexamples of up to N steps (0-200; 0: no BMC).")
@click.option("--step", "step", type=click.Choice(["auto", "whole", "cases"]), default="auto",
              show_default=True,
              help="How the inductive step's last transition is asked: whole (one query), cases "
              "(one query per transition case; the same question, faster at large bounds), or "
              "auto (whole for 60 s, then by case).")
@click.option("--workers", type=BoundedInt(None, None), metavar="N",
              help="Cases of the step asked at once, one thread each, when it is asked case by "
              "case (default: the cores available).")
@click.option("--unbounded", "unbounded", metavar="BOUNDS", default="",
              help="Prove past these bounds: 'crashes' drops --max-crashes (and under power loss "
              "--max-unflushed-losses): PROVED then holds for every number of crashes. "
              "'leader-epochs' and 'records' are refused (docs/symbolic.md, 'Unbounded leader "
              "epochs and crashes').")
@source_options
@config_options
@click.option("--time-limit", type=float, metavar="SECONDS",
              help="Give up (exit 3) after this many seconds: the proof and the search together.")
@click.option("--memory-limit", metavar="SIZE",
              help="The BFS search's memory (e.g. 2G, 500M): it stops there, in memory only (no "
              "spill to disk as kmc check has); default: half the machine's RAM.")
@click.option("--max-states", type=BoundedInt(None, None), metavar="N",
              help="Stop the BFS search after this many distinct states.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the outcome as JSON on stdout (the status, the conjuncts used, the "
              "searches after a CTI, a counterexample's trace); the exit code is the same.")
def prove_command(prop, strengthen, k, search, bmc_depth, step, workers, unbounded, kafka_version, config_files,
                  time_limit, memory_limit, max_states, quiet, as_json, **options):
    """Prove a property by k-induction (z3).

    Exit code 0: PROVED (for every reachable state within the bounds), or HOLDS (the inductive
    step failed, but BFS explored every reachable state within the bounds without a violation);
    1: FAILED or VIOLATED (the base case, or the search that follows a failed inductive step,
    found a real counterexample, printed); 2: bad input; 3: nothing decided: INCONCLUSIVE (a
    counterexample to induction, printed, that may be unreachable, and no search settled it
    within its limits), UNKNOWN (z3 gave up, e.g. at --time-limit) or INTERRUPTED
    (SIGINT/SIGTERM). With --unbounded crashes, PROVED holds for every number of crashes, and a
    search that finds no violation within the bounds is INCONCLUSIVE, not HOLDS.
    """
    # lazy on purpose: z3, which only kmc prove and --engine bmc load
    from checker.symbolic.induction import prove
    from viewer.proof import render_proof

    config, asked = proof_request(prop=prop, strengthen=strengthen, k=k, search=search,
                                  bmc_depth=bmc_depth, step=step, workers=workers,
                                  unbounded=unbounded, kafka_version=kafka_version,
                                  config_files=config_files, time_limit=time_limit,
                                  memory_limit=memory_limit, max_states=max_states, **options)
    progress = None if quiet or as_json else (lambda line: click.echo(f"prove: {line}", err=True))
    result = prove(config, prop, progress=progress, **asked)
    if as_json:
        click.echo(json.dumps(result.to_json(config.as_dict()), indent=2))
    else:
        click.echo(render_proof(result, config))
    return result.exit_code


def proof_request(*, prop, strengthen, k, search, bmc_depth, step, workers, unbounded,
                  kafka_version, config_files, time_limit, memory_limit, max_states, **options):
    """``kmc prove``'s options as the configuration and ``prove``'s keyword arguments (the
    proof ledger, ``commands/proofs.py``, reads a row's command through this too)."""
    config, _ = config_from_options(kafka_version=kafka_version, config_files=config_files,
                                    **pop_config_options(options))
    return config, dict(strengthen=list(strengthen), k=k, time_limit=time_limit,
                        bmc_depth=bmc_depth, search=search, memory_limit=parse_size(memory_limit),
                        max_states=max_states, unbounded=unbounded, step=step, workers=workers)
