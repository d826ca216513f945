"""The shared manifest layer reads every aau-harness 1.6 pack family: human-baseline, impact
(evidence), community submission and release packs (their generated packs in ../shared lost
some files, which it names), and each family's manifest has the generic `pack-manifest` shape."""

from __future__ import annotations

import json
from pathlib import Path

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import verify_manifest_dir

REPO = Path(__file__).resolve().parents[3]
BASELINE_PACK = REPO / "packages/aau-baseline/tests/fixtures/reference-pack"
COMPAT = SHARED / "compat" / "aau-1.6"


def test_the_16_baseline_pack_verifies() -> None:
    assert verify_manifest_dir(BASELINE_PACK, version="aau-human-baseline-manifest/1.0") == []
    manifest = json.loads((BASELINE_PACK / "manifest.json").read_text())
    assert aau_schemas.is_valid("pack-manifest", manifest)


@pytest.mark.skipif(not SHARED.is_dir(), reason=SHARED_MISSING)
@pytest.mark.parametrize("folder, version_key, version, removed", [
    ("evidence/pack-generated", "pack_version", "aau-impact-pack/1.0",
     ["README.md", "artifacts/agent-receipt.json", "artifacts/suite.jsonl", "capsule.json"]),
    ("submission", "manifest_version", "aau-community-evidence-manifest/1.0",
     ["CONTRIBUTION_CHECKLIST.md", "README.md", "SOURCE_LEDGER.md", "assets/evidence-card.svg"]),
    ("release/generated-pack-ready/pack", "manifest_version", "aau-agent-release-pack/1.0",
     ["README.md"]),
])
def test_the_16_generated_packs_name_their_missing_files(folder: str, version_key: str,
                                                         version: str, removed: list[str]) -> None:
    root = COMPAT / folder
    problems = verify_manifest_dir(root, version=version, version_key=version_key)
    assert problems == [f"{root / name}: listed in the manifest but missing (removed)"
                        for name in removed]
    manifest = json.loads((root / "manifest.json").read_text())
    assert aau_schemas.is_valid("pack-manifest", manifest)
    kind = aau_schemas.detect_kind(manifest)
    assert kind is not None and aau_schemas.is_valid(kind, manifest)
