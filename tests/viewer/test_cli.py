"""kmc check --trace-out/--html, kmc trace show/html, kmc graph: outputs and exit codes."""

from __future__ import annotations

import re

import networkx as nx
import pytest

from checker import check
from model import Bounds, ModelConfig
from viewer.graph import build_graph
from properties import get_properties

from tests.viewer.conftest import kmc

ANSI = re.compile(r"\x1b\[")
SMALL = ["-r", "2", "--max-records", "1", "--max-leader-epoch", "1", "--max-crashes", "1"]


def test_check_writes_trace_file_and_html_in_one_run(tmp_path):
    itf, page = tmp_path / "t.itf.json", tmp_path / "t.html"
    r = kmc("check", "-q", "--protocol", "hw-truncation", "-r", "2", "--max-crashes", "2", "-p", "no-acked-loss",
            "--trace-out", itf, "--html", page)
    assert r.exit_code == 1, r.output
    assert f"trace written to {itf}" in r.output and f"HTML trace viewer written to {page}" in r.output
    assert kmc("trace", "replay", itf).exit_code == 0
    html = page.read_text()
    assert '<script type="application/json" id="kmc-trace">' in html and "no-acked-loss" in html
    # existing outputs are never overwritten without --force
    r = kmc("check", "-q", "--protocol", "hw-truncation", "-r", "2", "--max-crashes", "2", "-p", "no-acked-loss", "--html", page)
    assert r.exit_code == 2 and "pass --force" in r.output


def test_trace_html_refuses_to_overwrite_without_force(trace_path, tmp_path):
    out = tmp_path / "page.html"
    out.write_text("mine")
    r = kmc("trace", "html", trace_path, "-o", out)
    assert r.exit_code == 2 and "exists; pass --force" in r.output and out.read_text() == "mine"
    r = kmc("trace", "html", trace_path, "-o", out, "--force")
    assert r.exit_code == 0 and "10 steps" in r.output
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>")
    # self-contained: nothing is loaded from anywhere
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "url(http" not in html


def test_show_prints_every_step_in_plain_text_when_piped(trace_path, violated_trace):
    r = kmc("trace", "show", trace_path)
    assert r.exit_code == 0, r.output
    out = r.output
    assert not ANSI.search(out)
    assert "counterexample for no-acked-loss, 10 steps, violated at step 10" in out
    for i, step in enumerate(violated_trace.steps, 1):
        assert f"Step {i}/10: {step.action}" in out
    assert "truncates its log to its high watermark 0 (drops r1)" in out
    assert "!! no-acked-loss is violated in this state" in out
    # step 4: the leader's HW moves past r1, which is acknowledged; both are marked as changed
    step4 = out.split("Step 4/10")[1].split("Step 5/10")[0]
    assert re.search(r"^0 +leader e0 +\[r1 e0\] HW\| +1 +1 \* +\{0,1\}", step4, re.M)
    assert "producer: acknowledged r1@0 *" in step4
    assert "changed: broker 0 HW 0 -> 1" in step4


def test_show_diff_and_step(trace_path):
    r = kmc("trace", "show", "--diff", trace_path)
    assert r.exit_code == 0
    assert "broker   role" not in r.output  # no tables, only what changed
    assert "; broker 1 log drops r1 (truncated to offset 0); broker 1 LEO 1 -> 0;" in r.output
    r = kmc("trace", "show", "--step", "10", trace_path)
    assert r.exit_code == 0
    assert "Step 10/10" in r.output and "Step 9/10" not in r.output and "Initial state" not in r.output
    r = kmc("trace", "show", "--step", "11", trace_path)
    assert r.exit_code == 2 and "--step must be between 0 and 10" in r.output


def test_graph_has_exactly_the_states_bfs_explores(tmp_path):
    ml, dot = tmp_path / "g.graphml", tmp_path / "g.dot"
    r = kmc("graph", *SMALL, "--graphml", ml, "--dot", dot)
    assert r.exit_code == 0, r.output
    cfg = ModelConfig(protocol="kip-320", replication_factor=2,
                      bounds=Bounds(max_records=1, max_leader_epoch=1, max_crashes=1))
    result = check(cfg)
    assert result.exit_code == 0  # nothing violated, so BFS explored everything
    g = nx.read_graphml(ml)
    assert g.number_of_nodes() == result.stats.distinct_states
    assert f"state graph: {result.stats.distinct_states:,} states" in r.output
    text = dot.read_text()
    assert text.startswith("digraph kmc {") and text.count(" -> ") == g.number_of_edges()


def test_graph_marks_violating_states_at_the_counterexample_depth():
    cfg = ModelConfig(protocol="hw-truncation", replication_factor=2,
                      bounds=Bounds(max_records=1, max_leader_epoch=2, max_crashes=1))
    g = build_graph(cfg, get_properties(), max_nodes=50000)
    for prop in get_properties():
        result = check(cfg, [prop.name])
        bad = [d["depth"] for _, d in g.nodes(data=True) if d["violates_" + prop.name.replace("-", "_")]]
        if result.exit_code == 1:
            assert bad and min(bad) == len(result.by_name(prop.name).trace), prop.name
        else:
            assert not bad, prop.name
    assert any(d["violates"] for _, d in g.nodes(data=True))


def test_graph_refuses_above_the_limit_naming_the_flag(tmp_path):
    ml = tmp_path / "g.graphml"
    r = kmc("graph", *SMALL, "--graphml", ml, "--max-nodes", "50")
    assert r.exit_code == 2
    assert "more than 50 states (the --max-nodes limit); raise --max-nodes" in r.output
    assert not ml.exists()


@pytest.mark.parametrize("args, message", [
    ([], "--graphml FILE and/or --dot FILE"),
    (["--dot", "x.dot", "--max-nodes", "0"], "--max-nodes must be positive"),
    (["--dot", "x.dot", "--protocol", "nope"], "unknown protocol 'nope'"),
])
def test_graph_usage_errors(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = kmc("graph", *SMALL, *args)
    assert r.exit_code == 2 and message in r.output


def test_graph_never_overwrites_without_force(tmp_path):
    dot = tmp_path / "g.dot"
    dot.write_text("mine")
    r = kmc("graph", *SMALL, "--dot", dot)
    assert r.exit_code == 2 and dot.read_text() == "mine"
