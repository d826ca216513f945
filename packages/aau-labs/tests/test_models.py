"""Drift tests: aau-labs' document models against their schemas (``aau_labs._converter``).

For every model: its document keys equal the schema's ``properties`` and the keys it always
writes equal the schema's ``required`` (``$ref`` followed through aau_schemas' resources);
every valid example of its kind round-trips (check -> structure -> unstructure -> equal, and
byte-identical after the canonical writer); every scenario file the labs write validates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_core._files._converter import document_keys, optional_keys
from aau_core._files._writing import render_json
from aau_labs import (
    CompiledContract,
    ContractScenario,
    GateContract,
    GateScenario,
    PublicValueContract,
    ServiceScenario,
)
from aau_labs._converter import structure_lab, unstructure_lab
from aau_labs._frame._lab_spec import scenarios_document
from aau_labs._frame._registry import lab_for_config_kind
from referencing import Registry, Resource

REPO = Path(__file__).resolve().parents[3]
VALID = REPO / "schemas" / "lab" / "v1" / "examples" / "valid"


def _schema_node(kind: str, pointer: str) -> dict[str, Any]:
    """The node at ``pointer`` of ``kind``'s schema, its ``$ref`` chain followed."""
    found = Registry().with_resources(
        (uri, Resource.from_contents(doc)) for uri, doc in aau_schemas.all_schema_resources()
    ).resolver().lookup(f"{aau_schemas.kind_info(kind).schema_id}#{pointer}")
    while "$ref" in found.contents:
        found = found.resolver.lookup(found.contents["$ref"])
    return found.contents


MODELS = [
    (GateScenario, "gate-scenarios", "/$defs/scenario"),
    (GateContract, "gate-scenarios", "/$defs/contract"),
    (ContractScenario, "contract-scenarios", "/$defs/scenario"),
    (CompiledContract, "contract-scenarios", "/$defs/scenario/properties/compiled_contract"),
    (ServiceScenario, "service-scenarios", "/$defs/scenario"),
    (PublicValueContract, "public-value-contract", ""),
]


@pytest.mark.parametrize(("cls", "kind", "pointer"), MODELS, ids=[m[0].__name__ for m in MODELS])
def test_fields_and_required_match_the_schema(cls: type, kind: str, pointer: str) -> None:
    node = _schema_node(kind, pointer)
    keys = document_keys(cls)
    assert len(keys) == len(set(keys))
    assert set(keys) == set(node["properties"])
    assert set(keys) - optional_keys(cls) == set(node["required"])


SCENARIO_FILES = {"gate-scenarios": GateScenario, "contract-scenarios": ContractScenario,
                  "service-scenarios": ServiceScenario}
EXAMPLES = sorted(VALID.glob("*.json"))


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


KINDS = (*SCENARIO_FILES, "public-value-contract")
ROUND_TRIPS = [p for p in EXAMPLES if p.name.startswith(KINDS)]


def test_every_kind_has_examples() -> None:
    assert {kind for kind in KINDS for p in ROUND_TRIPS if p.name.startswith(kind)} == set(KINDS)


def _round_trip(kind: str, doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` checked, its models structured and unstructured again."""
    aau_schemas.validate(kind, doc)
    if kind == "public-value-contract":
        return unstructure_lab(structure_lab(doc, PublicValueContract))
    models = [structure_lab(item, SCENARIO_FILES[kind]) for item in doc["scenarios"]]
    return {**doc, "scenarios": unstructure_lab(models)}


@pytest.mark.parametrize("path", ROUND_TRIPS, ids=lambda p: p.name)
def test_valid_examples_round_trip(path: Path) -> None:
    doc = _load(path)
    kind = aau_schemas.detect_kind(doc) or "public-value-contract"
    again = _round_trip(kind, doc)
    assert again == doc
    assert render_json(again) == render_json(doc)


def test_nested_contracts_round_trip_through_their_models() -> None:
    for path, key, cls in [(VALID / "gate-scenarios-river-permit-desk.json", "gate_contract",
                            GateContract),
                           (VALID / "contract-scenarios-heritage-tree-permit.json",
                            "compiled_contract", CompiledContract),
                           (VALID / "service-scenarios-eight.json", "public_value_contract",
                            PublicValueContract)]:
        for item in _load(path)["scenarios"]:
            assert unstructure_lab(structure_lab(item[key], cls)) == item[key]


def test_a_model_check_raises_its_own_error() -> None:
    doc = _load(VALID / "public-value-contract-referral.json")
    doc = {**doc, "required_evidence": [], "held_evidence": ["x"]}
    aau_schemas.validate("public-value-contract", doc)  # the schema cannot say it
    with pytest.raises(ValueError, match="held_evidence must be a subset"):
        PublicValueContract.from_dict(doc)


CONFIGS = sorted(p for p in (REPO / "examples" / "labs").glob("*.json")
                 if not p.name.endswith(".scenarios.json"))


@pytest.mark.parametrize("config", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_what_the_labs_write_validates(config: Path) -> None:
    config_doc = _load(config)
    spec = lab_for_config_kind(aau_schemas.detect_kind(config_doc))
    scenarios = spec.generate(spec.load_config(config_doc), 16, None)
    doc = scenarios_document(spec, config_doc, scenarios, None, 16)
    aau_schemas.validate(spec.scenarios_kind, doc)
    assert [spec.scenario_from_dict(item) for item in doc["scenarios"]] == scenarios
