"""kmc advise --goal no-duplicates / in-order: the producer's settings sweep (advise/delivery.py)."""

from click.testing import CliRunner

from advise.delivery import advise_delivery, is_delivery
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
