"""The ground-truth replay backend of ``aau bench agentdojo --mock-ground-truth``.

A scripted backend (no model, no network) that answers each AgentDojo task the way AgentDojo's
own ``GroundTruthPipeline`` does: the task's ground-truth calls one per turn, in order, then the
task's ``GROUND_TRUTH_OUTPUT`` as a plain text answer. It goes through the same agent loop,
tool session and scorer as a real model, so a replay that does not score every task exposes a
problem in aau's side of the bench (tool execution, argument passing, output capture, scoring),
not in a model.

It is stateless: which task a conversation belongs to is read from its first user message (the
task's prompt), and the turn from the number of assistant messages so far, so one backend serves
every task and every repeat, concurrently too.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from aau_core import Block, MockUsage


class GroundTruthReplay:
    """Replays scripted tool calls, then a text answer, per task prompt.

    Args:
        scripts: task prompt -> ``(calls, answer)``; ``calls`` is ``[{"name", "arguments"}]``
            (emitted one per turn, arguments deep-copied), ``answer`` the final text.

    Attributes:
        name, model: ``"mock"`` (priced at zero; the provenance of a mock run).

    Usage per turn is 0 input and 0 output tokens: a replay costs nothing.
    """

    name = "mock"
    model = "mock"

    def __init__(self, scripts: Mapping[str, tuple[Sequence[Mapping[str, Any]], str]]) -> None:
        self._scripts = dict(scripts)

    def create(self, system: str, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]]) -> Block:
        """The next scripted turn of the conversation ``messages`` (class docstring).

        Raises:
            KeyError: the first user message is not a scripted prompt.
        """
        prompt = messages[0]["content"]
        if not isinstance(prompt, str) or prompt not in self._scripts:
            raise KeyError(f"no ground-truth script for the prompt {str(prompt)[:60]!r}")
        calls, answer = self._scripts[prompt]
        turn = sum(m["role"] == "assistant" for m in messages)
        usage = MockUsage(input_tokens=0, output_tokens=0)
        if turn < len(calls):
            call = calls[turn]
            return Block(content=[Block(type="tool_use", id=f"gt{turn}", name=call["name"],
                                        input=copy.deepcopy(dict(call["arguments"])))],
                         stop_reason="tool_use", usage=usage)
        return Block(content=[Block(type="text", text=answer)], stop_reason="end_turn",
                     usage=usage)


__all__ = ["GroundTruthReplay"]
