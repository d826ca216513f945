"""The eval-aggregate documents: what ``EvalAggregate.as_dict()`` / ``as_dict_v1()`` write.

Two attrs models, converted by aau-core's document converter (``_files._converter``):

- ``AggregateDocumentV1``: aau-harness 1.6's ``as_dict()`` shape (schema ``eval-aggregate-v1``;
  1.x files also carry ``backend``, ``model``, ``arm``, ``variant`` or ``scoring_revision``);
- ``AggregateDocument``: ``aau-eval-aggregate/2.1`` (schema ``eval-aggregate-v2``, file
  ``eval-aggregate/v2.1/``), v1's keys plus ``aggregate_version``, ``ci``, ``metric_counts``,
  ``metric_stderr``, ``n_errors`` and ``pass_hat_k`` (2.0's), and 2.1's ``metric_ci_method``,
  ``metric_runs``, ``lower_is_better``, ``coverage`` and ``answered_only``. A 2.0 document read
  back has none of the 2.1 keys (they are optional fields) and is written back byte for byte.

A run row is a ``ScenarioResult`` (its fields are the schema's ``result``). ``provenance`` stays
a JSON object: its model keys are present with ``null`` values when no backend is known, and
callers merge their own keys over it; the schema checks it.

Rounding (1.6's, kept bit for bit by ``aggregate_document``): means and interval ends 4 dp, mean
cost 6 dp, total cost 4 dp, p50 latency 3 dp; per run cost 6 dp and latency 3 dp; metric values
unrounded; standard errors, pass^k and coverage 4 dp. A Wilson interval's ends are rounded by
``round_rate_interval`` (to the nearest, widened by one step if the two ends would coincide), so
a measured rate is never written as certain; bootstrap and aau-compat ends are 1.6's ``round``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from .._files._converter import optional_field
from ._aggregation import binary_pass_hat_k
from ._runner import (
    AGGREGATE_VERSION,
    AnsweredView,
    EvalAggregate,
    ScenarioResult,
    default_provenance,
)
from ._statistics import round_rate_interval

_V1_KEYS = ("provenance", "n_scenarios", "n_repeats", "metric_means", "metric_ci95",
            "mean_cost_per_scenario_usd", "total_cost_usd", "p50_latency_s", "results")
_LABEL_KEYS = ("backend", "model", "arm", "variant", "scoring_revision")


@attrs.frozen(kw_only=True)
class _AggregateBody:
    """The keys v1 and v2 share (every one keeps 1.6's meaning and rounding).

    Attributes:
        n_scenarios: distinct scenario ids among the results.
        n_repeats: repeats requested.
        metric_means: metric -> mean of per-scenario means (4 dp).
        metric_ci95: metric -> ``[low, high]`` 95 % interval (4 dp each).
        mean_cost_per_scenario_usd: mean ``cost_usd`` over all runs, USD (6 dp).
        total_cost_usd: sum of ``cost_usd`` over all runs, USD (4 dp).
        p50_latency_s: median latency over all runs, seconds (3 dp).
        results: every run, repeat-major (cost 6 dp, latency 3 dp).
        backend, model, arm, variant, scoring_revision: labels some 1.x use cases added;
            absent (``None``) unless read from such a file.
    """

    n_scenarios: int
    n_repeats: int
    metric_means: dict[str, float]
    metric_ci95: dict[str, list[float]]
    mean_cost_per_scenario_usd: float
    total_cost_usd: float
    p50_latency_s: float
    results: list[ScenarioResult]
    backend: str | None = optional_field()
    model: str | None = optional_field()
    arm: Any = optional_field()
    variant: Any = optional_field()
    scoring_revision: dict[str, Any] | None = optional_field()


@attrs.frozen(kw_only=True)
class AggregateDocumentV1(_AggregateBody):
    """An aau-harness 1.6 aggregate (schema ``eval-aggregate-v1``); see ``_AggregateBody``.

    Attributes:
        provenance: what ran, where (optional in 1.x files).
    """

    __aau_document_keys__: ClassVar[tuple[str, ...]] = _V1_KEYS + _LABEL_KEYS

    provenance: dict[str, Any] | None = optional_field()


@attrs.frozen
class AggregateCI:
    """How ``metric_ci95`` was computed.

    Attributes:
        method: the rule set (``_aggregation``): ``"wilson"``, ``"bootstrap"`` (2.0's) or
            ``"aau-compat"``.
        level: 0.95.
        resamples: bootstrap resamples.
        seed: bootstrap seed.
    """

    method: str
    level: float
    resamples: int
    seed: int


@attrs.frozen
class AggregateCoverage:
    """How many runs were answered (2.1).

    Attributes:
        runs: every run.
        answered: runs without ``detail.error``.
        rate: ``answered / runs`` (4 dp), ``None`` with no runs.
    """

    runs: int
    answered: int
    rate: float | None


@attrs.frozen
class AnsweredOnlyDocument:
    """The answered-only view (2.1): errored runs left out of every metric.

    Attributes:
        runs: answered runs.
        metric_means: metric -> mean over them (4 dp).
        metric_ci95: metric -> ``[low, high]`` (4 dp), by ``metric_ci_method``.
        metric_counts: metric -> scenarios it was computed over.
    """

    runs: int
    metric_means: dict[str, float]
    metric_ci95: dict[str, list[float]]
    metric_counts: dict[str, int]


@attrs.frozen(kw_only=True)
class AggregateDocument(_AggregateBody):
    """An ``aau-eval-aggregate/2.x`` document (schema ``eval-aggregate-v2``).

    Attributes:
        provenance: what ran, where (``default_provenance``).
        aggregate_version: ``"aau-eval-aggregate/2.1"`` (``"/2.0"`` when read from such a file).
        ci: the interval method.
        metric_counts: metric -> scenarios it was computed over.
        metric_stderr: metric -> clustered standard error (4 dp), ``None`` with fewer than two
            scenarios.
        n_errors: runs whose ``run_one`` raised.
        pass_hat_k: binary metric -> ``{"k": pass^k}`` (4 dp), or ``None``.
        metric_ci_method: (2.1) metric -> ``"wilson"``, ``"bootstrap"`` or ``"aau-compat"``.
        metric_runs: (2.1) metric -> runs it was computed over.
        lower_is_better: (2.1) 0/1 metrics where an errored run counts as 1, sorted.
        coverage: (2.1) answered runs over runs.
        answered_only: (2.1) the answered-only view.
    """

    __aau_document_keys__: ClassVar[tuple[str, ...]] = _V1_KEYS + (
        "aggregate_version", "ci", "metric_counts", "metric_stderr", "n_errors",
        "pass_hat_k", "metric_ci_method", "metric_runs", "lower_is_better", "coverage",
        "answered_only") + _LABEL_KEYS

    provenance: dict[str, Any]
    aggregate_version: str = AGGREGATE_VERSION
    ci: AggregateCI
    metric_counts: dict[str, int]
    metric_stderr: dict[str, float | None]
    n_errors: int
    pass_hat_k: dict[str, dict[str, float]] | None
    metric_ci_method: dict[str, str] | None = optional_field()
    metric_runs: dict[str, int] | None = optional_field()
    lower_is_better: list[str] | None = optional_field()
    coverage: AggregateCoverage | None = optional_field()
    answered_only: AnsweredOnlyDocument | None = optional_field()


def _intervals(cis: Mapping[str, tuple[float, float]], agg: EvalAggregate
               ) -> dict[str, list[float]]:
    """Interval ends as the file stores them: 4 dp; a Wilson interval never zero width."""
    out = {}
    for k, (lo, hi) in cis.items():
        if agg.interval_method(k) == "wilson":
            out[k] = list(round_rate_interval(lo, hi, 4))
        else:
            out[k] = [round(lo, 4), round(hi, 4)]
    return out


def _body(agg: EvalAggregate) -> dict[str, Any]:
    return {
        "n_scenarios": agg.n_scenarios,
        "n_repeats": agg.n_repeats,
        "metric_means": {k: round(v, 4) for k, v in agg.metric_means.items()},
        "metric_ci95": _intervals(agg.metric_ci95, agg),
        "mean_cost_per_scenario_usd": round(agg.mean_cost_per_scenario_usd, 6),
        "total_cost_usd": round(agg.total_cost_usd, 4),
        "p50_latency_s": round(agg.p50_latency_s, 3),
        "results": [attrs.evolve(r, cost_usd=round(r.cost_usd, 6),
                                 latency_s=round(r.latency_s, 3)) for r in agg.results],
    }


def aggregate_document_v1(agg: EvalAggregate,
                          provenance: Mapping[str, Any] | None = None) -> AggregateDocumentV1:
    """``agg`` as aau-harness 1.6's document, rounded as 1.6 rounds (module docstring).

    Args:
        agg: the aggregate.
        provenance: extra provenance merged over ``default_provenance()``.
    """
    return AggregateDocumentV1(provenance=default_provenance(provenance), **_body(agg))


def aggregate_document(agg: EvalAggregate,
                       provenance: Mapping[str, Any] | None = None) -> AggregateDocument:
    """``agg`` as an ``aau-eval-aggregate/2.1`` document (module docstring for the rounding).

    An aggregate built by hand (no ``answered_only``, no ``metric_runs``) gets its own numbers
    as the answered-only view when it has no errored runs, and each metric's run count from its
    ``results``; with errored runs it must come from ``aggregate_results``.

    Args:
        agg: the aggregate.
        provenance: extra provenance merged over ``default_provenance()``.

    Raises:
        ValueError: ``agg`` has errored runs but no ``answered_only`` view.
    """
    view = agg.answered_only
    if view is None:
        if agg.n_errors:
            raise ValueError("an aggregate with errored runs needs its answered_only view "
                             "(build it with aggregate_results)")
        view = AnsweredView(runs=len(agg.results), metric_means=agg.metric_means,
                            metric_ci95=agg.metric_ci95, metric_counts=agg.metric_counts)
    n = len(agg.results)
    return AggregateDocument(
        provenance=default_provenance(provenance), **_body(agg),
        ci=AggregateCI(method=agg.ci_method, level=0.95, resamples=agg.resamples, seed=agg.seed),
        metric_counts=dict(agg.metric_counts),
        metric_stderr={k: (None if v is None else round(v, 4))
                       for k, v in agg.metric_stderr.items()},
        n_errors=agg.n_errors,
        pass_hat_k=binary_pass_hat_k(agg.results, agg.n_repeats,
                                     count_errored=agg.ci_method == "wilson",
                                     lower_is_better=agg.lower_is_better),
        metric_ci_method={k: agg.interval_method(k) for k in agg.metric_means},
        metric_runs={k: agg.metric_runs[k] if k in agg.metric_runs
                     else sum(1 for r in agg.results if k in r.metrics)
                     for k in agg.metric_means},
        lower_is_better=list(agg.lower_is_better),
        coverage=AggregateCoverage(runs=n, answered=n - agg.n_errors,
                                   rate=round((n - agg.n_errors) / n, 4) if n else None),
        answered_only=AnsweredOnlyDocument(
            runs=view.runs,
            metric_means={k: round(v, 4) for k, v in view.metric_means.items()},
            metric_ci95=_intervals(view.metric_ci95, agg),
            metric_counts=dict(view.metric_counts)))
