"""Drift tests: aau-navigator's document models against their schemas (``_converter``).

For every model: its document keys equal the schema's ``properties`` and the keys it always
writes equal the schema's ``required`` (``$ref`` followed through aau_schemas' resources);
every valid example of its kind round-trips (check -> structure -> unstructure -> equal, and
byte-identical after the canonical writer); what the navigator writes validates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_core._files._converter import document_keys, optional_keys
from aau_core._files._writing import render_json
from aau_navigator import (
    CatalogEntry,
    Check,
    DoctorReport,
    DoctorReportDocument,
    doctor_project,
    load_catalog,
)
from aau_navigator._converter import navigator_converter
from aau_navigator._lab_evidence import ResultEvidence
from referencing import Registry

REPO = Path(__file__).resolve().parents[3]
VALID = REPO / "schemas" / "navigator" / "v1" / "examples" / "valid"
GALLERY_KEYS = {"scenario_count", "observed_failure_modes", "source_links"}
"""The keys of a gallery entry's ``evidence`` the gallery adds to ``ResultEvidence``'s."""


def _properties(kind: str, pointer: str) -> dict[str, Any]:
    """The schema node at ``pointer`` of ``kind``, ``$ref`` by ``$ref`` through the resources."""
    resolver = Registry().with_contents(aau_schemas.all_schema_resources()).resolver()
    node = resolver.lookup(aau_schemas.kind_info(kind).schema_id + "#" + pointer)
    while "$ref" in node.contents:
        node = node.resolver.lookup(node.contents["$ref"])
    return node.contents


MODELS = [
    (CatalogEntry, "catalog-entry", ""),
    (DoctorReportDocument, "doctor-report", ""),
    (Check, "doctor-report", "/properties/checks/items"),
]


@pytest.mark.parametrize(("cls", "kind", "pointer"), MODELS, ids=[m[0].__name__ for m in MODELS])
def test_fields_and_required_match_the_schema(cls: type, kind: str, pointer: str) -> None:
    node = _properties(kind, pointer)
    keys = document_keys(cls)
    assert len(keys) == len(set(keys))
    assert set(keys) == set(node["properties"])
    assert set(keys) - optional_keys(cls) == set(node["required"])


def test_result_evidence_is_the_gallery_evidence_but_what_the_gallery_adds() -> None:
    node = _properties("gallery-report", "/$defs/item/properties/evidence")
    keys = document_keys(ResultEvidence)
    assert not GALLERY_KEYS & set(keys)
    assert set(keys) | GALLERY_KEYS == set(node["properties"]) == set(node["required"])


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


ROUND_TRIPS = {"catalog-entry": CatalogEntry, "catalog": list[CatalogEntry],
               "use-cases": list[CatalogEntry], "doctor-report": DoctorReportDocument}


def _kind(path: Path) -> str | None:
    """The kind an example is of, by the longest kind its name starts with."""
    return next((kind for kind in sorted(ROUND_TRIPS, key=len, reverse=True)
                 if path.name.startswith(f"{kind}-")), None)


EXAMPLES = [(p, _kind(p)) for p in sorted(VALID.glob("*.json")) if _kind(p)]


def test_every_kind_has_examples() -> None:
    assert {kind for _, kind in EXAMPLES} == set(ROUND_TRIPS)


@pytest.mark.parametrize(("path", "kind"), EXAMPLES, ids=[p.name for p, _ in EXAMPLES])
def test_valid_examples_round_trip(path: Path, kind: str) -> None:
    doc = _load(path)
    aau_schemas.validate(kind, doc)
    part = doc["entries"] if kind == "catalog" else doc
    conv = navigator_converter()
    again = conv.unstructure(conv.structure(part, ROUND_TRIPS[kind]))
    assert again == part
    assert render_json(again) == render_json(part)


def test_gallery_evidence_round_trips_its_result_part() -> None:
    for path in sorted(VALID.glob("gallery-report-*.json")):
        for item in _load(path)["entries"]:
            evidence = item["evidence"]
            model = navigator_converter().structure(evidence, ResultEvidence)
            part = {k: v for k, v in evidence.items() if k not in GALLERY_KEYS}
            assert model.to_dict() == part


def test_what_the_navigator_writes_validates(tmp_path: Path) -> None:
    for entry in load_catalog().entries:
        aau_schemas.validate("catalog-entry", entry.to_dict())
    report = doctor_project(tmp_path)
    assert isinstance(report, DoctorReport) and not report.ready
    doc = report.to_dict()
    aau_schemas.validate("doctor-report", doc)
    assert navigator_converter().structure(doc, DoctorReportDocument) == report.document()
