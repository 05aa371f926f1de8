"""StochasticFilter and StochasticRank: the mean estimate equals the exact gradient.

Exact values are computed independently of the estimators:

* StochasticFilter: ``E[FilteredDCG]`` by enumerating the 2^n keep/drop masks
  (keep probability ``sigmoid(sigma a)``), its gradient by central finite
  differences of that sum.
* StochasticRank: ``E[metric(a - sigma mu y + sigma z)]`` of a 3-document
  query by enumerating the 6 orderings, the probability of each by 1-D
  numerical integration of the Gaussian densities (scipy ``quad``), the metric
  of each by the catalogue (``metricrank.evaluate``); gradient by central
  finite differences.

The Monte-Carlo side replicates the query ``Q`` times in one call (every copy
draws independent noise); the mean must lie within 5 standard errors.
"""

from __future__ import annotations

import itertools
import math

import numba
import numpy as np
import pytest
from scipy import integrate

from metricrank import evaluate
from metricrank.objectives._base import as_training_data
from metricrank.objectives.registry import get_objective
from metricrank.objectives.stochastic_filter import StochasticFilter

Z = 5.0  # tolerance in standard errors


def replicate(y, a, Q):
    n = len(y)
    return np.tile(np.asarray(y, float), Q), np.tile(np.asarray(a, float), Q), np.arange(Q + 1) * n


def check_mean(grad, n, Q, exact):
    G = grad.reshape(Q, n)
    mean = G.mean(0)
    se = G.std(0, ddof=1) / math.sqrt(Q)
    assert np.all(np.abs(mean - exact) <= Z * se + 1e-9), (mean, exact, se)
    return mean, se


def central_difference(f, a, h=1e-5):
    a = np.asarray(a, float)
    g = np.zeros_like(a)
    for i in range(len(a)):
        e = np.zeros_like(a)
        e[i] = h
        g[i] = (f(a + e) - f(a - e)) / (2 * h)
    return g


# --- StochasticFilter -------------------------------------------------------------------------

def expected_filtered_dcg(a, y, sigma):
    """E[sum over kept i of y_i / position among kept], every mask enumerated."""
    p = 1.0 / (1.0 + np.exp(-sigma * np.asarray(a, float)))
    total = 0.0
    for mask in itertools.product((0, 1), repeat=len(a)):
        prob = np.prod([p[i] if m else 1 - p[i] for i, m in enumerate(mask)])
        kept = [y[i] for i, m in enumerate(mask) if m]
        total += prob * sum(t / (k + 1) for k, t in enumerate(kept))
    return total


def sfilter(sigma=1.0, num_estimations=1):
    return StochasticFilter("StochasticFilter", {"sigma": sigma, "num_estimations": num_estimations})


FILTER_CASES = [
    ([2.0, 0.0, 1.0], [0.5, -1.0, 0.2], 1.0, 1),
    ([1.0, 3.0, 0.0, 2.0, 1.0], [-0.3, 0.8, 1.2, -1.5, 0.0], 1.5, 1),
    ([0.0, 1.0, 1.0, 4.0], [2.0, -0.5, 0.1, -2.0], 0.7, 3),
]


@pytest.mark.parametrize("y, a, sigma, k", FILTER_CASES)
def test_filter_mean_estimate_is_exact_gradient(y, a, sigma, k):
    Q = 20000
    yy, aa, ptr = replicate(y, a, Q)
    grad, hess = sfilter(sigma, k).bind(as_training_data(yy, ptr), random_state=11)(aa)
    exact = -central_difference(lambda v: expected_filtered_dcg(v, y, sigma), a)
    check_mean(grad, len(y), Q, exact)
    np.testing.assert_array_equal(hess, np.ones_like(hess))


def test_filter_baseline_is_the_catalogue_filtered_dcg():
    # With keep probabilities ~0 or ~1, every sample is the deterministic filter a >= 0, whose
    # FilteredDCG is the baseline: the estimate is exactly 0.
    y = np.array([1.0, 2.0, 0.0, 3.0])
    a = np.array([40.0, -40.0, 40.0, 40.0])
    g, _ = sfilter().gradient_hessian(y, a, [0, 4], random_state=0)
    np.testing.assert_array_equal(g, 0.0)
    assert evaluate(y, a, group_ptr=[0, 4], metric="FilteredDCG") == 1 + 0 / 2 + 3 / 3


def test_filter_weights_and_determinism():
    y, a, ptr = replicate([2.0, 0.0, 1.0, 3.0], [0.5, -1.0, 0.2, 0.0], 50)
    data = as_training_data(y, ptr)
    g1, h1 = sfilter().gradient_hessian(y, a, ptr, random_state=4)
    g2, _ = sfilter().gradient_hessian(y, a, ptr, random_state=4)
    np.testing.assert_array_equal(g1, g2)
    g3, _ = sfilter().gradient_hessian(y, a, ptr, random_state=5)
    assert not np.array_equal(g1, g3)
    b = sfilter().bind(data, random_state=4)
    first = b(a)[0].copy()
    np.testing.assert_array_equal(first, g1)
    assert not np.array_equal(b(a)[0], first)  # the next call (tree) draws new masks
    w = np.linspace(0.5, 2.0, y.size)
    gw = np.arange(1.0, 51.0)
    g4, h4 = sfilter().gradient_hessian(y, a, ptr, weights=w, group_weights=gw, random_state=4)
    factor = w * np.repeat(gw, 4)
    np.testing.assert_allclose(g4, g1 * factor)
    np.testing.assert_allclose(h4, factor)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        g5, _ = sfilter().gradient_hessian(y, a, ptr, random_state=4)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(g5, g1)


# --- StochasticRank ---------------------------------------------------------------------------

def gaussian_order_probability(m, sigma, order):
    """P(m_i + sigma z_i ranked exactly as ``order``), 3 documents, z iid N(0, 1)."""
    top, mid, low = order

    def pdf(x, mean):
        u = (x - mean) / sigma
        return math.exp(-0.5 * u * u) / (sigma * math.sqrt(2 * math.pi))

    def cdf(x, mean):
        return 0.5 * math.erfc(-(x - mean) / (sigma * math.sqrt(2)))

    def f(x):
        return pdf(x, m[mid]) * (1.0 - cdf(x, m[top])) * cdf(x, m[low])

    value, _ = integrate.quad(f, min(m) - 12 * sigma, max(m) + 12 * sigma, epsabs=1e-14, epsrel=1e-12,
                              limit=200)
    return value


def smoothed_metric(a, y, metric_spec, sigma, mu):
    m = np.asarray(a, float) - sigma * mu * np.asarray(y, float)
    total = 0.0
    for order in itertools.permutations(range(3)):
        score = np.empty(3)
        score[list(order)] = [3.0, 2.0, 1.0]
        value = evaluate(np.asarray(y, float), score, group_ptr=[0, 3], metric=metric_spec)
        total += gaussian_order_probability(m, sigma, order) * value
    return total


def srank(spec):
    return get_objective(spec)


RANK_CASES = [
    # objective spec (lambda=0: the plain estimate), labels, scores
    ("StochasticRank:metric=DCG;lambda=0", [2.0, 0.0, 1.0], [0.3, -0.4, 0.1]),
    ("StochasticRank:metric=DCG;top=2;type=Exp;denominator=Position;lambda=0;sigma=0.7",
     [3.0, 1.0, 0.0], [-0.2, 0.5, 0.4]),
    ("StochasticRank:metric=NDCG;lambda=0", [1.0, 2.0, 0.0], [0.0, -0.5, 0.6]),
    ("StochasticRank:metric=NDCG;top=1;type=Exp;lambda=0;mu=0.3;num_estimations=2",
     [2.0, 2.0, 1.0], [0.1, 0.1, -0.2]),
    ("StochasticRank:metric=PFound;lambda=0", [0.9, 0.1, 0.5], [0.2, 0.0, 0.4]),
    ("StochasticRank:metric=PFound;decay=0.7;top=2;lambda=0;sigma=1.5", [0.3, 1.0, 0.0], [0.5, -0.5, 0.0]),
    ("StochasticRank:metric=ERR;lambda=0", [0.9, 0.2, 0.5], [0.1, 0.3, -0.2]),
    ("StochasticRank:metric=ERR;top=2;lambda=0;sigma=0.6;mu=0.5", [0.0, 1.0, 0.4], [0.4, -0.1, 0.2]),
    ("StochasticRank:metric=MRR;lambda=0", [2.0, 0.0, 1.0], [-0.3, 0.2, 0.0]),  # two relevant
    ("StochasticRank:metric=MRR;top=1;lambda=0;sigma=1.3", [0.0, 1.0, 0.0], [0.3, -0.2, 0.1]),
]


@pytest.mark.parametrize("spec, y, a", RANK_CASES)
def test_rank_mean_estimate_is_gradient_of_smoothed_metric(spec, y, a):
    obj = srank(spec)
    p = obj.params
    Q = 20000
    yy, aa, ptr = replicate(y, a, Q)
    grad, hess = obj.bind(as_training_data(yy, ptr), random_state=21)(aa)
    exact = -central_difference(lambda v: smoothed_metric(v, y, obj.eval_spec, p["sigma"], p["mu"]), a,
                                h=1e-4)
    assert abs(exact.sum()) < 1e-6  # shift invariance of the smoothed metric
    check_mean(grad, 3, Q, exact)
    np.testing.assert_array_equal(hess, np.ones_like(hess))
    np.testing.assert_allclose(grad.reshape(Q, 3).sum(1), 0.0, atol=1e-12)


@pytest.mark.parametrize("spec, eval_spec", [
    ("StochasticRank:metric=NDCG;top=10", "NDCG:top=10"),
    ("StochasticRank:metric=ndcg;type=Exp", "NDCG:type=Exp"),
    ("StochasticRank:metric=DCG;denominator=Position;top=3", "DCG:top=3;denominator=Position"),
    ("StochasticRank:metric=PFound", "PFound"),
    ("StochasticRank:metric=PFound;decay=0.5;top=4", "PFound:top=4;decay=0.5"),
    ("StochasticRank:metric=ERR;top=5", "ERR:top=5"),
    ("StochasticRank:metric=MRR", "MRR:border=0"),  # relevant means label > 0, as CatBoost's loss reads it
])
def test_rank_eval_spec_is_the_catalogue_metric(spec, eval_spec):
    assert srank(spec).eval_spec == eval_spec


def test_rank_scale_free_projection():
    # lambda > 0 removes (most of) the component along the centred scores; tiny nu: all of it.
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 8).astype(float)
    a = rng.normal(size=8)
    g0, _ = srank("StochasticRank:metric=NDCG;lambda=0").gradient_hessian(y, a, [0, 8], random_state=2)
    g1, _ = srank("StochasticRank:metric=NDCG;lambda=1;nu=1e-12").gradient_hessian(y, a, [0, 8], random_state=2)
    c = a - a.mean()
    assert abs(g1 @ c) < 1e-10 * np.abs(g0).sum()
    np.testing.assert_allclose(g1, g0 - (g0 @ c) / (c @ c) * c, atol=1e-12)
    assert abs(g1.sum()) < 1e-12


def test_rank_degenerate_queries_and_determinism():
    y = np.array([1.0, 0.0, 0.0, 0.0, 2.0, 1.0, 0.0])
    ptr = np.array([0, 1, 4, 7])  # one document; no relevant document (NDCG constant 1); a normal query
    a = np.array([0.3, 0.1, 0.2, 0.3, 0.0, 0.5, -0.5])
    obj = srank("StochasticRank:metric=NDCG")
    g, h = obj.gradient_hessian(y, a, ptr, random_state=9)
    np.testing.assert_array_equal(g[:4], 0.0)
    assert np.any(g[4:] != 0)
    g2, _ = obj.gradient_hessian(y, a, ptr, random_state=9)
    np.testing.assert_array_equal(g, g2)
    g3, _ = obj.gradient_hessian(y, a, ptr, random_state=10)
    assert not np.array_equal(g, g3)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        g4, _ = obj.gradient_hessian(y, a, ptr, random_state=9)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(g, g4)


def test_rank_unsupported_metric_names_valid_ones():
    with pytest.raises(ValueError, match="DCG, NDCG, PFound"):
        srank("StochasticRank:metric=MAP")
    with pytest.raises(ValueError, match="needs the parameter 'metric'"):
        srank("StochasticRank")


@pytest.mark.parametrize("spec, match", [
    ("StochasticRank:metric=PFound;type=Exp", "metric=PFound has no parameter 'type'"),
    ("StochasticRank:metric=PFound;denominator=Position", "has no parameter 'denominator'"),
    ("StochasticRank:metric=NDCG;decay=0.5", "metric=NDCG has no parameter 'decay'"),
    ("StochasticRank:metric=DCG;type=Linear", "type=Linear is not allowed"),
    ("StochasticRank:metric=DCG;colour=red", "no parameter 'colour'"),
    ("StochasticRank:metric=DCG;num_estimations=0", "num_estimations must be an integer >= 1"),
    ("StochasticRank:metric=DCG;sigma=0", "positive"),
    ("StochasticRank:metric=DCG;mu=-1", ">= 0"),
    ("StochasticRank:metric=DCG;top=0", "top"),
    ("StochasticRank:metric=PFound;decay=1.5", r"decay must be in \[0, 1\]"),
    ("StochasticRank:metric=ERR;type=Exp", "metric=ERR has no parameter 'type'"),
    ("StochasticRank:metric=MRR;decay=0.5", "metric=MRR has no parameter 'decay'"),
    ("StochasticFilter:num_estimations=0", "num_estimations must be an integer >= 1"),
    ("StochasticFilter:sigma=-1", "positive"),
    ("StochasticFilter:top=3", "no parameter 'top'"),
])
def test_bad_parameters(spec, match):
    with pytest.raises(ValueError, match=match):
        get_objective(spec)


def test_pfound_labels_checked():
    with pytest.raises(ValueError, match="PFound"):
        srank("StochasticRank:metric=PFound").gradient_hessian([2.0, 0.0], [0.0, 1.0], [0, 2])
    with pytest.raises(ValueError, match="StochasticRank:metric=ERR needs labels"):
        srank("StochasticRank:metric=ERR").gradient_hessian([2.0, 0.0], [0.0, 1.0], [0, 2])
    srank("StochasticRank:metric=MRR").gradient_hessian([2.0, 0.0], [0.0, 1.0], [0, 2])  # graded: label > 0


def test_registry_defaults():
    obj = get_objective("StochasticFilter")
    assert obj.params == {"sigma": 1.0, "num_estimations": 1} and obj.eval_spec == "FilteredDCG"
    assert obj.stochastic and not obj.uses_pairs
    obj = get_objective("StochasticRank:metric=PFound")
    assert obj.params == {"metric": "PFound", "top": -1, "decay": 0.85, "num_estimations": 1, "mu": 0.0,
                          "sigma": 1.0, "lambda": 1.0, "nu": 0.01}
    obj = get_objective("StochasticRank:metric=DCG")
    assert obj.params["type"] == "Base" and obj.params["denominator"] == "LogPosition"
    assert "decay" not in obj.params
