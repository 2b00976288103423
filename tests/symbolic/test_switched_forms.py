"""``kmc prove -p INVARIANT`` where the library uses a weaker form of that invariant (under power
loss or a delayed fetch) is refused, one line, exit 2: a PROVED would be of the weaker form, while
the invariant as written is false on reachable states (review of 2026-11-28)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from checker.symbolic.state import Dims
from checker.symbolic.strengthen.library import takes_another_form
from cli import cli
from model.options import config_from_options
from tests.symbolic.helpers import reachable
from checker.symbolic.strengthen import check_of
from model import make_model

DELAYED = dict(kafka_version="3.7", replication_factor=2, max_records=1, max_delayed_fetches=1)


def test_the_switched_form_is_noticed_and_the_invariant_as_written_is_false_there():
    config = config_from_options(**DELAYED)[0]
    assert takes_another_form("isr-remote-ge-hw", Dims.of(config))
    plain = config_from_options(kafka_version="3.7", replication_factor=2, max_records=1)[0]
    assert not takes_another_form("isr-remote-ge-hw", Dims.of(plain))
    assert not takes_another_form("no-acked-loss", Dims.of(config))  # a property: never switched
    # what the refusal protects: the invariant as written (checked without the delay's switch)
    # is false on a state the delayed fetch reaches
    states = reachable(make_model(config))
    assert not all(check_of("isr-remote-ge-hw", plain)(s) for s in states)


@pytest.mark.parametrize("args, fault", [
    (["--kafka-version", "3.7", "-r", "2", "--max-records", "1", "--max-delayed-fetches", "1",
      "-p", "isr-remote-ge-hw"], "delayed fetches"),
    (["--kafka-version", "2.1", "-r", "2", "--max-records", "1", "--max-delayed-fetches", "1",
      "-p", "controller-isr-live"], "delayed fetches"),
    # issue 29ac's forms; the line names the fault that switched them (review of stop 44)
    (["--kafka-version", "2.1", "-r", "2", "--max-records", "1", "--max-controlled-shutdowns", "1",
      "-p", "crashes-counted"], "controlled shutdowns"),
    (["--kafka-version", "3.5", "-r", "2", "--max-records", "1", "--max-session-expiries", "1",
      "-p", "live-brokers-registered"], "session expiries"),
])
def test_kmc_prove_refuses_a_switched_invariant_in_one_line(args, fault):
    result = CliRunner().invoke(cli, ["prove", "--search", "none", "-q"] + args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "weaker form" in lines[0] and "Traceback" not in result.output
    assert f"({fault};" in lines[0]
