"""Agreement among raters on nominal labels, with the source of every formula.

Ratings are a units x raters array of category codes ``0..V-1`` with ``-1`` for no rating (a
rater who did not label the unit, or labelled it ``unsure``: ``_protocol.UNSURE_RULE``). Each
statistic is computed from per-unit feature rows summed over its units, so the same function
gives the point estimate (the plain sum) and the bootstrap's resamples (``_bootstrap``):

- ``percent_agreement_estimate``: the mean over units with two or more ratings of the share of
  agreeing rater pairs, P_u = sum_k n_uk (n_uk - 1) / (n_u (n_u - 1)) (Fleiss 1971, eq. 2, with
  each unit's own number of ratings n_u); for two raters, the share of units they agree on.
- ``cohen_kappa_estimate``: two raters, the units both rated: kappa = (p_o - p_e) / (1 - p_e),
  p_o the share of agreement, p_e = sum_k p_a(k) p_b(k) from each rater's own marginals (J.
  Cohen, "A coefficient of agreement for nominal scales", Educational and Psychological
  Measurement 20(1), 1960, eq. 1). Undefined (``None``) when p_e = 1.
- ``fleiss_kappa_estimate``: the units with exactly ``m`` ratings, as ``aau_core.fleiss_kappa``
  computes it (J. L. Fleiss, "Measuring nominal scale agreement among many raters",
  Psychological Bulletin 76(5), 1971, eqs. 2-9). Undefined (``None``) when every rating is in
  one category (p_e = 1), as in ``aau_core.fleiss_kappa``.
- ``krippendorff_alpha_estimate``: nominal alpha over every unit with two or more ratings
  (incomplete designs), computed by the ``krippendorff`` package; alpha = 1 - (n - 1) (n -
  sum_c o_cc) / (n^2 - sum_c n_c^2), with o the coincidence matrix o_ck = sum_u (n_uc n_uk -
  [c = k] n_uc) / (n_u - 1), n_c its margins and n its total (K. Krippendorff, "Computing
  Krippendorff's Alpha-Reliability", 2011, section C; the bootstrap uses this closed form, which
  the tests check against the package). Undefined when every pairable rating has one value.

Each of them returns ``(value, interval, n)``: the point estimate or ``None``, its percentile
bootstrap interval over the ``n`` units it is computed over (or ``None``), and n.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._bootstrap import bootstrap_interval

Estimate = tuple[float | None, tuple[float, float] | None, int]
"""(value, 95 % interval, units it is over)."""


def category_counts(ratings: Any, categories: int) -> np.ndarray:
    """Units x categories counts ``n_uk`` of a units x raters code array (``-1`` ignored).

    Raises:
        ValueError: a code outside ``-1..categories-1``.
    """
    codes = np.asarray(ratings, dtype=np.int64)
    if codes.ndim != 2:
        raise ValueError("ratings must be a units x raters array")
    if codes.size and (codes.min() < -1 or codes.max() >= categories):
        raise ValueError(f"codes must be -1 or 0..{categories - 1}")
    return np.stack([(codes == k).sum(axis=1) for k in range(categories)], axis=1)


def _defined(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _point(statistic: Any, features: np.ndarray) -> float | None:
    return _defined(statistic(features.sum(axis=0, keepdims=True))[0])


# ---- percent agreement --------------------------------------------------------------------


def _agreement_features(counts: np.ndarray) -> np.ndarray:
    n = counts.sum(axis=1)
    keep = n >= 2
    c, n = counts[keep].astype(float), n[keep].astype(float)
    return ((c * (c - 1)).sum(axis=1) / (n * (n - 1)))[:, None]


def _agreement_from_sums(sums: np.ndarray, n: int) -> np.ndarray:
    return sums[:, 0] / n


def percent_agreement_estimate(counts: Any, *, resamples: int = 2000, seed: int = 0) -> Estimate:
    """Percent agreement (module docstring) of a units x categories count array, as a share
    in [0, 1], over the units with two or more ratings; ``None`` when there is none."""
    feats = _agreement_features(np.asarray(counts))
    n = len(feats)
    if n == 0:
        return None, None, 0

    def stat(sums: np.ndarray) -> np.ndarray:
        return _agreement_from_sums(sums, n)

    return (_point(stat, feats), bootstrap_interval(feats, stat, resamples=resamples,
                                                    seed=seed), n)


# ---- Cohen's kappa ------------------------------------------------------------------------


def _pair_features(a: np.ndarray, b: np.ndarray, categories: int) -> np.ndarray:
    both = (a >= 0) & (b >= 0)
    cells = a[both] * categories + b[both]
    return np.eye(categories * categories)[cells]


def _cohen_from_sums(sums: np.ndarray, categories: int) -> np.ndarray:
    table = sums.reshape(-1, categories, categories)
    n = table.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = np.trace(table, axis1=1, axis2=2) / n
        p_e = (table.sum(axis=2) * table.sum(axis=1)).sum(axis=1) / (n * n)
        kappa = (p_o - p_e) / (1 - p_e)
    return np.where(np.isclose(p_e, 1.0) | (n == 0), np.nan, kappa)


def cohen_kappa_estimate(a: Any, b: Any, categories: int = 2, *, resamples: int = 2000,
                seed: int = 0) -> Estimate:
    """Cohen's kappa (module docstring) of two raters' code arrays over the units both rated.

    Args:
        a, b: one code per unit (``-1`` = no rating), the same length.
        categories: number of categories V.

    Returns:
        ``(kappa, interval, n)``; kappa ``None`` when no unit was rated by both or p_e = 1.
    """
    feats = _pair_features(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64),
                           categories)
    if len(feats) == 0:
        return None, None, 0

    def stat(sums: np.ndarray) -> np.ndarray:
        return _cohen_from_sums(sums, categories)

    value = _point(stat, feats)
    interval = bootstrap_interval(feats, stat, resamples=resamples, seed=seed) if value is not \
        None else None
    return value, interval, len(feats)


# ---- Fleiss' kappa ------------------------------------------------------------------------


def _fleiss_from_sums(sums: np.ndarray, m: int) -> np.ndarray:
    units = sums[:, 0]
    p_bar = sums[:, 1] / (units * m * (m - 1))
    p_j = sums[:, 2:] / (units * m)[:, None]
    p_e = (p_j * p_j).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (p_bar - p_e) / (1 - p_e)
    return np.where(np.isclose(p_e, 1.0), np.nan, kappa)  # 0/0: undefined, as Cohen's


def fleiss_kappa_estimate(counts: Any, m: int, *, resamples: int = 2000,
                          seed: int = 0) -> Estimate:
    """Fleiss' kappa (module docstring) over the units with exactly ``m`` ratings (m >= 2; the
    design's K raters per unit); ``None`` when there is none or p_e = 1 (then no interval
    either). The value is Fleiss' eqs. 2-9 in
    numpy, the same formula and edge rule as ``aau_core.fleiss_kappa`` (which the tests check it
    equals), so that the point estimate and the resamples are one computation."""
    counts = np.asarray(counts, dtype=np.int64)
    rows = counts[counts.sum(axis=1) == m] if m >= 2 else counts[:0]
    if len(rows) == 0:
        return None, None, 0
    feats = np.column_stack([np.ones(len(rows)), (rows * rows).sum(axis=1) - m, rows])

    def stat(sums: np.ndarray) -> np.ndarray:
        return _fleiss_from_sums(sums, m)

    value = _point(stat, feats)
    interval = bootstrap_interval(feats, stat, resamples=resamples, seed=seed) if value is not \
        None else None
    return value, interval, len(rows)


# ---- Krippendorff's alpha -----------------------------------------------------------------


def _coincidence_features(counts: np.ndarray) -> np.ndarray:
    n = counts.sum(axis=1)
    c = counts[n >= 2].astype(float)
    outer = c[:, :, None] * c[:, None, :]
    diag = np.einsum("uk,kj->ukj", c, np.eye(c.shape[1]))
    return ((outer - diag) / (n[n >= 2] - 1)[:, None, None]).reshape(len(c), c.shape[1] ** 2)


def _alpha_from_sums(sums: np.ndarray, categories: int) -> np.ndarray:
    o = sums.reshape(-1, categories, categories)
    n_c = o.sum(axis=2)
    n = n_c.sum(axis=1)
    expected = n * n - (n_c * n_c).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (n - 1) * (n - np.trace(o, axis1=1, axis2=2)) / expected
    return np.where(np.isclose(expected, 0.0), np.nan, alpha)


def krippendorff_alpha_closed_form(counts: Any) -> float | None:
    """Nominal alpha from the coincidence matrix (module docstring), without the package: what
    the bootstrap resamples compute; the tests check it equals ``krippendorff_alpha``."""
    counts = np.asarray(counts)
    feats = _coincidence_features(counts)
    if len(feats) == 0:
        return None
    return _point(lambda s: _alpha_from_sums(s, counts.shape[1]), feats)


def krippendorff_alpha_estimate(counts: Any, *, resamples: int = 2000, seed: int = 0) -> Estimate:
    """Krippendorff's nominal alpha (module docstring) of a units x categories count array,
    computed by the ``krippendorff`` package over the units with two or more ratings; ``None``
    when there is none or every such rating has one value."""
    import krippendorff

    counts = np.asarray(counts, dtype=np.int64)
    pairable = counts[counts.sum(axis=1) >= 2]
    feats = _coincidence_features(pairable)
    categories = counts.shape[1]
    if len(feats) == 0 or krippendorff_alpha_closed_form(pairable) is None:
        return None, None, len(feats)
    value = float(krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal"))

    def stat(sums: np.ndarray) -> np.ndarray:
        return _alpha_from_sums(sums, categories)

    return value, bootstrap_interval(feats, stat, resamples=resamples, seed=seed), len(feats)
