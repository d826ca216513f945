"""Trace keys that look misspelt: a warning naming the known key (``aau trace score``,
``aau schema validate --kind trace``), an error with ``--strict``; PraisonAI's own extra keys
(``judge``, ``result``, ``transcript``) are no warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aau_core import InvalidDocumentError, run
from aau_core._traces._trace import TRACE_KEY_CUTOFF, check_trace_document, trace_key_warnings

HARNESS_TRACE = Path(__file__).resolve().parents[3] / "examples" / "traces" / \
    "praison-harness-run.trace.json"
TYPO = {"tool_call": [{"name": "read_file"}, {"name": "write_file"}], "judge_score": 8.5,
        "judge": {"score": 8.5}, "artifacts": ["README.md"]}
TYPO_LINE = "$.tool_call: unknown key; did you mean tool_calls?"


def _run(capsys, *args):
    code = run([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_misspelt_trace_key_is_a_warning_and_an_error_when_strict():
    assert TRACE_KEY_CUTOFF == 0.8
    assert trace_key_warnings(TYPO, "t.json") == [("$.tool_call", "unknown key; did you mean "
                                                                  "tool_calls? (ignored)")]
    with pytest.raises(InvalidDocumentError) as info:
        trace_key_warnings(TYPO, "t.json", strict=True)
    assert str(info.value) == f"t.json: {TYPO_LINE}"
    assert check_trace_document(TYPO, source="t.json", strict=True) == (
        [("$.tool_call", "unknown key; did you mean tool_calls?")], [])


def test_the_keys_praison_harness_traces_carry_are_no_warning():
    trace = json.loads(HARNESS_TRACE.read_text(encoding="utf-8"))
    assert {"judge", "result", "source", "transcript"} <= set(trace)
    assert trace_key_warnings(trace, str(HARNESS_TRACE), strict=True) == []


def test_trace_score_warns_and_scores_then_strict_refuses(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(TYPO), encoding="utf-8")
    code, _, err = _run(capsys, "trace", "score", path, "--min-tool-calls", "2")
    assert code == 1  # the calls under "tool_call" are not read: 0 calls, the gate fails
    assert err.splitlines()[0] == f"{path}: {TYPO_LINE} (ignored)"
    assert "FAIL tool_calls_sufficient" in err
    out = tmp_path / "report.json"
    code, _, err = _run(capsys, "trace", "score", path, "--strict", "--out", out)
    assert code == 2 and not out.exists()
    assert err == f"aau: error: {path}: {TYPO_LINE}\n"


def test_schema_validate_reports_trace_warnings(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(TYPO), encoding="utf-8")
    code, out, err = _run(capsys, "schema", "validate", path, "--kind", "trace", "--json")
    assert code == 0
    assert err.splitlines() == [f"{path}: {TYPO_LINE} (ignored)", f"{path}: valid trace"]
    [verdict] = json.loads(out)["files"]
    assert verdict["valid"] and verdict["warnings"] == [
        {"path": "$.tool_call", "message": "unknown key; did you mean tool_calls? (ignored)"}]
    code, _, err = _run(capsys, "schema", "validate", path, "--kind", "trace", "--strict")
    assert code == 1 and err == f"{path}: {TYPO_LINE}\n"
