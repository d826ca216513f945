"""Statistics against values computed by hand from their published formulas."""

from __future__ import annotations

import math

import pytest
from aau_core import bootstrap_ci, pass_at_k, pass_hat_k, wilson_interval


def _wilson_by_hand(c, n, z=1.959963984540054):
    p = c / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = (z / (1 + z * z / n)) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("c", "n"), [(8, 10), (1, 3), (50, 100), (3, 7)])
def test_wilson_matches_formula(c, n):
    low, high = wilson_interval(c, n)
    want = _wilson_by_hand(c, n)
    assert low == pytest.approx(want[0], abs=1e-12)
    assert high == pytest.approx(want[1], abs=1e-12)
    assert low <= c / n <= high


def test_wilson_published_value():
    # 8 of 10: Wilson 95 % interval is (0.4902, 0.9433) (Brown, Cai & DasGupta 2001 style tables)
    low, high = wilson_interval(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)


def test_wilson_edges_stay_in_unit_interval():
    assert wilson_interval(0, 5)[0] == 0.0
    assert wilson_interval(5, 5)[1] == 1.0
    low, high = wilson_interval(3, 3)
    assert round(low, 6) == 0.438503 and high == 1.0
    with pytest.raises(ValueError):
        wilson_interval(1, 0)
    with pytest.raises(ValueError):
        wilson_interval(4, 3)


def test_scenario_wilson_interval_is_wilson_over_scenarios_of_per_scenario_rates():
    from aau_core._run._statistics import scenario_wilson_interval

    # 3 scenarios passing 2/3, 3/3 and 0/3 of their repeats: n = 3, successes = 5/3
    assert scenario_wilson_interval([2 / 3, 1.0, 0.0]) == pytest.approx(
        _wilson_by_hand(5 / 3, 3), abs=1e-12)
    assert scenario_wilson_interval([1.0] * 3 + [0.0] * 2) == wilson_interval(3, 5)
    low, high = scenario_wilson_interval([0.0] * 50)
    assert low == 0.0 and round(high, 4) == 0.0713
    with pytest.raises(ValueError, match="at least one scenario"):
        scenario_wilson_interval([])


@pytest.mark.parametrize(("low", "high", "ndigits", "want"), [
    (0.0, 0.07134, 3, (0.0, 0.071)),          # nearest, as usual
    (0.0, 0.0000384, 4, (0.0, 0.0001)),       # would collapse: the upper end moves up
    (0.0, 0.0000384, 3, (0.0, 0.001)),
    (0.99996, 1.0, 4, (0.9999, 1.0)),         # the upper end is 1: the lower moves down
    (0.25, 0.25, 4, (0.25, 0.25)),            # a zero-width input stays zero width
    (0.23072428, 0.88237923, 4, (0.2307, 0.8824)),
])
def test_round_rate_interval_never_collapses_a_positive_width(low, high, ndigits, want):
    from aau_core._run._statistics import round_rate_interval

    assert round_rate_interval(low, high, ndigits) == want


def test_pass_hat_k_tau_bench_definition():
    # scenario A: 2 of 3 succeed; B: 3 of 3; C: 0 of 3
    counts = [(2, 3), (3, 3), (0, 3)]
    assert pass_hat_k(counts, 1) == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert pass_hat_k(counts, 2) == pytest.approx((1 / 3 + 1 + 0) / 3)  # C(2,2)/C(3,2) = 1/3
    assert pass_hat_k(counts, 3) == pytest.approx((0 + 1 + 0) / 3)
    with pytest.raises(ValueError):
        pass_hat_k(counts, 4)
    with pytest.raises(ValueError):
        pass_hat_k([], 1)


def test_pass_at_k_chen_definition():
    counts = [(1, 4), (0, 4)]
    # 1 - C(3,2)/C(4,2) = 1 - 3/6 = 0.5 ; second scenario 0
    assert pass_at_k(counts, 2) == pytest.approx(0.25)
    assert pass_at_k([(4, 4)], 4) == 1.0


def test_bootstrap_is_seeded_and_brackets_the_mean():
    values = [((i * 37) % 101) / 100 for i in range(30)]  # 30 distinct values in [0, 1]
    a = bootstrap_ci(values, seed=0)
    b = bootstrap_ci(values, seed=0)
    c = bootstrap_ci(values, seed=1)
    assert a == b
    assert a != c
    mean = sum(values) / len(values)
    assert a[0] < mean < a[1]
    assert min(values) <= a[0] and a[1] <= max(values)
    assert a[1] - a[0] < 0.5
    assert bootstrap_ci([2.0], seed=0) == (2.0, 2.0)
    with pytest.raises(ValueError):
        bootstrap_ci([])


def test_bootstrap_blocks_do_not_change_the_result(monkeypatch):
    from aau_core._run import _statistics

    values = [((i * 7919) % 1000) / 1000 for i in range(5000)]
    whole = bootstrap_ci(values, resamples=300, seed=3)
    monkeypatch.setattr(_statistics, "_BLOCK_ELEMENTS", 5000 * 7)  # 7 resamples per block
    assert bootstrap_ci(values, resamples=300, seed=3) == whole


def test_bootstrap_quantiles_match_numpys_linear_method():
    import numpy as np
    from aau_core._run import _statistics

    values = np.array(sorted([((i * 53) % 97) / 7 for i in range(101)]))
    for q in (0.0, 0.025, 0.5, 0.975, 1.0, 0.3333):
        assert _statistics._quantile_sorted(values, q) == pytest.approx(
            float(np.quantile(values, q)), abs=1e-12)


# --------------------------------------------------------------------------- aau-harness 1.6 bootstrap


def _bootstrap_as_aau16(values):
    """The 1.6 algorithm, spelled out: Random(0), 2,000 x randrange(n), sum / n, sorted, [50], [1950]."""
    import random

    rng = random.Random(0)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(2000))
    return means[50], means[1950]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 17, 64, 100, 257])
def test_compat_bootstrap_is_bit_identical_to_the_16_algorithm(n):
    import random

    from aau_core import compat_bootstrap_ci

    rng = random.Random(n)
    for values in ([rng.random() for _ in range(n)],
                   [rng.choice([0.0, 1 / 3, 2 / 3, 1.0]) for _ in range(n)]):
        assert compat_bootstrap_ci(values) == _bootstrap_as_aau16(values)


def test_compat_bootstrap_empty_is_zero_as_in_16():
    from aau_core import compat_bootstrap_ci

    assert compat_bootstrap_ci([]) == (0.0, 0.0)


def test_compat_row_sums_follow_cpython_312_neumaier(monkeypatch):
    """On 3.12+ CPython's sum() of floats is Neumaier-compensated; reproduce it exactly."""
    import math
    import random
    import types

    import numpy as np
    from aau_core._run import _statistics

    def neumaier(xs):
        total, comp = 0.0, 0.0
        for x in xs:
            t = total + x
            comp += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
            total = t
        return total + comp if comp and math.isfinite(comp) else total

    rng = random.Random(3)
    rows = [[rng.choice([0.1, 1e16, -1e16, 1 / 3, 2.5e-8]) for _ in range(40)] for _ in range(50)]
    monkeypatch.setattr(_statistics, "sys", types.SimpleNamespace(version_info=(3, 12, 0)))
    got = _statistics._python_sum_rows(np.array(rows))
    assert [float(x) for x in got] == [neumaier(r) for r in rows]
    monkeypatch.setattr(_statistics, "sys", types.SimpleNamespace(version_info=(3, 11, 9)))
    got = _statistics._python_sum_rows(np.array(rows))
    assert [float(x) for x in got] == [sum(r[1:], r[0]) for r in rows]


# --------------------------------------------------------------------------- clustered stderr


def test_clustered_stderr_with_one_value_per_scenario_is_the_ordinary_stderr():
    import numpy as np
    from aau_core import clustered_stderr

    values = [0.2, 0.9, 0.4, 1.0, 0.0, 0.7]
    expected = float(np.std(values, ddof=1) / np.sqrt(len(values)))
    assert clustered_stderr({i: [v] for i, v in enumerate(values)}) == pytest.approx(expected)


def test_clustered_stderr_by_hand():
    from aau_core import clustered_stderr

    # two scenarios x two repeats: mean 0.5; residual totals (1-.5)+(1-.5)=1 and -1;
    # G/(G-1) * (1 + 1) / N^2 = 2 * 2 / 16 = 0.25 -> SE 0.5
    assert clustered_stderr({"a": [1.0, 1.0], "b": [0.0, 0.0]}) == pytest.approx(0.5)
    # identical repeats widen the error against treating 4 units as independent (0.2887)
    assert clustered_stderr({"a": [1.0, 0.0], "b": [1.0, 0.0]}) == 0.0


def test_clustered_stderr_refuses_too_few_scenarios():
    from aau_core import clustered_stderr

    with pytest.raises(ValueError, match="two scenarios"):
        clustered_stderr({"a": [1.0, 0.0]})
    with pytest.raises(ValueError, match="at least one value"):
        clustered_stderr({"a": [1.0], "b": []})


def test_bootstrap_cis_gives_each_list_exactly_bootstrap_ci():
    import random

    from aau_core._run._statistics import bootstrap_cis

    rng = random.Random(5)
    lists = [[rng.random() for _ in range(40)], [1.0] * 40, [rng.random() for _ in range(7)],
             [float(rng.random() < 0.5) for _ in range(40)]]
    assert bootstrap_cis(lists, resamples=500, seed=3) == [
        bootstrap_ci(v, resamples=500, seed=3) for v in lists]
    with pytest.raises(ValueError, match="at least one"):
        bootstrap_cis([[1.0], []])


def test_compat_bootstrap_in_small_blocks_is_still_bit_identical(monkeypatch):
    import random

    from aau_core import compat_bootstrap_ci
    from aau_core._run import _statistics

    monkeypatch.setattr(_statistics, "_BLOCK_ELEMENTS", 1000)  # 2,000 x 300 indexes: 600 blocks
    _statistics._COMPAT_INDEX_CACHE.clear()
    rng = random.Random(11)
    values = [rng.random() for _ in range(300)]
    assert compat_bootstrap_ci(values) == _bootstrap_as_aau16(values)
    assert 300 not in _statistics._COMPAT_INDEX_CACHE  # streamed, not kept
