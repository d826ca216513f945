"""_run/_aggregation.py: errored runs stay in every denominator, Wilson intervals for 0/1 metrics,
the answered-only view, and aau-harness 1.6's arithmetic kept in aau-compat."""

from __future__ import annotations

import json
import math
import random

import aau_schemas
import pytest
from aau_core import (
    EXIT_NOT_MEASURED,
    MetricError,
    NotMeasuredError,
    ProviderUnavailable,
    ScenarioResult,
    aggregate_results,
    read_checkpoint,
    render_report,
    run_eval,
    verify_result_files,
)

Z = 1.959963984540054


def wilson(successes: float, n: int) -> tuple[float, float]:
    """Wilson (1927), written out: centre (p + z²/2n) / (1 + z²/n), half-width
    z / (1 + z²/n) * sqrt(p(1 - p)/n + z²/4n²)."""
    p = successes / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def two_of_five_raise(sc: str, rep: int) -> ScenarioResult:
    if sc in ("c", "e"):
        raise RuntimeError("agent crashed")
    return ScenarioResult(sc, rep, {"ok": 1.0})


def test_errored_runs_count_as_failures_the_issue_example():
    agg = run_eval(list("abcde"), two_of_five_raise, repeats=1)
    # 3 of 5 scenarios answered and passed; the 2 that raised count as failures
    assert agg.metric_means == {"ok": 0.6}
    low, high = agg.metric_ci95["ok"]
    assert (low, high) == pytest.approx(wilson(3, 5), abs=1e-12)
    assert (round(low, 4), round(high, 4)) == (0.2307, 0.8824)
    assert agg.metric_ci_method == {"ok": "wilson"} and agg.metric_runs == {"ok": 5}
    assert agg.metric_counts == {"ok": 5} and agg.n_errors == 2 and agg.coverage == 0.6
    # the answered-only view, labelled and apart: 1.0 over 3
    view = agg.answered_only
    assert view.runs == 3 and view.metric_means == {"ok": 1.0}
    assert view.metric_counts == {"ok": 3}
    assert view.metric_ci95["ok"] == pytest.approx(wilson(3, 3), abs=1e-12)
    doc = agg.as_dict()
    aau_schemas.validate("eval-aggregate-v2", doc)
    assert doc["aggregate_version"] == "aau-eval-aggregate/2.1"
    assert doc["metric_means"] == {"ok": 0.6} and doc["metric_ci95"] == {"ok": [0.2307, 0.8824]}
    assert doc["ci"]["method"] == "wilson" and doc["metric_ci_method"] == {"ok": "wilson"}
    assert doc["coverage"] == {"runs": 5, "answered": 3, "rate": 0.6}
    assert doc["answered_only"] == {"runs": 3, "metric_means": {"ok": 1.0},
                                    "metric_ci95": {"ok": [0.4385, 1.0]},
                                    "metric_counts": {"ok": 3}}
    assert doc["pass_hat_k"] == {"ok": {"1": 0.6}}


def test_zero_of_fifty_is_a_wilson_interval_never_zero_width():
    agg = run_eval([f"s{i}" for i in range(50)],
                   lambda sc, rep: ScenarioResult(sc, rep, {"ok": 0.0}), repeats=1)
    low, high = agg.metric_ci95["ok"]
    assert low == 0.0 and high == pytest.approx(wilson(0, 50)[1], abs=1e-12)
    assert round(high, 4) == 0.0713
    assert "| ok | 0.000 | [0.000, 0.071] wilson |" in render_report(agg, "m")
    assert agg.as_dict()["metric_ci95"] == {"ok": [0.0, 0.0713]}


def test_a_rate_over_many_scenarios_is_widened_not_collapsed_when_rounded():
    agg = run_eval([f"s{i}" for i in range(100_000)],
                   lambda sc, rep: ScenarioResult(sc, rep, {"ok": 0.0}), repeats=1)
    assert agg.metric_ci95["ok"][1] == pytest.approx(3.8414e-5, rel=1e-4)
    assert agg.as_dict()["metric_ci95"]["ok"] == [0.0, 0.0001]  # not [0.0, 0.0]
    assert "[0.000, 0.001] wilson" in render_report(agg, "m")


def test_repeats_are_averaged_per_scenario_first_as_receipts_do():
    def run_one(sc, rep):  # a: 2 of 3 repeats pass, b: 3 of 3, c: 0 of 3
        return ScenarioResult(sc, rep, {"ok": float({"a": rep < 2, "b": True, "c": False}[sc])})

    agg = run_eval(["a", "b", "c"], run_one, repeats=3)
    assert agg.metric_means["ok"] == pytest.approx(5 / 9)
    # n = 3 scenarios, successes = 2/3 + 1 + 0 (not 5 of 9 runs)
    assert agg.metric_ci95["ok"] == pytest.approx(wilson(5 / 3, 3), abs=1e-12)
    assert agg.metric_counts == {"ok": 3} and agg.metric_runs == {"ok": 9}


def test_a_lower_is_better_metric_counts_an_errored_run_as_the_bad_outcome():
    def run_one(sc, rep):
        if sc == "d":
            raise RuntimeError("crash")
        return ScenarioResult(sc, rep, {"overclaims": 0.0, "faithful": 1.0})

    agg = run_eval(list("abcd"), run_one, repeats=1, lower_is_better=["overclaims"])
    assert agg.metric_means == {"faithful": 0.75, "overclaims": 0.25}  # never 0.0 over 3
    assert agg.lower_is_better == ("overclaims",)
    assert agg.metric_ci95["overclaims"] == pytest.approx(wilson(1, 4), abs=1e-12)
    assert agg.answered_only.metric_means == {"faithful": 1.0, "overclaims": 0.0}
    doc = agg.as_dict()
    assert doc["lower_is_better"] == ["overclaims"]
    assert doc["pass_hat_k"] == {"faithful": {"1": 0.75}, "overclaims": {"1": 0.25}}
    aau_schemas.validate("eval-aggregate-v2", doc)


def test_lower_is_better_must_name_a_binary_metric_some_run_reports():
    def run_one(sc, rep):
        return ScenarioResult(sc, rep, {"ok": 1.0, "recall": 0.7})

    with pytest.raises(MetricError, match=r"lower_is_better names 'overclaim', which no run "
                                          r"reports; metrics: ok, recall") as info:
        run_eval(["a"], run_one, repeats=1, lower_is_better=["overclaim"])
    assert len(info.value.results) == 1  # the run is not lost
    with pytest.raises(MetricError, match=r"'recall', which is not a 0/1 metric"):
        run_eval(["a"], run_one, repeats=1, lower_is_better=["recall"])


def test_an_optional_binary_metric_counts_errored_runs_too():
    def run_one(sc, rep):
        if sc == "c":
            raise RuntimeError("crash")
        return ScenarioResult(sc, rep, {"ok": 1.0, **({"omits": 0.0} if sc == "a" else {})})

    agg = run_eval(list("abc"), run_one, repeats=1, optional_metrics=["omits"],
                   lower_is_better=["omits"])
    # omits: a answered 0, c errored (counts as 1: an omission), b does not carry it
    assert agg.metric_means["omits"] == 0.5 and agg.metric_counts["omits"] == 2
    assert agg.answered_only.metric_means["omits"] == 0.0


def test_a_continuous_metric_of_an_errored_run_is_missing_not_zero():
    def run_one(sc, rep):
        if (sc, rep) == ("b", 0):
            raise RuntimeError("crash")
        return ScenarioResult(sc, rep, {"recall": 0.5 if sc == "a" else 0.9})

    agg = run_eval(["a", "b"], run_one, repeats=2)
    assert agg.metric_means == {"recall": pytest.approx(0.7)}  # b is 0.9, not (0 + 0.9) / 2
    assert agg.metric_runs == {"recall": 3} and agg.metric_ci_method == {"recall": "bootstrap"}
    assert agg.as_dict()["pass_hat_k"] is None


# aau-harness 1.6's arithmetic (aau-compat) and aau-eval-aggregate/2.0's (bootstrap), computed by
# the code before errored runs joined the denominators (commit fb61276), for this run:
SCENARIOS = [f"s-{i:02d}" for i in range(12)]


def scripted(sc: str, rep: int) -> ScenarioResult:
    rng = random.Random(f"{sc}/{rep}")
    return ScenarioResult(sc, rep, {"ok": float(rng.random() < 0.7), "score": rng.random()},
                          cost_usd=rng.random() / 1000, latency_s=0.5 + rng.random(),
                          n_api_calls=2)


def errored(sc: str, rep: int) -> ScenarioResult:
    if sc in ("s-03", "s-07") and rep != 1:
        raise ConnectionError("HTTP 503 upstream")
    return scripted(sc, rep)


BEFORE = {
    "aau-compat": {"metric_means": {"ok": 0.8333, "score": 0.4181},
                   "metric_ci95": {"ok": [0.75, 0.9167], "score": [0.3111, 0.5206]}},
    "bootstrap": {"metric_means": {"ok": 0.8333, "score": 0.4181},
                  "metric_ci95": {"ok": [0.75, 0.9167], "score": [0.3131, 0.5167]}},
}
BEFORE_SHARED = {"metric_counts": {"ok": 12, "score": 12},
                 "metric_stderr": {"ok": 0.0514, "score": 0.0433}, "n_errors": 4,
                 "pass_hat_k": None, "n_scenarios": 12, "total_cost_usd": 0.015,
                 "mean_cost_per_scenario_usd": 0.000416}


@pytest.mark.parametrize("method", ["aau-compat", "bootstrap"])
def test_compat_and_2_0_arithmetic_are_what_they_were(method):
    results = run_eval(SCENARIOS, errored, repeats=3, ci_method="aau-compat").results
    doc = aggregate_results(results, 3, ci_method=method).as_dict()
    assert {k: doc[k] for k in (*BEFORE[method], *BEFORE_SHARED)} == {
        **BEFORE[method], **BEFORE_SHARED}
    # the answered-only view is the headline itself: errored runs were always left out
    assert doc["answered_only"]["metric_means"] == doc["metric_means"]
    assert doc["answered_only"]["metric_ci95"] == doc["metric_ci95"]
    assert set(doc["metric_ci_method"].values()) == {method}
    assert doc["coverage"] == {"runs": 36, "answered": 32, "rate": 0.8889}


def test_wilson_counts_the_same_errored_run_that_compat_leaves_out():
    agg = run_eval(SCENARIOS, errored, repeats=3)
    ok = [sum(0.0 if (sc in ("s-03", "s-07") and k != 1) else scripted(sc, k).metrics["ok"]
              for k in range(3)) / 3 for sc in SCENARIOS]
    assert agg.metric_means["ok"] == pytest.approx(sum(ok) / 12)
    assert agg.metric_ci95["ok"] == pytest.approx(wilson(sum(ok), 12), abs=1e-12)
    assert round(agg.metric_means["ok"], 4) < BEFORE["aau-compat"]["metric_means"]["ok"]
    assert agg.answered_only.metric_means["ok"] == pytest.approx(0.8333, abs=5e-5)


def test_every_run_failed_at_the_transport_layer_is_a_non_measurement(tmp_path):
    def down(sc, rep):
        raise ConnectionError("HTTP 503 from provider")

    ckpt = tmp_path / "run.jsonl"
    with pytest.raises(ProviderUnavailable) as info:
        run_eval(["a", "b"], down, repeats=2, checkpoint=ckpt)
    exc = info.value
    assert isinstance(exc, NotMeasuredError) and exc.exit_code == EXIT_NOT_MEASURED == 3
    assert (exc.rate, exc.threshold, exc.not_measured, exc.units) == (1.0, 1.0, 4, 4)
    assert len(exc.results) == 4 and all(r.error for r in exc.results)
    assert str(exc).startswith("100% of runs (4 of 4) failed at the transport layer")
    _, finished, _ = read_checkpoint(ckpt)  # the checkpoint keeps every unit and its reason
    assert sorted(finished) == [0, 1, 2, 3]
    assert finished[0]["detail"] == {"error": "ConnectionError: HTTP 503 from provider"}


def test_below_the_limit_the_aggregate_is_returned_and_says_how_many_were_not_measured():
    def half_down(sc, rep):
        if sc in ("a", "b"):
            raise ConnectionError("HTTP 429 Too Many Requests")
        return ScenarioResult(sc, rep, {"ok": 1.0})

    agg = run_eval(list("abcd"), half_down, repeats=1)
    assert agg.n_errors == 2 and agg.coverage == 0.5 and agg.metric_means == {"ok": 0.5}
    with pytest.raises(ProviderUnavailable, match=r"^50% of runs \(2 of 4\).*limit 50%"):
        run_eval(list("abcd"), half_down, repeats=1, unmeasured_limit=0.5)


def test_agent_failures_are_not_a_non_measurement():
    def bug(sc, rep):
        raise KeyError("prediction")  # run_one's own bug: no transport pattern

    agg = run_eval(["a", "b"], bug, repeats=1)
    assert agg.n_errors == 2 and agg.metric_means == {} and agg.coverage == 0.0


def test_a_2_1_file_verifies_and_a_tampered_answered_only_view_drifts(tmp_path):
    doc = run_eval(list("abcde"), two_of_five_raise, repeats=2).as_dict()
    path = tmp_path / "agg.json"
    path.write_text(json.dumps(doc))
    [verdict] = verify_result_files([str(path)])
    assert verdict["status"] == "match" and verdict["ci_method"] == "wilson"
    assert set(verdict["checks"]) >= {"answered_only", "coverage", "metric_runs",
                                      "metric_ci_method", "lower_is_better"}
    doc["answered_only"]["metric_means"]["ok"] = 0.9
    path.write_text(json.dumps(doc))
    [verdict] = verify_result_files([str(path)])
    assert verdict["status"] == "drift" and not verdict["checks"]["answered_only"]["match"]
    # the headline recomputed under the other rule set drifts too
    doc = run_eval(list("abcde"), two_of_five_raise, repeats=2).as_dict()
    doc["metric_means"]["ok"] = 1.0
    path.write_text(json.dumps(doc))
    [verdict] = verify_result_files([str(path)])
    assert verdict["metrics"]["ok"]["mean"] == {"stored": 1.0, "recomputed": 0.6,
                                                "match": False}
