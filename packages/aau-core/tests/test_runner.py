"""run_eval / aggregate_results / render_report: 1.6's semantics, aau's strictness, the schemas."""

from __future__ import annotations

import json
import math
import random
import statistics
import threading

import aau_schemas
import attrs
import pytest
from aau_core import (
    EvalAggregate,
    MetricError,
    ScenarioResult,
    aggregate_results,
    compat_bootstrap_ci,
    render_report,
    run_eval,
)
from aau_core._run._runner import AGGREGATE_VERSION

SCENARIOS = [f"s-{i:02d}" for i in range(12)]


def scripted(sc: str, rep: int) -> ScenarioResult:
    rng = random.Random(f"{sc}/{rep}")
    return ScenarioResult(sc, rep, {"ok": float(rng.random() < 0.7), "score": rng.random()},
                          cost_usd=rng.random() / 1000, latency_s=0.5 + rng.random(), n_api_calls=2)


def test_results_are_repeat_major_and_means_average_repeats_first():
    agg = run_eval(SCENARIOS, scripted, repeats=3)
    assert [(r.repeat, r.scenario_id) for r in agg.results] == [
        (rep, sc) for rep in range(3) for sc in SCENARIOS]
    per_scenario = [statistics.fmean(scripted(sc, k).metrics["score"] for k in range(3))
                    for sc in sorted(SCENARIOS)]
    assert agg.metric_means["score"] == statistics.fmean(per_scenario)
    assert agg.n_scenarios == 12 and agg.n_repeats == 3
    costs = [r.cost_usd for r in agg.results]
    assert agg.total_cost_usd == sum(costs)
    assert agg.mean_cost_per_scenario_usd == pytest.approx(statistics.fmean(costs))
    assert agg.p50_latency_s == statistics.median(r.latency_s for r in agg.results)
    assert agg.metric_counts == {"ok": 12, "score": 12}
    low, high = agg.metric_ci95["score"]
    assert low <= agg.metric_means["score"] <= high


def test_compat_intervals_are_16s_bootstrap_of_per_scenario_means():
    agg = run_eval(SCENARIOS, scripted, repeats=3, ci_method="aau-compat")
    per_scenario = [statistics.fmean(scripted(sc, k).metrics["ok"] for k in range(3))
                    for sc in sorted(SCENARIOS)]
    assert agg.metric_ci95["ok"] == compat_bootstrap_ci(per_scenario)
    assert agg.as_dict()["ci"] == {"method": "aau-compat", "level": 0.95, "resamples": 2000,
                                   "seed": 0}


def test_concurrency_gives_the_same_aggregate():
    one = run_eval(SCENARIOS, scripted, repeats=2)
    many = run_eval(SCENARIOS, scripted, repeats=2, concurrency=8)
    assert one.metric_means == many.metric_means and one.metric_ci95 == many.metric_ci95
    assert [r.scenario_id for r in one.results] == [r.scenario_id for r in many.results]


def test_zero_latency_is_filled_with_the_measured_time_and_progress_is_reported():
    lines: list[str] = []

    def run_one(sc, rep):
        return ScenarioResult(sc, rep, {"ok": 1.0}, cost_usd=0.001, latency_s=0.0, n_api_calls=1)

    agg = run_eval(["a", "b"], run_one, repeats=1, progress=lines.append)
    assert all(r.latency_s > 0 for r in agg.results)
    assert lines == ["repeat 1/1 scenario a: {'ok': 1.0} $0.0010",
                     "repeat 1/1 scenario b: {'ok': 1.0} $0.0010"]


def test_a_raising_unit_is_recorded_and_counts_as_a_failure_of_each_binary_metric():
    def run_one(sc, rep):
        if sc == "s-03" and rep == 1:
            raise ConnectionError("HTTP 503 upstream")
        return scripted(sc, rep)

    agg = run_eval(SCENARIOS, run_one, repeats=2)
    failed = [r for r in agg.results if r.error]
    assert len(failed) == 1 and agg.n_errors == 1
    assert failed[0].scenario_id == "s-03" and failed[0].repeat == 1 and failed[0].metrics == {}
    assert failed[0].detail == {"error": "ConnectionError: HTTP 503 upstream"}
    # "score" is continuous: the errored run is missing from it (only repeat 0 counts for s-03)
    s03 = scripted("s-03", 0).metrics["score"]
    others = [statistics.fmean([scripted(s, 0).metrics["score"], scripted(s, 1).metrics["score"]])
              for s in SCENARIOS if s != "s-03"]
    assert agg.metric_means["score"] == pytest.approx(statistics.fmean([*others[:3], s03,
                                                                        *others[3:]]))
    assert agg.metric_runs == {"ok": 24, "score": 23}
    # "ok" is 0/1: the errored run counts as a 0 (s-03's mean is its repeat 0 over 2 runs)
    ok = [statistics.fmean([scripted(s, 0).metrics["ok"],
                            0.0 if s == "s-03" else scripted(s, 1).metrics["ok"]])
          for s in SCENARIOS]
    assert agg.metric_means["ok"] == pytest.approx(statistics.fmean(ok))
    assert agg.metric_ci_method == {"ok": "wilson", "score": "bootstrap"}
    doc = agg.as_dict()
    assert doc["n_errors"] == 1 and doc["coverage"] == {"runs": 24, "answered": 23,
                                                        "rate": 0.9583}
    assert set(doc["pass_hat_k"]) == {"ok"}  # s-03 has two counted runs: one failed
    aau_schemas.validate("eval-aggregate-v2", doc)


def test_a_wrong_return_type_is_a_recorded_error():
    agg = run_eval([{"scenario_id": "x"}], lambda sc, rep: {"ok": 1}, repeats=1)
    assert agg.results[0].scenario_id == "x"
    assert agg.results[0].error == "TypeError: run_one returned dict, not ScenarioResult"


def test_a_missing_metric_names_metric_and_scenarios():
    def run_one(sc, rep):
        metrics = {"ok": 1.0} if sc in ("s-01", "s-07") else {"ok": 1.0, "omits": 0.0}
        return ScenarioResult(sc, rep, metrics, 0.0, 0.1, 0)

    with pytest.raises(MetricError, match=r"metric 'omits' is missing from 2 run\(s\): 's-01' "
                                          r"repeat 0, 's-07' repeat 0") as info:
        run_eval(SCENARIOS, run_one, repeats=1)
    assert info.value.metric == "omits" and info.value.units == [("s-01", 0), ("s-07", 0)]
    agg = run_eval(SCENARIOS, run_one, repeats=1, optional_metrics=["omits"])
    assert agg.metric_counts == {"ok": 12, "omits": 10}
    assert agg.as_dict()["metric_counts"] == {"ok": 12, "omits": 10}


@pytest.mark.parametrize("bad", [math.nan, -math.inf, math.inf, "1", None])
def test_a_non_finite_or_non_numeric_metric_names_scenario_repeat_and_metric(bad):
    def run_one(sc, rep):
        return ScenarioResult(sc, rep, {"ok": bad if (sc, rep) == ("b", 1) else 1.0}, 0, 0.1, 0)

    with pytest.raises(MetricError, match=r"metric 'ok' of scenario 'b' repeat 1 is .*not a "
                                          r"finite number"):
        run_eval(["a", "b"], run_one, repeats=2)


def test_a_metric_error_keeps_the_finished_results_for_aggregate_results():
    def run_one(sc, rep):
        value = math.nan if (sc, rep) == ("s-04", 1) else scripted(sc, rep).metrics["score"]
        return ScenarioResult(sc, rep, {"score": value}, cost_usd=0.001, latency_s=0.1)

    with pytest.raises(MetricError, match=r"the 24 finished results are on this error's "
                                          r"\.results") as info:
        run_eval(SCENARIOS, run_one, repeats=2)
    results = info.value.results
    assert len(results) == 24 and all(isinstance(r, ScenarioResult) for r in results)
    assert [(r.repeat, r.scenario_id) for r in results] == [
        (rep, sc) for rep in range(2) for sc in SCENARIOS]
    fixed = [r for r in results if math.isfinite(r.metrics["score"])]
    agg = aggregate_results(fixed, 2)
    assert agg.n_scenarios == 12 and len(agg.results) == 23


def test_bool_metrics_count_as_one_and_zero_and_are_stored_as_floats():
    def run_one(sc, rep):
        return ScenarioResult(sc, rep, {"rate": (sc, rep) != ("b", 1), "x": 0.5}, 0.0, 0.1)

    agg = run_eval(["a", "b"], run_one, repeats=2)
    assert agg.metric_means["rate"] == 0.75
    assert [r.metrics["rate"] for r in agg.results] == [1.0, 1.0, 1.0, 0.0]
    assert all(type(r.metrics["rate"]) is float for r in agg.results)
    doc = json.loads(json.dumps(agg.as_dict()))
    assert doc["results"][3]["metrics"] == {"rate": 0.0, "x": 0.5}
    assert doc["pass_hat_k"]["rate"]["1"] == 0.75
    aau_schemas.validate("eval-aggregate-v2", doc)


def test_bad_arguments():
    with pytest.raises(ValueError, match="ci_method must be one of wilson, aau-compat; got "
                                         "'normal'$"):
        run_eval(["a"], scripted, ci_method="normal")
    with pytest.raises(ValueError, match="bootstrap was aau-eval-aggregate/2.0's method"):
        run_eval(["a"], scripted, ci_method="bootstrap")
    with pytest.raises(ValueError, match="repeats"):
        run_eval(["a"], scripted, repeats=0)
    for limit in (0, 1.5, True):
        with pytest.raises(ValueError, match="unmeasured_limit must be in"):
            run_eval(["a"], scripted, unmeasured_limit=limit)


def test_empty_run_is_zeros_as_in_16():
    agg = run_eval([], scripted, repeats=3)
    assert (agg.n_scenarios, agg.metric_means, agg.total_cost_usd, agg.p50_latency_s) == (
        0, {}, 0, 0.0)
    aau_schemas.validate("eval-aggregate-v2", agg.as_dict())
    aau_schemas.validate("eval-aggregate-v1", agg.as_dict_v1())


def test_pass_hat_k_only_for_binary_metrics():
    doc = run_eval(SCENARIOS, scripted, repeats=3).as_dict()
    assert set(doc["pass_hat_k"]) == {"ok"}  # "score" is not 0/1
    assert doc["pass_hat_k"]["ok"]["1"] == doc["metric_means"]["ok"]
    assert set(doc["pass_hat_k"]["ok"]) == {"1", "2", "3"}


def test_pass_hat_k_counts_a_scenario_that_errored_in_every_repeat_as_failed():
    def run_one(sc, rep):
        if sc == "s-05":
            raise TimeoutError("gave up")
        return scripted(sc, rep)

    agg = run_eval(SCENARIOS, run_one, repeats=3)
    assert agg.n_errors == 3 and agg.n_scenarios == 12
    counts = [(0, 3) if sc == "s-05" else (sum(int(scripted(sc, k).metrics["ok"])
                                               for k in range(3)), 3) for sc in SCENARIOS]
    from aau_core import pass_hat_k

    assert agg.as_dict()["pass_hat_k"]["ok"] == {
        str(k): round(pass_hat_k(counts, k), 4) for k in (1, 2, 3)}
    compat = run_eval(SCENARIOS, run_one, repeats=3, ci_method="aau-compat")
    assert compat.as_dict()["pass_hat_k"] is None  # s-05 has 0 answered units, not 3


def test_as_dict_rounds_as_16_and_both_shapes_validate():
    agg = run_eval(SCENARIOS, scripted, repeats=3)
    v1 = agg.as_dict_v1()
    v2 = agg.as_dict({"requested_model": "mock", "served_model": None,
                      "served_differs_from_requested": False, "model_pinned": False})
    for k in ("n_scenarios", "n_repeats", "metric_means", "metric_ci95",
              "mean_cost_per_scenario_usd", "total_cost_usd", "p50_latency_s", "results"):
        assert v1[k] == v2[k], k
    assert v2["metric_means"]["score"] == round(agg.metric_means["score"], 4)
    assert v2["results"][0]["latency_s"] == round(agg.results[0].latency_s, 3)
    assert v2["results"][0]["metrics"] == agg.results[0].metrics  # unrounded
    assert v2["aggregate_version"] == AGGREGATE_VERSION
    assert v2["provenance"]["requested_model"] == "mock"
    assert aau_schemas.detect_kind(v2) == "eval-aggregate-v2"
    assert aau_schemas.detect_kind(v1) is None
    aau_schemas.validate("eval-aggregate-v2", json.loads(json.dumps(v2)))
    aau_schemas.validate("eval-aggregate-v1", json.loads(json.dumps(v1)))


def test_render_report_layout_is_16s_in_compat_and_names_the_method_otherwise():
    agg = EvalAggregate(n_scenarios=8, n_repeats=3, metric_means={"ok": 0.75},
                        metric_ci95={"ok": (0.5417, 0.9167)}, mean_cost_per_scenario_usd=0.000247,
                        total_cost_usd=0.0059, p50_latency_s=6.369, results=[],
                        ci_method="aau-compat")
    assert render_report(agg, "mistral-small-latest", title="Accessibility") == (
        "## Accessibility\n\n"
        "Model: `mistral-small-latest` · 8 scenarios × 3 repeats · total eval cost **$0.01**\n\n"
        "| Metric | Mean | 95% CI |\n|---|---|---|\n"
        "| ok | 0.750 | [0.542, 0.917] |\n"
        "| cost per scenario (USD) | 0.0002 | — |\n"
        "| p50 latency (s) | 6.37 | — |\n")
    wilson = attrs.evolve(agg, ci_method="wilson", metric_ci_method={"ok": "wilson"})
    assert "| ok | 0.750 | [0.542, 0.917] wilson |\n" in render_report(wilson, "m")


def test_render_report_says_how_errored_runs_count_and_progress_shows_the_error():
    lines: list[str] = []

    def run_one(sc, rep):
        if sc == "b":
            raise TimeoutError("no reply in 30 s")
        return ScenarioResult(sc, rep, {"ok": 1.0}, cost_usd=0.001, latency_s=1.0)

    agg = run_eval(["a", "b"], run_one, repeats=2, progress=lines.append)
    assert lines[1] == "repeat 1/2 scenario b: error: TimeoutError: no reply in 30 s $0.0000"
    assert lines[0] == "repeat 1/2 scenario a: {'ok': 1.0} $0.0010"
    report = render_report(agg, "m")
    # 1 of 2 scenarios passed: Wilson over n = 2 scenarios; answered-only: 1 of 1
    assert "| ok | 0.500 | [0.095, 0.905] wilson |\n" in report
    assert report.endswith(
        "| p50 latency (s) | 0.50 | — |\n\n"
        "2 of 4 run(s) raised (coverage 0.500): each counts as a failure of every 0/1 metric "
        "and is left out of the others (see results[].detail.error).\n\n"
        "Answered runs only (2 run(s)): ok 1.000 [0.207, 1.000] wilson.\n")
    compat = run_eval(["a", "b"], run_one, repeats=2, ci_method="aau-compat")
    assert render_report(compat, "m").endswith(
        "| p50 latency (s) | 0.50 | — |\n\n"
        "2 run(s) raised and are left out of every metric (see results[].detail.error)\n")
    clean = attrs.evolve(compat, n_errors=0)
    assert render_report(clean, "m").endswith("| p50 latency (s) | 0.50 | — |\n")


def test_aggregate_results_is_what_run_eval_uses():
    agg = run_eval(SCENARIOS, scripted, repeats=2)
    again = aggregate_results(agg.results, 2)
    assert again.metric_means == agg.metric_means and again.metric_ci95 == agg.metric_ci95


def test_run_one_runs_in_worker_threads_with_concurrency():
    names: set[str] = set()

    def run_one(sc, rep):
        names.add(threading.current_thread().name)
        return scripted(sc, rep)

    run_eval(SCENARIOS, run_one, repeats=2, concurrency=4)
    assert any(n.startswith("aau-unit") for n in names)


def test_ctrl_c_raises_interrupted_with_the_finished_units():
    from aau_core import Interrupted

    def run_one(sc, rep):
        if sc == "s-03":
            raise KeyboardInterrupt
        return scripted(sc, rep)

    with pytest.raises(Interrupted) as info:
        run_eval(SCENARIOS, run_one, repeats=2)
    finished = info.value.finished
    assert sorted(finished) == [0, 1, 2]
    assert [r.scenario_id for r in finished.values()] == ["s-00", "s-01", "s-02"]


def test_a_custom_executor_gets_the_units():
    from aau_core import run_units

    seen = []

    def executor(items, fn, **kwargs):
        seen.append((len(items), kwargs["concurrency"]))
        return run_units(items, fn, **kwargs)

    agg = run_eval(SCENARIOS, scripted, repeats=2, concurrency=3, executor=executor)
    assert seen == [(24, 3)] and len(agg.results) == 24
