"""HarnessEvaluator beyond the vectors: gates_configured, JSON output, summary, saving,
to_eval_result, and harness_row_to_eval_case (1.7.17's extra vectors and the csv_test_runner choice)."""

from __future__ import annotations

import io
import json
import os

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import (
    EvalCase,
    HarnessEvaluator,
    HarnessResult,
    OutputError,
    TraceError,
    harness_row_to_eval_case,
)

EXTRA = SHARED / "vectors" / "praison-trace-gates-extra.json"

FULL = {"tool_calls": [{"name": "read_file"}, {"name": "write_file"}], "artifacts": ["out.txt"],
        "tool_schema": {"read_file": {"params": {"path": "str"}},
                        "write_file": {"params": {"content": "str", "path": "str"}}},
        "judge_score": 9.0}
ALL_OPTIONS = {"required_artifacts": ["out.txt"], "min_tool_calls": 2,
               "expected_schema_hash": "079f8cf9589c693b"}


def test_gates_configured_lists_only_what_was_set():
    assert HarnessEvaluator({}).run().gates_configured == []
    r = HarnessEvaluator(FULL, **ALL_OPTIONS).run()
    assert r.gates_configured == ["artifacts_complete", "tool_calls_sufficient",
                                  "schema_consistent", "judge_passed"]
    assert r.passed and r.score == 1.0
    only_judge = HarnessEvaluator({"judge_score": 2}).run()
    assert only_judge.gates_configured == ["judge_passed"]
    assert only_judge.score == 0.75  # 1.7.17's score: unconfigured gates count as passed


def test_to_dict_keys_are_1717s_order_then_gates_configured_and_judge_error():
    d = HarnessEvaluator(FULL, name="n").run().to_dict()
    assert list(d) == ["eval_id", "name", "passed", "score", "tool_call_count",
                       "tool_calls_sufficient", "schema_hash", "schema_consistent",
                       "artifacts_complete", "missing_artifacts", "judge_score", "judge_passed",
                       "timestamp", "metadata", "gates_configured", "judge_error"]
    assert d["judge_error"] is None
    assert d["timestamp"].endswith("Z")
    aau_schemas.validate("trace-result", d)


def test_nan_judge_gives_valid_json_and_a_failed_judge_gate():
    r = HarnessEvaluator({"judge_score": float("nan")}).run()
    assert r.judge_score is None and not r.judge_passed and not r.passed
    doc = json.loads(r.to_json())
    assert doc["judge_score"] is None
    assert doc["judge_error"] == {"code": "not-finite",
                                  "message": "judge_score nan is not a finite number"}


def test_summary_shows_every_gate_the_hash_and_the_missing_artifacts():
    r = HarnessEvaluator({"tool_calls": [1], "tool_schema": {"a": 1}, "judge_score": 6.25},
                         required_artifacts=["report.md"], min_tool_calls=3, name="s").run()
    out = io.StringIO()
    r.print_summary(file=out)
    text = out.getvalue()
    for needle in ("Tool calls", "1: FAIL", "missing report.md", r.schema_hash, "6.2",
                   "FAILED", "not configured"):
        assert needle in text, needle


def test_save_results_path_fills_placeholders_and_writes_valid_json(tmp_path):
    target = str(tmp_path / "out" / "{name}-{eval_id}.json")
    ev = HarnessEvaluator(FULL, name="case1", save_results_path=target)
    r = ev.run()
    written = tmp_path / "out" / f"case1-{ev.eval_id}.json"
    doc = json.loads(written.read_text())
    assert doc == r.to_dict()
    aau_schemas.validate("trace-result", doc)
    assert [p.name for p in written.parent.iterdir()] == [written.name]  # no temp file left


def test_save_results_path_failure_raises(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError):
        HarnessEvaluator({}, save_results_path=str(blocker / "r.json")).run()


def test_trace_must_be_a_mapping():
    with pytest.raises(TraceError, match=r"^\$: a trace must be an object"):
        HarnessEvaluator([1, 2]).run()  # type: ignore[arg-type]


def test_to_eval_result_runs_first_and_can_keep_the_record():
    ev = HarnessEvaluator({"tool_calls": 1}, min_tool_calls=2, name="x")
    er = ev.to_eval_result(include_record=True)
    assert er.case_name == "x" and not er.passed and er.score == 0.75
    assert er.criteria_scores["tool_calls_sufficient"] == 0.0
    assert er.record is not None and er.record["tool_call_count"] == 1
    assert ev.to_eval_result("other").case_name == "other"


def test_default_name_is_eval_and_the_id():
    ev = HarnessEvaluator(None)
    assert ev.name == f"eval_{ev.eval_id}" and len(ev.eval_id) == 8
    assert isinstance(ev.run(), HarnessResult)


def test_int_required_artifact_never_matches_as_in_1717():
    r = HarnessEvaluator({"artifacts": [42]}, required_artifacts=[42, "42"]).run()
    assert r.missing_artifacts == [42]


def _row_vectors():
    if not EXTRA.exists():
        return []
    return json.loads(EXTRA.read_text(encoding="utf-8"))["row_to_eval_case_vectors"]


CSV_RUNNER_ROW = {"id": "t1", "name": "Create file", "prompts": "Create hello.py",
                  "workspace_fixture": "empty", "judge_rubric": "file created",
                  "judge_threshold": "7.0", "expected_response": "hello"}


@pytest.mark.skipif(not EXTRA.exists(), reason=SHARED_MISSING)
@pytest.mark.parametrize("vector", _row_vectors(), ids=lambda v: json.dumps(v["row"])[:50])
def test_row_to_eval_case_vector(vector):
    row, expected = vector["row"], vector["expected"]
    if row == CSV_RUNNER_ROW:  # divergence: 1.7.17 raises; we read csv_test_runner rows
        assert expected == {"raises": "ValueError", "message": "EvalCase must have an input"}
        test_csv_test_runner_row_is_read()
        return
    if "raises" in expected:
        with pytest.raises(ValueError, match=f"^{expected['message']}$"):
            harness_row_to_eval_case(row)
        return
    assert harness_row_to_eval_case(row).to_dict() == expected


def test_csv_test_runner_row_is_read():
    case = harness_row_to_eval_case(CSV_RUNNER_ROW)
    assert case.to_dict() == {
        "name": "t1", "input": "Create hello.py", "expected": "hello",
        "criteria": ["file created"],
        "metadata": {"source": "csv_test_runner", "fixture": "empty", "rubric": "file created",
                     "judge_threshold": 7.0},
        "timeout_seconds": 30.0}
    with pytest.raises(ValueError, match="judge_threshold 'high' is not a number"):
        harness_row_to_eval_case({**CSV_RUNNER_ROW, "judge_threshold": "high"})


def test_eval_case_round_trip_and_checks():
    case = EvalCase(name="a", input="b", expected={"x": 1}, criteria=["c"], metadata={"m": 1})
    assert EvalCase.from_dict(case.to_dict()) == case
    with pytest.raises(ValueError, match="must have a name"):
        EvalCase(name="", input="x")


def test_no_file_left_in_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    HarnessEvaluator(FULL).run()
    assert os.listdir(tmp_path) == []


def test_models_and_schemas_do_not_drift():
    from aau_core import EvalReport, EvalResult

    result_schema = aau_schemas.schema("trace-result")
    d = HarnessEvaluator(FULL).run().to_dict()
    # judge_error (v1.1) is written always, but optional: a v1 document stays valid
    assert list(d) == [*result_schema["required"], "judge_error"] \
        == list(result_schema["properties"])
    report_schema = aau_schemas.schema("eval-report")
    report = EvalReport.from_results("p", [EvalResult("c", True, 1.0)])
    # judge_errors (1.1) is required by the schema's 1.1 branch, absent from a 1.0 report
    assert set(report.to_dict()) == {*report_schema["required"], "judge_errors"} \
        == set(report_schema["properties"])
    case_schema = report_schema["$defs"]["eval_result"]
    assert list(report.results[0].to_dict()) == case_schema["required"]
    assert set(case_schema["properties"]) == set(case_schema["required"])
