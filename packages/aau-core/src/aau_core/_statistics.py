"""Statistics for evaluation results, with the source of every formula.

- ``wilson_interval``: Wilson score interval for a binomial proportion
  (E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
  JASA 22(158), 1927; see also Brown, Cai & DasGupta, Statistical Science 16(2), 2001).
- ``pass_hat_k``: pass^k, the probability that k independent trials of the same scenario all
  succeed, estimated per scenario without bias as C(c, k) / C(n, k) and averaged over scenarios
  (Yao et al., "tau-bench", arXiv:2406.12045, 2024, section 5).
- ``pass_at_k``: pass@k, the probability that at least one of k trials succeeds,
  1 - C(n - c, k) / C(n, k), averaged over scenarios (Chen et al., "Evaluating Large Language
  Models Trained on Code", arXiv:2107.03374, 2021).
- ``bootstrap_ci``: percentile bootstrap over scenarios (Efron & Tibshirani, "An Introduction to
  the Bootstrap", 1993, ch. 13), numpy-vectorised, seeded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

_BLOCK_ELEMENTS = 1_000_000
Z95 = 1.959963984540054  # standard normal quantile for a two-sided 95 % interval


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion.

    Args:
        successes: number of successes, in [0, n]; may be fractional when it is the sum of
            per-scenario success rates (repeats averaged first).
        n: number of trials (independent units), >= 1.
        z: normal quantile (1.96 for 95 %).

    Returns:
        ``(low, high)``, both in [0, 1]; ``low <= successes / n <= high``.

        centre = (p + z^2 / 2n) / (1 + z^2 / n)
        half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)

    Raises:
        ValueError: ``n < 1`` or ``successes`` outside [0, n].
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    if not 0 <= successes <= n:
        raise ValueError("successes must be within [0, n]")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0))
    low = max(0.0, centre - half)
    high = min(1.0, centre + half)
    # guard the documented ordering against floating-point rounding at p = 0 or 1
    return min(low, p), max(high, p)


def _check_counts(counts: Sequence[tuple[int, int]], k: int) -> None:
    if k < 1:
        raise ValueError("k must be >= 1")
    if not counts:
        raise ValueError("need at least one scenario")
    for c, n in counts:
        if n < k:
            raise ValueError(f"k={k} exceeds a scenario's trial count n={n}")
        if not 0 <= c <= n:
            raise ValueError(f"successes c={c} outside [0, n={n}]")


def pass_hat_k(counts: Sequence[tuple[int, int]], k: int) -> float:
    """pass^k (tau-bench): mean over scenarios of C(c, k) / C(n, k).

    Args:
        counts: ``(successes c, trials n)`` per scenario.
        k: trials that must all succeed, 1 <= k <= every n.

    Returns:
        a rate in [0, 1]; pass^1 equals the mean success rate.

    Raises:
        ValueError: empty ``counts``, ``k < 1``, ``k > n`` for some scenario, or ``c`` outside [0, n].
    """
    _check_counts(counts, k)
    return sum(math.comb(c, k) / math.comb(n, k) for c, n in counts) / len(counts)


def pass_at_k(counts: Sequence[tuple[int, int]], k: int) -> float:
    """pass@k (Chen et al.): mean over scenarios of 1 - C(n - c, k) / C(n, k).

    Args and errors as ``pass_hat_k``. Returns a rate in [0, 1].
    """
    _check_counts(counts, k)
    return sum(1 - math.comb(n - c, k) / math.comb(n, k) for c, n in counts) / len(counts)


def bootstrap_ci(
    scenario_values: Sequence[float],
    *,
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean over scenarios.

    Args:
        scenario_values: one value per scenario (repeats already averaged).
        resamples: bootstrap resamples (>= 1).
        seed: seed of numpy's PCG64 generator; the same inputs and seed give the same interval.
        confidence: interval mass, in (0, 1).

    Returns:
        ``(low, high)``: the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles
        (numpy's default linear interpolation) of the resampled means.

    Raises:
        ValueError: no values, ``resamples < 1``, or ``confidence`` outside (0, 1).
    """
    if len(scenario_values) == 0:
        raise ValueError("need at least one scenario value")
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    first = float(scenario_values[0])
    if all(float(v) == first for v in scenario_values):  # every resample has the same mean
        return first, first

    import numpy as np

    values = np.asarray(scenario_values, dtype=float)
    n = len(values)
    rng = np.random.default_rng(seed)
    # Draw the resamples in blocks of about a million indexes so memory stays flat for large n;
    # the generator's stream is consumed in the same order, so the result does not depend on
    # the block size.
    block = max(1, _BLOCK_ELEMENTS // n)
    means = np.empty(resamples)
    for start in range(0, resamples, block):
        stop = min(start + block, resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[idx].mean(axis=1)
    alpha = (1 - confidence) / 2
    means.sort()
    return _quantile_sorted(means, alpha), _quantile_sorted(means, 1 - alpha)


def _quantile_sorted(values: Any, q: float) -> float:
    """Quantile ``q`` of sorted values by linear interpolation between closest ranks: position
    q * (n - 1) (Hyndman & Fan 1996 definition 7, numpy's default ``"linear"`` method)."""
    position = q * (len(values) - 1)
    lower = int(position)
    upper = min(lower + 1, len(values) - 1)
    fraction = position - lower
    return float(values[lower] + (values[upper] - values[lower]) * fraction)
