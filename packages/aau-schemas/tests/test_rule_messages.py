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


def _patterned(node, found):
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            found.append(node)
        for value in node.values():
            _patterned(value, found)
    elif isinstance(node, list):
        for value in node:
            _patterned(value, found)
    return found


def test_every_pattern_of_every_schema_is_said_in_words() -> None:
    """No violation message of any schema shows a raw regex: each ``pattern`` is a shared
    rule, its schema's description, or read out by ``pattern_in_words``."""
    from types import SimpleNamespace

    from aau_schemas._messages import _rule_description

    subschemas = [s for path in sorted(SCHEMAS.rglob("*.schema.json"))
                  for s in _patterned(json.loads(path.read_text("utf-8")), [])]
    assert len(subschemas) > 150
    unsaid = sorted({s["pattern"] for s in subschemas if _rule_description(
        SimpleNamespace(validator_value=s["pattern"], schema=s)) is None})
    assert unsaid == []


def test_a_baseline_session_id_is_said_in_words() -> None:
    """The fresh-user case: a session id that is not hexadecimal was shown as its regex."""
    session = _example("human-baseline/v1/examples/valid/session-*.json")
    session["anonymous_session_id"] = "not-hex!"
    assert _messages("human-baseline-session", session) == [
        '$.anonymous_session_id: "not-hex!" is not 12 to 64 lowercase hexadecimal characters']


@pytest.mark.parametrize(("pattern", "words"), [
    ("^[0-9a-f]{64}$(?!\\n)", "64 lower-case hexadecimal characters"),
    ("^sha256:[0-9a-f]{64}$(?!\\n)", 'text of: "sha256:", then 64 lower-case hexadecimal characters'),
    ("^[a-z][a-z0-9_]*$(?!\\n)", "text of: one of lower-case letters, then any number of "
                                 'lower-case letters, digits or "_"'),
    ("^[0-9]+(\\.[0-9]+)*$(?!\\n)", 'text of: one or more digits, then (".", then one or more '
                                    "digits) any number of times"),
    ("^https?://[^\\s]+$", 'text of: "http", then optionally "s", then "://", then one or more '
                           "characters other than whitespace"),
    ("^human:", 'text starting with: "human:"'),
    ("^(README\\.md|suite\\.json)$(?!\\n)", 'one of "README.md" | "suite.json"'),
    ("^[^\\n]*$(?!\\n)", 'any number of characters other than "\\n"'),
    ("^20[0-9]{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$(?!\\n)", "a date YYYY-MM-DD"),
    ("(?<=a)b", None),  # a look-behind: not said, the caller shows the pattern
])
def test_pattern_in_words(pattern, words) -> None:
    from aau_schemas._pattern_words import pattern_in_words

    assert pattern_in_words(pattern) == words
