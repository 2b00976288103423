"""``kmc list``: the protocol variants, the properties and the strengthening invariants."""

from __future__ import annotations

import click

from model.protocols import VARIANTS, load_entry_point_variants
from model.rules import RELEASES, RULES, release_rules
from properties import PROPERTIES


@click.command("list")
def list_command():
    """List the protocol variants, the properties and the strengthening invariants."""
    # lazy on purpose: the strengthening library builds on z3, which no other part of kmc list needs
    from checker.symbolic.strengthen import STRENGTHENINGS

    load_entry_point_variants()
    click.echo("Protocols (--protocol):")
    for name in sorted(VARIANTS, key=lambda n: list(VARIANTS).index(n)):
        cls = VARIANTS[name]
        click.echo(f"  {name:<15} Kafka {cls.kafka_versions:<15} {cls.summary}")
    click.echo("")
    click.echo("Rules (--rule +NAME / -NAME; --kafka-version X.Y selects the rules that release has):")
    width = max(len(n) for n in RULES) + 2
    for name, rule in RULES.items():
        since = f"Kafka {rule.since}+" if rule.since else "no Kafka"
        click.echo(f"  {name:<{width}}{since:<12}{rule.summary}")
        click.echo(f"  {'':<{width}}{'':<12}source: {rule.source}")
    click.echo("")
    click.echo("Releases (--kafka-version X.Y has the rules of the latest line at or below it):")
    previous: tuple = ()
    for version in RELEASES:
        rules = release_rules(version)
        added = ", ".join(r for r in rules if r not in previous)
        click.echo(f"  {version:<6} {'none' if not rules else ('+ ' + added) if previous else added}")
        previous = rules
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
        if prop.stronger:
            click.echo(f"  {name:<28} {prop.description}")
            click.echo(f"  {'':<28} why not failing by default: {prop.stronger}")
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
