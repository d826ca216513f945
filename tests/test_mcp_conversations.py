"""τ² mock tasks as conversations over MCP, end to end: ``aau import tau2 --environment
--conversation`` (the task's user scenario becomes a model user), the example replay agent
(``examples/agents/mcp_replay_agent.py``, which reads request 1.2 and answers on its first
turn) as a command, and the model user played by a scripted mock backend through
``run_evaluation(user_backend=...)``; the tau2-mock environment's verdict on every task,
the user's usage apart from the agent's, receipts validated against their schemas."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
REPLAY_AGENT = REPO / "examples" / "agents" / "mcp_replay_agent.py"
TAU2 = REPO.parent / "shared" / "datasets" / "tau2"


class _UserModel:
    """The user model: opens every conversation with the same line; 7 input, 2 output tokens."""

    def __init__(self) -> None:
        self.calls = 0

    def create(self, system: str, messages: list[dict[str, Any]], tools: list[Any]) -> Any:
        from aau_core import Block, MockUsage

        self.calls += 1
        assert "Instructions:" in system and tools == []
        return Block(content=[Block(type="text", text="Hi, I need help with my tasks.")],
                     usage=MockUsage(7, 2))


def _evaluate(suite: Path, argv: list[str], tmp_path: Path,
              **options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """``run_evaluation`` with a command agent; ``(receipt, private receipt)``, both validated
    against their schemas and the receipt checked."""
    from aau_adapters import CommandAdapter, check_receipt, run_evaluation
    from aau_schemas import validate

    run_evaluation(str(suite), CommandAdapter(argv, 60.0), timeout_s=60.0,
                   out=str(tmp_path / "r.json"), private_out=str(tmp_path / "p.json"),
                   no_store=True, **options)
    public = json.loads((tmp_path / "r.json").read_text())
    private = json.loads((tmp_path / "p.json").read_text())
    validate("receipt-v2", public, source="r.json")
    validate("private-receipt-v2", private, source="p.json")
    assert check_receipt(public) == []
    return public, private


def test_imported_tau2_mock_conversations_pass_with_the_replay_agent(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    if not (TAU2 / "tau2_mock_tasks.json").is_file():
        pytest.skip("the tau2 data live in ../shared/datasets/tau2, beside the repository")
    from aau_adapters import import_tau2
    from aau_schemas import validate

    doc = import_tau2(TAU2, "mock", environment=True, conversation=True)
    validate("suite-v3", doc, source="suite")
    cases = doc["cases"]
    assert cases and all(c["user"]["kind"] == "model" for c in cases)
    assert all(m["role"] == "system" or m["content"].startswith("Earlier")
               for c in cases for m in c["input"]["messages"])  # the ticket is the user's now
    suite = tmp_path / "tau2-mock-conversations.json"
    suite.write_text(json.dumps(doc), encoding="utf-8")
    model = _UserModel()
    argv = [sys.executable, str(REPLAY_AGENT), "--suite", str(suite)]
    public, private = _evaluate(suite, argv, tmp_path, user_backend=lambda: (model, None))
    assert [r["environment_passed"] for r in public["results"]] == [True] * len(cases)
    assert model.calls == len(cases)  # one opening per conversation, no reply needed
    for row in private["results"]:
        conv = row["conversation"]
        assert conv["user_kind"] == "model"
        assert conv["user_usage"] == {"input_tokens": 7, "output_tokens": 2, "cost_usd": None}
        assert [t["role"] for t in conv["turns"]] == ["user", "agent"]
        assert conv["turns"][1]["final"] is True


def test_the_replay_agent_asks_first_and_a_scripted_user_answers(tmp_path: Path) -> None:
    """``--ask-first``: one live process per unit, two turns, scripted user (CI-deterministic)."""
    pytest.importorskip("mcp")
    if not (TAU2 / "tau2_mock_tasks.json").is_file():
        pytest.skip("the tau2 data live in ../shared/datasets/tau2, beside the repository")
    from aau_adapters import import_tau2

    doc = import_tau2(TAU2, "mock", environment=True, conversation=True, limit=2)
    for case in doc["cases"]:
        case["user"] = {"kind": "scripted", "messages": ["Please do my task.", "No, that's all."],
                        "max_turns": 3}
    suite = tmp_path / "scripted.json"
    suite.write_text(json.dumps(doc), encoding="utf-8")
    argv = [sys.executable, str(REPLAY_AGENT), "--suite", str(suite), "--ask-first"]
    public, private = _evaluate(suite, argv, tmp_path)
    assert all(r["environment_passed"] and r["failure_codes"] == [] for r in public["results"])
    for row in private["results"]:
        turns = row["conversation"]["turns"]
        assert [t["content"] for t in turns[:3]] == [
            "Please do my task.", "Before I start: is there anything else I should know?",
            "No, that's all."]
        assert turns[3]["final"] is True


MCP_AGENT = REPO / "examples" / "agents" / "mcp_agent.py"


def test_the_mcp_agent_asks_the_user_through_its_tool_and_stops_when_the_user_does(
        tmp_path: Path) -> None:
    """``mcp_agent.py`` in command mode: the model's ``ask_user`` call is a turn
    (``message_to_user``), the user's reply is that call's result, the process stays alive; a
    user with nothing more to say ends the unit ``user-stopped`` and the agent exits 0."""
    pytest.importorskip("mcp")
    if not (TAU2 / "tau2_mock_tasks.json").is_file():
        pytest.skip("the tau2 data live in ../shared/datasets/tau2, beside the repository")
    from aau_adapters import import_tau2

    doc = import_tau2(TAU2, "mock", environment=True, conversation=True)
    by_id = {c["scenario_id"]: c for c in doc["cases"]}
    talks, stops = by_id["create_task_1"], dict(by_id["create_task_1"], scenario_id="create_task_1_stops")
    talks["user"] = {"kind": "scripted", "max_turns": 4, "messages": [
        "I need a task for a meeting.", "Call it 'Important Meeting'; I am user_1."]}
    stops["user"] = {"kind": "scripted", "max_turns": 4,
                     "messages": ["I need a task for a meeting."]}
    doc["cases"] = [talks, stops]
    suite = tmp_path / "asks.json"
    suite.write_text(json.dumps(doc), encoding="utf-8")
    calls = [{"name": "ask_user", "arguments": {"message": "What is it called, and who are you?"}},
             {"name": "create_task", "arguments": {"user_id": "user_1",
                                                   "title": "Important Meeting"}}]
    argv = [sys.executable, str(MCP_AGENT), "--backend", "mock", "--mock-calls",
            json.dumps(calls), "--mock-answer", "Created 'Important Meeting'."]
    public, private = _evaluate(suite, argv, tmp_path)
    rows = {r["scenario_id"]: r for r in public["results"]}
    assert rows["create_task_1"]["environment_passed"] is True
    assert rows["create_task_1"]["failure_codes"] == []
    assert "user-stopped" in rows["create_task_1_stops"]["failure_codes"]
    assert rows["create_task_1_stops"]["environment_passed"] is False
    turns = {r["scenario_id"]: r["conversation"]["turns"] for r in private["results"]}
    assert [(t["role"], t["content"]) for t in turns["create_task_1"]] == [
        ("user", "I need a task for a meeting."),
        ("agent", "What is it called, and who are you?"),
        ("user", "Call it 'Important Meeting'; I am user_1."),
        ("agent", "Created 'Important Meeting'.")]
    assert turns["create_task_1"][-1]["final"] is True
    assert [t["role"] for t in turns["create_task_1_stops"]] == ["user", "agent"]
    observed = {r["scenario_id"]: [c["name"] for c in r["trajectory"]]
                for r in private["results"]}
    assert observed["create_task_1"] == ["create_task"]  # ask_user never reaches the server
    assert observed["create_task_1_stops"] == []
