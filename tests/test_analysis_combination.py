"""optimal_combination: the exact sweep over α equals brute-force evaluation everywhere."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from metricrank import evaluate
from metricrank.analysis import optimal_combination

METRICS = ["NDCG:top=3", "MAP", "MRR", "ERR:type=Graded", "PrecisionAt:top=2", "QueryAUC:type=Ranking"]


def _data(seed, n_queries=25, max_docs=8, score_levels=4):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    n = qid.shape[0]
    y = rng.integers(0, 3, n).astype(float)
    # integer scores: many ties within each ranker and many coinciding breakpoints
    a = rng.integers(0, score_levels, n).astype(float)
    b = rng.integers(0, score_levels, n).astype(float)
    return a, b, y, qid


def _exact_mix(a, b, alpha):
    """Scores at a rational α, scaled to integers so ties are exact: q·s(p/q) = p·a + (q - p)·b."""
    frac = Fraction(float(alpha)).limit_denominator(1000)
    return frac.numerator * a + (frac.denominator - frac.numerator) * b


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("seed", [0, 1])
def test_sweep_equals_brute_force(metric, seed):
    a, b, y, qid = _data(seed)
    r = optimal_combination(a, b, y, qid=qid, metric=metric)
    bp = r.breakpoints
    assert bp.shape[0] > 5 and np.all(np.diff(bp) > 0) and np.all((bp > 0) & (bp < 1))
    edges = np.concatenate([[0.0], bp, [1.0]])
    for k, mid in enumerate(0.5 * (edges[:-1] + edges[1:])):
        assert r.values[k] == pytest.approx(evaluate(y, mid * a + (1 - mid) * b, qid=qid, metric=metric), abs=1e-12)
    for k, alpha in enumerate(bp):
        assert r.breakpoint_values[k] == pytest.approx(evaluate(y, _exact_mix(a, b, alpha), qid=qid, metric=metric),
                                                       abs=1e-12)
    assert r.value_at_0 == pytest.approx(evaluate(y, b, qid=qid, metric=metric), abs=1e-12)
    assert r.value_at_1 == pytest.approx(evaluate(y, a, qid=qid, metric=metric), abs=1e-12)
    # No breakpoint missing: random α between breakpoints give the interval's value.
    rng = np.random.default_rng(seed + 100)
    for alpha in rng.uniform(0, 1, 30):
        k = int(np.searchsorted(bp, alpha))
        assert r.values[k] == pytest.approx(evaluate(y, alpha * a + (1 - alpha) * b, qid=qid, metric=metric),
                                            abs=1e-12)


@pytest.mark.parametrize("metric", ["NDCG:top=3", "MAP", "QueryAUC:type=Ranking"])
def test_best_is_at_least_the_grid_maximum(metric):
    a, b, y, qid = _data(5)
    r = optimal_combination(a, b, y, qid=qid, metric=metric)
    grid = np.linspace(0, 1, 1001)
    brute = np.array([evaluate(y, t * a + (1 - t) * b, qid=qid, metric=metric) for t in grid])
    assert r.value >= brute.max() - 1e-12
    assert r.value == pytest.approx(max(r.values.max(), r.breakpoint_values.max(), r.value_at_0, r.value_at_1))
    assert r.value == pytest.approx(evaluate(y, _exact_mix(a, b, r.alpha), qid=qid, metric=metric), abs=1e-12)
    # the rule: among equal best intervals the widest one's midpoint
    edges = np.concatenate([[0.0], r.breakpoints, [1.0]])
    best = np.flatnonzero(np.isclose(r.values, r.values.max()))
    if r.values.max() >= max(r.breakpoint_values.max(), r.value_at_0, r.value_at_1):
        k = best[np.argmax(edges[best + 1] - edges[best])]
        assert r.alpha == pytest.approx(0.5 * (edges[k] + edges[k + 1]))


@pytest.mark.parametrize("metric", ["NDCG:top=10", "MAP", "ERR:type=Graded;top=10"])
def test_the_best_value_is_evaluate_at_the_best_alpha_to_the_last_digit(metric):
    # the sweep's running sums round: over many queries they read NDCG 0.9999999999999999 where it is 1, or 1+ulps
    from metricrank import make_ltr

    ds = make_ltr(60, docs_per_query=(5, 40), n_features=5, n_informative=3, random_state=39)
    b = np.random.default_rng(39).random(ds.n_docs)
    r = optimal_combination(ds.y.astype(float), b, ds.y, group_ptr=ds.group_ptr, metric=metric)
    assert r.alpha not in np.concatenate([[0.0, 1.0], r.breakpoints])  # an interval's midpoint
    assert r.value == evaluate(ds, r.alpha * ds.y + (1 - r.alpha) * b, metric=metric)
    # the rankers alone too: a = the labels is a perfect ranker, which no mixture beats
    assert r.value_at_1 == evaluate(ds, ds.y.astype(float), metric=metric) and r.value_at_0 == evaluate(ds, b,
                                                                                                         metric=metric)
    assert not r.value > r.value_at_1


def test_tie_rule_prefers_the_widest_best_interval():
    # top document as α grows: doc 2 (relevant) on (0, 1/3), doc 1 on (1/3, 2/5), doc 0 (relevant) on (2/5, 1)
    r = optimal_combination([5.0, 2.0, 0.0], [0.0, 2.0, 3.0], [1.0, 0.0, 1.0], metric="MRR")
    np.testing.assert_allclose(r.breakpoints, [1 / 3, 2 / 5])  # the equal-label crossing at 3/8 is skipped
    np.testing.assert_allclose(r.values, [1.0, 0.5, 1.0])
    assert r.alpha == pytest.approx(0.7) and r.value == 1.0


def test_real_valued_scores_and_one_query():
    rng = np.random.default_rng(3)
    a, b, y = rng.normal(size=30), rng.normal(size=30), rng.integers(0, 4, 30).astype(float)
    r = optimal_combination(a, b, y, metric="NDCG:top=10")
    edges = np.concatenate([[0.0], r.breakpoints, [1.0]])
    for k, mid in enumerate(0.5 * (edges[:-1] + edges[1:])):
        assert r.values[k] == pytest.approx(evaluate(y, mid * a + (1 - mid) * b, metric="NDCG:top=10"))


def test_global_auc_and_sign_metric():
    a, b, y, qid = _data(7, n_queries=6, max_docs=5)
    y = (y > 0).astype(float)
    for metric, sa, sb in [("AUC", a, b), ("FilteredDCG", a - 1.5, b - 1.5)]:
        r = optimal_combination(sa, sb, y, qid=qid, metric=metric)
        assert r.breakpoints.shape[0] > 0
        edges = np.concatenate([[0.0], r.breakpoints, [1.0]])
        for k, mid in enumerate(0.5 * (edges[:-1] + edges[1:])):
            assert r.values[k] == pytest.approx(evaluate(y, mid * sa + (1 - mid) * sb, qid=qid, metric=metric))
        for k, alpha in enumerate(r.breakpoints):
            frac = Fraction(float(alpha)).limit_denominator(1000)
            exact = (frac.numerator * sa + (frac.denominator - frac.numerator) * sb) / frac.denominator
            exact[np.isclose(exact, 0, atol=1e-12)] = 0.0
            assert r.breakpoint_values[k] == pytest.approx(evaluate(y, exact, qid=qid, metric=metric))


def test_degenerate_inputs():
    a, b, y, qid = _data(2)
    same = optimal_combination(a, a, y, qid=qid, metric="MAP")
    assert same.breakpoints.shape == (0,) and same.values.shape == (1,) and same.n_crossings == 0
    assert same.value == pytest.approx(evaluate(y, a, qid=qid, metric="MAP")) and same.alpha == 0.5
    monotone = optimal_combination(a, 2 * a + 1, y, qid=qid, metric="NDCG")  # same order: no crossing
    assert monotone.breakpoints.shape == (0,)
    assert monotone.value == pytest.approx(evaluate(y, a, qid=qid, metric="NDCG"))


def test_plot(tmp_path):
    a, b, y, qid = _data(4)
    path = tmp_path / "curve.png"
    optimal_combination(a, b, y, qid=qid, metric="NDCG").plot(path)
    assert path.stat().st_size > 1000


def test_bad_input():
    a, b, y, qid = _data(1)
    with pytest.raises(ValueError, match="scores_b"):
        optimal_combination(a, b[:-1], y, qid=qid)
    with pytest.raises(ValueError, match="scores_a"):
        optimal_combination(np.where(np.arange(a.shape[0]) == 3, np.nan, a), b, y, qid=qid)
    with pytest.raises(ValueError, match="unknown metric"):
        optimal_combination(a, b, y, qid=qid, metric="NoSuchMetric")
    with pytest.raises(ValueError, match="not piecewise constant"):
        optimal_combination(a, b, y, qid=qid, metric="QueryRMSE")


# --- combine_rankers: linear λ-ascent on several rankers' scores ------------------------------

def _three_rankers(seed=0):
    from metricrank import make_ltr

    ds = make_ltr(60, docs_per_query=(5, 20), n_features=3, n_informative=3, noise=2.0, random_state=seed)
    return [ds.X[:, k] for k in range(3)], ds


def test_combine_rankers_beats_the_best_single_ranker():
    from metricrank.analysis import combine_rankers

    scores, ds = _three_rankers()
    r = combine_rankers(scores, ds.y, group_ptr=ds.group_ptr, metric="NDCG:top=10", epochs=60)
    combined = r.predict(scores)
    assert r.value == pytest.approx(evaluate(ds.y, combined, group_ptr=ds.group_ptr, metric="NDCG:top=10"))
    for k, s in enumerate(scores):
        assert r.single_values[k] == pytest.approx(evaluate(ds.y, s, group_ptr=ds.group_ptr, metric="NDCG:top=10"))
    assert r.value > r.single_values.max()
    # the λ-steps do the work: the ascent improves on the equal-weight start
    assert r.value > r.history[0]


def test_combine_rankers_bad_input():
    from metricrank.analysis import combine_rankers

    scores, ds = _three_rankers()
    with pytest.raises(ValueError, match=r"score_list\[1\]"):
        combine_rankers([scores[0], scores[1][:-1]], ds.y, group_ptr=ds.group_ptr)
    with pytest.raises(ValueError, match="unknown metric|cannot be a λ target"):
        combine_rankers(scores, ds.y, group_ptr=ds.group_ptr, metric="NoSuchMetric")
