"""``kmc --load`` contains the plugin: whatever it does while being imported is one short line and
exit code 2 (never 0, never a traceback); and the writers of names a plugin can choose (DOT,
GraphML) keep them inert. Plus ``kmc`` started with its standard output closed."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from viewer.graph import _dot_str, write_graphml

from tests.readers.conftest import FUZZ, FUZZ_CLI, NASTY_TEXT
from tests.viewer.conftest import kmc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BEHAVIOURS = st.one_of(
    st.sampled_from([None, 0, 1, 2, 3, "bye", -1, 2**70]).map(lambda c: f"import sys\nsys.exit({c!r})\n"),
    st.just("raise KeyboardInterrupt\n"),
    st.just("raise SystemExit\n"),
    st.just("class E(Exception):\n    def __str__(self):\n        raise ValueError('no str')\nraise E()\n"),
    st.just("class E(Exception):\n    def __str__(self):\n        raise SystemExit(0)\nraise E()\n"),
    st.just("class E(BaseException):\n    def __str__(self):\n        return 42\nraise E()\n"),
    st.integers(1, 2_000_000).map(lambda n: f"raise ValueError('x' * {n})\n"),
    NASTY_TEXT.map(lambda t: f"raise RuntimeError({t!r})\n"),
    st.just("raise GeneratorExit\n"),
    st.just("import nonexistent_module_kmc\n"),
    st.just("def broken(:\n"),
    st.just("raise RecursionError('deep ' * 100000)\n"),
)


@FUZZ_CLI
@given(body=BEHAVIOURS)
def test_a_plugin_that_fails_or_exits_is_one_short_line_exit_2(tmp_path_factory, body):
    plugin = tmp_path_factory.mktemp("plugin") / "plugin.py"
    plugin.write_text(body, encoding="utf-8", errors="surrogatepass")
    r = kmc("--load", plugin, "list")
    assert r.exit_code == 2, (body[:200], r.exit_code, r.output[-300:])
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"--load {plugin}" in lines[0], r.stderr[:500]
    assert len(lines[0]) < 500 + len(str(plugin)), len(lines[0])
    assert "Protocols" not in r.stdout  # the command did not run


def test_a_plugin_that_exits_0_does_not_pass_a_check_it_never_ran(tmp_path):
    # issue 30: `sys.exit(0)` in a plugin made `kmc check` exit 0 having checked nothing
    plugin = tmp_path / "p.py"
    plugin.write_text("import sys\nsys.exit(0)\n")
    r = subprocess.run([sys.executable, "-m", "cli", "--load", str(plugin), "check", "-r", "2"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "called sys.exit(0)" in r.stderr and "Traceback" not in r.stderr


def test_kmc_with_its_standard_output_closed_is_one_line_exit_2():
    # issue 30: `kmc list >&-` exited 120 with a traceback
    r = subprocess.run([sys.executable, "-m", "cli", "list"], cwd=ROOT, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=120,
                       preexec_fn=lambda: os.close(1))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "standard output is closed" in r.stderr


@FUZZ
@given(name=NASTY_TEXT | st.text(max_size=40))
def test_dot_strings_are_inert_for_any_name(name):
    text = _dot_str(name)
    assert text.startswith('"') and text.endswith('"')
    inner = text[1:-1]
    assert not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in inner), repr(inner)
    # every quote is escaped: strip escaped pairs, no bare quote is left
    stripped, i = [], 0
    while i < len(inner):
        if inner[i] == "\\":
            i += 2
            continue
        stripped.append(inner[i])
        i += 1
    assert '"' not in stripped


@FUZZ
@given(name=NASTY_TEXT)
def test_graphml_stays_well_formed_for_any_name(tmp_path_factory, name):
    g = nx.DiGraph(name=name)
    g.add_node("s0", label=name, violates=name)
    g.add_edge("s0", "s0", action=name)
    out = tmp_path_factory.mktemp("g") / "g.graphml"
    write_graphml(g, str(out))
    ET.parse(out)  # raises if not well-formed


@pytest.fixture(autouse=True)
def _no_leftover_modules():
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name == "plugin" or name == "p":
            del sys.modules[name]
