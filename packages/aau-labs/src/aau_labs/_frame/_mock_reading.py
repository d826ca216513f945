"""What the labs' scripted mock backends read from a conversation: ids in the case text and the
JSON tool results returned so far.

The decision-gate, contract and evidence-service mocks (``GateMockBackend``,
``ContractMockBackend``, ``ServiceMockBackend``) decide each turn from the case record and the
evidence registry (or vault) their earlier tool calls returned; these helpers find them.
"""

from __future__ import annotations

import json
from typing import Any


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


__all__ = ["find_prefixed_id", "tool_results"]
