"""Crews: an orchestrator agent that hands tasks to specialist agents through one ``delegate`` tool.

Mechanically a crew is a nested agent loop. The orchestrator's tool list includes the schema
from ``make_delegate_tool``; when it calls ``delegate``, ``run_crew`` runs a whole specialist
conversation (its own system prompt, tools and turn budget) and returns the specialist's
submission as the tool result. Two properties keep crew-versus-single-agent comparisons honest:

- **one bill** — every specialist call adds to the same ``CostTracker`` as the orchestrator's, so
  a crew's cost is its real total;
- **the seam is visible** — each delegation is recorded (``DelegationRecord``: the brief, what
  came back, how many turns), and a specialist sees *only the brief*: a fact the orchestrator
  left out is genuinely unavailable to it.

Semantics of aau-harness 1.6 ``delegation.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import attrs
from aau_core import AgentRun, Backend, CostTracker, run_tool_agent

DELEGATE_TOOL = "delegate"
"""The name of the delegation tool the orchestrator calls."""

UNKNOWN_SPECIALIST_ERROR = "unknown specialist"
"""``DelegationRecord.error`` when the orchestrator names no registered specialist."""


@attrs.frozen
class Specialist:
    """A sub-agent the orchestrator may delegate to by name.

    Attributes:
        name: the name the orchestrator uses (an enum value of the delegate tool).
        description: one line shown to the orchestrator in the delegate tool's roster.
        system_prompt: the specialist's system prompt.
        tool_schemas: its Anthropic tool definitions, its submit tool among them.
        execute_tool: runs one of its non-submit tools, returns a string.
        submit_tool: the name of its terminal tool.
        max_turns: its turn budget (>= 1).
    """

    name: str
    description: str
    system_prompt: str
    tool_schemas: list[dict[str, Any]]
    execute_tool: Callable[[str, dict[str, Any]], str]
    submit_tool: str
    max_turns: int = 8


@attrs.frozen
class DelegationRecord:
    """One call of ``delegate``.

    Attributes:
        specialist: the name asked for (as given, even when unknown).
        brief: the brief the orchestrator wrote (all the specialist saw).
        returned: the specialist's submission, or ``None``.
        submitted: the specialist submitted.
        turns: the specialist's model calls (0 when it never ran).
        error: ``UNKNOWN_SPECIALIST_ERROR``, the specialist run's error, or ``None``.
    """

    specialist: str
    brief: str
    returned: dict[str, Any] | None
    submitted: bool
    turns: int
    error: str | None = None


@attrs.define
class CrewRun:
    """The orchestrator's run plus every delegation it made, in order."""

    orchestrator: AgentRun
    delegations: list[DelegationRecord] = attrs.field(factory=list)

    @property
    def submitted(self) -> bool:
        """The orchestrator submitted."""
        return self.orchestrator.submitted

    @property
    def submission(self) -> dict[str, Any] | None:
        """The orchestrator's submission (``None`` if it did not submit)."""
        return self.orchestrator.submission

    @property
    def n_delegations(self) -> int:
        """How many times ``delegate`` was called (unknown names included)."""
        return len(self.delegations)

    def called(self, name: str) -> bool:
        """Whether the orchestrator delegated to the specialist ``name`` at least once."""
        return any(record.specialist == name for record in self.delegations)


def make_delegate_tool(specialists: Mapping[str, Specialist]) -> dict[str, Any]:
    """Return the ``delegate`` tool schema for the orchestrator.

    Args:
        specialists: name -> ``Specialist``; the roster lists each with its description, and the
            ``specialist`` argument is an enum of the sorted names.

    Returns:
        a strict Anthropic tool definition with required string arguments ``specialist`` and
        ``brief``.
    """
    roster = "\n".join(f"- {name}: {s.description}" for name, s in specialists.items())
    return {
        "name": DELEGATE_TOOL,
        "description": (
            "Give one task to a specialist colleague and receive their finding. The colleague "
            "works with their own tools but knows nothing except your brief: include every "
            "fact they need and say what you want back.\n\nSpecialists:\n" + roster
        ),
        "strict": True,
        "input_schema": {
            "type": "object",
            "properties": {
                "specialist": {"type": "string", "enum": sorted(specialists),
                               "description": "The colleague to ask"},
                "brief": {"type": "string",
                          "description": "Everything they need to know and the question to "
                                         "answer; they see nothing else"},
            },
            "required": ["specialist", "brief"],
            "additionalProperties": False,
        },
    }


def run_crew(
    backend: Backend,
    orchestrator_prompt: str,
    orchestrator_tools: list[dict[str, Any]],
    user_message: str,
    execute_orchestrator_tool: Callable[[str, dict[str, Any]], str],
    submit_tool: str,
    specialists: Mapping[str, Specialist],
    cost: CostTracker,
    max_turns: int = 12,
) -> CrewRun:
    """Run an orchestrator that may delegate to specialists.

    ``delegate`` calls are intercepted: an unknown name returns a JSON error listing the known
    ones (and records ``error = UNKNOWN_SPECIALIST_ERROR``); a known one runs
    ``run_tool_agent`` with the specialist's prompt, tools and ``max_turns`` and the brief as
    its only user message, on the same ``backend`` and ``cost``. The tool result is JSON:
    ``{"specialist", "returned_finding": true, **submission}``, or ``returned_finding: false``
    with a note when the specialist did not submit. Every other tool goes to
    ``execute_orchestrator_tool``.

    Args:
        backend: serves the orchestrator and every specialist.
        orchestrator_prompt, orchestrator_tools, user_message, submit_tool: the orchestrator's
            run (its tools should include ``make_delegate_tool(specialists)``).
        execute_orchestrator_tool: runs the orchestrator's own tools; returns a string.
        specialists: name -> ``Specialist``.
        cost: the one tracker every model call of the crew is added to.
        max_turns: the orchestrator's turn budget.

    Returns:
        the ``CrewRun``.

    Raises:
        whatever ``run_tool_agent`` or the backend raises.
    """
    delegations: list[DelegationRecord] = []

    def execute(name: str, tool_input: dict[str, Any]) -> str:
        if name != DELEGATE_TOOL:
            return execute_orchestrator_tool(name, tool_input)
        who = str(tool_input.get("specialist", ""))
        brief = str(tool_input.get("brief", ""))
        spec = specialists.get(who)
        if spec is None:
            delegations.append(DelegationRecord(who, brief, None, False, 0,
                                                error=UNKNOWN_SPECIALIST_ERROR))
            return json.dumps({"error": f"no specialist named {who!r}",
                               "available": sorted(specialists)})
        sub = run_tool_agent(backend, spec.system_prompt, spec.tool_schemas, brief,
                             spec.execute_tool, spec.submit_tool, cost,
                             max_turns=spec.max_turns)
        delegations.append(DelegationRecord(who, brief, sub.submission, sub.submitted,
                                            sub.n_turns, error=sub.error))
        if not sub.submitted:
            return json.dumps({
                "specialist": who, "returned_finding": False,
                "note": "no finding came back; decide without it or delegate again with a "
                        "fuller brief",
            })
        return json.dumps({"specialist": who, "returned_finding": True,
                           **(sub.submission or {})})

    run = run_tool_agent(backend, orchestrator_prompt, orchestrator_tools, user_message,
                         execute, submit_tool, cost, max_turns=max_turns)
    return CrewRun(orchestrator=run, delegations=delegations)
