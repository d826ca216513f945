"""What a person sees: the HTML report file and `aau view`'s pages in headless Chromium.

Needs Playwright for Python and a Chromium (Debian's `chromium`, which `.ci/run` installs; or
`$AAU_CHROMIUM`; or Google Chrome). Without them the tests skip with the reason, except under CI
(`CI` set), where they fail. Screenshots go to `.artifacts/screenshots/` (git-ignored; CI uploads
the folder).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from _browser import browser  # noqa: F401 - the shared fixture
from _helpers import REPO, aau_script

SCHEMAS = REPO / "schemas"
RECEIPT_V2 = SCHEMAS / "receipt/v2/examples/valid/receipt-byo-agent-3x2-timeout.command.json"
LAB_RESULT = SCHEMAS / "lab/v1/examples/valid/lab-result-river-permit-desk-mock.json"
SCREENSHOTS = REPO / ".artifacts" / "screenshots"
HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def page(browser):  # noqa: F811 - the fixture imported from _browser
    context = browser.new_context(viewport={"width": 1200, "height": 900}, java_script_enabled=False)
    pg = context.new_page()
    external: list[str] = []
    pg.on("request", lambda r: None if r.url.startswith(("file:", "http://127.0.0.1", "data:"))
          else external.append(r.url))
    yield pg
    context.close()
    assert external == []  # nothing fetched from anywhere else: the page is self-contained


def shot(pg, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SCREENSHOTS / name), full_page=True)


def cells(pg, table: str, row_text: str) -> list[str]:
    row = pg.locator(f"{table} tr", has_text=row_text).first
    return [c.strip() for c in row.locator("th, td").all_inner_texts()]


def hostile_receipt(tmp_path: Path) -> Path:
    doc = json.loads(RECEIPT_V2.read_text())
    for row in doc["results"]:
        if row["scenario_id"] == "route-003":
            row["scenario_id"] = HOSTILE
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    return path


def test_html_report_file_shows_numbers_and_failing_scenarios(page, tmp_path):
    out = tmp_path / "report.html"
    proc = subprocess.run([aau_script(), "report", str(hostile_receipt(tmp_path)), str(LAB_RESULT),
                           "--html", str(out)], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    page.goto(out.as_uri())
    assert page.title() == "aau report"
    assert page.locator("#summary").inner_text() == "4/11 scenarios passed"
    first = page.locator("section").first
    assert first.get_by_test_id("doc-summary").inner_text() == "1/3 scenarios passed, 2 not passed"
    assert cells(first, "[data-testid=metrics]", "exact_rate")[:4] == [
        "exact_rate", "0.666667", "0.20766", "0.938508"]
    failing = first.locator("[data-testid=scenarios] tr[data-status=fail] th").all_inner_texts()
    assert failing == ["route-002", HOSTILE]  # the hostile id is shown as text, not run
    assert cells(first, "[data-testid=scenarios]", "route-002")[1:4] == [
        "fail", "1/2", "adapter-timeout; not-submitted"]
    assert page.get_by_role("img", name="pass^k by k").count() == 1
    assert page.get_by_role("img", name="Histogram of run latencies").count() == 2
    # the in-page links to each document work
    page.get_by_role("link", name=str(LAB_RESULT)).click()
    assert page.url.endswith("#doc-2")
    assert page.locator("#doc-2").is_visible()
    shot(page, "report-file.png")


@pytest.fixture
def view_url(tmp_path):
    store = tmp_path / "runs.sqlite"
    env = dict(os.environ, AAU_RUN_STORE=str(store))
    for src in (RECEIPT_V2, hostile_receipt(tmp_path), LAB_RESULT):
        subprocess.run([aau_script(), "runs", "add", str(src)], env=env, check=True,
                       capture_output=True)
    proc = subprocess.Popen([aau_script(), "view", "--port", "0"], env=env, text=True,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    line = proc.stderr.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    assert match, line
    yield match.group(0)
    proc.send_signal(signal.SIGINT)  # Ctrl-C stops it cleanly
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "aau view: stopped" in err and "Traceback" not in err


def test_view_list_run_and_compare_pages(page, view_url):
    page.goto(view_url)
    assert page.get_by_role("heading", level=1).inner_text() == "aau runs"
    assert page.locator("[data-testid=runs] tbody tr").count() == 3
    shot(page, "view-list.png")
    # follow the link of the first receipt's run
    page.get_by_role("link", name="run 1", exact=True).click()
    assert page.url == view_url + "runs/1"
    assert page.get_by_test_id("doc-summary").inner_text() == "1/3 scenarios passed, 2 not passed"
    shot(page, "view-run.png")
    page.get_by_role("link", name="all runs").click()
    assert page.url == view_url
    # pick A and B and compare (a plain form: works without scripts)
    page.get_by_label("run 1 as A").check()
    page.get_by_label("run 2 as B").check()
    page.get_by_role("button", name="Compare A and B").click()
    url = urlsplit(page.url)
    assert url.path == "/compare" and parse_qs(url.query) == {"a": ["1"], "b": ["2"]}
    assert page.get_by_test_id("shared").inner_text() == "2 shared scenario(s)"
    assert cells(page, "[data-testid=deltas]", "exact")[0] == "exact"
    page.get_by_role("link", name="run 2").first.click()
    assert page.url == view_url + "runs/2"
    assert HOSTILE in page.locator("[data-testid=scenarios]").inner_text()
    shot(page, "view-compare-target.png")


if __name__ == "__main__":  # pragma: no cover - manual run
    sys.exit(pytest.main([__file__, "-q"]))
