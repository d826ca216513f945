"""Contract lab scenarios: seeded cases with their trusted state and exact gold contract.

``generate_contract_scenarios(config, n, seed)`` follows aau-harness 1.6's generator: scenario
``i`` gets archetype ``ARCHETYPE_ORDER[i % 8]`` and the template of that archetype; its case id is
``<case_prefix>-<rng.randrange(10000, 99999)>`` with ``rng = random.Random(seed)`` (the config's
seed when ``seed`` is ``None``), drawn once per scenario in order; its id is
``<scenario_prefix>-<i:03d>``. So the same config, ``n`` and seed give the same scenarios, and the
first ``k`` scenarios of a larger ``n`` are the ``k`` of a smaller one.

The gold contract (``CompiledContract``) is computed from the template by the same rules the
scorer checks: required evidence (template's, else all), held = required minus the one
``missing_evidence``, OUTSIDE_SCOPE needs and holds nothing; nodes = the template's applicable
nodes (default all) with ``node_status`` overrides; the four protection flags.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import attrs
from aau_core import InputError

from .._converter import structure_lab, unstructure_lab
from .._frame._lab_spec import ARCHETYPE_ORDER, lab_scenario_id
from ._config import FLAGS, ContractConfig, as_contract_config

PROTECTED_TOOL = "claim_protected_action"
"""The forbidden tool: executing or claiming the accountable final action."""

NODE_FIELDS = ("id", "trigger", "clock", "recipient", "channel", "owner", "receipt_stage",
               "status")
"""The fields of a contract node, as the agent must reproduce them."""


@attrs.frozen
class CompiledContract:
    """The machine-checkable gold contract of one scenario (1.6's ``CompiledContract``; the
    model of the ``compiled_contract`` of kind ``contract-scenarios``).

    Attributes:
        family: the config's family.
        version: the config's ``policy_version``.
        expected_outcome: the outcome the one bounded action must carry.
        expected_reason_code: its reason code.
        required_evidence: evidence ids the case needs.
        held_evidence: those the case holds (evidence to rely on); the rest is to be requested.
        nodes: the applicable nodes with their gold status, in order (``NODE_FIELDS`` each).
        accessible_channel_required, recourse_required, deadline_required,
            emergency_path_required: protections the action must preserve.
        forbidden_events: tools whose execution breaks authority (``(PROTECTED_TOOL,)``).
    """

    family: str
    version: str
    expected_outcome: str
    expected_reason_code: str
    required_evidence: tuple[str, ...]
    held_evidence: tuple[str, ...]
    nodes: tuple[dict[str, str], ...]
    accessible_channel_required: bool = False
    recourse_required: bool = False
    deadline_required: bool = False
    emergency_path_required: bool = False
    forbidden_events: tuple[str, ...] = (PROTECTED_TOOL,)

    def as_dict(self) -> dict[str, Any]:
        """The contract as JSON (the ``compiled_contract`` of kind ``contract-scenarios``; tuples
        as lists). 1.x API, kept as a one-line delegation to aau-labs' converter."""
        return unstructure_lab(self)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> CompiledContract:
        """Inverse of ``as_dict`` (``doc`` already schema-valid). 1.x API, kept as a one-line
        delegation to aau-labs' converter."""
        return structure_lab(dict(doc), cls)


@attrs.frozen
class ContractScenario:
    """One synthetic case: what the tools show the agent, plus its gold contract (the model of
    one item of a ``contract-scenarios`` file; the tool payloads stay JSON objects).

    Attributes:
        scenario_id: ``<scenario_prefix>-<index:03d>``.
        case_text: the first user message (``"Case <case_id>. <template message>"``).
        case_id: ``<case_prefix>-<5 digits>``.
        record: what ``get_contract_case`` returns (scope, rule code, facts, applicable nodes
            with their facts, conflict and protected-action markers, protections due).
        evidence_registry: what ``get_evidence_registry`` returns (required, held, missing).
        policy_snapshot: ``{version, rule_code, source_note}``.
        archetype: one of ``ARCHETYPE_ORDER``.
        compiled_contract: the gold ``CompiledContract``.
        detail: ``{engineered_missing: id | None, rule_code}``.
    """

    scenario_id: str
    case_text: str
    case_id: str
    record: dict[str, Any]
    evidence_registry: dict[str, Any]
    policy_snapshot: dict[str, Any]
    archetype: str
    compiled_contract: CompiledContract
    detail: dict[str, Any] = attrs.field(factory=dict)

    def contract(self) -> CompiledContract:
        """The gold contract (1.6 kept it as a dict and rebuilt it here)."""
        return self.compiled_contract

    def as_dict(self) -> dict[str, Any]:
        """The scenario as one item of a ``contract-scenarios`` file. 1.x API, kept as a
        one-line delegation to aau-labs' converter."""
        return unstructure_lab(self)


def _expected_nodes(config: ContractConfig, template: Mapping[str, Any]) -> list[dict[str, str]]:
    overrides = template.get("node_status", {})
    nodes = [config.node(node_id) for node_id in template.get("node_ids", config.node_ids)]
    for node in nodes:
        node["status"] = overrides.get(node["id"], node["status"])
    return nodes


def _scenario(config: ContractConfig, index: int, case_id: str) -> ContractScenario:
    archetype = ARCHETYPE_ORDER[index % len(ARCHETYPE_ORDER)]
    template = config.archetypes[archetype]
    missing = template.get("missing_evidence")
    required = list(template.get("required_evidence", config.evidence))
    held = [item for item in required if item != missing]
    if archetype == "OUTSIDE_SCOPE":
        required, held = [], []
    nodes = _expected_nodes(config, template)
    contract = CompiledContract(
        family=config.family,
        version=config.policy_version,
        expected_outcome=template["outcome"],
        expected_reason_code=template["reason_code"],
        required_evidence=tuple(required),
        held_evidence=tuple(held),
        nodes=tuple(nodes),
        **{flag: bool(template.get(flag, False)) for flag in FLAGS},
    )
    record = {
        "case_id": case_id,
        "scope_status": "outside_scope" if archetype == "OUTSIDE_SCOPE" else "in_scope",
        "rule_code": template["rule_code"],
        "facts": dict(template.get("facts", {})),
        "applicable_node_ids": [node["id"] for node in nodes],
        "node_facts": [dict(node) for node in nodes],
        "record_conflict": archetype == "RECORD_CONFLICT",
        "protected_action_requested": archetype == "AUTHORITY_TRAP",
        "accessible_channel_due": contract.accessible_channel_required,
        "recourse_due": contract.recourse_required,
        "deadline_at_risk": contract.deadline_required,
        "emergency_path_live": contract.emergency_path_required,
    }
    registry = {
        "case_id": case_id,
        "required_evidence": required,
        "held_evidence": held,
        "missing_evidence": [item for item in required if item not in held],
    }
    return ContractScenario(
        scenario_id=lab_scenario_id(config.scenario_prefix, index),
        case_text=f"Case {case_id}. {template['message']}",
        case_id=case_id,
        record=record,
        evidence_registry=registry,
        policy_snapshot={"version": config.policy_version, "rule_code": template["rule_code"],
                         "source_note": config.source_note},
        archetype=archetype,
        compiled_contract=contract,
        detail={"engineered_missing": missing, "rule_code": template["rule_code"]},
    )


def generate_contract_scenarios(config: ContractConfig | Mapping[str, Any], n: int = 32,
                                seed: int | None = None) -> list[ContractScenario]:
    """Generate ``n`` balanced, seed-deterministic scenarios (module docstring).

    Args:
        config: a ``ContractConfig`` or a ``contract-config`` document.
        n: number of scenarios (>= 1; 8 or a multiple covers every archetype equally).
        seed: generation seed; ``None`` uses ``config.seed``.

    Returns:
        the scenarios, in index order.

    Raises:
        ValueError: ``n < 1``.
        InputError: an invalid config document.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    cfg = as_contract_config(config)
    rng = random.Random(cfg.seed if seed is None else seed)
    return [_scenario(cfg, i, f"{cfg.case_prefix}-{rng.randrange(10000, 99999)}")
            for i in range(n)]


def contract_scenario_to_dict(scenario: ContractScenario) -> dict[str, Any]:
    """A scenario as one item of a ``contract-scenarios`` file (1.6's ``as_dict`` shape), by
    aau-labs' converter (the lab's ``scenario_to_dict``)."""
    return unstructure_lab(scenario)


def _consistency(doc: Mapping[str, Any]) -> tuple[str, str] | None:
    contract, record, registry = doc["compiled_contract"], doc["record"], doc["evidence_registry"]
    if record["case_id"] != doc["case_id"]:
        return "the record's case_id is not the scenario's", "record.case_id"
    if registry["case_id"] != doc["case_id"]:
        return "the registry's case_id is not the scenario's", "evidence_registry.case_id"
    required, held = contract["required_evidence"], contract["held_evidence"]
    if not set(held) <= set(required):
        return "held evidence outside the required evidence", "compiled_contract.held_evidence"
    if registry["required_evidence"] != required or registry["held_evidence"] != held:
        return ("the registry's evidence differs from the contract's",
                "evidence_registry.required_evidence")
    if registry["missing_evidence"] != [e for e in required if e not in held]:
        return "missing_evidence is not required minus held", "evidence_registry.missing_evidence"
    if record["node_facts"] != contract["nodes"]:
        return "the record's node_facts differ from the contract's nodes", "record.node_facts"
    if record["applicable_node_ids"] != [node["id"] for node in contract["nodes"]]:
        return "applicable_node_ids do not name the contract's nodes", "record.applicable_node_ids"
    if len({node["id"] for node in contract["nodes"]}) != len(contract["nodes"]):
        return "a node id is used twice", "compiled_contract.nodes"
    return None


def contract_scenario_from_dict(doc: Mapping[str, Any]) -> ContractScenario:
    """Inverse of ``contract_scenario_to_dict`` for a schema-valid item.

    Raises:
        InputError: (no path: the scenario file reader adds ``$.scenarios[i]``; the message
            names the field) the item disagrees with itself: record
            or registry of another case, held evidence not required, a registry that is not the
            contract's, node facts that are not the contract's nodes, duplicate node ids.
    """
    problem = _consistency(doc)
    if problem is not None:
        raise InputError(f"{problem[1]}: {problem[0]}")
    return structure_lab(dict(doc), ContractScenario)
