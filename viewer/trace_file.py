"""Trace files: a counterexample as JSON, with the configuration it came from."""

from __future__ import annotations

import json


def write_trace(path: str, trace, result) -> None:
    data = {"kmc_trace": 1, "config": result.config, **trace.to_json()}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
