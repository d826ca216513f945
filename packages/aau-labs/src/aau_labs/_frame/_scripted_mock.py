"""The labs' scripted mock backends: what they read from a conversation and how they answer.

The decision-gate, contract and evidence-service mocks (``GateMockBackend``,
``ContractMockBackend``, ``ServiceMockBackend``) are ``ScriptedMockBackend`` subclasses: each
turn they make exactly one tool call, chosen from the turn number, the ids in the case text
(``find_prefixed_id``) and the case record and evidence registry (or vault) their earlier tool
calls returned (``tool_results``), and report a fixed token usage per turn (aau-harness 1.6's
figures, so a mock run has a known, nonzero price).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from aau_core import Block, MockUsage


class ScriptedMockBackend:
    """A ``run_tool_agent`` backend whose every reply is one ``tool_use`` block.

    A subclass sets the class attributes and implements ``next_call``; ``create`` counts the
    assistant turns so far (``turn``, 0-based), asks ``next_call(turn, messages)`` for the call
    and answers it as a ``Block`` with ``stop_reason="tool_use"``, block id
    ``f"{BLOCK_ID_PREFIX}{turn}"`` and usage ``INPUT_TOKENS + INPUT_TOKENS_PER_TURN * turn``
    input tokens and ``OUTPUT_TOKENS`` output tokens.

    Attributes:
        name, model: ``"mock"`` (priced by aau's pricing table as the mock).
    """

    name = "mock"
    model = "mock"
    BLOCK_ID_PREFIX: ClassVar[str]
    INPUT_TOKENS: ClassVar[int]
    INPUT_TOKENS_PER_TURN: ClassVar[int]
    OUTPUT_TOKENS: ClassVar[int]

    def next_call(self, turn: int, messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        """``(tool name, tool input)`` of turn ``turn`` (0-based) given the conversation (each lab's
        mock defines it)."""
        raise NotImplementedError

    def create(self, system: str, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]]) -> Block:
        """The next scripted turn: one ``tool_use`` block (the class docstring)."""
        turn = sum(1 for message in messages if message["role"] == "assistant")
        name, payload = self.next_call(turn, messages)
        return Block(
            content=[Block(type="tool_use", id=f"{self.BLOCK_ID_PREFIX}{turn}", name=name,
                           input=payload)],
            stop_reason="tool_use",
            usage=MockUsage(input_tokens=self.INPUT_TOKENS + self.INPUT_TOKENS_PER_TURN * turn,
                            output_tokens=self.OUTPUT_TOKENS),
        )


def find_prefixed_id(text: str, prefix: str) -> str:
    """The first whitespace-separated token of ``text`` that starts with ``"<prefix>-"``.

    Commas and full stops separate tokens; quotes, ``?!;:`` and parentheses around a token are
    stripped. Returns ``"<prefix>-UNKNOWN"`` when no token matches.
    """
    for raw in text.replace(",", " ").replace(".", " ").split():
        token = raw.strip("'\"?!;:()")
        if token.startswith(prefix + "-"):
            return token
    return f"{prefix}-UNKNOWN"


def tool_results(messages: list[dict[str, Any]],
                 record_key: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The case record and the evidence registry (or vault) among the tool results so far.

    Reads every ``tool_result`` block of the user messages (``run_tool_agent``'s shape) whose
    content is a JSON object: one with ``record_key`` (e.g. ``"gate_states"``) is the record,
    one with ``"held_evidence"`` the registry; a later one replaces an earlier one. Blocks that
    are not JSON objects are skipped.

    Returns:
        ``(record, registry)``, each ``{}`` when absent.
    """
    record: dict[str, Any] = {}
    registry: dict[str, Any] = {}
    for message in messages:
        if message["role"] != "user" or not isinstance(message["content"], list):
            continue
        for block in message["content"]:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            try:
                data = json.loads(block["content"])
            except (KeyError, TypeError, ValueError):
                continue
            if isinstance(data, dict) and record_key in data:
                record = data
            elif isinstance(data, dict) and "held_evidence" in data:
                registry = data
    return record, registry


__all__ = ["ScriptedMockBackend", "find_prefixed_id", "tool_results"]
