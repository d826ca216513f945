"""``aau review summarize`` and ``aau review validate`` on the example pack: the report is
schema-valid and aggregate-only, and every bad input is one line naming the file and JSON path,
exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import run
from aau_schemas import sha256_hex


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _labels(examples: Path) -> list[Path]:
    return [examples / f"labels-{r}.json" for r in ("alice", "bob", "judge")]


def _summarize(pack: Path, labels, out: Path, *extra: str) -> int:
    args = ["review", "summarize", str(pack), "--out", str(out), *extra]
    for path in labels:
        args += ["--labels", str(path)]
    return run(args)



def test_report_is_valid_aggregate_only_and_has_the_markdown(example_pack, examples, tmp_path):
    out = tmp_path / "report.json"
    assert _summarize(example_pack, _labels(examples), out, "--md") == 0
    doc = _load(out)
    aau_schemas.validate("review-report", doc)
    text = out.read_text(encoding="utf-8")
    for private in ("221 instead of 221B", "Tel Aviv", "Baker Street", "live_simple_4"):
        assert private not in text  # notes, inputs, responses: never; ids only for ties
    a = doc["human_agreement"]
    # alice and bob both rated u0001-3 and u0005 (bob was unsure of u0004): 3 of 4 agree,
    # alice pass/fail 2/2, bob 3/1: p_e = 0.5, kappa = 0.5
    assert a["percent_agreement"]["value"] == 0.75 and a["cohen_kappa"]["value"] == 0.5
    assert a["cohen_kappa"]["n"] == 4 and a["raters"] == 2
    assert doc["consensus"] == {"pass": 3, "fail": 1, "unsure": 0, "unlabelled": 0, "ties": [
        {"unit_id": "u0005", "scenario_id": "live_simple_3-2-1", "repeat": 0}]}
    assert doc["verdict_counts"] == {"pass": 6, "fail": 3, "unsure": 1}
    assert {c["id"]: c["count"] for c in doc["categories"]}["wrong-arguments"] == 3
    by = {s["scorer"]: s for s in doc["scorers"]}
    assert by["exact"]["confusion"] == {"tp": 3, "fp": 0, "fn": 0, "tn": 1}
    assert by["judge-qwen"]["source"] == "model"
    assert by["judge-qwen"]["confusion"] == {"tp": 2, "fp": 0, "fn": 1, "tn": 1}
    md = out.with_suffix(".md").read_text(encoding="utf-8")
    assert "| Cohen's κ (two raters) | 0.500 [" in md and "ties to adjudicate 1: u0005" in md


def _edited(examples: Path, tmp_path: Path, rater: str, edit) -> Path:
    doc = _load(examples / f"labels-{rater}.json")
    edit(doc)
    path = tmp_path / f"edited-{rater}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(("rater", "edit", "where", "message"), [
    ("alice", lambda d: d["labels"][0].update(unit_id="u0099"), "$.labels[0].unit_id",
     "u0099 is not a unit of the pack"),
    ("alice", lambda d: d["labels"].append(dict(d["labels"][1])), "$.labels[5].unit_id",
     "u0002 labelled twice (first at $.labels[1])"),
    ("alice", lambda d: d.update(tasks_sha256="0" * 64), "$.tasks_sha256",
     "labels for another pack"),
    ("alice", lambda d: d["rater"].update(pseudonym="carol"), "$.rater.pseudonym",
     "'carol' is not a rater of the pack"),
    ("alice", lambda d: d["labels"][0].update(verdict="fail", categories=["typo"]),
     "$.labels[0].categories[0]", "'typo' is not a category of the pack's taxonomy"),
    ("alice", lambda d: d["labels"][0].update(categories=["wrong-tool"]),
     "$.labels[0].categories", '["wrong-tool"] has more than 0 items'),
    ("alice", lambda d: d["labels"][0].update(time_spent_s=1e9), "$.labels[0].time_spent_s",
     "1000000000.0 is greater than the maximum of 86400"),
    ("bob", lambda d: d["labels"][0].update(verdict="maybe"), "$.labels[0].verdict", ""),
    ("judge-errors", lambda d: d["rater"]["model"]["judge_errors"][0].update(unit_id="u0003"),
     "$.rater.model.judge_errors[0].unit_id",
     "u0003 is labelled (at $.labels[0]) and listed as not labelled"),
    ("judge-errors", lambda d: d["rater"]["model"]["judge_errors"][0].update(unit_id="u0099"),
     "$.rater.model.judge_errors[0].unit_id", "u0099 is not a unit of the pack"),
    ("judge-errors", lambda d: d["rater"]["model"]["judge_errors"][1].update(unit_id="u0001"),
     "$.rater.model.judge_errors[1].unit_id", "u0001 listed twice"),
])
def test_bad_labels_are_one_line_exit_2_nothing_written(error_line, example_pack, examples,
                                                        tmp_path,
                                                        capsys, rater, edit, where, message):
    bad = _edited(examples, tmp_path, rater, edit)
    others = [p for p in _labels(examples) if rater not in p.name]
    out = tmp_path / "report.json"
    assert _summarize(example_pack, [*others, bad], out, "--md") == 2
    line = error_line()
    assert line.startswith(f"aau: error: {bad}: {where}: {message}")
    assert not out.exists() and not out.with_suffix(".md").exists()


def test_a_rater_with_two_files_is_refused(error_line, example_pack, examples, tmp_path, capsys):
    copy = tmp_path / "alice-again.json"
    copy.write_bytes((examples / "labels-alice.json").read_bytes())
    out = tmp_path / "report.json"
    assert _summarize(example_pack, [*_labels(examples), copy], out) == 2
    assert error_line().startswith(f"aau: error: {copy}: $.rater.pseudonym: rater "
                                          "'alice' already labelled in ")
    assert not out.exists()


def test_a_unit_not_assigned_to_the_rater_is_refused(tmp_path, examples, prepare, capsys):
    pack = tmp_path / "k1"
    assert prepare(pack, "--raters", "alice,bob", "--per-unit", "1", "--seed", "7") == 0
    tasks_sha = sha256_hex((pack / "tasks.json").read_bytes())
    mine = set(_load(pack / "manifest.json")["raters"][0]["units"])
    alice = _edited(examples, tmp_path, "alice", lambda d: d.update(tasks_sha256=tasks_sha))
    wrong = [i for i, lab in enumerate(_load(alice)["labels"]) if lab["unit_id"] not in mine]
    out = tmp_path / "r.json"
    assert _summarize(pack, [alice], out) == 2
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("aau: error: ")]
    assert len(lines) == len(wrong) >= 1  # one line per problem
    for line, i in zip(lines, wrong, strict=True):
        assert line.startswith(f"aau: error: {alice}: $.labels[{i}].unit_id: u")
        assert line.endswith("is not assigned to rater 'alice'")
    assert not out.exists()


def test_a_pack_file_edited_after_the_manifest_is_refused(error_line, example_pack, examples,
                                                          tmp_path,
                                                          capsys):
    tasks = example_pack / "tasks.json"
    tasks.write_bytes(tasks.read_bytes().replace(b"Tel Aviv", b"Tel-Aviv"))
    out = tmp_path / "report.json"
    assert _summarize(example_pack, _labels(examples), out) == 2
    assert error_line() == (
        f"aau: error: {example_pack / 'manifest.json'}: $.files[2].sha256: tasks.json has "
        "another SHA-256 than the manifest records (edited after the pack was made)")
    assert not out.exists()
    assert run(["review", "validate", str(example_pack)]) == 1


def test_a_report_inside_the_pack_is_refused(error_line, example_pack, examples):
    out = example_pack / "report.json"
    assert _summarize(example_pack, _labels(examples), out) == 2
    assert error_line() == (f"aau: error: --out {out}: inside the pack folder, which holds only "
                            "the pack's own files; write the report outside it (e.g. in the "
                            "folder that holds the pack)")
    assert not out.exists()


def test_only_model_labels_are_refused(error_line, example_pack, examples, tmp_path, capsys):
    assert _summarize(example_pack, [examples / "labels-judge.json"], tmp_path / "r.json") == 2
    assert "no labels file of a human rater" in error_line()


def test_validate_pack_labels_and_report(error_line, example_pack, examples, tmp_path, capsys):
    assert run(["review", "validate", str(example_pack)]) == 0
    assert run(["review", "validate", str(examples / "report-live-simple.json")]) == 0
    assert run(["review", "validate", str(examples / "labels-bob.json"), "--pack",
                str(example_pack)]) == 0
    assert run(["review", "validate", str(examples / "labels-bob.json")]) == 2
    assert "add --pack FOLDER" in error_line()
    report = _load(examples / "report-live-simple.json")
    report["consensus"]["pass"] = 4
    bad = tmp_path / "bad-report.json"
    bad.write_text(json.dumps(report), encoding="utf-8")
    capsys.readouterr()
    assert run(["review", "validate", str(bad), "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["problems"] == [f"{bad}: $.consensus: counts add up to 6, not unit_count 5"]
    assert run(["review", "validate", str(examples / "tasks-live-simple.json")]) == 2


def test_aau_schema_validate_runs_the_report_and_tasks_rules(examples, tmp_path, capsys):
    """The review kinds plug into `aau schema validate` (entry points aau.document_checks)."""
    assert run(["schema", "validate", str(examples / "report-live-simple.json"),
                str(examples / "tasks-live-simple.json")]) == 0
    report = _load(examples / "report-live-simple.json")
    report["consensus"]["ties"] = []
    tasks = _load(examples / "tasks-live-simple.json")
    tasks["units"][1]["unit_id"] = tasks["units"][0]["unit_id"]
    bad_report, bad_tasks = tmp_path / "report.json", tmp_path / "tasks.json"
    bad_report.write_text(json.dumps(report), encoding="utf-8")
    bad_tasks.write_text(json.dumps(tasks), encoding="utf-8")
    capsys.readouterr()
    assert run(["schema", "validate", str(bad_report), str(bad_tasks), "--json"]) == 1
    verdicts = json.loads(capsys.readouterr().out)["files"]
    found = {v["kind"]: v["violations"] for v in verdicts}
    assert found["review-report"] == [{"path": "$.consensus", "message": "counts add up to 4, "
                                                                        "not unit_count 5"}]
    assert found["review-tasks"][0] == {"path": "$.units[0].unit_id",
                                        "message": "unit id 'u0001' repeated"}


@pytest.mark.parametrize(("note", "finding"), [
    ("call the user back at jane.doe@agency.gov", "email_address at character 22"),
    ("SSN 123-45-6789 was in the answer", "us_social_security_number at character 4"),
    ("the agent printed sk-ant-abcdefghijklmnopqrstuvwx", "api_key_or_token at character 18"),
])
def test_a_note_that_trips_the_sensitive_data_scan_is_refused(error_line, example_pack,
                                                              examples, tmp_path, note, finding):
    # alice's $.labels[2] already holds a note; the scan names the label's JSON path and the
    # finding, never the text
    bad = _edited(examples, tmp_path, "alice", lambda d: d["labels"][2].update(note=note))
    others = [p for p in _labels(examples) if "alice" not in p.name]
    out = tmp_path / "report.json"
    assert _summarize(example_pack, [bad, *others], out, "--md") == 2
    line = error_line()
    assert line == (f"aau: error: {bad}: $.labels[2].note: looks like private data ({finding}); "
                    "a labels file a review report binds is public evidence: remove it from the "
                    "note")
    assert note not in line
    assert not out.exists() and not out.with_suffix(".md").exists()


@pytest.mark.parametrize("note", [
    "wrote ops@example.com, a documentation address",  # RFC 2606 domains are not flagged
    "docket 123456789 is not an SSN",                   # nine bare digits without "SSN"
    "4111 1111 1111 1112 fails the Luhn check",         # card-shaped, not a card
])
def test_a_note_the_scan_validates_away_passes(example_pack, examples, tmp_path, note):
    ok = _edited(examples, tmp_path, "alice", lambda d: d["labels"][2].update(note=note))
    others = [p for p in _labels(examples) if "alice" not in p.name]
    out = tmp_path / "report.json"
    assert _summarize(example_pack, [ok, *others], out) == 0
    assert note not in out.read_text(encoding="utf-8")  # and no note reaches the report


def test_summarize_records_the_report_in_the_run_store(example_pack, examples, tmp_path,
                                                       capsys):
    store = tmp_path / "runs.sqlite"
    out = tmp_path / "report.json"
    assert _summarize(example_pack, _labels(examples), out, "--store", str(store)) == 0
    assert (f"recorded as document 1 in {store} (aau runs documents --store {store})"
            in capsys.readouterr().err)
    report = _load(out)
    assert run(["runs", "documents", "--store", str(store), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    aau_schemas.validate("stored-document-list", listed)
    assert listed == [{
        "id": 1, "kind": "review-report", "suite": "bfcl-v4-live_simple-first5",
        "receipt_sha256": report["source"]["receipt_sha256"],
        "recorded_at": listed[0]["recorded_at"], "source": str(out),
        "doc_digest": aau_schemas.canonical_digest(report)}]
    # the receipt filter finds it by the receipt it binds, and only by that one
    for receipt, count in ((report["source"]["receipt_sha256"], 1), ("0" * 64, 0)):
        assert run(["runs", "documents", "--store", str(store), "--receipt", receipt,
                    "--json"]) == 0
        assert len(json.loads(capsys.readouterr().out)) == count
    assert run(["runs", "documents", "1", "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report  # the stored document, whole
    # the same report summarized again is stored once
    again = tmp_path / "again.json"
    assert _summarize(example_pack, _labels(examples), again, "--store", str(store)) == 0
    assert "recorded as document 1 " in capsys.readouterr().err


def test_summarize_no_store_records_nothing(example_pack, examples, tmp_path, capsys):
    store = tmp_path / "runs.sqlite"
    out = tmp_path / "report.json"
    assert _summarize(example_pack, _labels(examples), out, "--store", str(store),
                      "--no-store") == 2
    assert "--store and --no-store contradict each other" in capsys.readouterr().err
    assert _summarize(example_pack, _labels(examples), out, "--no-store") == 0
    assert "recorded as" not in capsys.readouterr().err
    assert out.exists() and not store.exists()
