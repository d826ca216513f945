"""``aau baseline summarize`` and ``aau baseline validate`` on aau-harness 1.6's reference pack.

``fixtures/reference-pack/`` is a byte-for-byte copy of 1.6's pack
(``shared/compat/aau-1.6/baseline/reference-pack``); the sessions, report and agent receipt are
the copies in ``schemas/``. Every report written is validated against its schema.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import run

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
PACK = HERE / "fixtures" / "reference-pack"
EXAMPLES = REPO / "schemas" / "human-baseline" / "v1" / "examples" / "valid"
SESSIONS = [EXAMPLES / f"session-synthetic-0{i}.json" for i in range(1, 6)]
REPORT = EXAMPLES / "report-reference.json"
RECEIPT = REPO / "schemas/receipt/v1/examples/valid/receipt-human-baseline-with-mismatches.command.json"
MOCK_RECEIPT = REPO / "schemas/receipt/v1/examples/valid/receipt-starter.mock.json"
OTHER_RECEIPT = REPO / "schemas/receipt/v1/examples/valid/receipt-byo-agent.command.json"
COMPAT = SHARED / "compat" / "aau-1.6" / "baseline"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _summarize(out: Path, *extra: str, sessions=SESSIONS, pack=PACK) -> int:
    args = ["baseline", "summarize", str(pack)]
    for s in sessions:
        args += ["--session", str(s)]
    return run([*args, "--out", str(out), *extra])


def _written(out: Path) -> dict:
    doc = _load(out)
    aau_schemas.validate("human-baseline-report", doc, source=str(out))
    assert out.read_text(encoding="utf-8") == aau_schemas.legacy_render_json(doc)
    return doc


def test_fixture_pack_is_the_16_pack():
    if not COMPAT.is_dir():
        pytest.skip(SHARED_MISSING)
    for path in (COMPAT / "reference-pack").iterdir():
        assert (PACK / path.name).read_bytes() == path.read_bytes(), path.name


def test_summarize_reproduces_the_reference_report(tmp_path, capsys):
    out = tmp_path / "report.json"
    assert _summarize(out, "--agent-receipt", str(RECEIPT)) == 0
    ours, reference = _written(out), _load(REPORT)
    # 1.6 regenerated its agent receipt after writing the report: only its hash differs
    assert ours["agent_comparison"].pop("receipt_sha256") == aau_schemas.legacy_sha256_json(
        _load(RECEIPT))
    reference["agent_comparison"].pop("receipt_sha256")
    assert ours == reference
    err = capsys.readouterr().err
    assert "95% Wilson [0.7695, 0.9604]" in err and "fleiss_kappa         0.6929" in err


def test_summarize_without_receipt_is_byte_identical_to_16(tmp_path):
    out = tmp_path / "report.json"
    assert _summarize(out) == 0
    reference = _load(REPORT)
    reference["agent_comparison"] = None
    assert out.read_text(encoding="utf-8") == aau_schemas.legacy_render_json(reference)


@pytest.mark.skipif(not COMPAT.is_dir(), reason=SHARED_MISSING)
def test_summarize_from_shared_compat(tmp_path):
    out = tmp_path / "report.json"
    sessions = sorted((COMPAT / "sessions").glob("*.json"))
    assert _summarize(out, sessions=sessions, pack=COMPAT / "reference-pack") == 0
    reference = _load(COMPAT / "reference-report.json")
    reference["agent_comparison"] = None
    assert _written(out) == reference


def test_report_is_aggregate_only(tmp_path):
    out = tmp_path / "report.json"
    assert _summarize(out) == 0
    text = out.read_text(encoding="utf-8")
    for session in SESSIONS:
        assert _load(session)["anonymous_session_id"] not in text
    for leak in ("domain_operator", '"confidence"', '"participant_role"', '"responses": [',
                 '"elapsed_ms"'):
        assert leak not in text, leak


def test_one_session_gives_null_kappa_with_reason(tmp_path, capsys):
    out = tmp_path / "report.json"
    assert _summarize(out, "--json", sessions=SESSIONS[:1]) == 0
    assert _written(out)["metrics"]["fleiss_kappa"] is None
    captured = capsys.readouterr()
    assert "null (Fleiss' kappa needs at least two sessions" in captured.err
    assert json.loads(captured.out)["fleiss_kappa_note"].startswith("Fleiss' kappa needs")


@pytest.mark.parametrize("receipt, message", [
    (MOCK_RECEIPT, "$.adapter_kind: a mock receipt cannot support a human comparison"),
    (OTHER_RECEIPT, "$.suite_sha256: not the study's suite"),
])
def test_unfit_receipts_are_refused(tmp_path, capsys, receipt, message):
    out = tmp_path / "report.json"
    assert _summarize(out, "--agent-receipt", str(receipt)) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_partial_receipt_is_refused(tmp_path, capsys):
    receipt = _load(RECEIPT)
    receipt["results"] = receipt["results"][:-1]
    receipt["scenario_count"] = len(receipt["results"])
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(receipt), encoding="utf-8")
    assert _summarize(tmp_path / "r.json", "--agent-receipt", str(path)) == 2
    assert f"{path}: $.results: does not cover exactly the study's cases" in capsys.readouterr().err


def test_duplicate_session_ids_are_refused(tmp_path, capsys):
    assert _summarize(tmp_path / "r.json", sessions=[SESSIONS[0], SESSIONS[0]]) == 2
    assert f"{SESSIONS[0]}: $.anonymous_session_id: same anonymous_session_id as" in (
        capsys.readouterr().err)


def test_session_of_another_outcome_names_the_path(tmp_path, capsys):
    session = _load(SESSIONS[0])
    session["responses"][2]["outcome"] = "approve_everything"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    assert _summarize(tmp_path / "r.json", sessions=[path]) == 2
    assert (f"{path}: $.responses[2].outcome: 'approve_everything' is not an outcome of the study"
            in capsys.readouterr().err)


def test_existing_out_is_refused_without_force(tmp_path, capsys):
    out = tmp_path / "report.json"
    out.write_text("{}", encoding="utf-8")
    assert _summarize(out) == 2
    assert "exists" in capsys.readouterr().err
    assert _summarize(out, "--force") == 0
    _written(out)


def test_out_naming_a_file_of_the_pack_is_refused_even_with_force(tmp_path, capsys):
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    before = (pack / "study.json").read_bytes()
    assert _summarize(pack / "study.json", "--force", pack=pack) == 2
    assert (f"--out {pack / 'study.json'}: inside the pack folder, which holds only the "
            "pack's own files; write the report outside it") in capsys.readouterr().err
    assert (pack / "study.json").read_bytes() == before


# --------------------------------------------------------------------------- validate


def _validate(*args: str) -> int:
    return run(["baseline", "validate", *args])


def test_validate_the_reference_files(capsys):
    assert _validate(str(PACK)) == 0
    assert _validate(str(REPORT)) == 0
    assert _validate(str(SESSIONS[0]), "--study", str(PACK / "study.json"), "--json") == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["valid"] and verdict["kind"] == "human-baseline-session"


def _copy_pack(tmp_path: Path) -> Path:
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    return pack


def test_validate_an_edited_readme_breaks_the_manifest(tmp_path, capsys):
    pack = _copy_pack(tmp_path)
    with (pack / "README.md").open("a", encoding="utf-8") as fh:
        fh.write("x")
    assert _validate(str(pack)) == 1
    assert "manifest.json: $.files[0].bytes: README.md has 1950 bytes" in capsys.readouterr().err


def test_validate_an_extra_file_is_invalid(tmp_path, capsys):
    pack = _copy_pack(tmp_path)
    (pack / "answers.txt").write_text("x", encoding="utf-8")
    assert _validate(str(pack)) == 1
    assert (f"{pack / 'answers.txt'}: an extra file in the pack folder, which holds exactly "
            "README.md, answer-key.json, manifest.json, session-template.json, study.json: "
            "keep session files and reports outside the pack (e.g. ../NAME from inside it) and "
            "move this one out") in capsys.readouterr().err


def test_validate_a_study_leaking_expected_answers_is_invalid(tmp_path, capsys):
    from aau_baseline._documents import check_study, load_model
    from aau_core import InvalidDocumentError

    study = _load(PACK / "study.json")
    study["cases"][1]["input"]["meta"] = {"expected": "route_current_official_source"}
    with pytest.raises(InvalidDocumentError) as info:
        check_study(load_model("human-baseline-study", study, "study.json"), "study.json")
    assert str(info.value) == ("study.json: $.cases[1].input.meta.expected: a participant file "
                               "must not carry an expected answer")


def test_validate_a_session_needs_its_study(capsys):
    assert _validate(str(SESSIONS[0])) == 2
    assert "add --study FILE" in capsys.readouterr().err


def test_validate_a_tampered_report(tmp_path, capsys):
    report = _load(REPORT)
    report["metrics"]["response_count"] = 41
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    assert _validate(str(path)) == 1
    assert f"{path}: $.metrics.response_count: differs from the per-scenario" in (
        capsys.readouterr().err)


def test_validate_something_else_is_a_usage_error(capsys):
    assert _validate(str(RECEIPT)) == 2
    assert "not a human-baseline pack folder, session or report" in capsys.readouterr().err


def test_validate_a_session_with_float_confidence(tmp_path, capsys):
    session = _load(SESSIONS[0])
    session["responses"][0]["confidence"] = 63.0  # JSON Schema's integer accepts it; 1.6 did not
    path = tmp_path / "s.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    assert _validate(str(path), "--study", str(PACK / "study.json")) == 1
    assert f"{path}: $.responses[0].confidence: must be a whole number" in capsys.readouterr().err


def test_observed_sessions_are_counted_and_never_verified(tmp_path):
    session = _load(SESSIONS[1])
    session["session_kind"] = "human_observed"
    session["protection_basis"] = "institutional_review_recorded"
    path = tmp_path / "observed.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    out = tmp_path / "r.json"
    assert _summarize(out, sessions=[SESSIONS[0], path]) == 0
    report = _written(out)
    assert report["source"]["session_kinds"] == {"human_observed": 1, "synthetic_reference": 1}
    assert report["human_protection_summary"] == {
        "observed_human_sessions": 1, "synthetic_reference_sessions": 1,
        "institutional_determination_verified_by_aau": False}


def _v2_receipt(tmp_path: Path, *extra: str) -> Path:
    import sys

    agent = tmp_path / "agent.py"
    agent.write_text("import json, sys\nsys.stdin.readline()\n"
                     "print(json.dumps({'outcome': 'route_current_official_source'}))\n",
                     encoding="utf-8")
    suite = REPO / "schemas/suite/v1/examples/valid/suite-human-baseline-reference.json"
    out = tmp_path / "receipt-v2.json"
    assert run(["evaluate", str(suite), "--command", f"{sys.executable} {agent}", "--out",
                str(out), *extra]) == 0
    return out


def test_summarize_accepts_our_default_v2_receipt(tmp_path, capsys):
    receipt = _v2_receipt(tmp_path)
    out = tmp_path / "report.json"
    assert _summarize(out, "--agent-receipt", str(receipt)) == 0
    comparison = _written(out)["agent_comparison"]
    assert comparison is not None
    assert comparison["scenario_count"] == len(_load(PACK / "study.json")["cases"])


def test_summarize_refuses_a_receipt_with_repeats(tmp_path, capsys):
    receipt = _v2_receipt(tmp_path, "--repeats", "2")
    capsys.readouterr()
    assert _summarize(tmp_path / "r.json", "--agent-receipt", str(receipt)) == 2
    assert f"{receipt}: $.repeats: a comparison needs one run per case" in capsys.readouterr().err


def _abstaining(tmp_path: Path, session: Path, answered: int = 0) -> Path:
    """``session`` with every response but the first ``answered`` turned into an abstention."""
    doc = _load(session)
    for response in doc["responses"][answered:]:
        response["outcome"] = "__abstain__"
    path = tmp_path / session.name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_sessions_that_all_abstain_are_not_a_measurement(tmp_path, capsys):
    sessions = [_abstaining(tmp_path, s) for s in SESSIONS[:3]]
    out = tmp_path / "report.json"
    assert _summarize(out, "--json", sessions=sessions) == 3
    captured = capsys.readouterr()
    assert captured.err == ("aau: error: no task was answered: 3 sessions, every response "
                            "abstained\n")
    # --json on exit 3 says so, as aau evaluate --json does (aau_core.json_on_not_measured):
    # 3 sessions x 8 cases, every response abstained
    study_id = _load(PACK / "study.json")["study_id"]
    assert json.loads(captured.out) == {
        "measured": False, "reason": "no-answer",
        "message": "no task was answered: 3 sessions, every response abstained",
        "not_measured": 24, "units": 24, "report": None, "study_id": study_id}
    assert {p.name for p in tmp_path.iterdir()} == {s.name for s in SESSIONS[:3]}
    assert _summarize(out, sessions=sessions[:1]) == 3
    assert "no task was answered: 1 session, every response abstained" in (
        capsys.readouterr().err)


def test_one_answered_response_makes_a_report(tmp_path):
    # session 01 answers its first case with the study's answer: 1 exact of 2 x 8 responses
    sessions = [_abstaining(tmp_path, SESSIONS[0], answered=1),
                _abstaining(tmp_path, SESSIONS[1])]
    out = tmp_path / "report.json"
    assert _summarize(out, sessions=sessions) == 0
    metrics = _written(out)["metrics"]
    assert (metrics["response_count"], metrics["outcome_exact_rate"], metrics["abstain_rate"],
            metrics["conditional_exact_rate"]) == (16, 0.0625, 0.9375, 1.0)
    assert metrics["outcome_exact_wilson_95"] == [0.0111, 0.2833]
