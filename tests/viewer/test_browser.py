"""The HTML trace viewer in a real headless Chromium: navigation, what each step shows, what is
highlighted, escaping of hostile traces, and that the page loads nothing from anywhere."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest

from checker.trace import Step, Trace
from viewer.html import render_html
from viewer.terminal import make_console, render_trace

from tests.viewer.conftest import kmc, load, save

pytestmark = pytest.mark.browser

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "",
                             shutil.which("chromium-browser") or "") if p and os.path.exists(p)), None)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img" / "trace-viewer.png"


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium binary (Debian package 'chromium', installed by .ci/run)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def open_page(browser):
    pages = []

    def opener(path):
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.requests, page.errors = [], []
        page.on("request", lambda req: page.requests.append(req.url))
        page.on("pageerror", lambda err: page.errors.append(str(err)))
        page.goto(Path(path).resolve().as_uri())
        pages.append(page)
        return page

    yield opener
    for p in pages:
        p.close()


def _html_file(tmp_path, trace_path):
    out = tmp_path / "trace.html"
    r = kmc("trace", "html", trace_path, "-o", out)
    assert r.exit_code == 0, r.output
    return out


def _shown_logs(page):
    """Per broker: the record ids shown, and how many records sit before the HW marker."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.replica')).map(row => {
        const log = row.querySelector('.log');
        const ids = Array.from(log.querySelectorAll('.record .rid')).map(e => e.textContent);
        let beforeHw = 0;
        for (const child of log.children) {
            if (child.classList.contains('hw')) break;
            if (child.classList.contains('slot')) beforeHw++;
        }
        return {ids, beforeHw, role: row.querySelector('.role').textContent};
    })""")


def test_clicking_through_every_step_shows_the_trace(tmp_path, trace_path, violated_trace, open_page):
    page = open_page(_html_file(tmp_path, trace_path))
    n = len(violated_trace.steps)
    assert page.inner_text("#step-label") == f"Step 0 / {n}"
    assert page.locator("#timeline li").count() == n + 1
    assert page.is_disabled("#prev") and not page.is_disabled("#next")
    for i, state in enumerate(violated_trace.states):
        if i:
            page.click("#next")
        assert page.inner_text("#step-label") == f"Step {i} / {n}"
        shown = _shown_logs(page)
        assert [s["ids"] for s in shown] == [[f"r{rid}" for rid, _ in r.log] for r in state.replicas]
        assert [s["beforeHw"] for s in shown] == [r.high_watermark for r in state.replicas]
        if i:
            assert page.inner_text("#action") == f"Step {i}: {violated_trace.steps[i - 1].action}"
    assert page.is_disabled("#next")
    # the final state: broker 1 leads epoch 1 with an empty log, r1 (acknowledged) only on broker 0
    final = _shown_logs(page)
    assert final[0]["ids"] == ["r1"] and final[1]["ids"] == [] and final[1]["role"] == "leader e1"
    assert page.is_visible("#violation")
    assert "no-acked-loss is violated in this state" in page.inner_text("#violation")
    assert "violation" in page.get_attribute(f"#timeline li[data-step='{n}']", "class")
    assert page.errors == []
    assert all(url.startswith("file://") for url in page.requests), page.requests


def test_changed_fields_are_highlighted(tmp_path, trace_path, open_page):
    page = open_page(_html_file(tmp_path, trace_path))
    page.click("#timeline li[data-step='4']")  # the leader's HW passes r1, which is acknowledged
    assert page.inner_text("#step-label") == "Step 4 / 10"
    changed = set(page.eval_on_selector_all(".changed", "els => els.map(e => e.dataset.key)"))
    assert {"replica.0.hw", "acked", "pending_acks", "replica.1.fetch"} <= changed
    assert "replica.1.hw" not in changed and "controller.isr" not in changed
    assert page.inner_text(".replica[data-broker='0'] .hw-value.changed") == "HW 1"
    assert "broker 0 HW 0 -> 1" in page.inner_text("#changes")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # step 8: broker 1 (restarted) truncates away r1
    assert page.inner_text("#step-label") == "Step 8 / 10"
    changed = set(page.eval_on_selector_all(".changed", "els => els.map(e => e.dataset.key)"))
    assert {"replica.1.log", "replica.1.leo"} <= changed and "replica.0.log" not in changed
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#step-label") == "Step 7 / 10"
    page.keyboard.press("End")
    assert page.inner_text("#step-label") == "Step 10 / 10"
    page.keyboard.press("Home")
    assert page.inner_text("#step-label") == "Step 0 / 10"
    assert page.locator(".changed").count() == 0


def test_screenshot_of_the_viewer(tmp_path, trace_path, open_page):
    page = open_page(_html_file(tmp_path, trace_path))
    page.click("#timeline li[data-step='8']")
    shot = tmp_path / "trace-viewer.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    if os.environ.get("KMC_UPDATE_DOCS_SCREENSHOT"):  # refresh docs/img/trace-viewer.png
        DOCS_IMG.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS_IMG)


HOSTILE_PROP = "<script>window.__pwned=1</script>\"'&amp; ü✓ 😀 [bold red]markup[/]"
HOSTILE_DESC = '</script><img src=x onerror="window.__pwned=2"><b>bold</b>'
HOSTILE_ID = '<img src=x onerror="window.__pwned=3">"\'ü'


@pytest.fixture(autouse=True)
def hostile_property():
    """A property whose name and description are markup, registered as a ``--load`` plugin would
    (a trace file naming a property kmc does not know is refused): no-acked-loss's check under
    the hostile name, so the file's violation step stays the one its states show."""
    import dataclasses

    from properties import PROPERTIES

    PROPERTIES[HOSTILE_PROP] = dataclasses.replace(PROPERTIES["no-acked-loss"], name=HOSTILE_PROP,
                                                   description=HOSTILE_DESC)
    yield
    del PROPERTIES[HOSTILE_PROP]


def _hostile_file(trace_path):
    doc = load(trace_path)
    doc["#meta"]["kmc"]["property"] = HOSTILE_PROP
    doc["#meta"]["kmc"]["property_description"] = HOSTILE_DESC
    doc["#meta"]["kmc"]["kmc_version"] = "</script><script>window.__pwned=4</script>"
    save(trace_path, doc)
    return trace_path


def _hostile_records(trace):
    """The trace with every record id replaced by markup (the API accepts any value)."""

    def swap(state):
        reps = tuple(r._replace(log=tuple((f"{HOSTILE_ID}{rid}", ep) for rid, ep in r.log)) for r in state.replicas)
        return state._replace(replicas=reps)

    return Trace(swap(trace.initial), [Step(s.action, swap(s.state)) for s in trace.steps], HOSTILE_PROP)


def _assert_inert(page):
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("img").count() == 0 and page.locator("b").count() == 0
    assert page.locator("script").count() == 2  # the page's own: the data and the viewer
    assert page.errors == []


def test_hostile_trace_file_renders_as_text(tmp_path, trace_path, open_page):
    page = open_page(_html_file(tmp_path, _hostile_file(trace_path)))
    _assert_inert(page)
    assert HOSTILE_PROP in page.inner_text("#title")
    assert HOSTILE_DESC in page.inner_text("#prop-desc")
    page.keyboard.press("End")
    assert HOSTILE_PROP in page.inner_text("#violation")
    _assert_inert(page)


def test_hostile_record_ids_render_as_text(tmp_path, violated_trace, open_page):
    out = tmp_path / "hostile.html"
    meta = {"property": HOSTILE_PROP, "property_description": HOSTILE_DESC, "violation_step": 9}
    out.write_text(render_html(_hostile_records(violated_trace), meta), encoding="utf-8")
    page = open_page(out)
    page.keyboard.press("End")
    ids = page.eval_on_selector_all(".record .rid", "els => els.map(e => e.textContent)")
    assert ids == [f"r{HOSTILE_ID}1"]
    _assert_inert(page)


def test_hostile_trace_renders_as_text_in_the_terminal(trace_path, violated_trace):
    out = io.StringIO()
    trace = _hostile_records(violated_trace)
    render_trace(make_console(out), trace, {"property": HOSTILE_PROP, "property_description": HOSTILE_DESC,
                                            "violation_step": 9})
    text = out.getvalue()
    assert f"counterexample for {HOSTILE_PROP}" in text  # rich markup in a name is printed, not applied
    assert f"[r{HOSTILE_ID}1 e0]" in text and HOSTILE_DESC in text
    assert "\x1b[" not in text
    r = kmc("trace", "show", _hostile_file(trace_path))
    assert r.exit_code == 0 and HOSTILE_PROP in r.output and "\x1b[" not in r.output


def test_a_lasso_page_marks_its_loop(tmp_path, open_page):
    """``kmc check -p LIVENESS --html`` and ``kmc trace html`` of a lasso file: the title says
    which states repeat, the timeline marks the loop, and the loop's states carry the banner."""
    lasso, page_path = tmp_path / "lasso.itf.json", tmp_path / "check.html"
    flags = ["check", "-r", "2", "--max-records", "1", "--max-crashes", "1", "-p",
             "writes-eventually-accepted"]
    r = kmc(*flags, "--trace-out", lasso, "--html", page_path)
    assert r.exit_code == 1 and "HTML lasso viewer written" in r.output, r.output
    from_file = tmp_path / "from-file.html"
    assert kmc("trace", "html", lasso, "-o", from_file).exit_code == 0
    for path in (page_path, from_file):
        page = open_page(path)
        title = page.inner_text("#title")
        assert title.startswith("Lasso for writes-eventually-accepted") and "stutters for ever" in title
        n = page.locator("#timeline li").count() - 1
        assert "loop" in page.get_attribute(f"#timeline li[data-step='{n}']", "class")
        assert "loop" not in (page.get_attribute("#timeline li[data-step='0']", "class") or "")
        assert not page.is_visible("#violation")
        page.click("#last")
        assert "the loop" in page.inner_text("#violation")
        assert "min.insync.replicas" in page.inner_text("#prop-desc")
        assert page.errors == []
