"""``kmc graph``: the explored state graph of a small configuration, as GraphML and/or DOT."""

from __future__ import annotations

import click

from commands.params import BoundedInt
from commands.options import config_options, pop_config_options
from commands.usage import check_output_path, same_file, write_output
from model.options import config_from_options
from properties import get_properties


@click.command("graph")
@config_options
@click.option("--property", "-p", "properties", multiple=True, metavar="NAME",
              help="Property whose violating states are marked (repeatable); default: all.")
@click.option("--graphml", type=click.Path(dir_okay=False), metavar="FILE", help="Write GraphML here.")
@click.option("--dot", type=click.Path(dir_okay=False), metavar="FILE", help="Write Graphviz DOT here.")
@click.option("--max-nodes", type=BoundedInt(None, None), default=20000, show_default=True,
              help="Refuse state graphs with more states than this.")
@click.option("--force", is_flag=True, help="Overwrite output files that exist.")
def graph_command(properties, graphml, dot, max_nodes, force, **options):
    """Write the explored state graph of a small configuration as GraphML and/or DOT, with the
    states that violate each property marked."""
    # lazy on purpose: networkx takes longer to import than the rest of kmc together, and only
    # kmc graph needs it
    from viewer.graph import build_graph, graph_summary, write_dot, write_graphml

    if not graphml and not dot:
        raise click.UsageError("say where to write the graph: --graphml FILE and/or --dot FILE")
    if max_nodes < 1:
        raise click.UsageError(f"--max-nodes must be positive, got {max_nodes}")
    if same_file(graphml, dot):
        raise click.UsageError("--graphml and --dot name the same file; give each its own")
    check_output_path(graphml, force, "--graphml")
    check_output_path(dot, force, "--dot")
    config, _ = config_from_options(**pop_config_options(options))
    graph = build_graph(config, get_properties(list(properties) or None), max_nodes=max_nodes)
    for line in graph_summary(graph):
        click.echo(line)
    if graphml:
        write_output(graphml, "--graphml", lambda tmp: write_graphml(graph, tmp), force=force)
        click.echo(f"GraphML written to {graphml}")
    if dot:
        write_output(dot, "--dot", lambda tmp: write_dot(graph, tmp), force=force)
        click.echo(f"DOT written to {dot}")
    return 0
