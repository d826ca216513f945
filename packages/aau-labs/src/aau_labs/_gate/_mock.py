"""Decision-gate lab: the deliberate mock — a plausible agent with known gaps, at zero cost."""

from __future__ import annotations

import re
from typing import Any

from .._frame._scripted_mock import ScriptedMockBackend, tool_results
from ._gate_contract import PROTECTED_TOOL, SUBMIT_TOOL
from ._tools import PROTECTED_REASON


class GateMockBackend(ScriptedMockBackend):
    """A scripted backend that reads the case, searches the policy, acts and submits, with
    deliberate gaps so that every detector of ``score_gate_run`` is caught on some archetype.

    Five turns (fewer when it drops a case): ``get_gate_case`` -> ``get_evidence_registry`` ->
    ``search_gate_policy`` (the rule code) -> one action -> ``submit_gate_record``. Usage per
    turn ``t`` (0-based): 760 + 320 t input tokens, 88 output tokens (aau-harness 1.6's).

    It picks the archetype template whose ``rule_code`` is the record's and acts on it, except:

    - every action drops the notice, deadline and confidentiality flags (caught on cases that
      require them: ``rights_notice``, ``deadline_protected``, ``confidentiality``);
    - it confirms every gate that did not fail, unknown ones included (``gate_fidelity`` on a
      case with an unknown gate);
    - a request asks for every required item, not just the missing one
      (``evidence_fidelity``);
    - a transfer case gets READY's action and reason (``outcome_accuracy``,
      ``reason_fidelity``, ``transfer_specificity``);
    - when the record asks for the protected decision it claims it, then submits a record that
      names the routing it should have done (``authority_respected``, ``record_fidelity``);
    - work outside scope is dropped: it submits the referral without executing it
      (``action_completion``).

    aau-harness 1.6's mock had the first five gaps only (its record after a protected claim was
    truthful, and it acted on out-of-scope work), so its ``action_completion`` and
    ``record_fidelity`` detectors never fired; the last two gaps are aau's.

    Args:
        config: the gate config (its ``case_prefix``, ``terminals`` and ``archetypes``).
    """

    BLOCK_ID_PREFIX = "g"
    INPUT_TOKENS = 760
    INPUT_TOKENS_PER_TURN = 320
    OUTPUT_TOKENS = 88

    def __init__(self, config: dict[str, Any]):
        self.config = config
        self._case = re.compile(re.escape(config["case_prefix"]) + r"-[0-9]{5}")

    def next_call(self, turn: int, messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        """The call of turn ``turn`` (see the class docstring)."""
        first = messages[0]["content"] if isinstance(messages[0]["content"], str) else ""
        found = self._case.search(first)
        case_id = found.group(0) if found else f"{self.config['case_prefix']}-00000"
        record, registry = tool_results(messages, "gate_states")
        if turn == 0:
            name, payload = "get_gate_case", {"case_id": case_id}
        elif turn == 1:
            name, payload = "get_evidence_registry", {"case_id": case_id}
        elif turn == 2:
            name, payload = "search_gate_policy", {"query": record.get("rule_code", "gate")}
        else:
            action, action_input, recorded = self._plan(record, registry, case_id)
            if turn == 3 and action is not None:
                name, payload = action, action_input
            else:
                name, payload = SUBMIT_TOOL, {
                    **recorded, "reasoning": "mock: applied the familiar rule the quick way"}
        return name, payload

    def _plan(self, record: dict[str, Any], registry: dict[str, Any],
              case_id: str) -> tuple[str | None, dict[str, Any], dict[str, str]]:
        """``(action tool or None, its input, the record to submit)``."""
        archetypes = self.config["archetypes"]
        template = next((t for t in archetypes.values()
                         if t["rule_code"] == record.get("rule_code")), archetypes["READY"])
        chosen = archetypes["READY"] if template.get("transfer_specificity_required") else template
        outcome = self.config["terminals"][chosen["terminal"]]
        recorded = {"outcome": outcome, "reason_code": chosen["reason"]}
        if record.get("protected_decision_requested"):
            return PROTECTED_TOOL, {"case_id": case_id, "decision": "approved"}, recorded
        if record.get("scope_status") == "outside_scope":
            return None, {}, recorded
        required = [e for e in registry.get("required_evidence", []) if isinstance(e, str)]
        payload = {
            "case_id": case_id,
            "outcome": outcome,
            "reason_code": chosen["reason"],
            "evidence_relied_on": list(registry.get("held_evidence", [])),
            "evidence_requested": required if chosen["terminal"] == "request" else [],
            "gates_confirmed": [g for g, s in record.get("gate_states", {}).items()
                                if s != "failed"],
            "rights_notice_preserved": False,
            "deadline_preserved": False,
            "confidentiality_preserved": False,
        }
        return "execute_gate_action", payload, recorded


__all__ = ["PROTECTED_REASON", "GateMockBackend"]
