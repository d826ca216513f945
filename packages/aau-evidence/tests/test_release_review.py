"""A 1.1 release policy's review requirements (``_release_review``): a suite's review report
must show a scorer agreeing with people at Cohen's kappa >= the bar, on the estimate and on the
low bound of its 95 % interval, over enough units; ``aau release assess`` blocks with a reason
otherwise, packs the report byte for byte and ``aau release verify`` recomputes the decision.

The report is the review example of the committed real-model run (``report-live-simple.json``:
tool_calls_match kappa 1.0 [1.0, 1.0], outcome_exact 0.0 [0.0, 0.0], the model judge judge-qwen
0.5 [0.0, 1.0], each over 4 units)."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from aau_core import InputError, InvalidDocumentError
from aau_evidence._release_documents import check_policy
from aau_evidence._release_review import read_review_reports, review_gate, review_reason_lines

sys.path.insert(0, str(Path(__file__).parent))  # the release-gate tests' workspace helpers
from test_release_gate import assess_args, make_workspace, read, run_aau, write  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
REPORT = REPO / "schemas/review/v1/examples/valid/report-live-simple.json"
SUITE = REPO / "examples/real/suites/bfcl-live_simple.json"
POLICY_10 = REPO / "schemas/release/v1/examples/valid/policy-synthetic.json"
SUITE_ID = "bfcl-v4-live_simple-first5"
SUITE_SHA256 = "81a0e1ec6d2f797d6a696a8f29e35050a82bb517da7f256720f3cbb8c201ab4d"
REPORT_SHA256 = hashlib.sha256(REPORT.read_bytes()).hexdigest()
RECEIPT_SHA256 = "618093055579b114cb771ff32d1afc1068f69a92d8170581ad3ccbd4d06974ae"


def _policy(*reviews: tuple[str, float, int], suite_id: str = SUITE_ID) -> Any:
    doc = read(POLICY_10)
    doc["policy_version"] = "aau-agent-release-policy/1.1"
    for requirement in doc["requirements"]:
        requirement["suite_id"] = SUITE_ID
    doc["review_requirements"] = [{"suite_id": suite_id, "scorer": s, "minimum_kappa": k,
                                   "minimum_units": n} for s, k, n in reviews]
    return doc


def _gate(*reviews: tuple[str, float, int], reports: Any = None, sha: str = SUITE_SHA256):
    policy = check_policy(_policy(*reviews), "policy.json")
    if reports is None:
        reports = read_review_reports({str(REPORT): REPORT.read_bytes()})
    return review_gate(policy, {SUITE_ID: {"suite_sha256": sha}}, reports)


def test_a_scorer_that_clears_the_bar_passes() -> None:
    rows, blockers = _gate(("tool_calls_match", 0.6, 4))
    assert blockers == []
    [row] = rows
    assert (row.cohen_kappa, row.kappa_ci95, row.units, row.passes) == (1.0, (1.0, 1.0), 4, True)
    assert (row.report_sha256, row.receipt_sha256) == (REPORT_SHA256, RECEIPT_SHA256)


@pytest.mark.parametrize(("scorer", "bar", "units", "code", "line"), [
    ("tool_calls_match", 0.6, 5, "REVIEW_UNITS_BELOW_MINIMUM",
     "Cohen's kappa 1.000 [1.000, 1.000] over 4 unit(s); the bar is 0.6 on the interval's low "
     "bound, at least 5 unit(s)"),
    ("outcome_exact", 0.6, 4, "REVIEW_KAPPA_BELOW_BAR",
     "Cohen's kappa 0.000 [0.000, 0.000] over 4 unit(s); the bar is 0.6 on the interval's low "
     "bound, at least 4 unit(s)"),
    # the estimate 0.5 clears 0.4, the interval's low bound 0.0 does not: blocked
    ("judge-qwen", 0.4, 4, "REVIEW_KAPPA_BELOW_BAR",
     "Cohen's kappa 0.500 [0.000, 1.000] over 4 unit(s); the bar is 0.4 on the interval's low "
     "bound, at least 4 unit(s)"),
    ("nope", 0.6, 4, "REVIEW_SCORER_MISSING",
     "the review report does not compare this scorer with people"),
])
def test_each_review_blocker_says_its_reason(scorer, bar, units, code, line) -> None:
    rows, blockers = _gate((scorer, bar, units))
    assert blockers == [f"{code}:{SUITE_ID}:{scorer}"]
    assert rows[0].passes is False
    assert review_reason_lines(rows, tuple(blockers)) == [
        f"review: suite {SUITE_ID}, scorer {scorer}: {line}"]


def test_no_report_and_a_report_of_other_suite_bytes_block() -> None:
    rows, blockers = _gate(("tool_calls_match", 0.6, 4), reports={})
    assert blockers == [f"REVIEW_REPORT_MISSING:{SUITE_ID}"]
    assert (rows[0].report_sha256, rows[0].cohen_kappa, rows[0].units) == (None, None, 0)
    assert review_reason_lines(rows, tuple(blockers)) == [
        f"review: suite {SUITE_ID}, scorer tool_calls_match: no review report for this suite "
        "(--review-report FILE)"]
    rows, blockers = _gate(("tool_calls_match", 0.6, 4), sha="0" * 64)
    assert blockers == [f"REVIEW_REPORT_OTHER_SUITE:{SUITE_ID}"]
    assert review_reason_lines(rows, tuple(blockers)) == [
        f"review: suite {SUITE_ID}, scorer tool_calls_match: the review report reviews a "
        "receipt of other suite bytes than the suite this release ran"]


def test_a_suite_that_did_not_run_needs_no_report() -> None:
    policy = check_policy(_policy(("tool_calls_match", 0.6, 4)), "policy.json")
    assert review_gate(policy, {}, {}) == ([], [])


def test_policy_rules_for_review_requirements() -> None:
    doc = _policy(("tool_calls_match", 0.6, 4), ("tool_calls_match", 0.7, 4))
    with pytest.raises(InvalidDocumentError, match=r"\$\.review_requirements\[1\]: review "
                       r"requirement \('bfcl-v4-live_simple-first5', 'tool_calls_match'\) is "
                       "repeated"):
        check_policy(doc, "policy.json")
    with pytest.raises(InvalidDocumentError, match=r"\$\.review_requirements\[0\]\.suite_id: "
                       "'other' is the suite of no requirement"):
        check_policy(_policy(("exact", 0.6, 4), suite_id="other"), "policy.json")
    old = _policy(("exact", 0.6, 4))
    old["policy_version"] = "aau-agent-release-policy/1.0"
    with pytest.raises(InvalidDocumentError, match="policy.json: \\$: "):
        check_policy(old, "policy.json")
    assert check_policy(read(POLICY_10), "p.json").review_requirements is None


def test_two_reports_for_one_suite_are_refused() -> None:
    with pytest.raises(InputError) as info:
        read_review_reports({"a.json": REPORT.read_bytes(), "b.json": REPORT.read_bytes()})
    assert str(info.value) == ("b.json: $.source.suite_id: a second review report for suite "
                               f"'{SUITE_ID}' (the first is a.json); give one per suite")


# ---- aau release assess / verify, end to end (the mock adapter over the real suite) --------

def _workspace(tmp: Path, *reviews: tuple[str, float, int]) -> Path:
    ws = make_workspace(tmp / "ws")
    shutil.copyfile(SUITE, ws / "bfcl.json")
    plan = read(ws / "evidence-plan.json")
    plan["suites"][0].update(suite_id=SUITE_ID, path="bfcl.json")
    write(ws / "evidence-plan.json", plan)
    write(ws / "release-policy.json", _policy(*reviews))
    return ws


def test_assess_blocks_with_the_kappa_and_its_interval(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, ("judge-qwen", 0.4, 4))
    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out, "--mock"), "--review-report", str(REPORT), "--quiet")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines() == [
        f"review: suite {SUITE_ID}, scorer judge-qwen: Cohen's kappa 0.500 [0.000, 1.000] over 4 "
        "unit(s); the bar is 0.4 on the interval's low bound, at least 4 unit(s)",
        f"{out}: release_blocked (1 suite(s) run; REVIEW_KAPPA_BELOW_BAR:{SUITE_ID}:judge-qwen)"]
    decision = read(out / "release-decision.json")
    assert decision["decision_version"] == "aau-agent-release-decision/1.1"
    assert decision["review_evidence"] == [{
        "suite_id": SUITE_ID, "scorer": "judge-qwen", "report_sha256": REPORT_SHA256,
        "receipt_sha256": RECEIPT_SHA256, "cohen_kappa": 0.5, "kappa_ci95": [0.0, 1.0],
        "units": 4, "minimum_kappa": 0.4, "minimum_units": 4, "passes": False}]
    packed = out / f"review-reports/{SUITE_ID}.json"
    assert packed.read_bytes() == REPORT.read_bytes()
    assert run_aau("release", "verify", str(out)).returncode == 0


def test_assess_passes_the_review_and_verify_catches_a_swapped_report(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, ("tool_calls_match", 0.6, 4))
    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out, "--mock"), "--review-report", str(REPORT), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["reason_codes"] == ["MOCK_PROTOCOL_SELF_TEST_ONLY"]
    assert run_aau("release", "verify", str(out)).returncode == 0
    missing = run_aau(*assess_args(ws, ws / "pack-2", "--mock"), "--json")
    assert missing.returncode == 1
    assert json.loads(missing.stdout)["reason_codes"] == [f"REVIEW_REPORT_MISSING:{SUITE_ID}"]
    # a packed report edited afterwards no longer verifies
    report = copy.deepcopy(read(REPORT))
    report["scorers"][2]["cohen_kappa"]["ci95"] = [0.2, 1.0]
    packed = out / f"review-reports/{SUITE_ID}.json"
    packed.write_text(json.dumps(report), encoding="utf-8")
    verdict = run_aau("release", "verify", str(out))
    assert verdict.returncode == 1
    assert f"{packed}: SHA-256 differs from the manifest (changed)" in verdict.stderr


def test_a_review_report_for_a_policy_without_review_requirements_is_refused(
        tmp_path: Path) -> None:
    ws = _workspace(tmp_path, ("tool_calls_match", 0.6, 4))
    policy = read(ws / "release-policy.json")
    policy["policy_version"] = "aau-agent-release-policy/1.0"
    del policy["review_requirements"]
    write(ws / "release-policy.json", policy)
    proc = run_aau(*assess_args(ws, ws / "pack", "--mock"), "--review-report", str(REPORT))
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"aau: error: --review-report: {ws / 'release-policy.json'} has no review_requirements "
        "(a 1.1 policy names the suites and scorers a review report must cover)"]


def test_assess_refuses_an_invalid_report_before_running(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, ("tool_calls_match", 0.6, 4))
    bad = copy.deepcopy(read(REPORT))
    bad["unit_count"] = 6
    path = write(ws / "bad-report.json", bad)
    proc = run_aau(*assess_args(ws, ws / "pack", "--mock"), "--review-report", str(path))
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"aau: error: {path}: $.consensus: counts add up to 5, not unit_count 6"]
    assert not (ws / "pack").exists()


def test_a_report_whose_kappa_was_raised_by_hand_is_refused() -> None:
    """outcome_exact's kappa is 0.0 [0.0, 0.0] (tp 3, fp 1): raised to clear a bar of 0.6, the
    report no longer recomputes from its own confusion matrix, and the gate refuses it."""
    doc = read(REPORT)
    [entry] = [s for s in doc["scorers"] if s["scorer"] == "outcome_exact"]
    entry["cohen_kappa"].update(value=0.9, ci95=[0.8, 1.0])
    data = json.dumps(doc).encode()
    with pytest.raises(InvalidDocumentError, match=r"report\.json: \$\.scorers\[1\]\.cohen_kappa"
                                                   r"\.value: is 0\.9; recomputed from its "
                                                   r"confusion matrix .*: 0\.0"):
        read_review_reports({"report.json": data})
    assert _gate(("outcome_exact", 0.6, 4))[1] == [f"REVIEW_KAPPA_BELOW_BAR:{SUITE_ID}:"
                                                   "outcome_exact"]
