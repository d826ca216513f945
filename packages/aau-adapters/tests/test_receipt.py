"""Receipt arithmetic on a run whose answers are known: rates, Wilson intervals over scenarios,
pass^k, failure-code counts, and the consistency check."""

from __future__ import annotations

import copy

import aau_schemas
import pytest
from aau_adapters import (
    AdapterAnswer,
    FailUnder,
    build_private_v2,
    build_receipt_v1,
    build_receipt_v2,
    check_receipt,
    evaluate,
)
from aau_core import wilson_interval

# scenario -> per-repeat outcome the fake agent gives ("ok" is right, anything else wrong)
PLAN = {"a": ["ok", "ok", "ok"], "b": ["ok", "bad", "ok"], "c": ["bad", "bad", "bad"]}


class ScriptedAdapter:
    kind = "python"

    def __init__(self, good: str) -> None:
        self.good = good
        self.calls: dict[str, int] = {}

    def invoke(self, request, case):
        n = self.calls.get(case.scenario_id, 0)
        self.calls[case.scenario_id] = n + 1
        outcome = self.good if PLAN[case.scenario_id][n] == "ok" else "wrong"
        if outcome == "wrong" and case.scenario_id == "c" and n == 0:
            return AdapterAnswer(None, "adapter-timeout", 0.5)
        return AdapterAnswer({"outcome": outcome, "actions_attempted": [],
                              "actions_executed": [], "submitted": True}, None, 0.1 * (n + 1))

    def describe(self):
        return {"kind": "python"}

    def cancel(self):
        pass

    def close(self):
        pass


@pytest.fixture
def run(make_suite, good_outcome):
    return evaluate(make_suite(list(PLAN)), ScriptedAdapter(good_outcome), repeats=3)


def test_v2_arithmetic(run):
    receipt = build_receipt_v2(run, [FailUnder("exact_rate", 0.5)])
    aau_schemas.validate("receipt-v2", receipt)
    assert check_receipt(receipt) == []
    assert receipt["metrics"]["exact_rate"] == round(5 / 9, 6)
    assert receipt["metrics"]["submitted_rate"] == round(8 / 9, 6)
    # Wilson with n = 3 scenarios and p = mean of per-scenario rates (1, 2/3, 0)
    low, high = wilson_interval(1 + 2 / 3 + 0, 3)
    ci = receipt["metric_ci95"]["exact_rate"]
    assert (ci["low"], ci["high"], ci["n"], ci["method"]) == (round(low, 6), round(high, 6), 3,
                                                              "wilson")
    # pass^k: a = 3/3, b = 2/3, c = 0/3
    assert receipt["pass_hat_k"] == {"1": round(5 / 9, 6), "2": round((1 + 1 / 3) / 3, 6),
                                     "3": round(1 / 3, 6)}
    assert receipt["failure_code_counts"] == {"adapter-timeout": 1, "not-submitted": 1,
                                              "outcome-mismatch": 3}
    assert receipt["fail_under"] == [{"metric": "exact_rate", "threshold": 0.5,
                                      "value": round(5 / 9, 6), "passed": True}]
    lat = receipt["metric_ci95"]["mean_latency_s"]
    assert lat["method"] == "bootstrap-percentile" and lat["low"] <= lat["high"]
    assert receipt["provenance"]["adapter"] == {"kind": "python"}


def test_check_receipt_catches_tampering(run):
    receipt = build_receipt_v2(run)
    for mutate, path in [
        (lambda r: r["metrics"].__setitem__("exact_rate", 0.9), "$.metrics.exact_rate"),
        (lambda r: r["pass_hat_k"].__setitem__("3", 0.5), "$.pass_hat_k"),
        (lambda r: r["failure_code_counts"].pop("adapter-timeout"), "$.failure_code_counts"),
        (lambda r: r["metric_ci95"]["exact_rate"].__setitem__("high", 0.1),
         "$.metric_ci95.exact_rate"),
        (lambda r: r["results"].reverse(), "$.results[0]"),
        (lambda r: r.__setitem__("scenario_count", 4), "$.scenario_count"),
    ]:
        doc = copy.deepcopy(receipt)
        mutate(doc)
        assert path in [p for p, _ in check_receipt(doc)], path


def test_private_v2_has_stderr_tail_and_repeat(run):
    private = build_private_v2(run)
    aau_schemas.validate("private-receipt-v2", private)
    rows = private["results"]
    assert [(r["scenario_id"], r["repeat"]) for r in rows][:3] == [("a", 0), ("a", 1), ("a", 2)]
    timed_out = [r for r in rows if r["error"]]
    assert len(timed_out) == 1 and timed_out[0]["response"] == {}


def test_v1_refuses_repeats(run):
    with pytest.raises(ValueError, match="one repeat"):
        build_receipt_v1(run)


def test_fail_under_verdicts_are_receipt_v2s_without_building_it(run):
    """What an aau-1.0 run judges its bars with: the very verdicts of receipt 2.1."""
    from aau_adapters._receipt import fail_under_verdicts, receipt_v2

    bars = [FailUnder("exact_rate", 0.5), FailUnder("exact_rate", 0.6),
            FailUnder("no_forbidden_attempt_rate", 1.0)]
    for min_coverage in (1.0, 0.5):
        verdicts = fail_under_verdicts(run, bars, min_coverage=min_coverage)
        assert verdicts == receipt_v2(run, bars, min_coverage=min_coverage).fail_under
    assert [v.passed for v in fail_under_verdicts(run, bars[:2])] == [True, False]  # 5/9
    assert fail_under_verdicts(run, []) == ()
