"""kmc trace replay: valid traces exit 0, diverging ones 1 saying where and how, bad files 2."""

from __future__ import annotations


import pytest

from tests.viewer.conftest import kmc, load, save


def test_valid_trace_replays_identically(trace_path, violated_trace):
    r = kmc("trace", "replay", trace_path)
    assert r.exit_code == 0, r.output
    n = len(violated_trace.steps)
    assert f"valid: {n} steps replay identically" in r.output
    assert f"no-acked-loss is violated at step {n} as recorded" in r.output


def test_a_changed_state_diverges_at_that_step(trace_path):
    doc = load(trace_path)
    doc["states"][4]["replicas"][1]["high_watermark"] = 7
    save(trace_path, doc)
    r = kmc("trace", "replay", trace_path)
    assert r.exit_code == 1, r.output
    assert "invalid: the trace is not a behaviour of the current model (its first 3 steps replay identically)" in r.output
    assert "diverges at step 4" in r.output
    assert "replicas[1].high_watermark is 0 in the model but 7 in the file" in r.output


def test_an_action_that_is_not_enabled_diverges(trace_path):
    doc = load(trace_path)
    # the first step becomes a restart of a broker that is alive
    doc["states"][1]["action_taken"] = {"name": "BrokerRestart", "params": {"broker": 1}}
    save(trace_path, doc)
    r = kmc("trace", "replay", trace_path)
    assert r.exit_code == 1
    assert "diverges at step 1: BrokerRestart(broker=1) is not enabled in the model after step 0" in r.output
    assert "ProduceRecord(leader=0)" in r.output  # what was enabled there


def test_a_different_initial_state_diverges_at_step_0(trace_path):
    doc = load(trace_path)
    doc["states"][0]["controller"]["leader_epoch"] = 3
    save(trace_path, doc)
    r = kmc("trace", "replay", trace_path)
    assert r.exit_code == 1
    assert "diverges at the initial state: controller.leader_epoch is 0" in r.output


def test_a_trace_from_another_model_version_is_not_silently_accepted(trace_path):
    doc = load(trace_path)
    doc["#meta"]["kmc"]["model_fingerprint"] = "0123456789abcdef"
    save(trace_path, doc)
    r = kmc("trace", "replay", trace_path)
    assert r.exit_code == 1
    assert "recorded with model '0123456789abcdef'" in r.output
    assert "not accepted" in r.output and "--allow-model-change" in r.output
    r = kmc("trace", "replay", "--allow-model-change", trace_path)
    assert r.exit_code == 0 and "warning:" in r.output and "valid:" in r.output


def test_a_trace_that_no_longer_violates_its_property_is_invalid(trace_path):
    doc = load(trace_path)
    doc["#meta"]["kmc"]["property"] = "hw-le-leo"
    save(trace_path, doc)
    r = kmc("trace", "replay", trace_path)
    assert r.exit_code == 1
    assert "hw-le-leo holds in every state of the trace" in r.output


def _truncate_states(doc):
    doc["states"].pop()


def _foreign(doc):
    doc["#meta"] = {"format": "ITF", "source": "MC.tla", "description": "Created by Apalache"}


def _future_version(doc):
    doc["#meta"]["kmc"]["trace_format_version"] = 99


def _bad_protocol(doc):
    doc["#meta"]["kmc"]["config"]["protocol"] = "kip-9999"


def _unknown_action(doc):
    doc["states"][2]["action_taken"]["name"] = "DeleteTopic"


def _missing_var(doc):
    del doc["states"][3]["acked"]


def _renumbered(doc):
    doc["states"][2]["#meta"]["index"] = 5


@pytest.mark.parametrize("edit, message", [
    (_truncate_states, "truncated or was edited: its metadata says 10 steps"),
    (_foreign, "is an ITF trace but not one written by kmc (its source is 'MC.tla')"),
    (_future_version, "uses kmc trace format version 99"),
    (_bad_protocol, "unknown protocol 'kip-9999'"),
    (_unknown_action, "unknown action 'DeleteTopic'"),
    (_missing_var, "state 3: state has no field 'acked'"),
    (_renumbered, "state 2 has #meta.index 5"),
])
def test_malformed_or_foreign_files_give_one_line_and_exit_2(trace_path, edit, message):
    doc = load(trace_path)
    edit(doc)
    save(trace_path, doc)
    for command in (["trace", "replay"], ["trace", "show"], ["trace", "html", "-o", trace_path.with_suffix(".html")]):
        r = kmc(*command, trace_path)
        assert r.exit_code == 2, (command, r.output)
        assert message in r.output
        assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output


@pytest.mark.parametrize("content, message", [
    ("", "is empty"),
    ("[1, 2", "is not valid JSON"),
    ('{"a": "b', "Unterminated string starting at line 1 column 7"),  # not "at at"
    ('{"vars": ["x"]}', "is not an ITF trace"),
    ("\xff\xfe", "is not UTF-8 text (byte 0 is 0xff), so not a trace file"),
])
def test_files_that_are_not_traces_exit_2(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="latin-1")
    r = kmc("trace", "replay", path)
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


def test_a_truncated_json_file_says_so(trace_path):
    text = trace_path.read_text()
    trace_path.write_text(text[: len(text) // 2])
    r = kmc("trace", "replay", trace_path)
    assert r.exit_code == 2 and "the file looks truncated" in r.output


def test_missing_file_exits_2(tmp_path):
    r = kmc("trace", "replay", tmp_path / "nope.json")
    assert r.exit_code == 2 and "no such file" in r.output


# -- the model fingerprint is the kernel's (issue 24: it hashed the unused Python model)

def _copy_sources(root, tmp_path):
    """The model's sources and the oracle's, copied under ``tmp_path``, as a checkout would be."""
    import shutil

    for folder in ("model", "checker/reference"):
        shutil.copytree(root / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))


def test_the_fingerprint_follows_the_kernel_and_the_rules_not_the_oracle(tmp_path, monkeypatch):
    from pathlib import Path

    from model import ModelConfig
    from viewer import model_version

    root = Path(model_version.__file__).resolve().parent.parent
    _copy_sources(root, tmp_path)
    monkeypatch.setattr(model_version, "_ROOT", tmp_path)
    rules = ModelConfig(kafka_version="3.7").rules
    before = model_version.model_fingerprint(rules)
    sources = {p.relative_to(tmp_path).as_posix() for p in model_version.model_sources()}
    assert "model/kernel/controller.py" in sources and "model/rules.py" in sources
    assert not any(s.startswith("checker/") for s in sources)

    oracle = tmp_path / "checker" / "reference" / "base.py"
    oracle.write_text(oracle.read_text() + "\nCHANGED = 1\n")
    assert model_version.model_fingerprint(rules) == before  # the oracle is not the model
    kernel = tmp_path / "model" / "kernel" / "controller.py"
    kernel.write_text(kernel.read_text().replace('"""', '"""A comment. ', 1))
    assert model_version.model_fingerprint(rules) == before  # a docstring is not code
    kernel.write_text(kernel.read_text() + "\nCHANGED = 1\n")
    assert model_version.model_fingerprint(rules) != before  # the kernel is
    changed = model_version.model_fingerprint(rules)
    other = ModelConfig(kafka_version="3.6").rules
    assert model_version.model_fingerprint(other) != changed  # so is the rule set


def test_replay_names_the_rules_that_changed_since_the_trace(trace_path):
    doc = load(trace_path)
    doc["#meta"]["kmc"]["config"]["rules"] = ["controller-epoch", "in-flight-per-partition",
                                              "leader-and-isr-in-order", "fenced-fetch"]
    doc["#meta"]["kmc"]["model_fingerprint"] = "0123456789abcdef"
    save(trace_path, doc)
    r = kmc("trace", "replay", trace_path)
    assert r.exit_code == 1
    assert "the rules of protocol hw-truncation changed since the trace was recorded: -fenced-fetch" in r.output
