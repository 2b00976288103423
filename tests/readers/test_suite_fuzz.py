"""Hostile gate suites: ``load_suite`` builds a suite or says in one line what is wrong with the
file; whatever a check is called, the terminal stays clean and the JUnit report well-formed."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.suite import KNOWN_KEYS, SuiteError, load_suite

from tests.readers.conftest import FUZZ, FUZZ_CLI, NASTY_TEXT, assert_one_line_naming, deep
from tests.viewer.conftest import kmc


def toml_value(value) -> str:
    """A Python value as TOML (enough for these tests: no dates)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON's escapes are TOML's (a raw DEL makes it invalid: fine too)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


TOML_SCALARS = (st.booleans() | st.integers() | st.integers(-1, 6) | st.integers(10**18, 10**30)
                | st.floats(allow_nan=True, allow_infinity=True) | NASTY_TEXT
                | st.sampled_from(["holds", "violated", "all", "kip-320", "hw-truncation", "2.1", "",
                                   "no-acked-loss", "bmc", "spark", "reference", "power-loss", "-1"]))
TOML_VALUES = st.recursive(TOML_SCALARS, lambda c: st.lists(c, max_size=3)
                           | st.dictionaries(NASTY_TEXT, c, max_size=2), max_leaves=6)
KEYS = st.sampled_from(KNOWN_KEYS) | NASTY_TEXT


def suite_text(checks: list, defaults: dict | None) -> str:
    lines = []
    if defaults is not None:
        lines.append("[defaults]")
        lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in defaults.items()]
    for check in checks:
        lines.append("[[check]]")
        lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in check.items()]
    return "\n".join(lines) + "\n"


CHECKS = st.lists(st.dictionaries(KEYS, TOML_VALUES, max_size=6), max_size=3)


def _load(path):
    try:
        load_suite(str(path))
    except SuiteError as e:
        assert_one_line_naming(e, path)


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory):
    return tmp_path_factory.mktemp("suites") / "suite.toml"


@FUZZ
@given(checks=CHECKS, defaults=st.none() | st.dictionaries(KEYS, TOML_VALUES, max_size=4))
def test_generated_suites_load_or_fail_in_one_line(suite_file, checks, defaults):
    suite_file.write_text(suite_text(checks, defaults), encoding="utf-8", errors="surrogatepass")
    _load(suite_file)


@FUZZ
@given(checks=st.lists(st.fixed_dictionaries(
    {"name": NASTY_TEXT.filter(str.strip), "expect": st.sampled_from(["holds", "violated"])},
    optional={k: TOML_SCALARS for k in ("replication.factor", "min.insync.replicas", "acks",
                                          "max-records", "max-leader-epoch", "max-crashes",
                                          "time-limit", "max-states", "max-depth", "engine",
                                          "kafka-version", "protocol", "properties", "violates",
                                          "trace-length", "crash.model", "rules")}),
    min_size=1, max_size=3))
def test_nearly_valid_suites_load_or_fail_in_one_line(suite_file, checks):
    suite_file.write_text(suite_text(checks, None), encoding="utf-8")
    _load(suite_file)


@FUZZ
@given(content=st.binary(max_size=300) | deep("a = [", "]").map(str.encode)
       | deep("a = {b = ", "}").map(lambda t: (t.replace("}", "", 1) + "1}").encode()))
def test_arbitrary_bytes_and_deep_nesting_fail_in_one_line(suite_file, content):
    suite_file.write_bytes(content)
    _load(suite_file)


@pytest.mark.parametrize("value", ["nan", "inf", "-1.0", "0"])
def test_a_time_limit_that_is_no_limit_is_refused(tmp_path, value):
    # defect 6 of issue 15: time-limit = nan was accepted and meant no limit at all
    path = tmp_path / "suite.toml"
    path.write_text(f'[[check]]\nname = "x"\nexpect = "holds"\ntime-limit = {value}\n')
    with pytest.raises(SuiteError, match="time-limit.*positive, finite number of seconds"):
        load_suite(str(path))


def test_an_empty_kafka_version_is_refused(tmp_path):
    path = tmp_path / "suite.toml"
    path.write_text('[[check]]\nname = "x"\nexpect = "holds"\nkafka-version = ""\n')
    with pytest.raises(SuiteError, match="is not a Kafka version"):
        load_suite(str(path))


@pytest.mark.parametrize("special", ["/dev/null", "DIR"])
def test_special_files_are_named_honestly(tmp_path, special):
    path = tmp_path if special == "DIR" else special
    with pytest.raises(SuiteError) as e:
        load_suite(str(path))
    assert ("is a directory" if special == "DIR" else "no checks") in str(e.value)


TINY_CHECK = """
"replication.factor" = 2
max-records = 1
max-leader-epoch = 0
max-crashes = 0
expect = "holds"
properties = ["hw-le-leo"]
"""


def _gate(kmc_runner, suite, junit):
    return kmc_runner("gate", suite, "--junit", junit, "--force")


def test_a_check_named_with_control_characters_gives_valid_junit_and_a_clean_terminal(tmp_path):
    # defect 4 of issue 15: raw ESC on the terminal, JUnit not well-formed
    suite = tmp_path / "ctrl.toml"
    suite.write_text('name = "ctrl \\u0007 suite"\n[[check]]\nname = "ctrl \\u0001 \\u001b[31m red"\n'
                     + TINY_CHECK)
    junit = tmp_path / "ctrl.xml"
    r = _gate(kmc, suite, junit)
    assert r.exit_code == 0, r.output
    assert "\x1b" not in r.output and "\x01" not in r.output
    assert "ctrl \\x01 \\x1b[31m red" in r.output
    root = ET.parse(junit).getroot()  # well-formed
    assert root.find(".//testcase").get("name") == "ctrl \\x01 \\x1b[31m red"


@FUZZ_CLI
@given(name=NASTY_TEXT.filter(lambda n: n.strip() and len(n) <= 200))
def test_junit_is_well_formed_and_the_terminal_clean_for_any_check_name(tmp_path_factory, name):
    where = tmp_path_factory.mktemp("names")
    suite = where / "names.toml"
    suite.write_text(f"[[check]]\nname = {json.dumps(name)}\n{TINY_CHECK}", encoding="utf-8")
    junit = where / "report.xml"
    r = _gate(kmc, suite, junit)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert not any(c in r.output for c in "\x1b\x00\x01\x85\u202e"), repr(r.output)
    if r.exit_code == 0:
        ET.parse(junit)  # well-formed for any name


CONFLICTS = [
    'max_records = 1\nmax-records = 2',
    'min.insync.replicas = 1\n"min.insync.replicas" = 2',
    'max-records = 1\nbounds.max-records = 2',
    'max-records = 1\n[check.bounds]\nmax_records = 2',
    'max-leader-epoch = 1\nmax_leader_epoch = 1',
]


@FUZZ
@given(conflict=st.sampled_from(CONFLICTS), where=st.sampled_from(["check", "defaults"]),
       before=st.sampled_from(["", 'acks = "1"\n']))
def test_one_key_given_twice_is_refused_not_silently_won(suite_file, conflict, where, before):
    # issue 30: max_records beside max-records, a dotted key beside the quoted one, a bound both
    # inline and in a bounds table: one of them silently won
    head = '[[check]]\nname = "x"\n"replication.factor" = 2\nexpect = "holds"\n'
    if where == "defaults":
        text = "[defaults]\n" + before + conflict.replace("[check.bounds]", "[defaults.bounds]") + "\n\n" + head
    else:
        text = head + before + conflict + "\n"
    suite_file.write_text(text, encoding="utf-8")
    with pytest.raises(SuiteError) as e:
        load_suite(str(suite_file))
    assert_one_line_naming(e.value, suite_file)
    assert "twice" in str(e.value) or "says the same as" in str(e.value), str(e.value)


@FUZZ
@given(digits=st.integers(20, 6000), key=st.sampled_from(["max-records", "max-states", '"replication.factor"',
                                                          "trace-length", "max-depth"]))
def test_huge_integers_in_a_suite_are_one_line(suite_file, digits, key):
    suite_file.write_text(f'[[check]]\nname = "x"\nexpect = "violated"\nviolates = "no-acked-loss"\n'
                          f'{key} = {"9" * digits}\n', encoding="utf-8")
    with pytest.raises(SuiteError) as e:
        load_suite(str(suite_file))
    assert_one_line_naming(e.value, suite_file)
    assert len(str(e.value)) < 600, str(e.value)[:700]
