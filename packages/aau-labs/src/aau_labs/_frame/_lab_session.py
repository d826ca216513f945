"""The base of the labs' tool sessions: one scenario's fictional tools, run for the agent loop.

A lab's session is called as ``session(name, tool_input) -> str`` (``run_tool_agent``'s
``execute_tool``; the result is JSON text) and keeps what happened, which the lab's scorer and
its result ``detail`` read. ``LabToolSession`` holds what every lab's session does alike:

- ``calls``: every tool name called, in order (the submit tool is not run by a session);
- reads answer only for the scenario's own ``case_id`` (``_lookup``; another id answers
  ``{"error": "case not found"}`` and records nothing);
- an action is executed only for the scenario's own ``case_id`` (``_admit``; another id answers
  ``{"executed": False, "error": "case not found"}``); an executed action is appended to
  ``executed_events`` and its input, with its ``name``, to ``payloads``;
- ``__call__`` dispatches by tool name: ``READ_TOOLS`` (tool -> scenario attribute read),
  ``SEARCH_TOOL`` (``search(query)``, a non-string query searched as ``""``), ``ACTION_TOOLS``
  (``_execute(name, tool_input)``, the input as the model sent it) and, for any other name,
  ``{"error": "unknown tool '<name>'"}``. A ``tool_input`` that is not an object reads and
  searches as ``{}``.

A lab whose tools differ (the evidence-service lab reads by subject id too) overrides
``__call__`` and keeps the rest.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar


class LabToolSession:
    """One scenario's tool session (module docstring); subclasses name their tools.

    Attributes:
        config: the lab's config.
        scenario: the scenario (with a ``case_id``).
        calls: every tool name called, in order.
        executed_events: names of the executed actions, in order.
        payloads: ``{"name": tool, **input}`` of each executed action.
    """

    READ_TOOLS: ClassVar[dict[str, str]] = {}
    SEARCH_TOOL: ClassVar[str | None] = None
    ACTION_TOOLS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, config: Any, scenario: Any) -> None:
        self.config = config
        self.scenario = scenario
        self.calls: list[str] = []
        self.executed_events: list[str] = []
        self.payloads: list[dict[str, Any]] = []

    def __call__(self, name: str, tool_input: Any) -> str:
        """Run tool ``name`` with ``tool_input``; return its JSON result text (module docstring)."""
        self.calls.append(name)
        payload = tool_input if isinstance(tool_input, dict) else {}
        if name in self.READ_TOOLS:
            return self._lookup(payload, getattr(self.scenario, self.READ_TOOLS[name]))
        if name == self.SEARCH_TOOL:
            query = payload.get("query")
            return json.dumps(self.search(query if isinstance(query, str) else ""))
        if name in self.ACTION_TOOLS:
            return self._execute(name, tool_input)
        return json.dumps({"error": f"unknown tool {name!r}"})

    def search(self, query: str) -> list[dict[str, Any]]:
        """The policy sections ``SEARCH_TOOL`` answers for ``query`` (each lab's session defines
        it)."""
        raise NotImplementedError

    def _execute(self, name: str, tool_input: Any) -> str:
        """Run action ``name`` (one of ``ACTION_TOOLS``) and return its JSON result text (each lab's
        session defines it)."""
        raise NotImplementedError

    def _lookup(self, payload: dict[str, Any], value: Any) -> str:
        if payload.get("case_id") != self.scenario.case_id:
            return json.dumps({"error": "case not found"})
        return json.dumps(value)

    def _admit(self, name: str, payload: dict[str, Any]) -> str | None:
        """``None`` when action ``name`` is for this case (then it is recorded as executed),
        else the JSON refusal to return."""
        if payload.get("case_id") != self.scenario.case_id:
            return json.dumps({"executed": False, "error": "case not found"})
        self.executed_events.append(name)
        self.payloads.append({"name": name, **payload})
        return None


__all__ = ["LabToolSession"]
