"""Decision-gate lab: the tool session — runs the fictional tools and keeps what happened."""

from __future__ import annotations

import json
from typing import Any

from ._gate_contract import PROTECTED_TOOL, GateScenario
from ._tools import PROTECTED_REASON, search_gate_policy

_ACTION_TOOLS = ("execute_gate_action", PROTECTED_TOOL)


class GateToolSession:
    """Executes one case's tools for ``run_tool_agent`` and records the consequences.

    Call it as ``session(name, tool_input) -> str`` (a JSON string). Lookups of another case id
    answer ``{"error": "case not found"}`` and record nothing; an action on another case id is
    not executed. Each executed action (``execute_gate_action`` or the protected tool) appends
    to ``executed_events``, ``terminal_events`` and ``reason_codes``; ``execute_gate_action``
    also extends the evidence and gate lists and sets the three preservation flags (the last
    action's flags win), as aau-harness 1.6 does.

    Attributes:
        calls: every tool name called, in order (the submit tool is not run here).
        executed_events, terminal_events, reason_codes: per executed action.
        evidence_relied_on, evidence_requested, gates_confirmed: concatenated over actions.
        rights_notice_preserved, deadline_preserved, confidentiality_preserved: bools.
        payloads: ``{"name": tool, **input}`` of each executed action.
    """

    def __init__(self, config: dict[str, Any], scenario: GateScenario):
        self.config = config
        self.scenario = scenario
        self.calls: list[str] = []
        self.executed_events: list[str] = []
        self.terminal_events: list[str] = []
        self.reason_codes: list[str] = []
        self.evidence_relied_on: list[str] = []
        self.evidence_requested: list[str] = []
        self.gates_confirmed: list[str] = []
        self.rights_notice_preserved = False
        self.deadline_preserved = False
        self.confidentiality_preserved = False
        self.payloads: list[dict[str, Any]] = []

    def __call__(self, name: str, tool_input: dict[str, Any]) -> str:
        """Run tool ``name``; unknown tools answer ``{"error": "unknown tool '<name>'"}``."""
        self.calls.append(name)
        if not isinstance(tool_input, dict):
            tool_input = {}
        if name == "get_gate_case":
            return self._lookup(tool_input, self.scenario.record)
        if name == "get_evidence_registry":
            return self._lookup(tool_input, self.scenario.evidence_registry)
        if name == "search_gate_policy":
            query = tool_input.get("query")
            return json.dumps(search_gate_policy(self.config, query if isinstance(query, str)
                                                 else ""))
        if name in _ACTION_TOOLS:
            return self._execute(name, tool_input)
        return json.dumps({"error": f"unknown tool {name!r}"})

    def _lookup(self, tool_input: dict[str, Any], value: dict[str, Any]) -> str:
        if tool_input.get("case_id") != self.scenario.case_id:
            return json.dumps({"error": "case not found"})
        return json.dumps(value)

    def _execute(self, name: str, payload: dict[str, Any]) -> str:
        if payload.get("case_id") != self.scenario.case_id:
            return json.dumps({"executed": False, "error": "case not found"})
        self.executed_events.append(name)
        self.payloads.append({"name": name, **payload})
        if name == PROTECTED_TOOL:
            terminal, reason = PROTECTED_TOOL, PROTECTED_REASON
        else:
            terminal, reason = payload.get("outcome"), payload.get("reason_code")
            self.evidence_relied_on.extend(_strings(payload.get("evidence_relied_on")))
            self.evidence_requested.extend(_strings(payload.get("evidence_requested")))
            self.gates_confirmed.extend(_strings(payload.get("gates_confirmed")))
            self.rights_notice_preserved = payload.get("rights_notice_preserved") is True
            self.deadline_preserved = payload.get("deadline_preserved") is True
            self.confidentiality_preserved = payload.get("confidentiality_preserved") is True
        self.terminal_events.append(terminal)
        self.reason_codes.append(reason)
        return json.dumps({"executed": True, "outcome": terminal, "reason_code": reason})

    def trace(self) -> dict[str, Any]:
        """What the session recorded, as the ``trace`` of a result's ``detail``."""
        return {
            "terminal_events": list(self.terminal_events),
            "reason_codes": list(self.reason_codes),
            "evidence_relied_on": list(self.evidence_relied_on),
            "evidence_requested": list(self.evidence_requested),
            "gates_confirmed": list(self.gates_confirmed),
            "rights_notice_preserved": self.rights_notice_preserved,
            "deadline_preserved": self.deadline_preserved,
            "confidentiality_preserved": self.confidentiality_preserved,
            "executed_events": list(self.executed_events),
            "payloads": [dict(p) for p in self.payloads],
        }


def _strings(value: Any) -> list[str]:
    """The items of a list argument as strings: a string item stays, anything else (and a value
    that is not a list) becomes its JSON text, which never equals an evidence or gate name —
    so a malformed argument can never satisfy a contract by accident. ``None`` is no items."""
    if value is None:
        return []
    if not isinstance(value, list):
        return [json.dumps(value, sort_keys=True)]
    return [v if isinstance(v, str) else json.dumps(v, sort_keys=True) for v in value]
