"""``kmc prove``: k-induction on one property, with strengthening invariants."""

from __future__ import annotations

import click


@click.command("prove")
@click.option("--property", "-p", "prop", required=True, metavar="NAME", help="The property to prove.")
@click.option("--strengthen", "-s", multiple=True, metavar="NAME",
              help="A strengthening invariant (or built-in property) to prove with it; repeatable.")
@click.option("--k", "k", type=int, default=1, show_default=True, help="Induction depth.")
@click.option("--protocol", default="kip-320", show_default=True, metavar="NAME")
@click.option("--replication-factor", "-r", type=int, help="Replicas (2-5). [default: 3]")
@click.option("--min-insync-replicas", type=int, help="min.insync.replicas. [default: 2]")
@click.option("--acks", type=click.Choice(["0", "1", "all", "-1"]), help="Producer acks. [default: all]")
@click.option("--unclean-leader-election/--no-unclean-leader-election", default=None)
@click.option("--crash-model", type=click.Choice(["process", "power-loss"]))
@click.option("--max-records", type=int, help="Bound: records (= log slots of the encoding).")
@click.option("--max-leader-epoch", type=int, help="Bound: highest leader epoch.")
@click.option("--max-crashes", type=int, help="Bound: broker crashes.")
@click.option("--max-unflushed-losses", type=int, help="Bound: crashes that lose unflushed records.")
@click.option("--time-limit", type=float, help="Give up (exit 3) after this many seconds.")
def prove_command(prop, strengthen, k, protocol, replication_factor, min_insync_replicas, acks,
                  unclean_leader_election, crash_model, max_records, max_leader_epoch, max_crashes,
                  max_unflushed_losses, time_limit):
    """Prove a property by k-induction (z3).

    Exit code 0: PROVED (for every reachable state within the bounds); 1: FAILED (a counterexample,
    or a counterexample to induction, is printed); 2: bad input; 3: z3 gave up.
    """
    from checker.symbolic.induction import FAILED, PROVED, prove, render_proof
    from viewer.report import config_from_options

    config, _ = config_from_options(
        protocol=protocol, replication_factor=replication_factor,
        min_insync_replicas=min_insync_replicas, acks=acks,
        unclean_leader_election=unclean_leader_election, crash_model=crash_model,
        max_records=max_records, max_leader_epoch=max_leader_epoch, max_crashes=max_crashes,
        max_unflushed_losses=max_unflushed_losses,
    )
    result = prove(config, prop, strengthen=list(strengthen), k=k, time_limit=time_limit)
    click.echo(render_proof(result, config))
    return {PROVED: 0, FAILED: 1}.get(result.status, 3)
