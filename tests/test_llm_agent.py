"""examples/agents/llm_agent.py with a scripted backend: what the model is shown, what is answered.

The model is replaced by an object with the backend interface (``create(system, messages,
tools)`` returning ``Block`` content), so these tests check the adapter's own logic: tool names
encoded for the model and decoded in the answer, BFCL type words mapped, system messages joined,
the parser's verdict turned into the response, and every response valid under the
adapter-response schema. The end-to-end path on real model output is tests/test_llm_agent_replay.py.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_core import Block, MockUsage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "agents"))

from llm_agent import DEFAULT_INSTRUCTIONS, RequestError, build_prompt, respond  # noqa: E402

FACTORIAL = {"type": "function", "function": {
    "name": "math.factorial", "description": "Calculate the factorial of a given number.",
    "parameters": {"type": "dict", "properties": {"number": {"type": "integer"}},
                   "required": ["number"]}}}
HYPOT = {"name": "math.hypot", "description": "Euclidean norm.",
         "parameters": {"type": "object", "properties": {
             "x": {"type": "float"}, "y": {"type": "float"},
             "z": {"type": "any"}, "pair": {"type": "tuple", "items": {"type": "float"}}}}}


def _request(case_input: dict[str, Any]) -> dict[str, Any]:
    return {"protocol_version": "aau-byo-agent-request/1.0", "suite_id": "s",
            "scenario_id": "c-1", "input": case_input}


class ScriptedModel:
    """Answers every call with fixed content blocks and remembers what it was shown."""

    model = "scripted"

    def __init__(self, *blocks: Block) -> None:
        self.blocks = list(blocks)
        self.seen: list[tuple[str, list, list]] = []

    def create(self, system: str, messages: list, tools: list) -> Block:
        self.seen.append((system, messages, tools))
        return Block(content=self.blocks, stop_reason="stop", usage=MockUsage(10, 5))


def _input(**extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": "What is 5 factorial?"}],
            "tools": [FACTORIAL, {"type": "function", "function": HYPOT}], **extra}


def test_prompt_encodes_names_and_maps_bfcl_types() -> None:
    system, messages, tools, names = build_prompt(_input())
    assert [t["name"] for t in tools] == ["math_factorial", "math_hypot"]
    assert names == {"math_factorial": "math.factorial", "math_hypot": "math.hypot"}
    assert tools[0]["input_schema"]["type"] == "object"
    props = tools[1]["input_schema"]["properties"]
    assert props["x"] == {"type": "number"}
    assert props["z"] == {}
    assert props["pair"] == {"type": "array", "items": {"type": "number"}}
    assert messages == [{"role": "user", "content": "What is 5 factorial?"}]
    assert system == DEFAULT_INSTRUCTIONS


def test_system_messages_and_policy_join_the_system_prompt() -> None:
    case = _input(policy="Only act for user_1.")
    case["messages"].insert(0, {"role": "system", "content": "You are a calculator."})
    system, messages, _, _ = build_prompt(case)
    assert system == f"Only act for user_1.\n\nYou are a calculator.\n\n{DEFAULT_INSTRUCTIONS}"
    assert [m["role"] for m in messages] == ["user"]


def test_tag_reply_is_decoded_to_real_names() -> None:
    model = ScriptedModel(Block(type="text", text=(
        '<tool_call>\n{"name": "math_factorial", "arguments": {"number": 5}}\n</tool_call>')))
    response, parsed = respond(_request(_input()), model)
    assert response == {"outcome": "called_tools", "actions_attempted": ["math.factorial"],
                        "actions_executed": [], "submitted": True,
                        "tool_calls": [{"name": "math.factorial", "arguments": {"number": 5}}]}
    assert parsed.source == "tags"
    aau_schemas.validate("adapter-response", response)
    # the model was shown the encoded names, the messages and the instructions
    system, messages, tools = model.seen[0]
    assert [t["name"] for t in tools] == ["math_factorial", "math_hypot"]


def test_structured_calls_and_real_names_pass_through() -> None:
    model = ScriptedModel(Block(type="tool_use", id="t1", name="math.hypot",
                                input={"x": 4, "y": 5}))
    response, parsed = respond(_request(_input()), model)
    assert response["tool_calls"] == [{"name": "math.hypot", "arguments": {"x": 4, "y": 5}}]
    assert parsed.source == "tool_calls"


def test_an_invented_function_is_kept_and_left_to_scoring() -> None:
    model = ScriptedModel(Block(type="text", text='```json\n{"name": "math_gamma", '
                                                  '"arguments": {"x": 6}}\n```'))
    response, _ = respond(_request(_input()), model)
    assert response["tool_calls"] == [{"name": "math_gamma", "arguments": {"x": 6}}]


def test_words_only_and_malformed_replies() -> None:
    words = ScriptedModel(Block(type="text", text="None of these functions can do that."))
    response, parsed = respond(_request(_input()), words)
    assert (response["outcome"], response["tool_calls"], parsed.note) == (
        "no_tool_call", [], "no tool call in the reply")
    aau_schemas.validate("adapter-response", response)
    broken = ScriptedModel(Block(type="text", text='<tool_call>{"name": "math_factorial", '
                                                   '"arguments": {"number": 5}'))
    response, parsed = respond(_request(_input()), broken)
    assert (response["outcome"], response["tool_calls"], response["actions_attempted"]) == (
        "malformed_tool_call", [], [])
    assert "never closed" in parsed.note


@pytest.mark.parametrize(("case_input", "message"), [
    ("text", "input must be an object"),
    ({"messages": [{"role": "user", "content": "hi"}]}, "input.tools must be a list"),
    ({"tools": [FACTORIAL]}, "input needs messages"),
    ({"tools": [{"type": "function", "function": {"description": "x"}}],
      "messages": [{"role": "user", "content": "hi"}]}, "needs a name"),
    ({"tools": [FACTORIAL], "messages": [{"role": "tool", "content": "x"}]},
     "is not system/user/assistant"),
    ({"tools": [FACTORIAL], "messages": [{"role": "user", "content": "a"},
                                         {"role": "assistant", "content": "b"}]},
     "must end with a user message"),
    ({"tools": [FACTORIAL, {"name": "math_factorial"}],
      "messages": [{"role": "user", "content": "a"}]}, "both encode to 'math_factorial'"),
])
def test_requests_it_does_not_understand(case_input: Any, message: str) -> None:
    with pytest.raises(RequestError, match=message):
        respond(_request(case_input), ScriptedModel())
