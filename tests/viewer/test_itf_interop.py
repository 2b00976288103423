"""ITF as the standard defines it (https://apalache-mc.org/docs/adr/015adr-trace.html): a kmc
trace rewritten by another ITF tool (itf-py, which writes every integer as ``#bigint`` and sets in
its own order, as Quint does) is the same trace, and replays as valid; a real change still does
not."""

from __future__ import annotations

import json

import itf_py
import pytest

from checker import check
from model import Bounds, ModelConfig
from viewer.itf import normalise
from viewer.trace_file import write_trace

from tests.viewer.conftest import kmc, load, save

CONFIGS = {
    "acks=1, kip-320": (ModelConfig(protocol="kip-320", replication_factor=2, acks="1",
                                    min_insync_replicas=1, bounds=Bounds(1, 1, 1, 1)), "no-acked-loss"),
    "KIP-101 scenario 1": (ModelConfig(protocol="hw-truncation", replication_factor=2,
                                       bounds=Bounds(2, 2, 2, 1)), "no-acked-loss"),
    "KIP-101 scenario 2 (power loss)": (ModelConfig(protocol="hw-truncation", replication_factor=2,
                                                    crash_model="power-loss", bounds=Bounds(2, 2, 1, 1)),
                                        "log-matching"),
}


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def kmc_trace(request, tmp_path_factory):
    config, prop = CONFIGS[request.param]
    result = check(config, [prop])
    assert result.exit_code == 1
    path = tmp_path_factory.mktemp("itf") / "kmc.itf.json"
    write_trace(str(path), result.by_name(prop).trace, result)
    return path


def _rewritten_by_itf_py(path, out):
    doc = itf_py.trace_to_json(itf_py.trace_from_json(load(path)))
    out.write_text(json.dumps(doc), encoding="utf-8")
    return doc


def _all_sets(value):
    if isinstance(value, dict):
        if set(value) == {"#set"}:
            yield value["#set"]
        for v in value.values():
            yield from _all_sets(v)
    elif isinstance(value, list):
        for v in value:
            yield from _all_sets(v)


def test_itf_py_writes_bigints_and_the_trace_still_replays(kmc_trace, tmp_path):
    # defect 3 of issue 15: {"#bigint": "0"} where kmc writes 0 made replay say "invalid"
    out = tmp_path / "itf-py.itf.json"
    doc = _rewritten_by_itf_py(kmc_trace, out)
    assert '{"#bigint": "0"}' in json.dumps(doc)  # itf-py really wrote another encoding
    r = kmc("trace", "replay", out)
    assert r.exit_code == 0, r.output
    assert r.output.startswith("valid:") and "as recorded" in r.output
    assert kmc("trace", "show", out).exit_code == 0


def test_sets_in_another_order_are_the_same_sets(kmc_trace, tmp_path):
    doc = load(kmc_trace)
    reordered = 0
    for elements in _all_sets(doc["states"]):
        if len(elements) > 1:
            elements.reverse()
            reordered += 1
    assert reordered  # the test moved something
    out = tmp_path / "reordered.itf.json"
    save(out, doc)
    r = kmc("trace", "replay", out)
    assert r.exit_code == 0, r.output


def test_a_real_difference_still_fails_replay_after_decoding(kmc_trace, tmp_path):
    out = tmp_path / "itf-py.itf.json"
    doc = _rewritten_by_itf_py(kmc_trace, out)
    last = doc["states"][-1]
    last["records_written"] = {"#bigint": str(int(last["records_written"]["#bigint"]) + 1)}
    out.write_text(json.dumps(doc), encoding="utf-8")
    r = kmc("trace", "replay", out)
    assert r.exit_code == 1 and "records_written" in r.output


def test_normalise_decodes_every_itf_tag():
    assert normalise({"#bigint": "-12345678901234567890"}) == -12345678901234567890
    assert normalise({"#set": [3, {"#bigint": "1"}, 2]}) == normalise({"#set": [1, 2, 3]})
    assert normalise({"#map": [[{"#bigint": "2"}, "b"], [1, "a"]]}) == {"#map": [[1, "a"], [2, "b"]]}
    assert normalise({"#tup": [{"#bigint": "1"}, 2]}) == {"#tup": [1, 2]}
    assert normalise({"#tup": [1, 2]}) != normalise({"#tup": [2, 1]})  # a tuple keeps its order
    assert normalise({"#unserializable": "Nat"}) == {"#unserializable": "Nat"}
    assert normalise({"#set": [{"#set": [2, 1]}, {"#set": [0]}]}) == normalise({"#set": [{"#set": [0]}, {"#set": [1, 2]}]})
    assert normalise({"a": [{"#bigint": "5"}], "b": True}) == {"a": [5], "b": True}
    assert normalise({"#bigint": "1_000"}) == {"#bigint": "1_000"}  # not decimal digits: left as is
