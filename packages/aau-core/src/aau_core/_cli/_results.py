"""``aau results verify``: recompute an eval aggregate's means and intervals from its own runs.

An aggregate file (``EvalAggregate.as_dict()``, aau-harness 1.6's or ours) carries its per-run
``results`` and, above them, the ``metric_means`` and ``metric_ci95`` derived from them. A file
edited after the fact (a metric renamed, a run dropped, a number rounded up) no longer derives;
this command says which numbers drifted.

- 1.x files (no ``aggregate_version``; schema ``eval-aggregate-v1``) are recomputed as 1.6 did:
  every run counts (even one with ``detail.error``), a metric absent from a scenario leaves that
  scenario out of it, and the interval is 1.6's bootstrap (``aau-compat``, bit for bit).
- ``aau-eval-aggregate/2.0`` files are recomputed with the method, resamples and seed recorded in
  ``ci``, leaving out runs with ``detail.error``; ``metric_counts``, ``metric_stderr``,
  ``n_errors`` and ``pass_hat_k`` are checked as well.
- A lab result (``aau lab run``'s ``eval_<tag>.json``, kind ``lab-result``) is validated as
  one, then its ``aggregate`` (a 2.0 aggregate) is verified; drift paths start
  ``$.aggregate``. Any other known kind (a receipt, a suite) is named in the error, with the
  command that reads it.
- Every file's ``n_scenarios``, ``n_repeats``, ``total_cost_usd``,
  ``mean_cost_per_scenario_usd`` and ``p50_latency_s`` are recomputed from ``results`` too
  (``_totals``), allowing for the rounding of the per-run costs and latencies the file stores.

Means and interval ends are compared after rounding to 4 dp, as the files store them.
"""

from __future__ import annotations

import json
import math
import statistics
from typing import Any

import click

from .._errors import EXIT_BAR_NOT_MET, EXIT_OK, InputError
from .._run._runner import EvalAggregate, ScenarioResult, aggregate_results
from ._options import json_option, print_json

MAX_AGGREGATE_BYTES = 200_000_000
V1_KIND = "eval-aggregate-v1"
V2_KIND = "eval-aggregate-v2"
LAB_KIND = "lab-result"


@click.group("results", context_settings={"help_option_names": ["-h", "--help"]})
def results_group() -> None:
    """Check eval aggregate files (run_eval results, aau-harness 1.x or aau 2).

    \b
    Example:
      aau results verify results/eval_*.json
    """


def _load(name: str) -> tuple[str, dict[str, Any], str]:
    """Read, validate and return ``(kind, aggregate, root)``; raise InputError naming the file
    and path. A lab result (``aau lab run``'s ``eval_<tag>.json``) is validated as ``lab-result``
    and its ``aggregate`` returned, with ``root`` ``"$.aggregate"`` (else ``"$"``)."""
    from .._files._document_check import check_document
    from .._files._strict_json import read_json_file
    from .._reports._scenarios import describe_kind

    doc = read_json_file(name, max_bytes=MAX_AGGREGATE_BYTES)
    if not isinstance(doc, dict):
        raise InputError("not an eval aggregate: expected a JSON object", source=name, path="$")
    if "lab_result_version" in doc:
        check_document(LAB_KIND, doc, name)
        return V2_KIND, doc["aggregate"], "$.aggregate"
    kind = V2_KIND if "aggregate_version" in doc else V1_KIND
    try:
        check_document(kind, doc, name)
    except InputError:
        other = describe_kind(doc)  # a receipt, a suite...: say so rather than list violations
        if other is None:
            raise
        raise InputError(f"not an eval aggregate: {other}", source=name, path="$") from None
    return kind, doc, "$"


def _recompute(kind: str, doc: dict[str, Any]) -> tuple[str, EvalAggregate]:
    rows = doc["results"]
    if kind == V1_KIND:
        # 1.6 counted every run (detail is not read), and dropped scenarios lacking a metric
        results = [ScenarioResult(r["scenario_id"], r["repeat"], r["metrics"]) for r in rows]
        names = sorted({m for r in rows for m in r["metrics"]})
        return "aau-compat", aggregate_results(results, doc["n_repeats"], ci_method="aau-compat",
                                               optional_metrics=names)
    ci = doc["ci"]
    results = [ScenarioResult(r["scenario_id"], r["repeat"], r["metrics"], detail=r["detail"])
               for r in rows]
    optional = [m for m, c in doc["metric_counts"].items() if c < doc["n_scenarios"]]
    try:
        agg = aggregate_results(results, doc["n_repeats"], ci_method=ci["method"],
                                optional_metrics=optional, resamples=ci["resamples"],
                                seed=ci["seed"])
    except ValueError as exc:
        raise InputError(str(exc), path="$.ci" if "aau-compat" in str(exc) else "$.results"
                         ) from None
    return ci["method"], agg


def _rounded(stored: Any, exact: float, slack: float, dp: int) -> dict[str, Any]:
    """Compare a stored ``round(x, dp)`` with ``x`` recomputed from per-run values that the file
    itself stores rounded: ``x`` is then only known to within ``slack``, so any stored value
    that rounding some ``x`` in ``[exact - slack, exact + slack]`` gives is a match."""
    recomputed = round(exact, dp)
    low, high = round(exact - slack, dp), round(exact + slack, dp)
    tiny = 10.0 ** -(dp + 6)
    ok = stored == recomputed or (
        isinstance(stored, (int, float)) and not isinstance(stored, bool)
        and low - tiny <= stored <= high + tiny)
    return {"stored": stored, "recomputed": recomputed, "match": ok}


def _totals(doc: dict[str, Any]) -> dict[str, Any]:
    """``n_scenarios``, ``n_repeats``, costs and p50 latency, recomputed from ``results``.

    ``n_scenarios`` is the number of distinct scenario ids; ``n_repeats`` (the repeats
    requested; 1.6's runner numbers them ``0 .. repeats - 1``) is the largest ``repeat`` + 1,
    not checked when there are no results. Costs and latency are 1.6's: total (4 dp) and mean
    (6 dp) of every run's ``cost_usd``, median ``latency_s`` (3 dp); per-run costs are stored at
    6 dp and latencies at 3 dp, so the recomputation allows for that rounding.
    """
    rows = doc["results"]
    checks: dict[str, Any] = {}

    def exact(field: str, value: Any) -> None:
        checks[field] = {"stored": doc[field], "recomputed": value, "match": doc[field] == value}

    exact("n_scenarios", len({r["scenario_id"] for r in rows}))
    exact("n_repeats", max(r["repeat"] for r in rows) + 1 if rows else doc["n_repeats"])
    costs = [r["cost_usd"] for r in rows]
    n = len(costs)
    checks["total_cost_usd"] = _rounded(doc["total_cost_usd"], math.fsum(costs), n * 5e-7, 4)
    checks["mean_cost_per_scenario_usd"] = _rounded(
        doc["mean_cost_per_scenario_usd"], math.fsum(costs) / n if n else 0.0,
        5e-7 if n else 0.0, 6)
    latencies = sorted(r["latency_s"] for r in rows)
    checks["p50_latency_s"] = _rounded(
        doc["p50_latency_s"], statistics.median(latencies) if latencies else 0.0,
        5e-4 if latencies else 0.0, 3)
    return checks


def _verdict(name: str, kind: str, doc: dict[str, Any]) -> dict[str, Any]:
    try:
        method, agg = _recompute(kind, doc)
    except InputError as exc:
        raise InputError(exc.message, source=name, path=exc.path) from None
    fresh = agg.as_dict() if kind == V2_KIND else agg.as_dict_v1()
    metrics: dict[str, Any] = {}
    for m in sorted(set(doc["metric_means"]) | set(doc["metric_ci95"]) | set(fresh["metric_means"])):
        entry = {}
        for field in ("metric_means", "metric_ci95"):
            stored = doc[field].get(m)
            recomputed = fresh[field].get(m)
            entry["mean" if field == "metric_means" else "ci95"] = {
                "stored": stored, "recomputed": recomputed, "match": stored == recomputed}
        entry["match"] = entry["mean"]["match"] and entry["ci95"]["match"]
        metrics[m] = entry
    checks: dict[str, Any] = _totals(doc)
    if kind == V2_KIND:
        for field in ("metric_counts", "metric_stderr", "n_errors", "pass_hat_k"):
            checks[field] = {"stored": doc[field], "recomputed": fresh[field],
                             "match": doc[field] == fresh[field]}
    ok = all(e["match"] for e in metrics.values()) and all(c["match"] for c in checks.values())
    return {"file": name, "kind": kind, "ci_method": method, "n_results": len(doc["results"]),
            "status": "match" if ok else "drift", "metrics": metrics, "checks": checks}


def _json_literal(value: Any) -> str:
    return json.dumps(value)


@results_group.command("verify")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@json_option("Print one JSON verdict per file on stdout.")
def verify_command(files: tuple[str, ...], as_json: bool) -> int:
    """Recompute each aggregate FILE's metric_means and metric_ci95 from its results.

    FILE is an eval aggregate (run_eval) or a lab result (aau lab run's eval_<tag>.json,
    whose aggregate is verified).

    1.x files (no aggregate_version) are recomputed as aau-harness 1.6 does, with its
    bootstrap bit for bit; aau-eval-aggregate/2.0 files with the interval method, resamples
    and seed they record (and their metric_counts, metric_stderr, n_errors, pass_hat_k).
    Every file's n_scenarios, n_repeats, total_cost_usd, mean_cost_per_scenario_usd and
    p50_latency_s are recomputed from its results as well.
    One line per file on stderr, and one per drifted number.

    Exit 0 when every number matches, 1 when any drifted, 2 when a file is missing, not
    JSON or not an eval aggregate (one line naming the file and the JSON path).

    \b
    Examples:
      aau results verify results/eval_mock.json
      aau results verify results/*.json --json
      aau results verify lab-out/eval_mock.json
    """
    from aau_schemas import json_path

    loaded = [(name, *_load(name)) for name in files]  # every input is sound before any output
    verdicts = [{**_verdict(name, kind, doc), "root": root} for name, kind, doc, root in loaded]
    for v in verdicts:
        root = v.pop("root")
        n = len(v["metrics"])
        if v["status"] == "match":
            click.echo(f"{v['file']}: match: {n} metric(s) recomputed from {v['n_results']} "
                       f"run(s) ({v['ci_method']})", err=True)
            continue
        click.echo(f"{v['file']}: drift ({v['ci_method']})", err=True)
        for m, e in v["metrics"].items():
            for part, field in (("mean", "metric_means"), ("ci95", "metric_ci95")):
                if not e[part]["match"]:
                    click.echo(f"{v['file']}: {root}{json_path([field, m])[1:]}: stored "
                               f"{_json_literal(e[part]['stored'])}, recomputed "
                               f"{_json_literal(e[part]['recomputed'])}", err=True)
        for field, c in v["checks"].items():
            if not c["match"]:
                click.echo(f"{v['file']}: {root}.{field}: stored {_json_literal(c['stored'])}, "
                           f"recomputed {_json_literal(c['recomputed'])}", err=True)
    if as_json:
        print_json({"files": verdicts})
    return EXIT_BAR_NOT_MET if any(v["status"] == "drift" for v in verdicts) else EXIT_OK
