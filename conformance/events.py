"""One timestamped event stream per run, saved beside it as JSON lines.

Three sources merge by wall-clock time (one machine, one clock; log4j2 writes milliseconds):
the harness's interventions (``Cluster.interventions``), the client's history
(``history.History``) and every node's log lines as typed events (``loglines``). The file is
``events.jsonl`` in the run's directory, one object per line with ``ts``, ``source`` and
``kind``; the nodes' full log files stay beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

from conformance import loglines


def collect(cluster, history=None, topic: str | None = None) -> list[dict]:
    events: list[dict] = list(cluster.interventions)
    if history is not None:
        events += history.events
    for node in [cluster.controller, *cluster.brokers.values()]:
        events += [e.as_dict() for e in loglines.parse_file(node.node_id, node.layout.log_file, topic)]
    events.sort(key=lambda e: e["ts"])
    return events


def save(run_dir: Path, events: list[dict]) -> Path:
    path = Path(run_dir) / "events.jsonl"
    with open(path, "w") as f:
        for e in events:
            f.write(json.dumps(e, default=str) + "\n")
    return path
