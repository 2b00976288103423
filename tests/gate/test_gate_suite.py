"""Bad suites are rejected before anything runs: one line naming the file, the check and the key,
exit code 2."""

from __future__ import annotations

import pytest

from conftest import TINY
from gate.suite import load_suite

GOOD_CHECK = """
[[check]]
name = "modern"
expect = "holds"
"""


@pytest.mark.parametrize("body, words", [
    ('[[check]]\nname = "a"\nexpect = "holds"\n"min.insync.replica" = 2\n',
     ["check 'a'", "key 'min.insync.replica'", "did you mean 'min.insync.replicas'"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\n"replication.factor" = "two"\n',
     ["check 'a'", "key 'replication.factor'", "whole number"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\nprotocol = "kip-999"\n',
     ["check 'a'", "key 'protocol'", "unknown protocol 'kip-999'"]),
    ('[[check]]\nname = "a"\nexpect = "violated"\nviolates = "no-acked-los"\n',
     ["check 'a'", "key 'violates'", "unknown property 'no-acked-los'"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\n"replication.factor" = 2\n"min.insync.replicas" = 3\n',
     ["check 'a'", "key 'min.insync.replicas'", "larger than replication.factor=2"]),
    ('[[check]]\nname = "a"\nexpect = "maybe"\n', ["check 'a'", "key 'expect'"]),
    ('[[check]]\nname = "a"\n', ["check 'a'", "key 'expect'"]),
    ('[[check]]\nexpect = "holds"\n', ["check #2", "key 'name'"]),
    (GOOD_CHECK + GOOD_CHECK, ["check 'modern'", "unique"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\nallow-incomplete = "yes"\n',
     ["check 'a'", "key 'allow-incomplete'"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\ntrace-length = 3\n', ["check 'a'", "key 'trace-length'"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\nacks = "2"\n', ["check 'a'", "key 'acks'"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\nkafka-version = "2.9"\n',
     ["check 'a'", "key 'kafka-version'", "no Kafka 2.9"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\nconfig-files = ["absent.properties"]\n',
     ["check 'a'", "key 'config-files'", "no such file"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\nrests-on = "a hunch: trust me"\n',
     ["check 'a'", "key 'rests-on'", "must be one of kip, jira"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\nrests-on = "jira:"\n',
     ["check 'a'", "key 'rests-on'", "say which"]),
    ('[[check]]\nname = "a"\nexpect = "holds"\nrests-on = 7\n', ["check 'a'", "key 'rests-on'"]),
    ('[defaults]\nmax-record = 1\n' + GOOD_CHECK, ["[defaults]", "key 'max-record'"]),
    ('[[check]\nname = "a"\n', ["not valid TOML"]),
    ('checks = 1\n', ["unknown top-level key 'checks'"]),
    ('', ["no checks"]),
])
def test_bad_suite_is_one_line_exit_2_and_nothing_runs(write, kmc, body, words):
    path = write("suite.toml", GOOD_CHECK.replace("modern", "first") + body if "[[check]]" in body and
                 not body.startswith("[defaults]") else body)
    r = kmc("gate", path)
    assert r.exit_code == 2, r.output
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and path in err, err
    for w in words:
        assert w in err, err
    assert "[1/" not in r.stderr  # nothing ran
    assert r.stdout == ""


def test_unquoted_dotted_keys_and_underscores_are_accepted(write):
    path = write("suite.toml", """
        [[check]]
        name = "dotted"
        replication.factor = 2
        min.insync.replicas = 1
        unclean.leader.election.enable = true
        max_records = 1
        bounds = { max_leader_epoch = 1 }
        expect = "violated"
        violates = "no-acked-loss"
        allow_incomplete = true
    """)
    (spec,) = load_suite(path).checks
    assert spec.config.replication_factor == 2 and spec.config.min_insync_replicas == 1
    assert spec.config.unclean_leader_election_enable is True
    assert spec.config.bounds.max_records == 1 and spec.config.bounds.max_leader_epoch == 1
    assert spec.properties == ["no-acked-loss"] and spec.allow_incomplete


def test_defaults_are_inherited_and_overridden(write):
    path = write("suite.toml", TINY + """
        [[check]]
        name = "a"
        expect = "holds"
        [[check]]
        name = "b"
        "replication.factor" = 3
        expect = "holds"
    """)
    a, b = load_suite(path).checks
    assert a.config.replication_factor == 2 and b.config.replication_factor == 3
    assert a.config.bounds.max_records == b.config.bounds.max_records == 1


def test_config_files_are_relative_to_the_suite(write):
    write("server.properties", "default.replication.factor=2\nmin.insync.replicas=2\nlog.flush.interval.messages=1\n")
    path = write("suite.toml", """
        [[check]]
        name = "from files"
        config-files = ["server.properties"]
        kafka-version = "0.11"
        expect = "holds"
    """)
    (spec,) = load_suite(path).checks
    c = spec.config
    assert (c.protocol, c.replication_factor, c.min_insync_replicas, c.crash_model) == ("kip-101", 2, 2, "process")
    assert any("server.properties" in line for line in spec.provenance)
