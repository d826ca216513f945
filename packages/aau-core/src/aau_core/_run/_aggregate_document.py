"""The eval-aggregate documents: what ``EvalAggregate.as_dict()`` / ``as_dict_v1()`` write.

Two attrs models, converted by aau-core's document converter (``_files._converter``):

- ``AggregateDocumentV1``: aau-harness 1.6's ``as_dict()`` shape (schema ``eval-aggregate-v1``;
  1.x files also carry ``backend``, ``model``, ``arm``, ``variant`` or ``scoring_revision``);
- ``AggregateDocument``: ``aau-eval-aggregate/2.0`` (schema ``eval-aggregate-v2``), v1's keys
  plus ``aggregate_version``, ``ci``, ``metric_counts``, ``metric_stderr``, ``n_errors`` and
  ``pass_hat_k``.

A run row is a ``ScenarioResult`` (its fields are the schema's ``result``). ``provenance`` stays
a JSON object: its model keys are present with ``null`` values when no backend is known, and
callers merge their own keys over it; the schema checks it.

Rounding (1.6's, kept bit for bit by ``aggregate_document``): means and interval ends 4 dp, mean
cost 6 dp, total cost 4 dp, p50 latency 3 dp; per run cost 6 dp and latency 3 dp; metric values
unrounded; standard errors and pass^k 4 dp.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from .._files._converter import optional_field
from ._runner import (
    AGGREGATE_VERSION,
    EvalAggregate,
    ScenarioResult,
    binary_pass_hat_k,
    default_provenance,
)

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
        method: ``"bootstrap"`` or ``"aau-compat"``.
        level: 0.95.
        resamples: bootstrap resamples.
        seed: bootstrap seed.
    """

    method: str
    level: float
    resamples: int
    seed: int


@attrs.frozen(kw_only=True)
class AggregateDocument(_AggregateBody):
    """An ``aau-eval-aggregate/2.0`` document (schema ``eval-aggregate-v2``).

    Attributes:
        provenance: what ran, where (``default_provenance``).
        aggregate_version: ``"aau-eval-aggregate/2.0"``.
        ci: the interval method.
        metric_counts: metric -> scenarios it was computed over.
        metric_stderr: metric -> clustered standard error (4 dp), ``None`` with fewer than two
            scenarios.
        n_errors: runs whose ``run_one`` raised.
        pass_hat_k: binary metric -> ``{"k": pass^k}`` (4 dp), or ``None``.
    """

    __aau_document_keys__: ClassVar[tuple[str, ...]] = _V1_KEYS + (
        "aggregate_version", "ci", "metric_counts", "metric_stderr", "n_errors",
        "pass_hat_k") + _LABEL_KEYS

    provenance: dict[str, Any]
    aggregate_version: str = AGGREGATE_VERSION
    ci: AggregateCI
    metric_counts: dict[str, int]
    metric_stderr: dict[str, float | None]
    n_errors: int
    pass_hat_k: dict[str, dict[str, float]] | None


def _body(agg: EvalAggregate) -> dict[str, Any]:
    return {
        "n_scenarios": agg.n_scenarios,
        "n_repeats": agg.n_repeats,
        "metric_means": {k: round(v, 4) for k, v in agg.metric_means.items()},
        "metric_ci95": {k: [round(lo, 4), round(hi, 4)] for k, (lo, hi) in agg.metric_ci95.items()},
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
    """``agg`` as an ``aau-eval-aggregate/2.0`` document (module docstring for the rounding).

    Args:
        agg: the aggregate.
        provenance: extra provenance merged over ``default_provenance()``.
    """
    return AggregateDocument(
        provenance=default_provenance(provenance), **_body(agg),
        ci=AggregateCI(method=agg.ci_method, level=0.95, resamples=agg.resamples, seed=agg.seed),
        metric_counts=dict(agg.metric_counts),
        metric_stderr={k: (None if v is None else round(v, 4))
                       for k, v in agg.metric_stderr.items()},
        n_errors=agg.n_errors,
        pass_hat_k=binary_pass_hat_k(agg.results, agg.n_repeats))
