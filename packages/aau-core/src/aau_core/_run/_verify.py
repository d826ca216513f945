"""Verifying eval aggregate files: recompute their means and intervals from their own runs.

An aggregate file (``EvalAggregate.as_dict()``, aau-harness 1.6's or ours) carries its per-run
``results`` and, above them, the ``metric_means`` and ``metric_ci95`` derived from them. A file
edited after the fact (a metric renamed, a run dropped, a number rounded up) no longer derives;
``verify_result_files`` says which numbers drifted (``aau results verify`` prints it).

- 1.x files (no ``aggregate_version``; schema ``eval-aggregate-v1``) are recomputed as 1.6 did:
  every run counts (even one with ``detail.error``), a metric absent from a scenario leaves that
  scenario out of it, and the interval is 1.6's bootstrap (``aau-compat``, bit for bit).
- ``aau-eval-aggregate/2.x`` files are recomputed with the rule set, resamples and seed recorded
  in ``ci`` (``_aggregation``: ``wilson``, 2.1's default, counts errored runs as failures of 0/1
  metrics, with ``lower_is_better`` as recorded; ``bootstrap``, 2.0's, and ``aau-compat`` leave
  them out); ``metric_counts``, ``metric_stderr``, ``n_errors`` and ``pass_hat_k`` are checked as
  well, and in a 2.1 file ``metric_ci_method``, ``metric_runs``, ``lower_is_better``,
  ``coverage`` and ``answered_only``.
- A lab result (``aau lab run``'s ``eval_<tag>.json``, kind ``lab-result``) is validated as
  one, then its ``aggregate`` (a 2.x aggregate) is verified; drift paths start
  ``$.aggregate``. Any other known kind (a receipt, a suite) is named in the error, with the
  command that reads it.
- Every file's ``n_scenarios``, ``n_repeats``, ``total_cost_usd``,
  ``mean_cost_per_scenario_usd`` and ``p50_latency_s`` are recomputed from ``results`` too
  (``_totals``), allowing for the rounding of the per-run costs and latencies the file stores.
- A statistic its writers did not all compute alike (``p50_latency_s``: the median, or older
  harnesses' upper median) is read by the rules the file's writer may have used
  (``_writer_rules``); the verdict names the rule that matched.

Means and interval ends are compared after rounding to 4 dp, as the files store them.
"""

from __future__ import annotations

import math
from typing import Any

from .._errors import InputError
from ._aggregation import aggregate_results
from ._runner import EvalAggregate, ScenarioResult
from ._writer_rules import WRITER_RULES, read_writer_version

MAX_AGGREGATE_BYTES = 200_000_000
V1_KIND = "eval-aggregate-v1"
V2_KIND = "eval-aggregate-v2"
LAB_KIND = "lab-result"
V2_CHECKED = ("metric_counts", "metric_stderr", "n_errors", "pass_hat_k")
V21_CHECKED = ("metric_ci_method", "metric_runs", "lower_is_better", "coverage", "answered_only")


def verify_result_files(files: list[str] | tuple[str, ...]) -> list[dict[str, Any]]:
    """Verify every eval aggregate or lab result file in ``files``.

    One unreadable file never stops the rest: it gets a verdict of its own, ``"unreadable"``,
    and every other file is still verified.

    Args:
        files: paths of eval aggregates (``run_eval``'s, aau-harness 1.x's, ``aau-eval-aggregate/2.x``)
            or lab results (``aau lab run``'s ``eval_<tag>.json``).

    Returns:
        one verdict per file, in order. A file that was read: ``{"file", "kind", "ci_method",
        "n_results", "status": "match"|"drift", "harness_version", "metrics": {metric:
        {"mean": {...}, "ci95": {...}}}, "checks": {field: {"stored", "recomputed", "match"}},
        "older_rules": {field: label}, "writer_note", "root": "$" | "$.aggregate"}``
        (``root`` is the JSON path of the aggregate inside the file; ``harness_version`` is
        ``provenance.harness_version`` or ``None``; ``writer_note`` is ``None`` or how an
        unusual ``harness_version`` was read, ``_writer_rules.read_writer_version``). A check of a
        statistic with several writer rules (``_writer_rules.WRITER_RULES``) also holds
        ``"rule"`` (the name of the rule that matched, ``None`` on drift) and ``"rules"``
        (``{name: {"recomputed", "match", "allowed"}}``, ``allowed`` saying whether this file's
        writer may have used it); ``older_rules`` maps each such field matched by a rule other
        than the current one to its label, e.g. ``"upper-median (aau-harness < 1.x rule)"``.
        A file that is missing, not JSON, or not an eval aggregate or lab result: ``{"file",
        "status": "unreadable", "path", "message", "lines"}`` (``path`` the JSON path of the
        fault, ``lines`` the ``FILE: $.path: message`` lines to print, one per violation).
    """
    verdicts = []
    for name in files:
        try:
            kind, doc, root = _load(name)
            verdicts.append({**_verdict(name, kind, doc), "root": root})
        except InputError as exc:
            verdicts.append(unreadable_verdict(name, exc))
    return verdicts


def unreadable_verdict(name: str, exc: InputError) -> dict[str, Any]:
    """The verdict of a file that could not be verified: ``{"file", "status": "unreadable",
    "path", "message", "lines"}``, ``lines`` being ``str(exc)``'s lines, each naming the file."""
    lines = str(exc).splitlines() or [f"{name}: {exc.message}"]
    if exc.source is None:
        lines = [f"{name}: {line}" for line in lines]
    return {"file": name, "status": "unreadable", "path": exc.path, "message": exc.message,
            "lines": lines}


def _load(name: str) -> tuple[str, dict[str, Any], str]:
    """Read, validate and return ``(kind, aggregate, root)``; raise InputError naming the file
    and path. A lab result (``aau lab run``'s ``eval_<tag>.json``) is validated as ``lab-result``
    and its ``aggregate`` returned, with ``root`` ``"$.aggregate"`` (else ``"$"``)."""
    from .._files._document_check import check_document, describe_kind
    from .._files._strict_json import read_json_file

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
    # a metric some answered run lacks was optional (run_eval refuses it otherwise)
    answered = [r for r in results if not r.detail.get("error")]
    names = {m for r in answered for m in r.metrics}
    optional = sorted(m for m in names if any(m not in r.metrics for r in answered))
    try:
        agg = aggregate_results(results, doc["n_repeats"], ci_method=ci["method"],
                                optional_metrics=optional,
                                lower_is_better=doc.get("lower_is_better", ()),
                                resamples=ci["resamples"], seed=ci["seed"])
    except ValueError as exc:
        text = str(exc)
        path = ("$.ci" if "aau-compat" in text else
                "$.lower_is_better" if "lower_is_better" in text else "$.results")
        raise InputError(text, path=path) from None
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


def _by_writer_rules(field: str, stored: Any, values: list[float], major: int | None,
                     dp: int) -> dict[str, Any]:
    """Compare ``stored`` with ``field`` recomputed from ``values`` by each of its writer
    rules; it matches when a rule this file's writer (major version ``major``) may have used
    gives it. The first such rule in ``WRITER_RULES`` order is named."""
    rules = WRITER_RULES[field]
    tried = {}
    for rule in rules:
        exact, slack = rule.compute(values)
        check = _rounded(stored, exact, slack, dp)
        tried[rule.name] = {"recomputed": check["recomputed"], "match": check["match"],
                            "allowed": rule.allowed_for(major)}
    matched = next((r.name for r in rules if tried[r.name]["match"] and tried[r.name]["allowed"]),
                   None)
    shown = matched or next(r.name for r in rules if tried[r.name]["allowed"])
    return {"stored": stored, "recomputed": tried[shown]["recomputed"],
            "match": matched is not None, "rule": matched, "rules": tried}


def _totals(doc: dict[str, Any], major: int | None) -> dict[str, Any]:
    """``n_scenarios``, ``n_repeats``, costs and p50 latency, recomputed from ``results``.

    ``n_scenarios`` is the number of distinct scenario ids; ``n_repeats`` (the repeats
    requested; 1.6's runner numbers them ``0 .. repeats - 1``) is the largest ``repeat`` + 1,
    not checked when there are no results. Costs are 1.6's: total (4 dp) and mean (6 dp) of
    every run's ``cost_usd``; per-run costs are stored at 6 dp, so the recomputation allows
    for that rounding. ``p50_latency_s`` (3 dp) is checked by the writer rules a file whose
    writer has major version ``major`` may have used (``_by_writer_rules``): 1.6's median
    (per-run latencies are stored at 3 dp, so it is known to within 5e-4 s) or the upper median.
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
    checks["p50_latency_s"] = _by_writer_rules(
        "p50_latency_s", doc["p50_latency_s"], [r["latency_s"] for r in rows], major, 3)
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
    major, writer_note = read_writer_version(doc, aau_format=kind == V2_KIND)
    checks: dict[str, Any] = _totals(doc, major)
    if kind == V2_KIND:
        fields = V2_CHECKED + (V21_CHECKED if "answered_only" in doc else ())
        for field in fields:
            stored = doc.get(field)
            checks[field] = {"stored": stored, "recomputed": fresh[field],
                             "match": stored == fresh[field]}
    ok = all(e["match"] for e in metrics.values()) and all(c["match"] for c in checks.values())
    older = {field: rule.label() for field, rules in WRITER_RULES.items() for rule in rules[1:]
             if checks[field]["rule"] == rule.name}
    version = (doc.get("provenance") or {}).get("harness_version")
    return {"file": name, "kind": kind, "ci_method": method, "n_results": len(doc["results"]),
            "status": "match" if ok else "drift", "harness_version": version,
            "metrics": metrics, "checks": checks, "older_rules": older,
            "writer_note": writer_note}

