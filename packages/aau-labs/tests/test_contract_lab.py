"""The contract lab: config checks, generation, tools, mock evaluation, the lab spec."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import InputError, ProviderUnavailable
from aau_labs._contract._config import FAMILY_HEADLINE, load_contract_config
from aau_labs._contract._lab import LAB, evaluate_contract, lab_spec_for
from aau_labs._contract._mock import ContractMockBackend
from aau_labs._contract._scenarios import (
    contract_scenario_from_dict,
    contract_scenario_to_dict,
    generate_contract_scenarios,
)
from aau_labs._contract._tools import (
    ACTION_TOOL,
    SUBMIT_TOOL,
    ContractToolSession,
    build_contract_policy,
    build_contract_system_prompt,
    build_contract_tool_schemas,
    search_contract_policy,
)
from aau_labs._frame._lab_spec import ARCHETYPE_ORDER, lab_result_document, scenarios_document
from aau_labs._frame._registry import get_lab, lab_for_config_kind

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "labs"
DOMAINS = ("heritage-tree-permit", "transit-pass-continuity", "cold-store-outage")
# mock headline per domain, 32 scenarios: READY, RECORD_CONFLICT and OUTSIDE_SCOPE pass where
# the domain asks for no protection there; the cold store wants its emergency path on READY.
MOCK_HEADLINE = {"heritage-tree-permit": 0.375, "transit-pass-continuity": 0.375,
                 "cold-store-outage": 0.25}


def doc(name: str = "heritage-tree-permit") -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())


# ---------------------------------------------------------------- config


def test_examples_load_and_name_their_family_headline():
    families = {load_contract_config(doc(n)).family for n in DOMAINS}
    assert families == set(FAMILY_HEADLINE)
    for name in DOMAINS:
        config = load_contract_config(doc(name))
        assert config.headline_metric == FAMILY_HEADLINE[config.family]
        assert lab_spec_for(config).headline_metric == config.headline_metric


def _edit(path_fn):
    d = doc()
    path_fn(d)
    return d


BAD_CONFIGS = [
    ("node id twice", lambda d: d["nodes"].append(dict(d["nodes"][0])), "$.nodes[4].id"),
    ("outcome not listed",
     lambda d: d["archetypes"]["READY"].__setitem__("outcome", "grant_permit"),
     "$.archetypes.READY.outcome"),
    ("unknown required evidence",
     lambda d: d["archetypes"]["READY"].__setitem__("required_evidence", ["tax_return"]),
     "$.archetypes.READY.required_evidence[0]"),
    ("missing evidence not required",
     lambda d: d["archetypes"]["ONE_MISSING"].update(required_evidence=["application_form"]),
     "$.archetypes.ONE_MISSING.missing_evidence"),
    ("unknown node", lambda d: d["archetypes"]["READY"].__setitem__("node_ids", ["pond"]),
     "$.archetypes.READY.node_ids[0]"),
    ("status of an inapplicable node",
     lambda d: d["archetypes"]["OUTSIDE_SCOPE"].__setitem__("node_status",
                                                            {"neighbour_notice": "open"}),
     "$.archetypes.OUTSIDE_SCOPE.node_status"),
    ("flag the family does not score",
     lambda d: d["archetypes"]["READY"].__setitem__("emergency_path_required", True),
     "$.archetypes.READY.emergency_path_required"),
    ("rule code twice",
     lambda d: d["archetypes"]["RECORD_CONFLICT"].__setitem__("rule_code", "TREE_READY"),
     "$.archetypes.RECORD_CONFLICT.rule_code"),
    ("rule card reuses a built-in id",
     lambda d: d["rule_cards"][0].__setitem__("id", "SALTMARSH-TREE-BOUNDARY"),
     "$.rule_cards[0].id"),
    ("rule card id twice", lambda d: d["rule_cards"][1].__setitem__("id", "TREE-SURVEY"),
     "$.rule_cards[1].id"),
]


@pytest.mark.parametrize(("what", "edit", "path"), BAD_CONFIGS, ids=[b[0] for b in BAD_CONFIGS])
def test_config_rules_the_schema_cannot_say(what, edit, path):
    bad = _edit(edit)
    aau_schemas.validate("contract-config", bad)  # schema-valid: only code catches it
    with pytest.raises(InputError) as info:
        load_contract_config(bad, source="x.json")
    assert info.value.path == path
    assert str(info.value).startswith(f"x.json: {path}: ")
    assert "\n" not in str(info.value)


def test_schema_violation_is_one_line_with_path():
    bad = doc()
    bad["family"] = "Gate"
    with pytest.raises(InputError) as info:
        load_contract_config(bad, source="x.json")
    assert str(info.value).startswith("x.json: $.family: ")


def test_a_family_may_set_its_own_flags():
    d = doc("transit-pass-continuity")
    d["archetypes"]["READY"].update(accessible_channel_required=True, recourse_required=True)
    assert load_contract_config(d).archetypes["READY"]["recourse_required"] is True


# ---------------------------------------------------------------- generation


def test_generation_is_seed_deterministic_and_round_robin():
    config = load_contract_config(doc())
    first = generate_contract_scenarios(config, 16)
    assert first == generate_contract_scenarios(doc(), 16)  # document accepted as 1.6 did
    assert first == generate_contract_scenarios(config, 16, seed=config.seed)
    assert first != generate_contract_scenarios(config, 16, seed=config.seed + 1)
    assert generate_contract_scenarios(config, 8) == first[:8]
    assert [s.archetype for s in first] == list(ARCHETYPE_ORDER) * 2
    assert [s.scenario_id for s in first[:3]] == ["tree-permit-000", "tree-permit-001",
                                                  "tree-permit-002"]
    for s in first:
        assert s.case_text.startswith(f"Case {s.case_id}. ")
        assert s.case_id.startswith("TREE-") and 10000 <= int(s.case_id[5:]) < 99999


def test_case_ids_follow_the_seeded_stream():
    import random

    rng = random.Random(4104)
    expected = [f"TREE-{rng.randrange(10000, 99999)}" for _ in range(8)]
    assert [s.case_id for s in generate_contract_scenarios(doc(), 8)] == expected


def test_gold_contract_follows_the_template():
    by_arch = {s.archetype: s for s in generate_contract_scenarios(doc(), 8)}
    missing = by_arch["ONE_MISSING"].contract()
    assert "arborist_survey_report" in missing.required_evidence
    assert "arborist_survey_report" not in missing.held_evidence
    assert by_arch["ONE_MISSING"].evidence_registry["missing_evidence"] == [
        "arborist_survey_report"]
    assert [n["status"] for n in missing.nodes] == ["open", "satisfied", "satisfied",
                                                    "satisfied"]
    outside = by_arch["OUTSIDE_SCOPE"]
    assert outside.contract().required_evidence == () and outside.contract().nodes == ()
    assert outside.record["scope_status"] == "outside_scope"
    assert by_arch["CONJUNCTIVE_GATE"].contract().nodes[2]["status"] == "failed"
    assert by_arch["NOTICE_OR_DEADLINE"].contract().deadline_required
    assert by_arch["AUTHORITY_TRAP"].record["protected_action_requested"]
    assert by_arch["RECORD_CONFLICT"].record["record_conflict"]


def test_n_must_be_positive():
    with pytest.raises(ValueError):
        generate_contract_scenarios(doc(), 0)


@pytest.mark.parametrize("name", DOMAINS)
def test_scenario_documents_validate_and_round_trip(name):
    config_doc = doc(name)
    scenarios = generate_contract_scenarios(config_doc, 16)
    sdoc = scenarios_document(LAB, config_doc, scenarios, None, 16)
    aau_schemas.validate("contract-scenarios", sdoc)
    assert aau_schemas.detect_kind(sdoc) == "contract-scenarios"
    assert [contract_scenario_from_dict(d) for d in sdoc["scenarios"]] == scenarios
    assert [contract_scenario_to_dict(s) for s in scenarios] == sdoc["scenarios"]


def test_inconsistent_scenario_item_is_refused():
    item = contract_scenario_to_dict(generate_contract_scenarios(doc(), 2)[1])
    bad = copy.deepcopy(item)
    bad["evidence_registry"]["missing_evidence"] = []
    with pytest.raises(InputError, match="^evidence_registry.missing_evidence: "):
        contract_scenario_from_dict(bad)
    bad = copy.deepcopy(item)
    bad["record"]["node_facts"][0]["status"] = "satisfied"
    with pytest.raises(InputError, match="^record.node_facts: "):
        contract_scenario_from_dict(bad)
    bad = copy.deepcopy(item)
    bad["record"]["case_id"] = "TREE-10001"
    with pytest.raises(InputError, match="^record.case_id: "):
        contract_scenario_from_dict(bad)


# ---------------------------------------------------------------- tools


def test_policy_and_prompt_come_from_the_config():
    config = load_contract_config(doc("cold-store-outage"))
    policy = build_contract_policy(config)
    assert [p["id"] for p in policy[:3]] == ["FERRY-COLD-BOUNDARY", "FERRY-COLD-CONTRACT",
                                             "FERRY-COLD-EVIDENCE"]
    assert policy[1]["title"] == "Critical Event Fan-Out"
    assert search_contract_policy(config, "COLD_LOG_CONFLICT")[0]["id"] == "COLD-CONFLICT"
    prompt = build_contract_system_prompt(config)
    assert config.title in prompt and config.authority_boundary in prompt
    assert "claim_protected_action" in prompt and SUBMIT_TOOL in prompt


def test_policy_search_matches_whole_words_only():
    """1.6 counted substrings: 'ship' matched 'shipped'."""
    config = load_contract_config(doc("cold-store-outage"))
    assert search_contract_policy(config, "shipped")[0]["id"] == "COLD-SHIPPED"
    hits = search_contract_policy(config, "ship")
    assert [h["id"] for h in hits] == ["FERRY-COLD-BOUNDARY"]  # no match: the preamble only


def test_tool_schemas_use_the_config_enums():
    config = load_contract_config(doc())
    tools = {t["name"]: t for t in build_contract_tool_schemas(config)}
    assert list(tools) == ["get_contract_case", "get_evidence_registry",
                           "search_contract_policy", ACTION_TOOL, "claim_protected_action",
                           SUBMIT_TOOL]
    action = tools[ACTION_TOOL]["input_schema"]["properties"]
    assert action["outcome"]["enum"] == list(config.outcomes)
    assert action["reason_code"]["enum"] == config.reason_codes
    assert action["nodes"]["items"]["properties"]["id"]["enum"] == list(config.node_ids)
    submit = tools[SUBMIT_TOOL]["input_schema"]["properties"]
    assert submit["outcome"]["enum"][-1] == "claim_protected_action"
    assert all(t["strict"] for t in tools.values())


def test_session_refuses_other_cases_and_malformed_actions():
    config = load_contract_config(doc())
    scenario = generate_contract_scenarios(config, 1)[0]
    session = ContractToolSession(config, scenario)
    assert json.loads(session("get_contract_case", {"case_id": "TREE-00000"})) == {
        "error": "case not found"}
    assert json.loads(session("get_contract_case", {"case_id": scenario.case_id})) == \
        scenario.record
    assert "error" in json.loads(session("delete_everything", {}))
    malformed = {"case_id": scenario.case_id, "outcome": "candidate_ready",
                 "reason_code": "all_gates_satisfied", "evidence_relied_on": [],
                 "evidence_requested": [], "nodes": "all of them",
                 "accessible_channel_preserved": False, "recourse_preserved": False,
                 "deadline_preserved": False, "emergency_path_preserved": False}
    reply = json.loads(session(ACTION_TOOL, malformed))
    assert reply["executed"] is False and "nodes" in reply["error"]
    assert json.loads(session(ACTION_TOOL, {**malformed, "nodes": [], "outcome": "grant"}))[
        "error"].startswith("outcome must be")
    assert json.loads(session(ACTION_TOOL, "not an object"))["executed"] is False
    assert session.executed_events == [] and session.outcomes == []
    assert session.calls[-1] == ACTION_TOOL


# ---------------------------------------------------------------- mock evaluation


@pytest.mark.parametrize("name", DOMAINS)
def test_mock_scores_strictly_between_zero_and_one(name):
    config = load_contract_config(doc(name))
    scenarios = generate_contract_scenarios(config, 32)
    agg = evaluate_contract(config, scenarios, repeats=2)
    headline = agg.metric_means[config.headline_metric]
    assert headline == MOCK_HEADLINE[name]
    assert agg.metric_means["contract_exact"] == headline
    assert 0.0 < headline < 1.0
    assert agg.total_cost_usd == 0.0 and agg.n_errors == 0
    passed = {r.detail["archetype"] for r in agg.results if r.metrics["contract_exact"] == 1.0}
    expected = {"RECORD_CONFLICT", "OUTSIDE_SCOPE"} | (
        set() if name == "cold-store-outage" else {"READY"})
    assert passed == expected
    # every deliberate gap is caught by its detector
    by_arch = {r.detail["archetype"]: r.metrics for r in agg.results}
    assert by_arch["AUTHORITY_TRAP"]["authority_respected"] == 0.0
    assert by_arch["TRANSFER_TRAP"]["outcome_accuracy"] == 0.0
    assert by_arch["ONE_MISSING"]["evidence_fidelity"] == 0.0
    assert by_arch["NOTICE_OR_DEADLINE"]["deadline_protected"] == 0.0
    completeness = {"heritage-tree-permit": "gate_completeness",
                    "transit-pass-continuity": "rights_completeness",
                    "cold-store-outage": "obligation_completeness"}[name]
    assert by_arch["CONJUNCTIVE_GATE"][completeness] == 0.0
    doc_out = lab_result_document(lab_spec_for(config), agg, "mock", "mock", doc(name))
    aau_schemas.validate("lab-result", doc_out)
    assert doc_out["headline"]["metric"] == config.headline_metric


def test_mock_detail_records_the_trace():
    config = load_contract_config(doc("transit-pass-continuity"))
    agg = evaluate_contract(config, generate_contract_scenarios(config, 8), repeats=1)
    trap = next(r for r in agg.results if r.detail["archetype"] == "AUTHORITY_TRAP")
    assert trap.detail["trace"]["executed_events"] == ["claim_protected_action"]
    assert trap.detail["tool_calls"] == ["get_contract_case", "get_evidence_registry",
                                         "search_contract_policy", "claim_protected_action"]
    assert trap.n_api_calls == 5 and trap.detail["usage"]["input_tokens"] == sum(
        760 + 320 * t for t in range(5))
    json.dumps(agg.as_dict())  # JSON-serialisable


def test_backend_errors_are_recorded_and_count_as_failures():
    config = load_contract_config(doc())
    scenarios = generate_contract_scenarios(config, 2)
    first = scenarios[0].case_text

    class Broken(ContractMockBackend):
        def create(self, system, messages, tools):
            if first in str(messages):
                raise RuntimeError("mock broke")
            return super().create(system, messages, tools)

    agg = evaluate_contract(config, scenarios, repeats=1, mock_factory=lambda: Broken(config))
    errored = [r for r in agg.results if r.error]
    assert agg.n_errors == 1 and errored[0].detail["error"] == "RuntimeError: mock broke"
    answered = next(r for r in agg.results if not r.error)
    # the crashed run counts as a failure (0) of every 0/1 metric, over both scenarios
    assert agg.metric_means == {m: v / 2 for m, v in answered.metrics.items()}
    assert agg.answered_only.metric_means == answered.metrics

    class Down(ContractMockBackend):
        def create(self, system, messages, tools):
            raise ConnectionError("provider down")

    with pytest.raises(ProviderUnavailable, match=r"^100% of runs \(2 of 2\) failed at the "
                                                  r"transport layer"):
        evaluate_contract(config, scenarios, repeats=1, mock_factory=lambda: Down(config))


# ---------------------------------------------------------------- lab spec


def test_lab_spec_is_registered():
    assert get_lab("contract") is LAB
    assert lab_for_config_kind("contract-config") is LAB
    assert LAB.headline_metric == "contract_exact"
    assert LAB.headline_for(doc("cold-store-outage")) == "critical_event_fanout_exact"
    assert LAB.headline_for(load_contract_config(doc("transit-pass-continuity"))) == \
        "rights_continuity_exact"
    assert LAB.scenarios_kind == "contract-scenarios"
    config = LAB.load_config(doc())
    scenarios = LAB.generate(config, 8, None)
    assert [LAB.scenario_from_dict(LAB.scenario_to_dict(s)) for s in scenarios] == scenarios
    agg = LAB.evaluate(config, scenarios, backend_kind="mock", model=None, repeats=1,
                       progress=None)
    assert 0 < agg.metric_means[LAB.headline_metric] < 1


def test_public_names_are_re_exported():
    import aau_harness
    import aau_labs
    from aau_labs._contract import _lab as _contract
    from aau_labs._contract import _tools as _contract_tools

    assert aau_labs.evaluate_contract is _contract.evaluate_contract
    assert aau_labs.ContractToolSession is _contract_tools.ContractToolSession
    for name in ("CompiledContract", "ContractScenario", "ContractToolSession",
                 "build_contract_policy", "build_contract_system_prompt",
                 "build_contract_tool_schemas", "generate_contract_scenarios",
                 "score_contract_run", "evaluate_contract"):  # aau-harness 1.6's names
        assert getattr(aau_harness, name) is getattr(aau_labs, name)
    assert "ContractMockBackend" not in aau_harness.__all__  # 1.6 did not export it
    assert aau_labs.ContractMockBackend is ContractMockBackend


def test_evaluate_contract_takes_1_6_positional_order():
    config = load_contract_config(doc())
    scenarios = generate_contract_scenarios(config, 8)
    agg = evaluate_contract(doc(), scenarios, lambda: ContractMockBackend(config), "mock",
                            None, 1)
    assert agg.n_repeats == 1 and agg.metric_means["decision_gate_exact"] == 0.375


def test_an_agent_that_never_submits_is_scored_not_dropped():
    from aau_core import Block, MockUsage

    config = load_contract_config(doc())

    class Silent:
        model = "mock"

        def create(self, system, messages, tools):
            return Block(content=[Block(type="text", text="I would rather not.")],
                         stop_reason="end_turn", usage=MockUsage(10, 5))

    agg = evaluate_contract(config, generate_contract_scenarios(config, 8), Silent, repeats=1)
    assert agg.n_errors == 0 and agg.metric_counts["contract_exact"] == 8
    assert agg.metric_means["action_completion"] == 0.0
    assert agg.metric_means["decision_gate_exact"] == 0.0
    assert agg.results[0].detail["agent_error"] == "ended turn without submitting a decision"
