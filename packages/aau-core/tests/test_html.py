"""The HTML report (aau report --html, aau runs show --html) and aau view's pages, without a browser:
self-contained, escaped, accessible markup, the right numbers; the server's routes."""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
from aau_core import run
from aau_core._store._recording import record_run

REPO = Path(__file__).resolve().parents[3]
SCHEMAS = REPO / "schemas"
RECEIPT_V2 = SCHEMAS / "receipt/v2/examples/valid/receipt-byo-agent-3x2-timeout.command.json"
LAB_RESULT = SCHEMAS / "lab/v1/examples/valid/lab-result-river-permit-desk-mock.json"
AGG_V2 = SCHEMAS / "eval-aggregate/v2/examples/valid/eval-aggregate-mock-aau-compat-with-error.json"
TEMPLATES = REPO / "packages/aau-core/src/aau_core/_reports/templates"
HOSTILE = '<script>alert("x")</script>&<img src=x onerror=alert(1)>'


class Page(HTMLParser):
    """Collects what the checks need: tags with attributes, table structure, text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.tables: list[dict[str, int]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append({"caption": 0, "th": 0, "th_scoped": 0})
        elif tag == "caption" and self.tables:
            self.tables[-1]["caption"] += 1
        elif tag == "th" and self.tables:
            self.tables[-1]["th"] += 1
            self.tables[-1]["th_scoped"] += dict(attrs).get("scope") in ("col", "row")

    def handle_data(self, data):
        self.text.append(data)

    def all_text(self) -> str:
        return " ".join(" ".join(self.text).split())


def cli(capsys, *args):
    rc = run([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def hostile_receipt(tmp_path: Path) -> Path:
    doc = json.loads(RECEIPT_V2.read_text())
    for row in doc["results"]:
        if row["scenario_id"] == "route-002":
            row["scenario_id"] = HOSTILE
    doc["suite_id"] = "suite-</title><script>bad()</script>"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    return path


def assert_self_contained(page: Page, text: str) -> None:
    assert not [t for t, _ in page.tags if t in ("script", "link", "iframe", "object", "embed",
                                                 "img")]
    for _, attrs in page.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), name
            if name in ("src", "href", "action") and value:
                assert not re.match(r"^[a-z]+:|^//", value), value
    assert "@import" not in text and "url(" not in text


def assert_accessible(page: Page) -> None:
    assert page.tags[0][0] == "html" and page.tags[0][1].get("lang") == "en"
    assert [t for t, _ in page.tags].count("h1") == 1
    assert page.tables
    for table in page.tables:
        assert table["caption"] == 1
        assert table["th"] == table["th_scoped"] > 0
    for tag, attrs in page.tags:
        if tag == "svg":
            assert attrs.get("role") == "img" and attrs.get("aria-labelledby")


def test_report_html_of_a_receipt_has_the_numbers_and_is_self_contained(tmp_path, capsys):
    out = tmp_path / "report.html"
    rc, _, err = cli(capsys, "report", RECEIPT_V2, "--html", out)
    assert rc == 1, err  # two scenarios failed; the page is written anyway
    text = out.read_text(encoding="utf-8")
    page = Page(text)
    assert_self_contained(page, text)
    assert_accessible(page)
    words = page.all_text()
    assert "1/3 scenarios passed" in words
    assert "exact_rate 0.666667 0.20766 0.938508 wilson" in words
    assert "route-002 fail 1/2 adapter-timeout; not-submitted" in words
    assert "route-003 fail 1/2 forbidden-action-attempt" in words
    assert "exact 0.666667 0.333333" in words  # the pass^k table, k = 1, 2
    assert "Latency distribution (6 runs, seconds)" in words
    assert "provenance.adapter.argv0 python3" in words
    assert [a.get("points") for t, a in page.tags if t == "polyline"]  # the pass^k curve


def test_hostile_ids_stay_text(tmp_path, capsys):
    src = hostile_receipt(tmp_path)
    out = tmp_path / "report.html"
    rc, _, err = cli(capsys, "report", src, "--html", out)
    assert rc == 1, err
    text = out.read_text(encoding="utf-8")
    page = Page(text)
    assert_self_contained(page, text)
    assert "<script" not in text and "<img" not in text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;&lt;img" in text
    assert HOSTILE in page.all_text()  # shown to the reader as the id it is


def test_an_aggregate_shows_cost_and_errors_and_a_lab_result_its_series(tmp_path, capsys):
    out = tmp_path / "agg.html"
    rc, _, err = cli(capsys, "report", AGG_V2, LAB_RESULT, "--html", out)
    assert rc == 1, err
    page = Page(out.read_text(encoding="utf-8"))
    assert_accessible(page)
    words = page.all_text()
    agg = json.loads(AGG_V2.read_text())
    assert f"total cost (USD) {agg['total_cost_usd']:.4f}" in words
    error = next(r["detail"]["error"] for r in agg["results"] if r["detail"].get("error"))
    assert error in words
    assert "decision_gate_exact 0.375" in words  # a lab result's pass^k at k=1
    assert words.count("Provenance") == 2


def test_report_html_follows_the_output_rules(tmp_path, capsys):
    out = tmp_path / "r.html"
    out.write_text("keep")
    rc, _, err = cli(capsys, "report", RECEIPT_V2, "--html", out)
    assert rc == 2 and "exists" in err and out.read_text() == "keep"
    rc, _, err = cli(capsys, "report", RECEIPT_V2, "--html", RECEIPT_V2, "--force")
    assert rc == 2 and "is also an input" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    rc, _, err = cli(capsys, "report", bad, "--html", tmp_path / "x.html")
    assert rc == 2 and not (tmp_path / "x.html").exists()


def _luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def test_every_text_colour_has_contrast_of_at_least_4_5_to_1():
    from aau_core._reports._html import PALETTE

    css = (TEMPLATES / "base.html.j2").read_text()
    colours = set(re.findall(r"(?<![-\w])(?:color|fill):\s*(#[0-9a-fA-F]{6})", css))
    colours |= set(PALETTE)
    backgrounds = {"#ffffff", *re.findall(r"background:\s*(#[0-9a-fA-F]{6})", css)}
    assert len(colours) >= 5
    for fg in colours:
        for bg in backgrounds:
            hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
            assert (hi + 0.05) / (lo + 0.05) >= 4.5, (fg, bg)


def test_histogram_bins_and_pass_k_points():
    from aau_core._reports._html import latency_histogram, pass_k_chart

    hist = latency_histogram([0.1, 0.2, 0.2, 0.9])
    assert sum(b["count"] for b in hist["bars"]) == 4 and len(hist["bars"]) == 2
    assert [b["count"] for b in hist["bars"]] == [3, 1]
    assert latency_histogram([0.5, 0.5])["bars"][0]["count"] == 2
    assert latency_histogram([]) is None
    chart = pass_k_chart([("exact", {"1": 1.0, "2": 0.5, "3": 0.0})])
    ys = [d["y"] for d in chart["lines"][0]["dots"]]
    assert ys[0] < ys[1] < ys[2]  # 1.0 drawn highest
    assert pass_k_chart([("exact", {"1": 0.5})]) is None  # one point: the table only


# ---------------------------------------------------------------- aau runs show --html, aau view

@pytest.fixture
def store(tmp_path):
    path = tmp_path / "runs.sqlite"
    record_run(json.loads(RECEIPT_V2.read_text()), store=path, source=str(RECEIPT_V2))
    record_run(json.loads(hostile_receipt(tmp_path).read_text()), store=path,
               source="hostile.json")
    record_run(json.loads(LAB_RESULT.read_text()), store=path)
    return path


def test_runs_show_html(store, tmp_path, capsys):
    out = tmp_path / "run1.html"
    rc, _, err = cli(capsys, "runs", "show", "1", "--store", store, "--html", out)
    assert rc == 0, err
    text = out.read_text()
    page = Page(text)
    assert_self_contained(page, text)
    assert "aau run 1" in page.all_text() and "1/3 scenarios passed" in page.all_text()
    rc, _, err = cli(capsys, "runs", "show", "1", "--store", store, "--html", out)
    assert rc == 2 and "exists" in err


@pytest.fixture
def server(store):
    from http.server import ThreadingHTTPServer

    from aau_core._store._view import make_handler

    srv = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(store))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def fetch(url: str, method: str = "GET") -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_view_pages_and_links(server):
    status, text = fetch(server + "/")
    assert status == 200
    page = Page(text)
    assert_accessible(page)
    hrefs = [a["href"] for t, a in page.tags if t == "a"]
    assert {"/runs/1", "/runs/2", "/runs/3"} <= set(hrefs)
    assert "<script" not in text.replace("&lt;script", "")
    for href in ("/runs/1", "/runs/2", "/runs/3"):
        status, body = fetch(server + href)
        assert status == 200 and 'href="/"' in body
    status, body = fetch(server + "/runs/2")
    assert HOSTILE in Page(body).all_text() and "<img" not in body
    status, body = fetch(server + "/compare?a=1&b=2")
    assert status == 200
    words = Page(body).all_text()
    assert "2 shared scenario(s)" in words  # route-002 was renamed in run 2
    assert fetch(server + "/runs/99")[0] == 404
    assert fetch(server + "/nowhere")[0] == 404
    assert fetch(server + "/compare?a=1")[0] == 400
    status, body = fetch(server + "/compare?a=1&b=3")  # a receipt and a lab: no shared scenario
    assert status == 422 and "share no scenario id" in Page(body).all_text()
    assert fetch(server + "/", method="POST")[0] == 405


def test_view_refuses_a_missing_store(tmp_path, capsys):
    rc, _, err = cli(capsys, "view", "--store", tmp_path / "none.sqlite", "--port", "0")
    assert rc == 2 and "no run store here" in err


def test_aau_view_serves_on_loopback_and_stops_cleanly_on_ctrl_c(store):
    import os
    import re
    import signal
    import subprocess
    import sys

    script = Path(sys.executable).parent / "aau"
    proc = subprocess.Popen([str(script), "view", "--store", str(store), "--port", "0"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**os.environ, "AAU_RUN_STORE": "none"})
    try:
        line = proc.stderr.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        status, text = fetch(url.group(0))
        assert status == 200 and "run 3" in text
        status, text = fetch(url.group(0) + "runs/1")
        assert status == 200 and "1/3 scenarios passed" in Page(text).all_text()
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "aau view: stopped" in err and "Traceback" not in err
