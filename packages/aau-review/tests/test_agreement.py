"""Every statistic against published worked examples, with their exact published values.

- Fleiss' kappa: J. L. Fleiss, "Measuring nominal scale agreement among many raters",
  Psychological Bulletin 76(5):378-382, 1971, Table 1: 30 patients, 6 psychiatrists each, 5
  diagnoses (depression, personality disorder, schizophrenia, neurosis, other). Fleiss reports
  P_bar = 0.556, P_e = 0.220 and kappa = 0.430. Also the 10-subject x 14-rater x 5-category
  example of the English Wikipedia article "Fleiss' kappa" (P_bar = 0.378, P_e = 0.213, kappa =
  0.210), which is not Fleiss' data.
- Krippendorff's alpha: K. Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011),
  section C, the 4 observers x 12 units nominal example with missing values: alpha = 0.743.
- Cohen's kappa: the 2 x 2 worked example of the English Wikipedia article "Cohen's kappa" (50
  proposals, both raters yes 20, A yes B no 5, A no B yes 10, both no 15): p_o = 0.7, p_e = 0.5,
  kappa = 0.4.
"""

from __future__ import annotations

import numpy as np
import pytest
from aau_review import (
    bootstrap_interval,
    category_counts,
    cohen_kappa_estimate,
    consensus,
    fleiss_kappa_estimate,
    krippendorff_alpha_estimate,
    percent_agreement_estimate,
    scorer_validity,
)
from aau_review._agreement import krippendorff_alpha_closed_form

# Fleiss (1971), Table 1: per patient, the number of the 6 psychiatrists choosing each diagnosis
FLEISS_1971 = [
    [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
    [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0], [0, 2, 0, 4, 0], [1, 0, 2, 0, 3],
    [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0], [1, 0, 0, 4, 1],
    [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6],
]
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]
_ = -1  # no rating
# Krippendorff (2011), section C: observers A-D (rows) x units 1-12, values 1-5, "." missing
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
    [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
]


def _krippendorff_counts():
    ratings = np.array(KRIPPENDORFF_2011).T  # units x observers
    return category_counts(np.where(ratings > 0, ratings - 1, -1), 5)


def test_fleiss_1971_table_1():
    from aau_core import fleiss_kappa

    value, interval, n = fleiss_kappa_estimate(FLEISS_1971, 6)
    assert value == pytest.approx(fleiss_kappa(FLEISS_1971), abs=1e-12)
    assert round(value, 3) == 0.430 and n == 30
    assert round(percent_agreement_estimate(FLEISS_1971)[0], 3) == 0.556  # Fleiss' P_bar
    low, high = interval
    assert low < value < high


def test_wikipedia_fleiss_example():
    value, _, n = fleiss_kappa_estimate(WIKIPEDIA_FLEISS, 14)
    assert round(value, 3) == 0.210 and n == 10
    assert round(percent_agreement_estimate(WIKIPEDIA_FLEISS)[0], 3) == 0.378


def test_krippendorff_2011_nominal_example():
    counts = _krippendorff_counts()
    value, interval, n = krippendorff_alpha_estimate(counts)
    assert round(value, 3) == 0.743
    assert n == 11  # unit 12 has one value only: not pairable
    assert krippendorff_alpha_closed_form(counts) == pytest.approx(value, abs=1e-12)
    assert interval[0] < value <= interval[1]


def test_cohen_wikipedia_example():
    a = [0] * 20 + [0] * 5 + [1] * 10 + [1] * 15
    b = [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15
    value, interval, n = cohen_kappa_estimate(a, b)
    assert value == pytest.approx(0.4, abs=1e-12) and n == 50
    assert interval[0] < 0.4 < interval[1]


def test_closed_form_alpha_and_fleiss_bootstrap_match_the_libraries_on_random_data():
    """The vectorised forms the bootstrap uses equal the package / aau_core on their own."""
    from aau_core import fleiss_kappa as exact
    from aau_review._agreement import _fleiss_from_sums

    rng = np.random.default_rng(3)
    ratings = rng.integers(-1, 3, size=(400, 4))
    counts = category_counts(ratings, 3)
    assert krippendorff_alpha_closed_form(counts) == pytest.approx(
        krippendorff_alpha_estimate(counts)[0], abs=1e-12)
    full = counts[counts.sum(axis=1) == 3]
    sums = np.column_stack([np.ones(len(full)), (full * full).sum(axis=1) - 3, full]).sum(
        axis=0, keepdims=True)
    assert _fleiss_from_sums(sums, 3)[0] == pytest.approx(exact(full.tolist()), abs=1e-12)


def test_unsure_and_missing_are_no_rating():
    """-1 (unsure or not labelled) leaves a unit out of a two-rater table and Fleiss' kappa."""
    a = [0, 0, 1, 1, -1]
    b = [0, 1, 1, 1, 0]
    assert cohen_kappa_estimate(a, b)[2] == 4
    counts = category_counts(np.column_stack([a, b]), 2)
    assert fleiss_kappa_estimate(counts, 2)[2] == 4
    assert percent_agreement_estimate(counts)[0] == 0.75


def test_undefined_statistics_are_none():
    assert cohen_kappa_estimate([0, 0, 0], [0, 0, 0]) == (None, None, 3)  # p_e = 1
    assert cohen_kappa_estimate([0, -1], [-1, 0]) == (None, None, 0)
    assert krippendorff_alpha_estimate([[2, 0], [3, 0]])[0] is None  # one value only
    assert percent_agreement_estimate([[1, 0], [0, 1]]) == (None, None, 0)
    assert fleiss_kappa_estimate([[1, 1]], 3) == (None, None, 0)
    # every rating in one category: p_e = 1, kappa 0/0 (as aau_core.fleiss_kappa)
    assert fleiss_kappa_estimate([[2, 0], [2, 0]], 2) == (None, None, 2)


def test_fleiss_interval_leaves_out_the_resamples_where_it_is_undefined():
    """One rater says pass on all 12 units, the other fails 3: kappa = -0.143. A resample with
    no failing unit has p_e = 1 (undefined), and must not be counted as kappa 1.0: the best
    defined resample (11 agreeing units and one split) is -0.0435, so no bound can exceed it."""
    from aau_core import fleiss_kappa

    counts = [[2, 0]] * 9 + [[1, 1]] * 3
    value, interval, n = fleiss_kappa_estimate(counts, 2)
    assert n == 12 and value == pytest.approx(fleiss_kappa(counts), abs=1e-12)
    assert value == pytest.approx(-0.142857, abs=1e-6)
    best = fleiss_kappa([[2, 0]] * 11 + [[1, 1]])
    assert best == pytest.approx(-0.043478, abs=1e-6)
    assert interval is not None and interval[0] <= value <= interval[1] <= best + 1e-12


def test_bootstrap_is_seeded_and_resamples_units():
    """Resampling distinct rows by multinomial counts is resampling units: the interval of a
    mean agrees with aau_core's unit-by-unit percentile bootstrap (another random stream) to
    within the Monte Carlo error, and the same seed gives the same interval."""
    from aau_core import bootstrap_ci

    values = [1.0] * 30 + [0.0] * 20
    feats = np.array(values)[:, None]

    def mean(sums):
        return sums[:, 0] / len(values)

    one = bootstrap_interval(feats, mean, resamples=4000, seed=5)
    assert one == bootstrap_interval(feats, mean, resamples=4000, seed=5)
    from aau_review._bootstrap import resampled_sums

    five = resampled_sums(feats, resamples=50, seed=5)
    assert five.shape == (50, 1) and (five == resampled_sums(feats, resamples=50, seed=5)).all()
    assert (five != resampled_sums(feats, resamples=50, seed=6)).any()
    reference = bootstrap_ci(values, resamples=4000, seed=5)
    assert one == pytest.approx(reference, abs=0.021)  # one unit of 1/50 either way
    assert bootstrap_interval(np.ones((3, 1)), lambda s: s[:, 0] / 3, resamples=100,
                              seed=0) == (1.0, 1.0)
    assert bootstrap_interval(np.empty((0, 1)), mean, resamples=100, seed=0) is None


def test_consensus_majority_ties_and_unsure():
    ratings = np.array([[0, 0, 1], [1, 1, -1], [0, 1, -1], [-1, -1, -1], [-1, -1, -1]])
    result = consensus(ratings, unsure_counts=[0, 1, 1, 2, 0])
    assert result.codes.tolist() == [0, 1, -1, -1, -1]
    assert result.tie.tolist() == [False, False, True, False, False]
    assert result.unsure.tolist() == [False, False, False, True, False]
    assert result.unlabelled.tolist() == [False, False, False, False, True]


def test_scorer_validity_confusion_and_wilson():
    """tp 40, fp 10, fn 0, tn 0 and a scorer that never fails: the exact rates and intervals."""
    scorer = [0] * 50 + [1] * 0 + [-1] * 3
    truth = [0] * 40 + [1] * 10 + [0] * 3
    v = scorer_validity(scorer, truth)
    assert (v.units, v.tp, v.fp, v.fn, v.tn) == (50, 40, 10, 0, 0)
    assert v.accuracy[0] == 0.8 and v.precision[0] == 0.8 and v.recall[0] == 1.0
    low, high = v.recall[1]
    assert (round(low, 4), high) == (0.9124, 1.0)  # Wilson for 40 of 40
    assert v.f1[0] == pytest.approx(80 / 90)
    assert v.kappa[0] == 0.0  # scorer constant: p_o = p_e = 0.8
    none = scorer_validity([1] * 10, [1] * 10)
    assert none.precision == (None, None, 0) and none.f1 == (None, None, 10)
    wilson_zero = scorer_validity([1] * 50, [0] * 50)
    assert wilson_zero.accuracy[0] == 0.0
    assert [round(x, 4) for x in wilson_zero.accuracy[1]] == [0.0, 0.0713]  # 0 of 50
