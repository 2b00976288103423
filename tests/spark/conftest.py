"""Shared fixtures for the Spark engine's tests: one local[2] SparkContext per test module
(starting the JVM costs ~10 s here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_explore.session import java_available

ROOT = Path(__file__).resolve().parents[2]
needs_java = pytest.mark.skipif(not java_available(), reason="no Java runtime: the Spark engine needs one")


@pytest.fixture(scope="module")
def spark_context():
    if not java_available():
        pytest.skip("no Java runtime: the Spark engine needs one")
    from spark_explore.session import get_context, stop_context

    sc, created = get_context("local[2]", 2)
    yield sc
    if created:
        stop_context(sc)
