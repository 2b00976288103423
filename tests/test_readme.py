"""The README's and the docs' figures come from the tool (``docs/figures.py``): the README's
example output, the size of the strengthening library, the protocol table, every figure block
of the docs (the slow ones, ``kmc advise`` on the example files, only by
``python docs/figures.py --slow``) and the README's figures of that advise run agree with what
kmc prints today."""

from __future__ import annotations

import importlib.util
from pathlib import Path

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures.py"


def _figures():
    spec = importlib.util.spec_from_file_location("readme_figures", FIGURES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_and_the_docs_agree_with_the_tool():
    figures = _figures()
    found = figures.all_problems()
    assert not found, "\n".join(found) + "\n(python docs/figures.py --write updates them)"


def test_the_check_notices_a_typed_figure():
    # defect 8 of issue 15: the README said 45 strengthening invariants while the tool said 49
    figures = _figures()
    text = figures.README.read_text(encoding="utf-8")
    typed = figures.LIBRARY.sub("library of 45 strengthening invariants", text)
    assert any("strengthening invariants" in p for p in figures.problems(typed))
    edited = text.replace("shortest counterexample: 10 steps", "shortest counterexample: 8 steps", 1)
    assert any("example output differs" in p for p in figures.problems(edited))


def test_a_figure_block_that_drifts_is_noticed():
    figures = _figures()
    path = figures.ROOT / "docs" / "traces.md"
    text = path.read_text(encoding="utf-8")
    blocks = figures.figures(path, text)
    assert blocks and not any(b.slow for b in blocks)
    drifted = text.replace("distinct states", "distinct statez", 1)
    assert any("differs from a real run" in p for p in figures.block_problems(path, drifted))
    texts = {p: p.read_text(encoding="utf-8") for p in figures.FILES}
    texts[figures.README] = figures.ADVISE_PROSE.sub("(1 settings, 2 checks, 3 distinct states)",
                                                     texts[figures.README])
    assert any("kmc advise's run" in p for p in figures.prose_problems(texts))
