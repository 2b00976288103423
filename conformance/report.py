"""The scenario table as text (``make conformance``, ``kmc conformance run``) and Markdown."""

from __future__ import annotations


def _agree(r) -> str:
    return {True: "yes", False: "NO", None: "-"}[r.agrees]


def table(results, markdown: bool = False) -> str:
    rows = [("scenario", "Kafka", "kmc", "real cluster", "agree", "time")]
    for r in results:
        rows.append((r.scenario, r.version, r.kmc, r.real, _agree(r), f"{r.seconds:.0f} s"))
    if markdown:
        out = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
        out += ["| " + " | ".join(c.replace("|", "/") for c in row) + " |" for row in rows[1:]]
        return "\n".join(out)
    widths = [min(max(len(row[i]) for row in rows), 52) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [(c if len(c) <= widths[i] else c[:widths[i] - 1] + "…").ljust(widths[i]) for i, c in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
