"""``kmc list``: the protocol variants, the properties and the strengthening invariants."""

from __future__ import annotations

import click

from model.protocols import VARIANTS, load_entry_point_variants
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
    click.echo("Properties (--property):")
    for name, prop in PROPERTIES.items():
        click.echo(f"  {name:<23} {prop.description}")
    click.echo("")
    click.echo("Strengthening invariants (kmc prove --strengthen NAME, or --strengthen all):")
    width = max(len(n) for n in STRENGTHENINGS) + 2
    for name, st in STRENGTHENINGS.items():
        click.echo(f"  {name:<{width}}{st.description}")
    return 0
