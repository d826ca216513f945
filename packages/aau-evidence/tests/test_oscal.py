"""`aau release export-oscal` and the OSCAL mapping, checked against NIST's published OSCAL
assessment-results JSON Schema (tests/_oscal_schema.py fetches it, pinned by SHA-256)."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
from _helpers import SHARED, SHARED_MISSING, aau_script
from _oscal_schema import oscal_errors

PACK_16 = SHARED / "compat" / "aau-1.6" / "release" / "generated-pack-ready" / "pack"
needs_compat = pytest.mark.skipif(not PACK_16.is_dir(), reason=SHARED_MISSING)


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([aau_script(), *args], capture_output=True, text=True, timeout=60)


def _decision(**changes: Any) -> dict[str, Any]:
    """The 1.6 pack's decision with ``changes`` applied and its digest recomputed."""
    from aau_evidence import release_digest

    doc = _read(PACK_16 / "release-decision.json")
    doc.update(changes)
    doc["decision_sha256"] = release_digest({k: v for k, v in doc.items()
                                             if k != "decision_sha256"})
    return doc


@needs_compat
def test_the_16_oscal_document_recomputes_and_is_valid_oscal() -> None:
    from aau_evidence import oscal_assessment_results, release_bytes

    decision = _read(PACK_16 / "release-decision.json")
    doc = oscal_assessment_results(decision)
    assert release_bytes(doc) == (PACK_16 / "assessment-results.oscal.json").read_bytes()
    assert oscal_errors(doc) == []


@needs_compat
def test_blocked_and_review_decisions_are_valid_oscal() -> None:
    from aau_evidence import oscal_assessment_results

    blocked = _decision(status="release_blocked", evidence=[],
                        reason_codes=["NO_RELEASE_CHANGE", "UNMAPPED_CHANGE_TAG:egress"])
    doc = oscal_assessment_results(blocked, "urn:example:plan")
    result = doc["assessment-results"]["results"][0]
    assert "findings" not in result  # 1.6 wrote "findings": [], which OSCAL refuses
    assert [o["remarks"] for o in result["observations"]] == blocked["reason_codes"]
    assert oscal_errors(doc) == []
    failing = _read(PACK_16 / "release-decision.json")["evidence"]
    failing[0]["passes"] = False
    review = _decision(evidence=failing, adapter_kind="mock", status="release_blocked",
                       reason_codes=["SUITE_THRESHOLD_FAILED:aau-agent-release-conformance-v1:"
                                     "authority"])
    doc = oscal_assessment_results(review)
    states = [f["target"]["status"]["state"] for f in doc["assessment-results"]["results"][0]
              ["findings"]]
    assert states == ["not-satisfied", "satisfied", "satisfied"]
    assert oscal_errors(doc) == []


def test_the_schema_check_catches_an_invalid_document() -> None:
    """The validator is live: a finding state OSCAL does not define is refused."""
    if not PACK_16.is_dir():
        pytest.skip(SHARED_MISSING)
    doc = _read(PACK_16 / "assessment-results.oscal.json")
    doc["assessment-results"]["results"][0]["findings"][0]["target"]["status"]["state"] = "MET"
    assert oscal_errors(doc)
    del doc["assessment-results"]["import-ap"]
    assert any("import-ap" in line for line in oscal_errors(doc))


@needs_compat
def test_uuids_are_deterministic_version_5() -> None:
    from aau_evidence import oscal_assessment_results

    decision = _read(PACK_16 / "release-decision.json")
    first, second = oscal_assessment_results(decision), oscal_assessment_results(decision)
    assert first == second
    ids = [first["assessment-results"]["uuid"],
           *(o["uuid"] for o in first["assessment-results"]["results"][0]["observations"])]
    assert all(uuid.UUID(value).version == 5 for value in ids)
    other = oscal_assessment_results(_decision(effective_at="2026-09-01T00:00:00Z"))
    assert other["assessment-results"]["uuid"] != first["assessment-results"]["uuid"]


@needs_compat
def test_export_oscal_cli(tmp_path: Path) -> None:
    out = tmp_path / "results.oscal.json"
    proc = _run("release", "export-oscal", str(PACK_16 / "release-decision.json"), "--out",
                str(out), "--assessment-plan", "urn:aau:plan:1", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["finding_count"] == 3
    doc = _read(out)
    assert doc["assessment-results"]["import-ap"] == {"href": "urn:aau:plan:1"}
    assert oscal_errors(doc) == []
    again = _run("release", "export-oscal", str(PACK_16 / "release-decision.json"), "--out",
                 str(out))
    assert again.returncode == 2 and "exists" in again.stderr


@needs_compat
@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: d.pop("evidence"), '"evidence" is a required property'),  # 1.6: KeyError
    (lambda d: d.__setitem__("review", None), "$.review"),
    (lambda d: d.__setitem__("status", "release_ready!"), "$.status"),
    (lambda d: d.__setitem__("decision_sha256", "0" * 64), "$.decision_sha256"),
])
def test_export_oscal_refuses_partial_or_edited_decisions(tmp_path: Path, mutate: Any,
                                                          fragment: str) -> None:
    doc = _read(PACK_16 / "release-decision.json")
    mutate(doc)
    (tmp_path / "d.json").write_text(json.dumps(doc))
    out = tmp_path / "o.json"
    proc = _run("release", "export-oscal", str(tmp_path / "d.json"), "--out", str(out))
    assert proc.returncode == 2
    assert fragment in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


@needs_compat
@pytest.mark.parametrize("href", ["http://example.com/plan.json", "file:///etc/plan.json",
                                  "plan.json"])
def test_export_oscal_refuses_plans_that_are_not_https_or_urn(tmp_path: Path, href: str) -> None:
    proc = _run("release", "export-oscal", str(PACK_16 / "release-decision.json"), "--out",
                str(tmp_path / "o.json"), "--assessment-plan", href)
    assert proc.returncode == 2 and "https: or urn:" in proc.stderr
