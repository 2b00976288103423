"""Every verdict carries its scope (issue 22): a HOLDS says which behaviours it covers, in text,
JSON, the gate's JUnit and the HTML page, and names the bounds at which the known-results suite
finds a loss in the same configuration family."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from click.testing import CliRunner

from cli import cli
from gate.known import beyond, family, known_losses
from model import Bounds, ModelConfig
from tests.conftest import LOOSE

# Kafka 2.1's rules at RF=3 and the default bounds hold no-acked-loss, and the known-results row
# "Kafka 2.1, 3 replicas: that stale follower LEO loses an acked record" loses one at 2 records,
# leader epochs up to 3 and no crash. That row runs under kmc's over-approximation of leader
# moves (tests/conftest.py LOOSE; not yet re-established under Kafka's own moves, issue 25), and
# a hint is given only within a family (the rules included), so these runs use the same rules.
DEMO = ["check", "--protocol", "kip-320", "-r", "3", "-p", "no-acked-loss", "-q",
        "--rule", "+unordered-leader-moves", "--rule", "-leader-and-isr-in-order"]


def kmc(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_a_holds_says_what_it_covers_and_which_bound_to_raise():
    r = kmc(*DEMO)
    assert r.exit_code == 0
    assert ("HOLDS = holds for every behaviour within records <= 1, leader epochs <= 2, "
            "crashes <= 1, process crashes; larger bounds are not checked") in r.output
    hint = next(line for line in r.output.splitlines() if line.startswith("known beyond these bounds"))
    assert "no-acked-loss is violated (13 steps) with --max-records 2 --max-leader-epoch 3 --max-crashes 0" in hint
    assert "raise max-records to 2 and max-leader-epoch to 3" in hint
    data = json.loads(kmc(*DEMO, "--json").output)
    assert data["scope"]["holds_means"].startswith("holds for every behaviour within records <= 1")
    assert data["scope"]["bounds"]["max_leader_epoch"] == 2
    assert data["known_beyond"][0]["raise"] == {"max_records": 2, "max_leader_epoch": 3}


def test_following_the_hint_finds_the_loss():
    r = kmc(*DEMO, "--max-records", 2, "--max-leader-epoch", 3, "--max-crashes", 0)
    assert r.exit_code == 1 and "no-acked-loss  VIOLATED  shortest counterexample: 13 steps" in r.output
    assert "known beyond" not in r.output


def test_the_hints_come_from_the_suite_and_match_the_family_only():
    losses = known_losses()
    assert any(loss.prop == "no-acked-loss" and loss.config.replication_factor == 3 for loss in losses)
    kip320 = ModelConfig(protocol="kip-320", replication_factor=3, bounds=Bounds(1, 2, 1, 1),
                         rule_changes=LOOSE)
    assert family(kip320) == family(ModelConfig(kafka_version="2.1", replication_factor=3,
                                                rule_changes=LOOSE))
    # Kafka's own leader moves are another family: the row's loss is not claimed for them
    assert beyond(ModelConfig(protocol="kip-320", replication_factor=3, bounds=Bounds(1, 2, 1, 1)),
                  ["no-acked-loss"]) == []
    assert [e["known_result"] for e in beyond(kip320, ["no-acked-loss"])] == [
        "Kafka 2.1, 3 replicas: that stale follower LEO loses an acked record, no crash needed"]
    other = ModelConfig(protocol="kip-320", replication_factor=3, min_insync_replicas=3,
                        rule_changes=LOOSE)
    assert beyond(other, ["no-acked-loss"]) == []  # no row of that family: nothing is claimed
    assert beyond(kip320, ["log-matching"]) == []  # only for a property that held
    big = ModelConfig(protocol="kip-320", replication_factor=3, bounds=Bounds(2, 3, 1, 1),
                      rule_changes=LOOSE)
    assert beyond(big, ["no-acked-loss"]) == []  # its bounds cover the row's


def test_the_gate_puts_the_scope_in_junit_and_json(tmp_path):
    suite = tmp_path / "s.toml"
    suite.write_text('[[check]]\nname = "rf3"\nprotocol = "kip-320"\n"replication.factor" = 3\n'
                     'rules = ["+unordered-leader-moves", "-leader-and-isr-in-order"]\n'
                     'properties = ["no-acked-loss"]\nexpect = "holds"\n')
    junit, report = tmp_path / "j.xml", tmp_path / "r.json"
    r = kmc("gate", suite, "--junit", junit, "--json", report)
    assert r.exit_code == 0, r.output
    out = ET.parse(junit).getroot().find(".//system-out").text
    assert "scope: holds for every behaviour within records <= 1, leader epochs <= 2, crashes <= 1" in out
    assert "known beyond these bounds: no-acked-loss is violated (13 steps)" in out
    check = json.loads(report.read_text())["checks"][0]
    assert check["scope"]["holds_means"].startswith("holds for every behaviour within")
    assert check["result"]["known_beyond"][0]["raise"] == {"max_records": 2, "max_leader_epoch": 3}


def test_the_html_page_says_what_was_searched(tmp_path):
    page = tmp_path / "t.html"
    r = kmc("check", "--protocol", "hw-truncation", "-r", 2, "--max-crashes", 2, "-p", "no-acked-loss", "-q", "--html", page)
    assert r.exit_code == 1
    assert ("searched: every behaviour within records \\u003c= 2, leader epochs \\u003c= 2, crashes "
            "\\u003c= 2, process crashes") in page.read_text()
