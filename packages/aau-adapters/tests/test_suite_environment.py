"""Suite 3.0 cases naming an environment (``Case.environment``), and request 1.1 (``mcp``).

The environment is registered in-process (``aau_core.register_environment``); loading asks it
to check each case, and its refusals become problem lines naming the file and JSON path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aau_schemas
import attrs
import pytest
from aau_adapters import (
    REQUEST_VERSION,
    REQUEST_VERSION_1_1,
    CaseEnvironment,
    McpAccess,
    ResponseError,
    build_request,
    encode_request,
    load_suite,
    normalize_response,
    request_model,
    structure_document,
    suite_from_document,
    unstructure_document,
)
from aau_core import (
    EnvironmentCaseError,
    InputError,
    InvalidDocumentError,
    register_environment,
)

SCHEMA_ROOT = Path(aau_schemas.schema_root())
SHARING = {
    "classification": "synthetic", "human_review_complete": True,
    "contains_personally_identifiable_information": False,
    "contains_procurement_sensitive_information": False,
    "contains_controlled_unclassified_information": False,
    "contains_classified_information": False, "contains_secrets_or_credentials": False,
}


class _Ledger:
    """A two-task environment that records what it was asked to check."""

    name = "test-ledger"
    version = "0.1"

    def __init__(self) -> None:
        self.checked: list[tuple[str, dict[str, Any]]] = []

    def check_case(self, task: str, options: dict[str, Any]) -> None:
        self.checked.append((task, options))
        if task not in ("pay", "refund"):
            raise EnvironmentCaseError(f"the ledger has no task {task!r}", "$.task")
        if "currency" in options and options["currency"] != "EUR":
            raise EnvironmentCaseError("the ledger keeps EUR only", "$.options.currency")

    def open(self, task: str, options: dict[str, Any]) -> Any:  # not opened by the loader
        raise AssertionError("loading a suite must not open a session")


class _Broken(_Ledger):
    name = "test-broken"

    def check_case(self, task: str, options: dict[str, Any]) -> None:
        raise KeyError("tasks")


@pytest.fixture(autouse=True)
def _registry_restored(monkeypatch):
    """Registrations of a test never outlive it (an in-process one wins over entry points)."""
    from aau_core._environments import _registry  # internal to the monorepo

    monkeypatch.setattr(_registry, "_REGISTERED", dict(_registry._REGISTERED))
    monkeypatch.setattr(_registry, "_LOADED", dict(_registry._LOADED))


@pytest.fixture
def ledger() -> _Ledger:
    env = _Ledger()
    register_environment("test-ledger", lambda: env)
    register_environment("test-broken", _Broken)
    return env


def _suite(*cases: dict[str, Any]) -> dict[str, Any]:
    return {"suite_version": "aau-byo-agent-suite/3.0", "suite_id": "ledger", "sharing": SHARING,
            "cases": list(cases)}


def _case(sid: str = "a", expected: dict[str, Any] | None = None, **environment: Any):
    case: dict[str, Any] = {"scenario_id": sid, "input": {"messages": [
        {"role": "user", "content": "Pay the rent."}]}, "expected": expected or {}}
    if environment:
        case["environment"] = environment
    return case


def test_a_case_environment_loads_with_defaults_and_is_checked(ledger):
    suite = suite_from_document(_suite(
        _case("a", name="test-ledger", task="pay"),
        _case("b", {"outcome": "paid"}, name="test-ledger", task="refund",
              options={"currency": "EUR"}, max_calls=3),
        {"scenario_id": "c", "input": {}, "expected": {"outcome": "x"}}))
    a, b, c = suite.cases
    assert a.environment == CaseEnvironment(name="test-ledger", task="pay", options={},
                                            max_calls=50)
    assert b.environment == CaseEnvironment(name="test-ledger", task="refund",
                                            options={"currency": "EUR"}, max_calls=3)
    assert c.environment is None
    assert ledger.checked == [("pay", {}), ("refund", {"currency": "EUR"})]
    assert suite.environment_names == ["test-ledger"]
    # an environment case expects neither an outcome nor calls unless it says so
    assert a.expected_outcome is None and not a.expects_tool_calls and a.expected == {}
    assert b.expected_outcome == "paid" and not suite.expects_tool_calls
    assert isinstance(b.environment.max_calls, int)


def test_the_case_model_holds_the_environment(ledger):
    doc = _suite(_case("a", name="test-ledger", task="pay", max_calls=7))
    suite = suite_from_document(doc)
    model = suite.cases[0].model
    assert model.environment.name == "test-ledger" and model.environment.max_calls == 7
    assert model.environment.options is None and model.expected.outcome is None
    assert unstructure_document(suite.model) == doc


@pytest.mark.parametrize(("environment", "line"), [
    ({"name": "test-ledger", "task": "audit"},
     "s.json: $.cases[1].environment.task: the ledger has no task 'audit'"),
    ({"name": "test-ledger", "task": "pay", "options": {"currency": "USD"}},
     "s.json: $.cases[1].environment.options.currency: the ledger keeps EUR only"),
    ({"name": "test-nowhere", "task": "pay"},
     "s.json: $.cases[1].environment.name: no environment named 'test-nowhere' is installed"),
    ({"name": "test-broken", "task": "pay"},
     "s.json: $.cases[1].environment.task: environment 'test-broken' failed to check the "
     "case: KeyError: 'tasks'"),
])
def test_a_refused_or_unknown_environment_is_one_line_naming_the_path(ledger, environment, line):
    doc = _suite(_case("a", name="test-ledger", task="pay"), _case("b", **environment))
    with pytest.raises(InvalidDocumentError) as err:
        suite_from_document(doc, source="s.json")
    assert isinstance(err.value, InputError)
    assert str(err.value).startswith(line)
    assert len(str(err.value).splitlines()) == 1


def test_load_suite_reads_the_schema_example_with_its_environment(tmp_path):
    class Banking(_Ledger):
        name = "agentdojo-banking"

        def check_case(self, task: str, options: dict[str, Any]) -> None:
            if not task.startswith("user_task_"):
                raise EnvironmentCaseError("unknown task", "$.task")

    register_environment("agentdojo-banking", Banking)
    example = SCHEMA_ROOT / "suite/v3/examples/valid/suite-banking-environment.json"
    suite = load_suite(example)
    assert [c.environment.task for c in suite.cases] == ["user_task_0", "user_task_1"]
    assert suite.cases[0].environment.options == {"benchmark_version": "v1.2.2"}
    assert suite.cases[1].expects_tool_calls and suite.cases[0].forbidden_actions == [
        "update_password"]


def test_without_an_environment_expected_still_needs_outcome_or_calls():
    with pytest.raises(InvalidDocumentError) as err:
        suite_from_document(_suite({"scenario_id": "a", "input": {}, "expected": {}}),
                            source="s.json")
    assert str(err.value).startswith("s.json: $.cases[0].expected")


def test_environment_keys_are_closed_and_bounded(ledger):
    for bad, where in [({"max_calls": 0}, "max_calls"), ({"max_calls": 10_001}, "max_calls"),
                       ({"turns": 3}, "environment"), ({"task": ""}, "task")]:
        env = {"name": "test-ledger", "task": "pay", **bad}
        with pytest.raises(InvalidDocumentError) as err:
            suite_from_document(_suite(_case("a", **env)), source="s.json")
        assert "$.cases[0].environment" in str(err.value) and where in str(err.value)


def test_a_response_to_an_environment_case_is_read_as_an_outcome(ledger):
    case = suite_from_document(_suite(_case("a", name="test-ledger", task="pay"))).cases[0]
    assert normalize_response({"outcome": "paid", "tool_calls": [{"name": "x"}]}, case) == {
        "outcome": "paid", "actions_attempted": [], "actions_executed": [], "submitted": True}
    # no expected outcome, so none is required (the environment's scorer gets no final answer)
    assert normalize_response({}, case) == {
        "actions_attempted": [], "actions_executed": [], "submitted": True}
    with pytest.raises(ResponseError):
        normalize_response({"outcome": ""}, case)


# -- request 1.1 ---------------------------------------------------------------------------

@attrs.frozen
class _Channel:  # the shape of aau_adapters._mcp's UnitChannel that build_request reads
    url: str
    token: str
    max_calls: int


def test_a_request_without_mcp_is_the_exact_1_0_bytes():
    case = suite_from_document(_suite({"scenario_id": "r-1", "input": {"q": "caf\u00e9"},
                                       "expected": {"outcome": "ok"}})).cases[0]
    request = build_request("ledger", case)
    assert list(request) == ["protocol_version", "suite_id", "scenario_id", "input"]
    assert encode_request(request) == (
        b'{"protocol_version": "aau-byo-agent-request/1.0", "suite_id": "ledger", '
        b'"scenario_id": "r-1", "input": {"q": "caf\\u00e9"}}\n')
    assert request_model("ledger", case).mcp is None
    aau_schemas.validate("adapter-request", request)
    old = json.loads((SCHEMA_ROOT / "adapter/v1/examples/valid/request-byo-agent-route-001.json")
                     .read_text(encoding="utf-8"))
    assert aau_schemas.detect_kind(old) == "adapter-request"
    assert aau_schemas.is_valid("adapter-request", old)


def test_a_request_with_mcp_is_1_1_in_wire_order(ledger):
    case = suite_from_document(_suite(_case("a", name="test-ledger", task="pay",
                                            options={"currency": "EUR"}, max_calls=5))).cases[0]
    channel = _Channel(url="http://127.0.0.1:40001/units/u1/mcp",
                       token="tok_0123456789abcdefXYZ", max_calls=case.environment.max_calls)
    request = build_request("ledger", case, mcp=channel)
    assert request == {
        "protocol_version": REQUEST_VERSION_1_1, "suite_id": "ledger", "scenario_id": "a",
        "input": case.input,
        "mcp": {"url": "http://127.0.0.1:40001/units/u1/mcp", "transport": "streamable-http",
                "bearer_token": "tok_0123456789abcdefXYZ", "max_calls": 5}}
    assert list(request) == ["protocol_version", "suite_id", "scenario_id", "input", "mcp"]
    assert list(request["mcp"]) == ["url", "transport", "bearer_token", "max_calls"]
    wire = encode_request(request).decode("ascii")
    # the environment's task id and options never reach the agent
    assert "pay" not in wire.replace("Pay the rent", "") and "EUR" not in wire
    aau_schemas.validate("adapter-request", request)
    model = structure_document("adapter-request", request)
    assert model == request_model("ledger", case, mcp=channel)
    assert build_request("ledger", case, mcp=model.mcp) == request
    assert isinstance(model.mcp, McpAccess)


def test_the_request_kind_accepts_both_versions_and_ties_mcp_to_1_1():
    base = {"protocol_version": REQUEST_VERSION, "suite_id": "s", "scenario_id": "a",
            "input": {}}
    mcp = {"url": "http://127.0.0.1:1/units/u/mcp", "transport": "streamable-http",
           "bearer_token": "0123456789abcdef", "max_calls": 1}
    assert aau_schemas.is_valid("adapter-request", base)
    assert aau_schemas.is_valid("adapter-request", {**base, "protocol_version": REQUEST_VERSION_1_1,
                                                    "mcp": mcp})
    assert not aau_schemas.is_valid("adapter-request", {**base, "mcp": mcp})
    assert not aau_schemas.is_valid("adapter-request",
                                    {**base, "protocol_version": REQUEST_VERSION_1_1})
    assert aau_schemas.detect_kind({**base, "protocol_version": REQUEST_VERSION_1_1,
                                    "mcp": mcp}) == "adapter-request"
