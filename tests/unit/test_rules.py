"""Rules by release: which Kafka version has which rule, ``--rule`` changes, and that each rule
switch reaches the kernel (turning a rule off changes what is explored)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli import cli
from model import ConfigError, ModelConfig
from model.kernel import params as P
from model.kernel.spec import kernel_spec
from model.rules import PRESETS, RULES, apply_rule_changes, release_rules
from model.variants import make_reference_model, reference_supports

BASE_2_1 = ("epoch-truncation", "epoch-truncation-loop", "fenced-fetch",
            "epoch-cache-on-election", "truncate-on-epoch-change", "isr-join-needs-epoch-start")


@pytest.mark.parametrize("version,expected", [
    ("0.10", ()),
    ("0.11", ("epoch-truncation",)),
    ("2.0", ("epoch-truncation", "epoch-truncation-loop")),
    ("2.1", BASE_2_1),
    ("2.2", BASE_2_1 + ("broker-epoch",)),
    ("2.8", BASE_2_1 + ("broker-epoch",)),
    ("3.7", BASE_2_1 + ("broker-epoch", "hw-needs-min-isr")),
    ("4.0", BASE_2_1 + ("broker-epoch", "hw-needs-min-isr")),
])
def test_each_release_has_the_rules_of_its_kips_and_jiras(version, expected):
    assert release_rules(version) == expected
    assert ModelConfig(kafka_version=version).rules == expected


def test_presets_are_the_rule_sets_of_the_releases_that_introduced_them():
    assert PRESETS == {"hw-truncation": (), "kip-101": release_rules("0.11"),
                       "kip-279": release_rules("2.0"), "kip-320": release_rules("2.1")}
    assert "reset-followers-on-epoch" not in {r for rules in PRESETS.values() for r in rules}


def test_rule_changes_apply_in_order_and_unknown_names_are_refused():
    assert apply_rule_changes(("fenced-fetch",), ("-fenced-fetch", "+broker-epoch")) == ("broker-epoch",)
    assert apply_rule_changes((), ("+broker-epoch", "-broker-epoch")) == ()
    with pytest.raises(ConfigError, match="unknown rule 'nope'"):
        ModelConfig(rule_changes=("+nope",))
    with pytest.raises(ConfigError, match=r"write \+NAME"):
        ModelConfig(rule_changes=("fenced-fetch",))


def test_every_rule_sets_its_kernel_switch():
    for name, rule in RULES.items():
        on = kernel_spec(ModelConfig(protocol="hw-truncation", replication_factor=2,
                                     rule_changes=(f"+{name}",))).cfg
        assert on[rule.param] == rule.value, name
    off = kernel_spec(ModelConfig(protocol="hw-truncation", replication_factor=2)).cfg
    assert off[P.RULE_TRUNCATION] == P.TRUNCATE_TO_HW and off[P.RULE_BROKER_EPOCH] == 0


def test_the_reference_model_refuses_rules_it_does_not_have():
    assert reference_supports(ModelConfig(rule_changes=("+reset-followers-on-epoch",)))
    newer = ModelConfig(kafka_version="2.2")
    assert not reference_supports(newer)
    with pytest.raises(ConfigError, match="need the compiled engine"):
        make_reference_model(newer)


def test_kafka_version_prints_the_rules_it_selects_and_other_engines_refuse_them():
    runner = CliRunner()
    r = runner.invoke(cli, ["check", "-q", "-r", "2", "--kafka-version", "3.7", "--max-states", "5"])
    assert r.exit_code == 3, r.output
    assert "rules: epoch-truncation, epoch-truncation-loop, fenced-fetch" in r.output
    assert "broker-epoch, hw-needs-min-isr" in r.output
    r = runner.invoke(cli, ["check", "-q", "-r", "2", "--kafka-version", "2.2", "--engine", "reference"])
    assert r.exit_code == 2 and "need the compiled engine" in r.output
