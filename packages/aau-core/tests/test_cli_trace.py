"""``aau trace score`` and ``aau trace import`` end to end (in process through ``aau_core.run``,
and once through the installed ``aau`` script): exit codes, schema-valid output, one-line errors,
atomic writes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import aau_schemas
import pytest
from _helpers import REPO
from aau_core import run

TRACES = REPO / "examples" / "traces"
PASS = TRACES / "refactor-pass.json"
LOW_JUDGE = TRACES / "refactor-low-judge.json"
HARNESS_DIR = TRACES / "praison-harness-run"
SCHEMA = "d13ecd6a3bd0482a"


def _run(capsys, *args):
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_passing_trace_exits_0_with_a_valid_report(capsys):
    code, out, err = _run(capsys, "trace", "score", str(PASS), "--require-artifact",
                          "src/report.py", "--min-tool-calls", "3", "--expected-schema-hash",
                          SCHEMA, "--json")
    assert code == 0, err
    doc = json.loads(out)
    aau_schemas.validate("eval-report", doc)
    assert aau_schemas.detect_kind(doc) == "eval-report"
    (case,) = doc["results"]
    assert case["case_name"] == str(PASS) and case["passed"] and case["score"] == 1.0
    aau_schemas.validate("trace-result", case["record"])
    assert case["record"]["gates_configured"] == ["artifacts_complete", "tool_calls_sufficient",
                                                  "schema_consistent", "judge_passed"]
    assert "1 of 1 trace(s) passed" in err


def test_a_failing_gate_exits_1_and_names_it(capsys):
    code, out, err = _run(capsys, "trace", "score", str(PASS), str(LOW_JUDGE), "--json")
    assert code == 1
    doc = json.loads(out)
    assert (doc["passed_cases"], doc["failed_cases"]) == (1, 1)
    assert f"{LOW_JUDGE}: FAIL judge_passed: score 0.75" in err


def test_threshold_and_min_calls_options(capsys):
    code, _, err = _run(capsys, "trace", "score", str(LOW_JUDGE), "--judge-threshold", "6")
    assert code == 0, err
    code, _, err = _run(capsys, "trace", "score", str(PASS), "--min-tool-calls", "4")
    assert code == 1 and "FAIL tool_calls_sufficient" in err


def test_outputs_junit_markdown_and_out(tmp_path, capsys):
    from _junit_xsd import validate_junit

    out, junit, md = tmp_path / "r.json", tmp_path / "j.xml", tmp_path / "t.md"
    code, stdout, _ = _run(capsys, "trace", "score", str(PASS), str(LOW_JUDGE), "--out", str(out),
                           "--junit", str(junit), "--markdown", str(md), "--name", "nightly")
    assert code == 1 and stdout == ""
    doc = json.loads(out.read_text())
    aau_schemas.validate("eval-report", doc)
    assert doc["package_name"] == "nightly"
    xml = junit.read_text()
    validate_junit(xml)
    assert 'failures="1"' in xml and "failed gates: judge_passed" in xml
    text = md.read_text()
    assert "**nightly**: 1 of 2 trace(s) passed" in text
    assert f"| {LOW_JUDGE} | FAIL | 0.75 | judge_passed |" in text
    # existing outputs are refused without --force, before anything is written
    code, _, err = _run(capsys, "trace", "score", str(PASS), "--out", str(out))
    assert code == 2 and "already exists" in err
    code, _, _ = _run(capsys, "trace", "score", str(PASS), "--out", str(out), "--force")
    assert code == 0 and json.loads(out.read_text())["total_cases"] == 1


BAD_TRACES = [
    ('{"tool_calls": "abc"}', "$.tool_calls"),
    ('{"judge_score": true}', "$.judge_score"),
    ('{"artifacts": "out.txt"}', "$.artifacts"),
    ('{"tool_calls": 2.0}', "$.tool_calls"),
    ('[1, 2]', "$"),
    ('{"judge_score": NaN}', "$.judge_score"),
    ('{"judge_score": 1e999}', "$.judge_score"),
    ('{"tool_calls": [1,]}', "line 1"),
]


@pytest.mark.parametrize("content, where", BAD_TRACES)
def test_a_single_bad_trace_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, content,
                                                                   where):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    out = tmp_path / "r.json"
    code, stdout, err = _run(capsys, "trace", "score", str(bad), "--out", str(out))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"aau: error: {bad}: ") and where in lines[0]
    assert not out.exists() and stdout == ""


@pytest.mark.parametrize("content, where", BAD_TRACES)
def test_a_bad_trace_in_a_batch_is_its_own_errored_case(tmp_path, capsys, content, where):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    out = tmp_path / "r.json"
    code, stdout, err = _run(capsys, "trace", "score", str(PASS), str(bad), str(LOW_JUDGE),
                             "--out", str(out))
    assert code == 1 and stdout == ""
    doc = json.loads(out.read_text())
    aau_schemas.validate("eval-report", doc)
    assert [r["case_name"] for r in doc["results"]] == [str(PASS), str(bad), str(LOW_JUDGE)]
    assert (doc["passed_cases"], doc["failed_cases"], doc["judge_errors"]) == (1, 2, 0)
    errored = doc["results"][1]
    assert (errored["passed"], errored["score"], errored["record"]) == (False, 0.0, None)
    assert errored["error"].startswith(f"{bad}: ") and where in errored["error"]
    lines = err.strip().splitlines()
    assert lines[0].startswith(f"{PASS}: pass: score 1;")
    assert lines[1] == f"aau: error: {errored['error']}"
    assert lines[2].startswith(f"{LOW_JUDGE}: FAIL judge_passed: score 0.75;")
    assert lines[3] == ("1 of 3 trace(s) passed; 0 judge error(s); 1 unreadable; "
                        "mean score 0.583")


def test_when_no_trace_can_be_read_it_is_exit_2_one_line_each(tmp_path, capsys):
    bad, gone = tmp_path / "bad.json", tmp_path / "gone.json"
    bad.write_text("[1]")
    out = tmp_path / "r.json"
    code, stdout, err = _run(capsys, "trace", "score", str(bad), str(gone), "--out", str(out))
    assert code == 2 and stdout == "" and not out.exists()
    lines = err.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"aau: error: {bad}: $: ")
    assert lines[1].startswith(f"aau: error: {gone}: ")


def _traces(tmp_path, *scores):
    paths = []
    for i, score in enumerate(scores):
        path = tmp_path / f"t{i}.json"
        path.write_text(json.dumps({"tool_calls": [1, 2], "judge_score": score}))
        paths.append(path)
    return paths


def test_a_bad_judge_score_in_the_middle_of_three(tmp_path, capsys):
    from _junit_xsd import validate_junit

    first, middle, last = _traces(tmp_path, 9, "n/a", " 8.5 ")
    out, junit, md = tmp_path / "r.json", tmp_path / "j.xml", tmp_path / "t.md"
    code, _, err = _run(capsys, "trace", "score", str(first), str(middle), str(last),
                        "--out", str(out), "--junit", str(junit), "--markdown", str(md))
    assert code == 1
    doc = json.loads(out.read_text())
    aau_schemas.validate("eval-report", doc)
    assert (doc["total_cases"], doc["passed_cases"], doc["failed_cases"], doc["judge_errors"]) \
        == (3, 2, 1, 1)
    records = [r["record"] for r in doc["results"]]
    assert [r["judge_score"] for r in records] == [9.0, None, 8.5]
    assert [r["judge_error"] for r in records] == [
        None, {"code": "unparseable", "message": "judge_score 'n/a' is not a number"}, None]
    assert doc["results"][1]["error"] is None  # the trace was read and scored: no error
    assert (f"{middle}: FAIL judge_passed: score 0.75; tool calls 2; schema none; judge error "
            "(unparseable): judge_score 'n/a' is not a number") in err
    assert "2 of 3 trace(s) passed; 1 judge error(s); 0 unreadable; mean score 0.917" in err
    xml = junit.read_text()
    validate_junit(xml)
    assert 'failures="1"' in xml and 'errors="0"' in xml
    assert "judge error (unparseable)" in xml
    text = md.read_text()
    assert text.startswith("**aau-trace-score**: 2 of 3 trace(s) passed; 1 judge error(s); "
                           "0 unreadable; mean score 0.917")
    assert (f"| {middle} | FAIL | 0.75 | judge_passed | tool calls 2; schema none; judge error "
            "(unparseable): judge_score 'n/a' is not a number |") in text


def test_an_unreadable_trace_is_a_junit_error_not_a_failure(tmp_path, capsys):
    from _junit_xsd import validate_junit

    (good,) = _traces(tmp_path, 9)
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    junit = tmp_path / "j.xml"
    code, _, _ = _run(capsys, "trace", "score", str(good), str(bad), "--junit", str(junit))
    assert code == 1
    xml = junit.read_text()
    validate_junit(xml)
    assert 'failures="0"' in xml and 'errors="1"' in xml and "failed gates" not in xml


@pytest.mark.parametrize("score, code, judge_score", [
    ("9", 0, 9.0), (" 8.5 ", 0, 8.5), ("6", 1, 6.0), ("NaN", 1, None), ("1_000", 1, None),
    ("11", 1, None),
])
def test_string_judge_scores(tmp_path, capsys, score, code, judge_score):
    (trace,) = _traces(tmp_path, score)
    got, out, err = _run(capsys, "trace", "score", str(trace), "--json")
    assert got == code, err
    (case,) = json.loads(out)["results"]
    assert case["record"]["judge_score"] == judge_score
    assert (case["record"]["judge_error"] is None) == (judge_score is not None)


def test_require_judge_and_judge_range(tmp_path, capsys):
    none = tmp_path / "none.json"
    none.write_text('{"tool_calls": [1]}')
    code, out, err = _run(capsys, "trace", "score", str(none), "--json")
    assert code == 0  # 1.7.17's rule: no score, no judge gate
    code, out, err = _run(capsys, "trace", "score", str(none), "--require-judge", "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["judge_errors"] == 1 and doc["results"][0]["record"]["judge_error"] == {
        "code": "missing", "message": "no judge_score in the trace, and the judge gate is required"}
    (hundred,) = _traces(tmp_path, 85)
    code, _, err = _run(capsys, "trace", "score", str(hundred))
    assert code == 1 and "judge error (out-of-range): judge_score 85 is outside the judge's " \
        "range [0, 10]" in err
    code, _, err = _run(capsys, "trace", "score", str(hundred), "--judge-range", "0", "100",
                        "--judge-threshold", "70")
    assert code == 0, err


@pytest.mark.parametrize("args, message", [
    (["--expected-schema-hash", "XYZ"], "want 16 lowercase hex digits"),
    (["--judge-threshold", "nan"], "finite"),
    (["--min-tool-calls", "-1"], "-1"),
    (["--judge-range", "10", "0"], "--judge-range 10 0: want two finite numbers, LOW < HIGH"),
    (["--judge-range", "0", "inf"], "--judge-range 0 inf: want two finite numbers"),
    (["--judge-threshold", "70"], "--judge-threshold 70 is outside --judge-range 0 10"),
])
def test_bad_options_exit_2(capsys, args, message):
    code, _, err = _run(capsys, "trace", "score", str(PASS), *args)
    assert code == 2 and message in err


def test_missing_file_exit_2(capsys, tmp_path):
    code, _, err = _run(capsys, "trace", "score", str(tmp_path / "none.json"))
    assert code == 2 and "none.json" in err


def test_import_then_score(tmp_path, capsys):
    out = tmp_path / "trace.json"
    code, _, err = _run(capsys, "trace", "import", str(HARNESS_DIR), "--out", str(out))
    assert code == 0 and "4 tool call(s), 2 artifact(s)" in err
    trace = json.loads(out.read_text())
    aau_schemas.validate("trace", trace)
    assert trace == json.loads((TRACES / "praison-harness-run.trace.json").read_text())
    code, _, err = _run(capsys, "trace", "score", str(out), "--require-artifact", "src/greet.py",
                        "--require-artifact", "README.md", "--min-tool-calls", "3")
    assert code == 0, err
    code, _, err = _run(capsys, "trace", "import", str(HARNESS_DIR), "--out", str(out))
    assert code == 2 and "already exists" in err


def test_import_to_stdout(capsys):
    code, out, _ = _run(capsys, "trace", "import", str(HARNESS_DIR))
    assert code == 0 and json.loads(out)["judge_score"] == 8.5


def test_import_bad_jsonl_names_file_and_line(tmp_path, capsys):
    run_dir = tmp_path / "run"
    shutil.copytree(HARNESS_DIR, run_dir)
    jsonl = run_dir / "tool_trace.jsonl"
    jsonl.write_text(jsonl.read_text() + '{"tool": "x", "arguments": {"a": 1,}}\n')
    code, _, err = _run(capsys, "trace", "import", str(run_dir))
    assert code == 2
    assert err == (f"aau: error: {jsonl}: line 5: invalid JSON: trailing comma before "
                   '"}" (column 35)\n')


def test_installed_script_exit_codes(tmp_path):
    aau = Path(sys.executable).parent / "aau"
    ok = subprocess.run([str(aau), "trace", "score", str(PASS)], capture_output=True, text=True)
    bad = subprocess.run([str(aau), "trace", "score", str(LOW_JUDGE)], capture_output=True,
                         text=True)
    assert (ok.returncode, bad.returncode) == (0, 1), ok.stderr + bad.stderr
