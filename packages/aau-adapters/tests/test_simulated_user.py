"""Simulated users and the conversation loop without a network: a scripted user, a model user
through aau's mock backend (its usage apart from the agent's, tau2-bench's stop token), a user
backend that fails (infrastructure, not the agent's failure), and request 1.2 on the wire
(1.0 and 1.1 keep their exact bytes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from aau_adapters import (
    AdapterAnswer,
    Case,
    CaseEnvironment,
    CaseUser,
    ConversationTurn,
    McpAccess,
    ScriptedUser,
    build_request,
    converse,
    encode_request,
    run_evaluation,
)
from aau_adapters._non_measurement import EvaluationNotMeasured
from aau_core import Block, MockUsage
from aau_core._reports._coverage import failure_class, is_measured
from aau_schemas import validate

MCP = McpAccess(url="http://127.0.0.1:9/units/u1/mcp", transport="streamable-http",
                bearer_token="t" * 24, max_calls=5)


def _case(user: CaseUser) -> Case:
    return Case(index=0, scenario_id="s", input={"messages": []}, expected={},
                expected_outcome=None, forbidden_actions=[],
                environment=CaseEnvironment(name="tau2-mock", task="t"), user=user)


class _Agent:
    """Answers turns from a list; records every request."""

    kind = "mock"

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers, self.requests = list(answers), []

    def invoke(self, request: dict[str, Any], case: Case) -> AdapterAnswer:
        self.requests.append(request)
        return AdapterAnswer(self.answers.pop(0), None, 0.5)

    def describe(self) -> dict[str, Any]:
        return {"kind": "mock"}

    def cancel(self) -> None:
        pass

    def close(self) -> None:
        pass


class _Backend:
    """aau's mock-backend shape: ``create`` returns text blocks with usage, from a script."""

    def __init__(self, texts: list[str | Exception]) -> None:
        self.texts, self.calls = list(texts), []

    def create(self, system: str, messages: list[dict[str, Any]], tools: list[Any]) -> Any:
        self.calls.append((system, json.loads(json.dumps(messages)), tools))
        text = self.texts.pop(0)
        if isinstance(text, Exception):
            raise text
        return Block(content=[Block(type="text", text=text)], usage=MockUsage(10, 3))


def test_scripted_user_says_its_messages_then_stops() -> None:
    user = ScriptedUser(["a", "b"])
    assert (user.opening(), user.reply([]), user.reply([])) == ("a", "b", None)
    with pytest.raises(ValueError):
        ScriptedUser([])


def test_a_model_user_follows_its_scenario_and_its_cost_is_its_own() -> None:
    backend = _Backend(["I need a task created.", "user_1", "Thanks! ###STOP###"])
    spec = CaseUser(kind="model", max_turns=5, instructions="You are user_1.")
    agent = _Agent([{"message_to_user": "Your user id?"}, {"message_to_user": "Done. More?"}])
    conv = converse("suite", _case(spec), agent, MCP, lambda: (backend, None))
    assert conv.answer.error == "user-stopped"
    assert [t["content"] for t in conv.turns] == ["I need a task created.", "Your user id?",
                                                   "user_1", "Done. More?"]
    assert conv.user_usage == {"input_tokens": 30, "output_tokens": 9, "cost_usd": None}
    system, messages, tools = backend.calls[1]
    assert "You are user_1." in system and tools == []
    # roles flipped for the model: the agent speaks as "user", the simulated user as "assistant"
    assert messages[-2:] == [{"role": "assistant", "content": "I need a task created."},
                             {"role": "user", "content": "Your user id?"}]
    assert [r["conversation"]["user_message"] for r in agent.requests] == [
        "I need a task created.", "user_1"]
    assert len({r["conversation"]["conversation_id"] for r in agent.requests}) == 1


@pytest.mark.parametrize("texts", [[RuntimeError("HTTP 503 from local")],
                                   ["hello", RuntimeError("connection reset")], [""]])
def test_a_failing_user_backend_is_infrastructure(texts: list[Any]) -> None:
    spec = CaseUser(kind="model", max_turns=5, instructions="You are user_1.")
    agent = _Agent([{"message_to_user": "Hi?"}])
    conv = converse("suite", _case(spec), agent, MCP, lambda: (_Backend(texts), None))
    assert conv.answer.error == "user-simulator-unavailable"
    assert failure_class(conv.answer.error) == "infrastructure"
    assert not is_measured(conv.answer.error)
    assert is_measured("user-stopped") and is_measured("conversation-turn-limit")


def test_no_user_backend_chosen_is_infrastructure_too() -> None:
    spec = CaseUser(kind="model", max_turns=5, instructions="You are user_1.")
    conv = converse("suite", _case(spec), _Agent([]), MCP, None)
    assert conv.answer.error == "user-simulator-unavailable"
    assert "--user-backend" in (conv.answer.detail or "")


def test_request_1_2_on_the_wire_and_1_0_1_1_unchanged() -> None:
    user = CaseUser(kind="scripted", max_turns=2, messages=("hi",))
    case = _case(user)
    turn = ConversationTurn(conversation_id="c-0123456789abcdef", turn=1, user_message="hi")
    request = build_request("suite", case, mcp=MCP, conversation=turn)
    validate("adapter-request", request, source="request")
    assert list(request) == ["protocol_version", "suite_id", "scenario_id", "input", "mcp",
                             "conversation"]
    assert request["protocol_version"] == "aau-byo-agent-request/1.2"
    plain = attrs.evolve(case, user=None, environment=None)
    assert encode_request(build_request("suite", plain)) == (
        b'{"protocol_version": "aau-byo-agent-request/1.0", "suite_id": "suite", '
        b'"scenario_id": "s", "input": {"messages": []}}\n')
    one_one = build_request("suite", plain, mcp=MCP)
    assert one_one["protocol_version"] == "aau-byo-agent-request/1.1"
    assert "conversation" not in one_one


def test_a_turn_is_read_only_for_a_case_with_a_user() -> None:
    from aau_adapters import ResponseError, normalize_response

    user_case = _case(CaseUser(kind="scripted", max_turns=2, messages=("hi",)))
    assert normalize_response({"message_to_user": "Which?"}, user_case) == {
        "message_to_user": "Which?"}
    with pytest.raises(ResponseError, match="message_to_user"):
        normalize_response({"message_to_user": ""}, user_case)
    # a 1.1 case: the key is dropped like any extra key (no turn exists without a user)
    assert "message_to_user" not in normalize_response({"message_to_user": "Which?"},
                                                       attrs.evolve(user_case, user=None))


def test_a_run_whose_user_cannot_answer_measures_nothing(ledger_suite: Any,
                                                         tmp_path: Path) -> None:
    suite = ledger_suite([{}])
    doc = json.loads(suite.read_text())
    doc["cases"][0]["user"] = {"kind": "model", "instructions": "You are Ann.", "max_turns": 3}
    suite.write_text(json.dumps(doc))
    with pytest.raises(EvaluationNotMeasured, match="user-simulator-unavailable"):
        run_evaluation(str(suite), _Agent([]), out=str(tmp_path / "r.json"),
                       private_out=str(tmp_path / "p.json"), no_store=True)
    private = json.loads((tmp_path / "p.json").read_text())
    validate("private-receipt-v2", private, source="p.json")
    row = private["results"][0]
    assert row["error"] == "user-simulator-unavailable"
    assert row["conversation"]["turns"] == [] and row["conversation"]["user_kind"] == "model"
    lines = (tmp_path / "r.json.checkpoint.jsonl").read_text().splitlines()
    for line in lines:  # the kept checkpoint holds the unit and its code, schema-valid
        validate("checkpoint", json.loads(line), source="checkpoint")
    assert json.loads(lines[-1])["result"]["adapter_error"] == "user-simulator-unavailable"
