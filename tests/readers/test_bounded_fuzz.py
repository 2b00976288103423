"""The bounded reader (``model.bounded``) and every place it reads from: flags, Kafka properties
files, gate suites. Whatever the user gives, the answer is a number within the stated range or
one line, at most a few hundred characters, naming the limit; never a traceback."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from commands.params import BoundedInt
from model.bounded import (
    ECHO_LIMIT, INT32_MAX, INT64_MAX, MAX_DIGITS, clip, clip_line, int_text, parse_int, shown,
)
from model.errors import ConfigError, KmcError
from model.options import config_from_options

from tests.readers.conftest import FUZZ, FUZZ_CLI, NASTY_CHARS, NASTY_TEXT, assert_one_line_naming
from tests.viewer.conftest import kmc

MESSAGE_LIMIT = 3 * ECHO_LIMIT  # "a few hundred bytes": the value quoted, the sentence around it

HUGE = st.integers(MAX_DIGITS + 1, 6000).map(lambda n: "9" * n)
NUMBER_TEXT = (st.integers().map(str) | st.integers(-(2**70), 2**70).map(str) | HUGE
               | HUGE.map(lambda s: "-" + s) | st.sampled_from(["", " ", "+1", " 7 ", "1e3", "0x10", "1.0",
                                                              "٣", "²", "-0", "00000000000000000000000000000000000000000000001"])
               | NASTY_TEXT)
BOUNDS = st.one_of(st.none(), st.integers(-5, 10), st.sampled_from([INT32_MAX, INT64_MAX]))


@FUZZ
@given(value=NUMBER_TEXT | st.integers() | st.booleans() | st.floats() | st.none(), low=BOUNDS, high=BOUNDS)
def test_parse_int_is_a_number_in_range_or_one_short_line(value, low, high):
    try:
        n = parse_int(value, "--x", minimum=low, maximum=high)
    except KmcError as e:
        message = str(e)
        assert message.startswith("--x ") and "\n" not in message
        assert len(message) <= MESSAGE_LIMIT, len(message)
        return
    assert isinstance(n, int) and not isinstance(n, bool)
    assert (low is None or n >= low) and (high is None or n <= high)
    assert isinstance(value, int) or n == int(value.strip())


@FUZZ
@given(value=st.text(alphabet=NASTY_CHARS, max_size=50) | st.integers(0, 300_000).map(lambda n: "x" * n),
       limit=st.integers(10, 400))
# found by hypothesis in a make test (2026-11-29): astral characters print as 10-character escapes
@example(value="000000000\x1f\x08\U00018cd6\U00018cd6\U0001b2fc\U0002ebe10", limit=15)
def test_shown_and_clip_bound_any_value_and_say_its_length(value, limit):
    for text in (shown(value, limit), clip(value, limit)):
        assert len(text) <= limit + 60
        if len(value) > limit:
            assert f"{len(value):,} characters" in text


@FUZZ
@given(words=st.lists(st.text(alphabet=NASTY_CHARS, max_size=20) | st.integers(0, 50_000).map(lambda n: "y" * n),
                      max_size=6))
def test_clip_line_caps_every_long_run_and_the_line(words):
    line = clip_line(" ".join(words))
    assert len(line) <= 2100
    assert all(len(run) <= ECHO_LIMIT + 40 for run in line.split())


@FUZZ
@given(n=st.integers(-(10**4000), 10**4000))
def test_int_text_never_raises(n):
    assert len(int_text(n)) < 80


@FUZZ_CLI
@given(value=NUMBER_TEXT, flag=st.sampled_from(["--max-records", "-r", "--min-insync-replicas", "--max-states",
                                                "--depth"]))
def test_integer_flags_take_a_number_or_refuse_it_in_one_short_line(value, flag):
    r = kmc("check", flag, value, "-q", "-r", "2", "--max-records", "0", "--max-crashes", "0",
            "--max-leader-epoch", "0", "-p", "hw-le-leo") if flag != "-r" else kmc(
        "check", flag, value, "-q", "--max-records", "0", "--max-crashes", "0", "--max-leader-epoch", "0",
        "-p", "hw-le-leo")
    assert r.exit_code in (0, 2, 3), (r.exit_code, r.output[-500:], r.exception)  # 3: --depth 1 cuts the search
    if r.exit_code == 2:
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and len(lines[0]) <= MESSAGE_LIMIT, r.stderr[:1000]


def test_a_new_flag_is_one_line():
    # what docs/checker.md tells a contributor adding a flag: BoundedInt does the rest
    t = BoundedInt(0, INT32_MAX)
    assert t.convert("12", None, None) == 12
    with pytest.raises(Exception, match="Kafka's INT"):
        t.convert("9" * 5000, None, None)


@pytest.fixture(scope="module")
def props_file(tmp_path_factory):
    return tmp_path_factory.mktemp("bounded") / "server.properties"


NUMBER_KEYS = st.sampled_from(["default.replication.factor", "replication.factor", "min.insync.replicas",
                               "log.flush.interval.messages", "flush.messages", "log.flush.interval.ms",
                               "flush.ms"])


@FUZZ
@given(key=NUMBER_KEYS, value=NUMBER_TEXT, crash=st.sampled_from(["process", "power-loss"]))
def test_numbers_in_properties_files_are_within_kafkas_limits_or_one_short_line(props_file, key, value, crash):
    props_file.write_text(f"default.replication.factor=3\n{key}={value}\n", encoding="utf-8",
                          errors="surrogatepass")
    try:
        config_from_options(config_files=[str(props_file)], crash_model=crash)
    except ConfigError as e:
        assert_one_line_naming(e, props_file)
        assert len(str(e)) <= MESSAGE_LIMIT + len(str(props_file)), str(e)[:500]


@pytest.mark.parametrize("line, words", [
    ("log.flush.interval.messages=9223372036854775808", ["at most 9223372036854775807", "Kafka's LONG"]),
    ("flush.messages=0", ["at least 1", "Kafka's validator"]),
    ("min.insync.replicas=2147483648", ["Kafka's INT"]),
    ("default.replication.factor=" + "9" * 5000, ["5,000 digits", "Kafka's INT"]),
    ("flush.ms=-1", ["at least 0"]),
])
def test_values_kafka_refuses_are_refused_naming_kafkas_limit(props_file, line, words):
    props_file.write_text(f"default.replication.factor=3\n{line}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        config_from_options(config_files=[str(props_file)], crash_model="power-loss")
    assert all(w in str(e.value) for w in words), str(e.value)


@FUZZ_CLI
@given(size=st.integers(ECHO_LIMIT + 1, 200_000), where=st.sampled_from(["key", "value", "protocol", "version",
                                                                          "only", "property", "rule"]))
def test_a_long_value_is_never_echoed_whole(props_file, size, where, tmp_path_factory):
    long = "x" * size
    props_file.write_text(f"default.replication.factor=2\n{long if where == 'key' else 'acks'}="
                          f"{long if where == 'value' else '1'}\n", encoding="utf-8")
    args = {"key": ["check", "--config", props_file], "value": ["check", "--config", props_file],
            "protocol": ["check", "--protocol", long], "version": ["check", "--kafka-version", long],
            "property": ["check", "-r", "2", "-p", long], "rule": ["check", "-r", "2", "--rule", "+" + long],
            "only": ["gate", "scenarios/known-results.toml", "--only", long]}[where]
    r = kmc(*args, "-q", "--max-records", "0", "--max-crashes", "0", "--max-leader-epoch", "0") if where != "only" \
        else kmc(*args)
    assert len(r.output) < 20_000, (where, len(r.output))
    assert r.exit_code in (0, 1, 2)
    if r.exit_code == 2:  # the value quoted at most ECHO_LIMIT long (a list of choices may follow)
        assert max(map(len, re.findall("x+", r.stderr))) <= ECHO_LIMIT and len(r.stderr) < 1500, r.stderr[:600]
