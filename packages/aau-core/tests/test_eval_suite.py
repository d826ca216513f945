"""EvalSuite and EvalReport: 1.7.17's suite and report vectors reproduced, and the honest parts."""

from __future__ import annotations

import json

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import EvalReport, EvalResult, EvalSuite, HarnessEvaluator

EXTRA = SHARED / "vectors" / "praison-trace-gates-extra.json"
needs_shared = pytest.mark.skipif(not EXTRA.exists(), reason=SHARED_MISSING)


def _extra():
    return json.loads(EXTRA.read_text(encoding="utf-8"))


def _pair():
    ok = HarnessEvaluator({"judge_score": 9}, name="ok")
    bad = HarnessEvaluator({"judge_score": 2}, name="bad")
    return ok, bad


@needs_shared
def test_suite_vector_score_and_keys_but_honest_success():
    vec = _extra()["suite_vector"]
    result = EvalSuite(list(_pair()), name="s").run()
    assert result.overall_score == pytest.approx(vec["overall_score"])  # 8.75
    assert list(result.evaluator_results) == vec["evaluator_result_keys"]
    assert result.errors == vec["errors"] == []
    # divergence: 1.7.17 says success=True although HarnessEvaluator_1 failed its judge gate
    assert vec["success"] is True
    assert result.success is False
    assert (result.passed_count, result.failed_count, result.error_count) == (1, 1, 0)


@needs_shared
def test_suite_weighted_vector():
    vec = _extra()["suite_weighted_vector"]
    result = EvalSuite(list(_pair()), score_weights=vec["score_weights"]).run()
    assert result.overall_score == pytest.approx(vec["overall_score"])  # 8.125


def test_suite_with_all_passing_succeeds():
    result = EvalSuite([HarnessEvaluator({}), HarnessEvaluator({"judge_score": 8})]).run()
    assert result.success and result.overall_score == 10.0


class _Boom:
    def run(self, print_summary=False):
        raise RuntimeError("boom")


def test_a_raising_evaluator_fails_the_suite_and_is_reported():
    result = EvalSuite([HarnessEvaluator({}), _Boom()], name="s").run()
    assert not result.success
    assert result.errors == ["_Boom_1 failed: boom"]
    assert result.overall_score == 10.0  # as 1.7.17: a crash has no score
    report = result.to_eval_report()
    assert [r.case_name for r in report.results] == ["HarnessEvaluator_0", "_Boom_1"]
    assert report.results[1].error == "_Boom_1 failed: boom" and not report.results[1].passed
    assert report.failed_cases == 1
    aau_schemas.validate("eval-report", report.to_dict())


def test_fail_fast_raises():
    with pytest.raises(RuntimeError, match="^EvalSuite stopped due to fail_fast: _Boom_0 failed: boom"):
        EvalSuite([_Boom(), HarnessEvaluator({})], fail_fast=True).run()


def test_parallel_keeps_order_and_values():
    evs = [HarnessEvaluator({"judge_score": s}) for s in (9, 2, 8, 1)]
    seq = EvalSuite(evs).run()
    par = EvalSuite(evs, parallel=True).run()
    assert list(par.evaluator_results) == list(seq.evaluator_results)
    assert par.overall_score == seq.overall_score == pytest.approx(8.75)


def test_empty_and_bad_weights_are_refused():
    with pytest.raises(ValueError, match="At least one evaluator"):
        EvalSuite([])
    with pytest.raises(ValueError, match="not a finite number"):
        EvalSuite([HarnessEvaluator({})], score_weights={"HarnessEvaluator_0": float("nan")})


def test_to_dict_nests_results_as_dicts_and_saves(tmp_path):
    target = tmp_path / "{name}.json"
    result = EvalSuite(list(_pair()), name="s", save_results_path=str(target)).run()
    doc = result.to_dict()
    nested = doc["evaluator_results"]["HarnessEvaluator_1"]
    assert isinstance(nested, dict) and nested["judge_passed"] is False
    aau_schemas.validate("trace-result", nested)
    assert json.loads((tmp_path / "s.json").read_text()) == json.loads(json.dumps(doc))


def test_print_summary_says_failed(capsys):
    EvalSuite(list(_pair()), name="s").run(print_summary=True)
    out = capsys.readouterr().out
    assert "EvalSuite s: FAILED" in out and "HarnessEvaluator_1: FAIL 7.50/10" in out


@needs_shared
def test_report_vector_from_results():
    vec = _extra()["report_vector"]
    ok, bad = _pair()
    report = EvalReport.from_results("p", [ok.to_eval_result(), bad.to_eval_result()])
    doc = report.to_dict()
    # aau's two keys: the version, and the judge errors (counted apart from gate failures)
    assert doc.pop("eval_report_version") == "aau-eval-report/1.1"
    assert doc.pop("judge_errors") == 0
    assert doc == vec
    assert EvalReport.from_dict(report.to_dict()) == report
    aau_schemas.validate("eval-report", report.to_dict())


def test_suite_report_matches_the_suite():
    report = EvalSuite(list(_pair()), name="s").run().to_eval_report()
    assert (report.package_name, report.total_cases, report.passed_cases) == ("s", 2, 1)
    assert report.average_score == pytest.approx(0.875) and report.pass_rate == 0.5
    assert report.results[1].criteria_scores["judge_passed"] == 0.0
    assert report.results[1].record["judge_score"] == 2.0
    assert not report.all_passed
    aau_schemas.validate("eval-report", json.loads(report.to_json()))


def test_empty_report_and_bad_scores():
    empty = EvalReport.from_results("e", [])
    assert (empty.average_score, empty.pass_rate, empty.all_passed) == (0.0, 0.0, True)
    with pytest.raises(ValueError, match="not a finite number"):
        EvalReport.from_results("e", [EvalResult("c", True, float("nan"))])


def _judge_error_suite():
    return EvalSuite([HarnessEvaluator({"judge_score": 9}, name="ok"),
                      HarnessEvaluator({"judge_score": "n/a"}, name="na"),
                      HarnessEvaluator({"judge_score": 2}, name="low"),
                      HarnessEvaluator({"judge_score": float("nan")}, name="nan")], name="j")


def test_suite_counts_judge_errors_apart_from_gate_failures(capsys):
    result = _judge_error_suite().run(print_summary=True)
    assert (result.passed_count, result.failed_count, result.judge_error_count) == (1, 3, 2)
    assert result.summary["judge_errors"] == 2 and result.summary["failed"] == 3
    assert result.overall_score == pytest.approx(7.5 * 3 / 4 + 10 / 4)  # 8.125
    out = capsys.readouterr().out
    assert "1 passed, 3 failed (2 with a judge error), 0 raised" in out
    assert ("  HarnessEvaluator_1: FAIL 7.50/10; judge error (unparseable): "
            "judge_score 'n/a' is not a number") in out
    assert "  HarnessEvaluator_2: FAIL 7.50/10\n" in out  # a low score is no judge error
    assert ("  HarnessEvaluator_3: FAIL 7.50/10; judge error (not-finite): "
            "judge_score nan is not a finite number") in out


def test_suite_report_counts_judge_errors_and_keeps_them_in_the_records():
    report = _judge_error_suite().run().to_eval_report()
    doc = report.to_dict()
    aau_schemas.validate("eval-report", doc)
    assert aau_schemas.detect_kind(doc) == "eval-report"
    assert (doc["eval_report_version"], doc["failed_cases"], doc["judge_errors"]) == \
        ("aau-eval-report/1.1", 3, 2)
    assert [r["record"]["judge_error"] and r["record"]["judge_error"]["code"]
            for r in doc["results"]] == [None, "unparseable", None, "not-finite"]
    back = EvalReport.from_dict(doc)
    assert back == report and back.judge_errors == 2


def test_report_counts_judge_errors_without_records():
    results = [HarnessEvaluator({"judge_score": s}).run().to_eval_result()
               for s in ("9", "n/a", 42)]
    assert [r.record for r in results] == [None, None, None]  # 1.7.17's to_eval_result
    report = EvalReport.from_results("p", results)
    assert (report.passed_cases, report.failed_cases, report.judge_errors) == (1, 2, 2)


def test_a_version_1_0_report_is_read_and_written_back_unchanged():
    old = {"eval_report_version": "aau-eval-report/1.0", "package_name": "p", "total_cases": 0,
           "passed_cases": 0, "failed_cases": 0, "average_score": 0.0, "pass_rate": 0.0,
           "thresholds_met": {}, "results": []}
    report = EvalReport.from_dict(old)
    assert report.judge_errors is None and report.eval_report_version == "aau-eval-report/1.0"
    assert report.to_dict() == old
