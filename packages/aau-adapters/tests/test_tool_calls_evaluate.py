"""Suite v2 tool calls through ``aau evaluate``: loading, response normalisation, scoring,
receipts (validated against their schemas), the mock adapter and a command agent."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_adapters import (
    AdapterAnswer,
    ResponseError,
    build_private_v2,
    build_receipt_v1,
    build_receipt_v2,
    check_receipt,
    evaluate,
    load_suite,
    normalize_response,
    parse_response,
    score,
    suite_from_document,
)
from aau_core import InvalidDocumentError, run, wilson_interval

REPO = Path(__file__).resolve().parents[3]
SUITE = REPO / "examples" / "suites" / "library-desk-tool-calls.json"
AGENT = REPO / "examples" / "agents" / "tool_call_agent.py"
SHARING = json.loads(SUITE.read_text(encoding="utf-8"))["sharing"]
RENEW = {"name": "renew_loan", "arguments": {"card_id": ["C-1"], "days": ["", 14]}}


def v2_suite(*expected: dict[str, Any]) -> dict[str, Any]:
    return {"suite_version": "aau-byo-agent-suite/2.0", "suite_id": "t", "sharing": SHARING,
            "cases": [{"scenario_id": f"s{i}", "input": {}, "expected": e}
                      for i, e in enumerate(expected)]}


def scripted(answers: dict[str, Any]) -> Any:
    """A python adapter answering each scenario with a fixed response (or an adapter error)."""

    def answer(case: Any) -> AdapterAnswer:
        raw = answers[case.scenario_id]
        if isinstance(raw, str):
            return AdapterAnswer(None, raw, 0.2)
        return AdapterAnswer(normalize_response(raw, case), None, 0.1)

    return answer


# ------------------------------------------------------------------------------- loading


def test_v2_suite_loads_with_optional_outcome() -> None:
    suite = load_suite(SUITE)
    assert suite.version == "aau-byo-agent-suite/2.0"
    assert suite.expects_tool_calls
    holds = suite.cases[1]
    assert holds.expected_outcome is None and holds.tool_call_match == {"mode": "unordered"}
    assert suite.cases[4].expected_tool_calls == []


def test_v1_suite_is_unchanged() -> None:
    suite = load_suite(REPO / "examples" / "suites" / "public-service-routing.json")
    assert suite.version == "aau-byo-agent-suite/1.0"
    assert not suite.expects_tool_calls
    assert all(c.expected_tool_calls is None and c.expected_outcome for c in suite.cases)


def test_v1_suite_cannot_carry_a_v2_expectation() -> None:
    doc = v2_suite({"tool_calls": [RENEW]})
    doc["suite_version"] = "aau-byo-agent-suite/1.0"
    with pytest.raises(InvalidDocumentError, match=r"\$\.cases\[0\]\.expected"):
        suite_from_document(doc, source="s.json")


def test_matcher_for_an_unexpected_argument_is_refused() -> None:
    doc = v2_suite({"tool_calls": [RENEW],
                    "tool_call_match": {"matchers": {"renew_loan": {"dayz": "any"}}}})
    with pytest.raises(InvalidDocumentError) as info:
        suite_from_document(doc, source="s.json")
    assert str(info.value) == ("s.json: $.cases[0].expected.tool_call_match.matchers.renew_loan."
                               "dayz: no expected call of 'renew_loan' has an argument 'dayz' "
                               "(a misspelt tool or argument name?)")


def test_function_defined_twice_is_refused() -> None:
    fn = {"name": "renew_loan", "parameters": {"properties": {}}}
    doc = v2_suite({"tool_calls": [RENEW], "tool_call_match": {"functions": [fn, fn]}})
    with pytest.raises(InvalidDocumentError, match=r"functions\[1\]\.name: function 'renew_loan' "
                                                   "is defined twice"):
        suite_from_document(doc, source="s.json")


# ------------------------------------------------------------------------ normalisation


def test_response_normalisation_depends_on_the_case() -> None:
    suite = suite_from_document(v2_suite({"tool_calls": [RENEW]},
                                         {"outcome": "ok", "tool_calls": [RENEW]},
                                         {"outcome": "ok"}))
    calls_only, both, plain = suite.cases
    raw = {"tool_calls": [{"name": "renew_loan", "arguments": {"card_id": "C-1"}, "id": "x"}]}
    assert normalize_response(raw, calls_only) == {
        "actions_attempted": [], "actions_executed": [], "submitted": True,
        "tool_calls": [{"name": "renew_loan", "arguments": {"card_id": "C-1"}}]}
    with pytest.raises(ResponseError, match="needs a non-empty string outcome"):
        normalize_response(raw, both)  # this case expects an outcome too
    with pytest.raises(ResponseError, match="needs an outcome or tool_calls"):
        normalize_response({"submitted": True}, calls_only)
    # a case without expected calls drops tool_calls, malformed or not (as aau-harness 1.6 does)
    assert "tool_calls" not in normalize_response({"outcome": "ok", "tool_calls": 5}, plain)
    assert "tool_calls" not in normalize_response({"outcome": "ok", "tool_calls": []})


@pytest.mark.parametrize(("tool_calls", "message"), [
    ("renew_loan()", "$.tool_calls: tool_calls must be an array"),
    ([{"arguments": {}}], "$.tool_calls[0].name: must be a non-empty string"),
    ([{"name": "f", "arguments": "{}"}], "$.tool_calls[0].arguments: must be an object"),
    ([None], "$.tool_calls[0]: a tool call must be an object"),
    # provider shapes are refused with a hint naming the shape, never scored as no arguments
    ([{"type": "tool_use", "id": "toolu_1", "name": "renew_loan", "input": {"card_id": "C-1"}}],
     "$.tool_calls[0]: an Anthropic tool_use block"),
    ([{"id": "call_1", "type": "function",
       "function": {"name": "renew_loan", "arguments": "{\"card_id\": \"C-1\"}"}}],
     "$.tool_calls[0]: an OpenAI chat tool call"),
    ([{"type": "function_call", "call_id": "call_1", "name": "renew_loan",
       "arguments": "{\"card_id\": \"C-1\"}"}],
     "$.tool_calls[0]: an OpenAI Responses function_call item"),
    # a provider's argument key beside aau's 'arguments' is refused too, never half-read
    ([{"name": "renew_loan", "arguments": {}, "input": {"card_id": "C-1"}}],
     "$.tool_calls[0]: an Anthropic tool_use block ({\"type\": \"tool_use\", \"name\", "
     "\"input\"}) is not read (beside 'arguments': which one holds the arguments is ambiguous); "
     'aau reads {"name": "...", "arguments": {...}}: answer its input as arguments'),
    ([{"name": "renew_loan", "arguments": None, "input": {"card_id": "C-1"}}],
     "$.tool_calls[0]: an Anthropic tool_use block"),
    ([{"name": "renew_loan", "arguments": {"card_id": "C-1"},
       "function": {"name": "renew_loan", "arguments": "{}"}}],
     "$.tool_calls[0]: an OpenAI chat tool call ({\"type\": \"function\", \"function\": "
     "{\"name\", \"arguments\": \"<JSON string>\"}}) is not read (beside 'arguments'"),
    ([{"name": "renew_loan", "arguments": {}, "parameters": {"card_id": "C-1"}}],
     "$.tool_calls[0]: carries its arguments under 'parameters' beside 'arguments' (a "
     "provider's or framework's shape)"),
    ([{"name": "renew_loan", "arguments": {"card_id": "C-1"}, "args": {}, "kwargs": {}}],
     "$.tool_calls[0]: carries its arguments under 'args', 'kwargs' beside 'arguments'"),
    ([{"name": "renew_loan", "tool_input": {"card_id": "C-1"}}],
     "$.tool_calls[0]: carries its arguments under 'tool_input' and no 'arguments'"),
    ([{"name": "renew_loan", "parameters": {"card_id": "C-1"}}],
     "$.tool_calls[0]: carries its arguments under 'parameters' and no 'arguments'"),
    ([{"name": "renew_loan", "kwargs": {"card_id": "C-1"}}],
     "$.tool_calls[0]: carries its arguments under 'kwargs' and no 'arguments'"),
    # neither aau's shape nor a documented one
    ([{"tool": "renew_loan", "args": {"card_id": "C-1"}}],
     "$.tool_calls[0]: carries its arguments under 'args' and no 'arguments'"),
    ([{"tool": "renew_loan", "payload": {"card_id": "C-1"}}],
     "$.tool_calls[0]: has no 'arguments' but has 'payload', 'tool'"),
])
def test_malformed_tool_calls_are_an_invalid_response(tool_calls: Any, message: str) -> None:
    case = suite_from_document(v2_suite({"tool_calls": [RENEW]})).cases[0]
    data = json.dumps({"outcome": "x", "tool_calls": tool_calls}).encode()
    with pytest.raises(ResponseError) as info:
        parse_response(data, case)
    assert message in str(info.value)


@pytest.mark.parametrize(("call", "hint"), [
    ('{"type": "tool_use", "id": "toolu_1", "name": "renew_loan", "input": {"card_id": "C-1"}}',
     "Anthropic tool_use block"),
    # the trial's case mixed-1: was scored tool-call-mismatch as a call without arguments
    ('{"name": "renew_loan", "arguments": {}, "input": {"card_id": "C-1"}}',
     "is not read (beside 'arguments'"),
])
def test_a_provider_shaped_call_is_an_invalid_response_not_a_wrong_score(
        python_agent, call: str, hint: str) -> None:
    from aau_adapters import CommandAdapter

    suite = suite_from_document(v2_suite({"tool_calls": [RENEW]}))
    argv = python_agent(f'answer({{"tool_calls": [{call}]}})\n')
    adapter = CommandAdapter(argv, 30.0)
    try:
        run_ = evaluate(suite, adapter, timeout_s=30.0)
    finally:
        adapter.close()
    receipt, private = build_receipt_v2(run_), build_private_v2(run_)
    aau_schemas.validate("private-receipt-v2", private)
    assert receipt["failure_code_counts"] == {"adapter-invalid-response": 1, "not-submitted": 1}
    assert "tool-call-mismatch" not in receipt["failure_code_counts"]
    assert hint in json.dumps(private)


def test_aau_shaped_calls_with_provider_keys_beside_them_are_read() -> None:
    case = suite_from_document(v2_suite({"tool_calls": [RENEW]})).cases[0]
    raw = {"tool_calls": [{"type": "function", "id": "c1", "name": "renew_loan",
                           "arguments": {"card_id": "C-1"}},
                          {"type": "function_call", "call_id": "c2", "name": "ping"}]}
    assert normalize_response(raw, case)["tool_calls"] == [
        {"name": "renew_loan", "arguments": {"card_id": "C-1"}}, {"name": "ping", "arguments": {}}]


# ------------------------------------------------------------------------------ scoring


def test_scoring_rows_and_failure_code_order() -> None:
    suite = suite_from_document(v2_suite({"tool_calls": [RENEW]},
                                         {"outcome": "ok", "tool_calls": [RENEW]},
                                         {"outcome": "ok"}))
    calls_only, both, plain = suite.cases
    good = [{"name": "renew_loan", "arguments": {"card_id": "C-1"}}]
    bad = [{"name": "renew_loan", "arguments": {"card_id": "C-2"}}]

    def row(case: Any, response: Any, error: str | None = None) -> dict[str, Any]:
        return score(case, AdapterAnswer(response, error, 0.0))

    base = {"actions_attempted": [], "actions_executed": [], "submitted": True}
    r = row(calls_only, {**base, "tool_calls": good})
    assert (r["exact"], r["outcome_exact"], r["tool_calls_match"], r["failure_codes"]) == (
        True, True, True, [])  # no expected outcome: outcome_exact is vacuously `submitted`
    r = row(calls_only, {**base, "tool_calls": bad})
    assert (r["exact"], r["tool_calls_match"], r["failure_codes"]) == (
        False, False, ["tool-call-mismatch"])
    r = row(both, {**base, "outcome": "no", "tool_calls": bad,
                   "actions_attempted": []})
    assert r["failure_codes"] == ["outcome-mismatch", "tool-call-mismatch"]
    r = row(both, {**base, "outcome": "ok"})  # no calls made at all
    assert r["failure_codes"] == ["tool-call-mismatch"]
    r = row(both, {**base, "outcome": "ok", "submitted": False, "tool_calls": good})
    assert (r["tool_calls_match"], r["failure_codes"]) == (True, ["not-submitted"])
    r = row(both, None, "adapter-timeout")
    assert (r["tool_calls_match"], r["failure_codes"]) == (False, ["adapter-timeout",
                                                                   "not-submitted"])
    r = row(plain, {**base, "outcome": "ok"})
    assert "tool_calls_match" not in r and r["exact"]


# ----------------------------------------------------------------------------- receipts


def _run(adapter: Any, answers: dict[str, Any], suite: Any, repeats: int = 1) -> Any:
    """``evaluate`` with ``python_adapter`` (the fixture) answering ``scripted(answers)``."""
    return evaluate(suite, adapter(scripted(answers)), repeats=repeats)


def test_receipt_metric_interval_and_private_reasons(python_adapter) -> None:
    suite = suite_from_document(v2_suite({"tool_calls": [RENEW]},
                                         {"outcome": "ok", "tool_calls": []},
                                         {"outcome": "ok"}))
    answers = {
        "s0": {"tool_calls": [{"name": "renew_loan", "arguments": {"card_id": "C-9"}}]},
        "s1": {"outcome": "ok", "tool_calls": []},
        "s2": {"outcome": "ok"},
    }
    run_ = _run(python_adapter, answers, suite)
    receipt = build_receipt_v2(run_)
    private = build_private_v2(run_)
    aau_schemas.validate("receipt-v2", receipt)
    aau_schemas.validate("private-receipt-v2", private)
    assert check_receipt(receipt) == []
    assert receipt["metrics"]["tool_calls_match_rate"] == 0.5  # s0 fails, s1 passes; s2 not scored
    assert receipt["metrics"]["exact_rate"] == round(2 / 3, 6)
    low, high = wilson_interval(1, 2)
    ci = receipt["metric_ci95"]["tool_calls_match_rate"]
    assert (ci["low"], ci["high"], ci["n"], ci["method"]) == (round(low, 6), round(high, 6), 2,
                                                              "wilson")
    assert receipt["failure_code_counts"] == {"tool-call-mismatch": 1}
    rows = private["results"]
    assert rows[0]["tool_call_mismatches"] == [
        "call #0 'renew_loan': argument 'card_id': got 'C-9', allowed ['C-1']"]
    assert rows[0]["response"]["tool_calls"] == answers["s0"]["tool_calls"]
    assert "outcome" not in rows[0]["response"]
    assert rows[1]["tool_call_mismatches"] == [] and "tool_call_mismatches" not in rows[2]
    # the consistency check notices a metric that is not derived from the rows
    forged = copy.deepcopy(receipt)
    forged["metrics"]["tool_calls_match_rate"] = 1.0
    assert check_receipt(forged) == [("$.metrics.tool_calls_match_rate",
                                      "is 1.0; the rows give 0.5")]
    forged = copy.deepcopy(receipt)
    forged["results"][0]["exact"] = True
    assert ("$.results[0].exact", "is true, but tool_calls_match is false") in check_receipt(forged)


def test_no_tool_call_fields_without_expected_calls(python_adapter) -> None:
    suite = suite_from_document(v2_suite({"outcome": "ok"}))
    answers = {"s0": {"outcome": "ok", "tool_calls": [{"name": "x"}]}}
    receipt = build_receipt_v2(_run(python_adapter, answers, suite))
    assert "tool_calls_match_rate" not in receipt["metrics"]
    assert "tool_calls_match_rate" not in receipt["metric_ci95"]
    assert "tool_calls_match" not in receipt["results"][0]


def test_adapter_failure_keeps_receipts_valid(python_adapter) -> None:
    suite = suite_from_document(v2_suite({"tool_calls": [RENEW]}, {"outcome": "ok"}))
    run_ = _run(python_adapter, {"s0": "adapter-exit-3", "s1": {"outcome": "ok"}}, suite)
    receipt, private = build_receipt_v2(run_), build_private_v2(run_)
    aau_schemas.validate("receipt-v2", receipt)
    aau_schemas.validate("private-receipt-v2", private)
    assert receipt["results"][0]["tool_calls_match"] is False
    assert receipt["results"][0]["failure_codes"] == ["adapter-exit-3", "not-submitted"]
    assert receipt["results"][0]["measured"] is False and receipt["results"][1]["measured"]
    assert private["results"][0]["tool_call_mismatches"] == []


def test_v1_receipt_refuses_a_v2_suite(python_adapter) -> None:
    suite = suite_from_document(v2_suite({"outcome": "ok"}))
    with pytest.raises(ValueError, match="cannot hold a aau-byo-agent-suite/2.0 suite"):
        build_receipt_v1(_run(python_adapter, {"s0": {"outcome": "ok"}}, suite))


# ---------------------------------------------------------------------------------- CLI


def _evaluate(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
    out, private = tmp_path / "r.json", tmp_path / "p.json"
    code = run(["evaluate", str(SUITE), *args, "--out", str(out), "--private-out",
                str(private)])
    if code not in (0, 1):
        return code, {}, {}
    receipt, detail = json.loads(out.read_text()), json.loads(private.read_text())
    aau_schemas.validate("receipt-v2", receipt)
    aau_schemas.validate("private-receipt-v2", detail)
    assert check_receipt(receipt) == []
    return code, receipt, detail


def test_mock_answers_every_expected_call(tmp_path: Path) -> None:
    code, receipt, detail = _evaluate(tmp_path, "--mock")
    assert code == 0
    assert receipt["metrics"]["tool_calls_match_rate"] == 1.0
    assert receipt["metrics"]["exact_rate"] == 1.0
    assert receipt["failure_code_counts"] == {}
    first = detail["results"][0]["response"]
    assert first["tool_calls"] == [{"name": "renew_loan",
                                    "arguments": {"card_id": "C-1042", "item_id": "B-77",
                                                  "days": 14}}]
    assert "outcome" not in detail["results"][1]["response"]  # lib-002 expects calls only


def test_command_agent_with_tool_calls(tmp_path: Path) -> None:
    command = f"{sys.executable} {AGENT}"
    code, receipt, detail = _evaluate(tmp_path, "--command", command,
                                      "--fail-under", "exact_rate=0.9")
    assert code == 1  # 6 of 7: the agent's string-for-integer bug in lib-007
    assert receipt["metrics"]["tool_calls_match_rate"] == round(6 / 7, 6)
    assert receipt["failure_code_counts"] == {"tool-call-mismatch": 1}
    by_id = {r["scenario_id"]: r for r in receipt["results"]}
    assert by_id["lib-007"]["failure_codes"] == ["tool-call-mismatch"]
    assert by_id["lib-004"]["tool_calls_match"]  # superset: the extra lookup_card is allowed
    assert by_id["lib-002"]["tool_calls_match"]  # unordered: reversed holds are fine
    reasons = {r["scenario_id"]: r["tool_call_mismatches"] for r in detail["results"]}
    assert reasons["lib-007"] == ["call #0 'renew_loan': argument 'days': expected type integer, "
                                  "got string ('21')"]


def test_format_aau_1_0_with_a_v2_suite_is_a_usage_error(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "r.json"
    code = run(["evaluate", str(SUITE), "--mock", "--format", "aau-1.0", "--out", str(out)])
    assert code == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert "--format aau-1.0 cannot hold a aau-byo-agent-suite/2.0 suite" in err


def test_fail_under_tool_calls_match_rate(tmp_path: Path) -> None:
    command = f"{sys.executable} {AGENT}"
    code, receipt, _ = _evaluate(tmp_path, "--command", command,
                                 "--fail-under", "tool_calls_match_rate=0.8")
    assert code == 0
    assert receipt["fail_under"] == [{"metric": "tool_calls_match_rate", "threshold": 0.8,
                                      "value": round(6 / 7, 6), "passed": True}]


def test_fail_under_tool_calls_match_rate_needs_expected_calls(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    plain = REPO / "examples" / "suites" / "public-service-routing.json"
    code = run(["evaluate", str(plain), "--mock", "--fail-under", "tool_calls_match_rate=0.5",
                "--out", str(tmp_path / "r.json")])
    assert code == 2
    assert "--fail-under tool_calls_match_rate needs a suite v2 or v3 case" in capsys.readouterr().err
