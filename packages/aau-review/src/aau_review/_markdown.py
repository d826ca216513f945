"""The Markdown summary of a review report (``aau review summarize --md``): the agreement
table, the consensus and the scorer table, from the report alone (so it holds what the report
holds: aggregates, pseudonyms)."""

from __future__ import annotations

from aau_core import markdown_table

from ._models import Estimate, ReviewReport


def format_estimate(e: Estimate) -> str:
    """``0.812 [0.700, 0.900]``; with no interval ``1.000 [interval undefined: why]``; with no
    value ``undefined (why)``: the one rendering of an estimate (Markdown and the CLI)."""
    if e.value is None:
        return "undefined" + (f" ({e.undefined})" if e.undefined else "")
    if e.ci95 is None:
        return f"{e.value:.3f} [{e.undefined or 'interval undefined'}]"
    return f"{e.value:.3f} [{e.ci95[0]:.3f}, {e.ci95[1]:.3f}]"


def report_markdown(report: ReviewReport) -> str:
    """The report as Markdown (title, agreement, consensus, scorers against consensus)."""
    a = report.human_agreement
    c = report.consensus
    agreement = markdown_table(
        ["statistic", "value [95 % interval]", "units"],
        [["percent agreement", format_estimate(a.percent_agreement), str(a.percent_agreement.n)],
         ["Cohen's κ (two raters)", format_estimate(a.cohen_kappa), str(a.cohen_kappa.n)],
         ["Fleiss' κ (all K ratings)", format_estimate(a.fleiss_kappa), str(a.fleiss_kappa.n)],
         ["Krippendorff's α (nominal)", format_estimate(a.krippendorff_alpha),
          str(a.krippendorff_alpha.n)]])
    scorers = markdown_table(
        ["scorer", "source", "units", "tp/fp/fn/tn", "accuracy", "precision", "recall", "F1",
         "Cohen's κ"],
        [[s.scorer, s.source, str(s.units),
          f"{s.confusion.tp}/{s.confusion.fp}/{s.confusion.fn}/{s.confusion.tn}",
          format_estimate(s.accuracy), format_estimate(s.precision), format_estimate(s.recall), format_estimate(s.f1), format_estimate(s.cohen_kappa)]
         for s in report.scorers])
    return "\n".join([
        f"# Review of `{report.source.suite_id}`",
        "",
        f"{report.unit_count} unit(s), {report.labelled_unit_count} labelled by "
        f"{a.raters} human rater(s). Intervals: 95 %, percentile bootstrap over units "
        f"({report.bootstrap.resamples} resamples, seed {report.bootstrap.seed}); Wilson for "
        "accuracy, precision and recall. `unsure` counts as no rating.",
        "",
        "## Agreement among people",
        "",
        agreement.rstrip("\n"),
        "",
        "## Consensus",
        "",
        f"pass {c.pass_}, fail {c.fail}, only unsure {c.unsure}, unlabelled {c.unlabelled}, "
        f"ties to adjudicate {len(c.ties)}"
        + ("" if not c.ties else ": " + ", ".join(t.unit_id for t in c.ties[:20])
           + (" ..." if len(c.ties) > 20 else "")),
        "",
        "## Scorers against the human consensus",
        "",
        scorers.rstrip("\n") if report.scorers else "No scorer.",
        "",
    ])
