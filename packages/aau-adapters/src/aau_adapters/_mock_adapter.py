"""The mock adapter: a protocol self-test that answers every case with its expected outcome and,
for a case that expects tool calls, those calls (per argument the first acceptable value that is
not ``""``; ``aau_core.example_calls``), in the expected order.

For a case that names an environment (a request 1.1 with ``mcp``), it acts as an agent would:
it connects to the unit's MCP endpoint with the official ``mcp`` client (``_mock_mcp``),
makes the case's expected tool calls (first acceptable value of each argument), then answers
the expected outcome, or ``"done"`` when the case expects none. A case that expects no tool
calls (an imported AgentDojo or τ² suite: ``expected`` is ``{}``) replays its environment's
reference solution instead (``reference_solution``: AgentDojo's ground truth, τ²'s expected
actions) and answers its reference answer; an environment without one gets no calls. aau
scores what it observed of those calls, as for any agent: a mock run is a calibration run, and
an environment verdict that fails in it points at aau or the environment, not at an agent.

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
        """Return the expected outcome (and calls) for ``case``; ``request`` is read only for
        its ``mcp`` endpoint (an environment case: the calls are made there first)."""
        if "mcp" in request:
            return self._replay(request["mcp"], case)
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

    @staticmethod
    def _replay(mcp: dict[str, Any], case: Case) -> AdapterAnswer:
        from ._mock_mcp import reference_solution_of, replay_calls

        calls = example_calls(case.expected_tool_calls or [])
        answer = case.expected_outcome
        if not calls and case.environment is not None:
            from aau_core import load_environment

            env = case.environment
            attack = case.attack.environment_attack if case.attack is not None and \
                case.attack.needs_injection_support else None
            reference = reference_solution_of(load_environment(env.name), env.task, env.options,
                                              attack=attack)
            if reference is not None:
                calls = reference["calls"]
                answer = answer or reference["answer"]
        if calls:
            replay_calls(mcp, calls)
        response: dict[str, Any] = {"outcome": answer or "done",
                                    "actions_attempted": [], "actions_executed": [],
                                    "submitted": True}
        if case.expects_tool_calls:
            response["tool_calls"] = calls
        return AdapterAnswer(response=response, error=None, latency_s=0.0)

    def describe(self) -> dict[str, Any]:
        """Return ``{"kind": "mock"}``."""
        return {"kind": "mock"}

    def cancel(self) -> None:
        """Nothing runs in the background."""

    def close(self) -> None:
        """Nothing to release."""
