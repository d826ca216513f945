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

import copy
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs

from ._cost import CostTracker

NO_SUBMISSION_ERROR = "ended turn without submitting a decision"
"""``AgentRun.error`` when the model answers without calling any tool."""


OUTPUT_LIMIT_STOPS = frozenset({"length", "max_tokens", "model_context_window_exceeded"})
"""Stop reasons that mean the reply was cut by a token limit, not ended by the model: OpenAI's
``finish_reason`` ``"length"``, Anthropic's ``stop_reason`` ``"max_tokens"`` and
``"model_context_window_exceeded"``."""

OUTPUT_LIMIT_ERROR = "reply cut at the token limit before a decision was submitted"
"""``AgentRun.error`` when the model's last reply has no tool call and was cut by a token limit
(``OUTPUT_LIMIT_STOPS``): the run's setting ended it, which ``NO_SUBMISSION_ERROR`` would
blame on the model."""


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
        tool_calls: every tool call in order, the submit call included: ``{"name": str,
            "input": dict, "id": <the provider's id, as sent: maybe None or "">}``, plus
            ``"sent_id"`` when the loop gave the call another id (``unique_tool_ids``),
            ``"input_error"`` when the backend refused its arguments (the decoder's reason;
            ``input`` is then ``{"_unparseable": raw}``) and ``"input_recovered"`` when they
            were read with the decoder's one recovery.
        refused: the model refused (``stop_reason == "refusal"``).
        error: why nothing was submitted — ``NO_SUBMISSION_ERROR``, ``OUTPUT_LIMIT_ERROR`` or
            ``turn_limit_error(n)`` — else ``None``. A refusal has no error.
        cut_turns: the 1-based turns whose reply stopped at a token limit
            (``OUTPUT_LIMIT_STOPS``), in order; a tool call in such a turn may carry cut
            arguments, so a submission made in one is suspect.
    """

    submitted: bool
    submission: dict[str, Any] | None
    n_turns: int
    tool_calls: list[dict[str, Any]] = attrs.field(factory=list)
    refused: bool = False
    error: str | None = None
    cut_turns: list[int] = attrs.field(factory=list)


def unique_tool_ids(ids: Sequence[Any], turn: int) -> list[str]:
    """The ids one model turn's tool calls go back to the model with: unique, deterministic.

    The first call with a given non-empty string id keeps it; a later call with the same id gets
    ``<id>-<k>`` (``call_0``, ``call_0`` -> ``call_0``, ``call_0-2``); a call without one (``None``,
    ``""``, not a string) gets ``aau_call_<turn>_<position>`` (1-based). A made-up id never takes
    one the provider gave another call of the turn (``k`` counts on past it). Only letters,
    digits, ``_`` and ``-`` are added, which Anthropic's id pattern allows.

    Args:
        ids: the provider's ids, in the turn's order.
        turn: the 1-based turn number.

    Returns:
        one id per call, in order, all distinct.
    """
    given = [i if isinstance(i, str) and i else None for i in ids]
    taken = {i for i in given if i is not None}
    seen: set[str] = set()
    out: list[str] = []
    for position, original in enumerate(given, start=1):
        if original is not None and original not in seen:
            new = original
        else:
            base = original if original is not None else f"aau_call_{turn}_{position}"
            new, k = base, 1
            while new in taken or new in seen:
                k += 1
                new = f"{base}-{k}"
        seen.add(new)
        out.append(new)
    return out


def _with_id(block: Any, new_id: str) -> Any:
    """A copy of a ``tool_use`` block (``Block``, SDK model, dict or plain object) with ``id``."""
    if isinstance(block, dict):
        return {**block, "id": new_id}
    if isinstance(block, Block):
        return Block(**{**vars(block), "id": new_id})
    model_copy = getattr(block, "model_copy", None)
    if callable(model_copy):  # the SDKs' pydantic models
        return model_copy(update={"id": new_id})
    twin = copy.copy(block)
    twin.id = new_id
    return twin


def _call_record(use: Any, sent_id: str) -> dict[str, Any]:
    """``AgentRun.tool_calls``' record of ``use`` (the block as the backend returned it)."""
    original = getattr(use, "id", None)
    record = {"name": use.name, "input": use.input, "id": original}
    if sent_id != original:
        record["sent_id"] = sent_id
    for flag in ("input_error", "input_recovered"):
        if getattr(use, flag, None):
            record[flag] = getattr(use, flag)
    return record


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
    - no ``tool_use`` block -> not submitted, ``error = NO_SUBMISSION_ERROR``, or
      ``OUTPUT_LIMIT_ERROR`` when that reply stopped at a token limit;
    - a reply that stopped at a token limit (``OUTPUT_LIMIT_STOPS``) has its turn listed in
      ``cut_turns``, whatever it holds;
    - otherwise the tool uses get unique ids (``unique_tool_ids``: duplicate or missing ids are
      replaced in the assistant turn sent back, so every ``tool_result`` pairs with its own
      call; ``tool_calls`` keeps the provider's ids), the assistant turn is appended and each
      tool use recorded in order; a call to
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
    cut: list[int] = []
    for turn in range(1, max_turns + 1):
        response = backend.create(system_prompt, messages, tool_schemas)
        cost.add_usage(getattr(response, "usage", None))
        stop = getattr(response, "stop_reason", None)
        if stop == "refusal":
            return AgentRun(False, None, turn, calls, refused=True, cut_turns=cut)
        if stop in OUTPUT_LIMIT_STOPS:
            cut.append(turn)
        content = list(getattr(response, "content", None) or [])
        places = [n for n, b in enumerate(content) if getattr(b, "type", None) == "tool_use"]
        if not places:
            error = OUTPUT_LIMIT_ERROR if stop in OUTPUT_LIMIT_STOPS else NO_SUBMISSION_ERROR
            return AgentRun(False, None, turn, calls, error=error, cut_turns=cut)
        tool_uses = [content[n] for n in places]
        sent_ids = unique_tool_ids([getattr(use, "id", None) for use in tool_uses], turn)
        for n, use, sent_id in zip(places, tool_uses, sent_ids, strict=True):
            if sent_id != getattr(use, "id", None):
                content[n] = _with_id(use, sent_id)
        messages.append({"role": "assistant", "content": content})
        results: list[dict[str, Any]] = []
        for use, sent_id in zip(tool_uses, sent_ids, strict=True):
            calls.append(_call_record(use, sent_id))
            if use.name == submit_tool:
                return AgentRun(True, use.input, turn, calls, cut_turns=cut)
            output = execute_tool(use.name, use.input)
            if not isinstance(output, str):
                raise TypeError(
                    f"execute_tool({use.name!r}, ...) must return a str, "
                    f"got {type(output).__name__}"
                )
            results.append({"type": "tool_result", "tool_use_id": sent_id, "content": output})
        messages.append({"role": "user", "content": results})
    return AgentRun(False, None, max_turns, calls, error=turn_limit_error(max_turns),
                    cut_turns=cut)
