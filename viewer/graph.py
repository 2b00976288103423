"""``kmc graph``: the explored state graph of a small configuration, as GraphML and DOT.

``build_graph`` explores breadth-first from the initial states over ``model.successors``, with
states identified by their 64-bit fingerprints (``checker.fingerprint``, the same identity the
checker uses), into a ``networkx.DiGraph``. Each node carries its depth, a short summary of the
logs and the controller, whether it is initial, whether it is a dead end (no action enabled), and
for every property a ``violates_<property>`` flag (plus ``violates``, the names joined). Each
edge carries the action(s) leading from one state to the other.

A graph bigger than ``max_nodes`` states is refused (``GraphTooLargeError``, exit code 2) rather
than cut short: a partial graph would look complete.
"""

from __future__ import annotations

from collections import deque

import networkx as nx

from checker.fingerprint import fingerprint
from model.errors import KmcError
from viewer.safe_text import terminal_safe, xml_safe
from model import make_model


class GraphTooLargeError(KmcError):
    """The state graph has more states than the limit."""


def node_id(fp: int) -> str:
    return f"s{fp:016x}"


def _attr_name(prop_name: str) -> str:
    return "violates_" + "".join(ch if ch.isalnum() else "_" for ch in prop_name)


def state_summary(state) -> str:
    """One line per broker and one for the controller: ``b0 leader e1 log r1e0,r2e1 hw 1``."""
    lines = []
    for b, r in enumerate(state.replicas):
        if not r.alive:
            role = "DOWN"
        elif r.leader == b:
            role = f"leader e{r.leader_epoch}"
        else:
            role = f"follower e{r.leader_epoch}"
        log = ",".join(f"r{rid}e{ep}" for rid, ep in r.log) or "-"
        lines.append(f"b{b} {role} log {log} hw {r.high_watermark}")
    c = state.controller
    acked = ",".join(f"r{rid}@{off}" for rid, off in state.acked) or "-"
    lines.append(
        f"ctl leader {c.leader} e{c.leader_epoch} isr {{{','.join(map(str, c.isr))}}} "
        f"LAI {len(state.leader_and_isr)} acked {acked}"
    )
    return "\n".join(lines)


def build_graph(config, properties, *, max_nodes: int = 20000) -> nx.DiGraph:
    """Explore ``config`` completely into a DiGraph; ``GraphTooLargeError`` past ``max_nodes``."""
    model = make_model(config)
    canonical = model.canonical
    graph = nx.DiGraph(
        name=f"kmc state graph: {config.protocol}",
        protocol=config.protocol,
        config=str(config.as_dict()),
        properties=",".join(p.name for p in properties),
    )

    def add(state, fp, depth, initial):
        violated = [p.name for p in properties if not p.check(state)]
        attrs = {
            "label": state_summary(state), "depth": depth, "initial": initial,
            "violates": ",".join(violated), "dead_end": False,
        }
        for p in properties:
            attrs[_attr_name(p.name)] = p.name in violated
        graph.add_node(node_id(fp), **attrs)

    def too_big():
        raise GraphTooLargeError(
            f"the state graph has more than {max_nodes:,} states (the --max-nodes limit); raise "
            f"--max-nodes or shrink the configuration (-r, --max-records, --max-leader-epoch, --max-crashes)"
        )

    queue: deque = deque()
    for init in model.init_states():
        fp = fingerprint(canonical(init))
        if node_id(fp) not in graph:
            add(init, fp, 0, True)
            queue.append((init, fp, 0))
    while queue:
        state, fp, depth = queue.popleft()
        src = node_id(fp)
        succ = model.successors(state)
        if not succ:
            graph.nodes[src]["dead_end"] = True
        for act, nxt in succ:
            nfp = fingerprint(canonical(nxt))
            dst = node_id(nfp)
            if dst not in graph:
                if graph.number_of_nodes() >= max_nodes:
                    too_big()
                add(nxt, nfp, depth + 1, False)
                queue.append((nxt, nfp, depth + 1))
            if graph.has_edge(src, dst):
                graph[src][dst]["action"] += "; " + str(act)
            else:
                graph.add_edge(src, dst, action=str(act), action_name=act.name)
    return graph


def graph_summary(graph: nx.DiGraph) -> list:
    props = [p for p in graph.graph.get("properties", "").split(",") if p]
    nodes = graph.nodes(data=True)
    depth = max((d["depth"] for _, d in nodes), default=0)
    lines = [
        f"state graph: {graph.number_of_nodes():,} states, {graph.number_of_edges():,} transitions, "
        f"depth {depth}, {sum(1 for _, d in nodes if d['initial'])} initial, "
        f"{sum(1 for _, d in nodes if d['dead_end'])} dead ends (no action enabled)"
    ]
    for p in props:
        bad = sum(1 for _, d in nodes if d[_attr_name(p)])
        lines.append(f"  {p}: {bad:,} violating states" if bad else f"  {p}: no violating state")
    return lines


def write_graphml(graph: nx.DiGraph, path: str) -> None:
    """GraphML, with every string attribute passed through ``xml_safe``: a property name (a
    plugin's) may hold characters XML 1.0 forbids, which would make the file unreadable."""
    safe = graph.copy()
    for _, d in safe.nodes(data=True):
        d.update({k: xml_safe(v) for k, v in d.items() if isinstance(v, str)})
    for _, _, d in safe.edges(data=True):
        d.update({k: xml_safe(v) for k, v in d.items() if isinstance(v, str)})
    safe.graph.update({k: xml_safe(v) for k, v in safe.graph.items() if isinstance(v, str)})
    nx.write_graphml(safe, path)


def _dot_str(value) -> str:
    """A DOT quoted string: each line made visible (``terminal_safe``: control characters, such
    as an escape sequence in a plugin's property name, become ``\\x1b``), then backslashes and
    quotes escaped; a newline is DOT's line break ``\\n``."""
    lines = str(value).replace("\r\n", "\n").split("\n")
    text = "\\n".join(terminal_safe(line).replace("\\", "\\\\").replace('"', '\\"') for line in lines)
    return f'"{text}"'


def write_dot(graph: nx.DiGraph, path: str) -> None:
    """Graphviz DOT: violating states filled red, initial states bold, dead ends grey."""
    out = [
        "digraph kmc {",
        f"  graph [label={_dot_str(graph.graph.get('name', 'kmc'))}, labelloc=t];",
        '  node [shape=box, fontname="monospace", fontsize=9];',
        '  edge [fontname="monospace", fontsize=8];',
    ]
    for n, d in graph.nodes(data=True):
        attrs = {"label": d["label"], "tooltip": f"depth {d['depth']}"}
        style = []
        if d["violates"]:
            style.append("filled")
            attrs["fillcolor"] = "#f8c4c0"
            attrs["tooltip"] += f", violates {d['violates']}"
            attrs["xlabel"] = "violates " + d["violates"]
        elif d["dead_end"]:
            style.append("filled")
            attrs["fillcolor"] = "#dddddd"
        if d["initial"]:
            style.append("bold")
        if style:
            attrs["style"] = ",".join(style)
        out.append(f"  {_dot_str(n)} [" + ", ".join(f"{k}={_dot_str(v)}" for k, v in attrs.items()) + "];")
    for a, b, d in graph.edges(data=True):
        out.append(f"  {_dot_str(a)} -> {_dot_str(b)} [label={_dot_str(d['action'])}];")
    out.append("}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
