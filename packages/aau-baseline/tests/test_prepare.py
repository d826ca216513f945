"""``aau baseline prepare``: 1.6's study bytes and hash, blinding, atomic and refusing writes."""

from __future__ import annotations

import json
from pathlib import Path

import aau_schemas
import pytest
from _helpers import valid_suite, write_json
from aau_baseline import read_pack
from aau_core import InvalidDocumentError, run

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
FIXTURE = HERE / "fixtures" / "reference-pack"
SUITE = REPO / "schemas/suite/v1/examples/valid/suite-human-baseline-reference.json"
EXAMPLES = REPO / "schemas" / "human-baseline" / "v1" / "examples" / "valid"
STUDY_SHA256 = "2f220c74f9c0408ba894fa29a5fac87464e2451ad874580cf8fd8b09f92c9c04"
TITLE = "Public Service Routing Human Baseline"
PURPOSE = ("Demonstrate blinded same-suite measurement of routing accuracy, abstention, task "
           "time, confidence calibration, and agreement without production data.")


def _prepare(out: Path, suite: Path = SUITE, study_id: str = "public-service-routing-human-baseline",
             title: str = TITLE, purpose: str = PURPOSE, *extra: str) -> int:
    return run(["baseline", "prepare", str(suite), "--id", study_id, "--title", title,
                "--purpose", purpose, "--out", str(out), *extra])


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_prepare_reproduces_the_16_study_answer_key_and_template(tmp_path, capsys):
    out = tmp_path / "pack"
    assert _prepare(out, SUITE, "public-service-routing-human-baseline", TITLE, PURPOSE,
                    "--json") == 0
    assert json.loads(capsys.readouterr().out)["review_status"] == "not_determined"
    for name in ("study.json", "answer-key.json", "session-template.json"):
        assert (out / name).read_bytes() == (FIXTURE / name).read_bytes(), name
    study = _load(out / "study.json")
    assert aau_schemas.legacy_sha256_json(study) == STUDY_SHA256
    assert study["human_protections"]["review_status"] == "not_determined"
    # every artifact validates against its schema
    aau_schemas.validate("human-baseline-study", study)
    aau_schemas.validate("human-baseline-answer-key", _load(out / "answer-key.json"))
    aau_schemas.validate("human-baseline-manifest", _load(out / "manifest.json"))
    template = _load(out / "session-template.json")
    template["anonymous_session_id"] = "0123456789ab"
    aau_schemas.validate("human-baseline-session", template)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack"]  # no temp folder left


def test_a_prepared_pack_validates_and_summarizes(tmp_path):
    out = tmp_path / "pack"
    assert _prepare(out) == 0
    assert run(["baseline", "validate", str(out)]) == 0
    args = ["baseline", "summarize", str(out), "--out", str(tmp_path / "r.json")]
    for i in range(1, 6):
        args += ["--session", str(EXAMPLES / f"session-synthetic-0{i}.json")]
    assert run(args) == 0
    reference = _load(EXAMPLES / "report-reference.json")
    reference["agent_comparison"] = None
    assert _load(tmp_path / "r.json") == reference


def test_participant_files_carry_no_answers(tmp_path):
    out = tmp_path / "pack"
    assert _prepare(out) == 0
    for name in ("study.json", "session-template.json", "README.md"):
        text = (out / name).read_text(encoding="utf-8")
        assert '"expected' not in text and '"answers"' not in text, name
    template = _load(out / "session-template.json")
    assert {r["outcome"] for r in template["responses"]} == {"__abstain__"}


def test_blinded_order_depends_on_the_study_id(tmp_path):
    assert _prepare(tmp_path / "a") == 0
    assert _prepare(tmp_path / "b", SUITE, "another-study") == 0
    ids = [[c["scenario_id"] for c in _load(tmp_path / p / "study.json")["cases"]] for p in "ab"]
    assert sorted(ids[0]) == sorted(ids[1]) and ids[0] != ids[1]


def test_existing_destination_is_refused(tmp_path, capsys):
    out = tmp_path / "pack"
    out.mkdir()
    assert _prepare(out) == 2
    assert "exists" in capsys.readouterr().err
    assert list(out.iterdir()) == []


def test_bad_id_title_or_purpose_is_a_usage_error(tmp_path, capsys):
    assert _prepare(tmp_path / "p", SUITE, "Not A Slug") == 2
    assert "--id 'Not A Slug'" in capsys.readouterr().err
    assert _prepare(tmp_path / "p", SUITE, "ok", "   ") == 2
    assert _prepare(tmp_path / "p", SUITE, "ok", TITLE, "x" * 501) == 2
    assert not (tmp_path / "p").exists()


def test_a_suite_with_one_outcome_is_refused(tmp_path, capsys):
    suite = write_json(tmp_path / "suite.json", valid_suite(3))
    assert _prepare(tmp_path / "p", suite) == 2
    assert "at least two distinct expected outcomes" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_an_input_carrying_expected_answers_is_refused(tmp_path, capsys):
    doc = valid_suite(2)
    doc["cases"][1]["expected"]["outcome"] = "stop"
    doc["cases"][1]["input"]["hint"] = {"Expected": "stop"}
    suite = write_json(tmp_path / "suite.json", doc)
    assert _prepare(tmp_path / "p", suite) == 2
    assert f"{suite}: $.cases[1].input.hint.Expected: a participant file must not carry an expected answer" \
        in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite.json"]


# ---------------------------------------------------------------- suite v2

def _v2_suite(tmp_path: Path, *expected: dict) -> Path:
    doc = valid_suite(len(expected))
    doc["suite_version"] = "aau-byo-agent-suite/2.0"
    for case, exp in zip(doc["cases"], expected, strict=True):
        case["expected"] = exp
    return write_json(tmp_path / "suite.json", doc)


def test_a_v2_suite_of_outcomes_only_is_prepared(tmp_path):
    suite = _v2_suite(tmp_path, {"outcome": "go"}, {"outcome": "stop"})
    assert _prepare(tmp_path / "p", suite) == 0
    assert _load(tmp_path / "p" / "answer-key.json")["answers"] == {
        c["scenario_id"]: c["expected"]["outcome"] for c in _load(suite)["cases"]}


CALLS = [{"name": "renew_loan", "arguments": {"card_id": ["C-1"]}}]


@pytest.mark.parametrize(("expected", "path", "message"), [
    ([{"outcome": "go"}, {"outcome": "stop"}, {"tool_calls": CALLS}], "$.cases[2].expected",
     "has no expected outcome; a human baseline compares outcomes"),
    ([{"outcome": "go"}, {"outcome": "stop", "tool_calls": CALLS}],
     "$.cases[1].expected.tool_calls", "checks tool calls; a human baseline compares outcomes only"),
], ids=["no-outcome", "tool-calls"])
def test_a_v2_suite_a_human_baseline_cannot_measure_is_refused(tmp_path, capsys, expected, path,
                                                               message):
    suite = _v2_suite(tmp_path, *expected)
    assert _prepare(tmp_path / "p", suite) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"aau: error: {suite}: {path}: case ") and message in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite.json"]


def test_the_library_desk_tool_call_example_is_refused(tmp_path, capsys):
    suite = REPO / "examples" / "suites" / "library-desk-tool-calls.json"
    assert _prepare(tmp_path / "p", suite) == 2
    assert "has no expected outcome" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_a_prepared_pack_carries_gitattributes_and_crlf_is_named(tmp_path):
    out = tmp_path / "pack"
    assert _prepare(out) == 0
    assert (out / ".gitattributes").read_bytes() == b"* -text\n"
    (out / ".gitattributes").unlink()  # a pack written before .gitattributes existed
    assert run(["baseline", "validate", str(out)]) == 0
    study = out / "study.json"
    study.write_bytes(study.read_bytes().replace(b"\n", b"\r\n"))
    with pytest.raises(InvalidDocumentError) as info:
        read_pack(out)
    assert str(info.value).endswith(
        "$.files[3].sha256: study.json has another SHA-256: its line endings were converted to "
        "CRLF (git autocrlf?); the LF form matches")
