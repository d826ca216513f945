"""The runner: repeat every scenario, score each run, aggregate means and 95 % intervals.

``run_eval(scenarios, run_one, repeats=3)`` is aau-harness 1.6's ``run_eval`` on aau's execution
layer (``run_units``: bounded concurrency, results in order, Ctrl-C keeps finished units); the
aggregation is ``_aggregation.aggregate_results`` (its docstring has the rules: 1.6's means,
errored runs in every denominator, Wilson intervals for 0/1 metrics, the answered-only view).
``ScenarioResult``, ``EvalAggregate`` and ``MetricError`` live here, with the checkpoint glue.

Where 1.6 was silent, aau is strict (decisions recorded here and in docs/runner.md):

- A unit whose ``run_one`` raises is **recorded, not fatal**: its result has no metrics, cost 0,
  latency 0 and ``detail["error"] = "<ExceptionType>: <message>"`` (the form the provider
  guards read), and is counted in ``n_errors``; the run's other units still count. Under the
  default ``ci_method="wilson"`` it counts as a failure of every 0/1 metric (never a pass) and
  is missing from the continuous ones. A ``run_one`` returning something other than a
  ``ScenarioResult`` is such an error too.
- **A non-measurement is not returned**: when ``provider_error_rate(results) >=
  unmeasured_limit`` (default 1.0: every run failed at the transport layer) ``run_eval`` raises
  ``ProviderUnavailable`` (exit 3) carrying the results, so no caller can write the zeros as a
  score; a checkpoint keeps every unit and its reason.
- A metric missing from some successful units raises ``MetricError`` naming the metric and the
  scenarios (1.6 silently dropped those scenarios), unless the metric is listed in
  ``optional_metrics``: then scenarios without it are left out of that metric only, and
  ``metric_counts`` says over how many scenarios each metric was computed.
- A NaN or infinite metric value raises ``MetricError`` naming scenario, repeat and metric (1.6
  wrote a bare ``NaN`` into the JSON).
- A bool metric value counts as 1.0 / 0.0 (1.x accepted it) and is stored so in ``results``;
  strings, ``None`` and other non-numbers raise ``MetricError``.
- ``run_eval`` raises a ``MetricError`` only after every unit finished; the error carries them
  all on ``.results`` so the run is not lost.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from aau_schemas import sha256_hex

from .._errors import AauError, Interrupted
from ._execution import run_units
from ._guards import RUN_EVAL_UNMEASURED_LIMIT

AGGREGATE_VERSION = "aau-eval-aggregate/2.1"
RUN_EVAL_CI_METHODS = ("wilson", "aau-compat")
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0


class MetricError(AauError, ValueError):
    """A metric cannot be aggregated: missing from some units, or not a finite number.

    Attributes:
        metric: the metric name.
        units: the offending ``(scenario_id, repeat)`` pairs (at most the first 20).
        results: from ``run_eval``, every finished ``ScenarioResult`` (repeat-major), so the run
            is not lost: fix or drop the offending units and call ``aggregate_results``;
            empty when raised by ``aggregate_results`` itself (the caller has the results).
    """

    def __init__(self, message: str, *, metric: str, units: Sequence[tuple[str, int]],
                 results: Sequence[ScenarioResult] = ()):
        self.metric = metric
        self.units = list(units)[:20]
        self.results = list(results)
        super().__init__(message)


@attrs.frozen
class ScenarioResult:
    """One run (scenario x repeat), as returned by ``run_one``.

    Attributes:
        scenario_id: the scenario's id (results with the same id are one scenario).
        repeat: the repeat index, ``0 .. repeats - 1``.
        metrics: metric name -> value, usually in [0, 1]; finite numbers (a bool counts as
            1.0 / 0.0 and is stored so in the aggregate).
        cost_usd: what the run cost, in US dollars.
        latency_s: wall time in seconds; ``0.0`` means "not measured" and the runner fills in
            the time ``run_one`` took (as 1.6 does).
        n_api_calls: model API calls made.
        detail: free-form JSON-serialisable detail (trace, prediction, ``"error"``, usage).
    """

    scenario_id: str
    repeat: int
    metrics: dict[str, float]
    cost_usd: float = 0.0
    latency_s: float = 0.0
    n_api_calls: int = 0
    detail: dict[str, Any] = attrs.field(factory=dict)

    @property
    def error(self) -> str | None:
        """The recorded error (``detail["error"]``) if the run failed, else ``None``."""
        value = self.detail.get("error")
        return str(value) if value else None


@attrs.frozen
class AnsweredView:
    """The answered-only view of an aggregate: errored runs left out of every metric.

    Labelled and kept apart from the headline numbers (which count every run); under
    ``ci_method`` ``"bootstrap"`` or ``"aau-compat"`` it equals them.

    Attributes:
        runs: the answered runs (without ``detail["error"]``).
        metric_means: metric -> mean of per-scenario means over the answered runs.
        metric_ci95: metric -> ``(low, high)``, each by the aggregate's ``metric_ci_method``.
        metric_counts: metric -> scenarios with an answered run carrying it.
    """

    runs: int
    metric_means: dict[str, float]
    metric_ci95: dict[str, tuple[float, float]]
    metric_counts: dict[str, int]


@attrs.frozen
class EvalAggregate:
    """Aggregated results of ``run_eval`` (1.6's ``EvalAggregate`` plus what aau records).

    Attributes:
        n_scenarios: distinct scenario ids among the results.
        n_repeats: repeats requested.
        metric_means: metric -> mean of per-scenario means (unrounded), keys sorted; under
            ``"wilson"`` over every run (an errored run a failure of each 0/1 metric).
        metric_ci95: metric -> ``(low, high)`` 95 % interval (unrounded), made as
            ``metric_ci_method`` says.
        mean_cost_per_scenario_usd: mean ``cost_usd`` over all runs (1.6's definition).
        total_cost_usd: sum of ``cost_usd`` over all runs.
        p50_latency_s: median latency over all runs, seconds.
        results: every run, repeat-major (repeat 0 of every scenario, then repeat 1, ...).
        ci_method: the rule set (``_aggregation``): ``"wilson"`` (errored runs counted; Wilson
            for 0/1 metrics, numpy percentile bootstrap for the rest), ``"bootstrap"``
            (aau-eval-aggregate/2.0's) or ``"aau-compat"`` (aau-harness 1.6's).
        resamples: bootstrap resamples (2,000).
        seed: bootstrap seed (0).
        metric_counts: metric -> number of scenarios the metric was computed over.
        metric_stderr: metric -> standard error of the mean over all counted runs clustered by
            scenario (``clustered_stderr``), ``None`` with fewer than two scenarios.
        n_errors: runs whose ``run_one`` raised (recorded in ``detail["error"]``).
        metric_ci_method: metric -> how its interval was made: ``"wilson"``, ``"bootstrap"``
            or ``"aau-compat"``.
        metric_runs: metric -> runs it was computed over (errored runs included for a 0/1
            metric under ``"wilson"``; a continuous metric's n leaves them out).
        lower_is_better: 0/1 metrics where 1 is the bad outcome (an errored run counts as 1).
        answered_only: the answered-only view, or ``None`` for an aggregate built by hand.
    """

    n_scenarios: int
    n_repeats: int
    metric_means: dict[str, float]
    metric_ci95: dict[str, tuple[float, float]]
    mean_cost_per_scenario_usd: float
    total_cost_usd: float
    p50_latency_s: float
    results: list[ScenarioResult]
    ci_method: str = "wilson"
    resamples: int = BOOTSTRAP_RESAMPLES
    seed: int = BOOTSTRAP_SEED
    metric_counts: dict[str, int] = attrs.field(factory=dict)
    metric_stderr: dict[str, float | None] = attrs.field(factory=dict)
    n_errors: int = 0
    metric_ci_method: dict[str, str] = attrs.field(factory=dict)
    metric_runs: dict[str, int] = attrs.field(factory=dict)
    lower_is_better: tuple[str, ...] = ()
    answered_only: AnsweredView | None = None

    @property
    def coverage(self) -> float | None:
        """Answered runs / runs, in [0, 1]; ``None`` with no runs."""
        n = len(self.results)
        return (n - self.n_errors) / n if n else None

    def interval_method(self, metric: str) -> str:
        """How ``metric_ci95[metric]`` was made (``metric_ci_method``, else ``ci_method``)."""
        return self.metric_ci_method.get(metric, self.ci_method)

    def as_dict(self, provenance: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The aggregate as an ``aau-eval-aggregate/2.1`` document (schema ``eval-aggregate-v2``):
        ``aggregate_document(self, provenance)`` unstructured by the document converter (kept:
        aau-harness 1.6's public method).

        Every key of 1.6's ``as_dict()`` keeps its name and rounding (means and interval
        ends 4 dp, mean cost 6 dp, total cost 4 dp, p50 latency 3 dp; per run cost 6 dp and
        latency 3 dp; metrics unrounded; a Wilson interval is never rounded to zero width),
        plus ``aggregate_version``, ``ci`` (method, resamples, seed, level), ``metric_counts``,
        ``metric_stderr`` (4 dp), ``n_errors``, ``pass_hat_k`` (when every metric value is 0
        or 1 and repeats are equal), and 2.1's ``metric_ci_method``, ``metric_runs``,
        ``lower_is_better``, ``coverage`` and ``answered_only``.

        Args:
            provenance: extra provenance fields (e.g. model facts) merged over the defaults
                ``generated_at``, ``harness_version``, ``python``, ``platform``.
        """
        from .._files._converter import unstructure_document
        from ._aggregate_document import aggregate_document

        return unstructure_document(aggregate_document(self, provenance))  # type: ignore[no-any-return]

    def as_dict_v1(self, provenance: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The aggregate exactly in aau-harness 1.6's ``as_dict()`` shape (``eval-aggregate-v1``):
        ``aggregate_document_v1(self, provenance)`` unstructured by the document converter.

        Args:
            provenance: as ``as_dict``.
        """
        from .._files._converter import unstructure_document
        from ._aggregate_document import aggregate_document_v1

        return unstructure_document(aggregate_document_v1(self, provenance))  # type: ignore[no-any-return]


def default_provenance(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Provenance stamped on every aggregate: ``aau_core.snapshot()`` of the last backend made
    by ``make_backend`` (``generated_at`` UTC, ``harness_version``, ``python``, ``platform``,
    requested and served model, pinning, and a reproducibility note when one applies);
    ``extra`` is merged over it."""
    from ._provenance import snapshot

    out: dict[str, Any] = dict(snapshot())
    if extra:
        out.update(extra)
    return out


def _scenario_id(scenario: Any, index: int) -> str:
    """Best-effort id of a scenario object, for a unit that raised before returning one: the
    string itself, a ``scenario_id``/``id`` key or attribute, else ``"#<index>"``."""
    if isinstance(scenario, str):
        return scenario
    if isinstance(scenario, Mapping):
        for key in ("scenario_id", "id"):
            if isinstance(scenario.get(key), str):
                return str(scenario[key])
    for attr in ("scenario_id", "id"):
        value = getattr(scenario, attr, None)
        if isinstance(value, str):
            return value
    return f"#{index}"


def run_eval(
    scenarios: Sequence[Any],
    run_one: Callable[[Any, int], ScenarioResult],
    repeats: int = 3,
    progress: Callable[[str], None] | None = None,
    concurrency: int = 1,
    executor: Callable[..., list[Any]] | None = None,
    ci_method: str = "wilson",
    optional_metrics: Sequence[str] = (),
    checkpoint: str | os.PathLike[str] | None = None,
    resume: bool = False,
    lower_is_better: Sequence[str] = (),
    unmeasured_limit: float = RUN_EVAL_UNMEASURED_LIMIT,
) -> EvalAggregate:
    """Run ``run_one(scenario, repeat)`` for every repeat x scenario and aggregate.

    ``run_one`` owns the agent call and the scoring; the runner owns repetition, isolation,
    aggregation and uncertainty.

    Args:
        scenarios: the scenarios (any objects; passed to ``run_one`` as they are).
        run_one: returns a ``ScenarioResult`` for one run. Called from worker threads when
            ``concurrency > 1``.
        repeats: runs per scenario (>= 1).
        progress: called after each run with a one-line summary, in 1.6's words
            (``"repeat 1/3 scenario s-1: {...} $0.0012"``); for a run that raised, the error
            text replaces the metrics (``"... scenario s-1: error: TimeoutError: ... $0.0000"``).
        concurrency: most runs at once (>= 1).
        executor: a callable with ``run_units``' signature (default ``run_units``), e.g. a
            distributed executor.
        ci_method: ``"wilson"`` (default: an errored run counts as a failure of every 0/1
            metric; Wilson score intervals for 0/1 metrics, a numpy percentile bootstrap over
            scenarios, 2,000 resamples, seed 0, for the others) or ``"aau-compat"`` (aau-harness
            1.6's arithmetic bit for bit: errored runs left out, 1.6's bootstrap for every
            metric). ``"bootstrap"`` (aau-eval-aggregate/2.0's) is ``aggregate_results``' only.
        optional_metrics: metrics a run may leave out (see ``aggregate_results``).
        checkpoint: a JSONL file to record each finished unit in (``aau_core.open_checkpoint``;
            schema kind ``checkpoint``), bound to the scenarios (the SHA-256 of their canonical
            JSON, or of their ids when they are not JSON), ``run_one``'s qualified name and
            ``repeats``/``ci_method``/``optional_metrics`` (and ``lower_is_better`` when
            given). Each ``ScenarioResult`` must be JSON-serialisable (its ``detail`` plain
            JSON); one that is not becomes that unit's error. Without ``resume`` the file must
            not exist yet.
        resume: reopen ``checkpoint`` and run only the units it does not hold; the aggregate
            is built from the recorded and the new results alike. A torn last line (its unit
            runs again) and a unit recorded twice identically are each reported in one
            ``aau: warning:`` line on stderr; twice with different results raises InputError.
        lower_is_better: 0/1 metrics where 1 is the bad outcome (``report_overclaims``); an
            errored run counts as 1 for them (see ``aggregate_results``).
        unmeasured_limit: the fraction in (0, 1] of runs failed at the transport layer
            (``provider_error_rate``) at which the run is a non-measurement (default 1.0:
            only when every run did).

    Returns:
        the ``EvalAggregate``; ``results`` are repeat-major, as in 1.6.

    Raises:
        ValueError: ``repeats < 1``, ``concurrency < 1``, ``ci_method`` other than
            ``"wilson"``/``"aau-compat"``, or ``unmeasured_limit`` outside (0, 1].
        ProviderUnavailable: a ``NotMeasuredError`` (exit 3): ``provider_error_rate(results)
            >= unmeasured_limit``; raised after every unit finished (and was checkpointed),
            with every ``ScenarioResult`` on its ``.results``.
        MetricError: see ``aggregate_results``; its ``.results`` holds every finished
            ``ScenarioResult``, so the run is not lost.
        Interrupted: Ctrl-C or SIGTERM; ``.finished`` maps unit index -> ``ScenarioResult``.
        aau_core.InputError / OutputError: the checkpoint cannot be resumed (another binding,
            a corrupt line) or, without ``resume``, already exists.
    """
    if resume and checkpoint is None:
        raise ValueError("resume=True needs checkpoint=PATH")
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    if ci_method not in RUN_EVAL_CI_METHODS:
        hint = ("; bootstrap was aau-eval-aggregate/2.0's method (errored runs left out, "
                "bootstrap intervals for rates): use wilson" if ci_method == "bootstrap" else "")
        raise ValueError(f"ci_method must be one of {', '.join(RUN_EVAL_CI_METHODS)}; got "
                         f"{ci_method!r}{hint}")
    if isinstance(unmeasured_limit, bool) or not 0 < unmeasured_limit <= 1:
        raise ValueError(f"unmeasured_limit must be in (0, 1], got {unmeasured_limit!r}")
    units = [(rep, index, sc) for rep in range(repeats) for index, sc in enumerate(scenarios)]

    def one(unit: tuple[int, int, Any]) -> ScenarioResult:
        rep, _, sc = unit
        t0 = time.monotonic()
        res = run_one(sc, rep)
        if not isinstance(res, ScenarioResult):
            raise TypeError(f"run_one returned {type(res).__name__}, not ScenarioResult")
        if res.latency_s == 0.0:
            res = attrs.evolve(res, latency_s=time.monotonic() - t0)
        return res

    def failed(unit: tuple[int, int, Any], exc: BaseException) -> ScenarioResult:
        rep, index, sc = unit
        return ScenarioResult(scenario_id=_scenario_id(sc, index), repeat=rep, metrics={},
                              detail={"error": f"{type(exc).__name__}: {exc}"})

    def done(index: int, res: ScenarioResult) -> None:
        if progress is not None:
            shown = f"error: {res.error}" if res.error else f"{res.metrics}"
            progress(f"repeat {res.repeat + 1}/{repeats} scenario {res.scenario_id}: "
                     f"{shown} ${res.cost_usd:.4f}")

    execute = executor or run_units
    if checkpoint is None:
        results = execute(units, one, on_error=failed, concurrency=concurrency, on_done=done)
    else:
        config: dict[str, Any] = {"repeats": repeats, "ci_method": ci_method,
                                  "optional_metrics": sorted(optional_metrics)}
        if lower_is_better:  # only when given, so earlier checkpoints keep their binding
            config["lower_is_better"] = sorted(lower_is_better)
        results = _run_checkpointed(execute, units, one, failed, done, concurrency, scenarios,
                                    run_one, config, checkpoint, resume)
    from ._aggregation import aggregate_results
    from ._guards import ProviderUnavailable, transport_failures

    bad, n = transport_failures(results)
    if n and bad / n >= unmeasured_limit:  # provider_error_rate(results) >= the limit
        raise ProviderUnavailable(bad / n, unmeasured_limit, results=results, not_measured=bad,
                                  units=n)
    try:
        return aggregate_results(results, repeats, ci_method=ci_method,
                                 optional_metrics=optional_metrics,
                                 lower_is_better=lower_is_better)
    except MetricError as exc:  # keep the run: the finished units travel with the error
        raise MetricError(f"{exc}; the {len(results)} finished results are on this error's "
                          ".results (fix them and call aggregate_results)", metric=exc.metric,
                          units=exc.units, results=results) from None


def result_to_json(res: ScenarioResult) -> dict[str, Any]:
    """A ``ScenarioResult`` as a checkpoint unit result (schema ``checkpoint``, ``run_eval_unit``),
    by the document converter: unrounded, bool metrics as 1.0 / 0.0.

    Raises:
        TypeError / ValueError: ``detail`` or a value is not plain, finite JSON.
    """
    from .._files._converter import unstructure_document
    from ._checkpoint import checkpoint_json

    if any(isinstance(v, bool) for v in res.metrics.values()):
        res = attrs.evolve(res, metrics={m: float(v) if isinstance(v, bool) else v
                                         for m, v in res.metrics.items()})
    doc: dict[str, Any] = unstructure_document(res)
    checkpoint_json(doc)  # fail here, in the unit, not when recording it
    return doc


def result_from_json(doc: Mapping[str, Any]) -> ScenarioResult:
    """The ``ScenarioResult`` a checkpoint unit result records (inverse of ``result_to_json``;
    ``doc`` was checked against the ``checkpoint`` schema when its line was read), by the
    document converter."""
    from .._files._converter import document_converter

    return document_converter().structure(doc, ScenarioResult)  # type: ignore[no-any-return]


def _scenarios_digest(scenarios: Sequence[Any]) -> str:
    from ._checkpoint import checkpoint_json

    try:
        text = checkpoint_json(list(scenarios))
    except (TypeError, ValueError):
        text = checkpoint_json([_scenario_id(sc, i) for i, sc in enumerate(scenarios)])
    return "sha256:" + sha256_hex(text.encode("utf-8"))


def _run_checkpointed(execute: Callable[..., list[Any]], units: list[Any], one: Callable[..., Any],
                      failed: Callable[..., Any], done: Callable[[int, Any], None],
                      concurrency: int, scenarios: Sequence[Any], run_one: Callable[..., Any],
                      config: dict[str, Any], path: str | os.PathLike[str],
                      resume: bool) -> list[ScenarioResult]:
    from ._checkpoint import open_checkpoint
    from ._provenance import utc_timestamp

    name = f"{getattr(run_one, '__module__', '?')}:{getattr(run_one, '__qualname__', '?')}"
    binding = {"suite_digest": _scenarios_digest(scenarios), "adapter": {"run_one": name},
               "config": config}
    with open_checkpoint(path, producer="run_eval", units=len(units), binding=binding,
                         created_at=utc_timestamp(), resume=resume) as ckpt:
        ckpt.print_notes()  # a torn last line, duplicates collapsed: one stderr line each
        recorded = {i: result_from_json(doc) for i, doc in ckpt.finished.items()}
        todo = [i for i in range(len(units)) if i not in recorded]

        def one_json(i: int) -> ScenarioResult:
            res = one(units[i])
            result_to_json(res)
            return res

        def failed_json(i: int, exc: BaseException) -> ScenarioResult:
            return failed(units[i], exc)

        def record(k: int, res: ScenarioResult) -> None:
            ckpt.append(todo[k], result_to_json(res))
            done(todo[k], res)

        try:
            new = execute(todo, one_json, on_error=failed_json, concurrency=concurrency,
                          on_done=record)
        except Interrupted as exc:
            finished = {todo[k]: r for k, r in (exc.finished or {}).items()}
            raise Interrupted(f"{exc}; finished units are kept in {path} (resume=True)",
                              finished={**recorded, **finished}) from None
        recorded.update(zip(todo, new, strict=True))
    return [recorded[i] for i in range(len(units))]
