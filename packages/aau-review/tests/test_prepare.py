"""``aau review prepare`` on the committed real-model run (``examples/real/``) and on mock runs:
blinding, the seeded design, the bindings, and every refusal (one line, exit 2, nothing
written)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import aau_schemas
import pytest
from aau_core import run
from aau_review import read_review_pack
from aau_schemas import sha256_hex

REPO = Path(__file__).resolve().parents[3]


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()



def test_real_run_pack_is_blinded_bound_and_dealt(tmp_path, prepare, real_run):
    out = tmp_path / "pack"
    assert prepare(out, "--raters", "3", "--per-unit", "2", "--seed", "11",
                   name="bfcl-simple_python") == 0
    pack = read_review_pack(out)
    private, receipt, suite = real_run("bfcl-simple_python")
    tasks = _load(out / "tasks.json")
    aau_schemas.validate("review-tasks", tasks)
    aau_schemas.validate("review-manifest", _load(out / "manifest.json"))
    aau_schemas.validate("review-scores", _load(out / "scores.json"))
    # blinded: no expected answer and no verdict anywhere in what raters see
    assert not {"expected", "scores", "exact", "tool_calls_match"} & _keys(tasks["units"])
    assert "tool_call_mismatches" not in (out / "tasks.json").read_text(encoding="utf-8")
    src = pack.manifest.source
    assert src.receipt_sha256 == sha256_hex(receipt.read_bytes())
    assert src.private_receipt_sha256 == sha256_hex(private.read_bytes())
    assert src.suite_sha256 == _load(receipt)["suite_sha256"]
    assert pack.manifest.unit_count == 30 and len(tasks["units"]) == 30
    # every unit to exactly K = 2 of the 3 raters, each rater 20 units, in its own order
    dealt = Counter(u for r in pack.manifest.raters for u in r.units)
    assert set(dealt.values()) == {2} and len(dealt) == 30
    assert [len(r.units) for r in pack.manifest.raters] == [20, 20, 20]
    orders = [list(r.units) for r in pack.manifest.raters]
    assert all(o != sorted(o) for o in orders)
    # inputs and responses are the private receipt's rows
    rows = {(r["scenario_id"], r["repeat"]): r for r in _load(private)["results"]}
    for unit in tasks["units"]:
        row = rows[(unit["scenario_id"], unit["repeat"])]
        assert unit["input"] == row["input"] and unit["response"] == row["response"]
    # the receipt's two mismatches are the two failing units of scores.json
    fails = [r for r in _load(out / "scores.json")["units"] if r["scores"]["exact"] == "fail"]
    assert len(fails) == 2
    again = tmp_path / "again"
    assert prepare(again, "--raters", "3", "--per-unit", "2", "--seed", "11",
                   name="bfcl-simple_python") == 0
    assert (again / "manifest.json").read_bytes() == (out / "manifest.json").read_bytes()
    other = tmp_path / "other-seed"
    assert prepare(other, "--raters", "3", "--per-unit", "2", "--seed", "12",
                   name="bfcl-simple_python") == 0
    assert (other / "tasks.json").read_bytes() != (out / "tasks.json").read_bytes()


def test_show_scores_and_sample(tmp_path, prepare):
    out = tmp_path / "pack"
    assert prepare(out, "--show-scores", "--sample", "3", "--seed", "2") == 0
    tasks = _load(out / "tasks.json")
    assert tasks["blinded"] is False and len(tasks["units"]) == 3
    assert all({"expected", "scores"} <= set(u) for u in tasks["units"])
    assert read_review_pack(out).manifest.sample_size == 3


def test_a_public_receipt_alone_is_refused(error_line, tmp_path, capsys, real_run):
    _, receipt, suite = real_run()
    out = tmp_path / "pack"
    assert run(["review", "prepare", str(receipt), "--receipt", str(receipt), "--suite",
                str(suite), "--out", str(out)]) == 2
    line = error_line()
    assert line.startswith(f"aau: error: {receipt}: this is a public receipt; aau review "
                           "prepare needs the run's private receipt")
    assert not out.exists()


@pytest.mark.parametrize("options", [["--suite", "SUITE"], []])
def test_a_public_receipt_given_alone_gets_the_documented_line(error_line, tmp_path, real_run,
                                                               options):
    # the argument is checked before the missing --receipt, so the line says what to give
    _, receipt, suite = real_run()
    out = tmp_path / "pack"
    options = [str(suite) if o == "SUITE" else o for o in options]
    assert run(["review", "prepare", str(receipt), *options, "--out", str(out)]) == 2
    assert error_line().startswith(f"aau: error: {receipt}: this is a public receipt; aau "
                                   "review prepare needs the run's private receipt")
    assert not out.exists()


@pytest.mark.parametrize(("missing", "given"), [("--receipt", "--suite"), ("--suite",
                                                                          "--receipt")])
def test_a_missing_receipt_or_suite_is_a_usage_error(error_line, tmp_path, real_run, missing,
                                                     given):
    private, receipt, suite = real_run()
    value = suite if given == "--suite" else receipt
    assert run(["review", "prepare", str(private), given, str(value), "--out",
                str(tmp_path / "pack")]) == 2
    assert error_line() == f"aau: error: Missing option '{missing}'"


@pytest.mark.parametrize(("options", "message"), [
    (["--per-unit", "3"], "--per-unit 3: 1 to the number of raters (2)"),
    (["--sample", "6"], "--sample 6: 1 to the 5 measured units"),
    (["--raters", "Alice"], "--raters: 'Alice' is not a pseudonym"),
    (["--raters", "a,a"], "--raters: 1 to 100 distinct pseudonyms"),
])
def test_bad_design_options(error_line, tmp_path, capsys, prepare, options, message):
    out = tmp_path / "pack"
    assert prepare(out, *options) == 2
    assert message in error_line()
    assert not out.exists()


def test_files_of_another_run_are_refused(error_line, tmp_path, capsys, real_run):
    private, _, suite = real_run()
    _, other_receipt, other_suite = real_run("bfcl-multiple")
    out = tmp_path / "pack"
    assert run(["review", "prepare", str(private), "--receipt", str(other_receipt), "--suite",
                str(suite), "--out", str(out)]) == 2
    assert f"{other_receipt}: $.suite_id: suite_id" in error_line()
    _, receipt, _ = real_run()
    assert run(["review", "prepare", str(private), "--receipt", str(receipt), "--suite",
                str(other_suite), "--out", str(out)]) == 2
    assert "not the suite of this run" in error_line()
    assert not out.exists()


def test_an_existing_out_is_refused(error_line, tmp_path, capsys, prepare):
    out = tmp_path / "pack"
    out.mkdir()
    assert prepare(out) == 2
    assert "exists" in error_line()
    assert list(out.iterdir()) == []


def test_categories_file(error_line, tmp_path, capsys, prepare):
    good = tmp_path / "cats.json"
    good.write_text(json.dumps([{"id": "hallucinated-tool", "description": "made a tool up"}]))
    out = tmp_path / "pack"
    assert prepare(out, "--categories", str(good)) == 0
    assert [c.id for c in read_review_pack(out).tasks.taxonomy.categories] == ["hallucinated-tool"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "Bad Id", "description": "x"}]))
    assert prepare(tmp_path / "p2", "--categories", str(bad)) == 2
    assert error_line().startswith(f"aau: error: {bad}: $[0].id: ")
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps([{"id": "a", "description": "x"}, {"id": "a", "description": "y"}]))
    assert prepare(tmp_path / "p3", "--categories", str(twice)) == 2
    assert f"{twice}: $[1].id: category id 'a' repeated" in error_line()


def test_sensitive_content_is_refused_unless_allowed_and_recorded(error_line, tmp_path, capsys,
                                                                  sensitive_run):
    private, receipt, suite = sensitive_run
    capsys.readouterr()
    args = ["review", "prepare", str(private), "--receipt", str(receipt), "--suite", str(suite)]
    assert run([*args, "--out", str(tmp_path / "no")]) == 2
    assert error_line() == (
        f"aau: error: {suite}: $.sharing.contains_health_records: the suite declares sensitive "
        "content; add --allow-sensitive to prepare a pack anyway (the pack records the "
        "declaration)")
    assert not (tmp_path / "no").exists()
    assert run([*args, "--out", str(tmp_path / "yes"), "--allow-sensitive"]) == 0
    sensitive = read_review_pack(tmp_path / "yes").manifest.sensitive_content
    assert sensitive.declared == ("contains_health_records",) and sensitive.allowed is True


def test_units_that_did_not_measure_the_agent_are_left_out(tmp_path, sensitive_run):
    private, receipt, suite = sensitive_run
    doc = _load(private)
    doc["results"][0].update(error="adapter-timeout", response={}, error_detail="timed out")
    doc["results"][1].update(error="adapter-invalid-response", response={},
                             error_detail="not JSON")
    private.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "pack"
    assert run(["review", "prepare", str(private), "--receipt", str(receipt), "--suite",
                str(suite), "--allow-sensitive", "--out", str(out)]) == 0
    pack = read_review_pack(out)
    assert pack.manifest.excluded_not_measured == 1  # the timeout; invalid response measured
    assert pack.manifest.unit_count == 7
    assert [u.error for u in pack.tasks.units].count("adapter-invalid-response") == 1
