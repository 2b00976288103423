"""Trace validation on a fresh real run: the acks1-failover scenario on Kafka 4.1 (real brokers on
127.0.0.1, stopped by pid), then ``kmc conformance validate`` on the run directory it wrote.

Runs under ``make conformance`` only (``KMC_CONFORMANCE=1``): a cluster start and the scenario
take 30-60 s on 2 shared cores, too long for ``make test``.
"""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from cli import cli
from conformance import jars, scenarios

pytestmark = [pytest.mark.kafka,
              pytest.mark.skipif(os.environ.get("KMC_CONFORMANCE") != "1",
                                 reason="real-cluster validation runs under make conformance (KMC_CONFORMANCE=1)")]


def test_a_fresh_acks1_failover_run_on_kafka_4_1_is_admitted(tmp_path):
    try:
        release = jars.ensure("4.1")
    except jars.JarsUnavailable as e:
        pytest.skip(f"no Kafka jars: {e}")
    run = tmp_path / "acks1-failover"
    result = scenarios.acks1_failover(release, run, log=lambda s: None)
    assert result.agrees, result.real
    r = CliRunner().invoke(cli, ["conformance", "validate", str(run), "--trace-out", str(tmp_path / "m.itf.json")])
    assert r.exit_code == 0, r.output
    assert "ADMITTED" in r.output
