"""``aau report`` says, in every format, that a mock's document measures no agent: a receipt of
the mock adapter and an aggregate of the mock backend carry the caveat in the text summary,
Markdown, JUnit, HTML and JSON; a receipt of a real adapter carries none."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from aau_core import run

REPO = Path(__file__).resolve().parents[3]
MOCK_RECEIPT = REPO / "schemas/receipt/v1/examples/valid/receipt-starter.mock.json"
MOCK_AGGREGATE = (REPO / "schemas/eval-aggregate/v2.1/examples/valid/"
                  "eval-aggregate-mock-wilson-with-error.json")
REAL_RECEIPT = REPO / "schemas/receipt/v2/examples/valid/receipt-starter-3-repeats.python.json"
ADAPTER = ("mock adapter: a protocol self-test that measures no agent; its passes say nothing "
           "about any agent")
BACKEND = ("mock backend: scripted replies that measure no model; its passes say nothing about "
           "any agent")


def _report(tmp_path: Path, source: Path, capsys) -> dict:
    out = {fmt: tmp_path / f"r.{fmt}" for fmt in ("md", "xml", "html")}
    rc = run(["report", str(source), "--markdown", str(out["md"]), "--junit", str(out["xml"]),
              "--html", str(out["html"]), "--json"])
    captured = capsys.readouterr()
    assert rc in (0, 1)
    return {"text": captured.err, "json": json.loads(captured.out),
            **{fmt: path.read_text(encoding="utf-8") for fmt, path in out.items()}}


@pytest.mark.parametrize(("source", "caveat"), [(MOCK_RECEIPT, ADAPTER),
                                                (MOCK_AGGREGATE, BACKEND)])
def test_every_format_says_a_mock_measures_no_agent(tmp_path, capsys, source, caveat):
    got = _report(tmp_path, source, capsys)
    # the text summary: a note under the document's line
    assert f"  note: {caveat}\n" in got["text"]
    # Markdown: in the page's first paragraph and at the top of the document's section
    md = got["md"].splitlines()
    assert re.fullmatch(r"\d+/\d+ scenarios passed \([^)]*; measures no agent\) across 1 "
                        r"document\(s\)\. .*", md[2]), md[2]
    assert md[4] == f"> **Measures no agent:** `{source}`: {caveat}."
    assert f"> **Measures no agent.** {caveat}.\n" in got["md"]
    # JUnit: the first suite property and the suite's system-out
    suite = ET.fromstring(got["xml"]).find("testsuite")
    assert suite is not None
    first = suite.find("properties/property")
    assert first is not None and first.attrib == {"name": "caveat", "value": caveat}
    assert suite.findtext("system-out") == f"NOTE: {caveat}\n"
    # HTML: a note right under the page's summary
    head = got["html"].split('id="summary"', 1)[1].split("<section", 1)[0]
    assert f"<strong>Measures no agent:</strong> {source}: {caveat}." in head
    # JSON
    doc = got["json"]["documents"][0]
    assert doc["measures_agent"] is False and doc["caveat"] == caveat


def test_a_real_adapter_receipt_has_no_caveat(tmp_path, capsys):
    got = _report(tmp_path, REAL_RECEIPT, capsys)
    assert "note:" not in got["text"]
    assert "measures no agent" not in got["md"].lower()
    assert "caveat" not in got["xml"] and "<system-out>NOTE" not in got["xml"]
    assert "Measures no agent" not in got["html"]
    doc = got["json"]["documents"][0]
    assert doc["measures_agent"] is True and doc["caveat"] is None
