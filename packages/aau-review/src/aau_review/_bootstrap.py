"""The percentile bootstrap over units behind every review interval that is not a Wilson
interval (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13).

Each statistic of ``_agreement`` and ``_validity`` is a function of the *sum over units* of a
per-unit feature row (category counts, coincidences, a cell of a two-rater table). Resampling the
``n`` units of a statistic with replacement gives each unit a multinomial count; units with the
same feature row are exchangeable, so the resample's sum is the distinct rows weighted by a draw
from Multinomial(n, row frequency / n), which is the same distribution as resampling the units one
by one, only drawn in a few microseconds per resample whatever ``n`` is. The generator is numpy's
PCG64 seeded with ``seed``: the same features and seed give the same interval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def resampled_sums(features: Any, *, resamples: int, seed: int) -> np.ndarray:
    """The feature sums of ``resamples`` bootstrap resamples of the units.

    Args:
        features: array ``(n, f)``, one row per unit the statistic is computed over (n >= 1).
        resamples: how many resamples (>= 1).
        seed: seed of the generator.

    Returns:
        array ``(resamples, f)``: row ``b`` is the sum of the features of resample ``b``.

    Raises:
        ValueError: no units or ``resamples < 1``.
    """
    rows = np.asarray(features, dtype=float)
    if rows.ndim != 2 or rows.shape[0] == 0:
        raise ValueError("need at least one unit")
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    distinct, counts = _distinct_rows(rows)
    n = int(counts.sum())
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, counts / n, size=resamples)
    return weights @ distinct


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows (in sorted order) and how often each occurs: each column's values are
    numbered (a 1-D ``np.unique``), the numbers combined into one integer key per row, and the
    keys counted; ``np.unique(rows, axis=0)`` gives the same, ten times slower."""
    key = np.zeros(len(rows), dtype=np.int64)
    radix = 1
    for column in rows.T[::-1]:
        values, codes = np.unique(column, return_inverse=True)
        if radix * len(values) >= 2**62:  # too many distinct rows for one integer key
            return np.unique(rows, axis=0, return_counts=True)
        key += codes.reshape(-1) * radix
        radix *= len(values)
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    return rows[first], counts


def percentile_interval(values: Any, confidence: float = 0.95) -> tuple[float, float] | None:
    """The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles (numpy's linear
    interpolation) of the resampled values where the statistic is defined (finite), or ``None``
    when it is undefined in more than half of the resamples."""
    arr = np.asarray(values, dtype=float)
    finite = arr[np.isfinite(arr)]
    if finite.size == 0 or finite.size * 2 < arr.size:
        return None
    alpha = (1 - confidence) / 2
    low, high = np.quantile(finite, [alpha, 1 - alpha])
    return float(low), float(high)


def bootstrap_interval(features: Any, statistic: Callable[[np.ndarray], np.ndarray], *,
                       resamples: int, seed: int,
                       confidence: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of ``statistic`` over the units of ``features``.

    Args:
        features: ``(n, f)`` per-unit feature rows (``resampled_sums``).
        statistic: feature sums ``(b, f)`` -> values ``(b,)``, NaN where undefined.
        resamples, seed: as ``resampled_sums``; confidence: the interval's mass in (0, 1).

    Returns:
        ``(low, high)``, or ``None`` (no units, or undefined in most resamples).
    """
    if len(features) == 0:
        return None
    return percentile_interval(statistic(resampled_sums(features, resamples=resamples,
                                                        seed=seed)), confidence)
