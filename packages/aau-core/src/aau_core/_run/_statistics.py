"""Statistics for evaluation results, with the source of every formula.

- ``wilson_interval``: Wilson score interval for a binomial proportion
  (E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
  JASA 22(158), 1927; see also Brown, Cai & DasGupta, Statistical Science 16(2), 2001).
  ``scenario_wilson_interval`` applies it to a rate measured over scenarios (the one rule that
  receipts and ``run_eval`` share); ``round_rate_interval`` rounds a rate's interval for a file
  or a screen without ever collapsing it to zero width.
- ``pass_hat_k``: pass^k, the probability that k independent trials of the same scenario all
  succeed, estimated per scenario without bias as C(c, k) / C(n, k) and averaged over scenarios
  (Yao et al., "tau-bench", arXiv:2406.12045, 2024, section 5).
- ``pass_at_k``: pass@k, the probability that at least one of k trials succeeds,
  1 - C(n - c, k) / C(n, k), averaged over scenarios (Chen et al., "Evaluating Large Language
  Models Trained on Code", arXiv:2107.03374, 2021).
- ``bootstrap_ci``/``bootstrap_cis``: percentile bootstrap over scenarios (Efron & Tibshirani,
  "An Introduction to the Bootstrap", 1993, ch. 13), numpy-vectorised, seeded.
- ``compat_bootstrap_ci``: the percentile bootstrap of aau-harness 1.6 (``runner._bootstrap_ci``),
  reproduced bit for bit from the same Mersenne Twister stream, vectorised with numpy.
- ``clustered_stderr``: standard error of the mean of unit values clustered by scenario (the
  cluster-robust "sandwich" variance; Liang & Zeger, Biometrika 73(1), 1986; E. Miller, "Adding
  Error Bars to Evals", arXiv:2411.00640, 2024, eq. 4; Inspect AI's ``stderr(cluster=...)``).
- ``fleiss_kappa``: Fleiss' kappa, chance-corrected agreement of a fixed number of raters
  assigning subjects to nominal categories (J. L. Fleiss, "Measuring nominal scale agreement
  among many raters", Psychological Bulletin 76(5), 1971), computed in exact rational arithmetic.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Mapping, Sequence
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


def scenario_wilson_interval(scenario_rates: Sequence[float], z: float = Z95
                             ) -> tuple[float, float]:
    """Wilson score interval of a rate measured over scenarios, each scenario one trial.

    The rule receipts (``aau_adapters._receipt``) and ``run_eval`` share: ``p`` is the mean over
    scenarios of each scenario's rate (its repeats averaged first) and ``n`` the number of
    scenarios, so repeats never narrow an interval below what the independent scenarios
    support; with one repeat per scenario it is the ordinary Wilson interval of
    ``successes / n``. ``wilson_interval(math.fsum(scenario_rates), n)``, the sum clipped to
    ``[0, n]`` against floating-point rounding.

    Args:
        scenario_rates: one rate in [0, 1] per scenario, at least one.
        z: normal quantile (1.96 for 95 %).

    Returns:
        ``(low, high)`` in [0, 1]; ``low < high`` for every ``n >= 1`` (never zero width).

    Raises:
        ValueError: no scenarios.
    """
    n = len(scenario_rates)
    if n == 0:
        raise ValueError("need at least one scenario")
    total = math.fsum(scenario_rates)
    return wilson_interval(min(max(total, 0.0), n), n, z)


def round_rate_interval(low: float, high: float, ndigits: int) -> tuple[float, float]:
    """Round a rate's interval ends to ``ndigits`` decimals without collapsing it.

    Each end is rounded to the nearest (``round``); when the two then coincide although
    ``low < high`` (a Wilson interval over many scenarios, e.g. 0 of 100,000 is
    [0, 0.0000384]), the upper end moves up one step of ``10**-ndigits`` (the lower end down
    when the upper is already 1), so a measured rate is never shown as certain. Rounding is
    monotonic, so a point inside ``[low, high]`` rounded alike stays inside.

    Args:
        low, high: the interval, ``0 <= low <= high <= 1``.
        ndigits: decimals kept (4 in aggregate files, 3 on screen).

    Returns:
        ``(low, high)`` rounded; equal only when ``low == high`` was given.
    """
    lo, hi = round(low, ndigits), round(high, ndigits)
    if lo == hi and low < high:
        step = 10.0 ** -ndigits
        if hi < 1.0:
            hi = round(min(1.0, hi + step), ndigits)
        else:
            lo = round(max(0.0, lo - step), ndigits)
    return lo, hi


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
    return bootstrap_cis([scenario_values], resamples=resamples, seed=seed,
                         confidence=confidence)[0]


def bootstrap_cis(
    value_lists: Sequence[Sequence[float]],
    *,
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[tuple[float, float]]:
    """``bootstrap_ci`` for several metrics at once, sharing the resampled indexes.

    Each list gets exactly the interval ``bootstrap_ci(values, resamples=..., seed=...)``
    returns: lists of the same length are resampled with the same index draws, which is what a
    fresh generator with the same seed would draw for each of them anyway, so drawing them once
    only saves time.

    Args:
        value_lists: per metric, one value per scenario (repeats already averaged).
        resamples, seed, confidence: as ``bootstrap_ci``.

    Returns:
        one ``(low, high)`` per list, in order.

    Raises:
        ValueError: an empty list, ``resamples < 1``, or ``confidence`` outside (0, 1).
    """
    if any(len(v) == 0 for v in value_lists):
        raise ValueError("need at least one scenario value")
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    out: list[tuple[float, float] | None] = [None] * len(value_lists)
    by_length: dict[int, list[int]] = {}
    for i, values in enumerate(value_lists):
        first = float(values[0])
        if all(float(v) == first for v in values):  # every resample has the same mean
            out[i] = (first, first)
        else:
            by_length.setdefault(len(values), []).append(i)
    if by_length:
        import numpy as np

        alpha = (1 - confidence) / 2
        for n, members in by_length.items():
            arrays = [np.asarray(value_lists[i], dtype=float) for i in members]
            means = [np.empty(resamples) for _ in members]
            rng = np.random.default_rng(seed)
            # Draw the resamples in blocks of about a million indexes so memory stays flat for
            # large n; the generator's stream is consumed in the same order, so the result does
            # not depend on the block size.
            block = max(1, _BLOCK_ELEMENTS // n)
            for start in range(0, resamples, block):
                stop = min(start + block, resamples)
                idx = rng.integers(0, n, size=(stop - start, n))
                for values, m in zip(arrays, means, strict=True):
                    m[start:stop] = np.take(values, idx).mean(axis=1)
            for i, m in zip(members, means, strict=True):
                m.sort()
                out[i] = (_quantile_sorted(m, alpha), _quantile_sorted(m, 1 - alpha))
    return [interval for interval in out if interval is not None]


def _quantile_sorted(values: Any, q: float) -> float:
    """Quantile ``q`` of sorted values by linear interpolation between closest ranks: position
    q * (n - 1) (Hyndman & Fan 1996 definition 7, numpy's default ``"linear"`` method)."""
    position = q * (len(values) - 1)
    lower = int(position)
    upper = min(lower + 1, len(values) - 1)
    fraction = position - lower
    return float(values[lower] + (values[upper] - values[lower]) * fraction)


COMPAT_RESAMPLES = 2000
COMPAT_SEED = 0
_COMPAT_INDEX_CACHE: dict[int, Any] = {}
_COMPAT_CACHE_LIMIT = 8


def _compat_index_blocks(n: int, block_elements: int | None = None) -> Iterator[Any]:
    """The ``COMPAT_RESAMPLES x n`` scenario indexes that ``random.Random(0)`` draws with
    ``randrange(n)``, in draw order, as ``int64`` arrays of whole resamples (rows), about
    ``block_elements`` (default ``_BLOCK_ELEMENTS``) indexes per block so memory stays flat for
    large ``n``.

    CPython's ``randrange(n)`` takes ``k = n.bit_length()`` bits per try from ``getrandbits(k)``
    (the top ``k`` bits of one 32-bit Mersenne Twister output when ``k <= 32``) and rejects
    tries ``>= n``. numpy's ``MT19937`` started from the same 624-word state yields the same
    32-bit outputs, so the indexes are the accepted tries in order.
    """
    import random

    import numpy as np

    k = n.bit_length()
    state = random.Random(COMPAT_SEED).getstate()[1]
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937",
                  "state": {"key": np.asarray(state[:624], dtype=np.uint32), "pos": state[624]}}
    shift = np.uint64(32 - k)
    rows_per_block = max(1, (block_elements or _BLOCK_ELEMENTS) // n)
    pending = np.empty(0, dtype=np.uint64)
    produced = 0
    while produced < COMPAT_RESAMPLES:
        rows = min(rows_per_block, COMPAT_RESAMPLES - produced)
        need = rows * n
        while len(pending) < need:
            # acceptance is > 1/2, so about twice the shortfall (plus slack) finishes in one go
            tries = bits.random_raw(2 * (need - len(pending)) + 1024) >> shift
            pending = np.concatenate([pending, tries[tries < n]])
        yield pending[:need].astype(np.int64).reshape(rows, n)
        pending = pending[need:]
        produced += rows


def _compat_indices(n: int) -> list[Any]:
    """All of ``_compat_index_blocks(n)`` in one block, cached for the last few ``n`` (every
    metric of a run reuses ``Random(0)``, so they all draw the same indexes). For small ``n``."""
    cached = _COMPAT_INDEX_CACHE.get(n)
    if cached is None:
        cached = list(_compat_index_blocks(n, block_elements=n * COMPAT_RESAMPLES))
        if len(_COMPAT_INDEX_CACHE) >= _COMPAT_CACHE_LIMIT:
            _COMPAT_INDEX_CACHE.clear()
        _COMPAT_INDEX_CACHE[n] = cached
    return cached


def _python_sum_rows(samples: Any) -> Any:
    """Row sums of a 2-D float array exactly as CPython's ``sum()`` adds a list of floats.

    CPython < 3.12 adds left to right; 3.12 and later use Neumaier's compensated summation
    (bltinmodule.c, ``builtin_sum_impl``), adding the compensation at the end when it is
    non-zero and finite. Both are reproduced column by column, vectorised over rows.
    """
    import numpy as np

    if sys.version_info < (3, 12):
        return np.cumsum(samples, axis=1)[:, -1]
    total = np.zeros(samples.shape[0])
    comp = np.zeros(samples.shape[0])
    with np.errstate(invalid="ignore", over="ignore"):
        for j in range(samples.shape[1]):
            x = samples[:, j]
            t = total + x
            big = np.abs(total) >= np.abs(x)
            comp += np.where(big, (total - t) + x, (x - t) + total)
            total = t
        add = (comp != 0) & np.isfinite(comp)
    return np.where(add, total + comp, total)


def compat_bootstrap_ci(scenario_values: Sequence[float]) -> tuple[float, float]:
    """The 95 % percentile bootstrap of aau-harness 1.6, bit for bit.

    1.6 (``runner._bootstrap_ci``) seeds ``random.Random(0)`` afresh for each metric, draws
    2,000 resamples of ``n`` scenario indexes with ``randrange(n)``, takes each resample's
    mean as ``sum(sample) / n``, sorts the means and returns the 51st and 1,951st
    (``means[50], means[1950]``, i.e. ``int(0.025 * 2000)`` and ``int(0.975 * 2000)``). This
    function draws the same indexes from the same Mersenne Twister stream and adds in the same
    order as the running interpreter's ``sum()``, so on the same CPython it returns the very
    floats 1.6 returns -- about 10x faster.

    Args:
        scenario_values: one value per scenario (repeats averaged first), in 1.6's order
            (scenario ids sorted as strings).

    Returns:
        ``(low, high)``; ``(0.0, 0.0)`` for no values, as 1.6 returns.
    """
    n = len(scenario_values)
    if n == 0:
        return (0.0, 0.0)
    if n.bit_length() > 32:  # never in practice; CPython then joins several 32-bit words
        raise ValueError("compat bootstrap supports at most 2**32 - 1 scenarios")
    import numpy as np

    values = np.asarray(scenario_values, dtype=float)
    blocks = (_compat_indices(n) if n * COMPAT_RESAMPLES <= _BLOCK_ELEMENTS * 4
              else _compat_index_blocks(n))
    means = np.concatenate([_python_sum_rows(np.take(values, idx)) for idx in blocks]) / n
    means.sort()
    low = int(0.025 * COMPAT_RESAMPLES)
    high = int(0.975 * COMPAT_RESAMPLES)
    return float(means[low]), float(means[high])


def clustered_stderr(values_by_scenario: Mapping[Any, Sequence[float]]) -> float:
    """Standard error of the overall mean of unit values, clustered by scenario.

    With ``N`` units in ``G`` scenarios (clusters), unit values ``x_gi``, overall mean
    ``x_bar = sum(x_gi) / N`` and residual totals ``e_g = sum_i (x_gi - x_bar)``:

        SE = sqrt( G / (G - 1) * sum_g e_g^2 ) / N

    the cluster-robust ("sandwich") variance of a mean (Liang & Zeger 1986) with the usual
    ``G / (G - 1)`` small-sample factor, as in E. Miller, "Adding Error Bars to Evals: A
    Statistical Approach to Language Model Evaluations", arXiv:2411.00640 (2024), eq. 4, and
    Inspect AI's ``stderr(cluster=...)``. With one unit per scenario it is the ordinary
    ``sqrt(sum (x - x_bar)^2 / (N (N - 1)))``. Repeats of a scenario are correlated, so this is
    wider than treating every unit as independent.

    Args:
        values_by_scenario: scenario id -> that scenario's unit values (repeats), each
            sequence non-empty.

    Returns:
        the standard error, in the values' unit; ``0.0`` when every value is equal.

    Raises:
        ValueError: fewer than two scenarios, or a scenario without values.
    """
    groups = list(values_by_scenario.values())
    if len(groups) < 2:
        raise ValueError("clustered standard error needs at least two scenarios")
    if any(len(g) == 0 for g in groups):
        raise ValueError("every scenario needs at least one value")
    sizes = [len(g) for g in groups]
    totals = [math.fsum(g) for g in groups]
    total_n = sum(sizes)
    mean = math.fsum(totals) / total_n
    # e_g = sum_i (x_gi - x_bar) = total_g - n_g * x_bar
    squares = math.fsum((t - k * mean) ** 2 for t, k in zip(totals, sizes, strict=True))
    n_clusters = len(groups)
    return math.sqrt(n_clusters / (n_clusters - 1) * squares) / total_n


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa for ``N`` subjects, each rated by the same number ``r`` of raters.

    With ``n_ij`` the number of raters who put subject ``i`` in category ``j``:

        P_i   = (sum_j n_ij^2 - r) / (r (r - 1))        agreement on subject i
        P_bar = mean_i P_i                               observed agreement
        p_j   = sum_i n_ij / (N r)                       share of all assignments in category j
        P_e   = sum_j p_j^2                              agreement expected by chance
        kappa = (P_bar - P_e) / (1 - P_e)

    (Fleiss 1971, eqs. 2-9.) Everything is computed with exact fractions and converted to a
    float once, so the result does not depend on summation order. When every assignment falls
    in one category, ``P_e = 1`` and the ratio is 0/0: kappa is undefined, and the result is
    ``None`` (as statsmodels' NaN; aau-harness 1.6's human baseline reported ``1.0`` there, a
    number no data measured: raters who never had to choose show no agreement beyond chance).

    Args:
        counts: one row per subject, one column per category, ``counts[i][j] = n_ij`` >= 0;
            every row sums to the same ``r``. Categories nobody used may be included or left
            out; they do not change the value.

    Returns:
        kappa in [-1, 1] (not rounded), or ``None`` when it is undefined: fewer than two
        raters per subject (``r < 2``), or every assignment in one category (``P_e = 1``).

    Raises:
        ValueError: no subjects, a row of another length than the first, a negative or
            non-integer count, or rows with different rater totals.
    """
    from fractions import Fraction

    rows = [list(row) for row in counts]
    if not rows:
        raise ValueError("need at least one subject")
    width = len(rows[0])
    for row in rows:
        if len(row) != width:
            raise ValueError("every subject needs one count per category")
        if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in row):
            raise ValueError("counts must be non-negative integers")
    raters = sum(rows[0])
    if any(sum(row) != raters for row in rows):
        raise ValueError("every subject needs the same number of raters")
    if raters < 2:
        return None
    n_subjects = len(rows)
    p_bar = Fraction(
        sum(sum(c * c for c in row) - raters for row in rows), n_subjects * raters * (raters - 1)
    )
    assignments = n_subjects * raters
    p_e = sum((Fraction(sum(row[j] for row in rows), assignments) ** 2 for j in range(width)),
              Fraction(0))
    if p_e == 1:
        return None
    return float((p_bar - p_e) / (1 - p_e))
