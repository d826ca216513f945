"""The mock judge: what ``aau review judge --backend mock`` talks to (deterministic, offline).

It answers ``judge_message``'s question by a fixed rule, as the reply a model would write (one
JSON object as text, read by the same ``parse_reply`` as any judge):

- the unit has a failure code (``error``) -> ``fail``, category ``wrong-outcome`` when the pack
  declares it;
- the agent made no tool call -> ``fail``, category ``missing-call`` when declared;
- otherwise -> ``pass``.

Its usage counts are the characters of the prompt and the message, and of the reply, over 4 (a
stand-in for tokens); the model is ``mock`` unless named, whose shipped price is $0.
"""

from __future__ import annotations

import json
from typing import Any

from aau_core import Block, MockUsage

MOCK_JUDGE_MODEL = "mock"


class MockJudgeBackend:
    """A deterministic judge backend with the backend interface (``create``, ``model``,
    ``served_model``).

    Args:
        model: the model id it reports (default ``"mock"``).
    """

    def __init__(self, model: str | None = None) -> None:
        self.model = model or MOCK_JUDGE_MODEL
        self.served_model: str | None = self.model

    def create(self, system: str, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]]) -> Any:
        """Answer the last user message (a ``judge_message``) by the module docstring's rule.

        Returns:
            a ``Block`` with ``content`` (one text block), ``stop_reason``, ``usage``, ``model``.
        """
        asked = json.loads(messages[-1]["content"])
        unit = asked["unit"]
        declared = {c["id"] for c in asked["categories"]}
        if unit.get("error"):
            verdict, category = "fail", "wrong-outcome"
        elif not (unit.get("response") or {}).get("tool_calls"):
            verdict, category = "fail", "missing-call"
        else:
            verdict, category = "pass", None
        reply = json.dumps({"verdict": verdict,
                            "categories": [category] if category in declared else []})
        return Block(content=[Block(type="text", text=reply)], stop_reason="end_turn",
                     usage=MockUsage(input_tokens=(len(system) + len(messages[-1]["content"]))
                                     // 4, output_tokens=len(reply) // 4),
                     model=self.model)
