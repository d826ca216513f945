"""Violation messages say the rule in words, never a raw regex or a schema fragment: a failed
``pattern`` names what was expected (``"http://x.org" is not an https:// URL``) and ``not`` of a
``const`` says ``"x" is not allowed here``; every message stays one line."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from aau_schemas import iter_violations

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"


def _example(pattern: str) -> dict:
    return json.loads(next(SCHEMAS.glob(pattern)).read_text())


def _messages(kind: str, doc: dict) -> list[str]:
    return [str(v) for v in iter_violations(kind, doc)]


def test_safe_path_pattern_is_said_in_words() -> None:
    capsule = _example("evidence/v1/examples/valid/impact-capsule-foia-routing-impact-pilot.json")
    slot = next(iter(capsule["artifacts"]))
    capsule["artifacts"][slot]["path"] = "../capsule-root/x.json"
    assert _messages("impact-capsule", capsule) == [
        f'$.artifacts.{slot}.path: "../capsule-root/x.json" is not a safe relative POSIX path '
        '(no "..", ".", ".git", empty or absolute segments)']


def test_https_pattern_is_said_in_words() -> None:
    doc = _example("submission/v1/examples/valid/submission-aau-1.6-verified.json")
    doc["review"]["sources"] = ["http://x.org"]
    assert _messages("submission", doc) == [
        '$.review.sources[0]: "http://x.org" is not an https:// URL']


def test_nonblank_pattern_is_said_in_words() -> None:
    receipt = _example("receipt/v2/examples/valid/receipt-library-desk-tool-calls.command.json")
    receipt["provenance"]["harness_version"] = " "
    assert _messages("receipt-v2", receipt) == [
        '$.provenance.harness_version: " " is not non-blank text']


def test_not_const_is_not_allowed_here() -> None:
    decision = next(d for d in (json.loads(p.read_text()) for p in sorted(
        (SCHEMAS / "release/v1/examples/valid").glob("*.json")))
        if d.get("decision_version") or "status" in d and "reason_codes" in d)
    decision = copy.deepcopy(decision)
    decision["adapter_kind"] = "mock"
    decision["status"] = "release_ready"
    messages = _messages("release-decision", decision)
    assert '$.status: "release_ready" is not allowed here' in messages, messages
    assert not any("should not be valid under" in m for m in messages)


@pytest.mark.parametrize("kind", ["impact-capsule", "submission"])
def test_no_message_shows_a_regex(kind: str) -> None:
    doc = (_example("evidence/v1/examples/valid/impact-capsule-foia-routing-impact-pilot.json")
           if kind == "impact-capsule"
           else _example("submission/v1/examples/valid/submission-aau-1.6-verified.json"))
    doc = json.loads(json.dumps(doc).replace('"https://', '"ftp://'))
    for message in _messages(kind, doc):
        assert "^" not in message and "\\u" not in message and "\n" not in message, message
