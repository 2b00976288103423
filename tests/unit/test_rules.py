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
from checker.reference import make_reference_model, reference_supports

Z = ("controller-epoch",)  # every release since 0.8
O = ("leader-and-isr-in-order",)  # ZooKeeper mode, 0.8 until 4.0 (issue 25)
H = ("hw-on-alter-partition-answer",)  # KAFKA-13091, 3.1 (issue 28c: the last rule of the table)
BASE_2_1 = Z + ("epoch-truncation", "epoch-truncation-loop", "fenced-fetch",
                "epoch-cache-on-election", "truncate-on-epoch-change", "isr-join-needs-epoch-start")


KRAFT_3_3 = ("alter-partition", "kraft", "isr-eligibility")


@pytest.mark.parametrize("version,expected", [
    ("0.10", Z + O),
    ("0.11", Z + ("epoch-truncation",) + O),
    ("2.0", Z + ("epoch-truncation", "epoch-truncation-loop") + O),
    ("2.1", BASE_2_1 + O),
    ("2.2", BASE_2_1 + ("broker-epoch",) + O),
    ("2.8", BASE_2_1 + ("broker-epoch", "alter-partition") + O),
    ("3.1", BASE_2_1 + ("broker-epoch", "alter-partition") + O + H),
    ("3.3", BASE_2_1 + ("broker-epoch",) + KRAFT_3_3 + ("alter-partition-shrink-bumps-leader-epoch",) + O + H),
    ("3.5", BASE_2_1 + ("broker-epoch",) + KRAFT_3_3 + (
        "broker-epoch-in-fetch", "alter-partition-shrink-bumps-leader-epoch") + O + H),
    ("3.6", BASE_2_1 + ("broker-epoch",) + KRAFT_3_3 + (
        "broker-epoch-in-fetch", "isr-shrink-keeps-leader-epoch") + O + H),
    ("3.7", BASE_2_1 + ("broker-epoch", "hw-needs-min-isr") + KRAFT_3_3 + (
        "broker-epoch-in-fetch", "stale-fetch-rejected", "isr-shrink-keeps-leader-epoch") + O + H),
    ("4.0", BASE_2_1 + ("broker-epoch", "hw-needs-min-isr") + KRAFT_3_3 + (
        "broker-epoch-in-fetch", "stale-fetch-rejected", "isr-shrink-keeps-leader-epoch",
        "kraft-unclean-election", "isr-shrink-out-of-sync-set") + H),
    ("4.1", BASE_2_1 + ("broker-epoch", "hw-needs-min-isr") + KRAFT_3_3 + (
        "broker-epoch-in-fetch", "stale-fetch-rejected", "isr-shrink-keeps-leader-epoch",
        "kraft-unclean-election", "eligible-leader-replicas", "last-known-leader-check",
        "isr-shrink-out-of-sync-set") + H),
])
def test_each_release_has_the_rules_of_its_kips_and_jiras(version, expected):
    replication = tuple(r for r in release_rules(version) if not RULES[r].producer)
    assert replication == expected
    assert tuple(r for r in ModelConfig(kafka_version=version).rules
                 if not RULES[r].producer) == expected


@pytest.mark.parametrize("version,expected", [
    ("0.9", ()),
    ("0.10", ("in-flight-per-partition",)),
    ("0.11", ("in-flight-per-partition", "idempotent-producer")),
    ("1.0", ("in-flight-per-partition", "idempotent-producer", "producer-state-five-batches")),
    ("2.4", ("in-flight-per-partition", "idempotent-producer", "producer-state-five-batches")),
    ("2.5", ("in-flight-per-partition", "idempotent-producer", "producer-state-five-batches",
             "unknown-producer-accepts-any-sequence", "idempotent-epoch-bump",
             "epoch-bump-rewrites-in-flight")),
    ("3.0", ("in-flight-per-partition", "idempotent-producer", "producer-state-five-batches",
             "unknown-producer-accepts-any-sequence", "idempotent-epoch-bump",
             "epoch-bump-rewrites-in-flight", "idempotence-by-default")),
    ("4.1", ("in-flight-per-partition", "idempotent-producer", "producer-state-five-batches",
             "unknown-producer-accepts-any-sequence", "idempotent-epoch-bump",
             "epoch-bump-rewrites-in-flight", "idempotence-by-default")),
])
def test_the_producers_rules_by_release(version, expected):
    """KAFKA-3197 (0.10), KIP-98 (0.11), KAFKA-5494 (1.0), KIP-360 (2.5: the bump too, and
    KAFKA-14034, unfixed, with it), KIP-679 (3.0): issue 26."""
    assert tuple(r for r in release_rules(version) if RULES[r].producer) == expected


def test_presets_are_the_rule_sets_of_the_releases_that_introduced_them():
    assert PRESETS == {"hw-truncation": Z + ("in-flight-per-partition",) + O,
                       "kip-101": release_rules("0.11"),
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
        assert on[rule.switch] == 1, name
    off = kernel_spec(ModelConfig(protocol="hw-truncation", replication_factor=2)).cfg
    assert off[P.SETTING_COUNT:].sum() == 3 and off[RULES["controller-epoch"].switch] == 1
    assert off[RULES["leader-and-isr-in-order"].switch] == 1
    assert off[RULES["in-flight-per-partition"].switch] == 1  # the preset is 0.10's rules


def test_the_reference_model_refuses_rules_it_does_not_have():
    assert reference_supports(ModelConfig(rule_changes=("+kmc-0.1",)))
    assert reference_supports(ModelConfig(rule_changes=("+isr-expansion-as-own-step",)))
    assert reference_supports(ModelConfig())
    # 0.9 lacks only a producer rule of the hw-truncation preset (0.10's): inert without retries
    assert reference_supports(ModelConfig(kafka_version="0.9", protocol="hw-truncation"))
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


def test_a_rule_turned_on_without_what_it_requires_is_refused_not_dropped_quietly():
    # it used to be dropped by without_unmet while the command line still showed it in force
    with pytest.raises(ConfigError, match=r"\+isr-eligibility needs kraft, which Kafka 2.7 does not have"):
        ModelConfig(kafka_version="2.7", rule_changes=("+isr-eligibility",))
    with pytest.raises(ConfigError, match="needs broker-epoch-in-fetch"):
        ModelConfig(protocol="kip-320", rule_changes=("+stale-fetch-rejected",))
    with pytest.raises(ConfigError, match="needs kraft, which --rule -kraft turned off"):
        ModelConfig(kafka_version="3.3", rule_changes=("-kraft", "+isr-eligibility"))
    both = ModelConfig(kafka_version="2.7", rule_changes=("+kraft", "+isr-eligibility"))
    assert {"kraft", "isr-eligibility"} <= set(both.rules)
    out = CliRunner().invoke(cli, ["check", "--kafka-version", "2.7", "--rule", "+isr-eligibility",
                                   "-r", "2", "-q"])
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert len([line for line in out.output.splitlines() if "error" in line]) == 1


# -- no protocol runs without rules (issue 24: a kmc.protocols plugin ran the kernel with none)

class _EntryPoint:
    name, value, group = "my-variant", "my_package.models:MyVariant", "kmc.protocols"


def test_a_protocol_from_the_old_plugin_entry_point_is_refused_not_run_without_rules(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group=None: [_EntryPoint()] if group == "kmc.protocols" else [])
    with pytest.raises(ConfigError, match="kmc.protocols entry point .*no longer loads"):
        ModelConfig(protocol="my-variant")
    r = CliRunner().invoke(cli, ["check", "-q", "-r", "2", "--protocol", "my-variant"])
    assert r.exit_code == 2 and "my_package.models:MyVariant" in r.output, r.output


def test_every_protocol_the_configuration_accepts_sets_its_rules_in_the_kernel():
    for name, rules in PRESETS.items():
        cfg = kernel_spec(ModelConfig(protocol=name, replication_factor=2)).cfg
        assert rules and "controller-epoch" in rules
        assert all(cfg[RULES[r].switch] != 0 for r in rules), name
    with pytest.raises(ConfigError, match="unknown protocol"):
        ModelConfig(protocol="kip-999")


# -- the release table (issue 24 with issue 22 item 3): releases kmc does not model as given

def test_a_release_newer_than_kmc_models_runs_the_newest_rules_and_says_so():
    newest = ModelConfig(kafka_version="4.4")
    for version in ("4.5", "5.0"):
        config = ModelConfig(kafka_version=version)
        assert config.rules == newest.rules and config.rules_release == "4.4"
        assert "newer than every release kmc knows" in config.notes()[0]
        assert "rules of Kafka 4.4" in config.notes()[0]
    assert newest.notes() == [] and "rules.release" not in newest.as_dict()
    r = CliRunner().invoke(cli, ["check", "-q", "-r", "2", "--kafka-version", "5.0",
                                 "--max-states", "5"])
    assert r.exit_code == 3, r.output
    assert "Kafka 5.0 (KRaft) with the rules of Kafka 4.4," in r.stdout
    assert "checked with the rules of Kafka 4.4" in r.stderr  # even with -q


def test_kafka_4_2_to_4_4_are_modelled_with_the_last_known_leader_change():
    """4.2-4.4 have 4.1's rules plus PR #20629's last-known-leader trigger (docs/kraft.md); no
    warning, since kmc models them as themselves."""
    four_one = ModelConfig(kafka_version="4.1")
    assert "last-known-leader-when-leaderless" not in four_one.rules
    for version in ("4.2", "4.3", "4.4"):
        config = ModelConfig(kafka_version=version)
        assert config.notes() == [] and config.rules_release == version
        assert set(config.rules) == set(four_one.rules) | {"last-known-leader-when-leaderless"}
    r = CliRunner().invoke(cli, ["list"])
    assert "last-known-leader-when-leaderless" in r.output and "PR #20629" in r.output


@pytest.mark.parametrize("version", ["4.9", "3.10", "5.1"])
def test_a_release_there_never_was_is_refused(version):
    r = CliRunner().invoke(cli, ["check", "-q", "-r", "2", "--kafka-version", version])
    assert r.exit_code == 2 and f"there is no Kafka {version.split('.')[0]}." in r.output


def test_a_setting_the_release_ignores_is_said_not_to_be_in_force():
    kraft_3_7 = ModelConfig(kafka_version="3.7", unclean_leader_election_enable=True)
    assert "unclean.leader.election.enable" in kraft_3_7.ignored
    assert "KAFKA-12670" in kraft_3_7.notes()[0] and "not in force" in kraft_3_7.notes()[0]
    for honoured in (ModelConfig(kafka_version="3.9", unclean_leader_election_enable=True),
                     ModelConfig(kafka_version="3.7", unclean_leader_election_enable=True,
                                 rule_changes=("-kraft",)),  # ZooKeeper mode honours it
                     ModelConfig(kafka_version="3.7")):  # off: nothing to ignore
        assert honoured.ignored == {} and honoured.notes() == []
    r = CliRunner().invoke(cli, ["check", "-q", "-r", "2", "--kafka-version", "3.7",
                                 "--unclean-leader-election", "--max-states", "5"])
    assert "unclean.leader.election.enable=true (ignored by these rules)" in r.stdout
    assert "is not in force in Kafka 3.7" in r.stderr


def test_a_rule_holds_from_since_until_until():
    from model.releases import as_version
    from model.rules import Rule

    ranged = Rule("x", "src", "3.3", "x", 0, until="3.6")
    assert [v for v in ("3.2", "3.3", "3.5", "3.6", "4.1") if ranged.in_release(as_version(v))] == ["3.3", "3.5"]
    assert ranged.releases == "3.3-3.5" and RULES["fenced-fetch"].releases == "2.1+"
