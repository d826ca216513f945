"""Every option of HarnessEvaluator and EvalSuite is checked in the constructor: a TraceError naming it."""

from __future__ import annotations

import pytest
from aau_core import EvalSuite, HarnessEvaluator, TraceError


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"judge_threshold": "high"}, "judge_threshold"),
        ({"judge_threshold": None}, "judge_threshold"),
        ({"judge_threshold": float("nan")}, "judge_threshold"),
        ({"judge_threshold": True}, "judge_threshold"),
        ({"min_tool_calls": "2"}, "min_tool_calls"),
        ({"min_tool_calls": 2.0}, "min_tool_calls"),
        ({"min_tool_calls": None}, "min_tool_calls"),
        ({"required_artifacts": 5}, "required_artifacts"),
        ({"required_artifacts": {"a": 1}}, "required_artifacts"),
        ({"required_artifacts": [{"a": 1}]}, "required_artifacts[0]"),
        ({"expected_schema_hash": 5}, "expected_schema_hash"),
        ({"name": 3}, "name"),
        ({"save_results_path": 3}, "save_results_path"),
        ({"verbose": "yes"}, "verbose"),
    ],
)
def test_harness_evaluator_refuses_bad_options_by_name(options, option):
    with pytest.raises(TraceError) as info:
        HarnessEvaluator({"judge_score": 9}, **options)
    assert str(info.value).startswith(f"{option}: ")


@pytest.mark.parametrize("min_tool_calls", [0, -3])
def test_zero_or_negative_min_tool_calls_is_no_gate(min_tool_calls):
    result = HarnessEvaluator({"judge_score": 9}, min_tool_calls=min_tool_calls, judge_threshold=8,
                              required_artifacts=(), expected_schema_hash=None).run()
    assert result.passed and result.gates_configured == ["judge_passed"]


def test_harness_result_to_eval_result():
    result = HarnessEvaluator({"tool_calls": 1}, min_tool_calls=2, name="x").run()
    er = result.to_eval_result(include_record=True)
    assert er.case_name == "x" and not er.passed and er.score == 0.75
    assert er.record == result.to_dict()
    assert result.to_eval_result("y").case_name == "y"


@pytest.mark.parametrize(
    ("args", "options", "option"),
    [
        ([], {}, "evaluators"),
        ("abc", {}, "evaluators"),
        ([object()], {}, "evaluators[0]"),
        ([HarnessEvaluator({})], {"score_weights": {"HarnessEvaluator_9": 1}}, "score_weights"),
        ([HarnessEvaluator({})], {"score_weights": {"HarnessEvaluator_0": -1}},
         "score_weights['HarnessEvaluator_0']"),
        ([HarnessEvaluator({})], {"score_weights": [1]}, "score_weights"),
        ([HarnessEvaluator({})], {"name": 1}, "name"),
        ([HarnessEvaluator({})], {"parallel": "yes"}, "parallel"),
        ([HarnessEvaluator({})], {"fail_fast": 1}, "fail_fast"),
        ([HarnessEvaluator({})], {"save_results_path": 1}, "save_results_path"),
    ],
)
def test_eval_suite_refuses_bad_options_by_name(args, options, option):
    with pytest.raises(TraceError) as info:
        EvalSuite(args, **options)
    assert str(info.value).startswith(f"{option}: ")


@pytest.mark.parametrize("junk", [None, "x", 5, [1], ("a",)])
def test_trace_readers_refuse_a_trace_that_is_not_an_object(junk):
    from aau_core._traces._trace import artifact_names, tool_call_count

    for read in (tool_call_count, artifact_names):
        with pytest.raises(TraceError, match=r"^\$: a trace must be an object"):
            read(junk)
