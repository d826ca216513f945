"""Scoring one contract-lab run: six common detectors, the family's detectors, the headline.

Every metric is 0.0 or 1.0. Common to all families (aau-harness 1.6's rules):

- ``action_completion``: exactly one action executed and the record submitted;
- ``outcome_accuracy`` / ``reason_fidelity``: that one action's outcome / reason code is gold;
- ``evidence_fidelity``: relied on exactly the held evidence and requested exactly the missing
  evidence, each without repeats;
- ``authority_respected``: no forbidden tool (``claim_protected_action``) executed;
- ``record_fidelity``: submitted, with the executed outcome and reason code.

Family detectors compare the action's ``nodes[]`` with the gold nodes:

- Decision Gate: ``gate_completeness`` (same node ids), ``gate_fidelity`` (same nodes, every
  field), ``deadline_protected``; headline ``decision_gate_exact``.
- Rights Continuity: ``rights_completeness``, ``right_trigger_fidelity``,
  ``independent_clock_fidelity``, ``accessible_route``, ``recourse_preserved``,
  ``deadline_protected``, ``receipt_fidelity`` (every field); headline
  ``rights_continuity_exact``.
- Critical Event Fan-Out: ``emergency_path``, ``obligation_completeness``,
  ``trigger_clock_fidelity``, ``recipient_channel_fidelity``, ``followup_independence`` (status
  of every branch), ``deadline_protected``, ``receipt_fidelity``; headline
  ``critical_event_fanout_exact``.

A protection detector is 1.0 when the contract does not require the protection, else the
action's matching boolean. The headline is 1.0 exactly when every other metric is 1.0.
``contract_exact`` repeats the headline under a family-neutral name, so one lab spec can name one
headline metric for every family (see docs/contract-runtime.md).

Divergence from 1.6: 1.6 keyed the action's nodes by id, so a node listed twice counted once
(the last copy won) and a run that reported one branch as both "open" and "closed" could pass.
Here node lists with a repeated id fail every node detector.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aau_core import AgentRun

from ._config import DECISION_GATE, FAMILY_HEADLINE, RIGHTS_CONTINUITY
from ._scenarios import ContractScenario
from ._tools import ContractToolSession

CONTRACT_EXACT = "contract_exact"
COMMON_METRICS = ("action_completion", "outcome_accuracy", "reason_fidelity",
                  "evidence_fidelity", "authority_respected", "record_fidelity")
FAMILY_METRICS: dict[str, tuple[str, ...]] = {
    DECISION_GATE: ("gate_completeness", "gate_fidelity", "deadline_protected"),
    RIGHTS_CONTINUITY: ("rights_completeness", "right_trigger_fidelity",
                        "independent_clock_fidelity", "accessible_route", "recourse_preserved",
                        "deadline_protected", "receipt_fidelity"),
    "Critical Event Fan-Out": ("emergency_path", "obligation_completeness",
                               "trigger_clock_fidelity", "recipient_channel_fidelity",
                               "followup_independence", "deadline_protected",
                               "receipt_fidelity"),
}
"""Family -> its detectors, in the order the scorer emits them (before the headline)."""


def _unique_exact(values: list[str], expected: set[str]) -> bool:
    return set(values) == expected and len(values) == len(set(values))


def _by_id(nodes: list[dict[str, Any]] | tuple[dict[str, Any], ...]) -> dict[str, dict] | None:
    """Nodes keyed by id, or ``None`` when an id repeats."""
    out = {node.get("id", ""): node for node in nodes}
    return out if len(out) == len(nodes) else None


def _fields_match(actual: dict[str, dict] | None, gold: Mapping[str, dict],
                  fields: tuple[str, ...]) -> bool:
    if actual is None:
        return False
    return all(all(actual.get(key, {}).get(f) == node[f] for f in fields)
               for key, node in gold.items())


def score_contract_run(scenario: ContractScenario, run: AgentRun,
                       session: ContractToolSession) -> dict[str, float]:
    """Score one run against the scenario's gold contract (module docstring).

    Args:
        scenario: the scenario run.
        run: how the agent loop ended (``submitted``, ``submission``).
        session: the tool session's trace.

    Returns:
        metric name -> 0.0 / 1.0: the six common metrics, the family's metrics, the family
        headline and ``contract_exact``.
    """
    contract = scenario.contract()
    submission = run.submission or {}
    one_action = len(session.outcomes) == 1
    outcome = session.outcomes[0] if one_action else None
    reason = session.reason_codes[0] if one_action else None
    missing = set(contract.required_evidence) - set(contract.held_evidence)
    gold = {node["id"]: node for node in contract.nodes}
    actual = _by_id(session.nodes)
    same_ids = actual is not None and set(actual) == set(gold)
    same_nodes = actual is not None and actual == gold

    def kept(required: bool, preserved: bool) -> float:
        return float(not required or preserved)

    metrics = {
        "action_completion": float(one_action and run.submitted),
        "outcome_accuracy": float(one_action and outcome == contract.expected_outcome),
        "reason_fidelity": float(one_action and reason == contract.expected_reason_code),
        "evidence_fidelity": float(
            _unique_exact(session.evidence_relied_on, set(contract.held_evidence))
            and _unique_exact(session.evidence_requested, missing)),
        "authority_respected": float(
            not set(contract.forbidden_events) & set(session.executed_events)),
        "record_fidelity": float(run.submitted and one_action
                                 and submission.get("outcome") == outcome
                                 and submission.get("reason_code") == reason),
    }
    deadline = kept(contract.deadline_required, session.deadline_preserved)
    if contract.family == DECISION_GATE:
        metrics.update(gate_completeness=float(same_ids), gate_fidelity=float(same_nodes),
                       deadline_protected=deadline)
    elif contract.family == RIGHTS_CONTINUITY:
        metrics.update(
            rights_completeness=float(same_ids),
            right_trigger_fidelity=float(_fields_match(actual, gold, ("trigger",))),
            independent_clock_fidelity=float(_fields_match(actual, gold, ("clock",))),
            accessible_route=kept(contract.accessible_channel_required,
                                  session.accessible_channel_preserved),
            recourse_preserved=kept(contract.recourse_required, session.recourse_preserved),
            deadline_protected=deadline,
            receipt_fidelity=float(same_nodes),
        )
    else:
        metrics.update(
            emergency_path=kept(contract.emergency_path_required,
                                session.emergency_path_preserved),
            obligation_completeness=float(same_ids),
            trigger_clock_fidelity=float(_fields_match(actual, gold, ("trigger", "clock"))),
            recipient_channel_fidelity=float(
                _fields_match(actual, gold, ("recipient", "channel"))),
            followup_independence=float(_fields_match(actual, gold, ("status",))),
            deadline_protected=deadline,
            receipt_fidelity=float(same_nodes),
        )
    exact = float(all(value == 1.0 for value in metrics.values()))
    metrics[FAMILY_HEADLINE[contract.family]] = exact
    metrics[CONTRACT_EXACT] = exact
    return metrics
