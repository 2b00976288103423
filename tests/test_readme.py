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


def test_the_figures_scratch_directory_is_removed():
    # every README check used to leave a kmc-figures-* directory in $TMPDIR (1,053 of them here)
    figures = _figures()
    with figures._workdir() as work:
        assert (work / "examples").is_symlink()
        (work / "gate.json").write_text("{}")
    assert not work.exists()


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


CHANGED_EXIT = "<!-- figure: kmc list --no-such-flag; exit=0 -->\n```\nwhatever\n```\n"


def test_a_figure_whose_exit_code_changed_is_one_line_naming_it_and_both_codes(tmp_path, monkeypatch, capsys):
    # review 7: --write gave a traceback (an AssertionError with the output) instead
    figures = _figures()
    path = figures.ROOT / "docs" / "traces.md"
    found = figures.block_problems(path, CHANGED_EXIT)
    assert found == [found[0]] and "\n" not in found[0], found
    assert "docs/traces.md: kmc list --no-such-flag: exit code 2, the figure says 0" in found[0]
    page = tmp_path / "page.md"
    page.write_text(CHANGED_EXIT, encoding="utf-8")
    monkeypatch.setattr(figures, "ROOT", tmp_path)
    monkeypatch.setattr(figures, "FILES", (page,))
    monkeypatch.setattr(figures.sys, "argv", ["figures.py", "--write"])
    assert figures.main() == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "page.md: kmc list --no-such-flag: exit code 2, the figure says 0" in out[0]
    assert page.read_text(encoding="utf-8") == CHANGED_EXIT  # nothing written


def test_the_known_results_table_is_the_suites():
    # review 7: the hand-typed table's counts predated issue 25; it is generated from the toml now
    figures = _figures()
    text = figures.MODEL.read_text(encoding="utf-8")
    assert figures.table_problems(text) == []
    assert "`no-acked-loss` VIOLATED, 4 steps" in text  # acks=1 loses data: 3 steps before issue 25
    edited = text.replace("VIOLATED, 4 steps", "VIOLATED, 3 steps", 1)
    assert figures.table_problems(edited) and figures.table_problems(figures.write_table(edited)) == []
