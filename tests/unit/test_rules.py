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

Z = ("controller-epoch",)  # every release since 0.8
BASE_2_1 = Z + ("epoch-truncation", "epoch-truncation-loop", "fenced-fetch",
                "epoch-cache-on-election", "truncate-on-epoch-change", "isr-join-needs-epoch-start")


KRAFT_3_3 = ("alter-partition", "kraft", "isr-eligibility")


@pytest.mark.parametrize("version,expected", [
    ("0.10", Z),
    ("0.11", Z + ("epoch-truncation",)),
    ("2.0", Z + ("epoch-truncation", "epoch-truncation-loop")),
    ("2.1", BASE_2_1),
    ("2.2", BASE_2_1 + ("broker-epoch",)),
    ("2.8", BASE_2_1 + ("broker-epoch", "alter-partition")),
    ("3.3", BASE_2_1 + ("broker-epoch",) + KRAFT_3_3),
    ("3.7", BASE_2_1 + ("broker-epoch", "hw-needs-min-isr") + KRAFT_3_3 + (
        "broker-epoch-in-fetch", "stale-fetch-rejected", "isr-shrink-keeps-leader-epoch")),
    ("4.0", BASE_2_1 + ("broker-epoch", "hw-needs-min-isr") + KRAFT_3_3 + (
        "broker-epoch-in-fetch", "stale-fetch-rejected", "isr-shrink-keeps-leader-epoch",
        "kraft-unclean-election")),
    ("4.1", BASE_2_1 + ("broker-epoch", "hw-needs-min-isr") + KRAFT_3_3 + (
        "broker-epoch-in-fetch", "stale-fetch-rejected", "isr-shrink-keeps-leader-epoch",
        "kraft-unclean-election", "eligible-leader-replicas", "last-known-leader-check")),
])
def test_each_release_has_the_rules_of_its_kips_and_jiras(version, expected):
    assert release_rules(version) == expected
    assert ModelConfig(kafka_version=version).rules == expected


def test_presets_are_the_rule_sets_of_the_releases_that_introduced_them():
    assert PRESETS == {"hw-truncation": Z, "kip-101": release_rules("0.11"),
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
        needed = tuple(f"+{r}" for r in rule.requires)  # and what those need in turn
        needed = tuple(f"+{r}" for req in rule.requires for r in RULES[req].requires) + needed
        on = kernel_spec(ModelConfig(protocol="hw-truncation", replication_factor=2,
                                     rule_changes=needed + (f"+{name}",))).cfg
        assert on[rule.param] == rule.value, name
    off = kernel_spec(ModelConfig(protocol="hw-truncation", replication_factor=2)).cfg
    assert off[P.RULE_TRUNCATION] == P.TRUNCATE_TO_HW and off[P.RULE_BROKER_EPOCH] == 0


def test_the_reference_model_refuses_rules_it_does_not_have():
    assert reference_supports(ModelConfig(rule_changes=("+kmc-0.1",)))
    assert reference_supports(ModelConfig(rule_changes=("+isr-expansion-as-own-step",)))
    assert reference_supports(ModelConfig())
    newer = ModelConfig(kafka_version="2.2", rule_changes=("+kmc-0.1",))
    assert not reference_supports(newer)
    with pytest.raises(ConfigError, match="need the compiled engine"):
        make_reference_model(newer)


def test_kafka_version_prints_the_rules_it_selects_and_other_engines_refuse_them():
    runner = CliRunner()
    r = runner.invoke(cli, ["check", "-q", "-r", "2", "--kafka-version", "3.7", "--max-states", "5"])
    assert r.exit_code == 3, r.output
    assert "rules: controller-epoch, epoch-truncation, epoch-truncation-loop, fenced-fetch" in r.output
    assert "broker-epoch, hw-needs-min-isr" in r.output
    r = runner.invoke(cli, ["check", "-q", "-r", "2", "--kafka-version", "2.2", "--engine", "reference"])
    assert r.exit_code == 2 and "need the compiled engine" in r.output


def test_kraft_only_rules_drop_in_zookeeper_mode_and_4_0_has_no_zookeeper():
    zk = ModelConfig(kafka_version="3.7", rule_changes=("-kraft",))
    assert "kraft" not in zk.rules and "alter-partition" in zk.rules  # KIP-497 is ZK too (2.7)
    assert not {"isr-eligibility", "broker-epoch-in-fetch", "isr-shrink-keeps-leader-epoch"} & set(zk.rules)
    with pytest.raises(ConfigError, match="no ZooKeeper mode"):
        ModelConfig(kafka_version="4.0", rule_changes=("-kraft",))
    opt_in = ModelConfig(kafka_version="4.0", rule_changes=("+eligible-leader-replicas",))
    assert "eligible-leader-replicas" in opt_in.rules and "last-known-leader-check" not in opt_in.rules
