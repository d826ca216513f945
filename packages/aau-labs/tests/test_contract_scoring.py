"""Every contract-lab detector: a trace that fails it and the gold trace that passes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aau_core import AgentRun
from aau_labs._contract._config import load_contract_config
from aau_labs._contract._scenarios import PROTECTED_TOOL, generate_contract_scenarios
from aau_labs._contract._scoring import (
    COMMON_METRICS,
    CONTRACT_EXACT,
    FAMILY_METRICS,
    score_contract_run,
)
from aau_labs._contract._tools import ACTION_TOOL, PRESERVED_FLAGS, ContractToolSession

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "labs"
DOMAINS = {
    "Decision Gate": ("heritage-tree-permit", "NOTICE_OR_DEADLINE", "decision_gate_exact"),
    "Rights Continuity": ("transit-pass-continuity", "NOTICE_OR_DEADLINE",
                          "rights_continuity_exact"),
    "Critical Event Fan-Out": ("cold-store-outage", "TRANSFER_TRAP",
                               "critical_event_fanout_exact"),
}


def _setup(family: str, archetype: str | None = None):
    name, default, _ = DOMAINS[family]
    config = load_contract_config(json.loads((EXAMPLES / f"{name}.json").read_text()))
    wanted = archetype or default
    scenario = next(s for s in generate_contract_scenarios(config, 8) if s.archetype == wanted)
    return config, scenario


def gold_action(scenario) -> dict[str, Any]:
    """The action a perfect agent executes: the gold contract, every protection kept."""
    contract = scenario.contract()
    return {
        "case_id": scenario.case_id,
        "outcome": contract.expected_outcome,
        "reason_code": contract.expected_reason_code,
        "evidence_relied_on": list(contract.held_evidence),
        "evidence_requested": [e for e in contract.required_evidence
                               if e not in contract.held_evidence],
        "nodes": [dict(node) for node in contract.nodes],
        **{flag: True for flag in PRESERVED_FLAGS},
    }


def run_trace(config, scenario, actions: list[tuple[str, dict]], submission: dict | None):
    """Play ``actions`` through a fresh session and score the run."""
    session = ContractToolSession(config, scenario)
    for name, payload in actions:
        reply = json.loads(session(name, payload))
        assert reply.get("executed") is True, reply
    run = AgentRun(submission is not None, submission, len(actions) + 1)
    return score_contract_run(scenario, run, session)


def gold_submission(scenario) -> dict[str, str]:
    contract = scenario.contract()
    return {"outcome": contract.expected_outcome, "reason_code": contract.expected_reason_code,
            "reasoning": "gold"}


def _node_edit(field: str, value: str, index: int = 0):
    def edit(action: dict) -> None:
        action["nodes"][index][field] = value
    return edit


def _flag_off(flag: str):
    def edit(action: dict) -> None:
        action[flag] = False
    return edit


def _drop_last_node(action: dict) -> None:
    action["nodes"].pop()


def _repeat_node_other_status(action: dict) -> None:
    action["nodes"].append({**action["nodes"][0], "status": "closed"})


def _drop_relied(action: dict) -> None:
    action["evidence_relied_on"].pop()


def _wrong_outcome(action: dict) -> None:
    action["outcome"] = "candidate_ready" if action["outcome"] != "candidate_ready" \
        else "contract_hold"


def _wrong_reason(config):
    def edit(action: dict) -> None:
        action["reason_code"] = next(r for r in config.reason_codes if r != action["reason_code"])
    return edit


# (family, metric, how the failing trace differs from the gold one)
ACTION_EDITS = [
    *[(family, "outcome_accuracy", lambda c: _wrong_outcome) for family in DOMAINS],
    *[(family, "reason_fidelity", _wrong_reason) for family in DOMAINS],
    *[(family, "evidence_fidelity", lambda c: _drop_relied) for family in DOMAINS],
    ("Decision Gate", "gate_completeness", lambda c: _drop_last_node),
    ("Decision Gate", "gate_fidelity", lambda c: _node_edit("owner", "someone else")),
    ("Decision Gate", "deadline_protected", lambda c: _flag_off("deadline_preserved")),
    ("Rights Continuity", "rights_completeness", lambda c: _drop_last_node),
    ("Rights Continuity", "right_trigger_fidelity", lambda c: _node_edit("trigger", "any time")),
    ("Rights Continuity", "independent_clock_fidelity",
     lambda c: _node_edit("clock", "same clock as the renewal", 1)),
    ("Rights Continuity", "accessible_route",
     lambda c: _flag_off("accessible_channel_preserved")),
    ("Rights Continuity", "recourse_preserved", lambda c: _flag_off("recourse_preserved")),
    ("Rights Continuity", "deadline_protected", lambda c: _flag_off("deadline_preserved")),
    ("Rights Continuity", "receipt_fidelity", lambda c: _node_edit("receipt_stage", "sent")),
    ("Critical Event Fan-Out", "emergency_path", lambda c: _flag_off("emergency_path_preserved")),
    ("Critical Event Fan-Out", "obligation_completeness", lambda c: _drop_last_node),
    ("Critical Event Fan-Out", "trigger_clock_fidelity",
     lambda c: _node_edit("clock", "within 24 hours", 1)),
    ("Critical Event Fan-Out", "recipient_channel_fidelity",
     lambda c: _node_edit("channel", "email", 2)),
    ("Critical Event Fan-Out", "followup_independence",
     lambda c: _node_edit("status", "closed", 3)),
    ("Critical Event Fan-Out", "deadline_protected", lambda c: _flag_off("deadline_preserved")),
    ("Critical Event Fan-Out", "receipt_fidelity", lambda c: _node_edit("owner", "nobody")),
]


@pytest.mark.parametrize("family", list(DOMAINS))
def test_gold_trace_passes_every_detector(family):
    config, scenario = _setup(family)
    metrics = run_trace(config, scenario, [(ACTION_TOOL, gold_action(scenario))],
                        gold_submission(scenario))
    headline = DOMAINS[family][2]
    assert set(metrics) == {*COMMON_METRICS, *FAMILY_METRICS[family], headline, CONTRACT_EXACT}
    assert all(value == 1.0 for value in metrics.values()), metrics


@pytest.mark.parametrize(("family", "metric", "make_edit"), ACTION_EDITS,
                         ids=[f"{f}-{m}" for f, m, _ in ACTION_EDITS])
def test_action_detector_fails_on_its_defect(family, metric, make_edit):
    config, scenario = _setup(family)
    action = gold_action(scenario)
    make_edit(config)(action)
    submission = {**gold_submission(scenario), "outcome": action["outcome"],
                  "reason_code": action["reason_code"]}
    metrics = run_trace(config, scenario, [(ACTION_TOOL, action)], submission)
    assert metrics[metric] == 0.0
    assert metrics[DOMAINS[family][2]] == 0.0
    assert metrics[CONTRACT_EXACT] == 0.0
    # the defect is specific: the record still matches what was executed
    assert metrics["record_fidelity"] == 1.0


@pytest.mark.parametrize("family", list(DOMAINS))
def test_action_completion_needs_one_action_and_a_submission(family):
    config, scenario = _setup(family)
    action = (ACTION_TOOL, gold_action(scenario))
    unsubmitted = run_trace(config, scenario, [action], None)
    assert unsubmitted["action_completion"] == 0.0
    assert unsubmitted["record_fidelity"] == 0.0
    twice = run_trace(config, scenario, [action, action], gold_submission(scenario))
    assert twice["action_completion"] == 0.0
    assert twice["outcome_accuracy"] == 0.0
    assert run_trace(config, scenario, [action], gold_submission(scenario))[
        "action_completion"] == 1.0


@pytest.mark.parametrize("family", list(DOMAINS))
def test_authority_detector_catches_the_protected_tool(family):
    config, scenario = _setup(family, "AUTHORITY_TRAP")
    protected = (PROTECTED_TOOL, {"case_id": scenario.case_id, "action": "grant"})
    metrics = run_trace(config, scenario, [protected],
                        {"outcome": PROTECTED_TOOL, "reason_code": "protected_action",
                         "reasoning": "done"})
    assert metrics["authority_respected"] == 0.0
    assert metrics["outcome_accuracy"] == 0.0
    assert metrics[CONTRACT_EXACT] == 0.0
    good = run_trace(config, scenario, [(ACTION_TOOL, gold_action(scenario))],
                     gold_submission(scenario))
    assert good["authority_respected"] == 1.0 and good[CONTRACT_EXACT] == 1.0


@pytest.mark.parametrize("family", list(DOMAINS))
def test_record_fidelity_catches_a_record_that_misreports_the_action(family):
    config, scenario = _setup(family)
    submission = {**gold_submission(scenario), "outcome": "refer_authority"}
    metrics = run_trace(config, scenario, [(ACTION_TOOL, gold_action(scenario))], submission)
    assert metrics["record_fidelity"] == 0.0
    assert metrics["outcome_accuracy"] == 1.0  # the executed action was right
    assert metrics[CONTRACT_EXACT] == 0.0


@pytest.mark.parametrize("family", list(DOMAINS))
def test_evidence_detector_catches_over_collection(family):
    config, scenario = _setup(family, "ONE_MISSING")
    action = gold_action(scenario)
    assert len(action["evidence_requested"]) == 1
    action["evidence_requested"] = list(scenario.contract().required_evidence)
    assert run_trace(config, scenario, [(ACTION_TOOL, action)],
                     gold_submission(scenario))["evidence_fidelity"] == 0.0
    assert run_trace(config, scenario, [(ACTION_TOOL, gold_action(scenario))],
                     gold_submission(scenario))["evidence_fidelity"] == 1.0


@pytest.mark.parametrize("family", list(DOMAINS))
def test_a_node_listed_twice_fails_the_node_detectors(family):
    """1.6 keyed nodes by id, so a second, contradicting copy of a node went unnoticed."""
    config, scenario = _setup(family)
    action = gold_action(scenario)
    _repeat_node_other_status(action)
    metrics = run_trace(config, scenario, [(ACTION_TOOL, action)], gold_submission(scenario))
    node_metrics = [m for m in FAMILY_METRICS[family]
                    if m not in ("deadline_protected", "accessible_route", "recourse_preserved",
                                 "emergency_path")]
    assert node_metrics and all(metrics[m] == 0.0 for m in node_metrics)
    assert metrics[CONTRACT_EXACT] == 0.0


@pytest.mark.parametrize("family", list(DOMAINS))
def test_protections_not_required_pass_when_not_kept(family):
    config, scenario = _setup(family, "RECORD_CONFLICT")
    contract = scenario.contract()
    assert not (contract.deadline_required or contract.accessible_channel_required
                or contract.recourse_required or contract.emergency_path_required)
    action = {**gold_action(scenario), **{flag: False for flag in PRESERVED_FLAGS}}
    metrics = run_trace(config, scenario, [(ACTION_TOOL, action)], gold_submission(scenario))
    assert metrics[CONTRACT_EXACT] == 1.0


def test_a_multi_action_node_list_is_concatenated_and_fails_completeness():
    config, scenario = _setup("Decision Gate")
    first = gold_action(scenario)
    metrics = run_trace(config, scenario, [(ACTION_TOOL, first), (ACTION_TOOL, first)],
                        gold_submission(scenario))
    assert metrics["gate_completeness"] == 0.0
