"""Fleiss' kappa: the published example, a direct float transcription, and its edge cases."""

from __future__ import annotations

import random

import pytest
from aau_core import fleiss_kappa

# Wikipedia's "Fleiss' kappa" worked example: 10 subjects, 14 raters, 5 categories, kappa 0.210
# (P_bar = 0.378, P_e = 0.213).
WORKED = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]


def _float_kappa(counts):
    n, r = len(counts), sum(counts[0])
    p_i = [(sum(c * c for c in row) - r) / (r * (r - 1)) for row in counts]
    p_bar = sum(p_i) / n
    p_j = [sum(row[j] for row in counts) / (n * r) for j in range(len(counts[0]))]
    p_e = sum(p * p for p in p_j)
    return (p_bar - p_e) / (1 - p_e)


def test_published_worked_example():
    assert round(fleiss_kappa(WORKED), 3) == 0.210


def test_matches_the_formula_on_random_tables():
    rng = random.Random(6)
    for _ in range(200):
        raters, cats, subjects = rng.randint(2, 9), rng.randint(2, 5), rng.randint(1, 12)
        rows = []
        for _ in range(subjects):
            row = [0] * cats
            for _ in range(raters):
                row[rng.randrange(cats)] += 1
            rows.append(row)
        if sum(sum(r[j] for r in rows) ** 2 for j in range(cats)) == (subjects * raters) ** 2:
            continue  # one category only: handled below
        assert fleiss_kappa(rows) == pytest.approx(_float_kappa(rows), abs=1e-12)
        assert -1.0 <= fleiss_kappa(rows) <= 1.0


def test_unused_categories_do_not_matter():
    assert fleiss_kappa([row + [0, 0] for row in WORKED]) == fleiss_kappa(WORKED)


def test_every_rating_in_one_category_is_undefined():
    """p_e = 1 makes kappa 0/0: no number (statsmodels gives NaN; aau-harness 1.6 said 1.0)."""
    assert fleiss_kappa([[3, 0], [3, 0]]) is None
    assert fleiss_kappa([[0, 2, 0]] * 12) is None


def test_complete_agreement_across_categories_is_one():
    assert fleiss_kappa([[3, 0], [0, 3]]) == 1.0


def test_one_rater_is_undefined():
    assert fleiss_kappa([[1, 0], [0, 1]]) is None


@pytest.mark.parametrize("counts", [[], [[1, 1], [2]], [[1, -1, 2]], [[1.0, 1]], [[True, 1]],
                                    [[1, 1], [2, 1]]])
def test_bad_tables_raise(counts):
    with pytest.raises(ValueError):
        fleiss_kappa(counts)
