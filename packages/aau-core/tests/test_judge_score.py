"""Judge scores that cannot be used: every trace result says why (``judge_error``), the judge
gate fails, and a numeric string is read as its number (docs/trace-gates.md, "Judge errors")."""

from __future__ import annotations

import decimal
import json
import math

import aau_schemas
import pytest
from aau_core import HarnessEvaluator, TraceError
from aau_core._traces._trace import JUDGE_ERROR_CODES, JudgeError, read_judge_score


@pytest.mark.parametrize("raw, score", [
    ("9", 9.0), (" 8.5 ", 8.5), ("\t10\n", 10.0), ("0", 0.0), ("7e0", 7.0), ("-0", 0.0),
    ("0.5E1", 5.0), (9, 9.0), (7.25, 7.25), (True, 1.0), (0, 0.0), (10, 10.0),
    (decimal.Decimal("8.5"), 8.5),
])
def test_usable_scores(raw, score):
    reading = read_judge_score(raw)
    assert (reading.configured, reading.score, reading.error) == (True, score, None)


@pytest.mark.parametrize("raw, code, message", [
    ("n/a", "unparseable", "judge_score 'n/a' is not a number"),
    ("", "unparseable", "judge_score '' is not a number"),
    ("1_000", "unparseable", "judge_score '1_000' is not a number"),  # float() reads it
    ("0x10", "unparseable", "judge_score '0x10' is not a number"),
    ("+5", "unparseable", "judge_score '+5' is not a number"),  # float() reads it
    ("8.5/10", "unparseable", "judge_score '8.5/10' is not a number"),
    ([], "unparseable", "judge_score array [] is not a number"),
    ({"score": 8}, "unparseable", "judge_score object {'score': 8} is not a number"),
    ("NaN", "not-finite", "judge_score 'NaN' is not a finite number"),
    ("nan", "not-finite", "judge_score 'nan' is not a finite number"),
    (" -Infinity ", "not-finite", "judge_score ' -Infinity ' is not a finite number"),
    ("inf", "not-finite", "judge_score 'inf' is not a finite number"),
    ("1e999", "not-finite", "judge_score '1e999' is not a finite number"),
    (float("nan"), "not-finite", "judge_score nan is not a finite number"),
    (-math.inf, "not-finite", "judge_score -inf is not a finite number"),
    (decimal.Decimal("NaN"), "not-finite", "judge_score Decimal('NaN') is not a finite number"),
    (42, "out-of-range", "judge_score 42 is outside the judge's range [0, 10]"),
    (-0.5, "out-of-range", "judge_score -0.5 is outside the judge's range [0, 10]"),
    ("10.01", "out-of-range", "judge_score '10.01' is outside the judge's range [0, 10]"),
    (10 ** 400, "out-of-range",  # finite, but no float holds it: 1.7.17's float() overflows
     "judge_score 1000000000000000000000000000000000000... is outside the judge's range "
     "[0, 10]"),
])
def test_judge_errors(raw, code, message):
    reading = read_judge_score(raw)
    assert reading.configured and reading.score is None
    assert reading.error == JudgeError(code, message)
    assert code in JUDGE_ERROR_CODES


def test_no_score_is_no_judge_unless_required():
    assert read_judge_score(None) == read_judge_score(None, (0, 100))
    reading = read_judge_score(None)
    assert (reading.configured, reading.score, reading.error) == (False, None, None)
    required = read_judge_score(None, required=True)
    assert required.configured and required.error == JudgeError(
        "missing", "no judge_score in the trace, and the judge gate is required")


def test_the_range_is_inclusive_and_settable():
    assert read_judge_score(85, (0, 100)).score == 85.0
    assert read_judge_score("1", (1, 5)).score == 1.0 and read_judge_score(5, (1, 5)).score == 5
    assert read_judge_score(0, (1, 5)).error == JudgeError(
        "out-of-range", "judge_score 0 is outside the judge's range [1, 5]")


def test_an_unparseable_score_fails_the_gate_with_the_judge_named():
    result = HarnessEvaluator({"tool_calls": [1, 2], "judge_score": "n/a"}, min_tool_calls=2,
                              name="t").run()
    assert (result.passed, result.score, result.judge_passed, result.judge_score) == \
        (False, 0.75, False, None)
    assert result.gates_configured == ["tool_calls_sufficient", "judge_passed"]
    assert result.judge_error == JudgeError("unparseable", "judge_score 'n/a' is not a number")
    doc = result.to_dict()
    assert doc["judge_error"] == {"code": "unparseable",
                                  "message": "judge_score 'n/a' is not a number"}
    aau_schemas.validate("trace-result", doc)
    rows = dict(result.summary_rows())
    assert rows["Judge score"] == ("judge error (unparseable): judge_score 'n/a' is not a number: "
                                   "FAIL")


def test_a_low_score_is_no_judge_error():
    result = HarnessEvaluator({"judge_score": 3}).run()
    assert (result.judge_passed, result.judge_score, result.judge_error) == (False, 3.0, None)


def test_a_numeric_string_is_read_as_its_number():
    result = HarnessEvaluator({"judge_score": "9"}, judge_threshold=9).run()
    assert (result.passed, result.judge_score, result.judge_error) == (True, 9.0, None)
    assert HarnessEvaluator({"judge_score": " 8.5 "}, judge_threshold=8.6).run().judge_score == 8.5


def test_require_judge_configures_the_gate_and_a_missing_score_fails_it():
    result = HarnessEvaluator({"tool_calls": [1]}, require_judge=True).run()
    assert (result.passed, result.score, result.gates_configured) == (False, 0.75, ["judge_passed"])
    assert result.judge_error == JudgeError(
        "missing", "no judge_score in the trace, and the judge gate is required")
    assert HarnessEvaluator({"judge_score": 8}, require_judge=True).run().passed
    # without it, 1.7.17's rule: no score, no gate
    plain = HarnessEvaluator({"tool_calls": [1]}).run()
    assert plain.passed and plain.gates_configured == [] and plain.judge_error is None


def test_judge_score_range_option():
    result = HarnessEvaluator({"judge_score": 85}, judge_threshold=70,
                              judge_score_range=(0, 100)).run()
    assert result.passed and result.judge_score == 85.0
    out = HarnessEvaluator({"judge_score": 85}).run()
    assert out.judge_error.code == "out-of-range" and not out.passed


@pytest.mark.parametrize("options, start", [
    ({"judge_score_range": (10, 0)}, "judge_score_range: must be (lowest, highest)"),
    ({"judge_score_range": (0, float("inf"))}, "judge_score_range: must be (lowest, highest)"),
    ({"judge_score_range": (0, 1, 2)}, "judge_score_range: must be (lowest, highest)"),
    ({"judge_score_range": "0-10"}, "judge_score_range: must be (lowest, highest)"),
    ({"require_judge": "yes"}, "require_judge: must be true or false"),
])
def test_bad_judge_options_are_refused(options, start):
    with pytest.raises(TraceError) as info:
        HarnessEvaluator({}, **options)
    assert str(info.value).startswith(start)


def _no_constant(name):
    raise AssertionError(f"{name} written as a JSON token")


def test_what_is_written_is_always_valid_json():
    for raw in ("NaN", float("nan"), float("inf"), "1e999", 10 ** 400, "n/a", 42):
        text = HarnessEvaluator({"judge_score": raw}).run().to_json()
        aau_schemas.validate("trace-result", json.loads(text, parse_constant=_no_constant))
