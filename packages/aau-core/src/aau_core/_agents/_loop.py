"""The tool-using agent loop: turn-taking, usage accounting, refusal and no-submission paths.

A use case supplies the domain — a system prompt, tool schemas, a tool executor and the name of
its terminal *submit* tool — and ``run_tool_agent`` drives any backend until the model submits,
refuses, stops calling tools, or runs out of turns.

The conversation uses Anthropic's message shape, whatever the backend (OpenAI-compatible backends
translate it on every call)::

    {"role": "user", "content": "<user message>"}
    {"role": "assistant", "content": [<blocks of the model's answer, as the backend returned them>]}
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "<id>", "content": "<str>"}]}

A backend is anything with ``create(system, messages, tools) -> response`` where ``response`` has
``content`` (blocks with ``type``: ``"text"`` + ``text``, or ``"tool_use"`` + ``id``, ``name``,
``input``), ``stop_reason`` and ``usage`` (token counts, see ``CostTracker.add_usage``); mock
backends build responses from ``Block`` and ``MockUsage``. Tool schemas are Anthropic tool
definitions: ``{"name", "description", "input_schema"}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import attrs

from ._cost import CostTracker

NO_SUBMISSION_ERROR = "ended turn without submitting a decision"
"""``AgentRun.error`` when the model answers without calling any tool."""


def turn_limit_error(max_turns: int) -> str:
    """``AgentRun.error`` when ``max_turns`` turns pass without a submission."""
    return f"no submission within {max_turns} turns"


class Block:
    """An attribute bag standing for one content block (or a whole response) in mock backends.

    ``Block(type="tool_use", id="t1", name="lookup", input={"q": 1})`` has those attributes, as an
    SDK block would. Two blocks are equal when their attributes are.
    """

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"Block({inner})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Block) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]


@attrs.define
class MockUsage:
    """Token usage of one mock API call; the cache counts are always 0."""

    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int = attrs.field(default=0, init=False)
    cache_read_input_tokens: int = attrs.field(default=0, init=False)


class Backend(Protocol):
    """What ``run_tool_agent`` needs from a backend (see the module docstring for shapes)."""

    def create(
        self, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> Any:
        """Return the model's next response to the conversation so far."""
        ...


@attrs.define
class AgentRun:
    """How one agent run ended.

    Attributes:
        submitted: the model called the submit tool.
        submission: that call's input (a dict), else ``None``.
        n_turns: model calls made (1-based turn of the last one).
        tool_calls: every tool call in order, ``{"name": str, "input": dict}``, the submit call
            included.
        refused: the model refused (``stop_reason == "refusal"``).
        error: why nothing was submitted — ``NO_SUBMISSION_ERROR`` or ``turn_limit_error(n)`` —
            else ``None``. A refusal has no error.
    """

    submitted: bool
    submission: dict[str, Any] | None
    n_turns: int
    tool_calls: list[dict[str, Any]] = attrs.field(factory=list)
    refused: bool = False
    error: str | None = None


def run_tool_agent(
    backend: Backend,
    system_prompt: str,
    tool_schemas: list[dict[str, Any]],
    user_message: str,
    execute_tool: Callable[[str, dict[str, Any]], str],
    submit_tool: str,
    cost: CostTracker,
    max_turns: int = 8,
) -> AgentRun:
    """Run the model with tools until it submits, refuses, stops calling tools, or runs out of turns.

    Each turn: ask the backend; add its usage to ``cost``; then

    - ``stop_reason == "refusal"`` -> ``AgentRun(submitted=False, refused=True)``;
    - no ``tool_use`` block -> not submitted, ``error = NO_SUBMISSION_ERROR``;
    - otherwise the assistant turn is appended and each tool use recorded in order; a call to
      ``submit_tool`` ends the run as submitted with its input (later tool uses of the same turn
      are neither run nor recorded); any other tool runs through ``execute_tool(name, input)`` and
      its string result goes back as a ``tool_result``.

    After ``max_turns`` turns without a submission: not submitted, ``error =
    turn_limit_error(max_turns)``. Semantics as aau-harness 1.6 ``run_tool_agent``.

    Args:
        backend: see ``Backend``.
        system_prompt: the system prompt, sent every turn.
        tool_schemas: Anthropic tool definitions, the submit tool among them.
        user_message: the first user turn.
        execute_tool: runs a non-submit tool; must return a string.
        submit_tool: the name of the terminal tool.
        cost: accumulates every turn's usage (one ``api_calls`` per turn).
        max_turns: most model calls (>= 1).

    Raises:
        ValueError: ``max_turns < 1``.
        TypeError: ``execute_tool`` returned something other than a string.
        whatever the backend raises (e.g. ``ProviderError``) — the caller records it as the
        run's error.
    """
    if max_turns < 1:
        raise ValueError(f"max_turns must be >= 1, got {max_turns!r}")
    messages: list[dict[str, Any]] = [{"role": "user", "content": user_message}]
    calls: list[dict[str, Any]] = []
    for turn in range(1, max_turns + 1):
        response = backend.create(system_prompt, messages, tool_schemas)
        cost.add_usage(getattr(response, "usage", None))
        if getattr(response, "stop_reason", None) == "refusal":
            return AgentRun(False, None, turn, calls, refused=True)
        content = list(getattr(response, "content", None) or [])
        tool_uses = [b for b in content if getattr(b, "type", None) == "tool_use"]
        if not tool_uses:
            return AgentRun(False, None, turn, calls, error=NO_SUBMISSION_ERROR)
        messages.append({"role": "assistant", "content": content})
        results: list[dict[str, Any]] = []
        for use in tool_uses:
            calls.append({"name": use.name, "input": use.input})
            if use.name == submit_tool:
                return AgentRun(True, use.input, turn, calls)
            output = execute_tool(use.name, use.input)
            if not isinstance(output, str):
                raise TypeError(
                    f"execute_tool({use.name!r}, ...) must return a str, "
                    f"got {type(output).__name__}"
                )
            results.append({"type": "tool_result", "tool_use_id": use.id, "content": output})
        messages.append({"role": "user", "content": results})
    return AgentRun(False, None, max_turns, calls, error=turn_limit_error(max_turns))
