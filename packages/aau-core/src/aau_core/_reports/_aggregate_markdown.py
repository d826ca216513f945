"""Markdown report of an ``EvalAggregate``, in aau-harness 1.6's layout (``render_report``)."""

from __future__ import annotations

from .._run._runner import EvalAggregate


def render_report(agg: EvalAggregate, model: str, title: str = "Results") -> str:
    """Render ``agg`` as the Markdown section aau-harness 1.6 writes beside a result file.

    A ``## title`` heading, a line naming the model, scenarios x repeats and the total cost
    (2 dp), then a table: one row per metric (mean 3 dp, 95 % interval ``[low, high]`` 3 dp),
    cost per scenario (USD, 4 dp; the mean over runs, as 1.6 defines it) and p50 latency
    (seconds, 2 dp). Ends with an empty line. The text is identical to 1.6's for the same
    aggregate when no run raised; when ``agg.n_errors > 0`` one line follows the table after
    an empty line: ``N run(s) raised and are left out of every metric (see
    results[].detail.error)``.

    Args:
        agg: the aggregate.
        model: the model name shown (inside backticks).
        title: the heading text.
    """
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
        lines.append(f"| {name} | {mean:.3f} | [{low:.3f}, {high:.3f}] |")
    lines.append(f"| cost per scenario (USD) | {agg.mean_cost_per_scenario_usd:.4f} | — |")
    lines.append(f"| p50 latency (s) | {agg.p50_latency_s:.2f} | — |")
    if agg.n_errors > 0:
        lines += ["", f"{agg.n_errors} run(s) raised and are left out of every metric "
                      "(see results[].detail.error)"]
    lines.append("")
    return "\n".join(lines)
