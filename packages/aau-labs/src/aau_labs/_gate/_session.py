"""Decision-gate lab: the tool session — runs the fictional tools and keeps what happened."""

from __future__ import annotations

import json
from typing import Any

from .._frame._lab_session import LabToolSession
from ._gate_contract import PROTECTED_TOOL, GateScenario
from ._tools import PROTECTED_REASON, search_gate_policy


class GateToolSession(LabToolSession):
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

    READ_TOOLS = {"get_gate_case": "record", "get_evidence_registry": "evidence_registry"}
    SEARCH_TOOL = "search_gate_policy"
    ACTION_TOOLS = ("execute_gate_action", PROTECTED_TOOL)

    def __init__(self, config: dict[str, Any], scenario: GateScenario):
        super().__init__(config, scenario)
        self.terminal_events: list[str] = []
        self.reason_codes: list[str] = []
        self.evidence_relied_on: list[str] = []
        self.evidence_requested: list[str] = []
        self.gates_confirmed: list[str] = []
        self.rights_notice_preserved = False
        self.deadline_preserved = False
        self.confidentiality_preserved = False

    def search(self, query: str) -> list[dict[str, Any]]:
        """``search_gate_policy`` of the config for ``query``."""
        return search_gate_policy(self.config, query)

    def _execute(self, name: str, tool_input: Any) -> str:
        payload = tool_input if isinstance(tool_input, dict) else {}
        refused = self._admit(name, payload)
        if refused is not None:
            return refused
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
