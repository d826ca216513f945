"""``aau review serve`` in headless Chromium, driven as a person would: keyboard only, ten units
of the committed real run bfcl-simple_python, the server killed (SIGKILL) after five labels and
started again, and what is on screen and on disk checked after each step.

Uses the shared Chromium fixture and skip rules of ``tests/_browser.py`` (skips without a browser,
fails under CI). Screenshots go to ``.artifacts/screenshots/review-serve-*.png``.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest
from _browser import browser  # noqa: F401 - the shared fixture
from _helpers import REPO, aau_script
from aau_core import run
from aau_review import read_labels, read_review_pack

SCREENSHOTS = REPO / ".artifacts" / "screenshots"
PLAN = [("p", ()), ("f", ("2",)), ("u", ()), ("p", ()), ("f", ("1", "5")),
        ("p", ()), ("f", ("3",)), ("p", ()), ("u", ()), ("f", ("7",))]
"""Per unit, in the rater's order: the verdict key and the category keys pressed after it."""
VERDICTS = {"p": "pass", "f": "fail", "u": "unsure"}
CATEGORIES = ["wrong-tool", "wrong-arguments", "missing-call", "extra-call", "wrong-outcome",
              "unsafe-action", "other"]
BOB_NOTE = "bob's private note"


def _start(pack: Path, labels: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([aau_script(), "review", "serve", str(pack), "--rater", "alice",
                             "--labels", str(labels)], text=True, stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)
    line = proc.stderr.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{32}/", line)
    assert match, line
    return proc, match.group(0)


def _on_disk(labels: Path, pack: Path) -> list[tuple[str, str, tuple[str, ...]]]:
    """The labels file read and checked against the pack: (unit, verdict, categories)."""
    (checked,) = read_labels([labels], read_review_pack(pack))
    return [(lab.unit_id, lab.verdict, lab.categories) for lab in checked.labels.labels]


def _contrast(rgb_a: str, rgb_b: str) -> float:
    """WCAG 2.x contrast ratio of two CSS ``rgb(...)`` colours."""

    def luminance(rgb: str) -> float:
        channels = [int(x) / 255 for x in re.findall(r"\d+", rgb)[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(rgb_a), luminance(rgb_b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _shot(pg, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SCREENSHOTS / f"review-serve-{name}.png"), full_page=True)


@pytest.fixture
def page(browser):  # noqa: F811 - the fixture imported from _browser
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    external: list[str] = []
    pg.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1", "data:"))
          else external.append(r.url))
    yield pg
    context.close()
    assert external == []  # nothing fetched from anywhere else: the page is self-contained


@pytest.fixture
def pack(tmp_path: Path, prepare) -> Path:
    out = tmp_path / "pack"
    assert prepare(out, "--raters", "alice,bob", "--sample", "10", "--seed", "3",
                   name="bfcl-simple_python") == 0
    return out


def _label(pg, index: int, unit: str, labels: Path, pack: Path) -> None:
    """Label the unit on screen with PLAN[index] using keys only, then check screen and disk."""
    verdict_key, category_keys = PLAN[index]
    pg.keyboard.press(verdict_key)
    for key in category_keys:
        pg.keyboard.press(key)
    cats = [CATEGORIES[int(k) - 1] for k in category_keys]
    cats.sort(key=CATEGORIES.index)
    shown = f" ({', '.join(cats)})" if cats else ""
    pg.get_by_test_id("status").filter(
        has_text=f"Saved {unit}: {VERDICTS[verdict_key]}{shown}.").wait_for()
    assert pg.get_by_label(VERDICTS[verdict_key].capitalize()).is_checked()
    for i, category in enumerate(CATEGORIES):
        assert pg.locator(f"#category-{category}").is_checked() == (category in cats), i
    assert _on_disk(labels, pack)[-1] == (unit, VERDICTS[verdict_key], tuple(cats))


def test_label_ten_units_by_keyboard_with_a_kill_and_restart(page, pack, tmp_path):
    order = list(read_review_pack(pack).manifest.raters[0].units)
    assert len(order) == 10
    labels = tmp_path / "alice.json"
    (tmp_path / "bob.json").write_text(json.dumps({"note": BOB_NOTE}))  # never served
    proc, url = _start(pack, labels)
    try:
        page.goto(url)
        heading = page.get_by_role("heading", level=2).first
        heading.filter(has_text=f"Unit 1 of 10 ({order[0]})").wait_for()
        assert page.get_by_test_id("progress-text").inner_text() == "0 of 10 labelled"
        # the focus order is the reading order: the unit, then the verdict, the categories,
        # the note, the buttons (Previous is disabled on the first unit)
        focused = []
        for _ in range(13):
            page.keyboard.press("Tab")
            focused.append(page.evaluate("document.activeElement.id"))
        assert focused == ["input", "answer", "tool-calls", "verdict-pass",
                           *[f"category-{c}" for c in CATEGORIES], "note", "next"]
        # each category's description is visible text and its check box's accessible
        # description (aria-describedby), not a hover-only title
        for category in read_review_pack(pack).tasks.taxonomy.categories:
            box = page.locator(f"#category-{category.id}")
            described = box.get_attribute("aria-describedby")
            assert described == f"category-{category.id}-description"
            text = page.locator(f"#{described}")
            assert text.is_visible() and text.inner_text() == category.description
            assert page.locator(f"label[for='category-{category.id}']").get_attribute(
                "title") is None
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline == "solid"  # the focus is visible
        page.keyboard.press("Shift+Tab")  # back into the note; Esc leaves it for the shortcuts
        page.keyboard.press("Escape")
        assert page.evaluate("document.activeElement.id") == "unit-heading"
        time.sleep(1.0)  # the first unit stays on screen a second
        for i in range(5):
            if i:
                page.keyboard.press("n")
                heading.filter(has_text=f"Unit {i + 1} of 10 ({order[i]})").wait_for()
            _label(page, i, order[i], labels, pack)
            assert page.get_by_test_id("progress-text").inner_text() == f"{i + 1} of 10 labelled"
        # a note, written and left by keyboard, saved with the label
        page.keyboard.press("t")
        page.keyboard.type("the second root is wrong")
        page.keyboard.press("Escape")
        deadline = time.monotonic() + 10
        while json.loads(labels.read_text())["labels"][4].get("note") is None:
            assert time.monotonic() < deadline, "the note was not saved"
            time.sleep(0.05)
        assert json.loads(labels.read_text())["labels"][4]["note"] == "the second root is wrong"
        page.get_by_test_id("status").filter(has_text=f"Saved {order[4]}: fail").wait_for()
        _shot(page, "labelling")
        assert page.evaluate("document.body.innerText").count(BOB_NOTE) == 0
        # the server is killed with no warning: what was saved is on disk, complete
        proc.kill()
        proc.wait(timeout=20)
        assert _on_disk(labels, pack) == [
            (order[i], VERDICTS[k], tuple(sorted((CATEGORIES[int(c) - 1] for c in cs),
                                                 key=CATEGORIES.index)))
            for i, (k, cs) in enumerate(PLAN[:5])]
        page.keyboard.press("n")  # the next unit cannot be loaded, and the page says why
        page.get_by_test_id("status").filter(
            has_text="the server does not answer (is aau review serve still running?)").wait_for()
        assert page.get_by_test_id("status").get_attribute("aria-live") == "polite"
        _shot(page, "server-down")
        proc, url = _start(pack, labels)
        page.goto(url)
        heading = page.get_by_role("heading", level=2).first
        heading.filter(has_text=f"Unit 6 of 10 ({order[5]})").wait_for()  # resumed
        assert page.get_by_test_id("progress-text").inner_text() == "5 of 10 labelled"
        assert page.get_by_test_id("status").inner_text() == "Resumed: 5 of 10 already labelled."
        for i in range(5, 10):
            if i > 5:
                page.keyboard.press("n")
                heading.filter(has_text=f"Unit {i + 1} of 10 ({order[i]})").wait_for()
            _label(page, i, order[i], labels, pack)
        assert page.get_by_test_id("progress-text").inner_text() == "10 of 10 labelled"
        assert "All 10 units labelled." in page.get_by_test_id("status").inner_text()
        # going back shows a label already made
        page.keyboard.press("b")
        heading.filter(has_text=f"Unit 9 of 10 ({order[8]})").wait_for()
        assert page.get_by_label("Unsure").is_checked()
        _shot(page, "done")
        colours = page.evaluate("""() => {
            const s = (sel) => getComputedStyle(document.querySelector(sel));
            return [[s('body').color, s('body').backgroundColor],
                    [s('#unit-meta').color, s('body').backgroundColor],
                    [s('#status').color, s('body').backgroundColor],
                    [s('#next').color, s('#next').backgroundColor],
                    [s('pre.json').color, s('pre.json').backgroundColor]]; }""")
        assert all(_contrast(a, b) >= 4.5 for a, b in colours), colours  # WCAG AA text
    finally:
        proc.kill()
        proc.wait(timeout=20)
    doc = json.loads(labels.read_text())
    assert [lab["unit_id"] for lab in doc["labels"]] == order
    assert [lab["verdict"] for lab in doc["labels"]] == [VERDICTS[k] for k, _ in PLAN]
    times = [lab["time_spent_s"] for lab in doc["labels"]]
    assert 1.0 <= times[0] < 60 and all(0 < t < 60 for t in times), times
    assert run(["review", "validate", str(labels), "--pack", str(pack)]) == 0


def test_choosing_pass_clears_the_failure_categories(page, pack, tmp_path):
    """A pass names no failure category (the labels schema's rule): a rater who ticked categories
    under fail and then presses P gets a saved pass with none, not a refused save."""
    order = list(read_review_pack(pack).manifest.raters[0].units)
    labels = tmp_path / "alice.json"
    proc, url = _start(pack, labels)
    try:
        page.goto(url)
        page.get_by_role("heading", level=2).first.filter(
            has_text=f"Unit 1 of 10 ({order[0]})").wait_for()
        page.keyboard.press("f")
        page.keyboard.press("2")
        page.get_by_test_id("status").filter(
            has_text=f"Saved {order[0]}: fail (wrong-arguments).").wait_for()
        page.keyboard.press("p")
        page.get_by_test_id("status").filter(has_text=f"Saved {order[0]}: pass.").wait_for()
        assert not page.locator("#category-wrong-arguments").is_checked()
        assert _on_disk(labels, pack) == [(order[0], "pass", ())]
    finally:
        proc.kill()
        proc.wait(timeout=20)
