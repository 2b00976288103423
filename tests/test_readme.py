"""The README's figures come from the tool (``docs/figures.py``): its example output, the size of
the strengthening library and the protocol table agree with what kmc prints today."""

from __future__ import annotations

import importlib.util
from pathlib import Path

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures.py"


def _figures():
    spec = importlib.util.spec_from_file_location("readme_figures", FIGURES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_agrees_with_the_tool():
    figures = _figures()
    found = figures.problems(figures.README.read_text(encoding="utf-8"))
    assert not found, "\n".join(found) + "\n(python docs/figures.py --write updates the README)"


def test_the_check_notices_a_typed_figure():
    # defect 8 of issue 15: the README said 45 strengthening invariants while the tool said 49
    figures = _figures()
    text = figures.README.read_text(encoding="utf-8")
    typed = figures.LIBRARY.sub("library of 45 strengthening invariants", text)
    assert any("strengthening invariants" in p for p in figures.problems(typed))
    edited = text.replace("shortest counterexample: 9 steps", "shortest counterexample: 8 steps", 1)
    assert any("example output differs" in p for p in figures.problems(edited))
