"""Drift tests for the release-gate models (``aau_evidence._release_models``) against
``schemas/release/v1``, and round trips through the package converter.

- Every model is mapped to its schema object; its field names equal the object's
  ``properties`` (or, for a ``const`` object, the constant's keys) and, as every release key is
  required, its ``required`` set; every release object is closed.
- Every valid example round-trips: read (schema, then code rules, then structure) ->
  unstructure -> equal, and byte-identical under the 1.6 release writer (``release_bytes``).
- What the builders write validates: the diff of the two example snapshots is the example diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

import aau_schemas
import attrs
import pytest
from aau_evidence import _release_models as M
from aau_evidence import diff_snapshots, release_bytes
from aau_evidence._release_documents import (
    check_approval,
    check_decision,
    check_diff,
    check_manifest,
    check_pack_manifest,
    check_plan,
    check_policy,
    check_snapshot,
    document,
)

EXAMPLES = Path(aau_schemas.schema_root()) / "release/v1/examples/valid"

# model -> (aau-schemas kind, JSON pointer of its object in that kind's schema)
SCHEMA_OF: dict[type, tuple[str, str]] = {
    M.ReleaseManifest: ("release-manifest", ""),
    M.ManifestComponent: ("release-manifest", "/properties/components/items"),
    M.ReleaseSharing: ("release-manifest", "/$defs/sharing"),
    M.ReleaseSnapshot: ("release-snapshot", ""),
    M.SnapshotComponent: ("release-snapshot", "/properties/components/items"),
    M.ReleaseDiff: ("release-diff", ""),
    M.DiffChange: ("release-diff", "/properties/changes/items"),
    M.ReleasePolicy: ("release-policy", ""),
    M.PolicyRequirement: ("release-policy", "/properties/requirements/items"),
    M.PolicyBoundaries: ("release-policy", "/properties/boundaries"),
    M.EvidencePlan: ("release-evidence-plan", ""),
    M.PlannedSuite: ("release-evidence-plan", "/properties/suites/items"),
    M.ReleaseApproval: ("release-approval", ""),
    M.ReleaseDecision: ("release-decision", ""),
    M.EvidenceRow: ("release-decision", "/properties/evidence/items"),
    M.DecisionReview: ("release-decision", "/properties/review"),
    M.DecisionBoundary: ("release-decision", "/properties/boundary"),
    M.ReviewRequirement: ("release-policy", "/properties/review_requirements/items"),
    M.ReviewEvidenceRow: ("release-decision", "/properties/review_evidence/items"),
    M.ReleasePackManifest: ("release-pack-manifest", ""),
    M.ReleasePackFile: ("release-pack-manifest", "/properties/files/items"),
}

READER = {
    "release-manifest": check_manifest, "release-snapshot": check_snapshot,
    "release-diff": check_diff, "release-policy": check_policy,
    "release-evidence-plan": check_plan, "release-approval": check_approval,
    "release-decision": check_decision, "release-pack-manifest": check_pack_manifest,
}


def _pointer(doc: Any, pointer: str) -> Any:
    for part in [p for p in pointer.split("/") if p]:
        doc = doc[part.replace("~1", "/").replace("~0", "~")]
    return doc


def _object(kind: str, pointer: str) -> tuple[set[str], set[str], bool]:
    """``(properties, required, closed)`` of a schema object, following its ``$ref`` chain; a
    ``const`` object's keys are its properties, all required."""
    base = aau_schemas.kind_info(kind).schema_id
    node = _pointer(aau_schemas.schema_by_id(base), pointer)
    props: set[str] = set()
    required: set[str] = set()
    closed = False
    while True:
        if isinstance(node.get("const"), dict):
            props |= set(node["const"])
            required |= set(node["const"])
            closed = True
        props |= set(node.get("properties", {}))
        required |= set(node.get("required", []))
        closed = closed or node.get("additionalProperties") is False
        if "$ref" not in node:
            return props, required, closed
        target, fragment = urldefrag(urljoin(base, node["$ref"]))
        base = target
        node = _pointer(aau_schemas.schema_by_id(target), fragment)


def test_every_model_is_mapped_to_a_schema_object() -> None:
    found = {obj for obj in vars(M).values()
             if isinstance(obj, type) and attrs.has(obj) and obj.__module__ == M.__name__}
    assert found == set(SCHEMA_OF)
    assert {kind: SCHEMA_OF[model] for kind, model in M.MODELS.items()} == {
        kind: (kind, "") for kind in M.MODELS}
    assert set(READER) == set(M.MODELS)


@pytest.mark.parametrize("kind", list(M.MODELS))
def test_the_shared_drift_walk_agrees(kind: str) -> None:
    from aau_core._files._model_drift import model_schema_drift
    from aau_evidence._converter import converter

    assert model_schema_drift(M.MODELS[kind], kind, converter=converter) == []


@pytest.mark.parametrize("model", list(SCHEMA_OF), ids=lambda m: m.__name__)
def test_model_fields_match_the_schema(model: type) -> None:
    from aau_core._files._converter import is_optional

    props, required, closed = _object(*SCHEMA_OF[model])
    names = {f.name for f in attrs.fields(model)}
    assert names == props
    assert {f.name for f in attrs.fields(model) if not is_optional(f)} == required
    assert closed


VALID = sorted(EXAMPLES.glob("*.json")) + sorted(
    (Path(aau_schemas.schema_root()) / "release/v1.1/examples/valid").glob("*.json"))


def test_every_kind_has_a_valid_example() -> None:
    kinds = {aau_schemas.detect_kind(json.loads(p.read_text(encoding="utf-8"))) for p in VALID}
    assert kinds == set(M.MODELS)


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_example_round_trips(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    kind = aau_schemas.detect_kind(doc)
    model = READER[kind](doc, str(path))
    assert isinstance(model, M.MODELS[kind])
    again = document(model)
    assert again == doc
    assert release_bytes(model) == release_bytes(doc)
    aau_schemas.validate(kind, again)


def test_a_reader_refuses_before_structuring() -> None:
    from aau_core import InvalidDocumentError

    doc = json.loads((EXAMPLES / "policy-synthetic.json").read_text(encoding="utf-8"))
    doc["requirements"][0]["minimum_exact_rate"] = "1"
    with pytest.raises(InvalidDocumentError, match=r"\$\.requirements\[0\]\.minimum_exact_rate"):
        check_policy(doc, "p.json")


def test_the_diff_of_the_example_snapshots_is_the_example_diff() -> None:
    def read(name: str) -> Any:
        return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))

    diff = diff_snapshots(check_snapshot(read("snapshot-baseline.json"), "b"),
                          check_snapshot(read("snapshot-candidate.json"), "c"))
    aau_schemas.validate("release-diff", document(diff))
    assert release_bytes(diff) == release_bytes(read("diff-ready.json"))
