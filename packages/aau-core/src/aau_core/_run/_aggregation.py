"""Aggregating finished runs into an ``EvalAggregate``: three rule sets, named by ``ci_method``.

``aggregate_results(results, repeats, ci_method=...)`` is what ``run_eval`` calls once every unit
finished, and what a caller holding results (a checkpoint, a ``MetricError``'s ``.results``)
calls itself. What every rule set shares is aau-harness 1.6's aggregation:

- metric names are the sorted union of the metric keys of the *answered* runs (those without
  ``detail["error"]``); scenarios are the sorted (string order) distinct ``scenario_id``s of all
  runs, errored ones included;
- per scenario, a metric's value is the mean over that scenario's values (``math.fsum / n``);
  the metric's mean is the mean of those per-scenario values;
- ``mean_cost_per_scenario_usd``, ``total_cost_usd`` and ``p50_latency_s`` are over all runs.

What differs is how an errored run counts and how the interval is made:

============  ===========================================  ==========================================
ci_method     errored runs                                 95 % interval
============  ===========================================  ==========================================
``wilson``    in every denominator: a failure of every     Wilson score over scenarios for 0/1
(default)     0/1 metric (0, or 1 for a metric in          metrics (``scenario_wilson_interval``);
              ``lower_is_better``); missing, not 0, from   numpy percentile bootstrap over scenarios
              a continuous metric (``metric_runs`` says    (``resamples``, ``seed``) for the others
              over how many runs each was computed)
``bootstrap`` left out of every metric                     numpy percentile bootstrap for every
                                                           metric: the arithmetic of
                                                           ``aau-eval-aggregate/2.0`` files, kept so
                                                           they verify (``run_eval`` refuses it)
``aau-compat`` left out of every metric (1.6 had no         aau-harness 1.6's ``Random(0)`` bootstrap,
              errored runs: a raising ``run_one`` stopped  bit for bit
              its run)
============  ===========================================  ==========================================

A metric is *binary* (0/1) when every answered value of it is 0 or 1 (the metrics pass^k is
computed on). Counting an errored run as a failure of a binary metric keeps a crash from making
a rate look better: the 2 of 5 scenarios whose ``run_one`` raised make a 0/1 metric the other 3
passed 0.6 (Wilson [0.2307, 0.8824]), not 1.0 over 3. An optional binary metric counts them too
(an errored run cannot say whether it would have applied). A metric where 1 is the bad outcome
(an overclaim, an omission) is named in ``lower_is_better``, so an errored run counts as 1 there.

The *answered-only view* (``EvalAggregate.answered_only``) is always computed, labelled and kept
apart: errored runs left out, the same interval method per metric. Under ``bootstrap`` and
``aau-compat`` it equals the main view.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

import attrs

from ._runner import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    AnsweredView,
    EvalAggregate,
    MetricError,
    ScenarioResult,
)
from ._statistics import (
    bootstrap_cis,
    clustered_stderr,
    compat_bootstrap_ci,
    scenario_wilson_interval,
)

CI_METHODS = ("wilson", "bootstrap", "aau-compat")

#: metric -> scenario id -> the values counted (a view's input)
_Values = dict[str, dict[str, list[float]]]


def _collect(ok: Sequence[ScenarioResult]) -> tuple[_Values, dict[str, int], bool]:
    """Check every value of the answered runs and group them metric -> scenario -> values, in one
    pass (1.6 scanned all results once per metric and scenario). Returns the groups, how many
    runs carry each metric, and whether some value was a bool.

    Raises:
        MetricError: a value that is not a finite number.
    """
    values: _Values = {}
    present: dict[str, int] = {}
    isfinite = math.isfinite
    has_bool = False
    for r in ok:
        sid = r.scenario_id
        for m, v in r.metrics.items():
            if v.__class__ is not float:
                if isinstance(v, bool):  # aau-harness 1.x took True/False as 1/0
                    has_bool = True
                elif not isinstance(v, (int, float)):
                    raise MetricError(
                        f"metric {m!r} of scenario {sid!r} repeat {r.repeat} is {v!r}, "
                        "not a finite number", metric=m, units=[(sid, r.repeat)])
                v = float(v)
            if not isfinite(v):
                raise MetricError(
                    f"metric {m!r} of scenario {sid!r} repeat {r.repeat} is {v!r}, "
                    "not a finite number", metric=m, units=[(sid, r.repeat)])
            try:
                by_scenario = values[m]
            except KeyError:
                by_scenario = values[m] = {}
                present[m] = 0
            present[m] += 1
            try:
                by_scenario[sid].append(v)
            except KeyError:
                by_scenario[sid] = [v]
    return values, present, has_bool


@attrs.frozen
class _View:
    means: dict[str, float]
    cis: dict[str, tuple[float, float]]
    counts: dict[str, int]
    stderrs: dict[str, float | None]
    runs: dict[str, int]


def _view(values: _Values, names: Sequence[str], scenario_ids: Sequence[str],
          methods: dict[str, str], resamples: int, seed: int) -> _View:
    """Means, intervals (each metric by ``methods[metric]``), scenario and run counts and
    clustered standard errors of ``values``."""
    means: dict[str, float] = {}
    counts: dict[str, int] = {}
    runs: dict[str, int] = {}
    stderrs: dict[str, float | None] = {}
    per_metric: dict[str, list[float]] = {}
    for m in names:
        by_scenario = values[m]
        per_scenario = [math.fsum(by_scenario[s]) / len(by_scenario[s])
                        for s in scenario_ids if s in by_scenario]
        per_metric[m] = per_scenario
        means[m] = math.fsum(per_scenario) / len(per_scenario)
        counts[m] = len(per_scenario)
        runs[m] = sum(len(v) for v in by_scenario.values())
        stderrs[m] = clustered_stderr(by_scenario) if len(by_scenario) >= 2 else None
    cis: dict[str, tuple[float, float]] = {}
    booted = [m for m in names if methods[m] == "bootstrap"]
    if booted:  # one index draw shared by these metrics; each interval is bootstrap_ci's
        cis.update(zip(booted, bootstrap_cis([per_metric[m] for m in booted],
                                             resamples=resamples, seed=seed), strict=True))
    for m in names:
        if methods[m] == "wilson":
            cis[m] = scenario_wilson_interval(per_metric[m])
        elif methods[m] == "aau-compat":
            cis[m] = compat_bootstrap_ci(per_metric[m])
    return _View(means, {m: cis[m] for m in names}, counts, stderrs, runs)


def binary_metrics(values: _Values) -> list[str]:
    """The metrics of ``values`` whose every value is 0 or 1, sorted."""
    return sorted(m for m, by_scenario in values.items()
                  if all(v in (0.0, 1.0) for vs in by_scenario.values() for v in vs))


def _check_lower_is_better(lower: set[str], names: Sequence[str], binary: Sequence[str],
                           optional: set[str]) -> None:
    if not names:
        return
    for m in sorted(lower):
        if m not in names and m not in optional:
            raise MetricError(f"lower_is_better names {m!r}, which no run reports; metrics: "
                              f"{', '.join(names)}", metric=m, units=[])
        if m in names and m not in binary:
            raise MetricError(f"lower_is_better names {m!r}, which is not a 0/1 metric (an "
                              "errored run counts as a failure of 0/1 metrics only)",
                              metric=m, units=[])


def aggregate_results(
    results: Sequence[ScenarioResult],
    repeats: int,
    *,
    ci_method: str = "wilson",
    optional_metrics: Sequence[str] = (),
    lower_is_better: Sequence[str] = (),
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> EvalAggregate:
    """Aggregate finished runs as ``run_eval`` does (see the module docstring).

    Args:
        results: the runs, in the order to keep.
        repeats: repeats requested (recorded as ``n_repeats``).
        ci_method: ``"wilson"`` (default), ``"bootstrap"`` (``aau-eval-aggregate/2.0``'s
            arithmetic) or ``"aau-compat"`` (aau-harness 1.6's).
        optional_metrics: metrics allowed to be missing from some runs.
        lower_is_better: 0/1 metrics where 1 is the bad outcome; under ``"wilson"`` an errored
            run counts as 1 for them (0 for every other 0/1 metric).
        resamples: bootstrap resamples (``"wilson"``'s continuous metrics and ``"bootstrap"``;
            ``"aau-compat"`` is always 2,000 with seed 0).
        seed: bootstrap seed (likewise).

    Raises:
        ValueError: unknown ``ci_method``; ``"aau-compat"`` with other resamples or seed.
        MetricError: a non-optional metric missing from some answered runs, a non-finite
            metric value, or a ``lower_is_better`` name that no run reports or that is not 0/1.
    """
    if ci_method not in CI_METHODS:
        raise ValueError(f"ci_method must be one of {', '.join(CI_METHODS)}; got {ci_method!r}")
    if ci_method == "aau-compat" and (resamples, seed) != (BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED):
        raise ValueError("aau-compat is 2,000 resamples with seed 0")
    optional = set(optional_metrics)
    lower = set(lower_is_better)
    ok = [r for r in results if not r.detail.get("error")]
    errored = [r for r in results if r.detail.get("error")]
    values, present, has_bool = _collect(ok)
    if has_bool:  # stored as 1.0 / 0.0: the files' metric values are JSON numbers
        results = [attrs.evolve(r, metrics={m: float(v) if isinstance(v, bool) else v
                                            for m, v in r.metrics.items()})
                   if any(isinstance(v, bool) for v in r.metrics.values()) else r
                   for r in results]
    names = sorted(values)
    for m in names:
        if m in optional or present[m] == len(ok):
            continue
        missing = [(r.scenario_id, r.repeat) for r in ok if m not in r.metrics]
        shown = ", ".join(f"{s!r} repeat {k}" for s, k in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise MetricError(
            f"metric {m!r} is missing from {len(missing)} run(s): {shown}{more}; return it "
            "from every run or list it in optional_metrics", metric=m, units=missing)
    binary = binary_metrics(values)
    _check_lower_is_better(lower, names, binary, optional)
    scenario_ids = sorted({r.scenario_id for r in results})
    if ci_method == "wilson":
        methods = {m: "wilson" if m in binary else "bootstrap" for m in names}
    else:
        methods = dict.fromkeys(names, ci_method)
    answered = _view(values, names, scenario_ids, methods, resamples, seed)
    main = answered
    if ci_method == "wilson" and errored and binary:
        counted = {m: {s: list(v) for s, v in by_scenario.items()}
                   for m, by_scenario in values.items()}
        for r in errored:
            for m in binary:
                counted[m].setdefault(r.scenario_id, []).append(1.0 if m in lower else 0.0)
        main = _view(counted, names, scenario_ids, methods, resamples, seed)
    costs = [r.cost_usd for r in results]
    latencies = sorted(r.latency_s for r in results)
    return EvalAggregate(
        n_scenarios=len(scenario_ids),
        n_repeats=repeats,
        metric_means=main.means,
        metric_ci95=main.cis,
        mean_cost_per_scenario_usd=math.fsum(costs) / len(costs) if costs else 0.0,
        total_cost_usd=sum(costs),
        p50_latency_s=statistics.median(latencies) if latencies else 0.0,
        results=list(results),
        ci_method=ci_method,
        resamples=resamples,
        seed=seed,
        metric_counts=main.counts,
        metric_stderr=main.stderrs,
        n_errors=len(errored),
        metric_ci_method=methods,
        metric_runs=main.runs,
        lower_is_better=tuple(sorted(lower)),
        answered_only=AnsweredView(runs=len(ok), metric_means=answered.means,
                                   metric_ci95=answered.cis, metric_counts=answered.counts),
    )


def binary_pass_hat_k(results: Sequence[ScenarioResult], repeats: int, *,
                      count_errored: bool = False,
                      lower_is_better: Sequence[str] = ()) -> dict[str, Any] | None:
    """τ-bench pass^k per metric, when it is meaningful; else ``None``.

    Meaningful when every answered run's metric values are 0 or 1 and every scenario that
    appears in ``results`` has exactly ``repeats`` counted runs: its answered runs, plus (with
    ``count_errored``, the ``"wilson"`` rule) its errored runs, each a failure (0, or 1 for a
    metric in ``lower_is_better``). Without ``count_errored`` (``"bootstrap"``, ``"aau-compat"``)
    a scenario whose runs all raised has 0 counted runs, so pass^k is ``None`` rather than
    silently dropping it. Returns ``{metric: {"1": p1, ..., str(repeats): pk}}`` (4 dp) for the
    binary metrics present in every answered run; ``None`` when no metric qualifies.
    """
    from ._statistics import pass_hat_k

    ok = [r for r in results if not r.error]
    if not ok or repeats < 1:
        return None
    counted = results if count_errored else ok
    by_scenario: dict[str, list[ScenarioResult]] = {r.scenario_id: [] for r in results}
    for r in counted:
        by_scenario[r.scenario_id].append(r)
    if any(len(rs) != repeats for rs in by_scenario.values()):
        return None
    lower = set(lower_is_better)
    names = sorted(set.intersection(*(set(r.metrics) for r in ok)))
    out: dict[str, Any] = {}
    for m in names:
        if any(r.metrics[m] not in (0, 1) for r in ok):
            continue
        fail = 1 if m in lower else 0
        counts = [(int(sum(fail if r.error else r.metrics[m] for r in rs)), repeats)
                  for rs in by_scenario.values()]
        out[m] = {str(k): round(pass_hat_k(counts, k), 4) for k in range(1, repeats + 1)}
    return out or None
