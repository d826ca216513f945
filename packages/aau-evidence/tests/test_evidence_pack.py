"""Evidence packs: written atomically and self-verified, round trip, every tamper detected, and the
aau-harness 1.6 pack regenerated with our tools."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import InputError, InvalidDocumentError, OutputError
from aau_evidence._evidence_pack import (
    PackVerificationError,
    pack_problems,
    verify_evidence_pack,
    write_evidence_pack,
)

COMPAT_EVIDENCE = SHARED / "compat" / "aau-1.6" / "evidence"


@pytest.fixture
def pack(chain: Any, tmp_path: Path) -> Path:
    capsule = chain.write_capsule(chain.capsule())
    write_evidence_pack(capsule, chain.root, tmp_path / "pack")
    return tmp_path / "pack"


def test_round_trip_and_outputs_validate(chain: Any, pack: Path) -> None:
    result = verify_evidence_pack(pack)
    assert result == {"ready": True, "capsule_id": "public-service-routing-impact",
                      "derived_status": "independently_reproduced", "file_count": 10}
    manifest = json.loads((pack / "manifest.json").read_text())
    assert aau_schemas.is_valid("evidence-pack-manifest", manifest)
    assert aau_schemas.is_valid("pack-manifest", manifest)
    assert aau_schemas.is_valid("capsule-comparison",
                                json.loads((pack / "comparison.json").read_text()))
    assert aau_schemas.is_valid("impact-capsule", json.loads((pack / "capsule.json").read_text()))
    rows = {r["path"]: r["source_path"] for r in manifest["files"]}
    assert rows == {
        "README.md": None, "capsule.json": None, "comparison.json": None,
        "artifacts/agent-receipt.json": "results/agent-receipt.json",
        "artifacts/human-baseline.json": "human/report.json",
        "artifacts/human-study.json": "human/study.json",
        "artifacts/observation.json": "public-value/observation.json",
        "artifacts/reproduction.json": "reproductions/rerun.json",
        "artifacts/suite.json": "suites/reference-suite.json"}
    for name, source in rows.items():
        if source:
            assert (pack / name).read_bytes() == chain.files[source]
    assert "aau evidence verify ." in (pack / "README.md").read_text()


def test_existing_destination_and_invalid_capsule_write_nothing(chain: Any, pack: Path,
                                                                 tmp_path: Path) -> None:
    capsule = chain.root / "capsules" / "capsule.json"
    with pytest.raises(OutputError, match="exists"):
        write_evidence_pack(capsule, chain.root, pack)
    bad = chain.capsule()
    bad["status"] = "independently_reproduced"
    bad["artifacts"]["reproduction"] = None
    path = chain.write_capsule(bad, "bad.json")
    with pytest.raises(InvalidDocumentError, match=r"\$.status: inflated"):
        write_evidence_pack(path, chain.root, tmp_path / "other")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack", "repo"]


def _problems(pack: Path) -> list[str]:
    with pytest.raises(PackVerificationError) as info:
        verify_evidence_pack(pack)
    return info.value.problems


def test_tamper_one_byte(pack: Path) -> None:
    target = pack / "artifacts" / "suite.json"
    data = bytearray(target.read_bytes())
    data[10] ^= 1
    target.write_bytes(bytes(data))
    assert _problems(pack) == [f"{target}: SHA-256 differs from the manifest (changed)"]


def test_tamper_file_added(pack: Path) -> None:
    (pack / "artifacts" / "notes.txt").write_text("hi")
    assert _problems(pack) == [
        f"{pack / 'artifacts' / 'notes.txt'}: not listed in the manifest (added)"]


def test_tamper_file_removed(pack: Path) -> None:
    (pack / "artifacts" / "human-study.json").unlink()
    assert _problems(pack) == [
        f"{pack / 'artifacts' / 'human-study.json'}: listed in the manifest but missing (removed)"]


def test_tamper_symlink_swapped_in(pack: Path, tmp_path: Path) -> None:
    target = pack / "artifacts" / "observation.json"
    copy = tmp_path / "copy.json"
    copy.write_bytes(target.read_bytes())
    target.unlink()
    target.symlink_to(copy)
    assert _problems(pack) == [f"{target}: a symlink; packs hold regular files only"]


def test_consistent_rewrite_of_capsule_and_manifest_is_caught(pack: Path) -> None:
    """Re-hashing after an edit passes the manifest, but not the capsule rules or comparison."""
    capsule = json.loads((pack / "capsule.json").read_text())
    capsule["status"] = "independently_reproduced"
    capsule["artifacts"]["agent_receipt"]["primary_metric"]["value"] = 0.9
    _rewrite(pack, "capsule.json", capsule)
    problems = _problems(pack)
    assert any("primary_metric.value: " in p and "metrics.exact_rate is 0.75" in p
               for p in problems)
    comparison = json.loads((pack / "comparison.json").read_text())
    comparison["claims"]["causal_impact_proved"] = True
    capsule["artifacts"]["agent_receipt"]["primary_metric"]["value"] = 0.75
    _rewrite(pack, "capsule.json", capsule)
    _rewrite(pack, "comparison.json", comparison)
    assert _problems(pack) == [f"{pack / 'comparison.json'}: $: does not recompute from "
                               "capsule.json (stale or edited)"]


def _rewrite(pack: Path, name: str, doc: dict[str, Any]) -> None:
    import hashlib

    data = (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()
    (pack / name).write_bytes(data)
    manifest = json.loads((pack / "manifest.json").read_text())
    for row in manifest["files"]:
        if row["path"] == name:
            row.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    (pack / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def test_manifest_rows_outside_the_capsule_are_refused(pack: Path) -> None:
    manifest = json.loads((pack / "manifest.json").read_text())
    manifest["claims"]["deployment_authorized"] = True
    (pack / "manifest.json").write_text(json.dumps(manifest))
    assert _problems(pack)[0].startswith(f"{pack / 'manifest.json'}: $.claims: ")


def test_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a folder"):
        verify_evidence_pack(tmp_path / "missing")


@pytest.mark.skipif(not SHARED.is_dir(), reason=SHARED_MISSING)
def test_the_16_pack_regenerated_with_our_tools(tmp_path: Path) -> None:
    """1.6's pack-generated/ lost files, so it fails verification; regenerating it from the
    capsule gives the same manifest rows (our README aside) and the same comparison bytes."""
    broken = tmp_path / "pack-generated"
    shutil.copytree(COMPAT_EVIDENCE / "pack-generated", broken)
    problems = pack_problems(broken)
    assert f"{broken / 'capsule.json'}: listed in the manifest but missing (removed)" in problems
    capsule = (COMPAT_EVIDENCE / "capsule-root/evidence-commons/capsules/"
               "foia-routing-impact-pilot.json")
    out = tmp_path / "regenerated"
    write_evidence_pack(capsule, COMPAT_EVIDENCE / "capsule-root", out)
    assert verify_evidence_pack(out)["derived_status"] == "partner_sought"
    ours = json.loads((out / "manifest.json").read_text())
    theirs = json.loads((COMPAT_EVIDENCE / "pack-generated/manifest.json").read_text())
    assert [r for r in ours["files"] if r["path"] != "README.md"] == [
        r for r in theirs["files"] if r["path"] != "README.md"]
    assert {k: v for k, v in ours.items() if k != "files"} == {
        k: v for k, v in theirs.items() if k != "files"}
    assert (out / "comparison.json").read_bytes() == (
        COMPAT_EVIDENCE / "pack-generated/comparison.json").read_bytes()
