"""kmc advise --goal no-duplicates / in-order: the producer's settings sweep (advise/delivery.py)."""

from click.testing import CliRunner

from advise.delivery import advise_delivery, is_delivery, render_delivery
from cli import cli
from model.options import config_from_options


def test_no_duplicates_needs_idempotence_and_in_order_one_request_in_flight():
    config = config_from_options(kafka_version="2.8", replication_factor=2)[0]
    dups = advise_delivery(config, ["no-duplicates"])
    assert dups.weakest.settings.words() == (
        "enable.idempotence=true max.in.flight.requests.per.connection=5")
    assert dups.exit_code == 1  # 2.8's default producer is not idempotent
    order = advise_delivery(config, ["in-order"])
    assert order.weakest.settings.words() == (
        "enable.idempotence=false max.in.flight.requests.per.connection=1")
    assert [c.keeps for c in order.cells] == [False, False, True, True, True, True]


def test_the_command_and_a_release_that_refuses_idempotence():
    out = CliRunner().invoke(cli, ["advise", "-q", "--kafka-version", "3.0", "--goal", "no-duplicates"])
    assert out.exit_code == 0, out.output  # 3.0's default producer is idempotent (KIP-679)
    assert "Weakest setting that keeps it: enable.idempotence=true" in out.output
    old = CliRunner().invoke(cli, ["advise", "-q", "--kafka-version", "0.10", "--goal", "in-order"])
    assert old.exit_code == 1 and "refused: enable.idempotence needs" in old.output
    mixed = CliRunner().invoke(cli, ["advise", "-q", "--goal", "in-order", "--goal", "no-acked-loss"])
    assert mixed.exit_code == 2 and "on its own" in mixed.output
    assert is_delivery(["in-order", "no-duplicates"]) and not is_delivery([])


def test_a_setting_that_keeps_the_goal_names_a_known_result_beyond_the_bounds():
    """KAFKA-3197: on 0.9 one request in flight keeps the order within advise's bounds (a crash
    fails the old leader's requests, so the earlier record waits first in the queue), but a
    known-results row reorders with a failure-free leader move; the advice says so."""
    config = config_from_options(kafka_version="0.9", replication_factor=2)[0]
    order = advise_delivery(config, ["in-order"])
    weakest = order.weakest
    assert weakest.settings.words() == "enable.idempotence=false max.in.flight.requests.per.connection=1"
    assert [e["known_result"] for e in weakest.known_beyond] == [
        "KAFKA-3197 with min.insync.replicas=2: a failure-free leader move reorders too (0.9)"]
    assert "Within these bounds only" in render_delivery(order)
    newer = advise_delivery(config_from_options(kafka_version="0.10", replication_factor=2)[0],
                            ["in-order"])
    assert newer.weakest.settings == weakest.settings and newer.weakest.known_beyond == []
