"""The lasso search (``kmc check --engine bmc`` of a liveness property) against the graph check.

Two runs, each printing one line per check and a summary (docs/symbolic.md, "Liveness in BMC",
quotes both):

* ``--holding [--budget S]``: the known-results liveness rows that hold, each searched by BMC
  for up to ``S`` seconds of wall time (``lasso_check`` with ``--depth 60``): BMC never answers
  HOLDS, so each line says how long a lasso it refuted before the budget ran out, beside the
  length of the longest path of the row's (acyclic) behaviour graph, the length past which "no
  lasso up to k" would cover every behaviour.
* ``--sweep``: five RF=2 configurations x the seven liveness properties, with and without weak
  fairness (70 checks): the graph check's verdict and lasso length against BMC's up to that
  length (6 where the graph has no lasso). A check where the two disagree is printed DIFFERENT and
  the run exits 1.

    .venv/bin/python bench/lasso_sweep.py --holding [--budget 60]
    .venv/bin/python bench/lasso_sweep.py --sweep

Not in ``make bench`` (about 4 minutes for ``--holding`` at 60 s a row, 2 to 3 minutes for
``--sweep`` on this 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import networkx as nx  # noqa: E402

from checker.liveness import _explore, check_liveness  # noqa: E402
from checker.result import VIOLATED  # noqa: E402
from checker.symbolic.lasso import lasso_check  # noqa: E402
from checker.symbolic.scope import symbolic_model  # noqa: E402
from gate.suite import load_suite  # noqa: E402
from model.options import config_from_options  # noqa: E402
from properties.liveness import LIVENESS, get_liveness  # noqa: E402

SUITE = "scenarios/known-results.toml"

# the five configurations of the sweep: ZooKeeper and KRaft, acks=1 and acks=all, unclean
# election, a controlled shutdown, a session expiry without a crash
SWEEP = {
    "kip-320": dict(protocol="kip-320", replication_factor=2, max_records=1, max_crashes=1),
    "2.1 acks=1": dict(kafka_version="2.1", replication_factor=2, max_records=1, max_crashes=1,
                       acks="1", min_insync_replicas=1),
    "3.9 unclean min.insync=1": dict(kafka_version="3.9", replication_factor=2, max_records=1,
                                     max_crashes=1, min_insync_replicas=1,
                                     unclean_leader_election=True),
    "4.1 controlled shutdown": dict(kafka_version="4.1", replication_factor=2, max_records=1,
                                    max_crashes=1, max_controlled_shutdowns=1),
    "2.8 session expiry, no crash": dict(kafka_version="2.8", replication_factor=2,
                                         max_records=1, max_crashes=0, max_session_expiries=1),
}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def longest_path(config) -> tuple[int, int]:
    """(states, longest path in steps) of ``config``'s behaviour graph, which must be acyclic."""
    g, _, limit = _explore(config, 2_000_000, None)
    if limit is not None:
        raise SystemExit(f"the graph hit its {limit} limit")
    d = nx.DiGraph()
    d.add_nodes_from(range(len(g.rows)))
    d.add_edges_from((s, t) for s, out in enumerate(g.out) for _, t in out if t != s)
    if not nx.is_directed_acyclic_graph(d):
        raise SystemExit("the behaviour graph has a cycle: the completeness argument does not apply")
    return len(g.rows), nx.dag_longest_path_length(d)


def holding(budget: float) -> int:
    rows = [c for c in load_suite(SUITE).checks
            if c.expect == "holds" and set(c.properties) & set(LIVENESS)]
    for row in rows:
        prop = get_liveness(row.properties[0])
        states, longest = longest_path(row.config)
        wall, cpu = time.monotonic(), _cpu()
        r = lasso_check(symbolic_model(row.config), prop, max_depth=60, time_limit=budget,
                        kernel_config=row.config)
        wall, cpu = time.monotonic() - wall, _cpu() - cpu
        reached = f"no lasso of up to {r.states} steps" if r.verdict != VIOLATED else "VIOLATED"
        print(f"{row.name[:70]:70} | {prop.name} | BMC {r.verdict}: {reached} | graph: "
              f"{states} states, longest path {longest} | {wall:.1f} s wall / {cpu:.1f} s CPU",
              flush=True)
        if r.verdict == VIOLATED:
            return 1
    return 0


def sweep() -> int:
    counts = {"violated in both": 0, "not violated in both": 0, "DIFFERENT": 0}
    for label, options in SWEEP.items():
        config = config_from_options(**options)[0]
        for name in sorted(LIVENESS):
            prop = get_liveness(name)
            for fair in (True, False):
                graph = check_liveness(config, prop, fair=fair)
                depth = len(graph.trace) if graph.trace else 6
                bmc = lasso_check(symbolic_model(config), prop, max_depth=depth, fair=fair)
                if graph.verdict == VIOLATED and bmc.verdict == VIOLATED \
                        and len(bmc.trace) == len(graph.trace):
                    kind = "violated in both"
                elif graph.verdict != VIOLATED and bmc.verdict != VIOLATED:
                    kind = "not violated in both"
                else:
                    kind = "DIFFERENT"
                counts[kind] += 1
                glen = len(graph.trace) if graph.trace else "-"
                blen = len(bmc.trace) if bmc.trace else "-"
                print(f"{label:30} {name:38} fair={fair!s:5} graph {graph.verdict} ({glen}) "
                      f"bmc {bmc.verdict} ({blen}): {kind}", flush=True)
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    return 1 if counts["DIFFERENT"] else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--holding", action="store_true")
    which.add_argument("--sweep", action="store_true")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds of wall time a row")
    a = ap.parse_args()
    if a.budget <= 0:
        ap.error("--budget must be positive")
    started = time.monotonic()
    rc = holding(a.budget) if a.holding else sweep()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{time.monotonic() - started:.1f} s wall, {_cpu():.1f} s CPU, {peak:.0f} MB peak RSS, "
          f"load {os.getloadavg()[0]:.1f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
