"""The mock adapter: a protocol self-test that answers every case with its expected outcome and,
for a case that expects tool calls, those calls (per argument the first acceptable value that is
not ``""``; ``aau_core.example_calls``), in the expected order.

It is the only adapter that sees the expected answer, and every receipt it produces says
``adapter_kind: "mock"``, so a mock score can never pass for an agent's score.
"""

from __future__ import annotations

from typing import Any

from aau_core import example_calls

from ._adapter import AdapterAnswer
from ._suite import Case


class MockAdapter:
    """Answers ``{"outcome": <expected>, "actions_attempted": [], "actions_executed": [],
    "submitted": true}`` with latency 0.0 s, plus ``"tool_calls"`` when the case expects calls
    (and without ``"outcome"`` when the case expects none)."""

    kind = "mock"

    def __init__(self) -> None:
        # one shared (never mutated) answer per distinct outcome keeps huge runs small
        self._answers: dict[str, AdapterAnswer] = {}

    def invoke(self, request: dict[str, Any], case: Case) -> AdapterAnswer:
        """Return the expected outcome (and calls) for ``case``; ``request`` is ignored."""
        if case.expects_tool_calls:
            response: dict[str, Any] = {
                "actions_attempted": [], "actions_executed": [], "submitted": True,
                "tool_calls": example_calls(case.expected_tool_calls or []),
            }
            if case.expected_outcome is not None:
                response["outcome"] = case.expected_outcome
            return AdapterAnswer(response=response, error=None, latency_s=0.0)
        answer = self._answers.get(case.expected_outcome or "")
        if answer is None:
            answer = AdapterAnswer(
                response={
                    "outcome": case.expected_outcome,
                    "actions_attempted": [],
                    "actions_executed": [],
                    "submitted": True,
                },
                error=None,
                latency_s=0.0,
            )
            self._answers[case.expected_outcome or ""] = answer
        return answer

    def describe(self) -> dict[str, Any]:
        """Return ``{"kind": "mock"}``."""
        return {"kind": "mock"}

    def cancel(self) -> None:
        """Nothing runs in the background."""

    def close(self) -> None:
        """Nothing to release."""
