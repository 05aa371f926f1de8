"""Win/loss counts and the Wilcoxon signed-rank test of per-query differences."""

import dataclasses

import numpy as np
import pytest
from scipy import stats

from metricrank.analysis import ComparisonResult, compare_per_query


def test_counts_by_hand():
    a = [0.5, 0.7, 0.2, 0.9, 0.3]
    b = [0.4, 0.7, 0.3, 0.1, 0.3]
    r = compare_per_query(a, b)
    # query 0: a better; 1: equal; 2: b better; 3: a better; 4: equal
    assert (r.wins, r.losses, r.ties, r.n) == (2, 1, 2, 5)


def test_lower_is_better_flips_wins_and_losses():
    a = [1.0, 2.0, 3.0]
    b = [2.0, 2.0, 1.0]
    hi = compare_per_query(a, b)
    lo = compare_per_query(a, b, higher_is_better=False)
    assert (hi.wins, hi.losses, hi.ties) == (1, 1, 1)
    assert (lo.wins, lo.losses, lo.ties) == (1, 1, 1)
    a = [1.0, 1.0, 1.0]
    b = [2.0, 2.0, 0.5]
    assert (compare_per_query(a, b).wins, compare_per_query(a, b).losses) == (1, 2)
    r = compare_per_query(a, b, higher_is_better=False)
    assert (r.wins, r.losses) == (2, 1)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_pvalue_equals_scipy_wilcoxon(seed, alternative):
    rng = np.random.default_rng(seed)
    n = rng.integers(5, 60)
    a = np.round(rng.random(n), 2)
    b = np.round(a + rng.normal(0.03, 0.1, n), 2)
    b[: n // 5] = a[: n // 5]  # some zero differences (dropped by zero_method="wilcox")
    r = compare_per_query(a, b, alternative=alternative)
    expected = stats.wilcoxon(a - b, zero_method="wilcox", alternative=alternative)
    assert r.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
    assert r.statistic == pytest.approx(expected.statistic, rel=1e-12)
    # lower-is-better: differences are b - a
    r2 = compare_per_query(a, b, higher_is_better=False, alternative=alternative)
    expected2 = stats.wilcoxon(b - a, zero_method="wilcox", alternative=alternative)
    assert r2.pvalue == pytest.approx(expected2.pvalue, rel=1e-12)


def test_exact_small_sample_pvalue_by_hand():
    # 5 wins with distinct |d|: under H0 each sign pattern has prob 1/32; the
    # two-sided exact p-value of the most extreme pattern is 2/32.
    a = [1.0, 2.0, 3.0, 4.0, 5.0]
    b = [0.9, 1.8, 2.7, 3.6, 4.5]
    r = compare_per_query(a, b)
    assert (r.wins, r.losses) == (5, 0)
    assert r.pvalue == pytest.approx(2 / 32)
    assert compare_per_query(a, b, alternative="greater").pvalue == pytest.approx(1 / 32)


def test_all_ties():
    r = compare_per_query([0.5, 0.5], [0.5, 0.5])
    assert (r.wins, r.losses, r.ties) == (0, 0, 2)
    assert r.pvalue == 1.0


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_raises(bad):
    with pytest.raises(ValueError, match="NaN"):
        compare_per_query([0.1, bad, 0.3], [0.2, 0.2, 0.2])
    with pytest.raises(ValueError, match="NaN"):
        compare_per_query([0.2, 0.2, 0.2], [0.1, 0.3, bad])


def test_bad_shapes_and_alternative():
    with pytest.raises(ValueError, match="same queries"):
        compare_per_query([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="empty"):
        compare_per_query([], [])
    with pytest.raises(ValueError, match="alternative"):
        compare_per_query([0.1], [0.2], alternative="bigger")


def test_result_is_frozen_and_printable():
    a = np.linspace(0.2, 0.9, 17)
    b = a - np.where(np.arange(17) < 12, 0.05, -0.01)
    r = compare_per_query(a, b)
    assert isinstance(r, ComparisonResult)
    assert str(r) == f"W/L 12/5, p = {r.pvalue:.3g}"
    assert str(compare_per_query([1.0, 1.0, 2.0], [1.0, 0.0, 1.0])).startswith("W/L 2/0 (1 ties), p = ")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.wins = 0
    assert r.significant(0.05) == (r.pvalue < 0.05)
