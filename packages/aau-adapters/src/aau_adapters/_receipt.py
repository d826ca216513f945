"""Building receipts from an evaluation run, and checking what their schemas cannot express.

Formats:

- ``aau-byo-agent-receipt/1.0`` + ``aau-byo-agent-private-detail/1.0``: byte-for-byte what
  aau-harness 1.6 writes for the same adapter answers (latencies aside), failure codes mapped
  with ``legacy_failure_code``. One repeat only.
- ``aau-byo-agent-receipt/2.1`` + ``aau-byo-agent-private-detail/2.1`` (what ``--format v2``
  writes; 2.0, which aau wrote before, is read as well): a superset of 1.0 with
  repeats, 95 % intervals, pass^k, failure-code counts, provenance, timing, the run settings,
  the ``--fail-under`` verdicts and an RFC 8785 ``suite_digest`` beside ``suite_sha256``; 2.1
  adds ``coverage`` (units that measured the agent, adapter and infrastructure failures apart),
  ``retries``, ``unmeasured_limit``, ``measured`` per row, the coverage of each bar on a negative
  check, and ``attempts`` / ``retry_wait_s`` per private row.

Metric rules (both formats): each rate is ``round(true_count / units, 6)`` over every
(scenario, repeat) unit; ``mean_latency_s = round(sum(rounded latencies) / units, 6)``, in
2.1 over the units that measured the agent only (``aau_core`` ``latency_rows``: a timeout's
latency is the cap, not the agent's). The rates' denominators never shrink: a unit that was not
measured stays in every rate. In 2.1 its row
fails the negative checks (``_scoring.measured_row``); 1.0 keeps 1.6's arithmetic, where they
hold vacuously.
``tool_calls_match_rate`` (2.0, only when some case expects tool calls) is the same rate over the
units whose rows carry ``tool_calls_match`` only; its interval is Wilson over those scenarios.
``environment_success_rate`` (2.1, only when some case names an environment) is the rate of
``environment_passed`` over the rows that carry it, with its Wilson interval over those
scenarios and ``environment_pass_hat_k`` (pass^k on ``environment_passed``, as ``pass_hat_k`` is on
``exact``); such a receipt also records the environments and their versions in
``provenance.environments`` and ``mcp_late_requests``. Public rows of environment cases hold
counts only (``observed``, ``report_fidelity``); every call's arguments and results are in the
private receipt's ``trajectory``.
``utility_under_attack_rate`` and ``attack_success_rate`` (2.1, only when some case runs under
an ``attack``) are ``environment_passed`` and ``attack_succeeded`` over the rows that carry
``attack_succeeded``, each with its Wilson interval over those scenarios; such a receipt names
the attacks in ``provenance.attacks`` (never their injected text).
A suite v2 or v3 cannot be written as 1.0 (``build_receipt_v1`` refuses it).

Intervals (2.0): for a rate, the Wilson score interval with n = scenarios and
p = mean over scenarios of the per-scenario rate (repeats averaged first;
``scenario_wilson_interval``, the rule ``run_eval`` shares), so repeats never
narrow an interval below what the independent scenarios support; with one repeat this is the
ordinary Wilson interval. For ``mean_latency_s``, a percentile bootstrap over per-scenario mean
latencies of the same units (2,000 resamples, seed 0). Bounds are rounded to 6 decimals and widened, if rounding
requires, so that low <= point <= high.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
from aau_core import (
    check_receipt_consistency,
    receipt_metrics,
)
from aau_core._reports._coverage import (  # internal to the monorepo
    NEGATIVE_CHECK_METRICS,
    receipt_coverage,
)
from aau_core._reports._receipt_consistency import (  # internal to the monorepo
    RECEIPT_ENVIRONMENT_METRIC,
    RECEIPT_RATE_METRICS,
    RECEIPT_TOOL_CALLS_METRIC,
    receipt_failure_code_counts,
    receipt_metric_intervals,
    receipt_pass_hat_k,
)

from ._converter import converter
from ._documents import unstructure_document
from ._failure_codes import legacy_failure_code
from ._receipt_models import (
    AdapterProvenance,
    Coverage,
    EnvironmentProvenance,
    FailUnderCheck,
    Interval,
    MetricIntervals,
    MetricsV1,
    MetricsV2,
    Privacy,
    PrivateReceiptV1,
    PrivateReceiptV2,
    PrivateRowV1,
    PrivateRowV2,
    Provenance,
    PublicReceiptV1,
    PublicReceiptV2,
    ResultRowV1,
    ResultRowV2,
)
from ._scoring import MeasuredRowView, UnitResult, measured_row
from ._suite import SUITE_V1, Suite

RECEIPT_V1 = "aau-byo-agent-receipt/1.0"
RECEIPT_V2 = "aau-byo-agent-receipt/2.1"
"""The receipt version ``--format v2`` writes (the newest minor of major 2)."""
PRIVATE_V1 = "aau-byo-agent-private-detail/1.0"
PRIVATE_V2 = "aau-byo-agent-private-detail/2.1"
"""The private receipt version written beside a 2.1 receipt."""
BOUNDARY = (
    "This receipt measures the declared suite and adapter response contract. It is not "
    "production validation, certification, model ranking, legal advice, or permission to "
    "automate protected decisions."
)
PRIVATE_WARNING = (
    "Private details may contain sensitive adapter inputs or outputs. Do not commit or publish "
    "without authorized review."
)
RATE_METRICS = RECEIPT_RATE_METRICS
METRIC_NAMES = tuple(name for name, _ in RATE_METRICS) + ("mean_latency_s",)
TOOL_CALLS_METRIC = RECEIPT_TOOL_CALLS_METRIC
ENVIRONMENT_METRIC = RECEIPT_ENVIRONMENT_METRIC
FAIL_UNDER_METRICS = tuple(name for name, _ in (*RATE_METRICS, TOOL_CALLS_METRIC,
                                                ENVIRONMENT_METRIC))
"""The metrics a ``--fail-under`` bar may name: every rate of a receipt."""


def compute_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Return the receipt metrics over result rows: ``aau_core.receipt_metrics`` (the one
    arithmetic, shared with ``aau_core.check_receipt_consistency``)."""
    return receipt_metrics(rows)


@attrs.frozen
class FailUnder:
    """One ``--fail-under METRIC=VALUE`` bar: the run fails when ``metric < threshold`` and, for
    a bar on a negative check (``no_forbidden_attempt_rate``, ``no_forbidden_execute_rate``),
    also when the run's coverage is below ``--min-coverage``: "the agent never did X" holds only
    as far as its answers were seen."""

    metric: str
    threshold: float

    def verdict(self, metrics: dict[str, float], coverage: float | None = None,
                min_coverage: float = 1.0) -> dict[str, Any]:
        """The document of ``check`` (same arguments)."""
        return unstructure_document(self.check(metrics, coverage, min_coverage))

    def check(self, metrics: dict[str, float], coverage: float | None = None,
              min_coverage: float = 1.0) -> FailUnderCheck:
        """Return the bar's verdict on the measured metrics (``metric`` must be among them).

        Args:
            metrics: the receipt's metrics.
            coverage: the run's coverage rate (units measured / units, in [0, 1]); ``None``
                judges the value alone (a receipt 2.0's verdicts).
            min_coverage: the lowest coverage at which a negative-check bar can pass (in [0, 1]).

        Returns:
            the ``FailUnderCheck``; for a negative-check bar with ``coverage`` given, it records
            ``coverage`` and ``min_coverage`` and passes only when ``coverage >= min_coverage``.
        """
        value = metrics[self.metric]
        passed = value >= self.threshold
        if coverage is None or self.metric not in NEGATIVE_CHECK_METRICS:
            return FailUnderCheck(metric=self.metric, threshold=self.threshold, value=value,
                                  passed=passed)
        return FailUnderCheck(metric=self.metric, threshold=self.threshold, value=value,
                              passed=passed and coverage >= min_coverage, coverage=coverage,
                              min_coverage=min_coverage)


@attrs.frozen
class EvaluationRun:
    """Everything a receipt is built from.

    Attributes:
        suite: the suite evaluated.
        adapter: the adapter's ``describe()`` (``{"kind", "argv0" | "url_host"}``).
        repeats: repeats per scenario (>= 1).
        concurrency: most units run at once.
        timeout_s: per-unit timeout in seconds.
        started_at, finished_at: RFC 3339 UTC timestamps.
        units: one ``UnitResult`` per (scenario, repeat), suite order then repeat.
        harness_version: the aau-adapters version.
        python, platform: interpreter version and ``"<system> <machine>"``.
        environments: ``((name, version), ...)`` of the environments the suite's cases name,
            sorted by name (``()`` when none does).
        mcp_late_requests: requests to MCP units already closed, over the run (``None`` when no
            case names an environment).
    """

    suite: Suite
    adapter: dict[str, Any]
    repeats: int
    concurrency: int
    timeout_s: float
    started_at: str
    finished_at: str
    units: tuple[UnitResult, ...]
    harness_version: str
    python: str
    platform: str
    environments: tuple[tuple[str, str], ...] = ()
    mcp_late_requests: int | None = None

    @property
    def adapter_kind(self) -> str:
        """``"command"``, ``"endpoint"``, ``"mock"`` or ``"python"``."""
        return str(self.adapter["kind"])


def receipt_v1(run: EvaluationRun) -> PublicReceiptV1:
    """Build the aau-harness 1.x public receipt (``aau-byo-agent-receipt/1.0``) as a model.

    Raises:
        ValueError: the run has more than one repeat, or its suite is v2 (1.0 can represent
            neither).
    """
    if run.repeats != 1:
        raise ValueError("aau-byo-agent-receipt/1.0 holds one repeat only")
    if run.suite.version != SUITE_V1:
        raise ValueError(f"aau-byo-agent-receipt/1.0 cannot hold a {run.suite.version} suite")
    rows = []
    for unit in run.units:
        row = {k: v for k, v in unit.row.items() if k != "repeat"}
        row["failure_codes"] = [legacy_failure_code(c, run.adapter_kind)
                                for c in row["failure_codes"]]
        rows.append(row)
    return PublicReceiptV1(
        receipt_version=RECEIPT_V1,
        suite_id=run.suite.suite_id,
        suite_sha256=run.suite.suite_sha256,
        adapter_kind=run.adapter_kind,
        scenario_count=len(rows),
        metrics=MetricsV1(**compute_metrics(rows)),
        results=tuple(converter.structure(row, ResultRowV1) for row in rows),
        privacy=Privacy(),
        boundary=BOUNDARY,
    )


def build_receipt_v1(run: EvaluationRun) -> dict[str, Any]:
    """The document of ``receipt_v1(run)`` (same errors)."""
    return unstructure_document(receipt_v1(run))


def private_detail_row(unit: UnitResult, adapter_kind: str, *,
                       legacy: bool) -> PrivateRowV1 | PrivateRowV2:
    """One unit's private receipt row: a ``PrivateRowV1`` when ``legacy`` (the error code
    mapped with ``legacy_failure_code``), else a 2.1 ``PrivateRowV2`` with ``attempts`` and
    ``retry_wait_s`` (seconds, 6 places; checkpoints keep this one)."""
    error = unit.answer.error
    common: dict[str, Any] = {
        "scenario_id": unit.case.scenario_id,
        "input": unit.case.input,
        "expected": unit.case.expected,
        "forbidden_actions": tuple(unit.case.forbidden_actions),
        "response": unit.answer.response if error is None else {},
    }
    if legacy:
        mapped = legacy_failure_code(error, adapter_kind) if error is not None else None
        return PrivateRowV1(**common, error=mapped)
    mismatches = None
    if unit.case.expects_tool_calls:
        reasons = unit.tool_match.reasons if unit.tool_match is not None else ()
        mismatches = tuple(r[:500] for r in reasons)
    extra = unit.environment.private_fields() if unit.environment is not None else {}
    return PrivateRowV2(**common, error=error, repeat=unit.repeat,
                        stderr_tail=unit.answer.stderr_tail,
                        error_detail=unit.answer.detail[:500] if unit.answer.detail else None,
                        tool_call_mismatches=mismatches, attempts=unit.answer.attempts,
                        retry_wait_s=round(unit.answer.retry_wait_s, 6), **extra)


def private_row(unit: UnitResult, adapter_kind: str, *, legacy: bool) -> dict[str, Any]:
    """The document of ``private_detail_row`` (1.0 when ``legacy``, else 2.1)."""
    return unstructure_document(private_detail_row(unit, adapter_kind, legacy=legacy))


def private_receipt_v1(run: EvaluationRun) -> PrivateReceiptV1:
    """Build the aau-harness 1.x private detail (``aau-byo-agent-private-detail/1.0``).

    Raises:
        ValueError: the run has more than one repeat.
    """
    if run.repeats != 1:
        raise ValueError("aau-byo-agent-private-detail/1.0 holds one repeat only")
    return PrivateReceiptV1(
        private_receipt_version=PRIVATE_V1, suite_id=run.suite.suite_id,
        results=tuple(private_detail_row(u, run.adapter_kind, legacy=True) for u in run.units),
        warning=PRIVATE_WARNING)


def private_receipt_v2(run: EvaluationRun) -> PrivateReceiptV2:
    """Build the private detail (``aau-byo-agent-private-detail/2.1``): inputs, expected answers,
    normalised responses, errors with their one-line reasons, command stderr tails, attempts and
    retry waits, one row per unit."""
    return PrivateReceiptV2(
        private_receipt_version=PRIVATE_V2, suite_id=run.suite.suite_id,
        results=tuple(private_detail_row(u, run.adapter_kind, legacy=False)  # type: ignore[misc]
                      for u in run.units),
        warning=PRIVATE_WARNING)


def build_private_v1(run: EvaluationRun) -> dict[str, Any]:
    """The document of ``private_receipt_v1(run)`` (same errors)."""
    return unstructure_document(private_receipt_v1(run))


def build_private_v2(run: EvaluationRun) -> dict[str, Any]:
    """The document of ``private_receipt_v2(run)``."""
    return unstructure_document(private_receipt_v2(run))

def metric_interval_models(rows: Sequence[dict[str, Any]],
                           metrics: dict[str, float]) -> MetricIntervals:
    """Return the 95 % interval of each metric (rules in the module docstring), as the model:
    ``aau_core``'s ``receipt_metric_intervals``, the one computation the receipt check
    (``check_receipt``) repeats to recompute them.

    Args:
        rows: the receipt's result rows (2.0 row documents).
        metrics: ``compute_metrics(rows)``.

    Returns:
        a ``MetricIntervals``: Wilson intervals for the rates (``tool_calls_match_rate`` and
        ``environment_success_rate`` only when ``metrics`` has them), a percentile bootstrap for ``mean_latency_s`` (seconds).
    """
    return MetricIntervals(**{name: Interval(**interval) for name, interval
                              in receipt_metric_intervals(rows, metrics).items()})


def metric_intervals(rows: Sequence[dict[str, Any]], metrics: dict[str, float]) -> dict[str, Any]:
    """Return the 95 % interval of each metric (rules in the module docstring).

    Returns:
        ``{metric: {"low", "high", "method", "n"[, "resamples", "seed"]}}`` for the six metrics,
        and ``tool_calls_match_rate`` when ``metrics`` has it.
    """
    return unstructure_document(metric_interval_models(rows, metrics))

def pass_hat_k_table(rows: Sequence[dict[str, Any]], repeats: int,
                     field: str = "exact") -> dict[str, float]:
    """Return ``{"1": pass^1, ..., str(repeats): pass^repeats}`` on ``field`` (``exact``, or
    ``environment_passed`` over the rows that carry it), rounded to 6."""
    return receipt_pass_hat_k(rows, repeats, field)


def failure_code_counts(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Return how many units carry each failure code."""
    return receipt_failure_code_counts(rows)


def receipt_rows(run: EvaluationRun) -> list[dict[str, Any]]:
    """The run's receipt 2.1 rows: each unit's row through ``_scoring.measured_row``."""
    return [measured_row(u.row, u.answer.error) for u in run.units]


def run_coverage(run: EvaluationRun) -> Coverage:
    """How many of the run's units measured the agent (``aau_core`` failure classes)."""
    return Coverage(**receipt_coverage([u.row for u in run.units]))


def fail_under_verdicts(run: EvaluationRun, bars: Sequence[FailUnder], *,
                        min_coverage: float = 1.0) -> tuple[FailUnderCheck, ...]:
    """The ``--fail-under`` verdicts of ``receipt_v2(run, bars, min_coverage=...)``, without
    building the rest of that receipt (its intervals import numpy; its suite digest
    canonicalises the whole suite): what an ``aau-1.0`` run needs to judge its bars."""
    rows = receipt_rows(run)
    metrics = compute_metrics(rows)
    rate = run_coverage(run).rate
    return tuple(bar.check(metrics, rate, min_coverage) for bar in bars)


def undetermined_bars(run: EvaluationRun, bars: Sequence[FailUnder], *,
                      min_coverage: float = 1.0) -> tuple[str, ...]:
    """The metrics of the ``--fail-under`` bars that fail only because units were not
    measured: each fails on the run's rates (where a unit not measured fails every check), but
    would hold had every unit not measured passed every check. aau cannot tell such a bar's
    verdict from the agent's answers: too little was measured to judge it.

    Args:
        run: the evaluation run.
        bars: the ``--fail-under`` bars.
        min_coverage: as ``receipt_v2``'s (the best case is judged at full coverage).

    Returns:
        the metrics of those bars, in bar order; ``()`` when every unit was measured.
    """
    from ._failure_codes import is_measured

    if not bars or all(is_measured(u.answer.error) for u in run.units):
        return ()
    rows = receipt_rows(run)
    metrics, rate = compute_metrics(rows), run_coverage(run).rate
    failing = [bar for bar in bars if not bar.check(metrics, rate, min_coverage).passed]
    if not failing:
        return ()
    best = [row if is_measured(u.answer.error)
            else {k: True if isinstance(v, bool) else v for k, v in row.items()}
            for u, row in zip(run.units, rows, strict=True)]
    best_metrics = compute_metrics(best)
    return tuple(bar.metric for bar in failing
                 if bar.check(best_metrics, 1.0, min_coverage).passed)


def receipt_v2(run: EvaluationRun, bars: Sequence[FailUnder] = (), *, retries: int = 0,
               unmeasured_limit: float = 1.0, min_coverage: float = 1.0) -> PublicReceiptV2:
    """Build the public receipt ``aau-byo-agent-receipt/2.1`` as a model.

    Args:
        run: the evaluation run.
        bars: ``--fail-under`` bars, recorded with their verdicts (a negative-check bar also
            with the coverage and ``min_coverage``).
        retries: the ``--retries`` setting, recorded (>= 0).
        unmeasured_limit: the ``--unmeasured-limit`` setting, recorded (in (0, 1]).
        min_coverage: the ``--min-coverage`` setting a negative-check bar needs (in [0, 1]).

    Raises:
        aau_core.InvalidDocumentError: the suite cannot be canonicalised (see ``Suite.suite_digest``).
    """
    rows: list[Any] = [MeasuredRowView(u.row, u.answer.error) for u in run.units]  # no copies
    metrics = compute_metrics(rows)
    coverage = run_coverage(run)
    has_environment = ENVIRONMENT_METRIC[0] in metrics
    attacks = tuple(sorted({r["attack"] for r in rows if "attack" in r}))
    return PublicReceiptV2(
        receipt_version=RECEIPT_V2,
        suite_id=run.suite.suite_id,
        suite_sha256=run.suite.suite_sha256,
        suite_digest=run.suite.suite_digest(),
        adapter_kind=run.adapter_kind,
        scenario_count=len(run.suite.cases),
        repeats=run.repeats,
        metrics=MetricsV2(**metrics),
        metric_ci95=metric_interval_models(rows, metrics),
        pass_hat_k=pass_hat_k_table(rows, run.repeats),
        failure_code_counts=failure_code_counts(rows),
        fail_under=tuple(bar.check(metrics, coverage.rate, min_coverage) for bar in bars),
        results=tuple(converter.structure(row, ResultRowV2) for row in rows),
        privacy=Privacy(),
        boundary=BOUNDARY,
        provenance=Provenance(harness_version=run.harness_version, python=run.python,
                              platform=run.platform,
                              adapter=converter.structure(dict(run.adapter), AdapterProvenance),
                              environments=tuple(
                                  EnvironmentProvenance(name=n, version=v)
                                  for n, v in run.environments) if has_environment else None,
                              attacks=attacks or None),
        started_at=run.started_at,
        finished_at=run.finished_at,
        timeout_s=run.timeout_s,
        concurrency=run.concurrency,
        coverage=coverage,
        retries=retries,
        unmeasured_limit=unmeasured_limit,
        environment_pass_hat_k=(pass_hat_k_table(rows, run.repeats, ENVIRONMENT_METRIC[1])
                                if has_environment else None),
        mcp_late_requests=(run.mcp_late_requests or 0) if has_environment else None,
    )


def build_receipt_v2(run: EvaluationRun, bars: Sequence[FailUnder] = (), **settings: Any
                     ) -> dict[str, Any]:
    """The document of ``receipt_v2(run, bars, **settings)`` (same arguments and errors)."""
    return unstructure_document(receipt_v2(run, bars, **settings))

def check_receipt(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """Check the rules a receipt's schema cannot express (call after schema validation).

    The one check is ``aau_core.check_receipt_consistency`` (its module docstring lists the
    rules: rows per scenario, duplicate rows, ``scenario_count``, metrics, pass^k,
    failure-code counts, intervals, ``fail_under`` verdicts, for 1.0 and 2.0).

    Returns:
        ``[(json_path, message), ...]``; empty when the receipt is consistent.
    """
    return [tuple(p.split(": ", 1)) for p in check_receipt_consistency(doc)]  # type: ignore[misc]
