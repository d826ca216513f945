"""An impact capsule 1.1 binds a review report (``aau review summarize``): checked on
``aau evidence validate`` and, through the evidence pack, on ``aau evidence verify``: the file
exists, has the declared SHA-256, is a schema-valid report that passes aau review's rules, and
reviews the capsule's own agent receipt and suite. The chain is the committed real-model run
(``examples/real/``) and the review example report computed from it."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from aau_core import InvalidDocumentError, run
from aau_evidence import check_capsule, derive_status
from aau_evidence._capsule import render

REPO = Path(__file__).resolve().parents[3]
CAPSULE = REPO / "schemas/evidence/v1.1/examples/valid/impact-capsule-bfcl-live-simple-reviewed.json"
FILES = ("examples/real/suites/bfcl-live_simple.json",
         "examples/real/receipts/bfcl-live_simple.json",
         "schemas/review/v1/examples/valid/report-live-simple.json")
REPORT = FILES[2]
RECEIPT_SHA256 = "618093055579b114cb771ff32d1afc1068f69a92d8170581ad3ccbd4d06974ae"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A repository root holding the capsule's three files, as committed."""
    out = tmp_path / "repo"
    for name in FILES:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, out / name)
    (out / "docs").mkdir()
    (out / "docs/use-cases.json").write_text("[]", encoding="utf-8")
    return out


def _capsule() -> dict[str, Any]:
    return json.loads(CAPSULE.read_text(encoding="utf-8"))


def _rebind_report(root: Path, doc: dict[str, Any], edit: Any) -> None:
    """Edit the report file, and bind the capsule to its new bytes (so only ``edit`` is wrong)."""
    path = root / REPORT
    report = json.loads(path.read_text(encoding="utf-8"))
    edit(report)
    path.write_text(json.dumps(report), encoding="utf-8")
    doc["artifacts"]["review_report"]["sha256"] = _sha(path.read_bytes())


def _problems(root: Path, doc: dict[str, Any]) -> list[str]:
    with pytest.raises(InvalidDocumentError) as info:
        check_capsule(doc, root, source="c.json")
    return str(info.value).splitlines()


def test_a_capsule_with_its_runs_review_report_validates(root: Path) -> None:
    doc = _capsule()
    assert doc["artifacts"]["review_report"]["receipt_sha256"] == RECEIPT_SHA256
    assert check_capsule(doc, root, source="c.json") is doc
    assert derive_status(doc) == "synthetic_reference"  # a review report changes no status


def test_a_1_0_capsule_without_a_review_report_still_validates(root: Path) -> None:
    doc = _capsule()
    del doc["artifacts"]["review_report"]
    doc["capsule_version"] = "aau-impact-capsule/1.0"
    assert check_capsule(doc, root, source="c.json") is doc


def test_a_review_report_in_a_1_0_capsule_is_a_schema_violation(root: Path) -> None:
    doc = _capsule()
    doc["capsule_version"] = "aau-impact-capsule/1.0"
    assert _problems(root, doc) == ['c.json: $.artifacts: "review_report" is not allowed here']


def test_the_report_of_another_receipt_is_refused(root: Path) -> None:
    doc = _capsule()
    other = "0" * 64
    _rebind_report(root, doc, lambda r: r["source"].update(receipt_sha256=other))
    assert _problems(root, doc) == [
        f"c.json: $.artifacts.review_report.path: {root / REPORT}: the report reviews another "
        f"receipt (SHA-256 {other}), not the capsule's agent receipt ({RECEIPT_SHA256})"]


def test_the_declared_receipt_must_be_the_agent_receipt(root: Path) -> None:
    doc = _capsule()
    doc["artifacts"]["review_report"]["receipt_sha256"] = "1" * 64
    assert _problems(root, doc) == [
        "c.json: $.artifacts.review_report.receipt_sha256: must be the agent receipt's SHA-256 "
        f"({RECEIPT_SHA256})"]


def test_the_report_of_another_suite_is_refused(root: Path) -> None:
    doc = _capsule()
    _rebind_report(root, doc, lambda r: r["source"].update(suite_id="another-suite"))
    assert _problems(root, doc) == [
        f"c.json: $.artifacts.review_report.path: {root / REPORT}: the report is for suite "
        "'another-suite', not the capsule's 'bfcl-v4-live_simple-first5'"]


def test_a_missing_drifted_invalid_or_inconsistent_report_is_refused(root: Path) -> None:
    doc = _capsule()
    (root / REPORT).unlink()
    assert _problems(root, doc) == [
        f"c.json: $.artifacts.review_report.path: {root / REPORT}: no such file"]
    shutil.copyfile(REPO / REPORT, root / REPORT)
    with (root / REPORT).open("ab") as f:
        f.write(b" ")
    [line] = _problems(root, doc)
    assert line.startswith("c.json: $.artifacts.review_report.sha256: ") and "hash drift" in line
    _rebind_report(root, doc, lambda r: r.update(unit_count="five"))
    assert _problems(root, doc) == [
        f"c.json: $.artifacts.review_report.path: {root / REPORT}: $.unit_count: "
        '"five" is not of type "integer"']
    _rebind_report(root, doc, lambda r: r.update(unit_count=6))  # consensus counts add up to 5
    assert _problems(root, doc) == [
        f"c.json: $.artifacts.review_report.path: {root / REPORT}: $.consensus: counts add up "
        "to 5, not unit_count 6"]


def test_pack_and_verify_carry_the_review_report(root: Path, tmp_path: Path, capsys: Any) -> None:
    capsule = root / "capsule.json"
    capsule.write_bytes(render(_capsule()))
    pack = tmp_path / "pack"
    assert run(["evidence", "pack", str(capsule), "--root", str(root), "--out", str(pack)]) == 0
    packed = pack / "artifacts/review-report.json"
    assert packed.read_bytes() == (REPO / REPORT).read_bytes()
    capsys.readouterr()
    assert run(["evidence", "verify", str(pack)]) == 0
    # a packed report edited afterwards no longer verifies
    report = json.loads(packed.read_text(encoding="utf-8"))
    report["source"]["receipt_sha256"] = "0" * 64
    packed.write_text(json.dumps(report), encoding="utf-8")
    capsys.readouterr()
    assert run(["evidence", "verify", str(pack)]) == 1
    err = capsys.readouterr().err
    assert f"{packed}: SHA-256 differs from the manifest (changed)" in err
