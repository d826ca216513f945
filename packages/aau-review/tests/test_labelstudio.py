"""Label Studio interop: ``aau review export-labelstudio`` writes Label Studio's task import
format and a labelling config that fit each other; ``aau review import-labelstudio`` reads Label
Studio's JSON export (built here as Label Studio 1.x writes it, fields aau ignores included) back
into labels that ``aau review summarize`` accepts; every bad export is one line naming the file
and JSON path, exit 2, nothing written."""

from __future__ import annotations

import json
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_core import run

REPO = Path(__file__).resolve().parents[3]


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _export(pack: Path, rater: str, out: Path, *extra: str) -> int:
    return run(["review", "export-labelstudio", str(pack), "--rater", rater, "--out", str(out),
                *extra])


def _import(pack: Path, export: Path, rater: str, out: Path, *extra: str) -> int:
    return run(["review", "import-labelstudio", str(pack), str(export), "--rater", rater,
                "--out", str(out), *extra])


# ---- a Label Studio JSON export, as Label Studio writes it ------------------------------------

def _user(n: int, expanded: bool) -> Any:
    """``completed_by``: the user's id, or the object an expanded export writes."""
    return {"id": n, "email": f"annotator{n}@example.org", "first_name": "", "last_name": ""} \
        if expanded else n


def _annotation(label: dict[str, Any], *, ann_id: int, task_id: int, user: Any,
                cancelled: bool = False, created_at: str | None = None) -> dict[str, Any]:
    """One annotation of a task, every field Label Studio 1.x's JSON export writes."""
    result = [{"value": {"choices": [label["verdict"]]}, "id": f"v{ann_id:08d}",
               "from_name": "verdict", "to_name": "response", "type": "choices",
               "origin": "manual"}]
    if label.get("categories"):
        result.append({"value": {"choices": list(label["categories"])}, "id": f"c{ann_id:08d}",
                       "from_name": "categories", "to_name": "response", "type": "choices",
                       "origin": "manual"})
    if label.get("note"):
        result.append({"value": {"text": [label["note"]]}, "id": f"n{ann_id:08d}",
                       "from_name": "note", "to_name": "response", "type": "textarea",
                       "origin": "manual"})
    stamp = created_at or label["labelled_at"]
    return {
        "id": ann_id, "completed_by": user, "result": [] if cancelled else result,
        "was_cancelled": cancelled, "ground_truth": False, "created_at": stamp,
        "updated_at": "2026-12-01T10:05:41.552018Z", "draft_created_at": None,
        "lead_time": label["time_spent_s"], "prediction": {}, "result_count": len(result),
        "unique_id": f"6f1c0b7e-0000-4000-8000-{ann_id:012d}", "import_id": None,
        "last_action": None, "bulk_created": False, "task": task_id, "project": 7,
        "updated_by": user if isinstance(user, int) else user["id"],
        "parent_prediction": None, "parent_annotation": None, "last_created_by": None,
    }


def _ls_export(tasks_file: Path, annotations: dict[str, list[dict[str, Any]]]) -> list[Any]:
    """Label Studio's JSON export of a project that imported ``tasks_file``: unit id -> the
    annotations of its task (made with ``_annotation``; the task id filled in here)."""
    out = []
    for i, task in enumerate(_load(tasks_file)):
        task_id = 401 + i
        anns = [dict(a, task=task_id) for a in annotations.get(task["data"]["unit_id"], [])]
        out.append({
            "id": task_id, "annotations": anns, "file_upload": "5d1e8a2b-alice-tasks.json",
            "drafts": [], "predictions": [], "data": task["data"], "meta": {},
            "created_at": "2026-12-01T09:58:02.731400Z",
            "updated_at": "2026-12-01T10:03:11.209870Z", "inner_id": i + 1,
            "total_annotations": sum(not a["was_cancelled"] for a in anns),
            "cancelled_annotations": sum(a["was_cancelled"] for a in anns),
            "total_predictions": 0, "comment_count": 0, "unresolved_comment_count": 0,
            "last_comment_updated_at": None, "project": 7, "updated_by": 3,
            "comment_authors": [],
        })
    return out


def _from_labels(labels_file: Path, *, user: Any, first_id: int = 9001) -> dict[str, list]:
    """unit id -> [annotation] of a labels file's labels (one annotation per label)."""
    return {lab["unit_id"]: [_annotation(lab, ann_id=first_id + k, task_id=0, user=user)]
            for k, lab in enumerate(_load(labels_file)["labels"])}


def _write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


# ---- export -----------------------------------------------------------------------------------

def test_export_writes_the_raters_tasks_in_its_order_and_a_config_that_fits(example_pack,
                                                                             tmp_path, capsys):
    out, config = tmp_path / "alice-tasks.json", tmp_path / "config.xml"
    capsys.readouterr()
    assert _export(example_pack, "alice", out, "--config", str(config), "--json") == 0
    tasks = _load(out)
    manifest = _load(example_pack / "manifest.json")
    units = {u["unit_id"]: u for u in _load(example_pack / "tasks.json")["units"]}
    assert [t["data"]["unit_id"] for t in tasks] == ["u0001", "u0005", "u0002", "u0004",
                                                     "u0003"]
    assert [t["data"]["unit_id"] for t in tasks] == manifest["raters"][0]["units"]
    sha = aau_schemas.sha256_hex((example_pack / "tasks.json").read_bytes())
    assert json.loads(capsys.readouterr().out) == {
        "path": str(out), "config": str(config), "rater": "alice", "tasks": 5,
        "tasks_sha256": sha}
    for task in tasks:
        data = task["data"]
        assert set(task) == {"data"}
        unit = units[data["unit_id"]]
        assert json.loads(data["input"]) == unit["input"]
        assert json.loads(data["response"]) == unit["response"]
        assert (data["scenario_id"], data["repeat"]) == (unit["scenario_id"], unit["repeat"])
        assert data["aau_tasks_sha256"] == sha and data["aau_rater"] == "alice"
        assert "expected" not in data and "scores" not in data  # blinded
        assert data["title"] == f"{unit['unit_id']} · scenario {unit['scenario_id']} · repeat 0"
    assert tasks[0]["data"]["failure"] == "failure code: none (the answer was accepted in form)"

    view = ET.fromstring(config.read_text(encoding="utf-8"))
    objects = {e.get("name"): e.get("value") for e in view if e.tag == "Text"}
    assert objects == {"input": "$input", "response": "$response", "failure": "$failure"}
    used = set(re.findall(r"\$(\w+)", config.read_text(encoding="utf-8").split("-->", 1)[1]))
    assert used == {"title", "input", "response", "failure"}
    assert all(used <= set(t["data"]) for t in tasks)
    controls = {e.get("name"): e for e in view if e.tag in ("Choices", "TextArea")}
    assert set(controls) == {"verdict", "categories", "note"}
    assert all(c.get("toName") == "response" for c in controls.values())
    verdict, categories = controls["verdict"], controls["categories"]
    assert [c.get("value") for c in verdict] == ["pass", "fail", "unsure"]
    assert verdict.get("choice") == "single-radio" and verdict.get("required") == "true"
    taxonomy = _load(example_pack / "tasks.json")["taxonomy"]["categories"]
    assert [(c.get("value"), c.get("hint")) for c in categories] == [
        (c["id"], c["description"]) for c in taxonomy]
    assert categories.get("choice") == "multiple"


def test_an_unblinded_pack_shows_expected_and_scores(tmp_path, prepare):
    pack = tmp_path / "open"
    assert prepare(pack, "--raters", "alice,bob", "--seed", "7", "--show-scores") == 0
    out, config = tmp_path / "t.json", tmp_path / "c.xml"
    assert _export(pack, "bob", out, "--config", str(config)) == 0
    units = {u["unit_id"]: u for u in _load(pack / "tasks.json")["units"]}
    for task in _load(out):
        unit = units[task["data"]["unit_id"]]
        assert json.loads(task["data"]["expected"]) == unit["expected"]
        s = unit["scores"]
        assert task["data"]["scores"] == (f"exact: {s['exact']}, outcome_exact: "
                                          f"{s['outcome_exact']}, tool_calls_match: "
                                          f"{s['tool_calls_match']}")
    view = ET.fromstring(config.read_text(encoding="utf-8"))
    assert {e.get("name") for e in view if e.tag == "Text"} == {
        "input", "response", "failure", "expected", "scores"}


def test_a_refused_answer_shows_its_code_and_declared_sensitive_content_is_said(
        tmp_path, capsys, sensitive_run):
    private, receipt, suite = sensitive_run
    doc = _load(private)
    doc["results"][1].update(error="adapter-invalid-response", response={},
                             error_detail="not JSON")
    private.write_text(json.dumps(doc), encoding="utf-8")
    pack = tmp_path / "pack"
    assert run(["review", "prepare", str(private), "--receipt", str(receipt), "--suite",
                str(suite), "--allow-sensitive", "--raters", "1", "--out", str(pack)]) == 0
    capsys.readouterr()
    out = tmp_path / "t.json"
    assert _export(pack, "rater-1", out) == 0
    assert "sensitive content declared by the suite: contains_health_records (the tasks carry " \
        "it to Label Studio" in capsys.readouterr().err
    failures = [t["data"]["failure"] for t in _load(out)]
    assert failures.count("failure code: adapter-invalid-response") == 1
    assert failures.count("failure code: none (the answer was accepted in form)") == 7


def test_export_refuses_an_unknown_rater_and_an_output_in_the_pack(error_line, example_pack,
                                                                     tmp_path):
    out = tmp_path / "t.json"
    assert _export(example_pack, "carol", out) == 2
    assert error_line() == (f"aau: error: --rater carol: not a rater of the pack {example_pack} "
                            "(raters: alice, bob)")
    assert _export(example_pack, "alice", example_pack / "t.json") == 2
    assert error_line() == (f"aau: error: --out {example_pack / 't.json'}: inside the pack "
                            "folder, which holds only the pack's own files; write the export "
                            "outside it (e.g. in the folder that holds the pack)")
    assert not out.exists() and not (example_pack / "t.json").exists()
    assert run(["review", "validate", str(example_pack)]) == 0


# ---- round trip -------------------------------------------------------------------------------

def test_round_trip_export_label_studio_import_summarize(example_pack, examples, tmp_path,
                                                         capsys):
    """Both raters' tasks go to Label Studio, come back as its export, and summarize gives the
    numbers of the hand-written labels (test_summarize): the import loses nothing."""
    imported = {}
    for n, rater in enumerate(("alice", "bob"), start=3):
        tasks = tmp_path / f"{rater}-tasks.json"
        assert _export(example_pack, rater, tasks) == 0
        annotations = _from_labels(examples / f"labels-{rater}.json", user=_user(n, n == 4))
        export = _write(tmp_path / f"project-{n}-at-2026-12-01-10-05-3f9a1c2b.json",
                        _ls_export(tasks, annotations))
        imported[rater] = tmp_path / f"{rater}.json"
        assert _import(example_pack, export, rater, imported[rater]) == 0
        doc = _load(imported[rater])
        aau_schemas.validate("review-labels", doc)
        expected = _load(examples / f"labels-{rater}.json")
        assert doc == expected  # verdicts, categories, notes, seconds, times: all kept
        assert "annotator" not in imported[rater].read_text(encoding="utf-8")  # no LS user
    capsys.readouterr()
    report = tmp_path / "report.json"
    assert run(["review", "summarize", str(example_pack), "--labels", str(imported["alice"]),
                "--labels", str(imported["bob"]), "--labels",
                str(examples / "labels-judge.json"), "--out", str(report)]) == 0
    a = _load(report)["human_agreement"]
    assert a["percent_agreement"]["value"] == 0.75 and a["cohen_kappa"]["value"] == 0.5
    assert _load(report)["consensus"]["pass"] == 3


def test_cancelled_annotations_are_skipped_and_counted(example_pack, examples, tmp_path,
                                                       capsys):
    tasks = tmp_path / "alice-tasks.json"
    assert _export(example_pack, "alice", tasks) == 0
    annotations = _from_labels(examples / "labels-alice.json", user=3)
    skipped = dict(annotations["u0002"][0], was_cancelled=True, result=[], id=8001)
    annotations["u0002"] = [skipped, *annotations["u0002"]]  # skipped, then labelled
    annotations["u0004"] = [dict(annotations["u0004"][0], was_cancelled=True, result=[])]
    annotations["u0001"][0]["lead_time"] = None  # an annotation made through the API
    annotations["u0003"][0]["created_at"] = "2026-12-01T12:01:24.117302+02:00"
    export = _write(tmp_path / "export.json", _ls_export(tasks, annotations))
    out = tmp_path / "alice.json"
    capsys.readouterr()
    assert _import(example_pack, export, "alice", out, "--json") == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {
        "path": str(out), "rater": "alice", "tasks": 5, "labels": 4, "cancelled": 2,
        "other_annotators": 0, "without_lead_time": 1, "unlabelled": 1}
    assert ("alice: 4 label(s) from 5 task(s); 2 cancelled annotation(s) skipped; 1 without "
            "lead_time (time spent 0); 1 of the rater's unit(s) unlabelled") in captured.err
    labels = {lab["unit_id"]: lab for lab in _load(out)["labels"]}
    assert sorted(labels) == ["u0001", "u0002", "u0003", "u0005"]
    assert labels["u0001"]["time_spent_s"] == 0
    assert labels["u0003"]["labelled_at"] == "2026-12-01T10:01:24.117302Z"
    assert run(["review", "validate", str(out), "--pack", str(example_pack)]) == 0


def test_annotator_picks_one_of_several_users(error_line, example_pack, examples, tmp_path,
                                              capsys):
    tasks = tmp_path / "alice-tasks.json"
    assert _export(example_pack, "alice", tasks) == 0
    annotations = _from_labels(examples / "labels-alice.json", user=_user(3, True))
    other = _from_labels(examples / "labels-bob.json", user=_user(12, True), first_id=7001)
    for unit_id in ("u0001", "u0002"):  # an admin also tried two tasks
        annotations[unit_id].append(other[unit_id][0])
    export = _write(tmp_path / "export.json", _ls_export(tasks, annotations))
    out = tmp_path / "alice.json"
    assert _import(example_pack, export, "alice", out) == 2
    assert error_line() == (
        f"aau: error: {export}: $[*].annotations[*].completed_by: annotations by 2 Label "
        "Studio users (user 12 <annotator12@example.org>; user 3 <annotator3@example.org>): "
        "one labels file is one rater's; choose one with --annotator ID or e-mail")
    assert not out.exists()
    for who in ("annotator3@example.org", "3"):
        out = tmp_path / f"alice-{who}.json"
        assert _import(example_pack, export, "alice", out, "--annotator", who, "--json") == 0
        assert json.loads(capsys.readouterr().out)["other_annotators"] == 2
        assert _load(out) == _load(examples / "labels-alice.json")
    assert _import(example_pack, export, "alice", tmp_path / "x.json", "--annotator", "9") == 2
    assert error_line().startswith(f"aau: error: {export}: $[*].annotations[*].completed_by: "
                                   "--annotator 9: no annotation by that user (users: ")



def test_one_user_is_one_id_whether_completed_by_is_a_number_or_an_object(
        example_pack, examples, tmp_path, capsys):
    """User 1 written as the number ``1`` in some annotations and as ``{"id": 1, "email":
    ...}`` in others is one user: imported without --annotator, and its e-mail picks all of
    them (not only the object-form ones)."""
    tasks = tmp_path / "alice-tasks.json"
    assert _export(example_pack, "alice", tasks) == 0
    annotations = _from_labels(examples / "labels-alice.json", user=_user(1, False))
    first = sorted(annotations)[0]
    annotations[first] = [dict(annotations[first][0], completed_by=_user(1, True))]
    assert len(annotations) > 1  # some number-form, one object-form
    export = _write(tmp_path / "export.json", _ls_export(tasks, annotations))
    out = tmp_path / "alice.json"
    assert _import(example_pack, export, "alice", out, "--json") == 0
    assert json.loads(capsys.readouterr().out)["other_annotators"] == 0
    assert _load(out) == _load(examples / "labels-alice.json")
    other = _from_labels(examples / "labels-bob.json", user=_user(12, False), first_id=7001)
    annotations[first].append(other[first][0])  # and a second user, by number only
    export = _write(tmp_path / "export2.json", _ls_export(tasks, annotations))
    for who in ("annotator1@example.org", "1"):
        out = tmp_path / f"alice-{who}.json"
        assert _import(example_pack, export, "alice", out, "--annotator", who, "--json") == 0
        assert json.loads(capsys.readouterr().out)["other_annotators"] == 1
        assert _load(out) == _load(examples / "labels-alice.json")
    assert _import(example_pack, export, "alice", tmp_path / "x.json") == 2
    assert ("annotations by 2 Label Studio users (user 1 <annotator1@example.org>; user 12): "
            in capsys.readouterr().err)


# ---- bad exports ------------------------------------------------------------------------------

def _first(doc: list) -> dict:
    return next(t for t in doc if t["data"]["unit_id"] == "u0003")


def _result(doc: list, control: str) -> dict:
    return next(r for r in _first(doc)["annotations"][0]["result"] if r["from_name"] == control)


def _twice(doc: list) -> None:
    ann = _first(doc)["annotations"][0]
    _first(doc)["annotations"].append(dict(ann, id=ann["id"] + 1000))


BAD = [
    ("unit-not-in-pack", lambda d: _first(d)["data"].update(unit_id="u0099"),
     "$[4].data.unit_id", "'u0099' is not a unit of the pack"),
    ("annotated-twice", _twice, "$[4].annotations[1]",
     "u0003 annotated twice by user 3 (first at $[4].annotations[0]): one label per unit"),
    ("unknown-verdict", lambda d: _result(d, "verdict")["value"].update(choices=["maybe"]),
     "$[4].annotations[0].result[0].value.choices[0]",
     "unknown choice 'maybe': a verdict is one of pass, fail, unsure"),
    ("two-verdicts", lambda d: _result(d, "verdict")["value"].update(choices=["pass", "fail"]),
     "$[4].annotations[0].result[0].value.choices",
     "a label has exactly one verdict (pass, fail, unsure)"),
    ("no-verdict", lambda d: _first(d)["annotations"][0].update(
        result=_first(d)["annotations"][0]["result"][1:]),
     "$[4].annotations[0].result", "no verdict"),
    ("unknown-category", lambda d: _result(d, "categories")["value"].update(choices=["typo"]),
     "$[4].annotations[0].result[1].value.choices[0]",
     "unknown choice 'typo': not a category of the pack's taxonomy"),
    ("unknown-control", lambda d: _result(d, "note").update(from_name="rating"),
     "$[4].annotations[0].result[2].from_name",
     "'rating' is no control of aau's labelling config (verdict, categories, note)"),
    ("note-too-long", lambda d: _result(d, "note")["value"].update(text=["x" * 501]),
     "$[4].annotations[0].result", "the note has 501 characters; at most 500"),
    ("negative-lead-time", lambda d: _first(d)["annotations"][0].update(lead_time=-1),
     "$[4].annotations[0].lead_time", "-1 is not a number of seconds >= 0"),
    ("lead-time-over-a-day", lambda d: _first(d)["annotations"][0].update(lead_time=1e9),
     "$[4].annotations[0].lead_time",
     "1000000000.0 seconds is more than a day on one unit (at most 86400, as every label)"),
    ("pass-with-category", lambda d: _result(d, "verdict")["value"].update(choices=["pass"]),
     "$[4].annotations[0].result", "a pass names failure categories (wrong-arguments): a "
     "contradiction, not a label"),
    ("empty-export", lambda d: d.clear(), "$", "no task in the export"),
    ("naive-created-at", lambda d: _first(d)["annotations"][0].update(
        created_at="2026-12-01T10:01:24"), "$[4].annotations[0].created_at",
     "'2026-12-01T10:01:24' is not an ISO 8601 time with a UTC offset"),
    ("created-at-out-of-range", lambda d: _first(d)["annotations"][0].update(
        created_at="9999-12-31T23:59:59-05:00"), "$[4].annotations[0].created_at",
     "'9999-12-31T23:59:59-05:00' is not an ISO 8601 time with a UTC offset"),
    ("cancelled-not-a-bool", lambda d: _first(d)["annotations"][0].update(was_cancelled="no"),
     "$[4].annotations[0].was_cancelled", "'no' is not true or false"),
    ("unit-id-not-a-string", lambda d: _first(d)["data"].update(unit_id=["u0003"]),
     "$[4].data.unit_id", "['u0003'] is not a unit of the pack"),
    ("control-not-a-string", lambda d: _result(d, "note").update(from_name=["note"]),
     "$[4].annotations[0].result[2].from_name", "['note'] is no control of aau's labelling"),
    ("another-pack", lambda d: _first(d)["data"].update(aau_tasks_sha256="0" * 64),
     "$[4].data.aau_tasks_sha256", "a task of another pack: this pack's tasks.json has SHA-256 "),
    ("another-rater", lambda d: _first(d)["data"].update(aau_rater="bob"),
     "$[4].data.aau_rater", "exported for rater 'bob', not 'alice'"),
    ("not-aau-task", lambda d: _first(d)["data"].pop("aau_rater"),
     "$[4].data", "no aau_tasks_sha256/aau_rater: not a task of aau review export-labelstudio"),
]


@pytest.mark.parametrize(("edit", "where", "message"), [b[1:] for b in BAD],
                         ids=[b[0] for b in BAD])
def test_a_bad_export_is_one_line_exit_2_nothing_written(error_line, example_pack, examples,
                                                         tmp_path, edit, where, message):
    tasks = tmp_path / "alice-tasks.json"
    assert _export(example_pack, "alice", tasks) == 0
    doc = _ls_export(tasks, _from_labels(examples / "labels-alice.json", user=3))
    assert _first(doc) is doc[4]
    edit(doc)
    export = _write(tmp_path / "export.json", doc)
    out = tmp_path / "alice.json"
    assert _import(example_pack, export, "alice", out) == 2
    assert error_line().startswith(f"aau: error: {export}: {where}: {message}")
    assert not out.exists()


def test_a_min_json_export_or_a_unit_of_another_rater_is_refused(error_line, tmp_path, examples,
                                                                 prepare):
    pack = tmp_path / "k1"
    assert prepare(pack, "--raters", "alice,bob", "--per-unit", "1", "--seed", "7") == 0
    bob = tmp_path / "bob-tasks.json"
    assert _export(pack, "bob", bob) == 0
    doc = _ls_export(bob, {})[:1]
    doc[0]["data"]["aau_rater"] = "alice"  # bob's unit, claimed for alice
    export = _write(tmp_path / "export.json", doc)
    assert _import(pack, export, "alice", tmp_path / "a.json") == 2
    unit = doc[0]["data"]["unit_id"]
    assert error_line() == (f"aau: error: {export}: $[0].data.unit_id: {unit} is not assigned "
                            "to rater 'alice'")
    flat = _write(tmp_path / "min.json", {"id": 1, "verdict": "pass"})
    assert _import(pack, flat, "bob", tmp_path / "b.json") == 2
    assert error_line() == (f"aau: error: {flat}: $: not a Label Studio JSON export (a list of "
                            "tasks); export the project in the JSON format")


# ---- the docs ---------------------------------------------------------------------------------

def test_the_label_studio_docs_commands_run(tmp_path, monkeypatch, examples, capsys):
    """docs/review.md's Label Studio block runs as written, with the export Label Studio
    would write for alice's example labels in the file it names."""
    text = (REPO / "docs" / "review.md").read_text(encoding="utf-8")
    section = text.split("## Label Studio\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.replace("\\\n", " ").splitlines()
             if line.startswith("aau review ")]
    assert [shlex.split(line)[2] for line in lines] == [
        "prepare", "export-labelstudio", "import-labelstudio", "validate"]
    (tmp_path / "examples").symlink_to(REPO / "examples")
    monkeypatch.chdir(tmp_path)
    for line in lines:
        args = shlex.split(line)[1:]
        if args[1] == "import-labelstudio":
            annotations = _from_labels(examples / "labels-alice.json", user=3)
            _write(Path(args[3]), _ls_export(Path("alice-tasks.json"), annotations))
        assert run(args) == 0, line
    assert ET.parse("label-config.xml").getroot().tag == "View"
    assert _load(Path("alice.json")) == _load(examples / "labels-alice.json")
