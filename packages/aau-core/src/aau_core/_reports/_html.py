"""``aau report --html`` and ``aau runs show --html``: one self-contained, offline HTML page.

The page is rendered by Jinja2 (``templates/report.html.j2``, autoescape on: every value from a
document is escaped, a scenario id ``<script>`` stays text). Everything is inline: CSS in a
``<style>`` element, charts as SVG computed here (no script, no font, no image, no link to
another host), so the numbers are visible with scripts off and the file works offline.

Per document: a heading, what was run (kind, suite, repeats, time, pass rule), the headline
metrics with their 95 % intervals, the pass^k curve for k = 1..repeats (when the document has
pass^k), the latency histogram of every run, the cost (aggregates), a per-scenario table with
failure codes, and the provenance. Charts are ``role="img"`` with a ``<title>``/``<desc>`` and
a data table beside them, so their numbers are also text. Colours keep a contrast ratio of at
least 4.5:1 against the white background (WCAG 2.1, 1.4.3).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ._formats import fmt
from ._scenarios import DocumentReport, ScenarioRecord

CHART_W = 480
CHART_H = 200
PAD = 40
MAX_BINS = 12
#: line colours, each >= 4.5:1 against white
PALETTE = ("#0b57d0", "#a40000", "#1b5e20", "#6a1b9a", "#8a4b00", "#00695c")


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("aau_core._reports", "templates"), autoescape=True,
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _status(s: ScenarioRecord) -> str:
    if s.passed:
        return "pass"
    return "error" if s.errored_runs and s.errored_runs + s.passed_runs == s.runs else "fail"


def _rows(kind: str, doc: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    agg = doc.get("aggregate", doc) if kind == "lab-result" else doc
    return agg.get("results", [])


def pass_k_chart(series: Sequence[tuple[str, Mapping[str, float]]]) -> dict[str, Any] | None:
    """Points of the pass^k chart: k on x (1..max k), pass^k in [0, 1] on y.

    Returns ``None`` when the largest k is 1 (one point is not a curve; the table shows it).

    Returns:
        ``{"width", "height", "lines": [{"label", "points": "x,y ...", "dots": [{x, y, k, v}]}],
        "xticks", "yticks"}`` in SVG user units, or ``None`` with no series.
    """
    ks = sorted({int(k) for _, by_k in series for k in by_k})
    if not ks or max(ks) < 2:
        return None
    kmax = max(ks)
    span_x = CHART_W - 2 * PAD
    span_y = CHART_H - 2 * PAD

    def x(k: int) -> float:
        return PAD + (span_x * (k - 1) / (kmax - 1) if kmax > 1 else span_x / 2)

    def y(v: float) -> float:
        return PAD + span_y * (1.0 - v)

    lines = []
    for i, (label, by_k) in enumerate(series):
        dots = [{"x": round(x(int(k)), 1), "y": round(y(v), 1), "k": int(k), "v": fmt(v)}
                for k, v in sorted(by_k.items(), key=lambda kv: int(kv[0]))]
        lines.append({"label": label, "dots": dots, "colour": PALETTE[i % len(PALETTE)],
                      "points": " ".join(f"{d['x']},{d['y']}" for d in dots)})
    return {"width": CHART_W, "height": CHART_H, "lines": lines,
            "xticks": [{"x": round(x(k), 1), "label": str(k)} for k in range(1, kmax + 1)],
            "yticks": [{"y": round(y(v), 1), "label": f"{v:g}"} for v in (0, 0.5, 1)],
            "bottom": CHART_H - PAD, "left": PAD, "right": CHART_W - PAD}


def latency_histogram(latencies: Sequence[float]) -> dict[str, Any] | None:
    """Equal-width bins over ``[min, max]`` of the runs' latencies (seconds).

    Bin count: ``ceil(sqrt(n))`` capped at ``MAX_BINS`` (one bin when every latency is equal);
    bin ``i`` holds ``lo_i <= t < hi_i``, the last bin also its upper edge.

    Returns:
        ``{"width", "height", "bars": [{x, y, w, h, lo, hi, count}], "n", "max_count"}``, or
        ``None`` with no latencies.
    """
    if not latencies:
        return None
    lo, hi = min(latencies), max(latencies)
    bins = 1 if hi == lo else min(MAX_BINS, max(1, math.ceil(math.sqrt(len(latencies)))))
    width = (hi - lo) / bins if bins > 1 else 0.0
    counts = [0] * bins
    for t in latencies:
        i = min(bins - 1, int((t - lo) / width)) if width else 0
        counts[i] += 1
    top = max(counts)
    span_x = CHART_W - 2 * PAD
    span_y = CHART_H - 2 * PAD
    bar_w = span_x / bins
    bars = []
    for i, count in enumerate(counts):
        h = span_y * count / top
        edge_lo = lo + i * width
        edge_hi = lo + (i + 1) * width if width else hi
        bars.append({"x": round(PAD + i * bar_w + 1, 1), "w": round(max(bar_w - 2, 1), 1),
                     "y": round(PAD + span_y - h, 1), "h": round(h, 1), "count": count,
                     "lo": f"{edge_lo:.3f}", "hi": f"{edge_hi:.3f}"})
    return {"width": CHART_W, "height": CHART_H, "bars": bars, "n": len(latencies),
            "max_count": top, "bottom": CHART_H - PAD, "left": PAD, "right": CHART_W - PAD,
            "min": f"{lo:.3f}", "max": f"{hi:.3f}"}


def _flatten(prefix: str, value: Any, out: list[tuple[str, str]]) -> None:
    if isinstance(value, Mapping):
        for key in sorted(value):
            _flatten(f"{prefix}.{key}" if prefix else str(key), value[key], out)
    elif value is not None:
        out.append((prefix, str(value).lower() if isinstance(value, bool) else str(value)))


def _provenance(kind: str, doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    keys = ("suite_id", "suite_digest", "suite_sha256", "adapter_kind", "started_at",
            "finished_at", "timeout_s", "concurrency", "lab", "backend", "model", "config_kind",
            "config_sha256", "scenarios_sha256")
    for key in keys:
        if key in doc:
            _flatten(key, doc[key], out)
    agg = doc.get("aggregate", doc) if kind == "lab-result" else doc
    _flatten("provenance", agg.get("provenance") or doc.get("provenance") or {}, out)
    if isinstance(agg.get("ci"), Mapping):
        _flatten("ci", agg["ci"], out)
    return out


def _cost(kind: str, doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    if kind.startswith("receipt"):
        return []
    agg = doc.get("aggregate", doc) if kind == "lab-result" else doc
    rows = agg.get("results", [])
    return [("total cost (USD)", f"{agg.get('total_cost_usd', 0):.4f}"),
            ("mean cost per scenario (USD)", f"{agg.get('mean_cost_per_scenario_usd', 0):.6f}"),
            ("API calls", str(sum(int(r.get("n_api_calls", 0)) for r in rows))),
            ("runs", str(len(rows)))]


def document_view(report: DocumentReport, doc: Mapping[str, Any], anchor: str) -> dict[str, Any]:
    """What the template shows for one document (plain values; the template escapes them).

    Args:
        report: the document's ``DocumentReport`` (``load_report_document``).
        doc: the parsed document (for per-run latencies, cost and provenance).
        anchor: the id of its section, unique in the page.
    """
    names = sorted({m for s in report.scenarios for m, _ in s.metrics},
                   key=lambda m: (m == "mean_latency_s", m))
    scenarios = []
    for s in report.scenarios:
        values = dict(s.metrics)
        scenarios.append({
            "id": s.scenario_id, "status": _status(s), "repeats": f"{s.passed_runs}/{s.runs}",
            "codes": [f"{c} ({n})" if n > 1 else c for c, n in s.failure_codes],
            "errors": list(s.errors),
            "cells": [fmt(values[m]) if m in values else "" for m in names]})
    metrics = [{"name": name, "value": fmt(value),
                "low": fmt(report.intervals[name].low) if name in report.intervals else "",
                "high": fmt(report.intervals[name].high) if name in report.intervals else "",
                "method": report.intervals[name].method if name in report.intervals else ""}
               for name, value in report.metrics]
    latencies = [float(r["latency_s"]) for r in _rows(report.kind, doc) if "latency_s" in r]
    pass_k = pass_k_chart(report.pass_hat_k)
    ks = sorted({int(k) for _, by_k in report.pass_hat_k for k in by_k})
    return {
        "anchor": anchor, "source": report.source, "kind": report.kind, "suite": report.suite,
        "repeats": report.repeats, "timestamp": report.timestamp or "", "rule": report.rule,
        "caveat": report.caveat or "",
        "passed": report.passed_count, "total": len(report.scenarios),
        "failed": len(report.scenarios) - report.passed_count,
        "metrics": metrics, "pass_k": pass_k, "ks": ks,
        "pass_k_rows": [{"label": label, "cells": [fmt(by_k[str(k)]) if str(k) in by_k else ""
                                                    for k in ks]}
                        for label, by_k in report.pass_hat_k],
        "latency": latency_histogram(latencies), "cost": _cost(report.kind, doc),
        "scenario_columns": names, "scenarios": scenarios,
        "provenance": _provenance(report.kind, doc)}


def render_html_report(items: Sequence[tuple[DocumentReport, Mapping[str, Any]]], *,
                       title: str = "aau report",
                       links: Sequence[tuple[str, str]] = ()) -> str:
    """Render documents as one self-contained HTML page.

    Args:
        items: ``(DocumentReport, parsed document)`` pairs, in page order.
        title: the page title and top heading.
        links: ``(href, text)`` navigation links shown above the content (``aau view`` links
            back to its run list); empty for a file.

    Returns:
        the HTML text (UTF-8, ``<!doctype html>``).
    """
    docs = [document_view(report, doc, f"doc-{i + 1}") for i, (report, doc) in enumerate(items)]
    total = sum(d["total"] for d in docs)
    passed = sum(d["passed"] for d in docs)
    template = _environment().get_template("report.html.j2")
    return template.render(title=title, docs=docs, total=total, passed=passed, links=list(links))


def render_html_files(reports: Sequence[DocumentReport]) -> str:
    """``aau report --html``: render already validated reports, reading each ``source`` file
    again for its per-run latencies, cost and provenance.

    Raises:
        InputError: a file can no longer be read as JSON.
    """
    from .._files._strict_json import read_json_file
    from ._scenarios import MAX_DOCUMENT_BYTES

    return render_html_report(
        [(r, read_json_file(r.source, max_bytes=MAX_DOCUMENT_BYTES)) for r in reports])
