"""aau-harness 1.6's submission files (shared/compat/aau-1.6/submission) with aau's tools.

The 1.6 pack there is partial: README.md, SOURCE_LEDGER.md, CONTRIBUTION_CHECKLIST.md and
assets/evidence-card.svg were removed, though its manifest lists them. Its documents validate
against our schemas; `aau submit --validate` reports exactly the four removed files; and `aau
submit` rebuilds a complete pack from the same starter, suite, receipts and metadata whose
unchanged-format files are byte-identical to 1.6's. Put back together as a 1.6 pack (checks
1.0), it validates, with the level 1.6 declared beside the lower one aau derives.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import build_manifest, run

COMPAT = SHARED / "compat" / "aau-1.6" / "submission"
STARTER = SHARED / "compat" / "aau-1.6" / "evaluate" / "aau-starter.json"
pytestmark = pytest.mark.skipif(not COMPAT.is_dir(), reason=SHARED_MISSING)
REMOVED = ["CONTRIBUTION_CHECKLIST.md", "README.md", "SOURCE_LEDGER.md", "assets/evidence-card.svg"]
KINDS = {"submission.json": "submission", "checks.json": "submission-checks",
         "privacy-scan.json": "submission-privacy-scan", "manifest.json": "submission-manifest",
         "starter-manifest.json": "starter-manifest", "suite.json": "suite",
         "receipts/run-01.json": "receipt-v1", "receipts/run-02.json": "receipt-v1",
         "receipts/run-03.json": "receipt-v1"}


def aau(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(list(args))
    return code, out.getvalue(), err.getvalue()


def rebuild(tmp: Path) -> Path:
    """`aau submit` with 1.6's starter, suite, receipts and the metadata of submission.json."""
    meta = json.loads((COMPAT / "submission.json").read_text())
    starter = tmp / "starter"
    starter.mkdir()
    shutil.copy(COMPAT / "starter-manifest.json", starter / "aau-starter.json")
    shutil.copy(COMPAT / "suite.json", starter / "suite.json")
    review, repro = meta["review"], meta["reproduction"]
    args = ["submit", str(starter), "--out", str(tmp / "pack")]
    for name in meta["receipt_files"]:
        args += ["--receipt", str(COMPAT / name)]
    args += ["--id", meta["id"], "--contributor-name", meta["contributor"]["name"],
             "--github", meta["contributor"]["github"], "--summary", meta["summary"],
             "--why-fork", meta["why_fork"], "--beneficiaries", meta["beneficiaries"],
             "--industry", meta["industry"], "--failure-shape", meta["failure_shape"],
             "--reviewer", review["reviewer"], "--reviewer-role", review["reviewer_role"],
             "--review-scope", review["scope"], "--reviewed-at", review["reviewed_at"],
             "--reproducer-name", repro["reproducer_name"],
             "--reproducer-github", repro["reproducer_github"],
             "--reproduction-scope", repro["scope"], "--reproduction-receipt", "run-03"]
    for tag in meta["tags"]:
        args += ["--tag", tag]
    for url in review["sources"]:
        args += ["--source", url]
    code, _, err = aau(*args)
    assert code == 0, err
    return tmp / "pack"


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_16_document_validates_against_its_schema(name: str) -> None:
    aau_schemas.validate(KINDS[name], json.loads((COMPAT / name).read_text()), source=name)


def test_16_starter_manifest_of_evaluate_validates() -> None:
    aau_schemas.validate("starter-manifest", json.loads(STARTER.read_text()))


def test_partial_16_pack_reports_exactly_the_removed_files() -> None:
    code, out, err = aau("submit", "--validate", str(COMPAT), "--json")
    assert code == 1
    problems = json.loads(out)["problems"]
    assert problems == [f"{COMPAT / name}: listed in the manifest but missing (removed)"
                        for name in REMOVED]


def test_rebuilt_pack_keeps_16_bytes_where_the_format_is_unchanged(tmp_path: Path) -> None:
    pack = rebuild(tmp_path)
    for name in ("starter-manifest.json", "suite.json", "privacy-scan.json",
                 "receipts/run-01.json", "receipts/run-02.json", "receipts/run-03.json"):
        assert (pack / name).read_bytes() == (COMPAT / name).read_bytes(), name
    ours = json.loads((pack / "submission.json").read_text())
    theirs = json.loads((COMPAT / "submission.json").read_text())
    assert {**ours, "package_version": "1.6.0"} == theirs
    checks = json.loads((pack / "checks.json").read_text())
    # 1.6 said Verified: three v1 receipts (distinct only by latency) and another handle
    assert checks["level"] == "Domain reviewed"
    assert [c["id"] for c in checks["checks"] if not c["passed"]] == [
        "distinct-runs", "independent-reproduction"]
    code, out, _ = aau("submit", "--validate", str(pack), "--json")
    assert code == 0 and json.loads(out)["level"] == "Domain reviewed"


def test_a_complete_16_pack_validates_with_both_levels_reported(tmp_path: Path) -> None:
    """Our rebuilt files with 1.6's checks.json (1.0) and submission.json, re-manifested."""
    pack = rebuild(tmp_path)
    for name in ("checks.json", "submission.json"):
        (pack / name).chmod(0o644)
        shutil.copy(COMPAT / name, pack / name)
    (pack / "provenance.intoto.json").unlink()  # 1.6 packs have no statement
    files = {p.relative_to(pack).as_posix(): p.read_bytes() for p in sorted(pack.rglob("*"))
             if p.is_file() and p.name not in ("manifest.json", ".gitattributes")}
    manifest = json.loads((COMPAT / "manifest.json").read_text())
    rebuilt = build_manifest(files, version=manifest["manifest_version"], extra={
        k: manifest[k] for k in ("submission_id", "hash_algorithm", "claims")})
    assert [r for r in rebuilt["files"] if r["path"] not in REMOVED] == [
        r for r in manifest["files"] if r["path"] not in REMOVED]
    (pack / "manifest.json").chmod(0o644)
    (pack / "manifest.json").write_text(json.dumps(rebuilt, indent=2, sort_keys=True) + "\n")
    code, out, err = aau("submit", "--validate", str(pack), "--json")
    assert code == 0, err
    verdict = json.loads(out)
    assert verdict["declared_checks_version"] == "aau-community-evidence-checks/1.0"
    assert (verdict["declared_level"], verdict["level"]) == ("Verified", "Domain reviewed")
    assert "checks.json declares Verified" in err
