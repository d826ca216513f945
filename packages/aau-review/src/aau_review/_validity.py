"""An automatic scorer (or a model rater) against the human consensus, pass the positive class.

Over the units with a pass or fail consensus that the scorer judged: the confusion matrix (tp
both pass, fp scorer pass and consensus fail, fn scorer fail and consensus pass, tn both fail);
accuracy (tp + tn) / n, precision tp / (tp + fp) and recall tp / (tp + fn), each with its Wilson
score interval (``aau_core.wilson_interval``: E. B. Wilson, JASA 22(158), 1927); F1 = 2 tp /
(2 tp + fp + fn) (van Rijsbergen, "Information Retrieval", 2nd ed., 1979, ch. 7: the harmonic
mean of precision and recall) and Cohen's kappa of scorer and consensus (``_agreement``), each
with a percentile bootstrap interval over the units (``_bootstrap``). A rate whose denominator is
0 is undefined (``None``).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from ._agreement import Estimate, cohen_kappa_estimate
from ._bootstrap import bootstrap_interval
from ._consensus import FAIL_CODE, PASS_CODE


@attrs.frozen
class Validity:
    """A scorer's comparison: ``units`` compared, the confusion counts and five estimates
    ``(value, interval, n)``."""

    units: int
    tp: int
    fp: int
    fn: int
    tn: int
    accuracy: Estimate
    precision: Estimate
    recall: Estimate
    f1: Estimate
    kappa: Estimate


def _wilson(successes: int, n: int) -> Estimate:
    from aau_core import wilson_interval

    if n == 0:
        return None, None, 0
    return successes / n, wilson_interval(successes, n), n


def _f1_from_sums(sums: np.ndarray) -> np.ndarray:
    tp, fp, fn = sums[:, 0], sums[:, 1], sums[:, 2]
    denom = 2 * tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denom == 0, np.nan, 2 * tp / denom)


def scorer_validity(scorer: Any, consensus: Any, *, resamples: int = 2000,
                    seed: int = 0) -> Validity:
    """Compare a scorer's per-unit codes with the consensus codes (module docstring).

    Args:
        scorer: per unit 0 pass, 1 fail, -1 not judged.
        consensus: per unit 0 pass, 1 fail, -1 no consensus (``_consensus``).
        resamples, seed: the bootstrap's.

    Returns:
        a ``Validity``.
    """
    s = np.asarray(scorer, dtype=np.int64)
    c = np.asarray(consensus, dtype=np.int64)
    both = (s >= 0) & (c >= 0)
    s, c = s[both], c[both]
    tp = int(((s == PASS_CODE) & (c == PASS_CODE)).sum())
    fp = int(((s == PASS_CODE) & (c == FAIL_CODE)).sum())
    fn = int(((s == FAIL_CODE) & (c == PASS_CODE)).sum())
    tn = int(((s == FAIL_CODE) & (c == FAIL_CODE)).sum())
    n = len(s)
    f1: Estimate = (None, None, n)
    if n:
        feats = np.column_stack([(s == PASS_CODE) & (c == PASS_CODE),
                                 (s == PASS_CODE) & (c == FAIL_CODE),
                                 (s == FAIL_CODE) & (c == PASS_CODE)]).astype(float)
        value = _f1_from_sums(feats.sum(axis=0, keepdims=True))[0]
        if np.isfinite(value):
            f1 = (float(value), bootstrap_interval(feats, _f1_from_sums, resamples=resamples,
                                                   seed=seed), n)
    return Validity(units=n, tp=tp, fp=fp, fn=fn, tn=tn, accuracy=_wilson(tp + tn, n),
                    precision=_wilson(tp, tp + fp), recall=_wilson(tp, tp + fn), f1=f1,
                    kappa=cohen_kappa_estimate(s, c, 2, resamples=resamples, seed=seed))
