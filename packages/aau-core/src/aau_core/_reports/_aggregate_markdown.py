"""Markdown report of an ``EvalAggregate``, in aau-harness 1.6's layout (``render_report``)."""

from __future__ import annotations

from .._run._runner import EvalAggregate
from .._run._statistics import round_rate_interval


def interval_text(low: float, high: float, method: str, ndigits: int = 3) -> str:
    """A 95 % interval as shown on a screen or a report: ``[low, high] method``.

    A Wilson interval (a rate's) is rounded by ``round_rate_interval``, so it never shows as
    zero width (0 of 50 is ``[0.000, 0.071] wilson``); other intervals are rounded to the
    nearest.

    Args:
        low, high: the interval ends (unrounded).
        method: how it was made (``"wilson"``, ``"bootstrap"``, ``"aau-compat"``).
        ndigits: decimals shown.

    Returns:
        the text, e.g. ``"[0.231, 0.882] wilson"``.
    """
    if method == "wilson":
        low, high = round_rate_interval(low, high, ndigits)
    return f"[{low:.{ndigits}f}, {high:.{ndigits}f}] {method}"


def render_report(agg: EvalAggregate, model: str, title: str = "Results") -> str:
    """Render ``agg`` as the Markdown section aau-harness 1.6 writes beside a result file.

    A ``## title`` heading, a line naming the model, scenarios x repeats and the total cost
    (2 dp), then a table: one row per metric (mean 3 dp, 95 % interval ``[low, high]`` 3 dp
    followed by its method, ``interval_text``), cost per scenario (USD, 4 dp; the mean over
    runs, as 1.6 defines it) and p50 latency (seconds, 2 dp). Ends with an empty line.

    Under ``ci_method="aau-compat"`` the text is 1.6's byte for byte when no run raised (the
    interval cells carry no method: the mode's promise is 1.6's output). When ``agg.n_errors >
    0`` lines follow the table after an empty line: for ``"wilson"``, ``"N of M run(s) raised
    (coverage C): each counts as a failure of every 0/1 metric and is left out of the others
    (see results[].detail.error)`` and the labelled answered-only view, ``Answered runs only (K
    run(s)): metric mean [low, high] method; ...``; for ``"aau-compat"`` and ``"bootstrap"``,
    ``N run(s) raised and are left out of every metric (see results[].detail.error)``.

    Args:
        agg: the aggregate.
        model: the model name shown (inside backticks).
        title: the heading text.
    """
    compat = agg.ci_method == "aau-compat"
    lines = [
        f"## {title}",
        "",
        f"Model: `{model}` · {agg.n_scenarios} scenarios × {agg.n_repeats} repeats "
        f"· total eval cost **${agg.total_cost_usd:.2f}**",
        "",
        "| Metric | Mean | 95% CI |",
        "|---|---|---|",
    ]
    for name, mean in agg.metric_means.items():
        low, high = agg.metric_ci95[name]
        cell = (f"[{low:.3f}, {high:.3f}]" if compat
                else interval_text(low, high, agg.interval_method(name)))
        lines.append(f"| {name} | {mean:.3f} | {cell} |")
    lines.append(f"| cost per scenario (USD) | {agg.mean_cost_per_scenario_usd:.4f} | — |")
    lines.append(f"| p50 latency (s) | {agg.p50_latency_s:.2f} | — |")
    if agg.n_errors > 0 and agg.ci_method == "wilson":
        lines += ["", f"{agg.n_errors} of {len(agg.results)} run(s) raised (coverage "
                      f"{agg.coverage or 0.0:.3f}): each counts as a failure of every 0/1 metric "
                      "and is left out of the others (see results[].detail.error)."]
        view = agg.answered_only
        if view is not None:
            shown = "; ".join(
                f"{name} {mean:.3f} "
                + interval_text(*view.metric_ci95[name], agg.interval_method(name))
                for name, mean in view.metric_means.items())
            lines += ["", f"Answered runs only ({view.runs} run(s)): {shown or 'none'}."]
    elif agg.n_errors > 0:
        lines += ["", f"{agg.n_errors} run(s) raised and are left out of every metric "
                      "(see results[].detail.error)"]
    lines.append("")
    return "\n".join(lines)
