"""Helpers for the gate's tests: write a suite, run ``kmc`` through click's CliRunner."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

# A tiny RF=2 configuration: each check explores at most a few thousand states, well under 1 s.
TINY = """
[defaults]
"replication.factor" = 2
max-records = 1
max-leader-epoch = 1
max-crashes = 1
"""


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> path of a file in a temporary directory."""

    def _write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return str(path)

    return _write


@pytest.fixture
def kmc():
    """kmc(*args) -> click Result (exit_code, stdout, stderr) of the real ``kmc`` group."""
    from cli import cli

    def _run(*args):
        return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)

    return _run
