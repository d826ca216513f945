"""The impact-capsule models against their schemas: same fields and required sets, every valid
example round-trips byte for byte, and every document the code writes validates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_core import render_json
from aau_core._files._model_drift import model_schema_drift
from aau_evidence import (
    CapsuleComparison,
    EvidencePackManifest,
    build_comparison,
    comparison_model,
    write_evidence_pack,
)
from aau_evidence._capsule import render
from aau_evidence._converter import converter
from aau_evidence._models import MODELS as CAPSULE_MODELS
from aau_evidence._submission_models import MODELS as SUBMISSION_MODELS

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "schemas" / "evidence" / "v1" / "examples" / "valid"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json")) + sorted(
    (REPO / "schemas" / "evidence" / "v1.1" / "examples" / "valid").glob("*.json"))
SUBMISSION_EXAMPLES = REPO / "schemas" / "submission" / "v1" / "examples" / "valid"
MODELS = {**CAPSULE_MODELS, **SUBMISSION_MODELS}
ROUND_TRIP_FILES = EXAMPLE_FILES + sorted(
    p for p in SUBMISSION_EXAMPLES.glob("*.json") if p.name.startswith(("validation-",
                                                                        "manifest-")))


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_model_fields_and_required_sets_equal_the_schema(kind):
    assert model_schema_drift(MODELS[kind], kind, converter=converter) == []


def test_every_schema_kind_of_the_family_has_a_model():
    family = {info.kind for info in aau_schemas.kinds()
              if info.path.startswith(("evidence/v1/", "evidence/v1.1/"))}
    assert family == set(CAPSULE_MODELS)
    assert {aau_schemas.detect_kind(json.loads(p.read_text(encoding="utf-8")))
            for p in ROUND_TRIP_FILES} == set(MODELS)


@pytest.mark.parametrize("path", ROUND_TRIP_FILES, ids=[p.name for p in ROUND_TRIP_FILES])
def test_every_valid_example_round_trips(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    kind = aau_schemas.detect_kind(doc)
    aau_schemas.validate(kind, doc)
    model = converter.structure(doc, MODELS[kind])
    assert isinstance(model, MODELS[kind])
    back = converter.unstructure(model)
    assert back == doc
    assert render(back) == render(doc)  # aau-harness 1.6's evidence rendering
    assert render_json(back) == render_json(doc)
    assert converter.structure(back, MODELS[kind]) == model


@pytest.mark.parametrize("name", ["foia-routing-impact-pilot", "independently-reproduced"])
def test_the_example_comparisons_recompute_from_their_capsules(name):
    capsule = json.loads((EXAMPLES / f"impact-capsule-{name}.json").read_text(encoding="utf-8"))
    expected = json.loads((EXAMPLES / f"capsule-comparison-{name}.json").read_text(
        encoding="utf-8"))
    model = comparison_model(capsule)
    assert isinstance(model, CapsuleComparison)
    assert build_comparison(capsule) == expected
    assert render(build_comparison(capsule)) == render(expected)
    aau_schemas.validate("capsule-comparison", build_comparison(capsule))


def test_a_written_pack_manifest_and_comparison_are_their_models(chain: Any, tmp_path: Path):
    capsule = chain.write_capsule(chain.capsule())
    write_evidence_pack(capsule, chain.root, tmp_path / "pack")
    manifest = json.loads((tmp_path / "pack" / "manifest.json").read_text(encoding="utf-8"))
    aau_schemas.validate("evidence-pack-manifest", manifest)
    model = converter.structure(manifest, EvidencePackManifest)
    assert converter.unstructure(model) == manifest
    assert [row.source_path is None for row in model.files].count(True) == 3  # generated files
    comparison = json.loads((tmp_path / "pack" / "comparison.json").read_text(encoding="utf-8"))
    aau_schemas.validate("capsule-comparison", comparison)
    assert comparison == converter.unstructure(comparison_model(chain.capsule()))


def test_a_submission_verdict_is_its_model_written(tmp_path: Path):
    """``aau submit --json``'s verdict: every key written (nulls included), and it validates."""
    from aau_evidence import SubmissionReport

    report = SubmissionReport(str(tmp_path), ("x: $: broken",), file_count=3)
    doc = converter.unstructure(report.verdict())
    aau_schemas.validate("submission-validation", doc)
    assert doc["declared_level"] is None and doc["declared_checks_version"] is None
    assert doc["problems"] == ["x: $: broken"] and doc["ready"] is False
    assert set(doc) == set(aau_schemas.schema("submission-validation")["properties"])
