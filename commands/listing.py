"""``kmc list``: the protocol variants, the properties and the strengthening invariants."""

from __future__ import annotations

import click

from model.releases import KRAFT_SINCE, NEWEST_MODELLED, RELEASES
from model.rules import PROTOCOLS, RULES, change_releases, release_rules
from properties import PROPERTIES


@click.command("list")
def list_command():
    """List the protocol variants, the properties and the strengthening invariants."""
    # lazy on purpose: the strengthening library builds on z3, which no other part of kmc list needs
    from checker.symbolic.strengthen import STRENGTHENINGS

    click.echo("Protocols (--protocol; each the rule set of a release):")
    for name, protocol in PROTOCOLS.items():
        click.echo(f"  {name:<15} Kafka {protocol.versions:<15} {protocol.summary}")
    click.echo("")
    click.echo("Rules (--rule +NAME / -NAME; --kafka-version X.Y selects the rules that release has):")
    width = max(len(n) for n in RULES) + 2
    for name, rule in RULES.items():
        since = f"Kafka {rule.releases}" if rule.since else "no Kafka"
        click.echo(f"  {name:<{width}}{since:<13}{rule.summary}")
        click.echo(f"  {'':<{width}}{'':<13}source: {rule.source}")
    click.echo("")
    click.echo(f"Releases (--kafka-version X.Y: the rules of that release; KRaft from {KRAFT_SINCE}; "
               f"modelled up to {NEWEST_MODELLED}, a later one runs {NEWEST_MODELLED}'s rules with a "
               "warning):")
    previous: tuple = ()
    for version in change_releases():
        rules = release_rules(version)
        added = [r for r in rules if r not in previous]
        gone = [r for r in previous if r not in rules]
        words = ", ".join([("+ " if previous else "") + ", ".join(added)] * bool(added)
                          + ["- " + ", ".join(gone)] * bool(gone))
        click.echo(f"  {str(version):<6} {words or 'none'}")
        previous = rules
    click.echo(f"  Kafka releases kmc knows: {', '.join(str(v) for v in RELEASES)}")
    click.echo("")
    click.echo("What Kafka promises (--property; checked by default, a violation fails the run, "
               "exit code 1):")
    for name, prop in PROPERTIES.items():
        if not prop.is_reachability and not prop.stronger and not prop.history:
            click.echo(f"  {name:<28} {prop.description}")
    click.echo("  asked by name only (the state keeps a history for them):")
    for name, prop in PROPERTIES.items():
        if prop.history:
            click.echo(f"  {name:<28} {prop.description}")
    click.echo("")
    click.echo("Stronger invariants (checked by default and reported, not failing; -p NAME makes a "
               "violation fail the run):")
    for name, prop in PROPERTIES.items():
        if prop.stronger and not prop.by_name:
            click.echo(f"  {name:<28} {prop.description}")
            click.echo(f"  {'':<28} why not failing by default: {prop.stronger}")
    click.echo("  asked by name only (delivery: they judge what a producer with --retries does):")
    for name, prop in PROPERTIES.items():
        if prop.by_name:
            click.echo(f"  {name:<28} {prop.description}")
            click.echo(f"  {'':<28} why not a promise: {prop.stronger}")
    click.echo("  not modelled: transactions (transactional.id), the consumer's committed offsets "
               "(docs/model.md, Delivery semantics)")
    click.echo("")
    click.echo("Reachability questions (--property NAME: VIOLATED means reached, the trace is a "
               "shortest witness; kmc advise asks them):")
    for name, prop in PROPERTIES.items():
        if prop.is_reachability:
            click.echo(f"  {name:<28} {prop.description}")
    click.echo("")
    click.echo("Strengthening invariants (kmc prove --strengthen NAME, or --strengthen all):")
    width = max(len(n) for n in STRENGTHENINGS) + 2
    for name, st in STRENGTHENINGS.items():
        click.echo(f"  {name:<{width}}{st.description}")
    return 0
