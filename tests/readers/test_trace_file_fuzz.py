"""Hostile trace files: ``read_trace`` and everything that reads a loaded trace (``kmc trace
show``, ``replay``, ``html``) either work or say in one line what is wrong with the file."""

from __future__ import annotations

import copy
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker import check
from model import Bounds, ModelConfig
from viewer.html import render_html
from viewer.itf import TraceFormatError
from viewer.replay import replay
from viewer.terminal import make_console, render_trace
from properties import PROPERTIES
from viewer.trace_file import read_trace, trace_to_itf, violation_step

from tests.readers.conftest import FUZZ, FUZZ_CLI, JSON_VALUES, NASTY_TEXT, TAGGED, assert_one_line_naming, deep
from tests.viewer.conftest import kmc

CONFIG = ModelConfig(protocol="hw-truncation", replication_factor=2,  # KIP-101 scenario 1
                     bounds=Bounds(max_records=1, max_leader_epoch=1, max_crashes=2))


@pytest.fixture(scope="module")
def valid_doc():
    result = check(CONFIG, ["no-acked-loss"])
    trace = result.by_name("no-acked-loss").trace
    return json.loads(json.dumps(trace_to_itf(trace, result.config, engine="compiled")))


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz") / "trace.itf.json"


def _paths(doc):
    """Every path (a tuple of keys and indices) to a node of ``doc`` below the root."""
    out, stack = [], [((), doc)]
    while stack:
        path, node = stack.pop()
        out.append(path)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend((path + (k,), v) for k, v in items)
    return sorted((p for p in out if p), key=repr)


def _use(path) -> None:
    """Everything kmc does with a trace file: it works, or it is one line naming the file."""
    try:
        tf = read_trace(str(path))
    except TraceFormatError as e:
        assert_one_line_naming(e, path)
        return
    replay(tf)  # a verdict, whatever the states are
    render_trace(make_console(io.StringIO()), tf.trace, tf.meta)
    render_html(tf.trace, tf.meta)


@FUZZ
@given(data=st.data())
def test_a_trace_with_one_node_replaced_by_garbage(valid_doc, trace_file, data):
    doc = copy.deepcopy(valid_doc)
    path = data.draw(st.sampled_from(_paths(valid_doc)))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    action = data.draw(st.sampled_from(["replace", "delete", "wrap"]))
    if action == "delete":
        del parent[path[-1]]
    elif action == "wrap":
        parent[path[-1]] = data.draw(st.sampled_from(["#bigint", "#set", "#tup", "#map"]).map(
            lambda tag, v=parent[path[-1]]: {tag: v}))
    else:
        parent[path[-1]] = data.draw(JSON_VALUES | TAGGED)
    trace_file.write_text(json.dumps(doc), encoding="utf-8")
    _use(trace_file)


@FUZZ
@given(content=st.binary(max_size=300) | JSON_VALUES.map(json.dumps).map(str.encode)
       | deep("[", "]").map(str.encode) | deep('{"a":', "}").map(str.encode))
def test_arbitrary_bytes_and_json_are_refused_in_one_line(trace_file, content):
    trace_file.write_bytes(content)
    _use(trace_file)


def test_a_trace_nested_a_hundred_thousand_deep_is_one_line_exit_2(tmp_path):
    # defect 2 of issue 15: RecursionError traceback, exit 1
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    for command in (["show"], ["replay"], ["html", "-o", tmp_path / "x.html"]):
        r = kmc("trace", *command, path)
        assert r.exit_code == 2, r.output
        assert r.output.count("\n") == 1 and "nests JSON more than 32 levels deep" in r.output
        assert r.exception is None or isinstance(r.exception, SystemExit)


@pytest.mark.parametrize("name", ["/dev/null", "/dev/zero"])
def test_special_files_are_read_honestly(name):
    r = kmc("trace", "show", name)
    assert r.exit_code == 2
    assert (" is empty, not a trace file" if name == "/dev/null" else "is larger than 64 MiB") in r.output


@FUZZ_CLI
@given(name=NASTY_TEXT | st.just("lone \ud800"))
def test_strings_a_trace_file_sets_never_reach_the_terminal_raw(valid_doc, trace_file, name):
    doc = copy.deepcopy(valid_doc)
    doc["#meta"]["kmc"]["property"] = name
    doc["#meta"]["kmc"]["property_description"] = name
    doc["#meta"]["kmc"]["kmc_version"] = name
    trace_file.write_text(json.dumps(doc), encoding="utf-8")
    for command in ("show", "replay"):
        r = kmc("trace", command, trace_file)
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        assert not any(c in r.output for c in "\x1b\x00\x01\x85\u202e"), repr(r.output[-300:])


# ------------------------------------------------------------------ #meta agrees with the states

META_VALUES = (st.integers(-3, 12) | st.booleans() | st.floats(-2, 12) | st.integers(10**18, 10**30)
               | st.sampled_from(["3", "ALL", "all", "1", "0", "-1", "", "no-acked-loss", "hw-le-leo",
                                  "unknown-prop", "no-acked-loss\x1b[31m"]) | st.none() | NASTY_TEXT)
META_PLACES = st.sampled_from([
    ("violation_step",), ("steps",), ("property",), ("config", "replication.factor"),
    ("config", "min.insync.replicas"), ("config", "acks"), ("config", "unclean.leader.election.enable"),
    ("config", "symmetry"), ("config", "bounds", "max_records"), ("config", "crash.model"),
    ("config", "a.key.kmc.never.writes"), ("config", "bounds", "max_nonsense"),
])


@FUZZ
@given(place=META_PLACES, value=META_VALUES, index=st.none() | st.sampled_from([True, 1.0, "1", -1, 2]))
def test_a_trace_is_read_only_if_its_meta_agrees_with_its_states(valid_doc, trace_file, place, value, index):
    # issue 30: a violation step of 99 or -1, a boolean or float index, a replication factor
    # given as a string, acks "ALL", an unknown or control-character property name were believed
    doc = copy.deepcopy(valid_doc)
    node = doc["#meta"]["kmc"]
    for key in place[:-1]:
        node = node[key]
    node[place[-1]] = value
    if index is not None:
        doc["states"][1]["#meta"]["index"] = index
    trace_file.write_text(json.dumps(doc), encoding="utf-8")
    try:
        tf = read_trace(str(trace_file))
    except TraceFormatError as e:
        assert_one_line_naming(e, trace_file)
        assert len(str(e)) < 600 + len(str(trace_file))
        return
    meta, config = tf.meta, tf.meta["config"]
    assert index is None or index == 1 and type(index) is int
    assert type(config["replication.factor"]) is int and type(config["min.insync.replicas"]) is int
    assert config["acks"] in ("0", "1", "all") and type(config["unclean.leader.election.enable"]) is bool
    assert meta["property"] in PROPERTIES and meta["violation_step"] == violation_step(tf.trace)
    assert type(meta["steps"]) is int and meta["steps"] == len(tf.trace.steps)
