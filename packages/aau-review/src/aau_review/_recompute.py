"""Recomputing a review report's numbers, so that an edited number fails its check.

Two checks, each naming the JSON path, the stored and the recomputed value of the first number
that differs (floats within ``TOLERANCE``: the report stores ``round(x, 6)``):

- ``report_recompute_problems`` (from the report alone, every reader: ``check_review_report``,
  hence ``aau review validate``, ``aau schema validate``, ``aau evidence`` and ``aau release
  assess``): each ``scorers[i]`` entry is rebuilt from its own confusion matrix and the report's
  ``bootstrap`` (resamples, seed) with the function ``aau review summarize`` uses
  (``_summary.scorer_comparison`` on ``_validity.scorer_validity``): ``units``; accuracy,
  precision and recall with their Wilson score intervals (``aau_core.wilson_interval``); F1 and
  Cohen's kappa of scorer and consensus with their percentile bootstrap intervals; each ``n``,
  ``interval`` and ``undefined``. The bootstrap intervals are reproducible from the matrix
  alone: every per-unit feature row of F1 and of the kappa is one of the four cells, and
  ``_bootstrap.resampled_sums`` draws from the distinct rows and their counts (sorted), never
  from the units' order. Also ``human_agreement.raters`` is the number of human labels files in
  ``label_files``, and the verdict counts add up to the human files' ``label_count``.
- ``recheck_review_report`` (with the pack and the labels files, ``aau review validate REPORT
  --pack PACK --labels FILE...``): the pack is the one the report binds (``source.tasks_sha256``,
  ``source.manifest_sha256``), the labels files are exactly those of ``label_files`` (by
  SHA-256), and the whole report is rebuilt with ``build_review_report`` at the report's own
  ``bootstrap`` settings and compared number by number: the agreement among people (percent
  agreement, Cohen's and Fleiss' kappa, Krippendorff's alpha, with their bootstrap intervals),
  the consensus and its ties, the verdict and category counts, and every scorer (including the
  confusion matrices, which need the labels).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from aau_core import InvalidDocumentError, UsageError

from ._converter import converter
from ._models import ReviewReport, ScorerComparison

TOLERANCE = 1e-6 + 1e-12
"""A stored float may differ from its recomputation by one unit of its sixth decimal (the report
stores ``round(x, 6)``; a float on a rounding edge may round either way on another platform)."""


def _show(value: Any) -> str:
    return "null" if value is None else repr(value)


def first_difference(have: Any, want: Any, at: str = "$") -> tuple[str, Any, Any] | None:
    """The first leaf (document order of ``want``, then keys only ``have`` has) where two JSON
    values differ: ``(path, stored, recomputed)``, or ``None``. Numbers (not booleans) match
    within ``TOLERANCE``; everything else must be equal."""
    if isinstance(want, dict) and isinstance(have, dict):
        for key in [*want, *(k for k in have if k not in want)]:
            found = first_difference(have.get(key), want.get(key), f"{at}.{key}")
            if found:
                return found
        return None
    if isinstance(want, (list, tuple)) and isinstance(have, (list, tuple)) \
            and len(want) == len(have):
        for i, (h, w) in enumerate(zip(have, want, strict=True)):
            found = first_difference(h, w, f"{at}[{i}]")
            if found:
                return found
        return None
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (have, want))
    if numbers and abs(have - want) <= TOLERANCE:
        return None
    return None if have == want else (at, have, want)


def _difference_line(found: tuple[str, Any, Any], source: str) -> tuple[str, str]:
    at, have, want = found
    return at, f"is {_show(have)}; recomputed from {source}: {_show(want)}"


def recompute_scorer(scorer: ScorerComparison, resamples: int, seed: int) -> ScorerComparison:
    """A scorer's comparison rebuilt from its confusion matrix alone (module docstring): the
    units in the four cells, compared with ``_summary.scorer_comparison`` at ``resamples`` and
    ``seed``."""
    from ._summary import scorer_comparison

    m = scorer.confusion
    cells = ((0, 0, m.tp), (0, 1, m.fp), (1, 0, m.fn), (1, 1, m.tn))
    said = np.array([s for s, _, n in cells for _ in range(n)], dtype=np.int64)
    agreed = np.array([c for _, c, n in cells for _ in range(n)], dtype=np.int64)
    return scorer_comparison(scorer.scorer, scorer.source, said, agreed, resamples, seed)


def report_recompute_problems(report: ReviewReport) -> list[tuple[str, str]]:
    """What ``check_review_report`` recomputes from the report alone (module docstring):
    ``[(JSON path, "is X; recomputed from ...: Y")]``, one per scorer at most, in document order."""
    problems = []
    humans = [f for f in report.label_files if f.kind == "human"]
    if report.human_agreement.raters != len(humans):
        problems.append(("$.human_agreement.raters",
                         f"is {report.human_agreement.raters}; label_files lists {len(humans)} "
                         "human rater(s)"))
    v = report.verdict_counts
    labels = sum(f.label_count for f in humans)
    if v.pass_ + v.fail + v.unsure != labels:
        problems.append(("$.verdict_counts", f"add up to {v.pass_ + v.fail + v.unsure}; the "
                                             f"human labels files hold {labels} label(s)"))
    b = report.bootstrap
    for i, s in enumerate(report.scorers):
        m = s.confusion
        if m.tp + m.fp + m.fn + m.tn != s.units:
            continue  # the sum rule says so already
        want = converter.unstructure(recompute_scorer(s, b.resamples, b.seed))
        found = first_difference(converter.unstructure(s), want, f"$.scorers[{i}]")
        if found:
            problems.append(_difference_line(found, "its confusion matrix (with the report's "
                                                    "bootstrap resamples and seed)"))
    return problems


def recheck_review_report(report: ReviewReport, *, pack: str | Path,
                          labels: Sequence[str | Path], source: str) -> ReviewReport:
    """Recompute every number of ``report`` from the pack and labels files it was built from
    (module docstring).

    Args:
        report: a report that passed ``check_review_report``.
        pack: the review pack folder (read and checked with ``read_review_pack``).
        labels: the labels files (read and checked with ``read_labels``), in any order.
        source: the report's name in messages.

    Returns:
        ``report``.

    Raises:
        InputError / InvalidDocumentError: a bad pack or labels file (naming that file); the
        report binds another pack, or a number differs from its recomputation (naming the
        report, the JSON path, the stored and the recomputed value).
        UsageError: a labels file given that the report does not bind, or one it binds not
            given (the inputs are wrong, not the report).
    """
    from ._pack import read_review_pack
    from ._summary import build_review_report, read_labels

    checked = read_review_pack(pack)
    problems = []
    if report.source.tasks_sha256 != checked.tasks_sha256:
        problems.append(("$.source.tasks_sha256", f"is {report.source.tasks_sha256}; the pack "
                                                  f"{pack} has {checked.tasks_sha256}: the "
                                                  "report is of another pack"))
    elif report.source.manifest_sha256 != checked.manifest_sha256:
        problems.append(("$.source.manifest_sha256", f"is {report.source.manifest_sha256}; the "
                                                     f"pack {pack} has "
                                                     f"{checked.manifest_sha256}"))
    if problems:
        raise InvalidDocumentError(problems, source=source)
    files = read_labels(labels, checked)
    bound = {f.labels_sha256: i for i, f in enumerate(report.label_files)}
    given = {f.sha256 for f in files}
    # the wrong labels files are the caller's mistake, not the report's: a usage error (exit 2)
    for f in files:
        if f.sha256 not in bound:
            raise UsageError(f"{source}: --labels {f.path} (SHA-256 {f.sha256}) is not a labels "
                             "file this report was built from ($.label_files)")
    missing = [report.label_files[i].rater for sha, i in bound.items() if sha not in given]
    if missing:
        raise UsageError(f"{source}: the labels of {', '.join(missing)} were not given: add "
                         "--labels FILE for every labels file the report binds "
                         "($.label_files)")
    want = build_review_report(checked, files, resamples=report.bootstrap.resamples,
                               seed=report.bootstrap.seed)
    found = first_difference(converter.unstructure(report), converter.unstructure(want))
    if found:
        raise InvalidDocumentError([_difference_line(found, "the pack and labels files")],
                                   source=source)
    return report
