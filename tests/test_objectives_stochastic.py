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

import numpy as np
import pytest
from scipy import integrate

from metricrank import evaluate
from metricrank.learners._boosting import numba_threads
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
    for threads in (1, -1):  # one thread and every core, whatever the caller's default
        with numba_threads(threads):
            g5, _ = sfilter().gradient_hessian(y, a, ptr, random_state=4)
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
    for threads in (1, -1):  # one thread and every core, whatever the caller's default
        with numba_threads(threads):
            g4, _ = obj.gradient_hessian(y, a, ptr, random_state=9)
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


# --- StochasticRank:metric=FilteredDCG --------------------------------------------------------

def poisson_binomial(probs):
    """P(exactly k of independent events of probabilities ``probs`` happen), k = 0..len(probs)."""
    dist = np.zeros(len(probs) + 1)
    dist[0] = 1.0
    for p in probs:
        dist[1:] = dist[1:] * (1 - p) + dist[:-1] * p
        dist[0] *= 1 - p
    return dist


def smoothed_ranked_filtered_dcg(m, gain, sigma, discount):
    """``E[sum_j gain_j [s_j >= 0] discount(rank_j)]``, ``s = m + sigma z``, ``rank_j = 1 + #{k: s_k > s_j}``.

    For each document a 1-D integral (scipy ``quad``) over its score ``t >= 0``: its density times the expected
    discount, the number of documents above it being Poisson-binomial with probabilities ``P(s_k > t)``.
    """
    from scipy.stats import norm

    m = np.asarray(m, float)
    total = 0.0
    for j in range(len(m)):
        others = np.delete(m, j)

        def f(t, j=j, others=others):
            above = poisson_binomial(norm.sf((t - others) / sigma))
            return norm.pdf((t - m[j]) / sigma) / sigma * sum(p * discount(k + 1) for k, p in enumerate(above))

        value, _ = integrate.quad(f, 0.0, max(m.max(), 0.0) + 12 * sigma, epsabs=1e-13, epsrel=1e-12, limit=200)
        total += gain[j] * value
    return total


def ranked_filtered_dcg_setup(obj, y):
    p = obj.params
    y = np.asarray(y, float)
    gain = 2.0 ** y - 1 if p["type"] == "Exp" else y
    top = math.inf if p["top"] == -1 else p["top"]

    def discount(rank):
        if rank > top:
            return 0.0
        return 1.0 / math.log2(rank + 1) if p["denominator"] == "LogPosition" else 1.0 / rank

    return gain, discount


FILTERED_CASES = [
    ("StochasticRank:metric=FilteredDCG", [2.0, 0.0, 1.0], [0.3, -0.4, 0.1]),
    ("StochasticRank:metric=FilteredDCG;sigma=0.7;mu=0.3", [2.0, 1.0, 1.0, 0.0], [0.3, -0.4, 0.1, 0.2]),
    ("StochasticRank:metric=FilteredDCG;top=2;type=Exp;denominator=LogPosition;num_estimations=2",
     [2.0, 1.0, 3.0, 0.0], [0.3, -0.4, -0.9, 0.2]),
]


@pytest.mark.parametrize("spec, y, a", FILTERED_CASES)
def test_filtered_dcg_mean_estimate_is_gradient_of_the_smoothed_ranked_filter(spec, y, a):
    # lambda defaults to 0 here (CatBoost's), so the estimate is the plain one: no centring, no projection
    obj = srank(spec)
    p = obj.params
    assert p["lambda"] == 0.0
    gain, discount = ranked_filtered_dcg_setup(obj, y)
    n, Q = len(y), 20000
    yy, aa, ptr = replicate(y, a, Q)
    grad, hess = obj.bind(as_training_data(yy, ptr), random_state=21)(aa)
    shift = p["sigma"] * p["mu"] * np.asarray(y)
    exact = -central_difference(lambda v: smoothed_ranked_filtered_dcg(v - shift, gain, p["sigma"], discount), a,
                                h=1e-4)
    check_mean(grad, n, Q, exact)
    np.testing.assert_array_equal(hess, np.ones_like(hess))


def test_filtered_dcg_one_document_query():
    # E[gain [a + sigma z >= 0]] = gain Phi(a / sigma): the estimate is exactly its derivative, whatever the noise
    sigma, a = 0.8, -0.3
    grad, _ = srank(f"StochasticRank:metric=FilteredDCG;sigma={sigma}").gradient_hessian(
        [3.0, 2.0], [a, a], [0, 1, 2], random_state=0)
    density = math.exp(-0.5 * (a / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))
    np.testing.assert_allclose(grad, [-3.0 * density, -2.0 * density], rtol=1e-12)


def filtered_dcg_projected_expectation(obj, y, a):
    """The mean of CatBoost's estimate with ``lambda > 0``: the exact gradient of the real documents, and for the
    cut its own estimate's mean (the gradient for a gain-0 document of noisy score ``0 + sigma z``), projected off
    the centred scores of the documents and the cut (score 0)."""
    p = obj.params
    gain, discount = ranked_filtered_dcg_setup(obj, y)
    real = central_difference(lambda v: smoothed_ranked_filtered_dcg(v, gain, p["sigma"], discount), a, h=1e-4)
    with_cut = central_difference(
        lambda v: smoothed_ranked_filtered_dcg(v, np.append(gain, 0.0), p["sigma"], discount), np.append(a, 0.0),
        h=1e-4)
    der = np.append(real, with_cut[-1])
    c = np.append(a, 0.0)
    c -= c.mean()
    return (der - p["lambda"] * (der @ c) / (math.sqrt(c @ c) + p["nu"]) ** 2 * c)[:-1]


def test_filtered_dcg_projection_counts_the_cut_as_catboost_does():
    y, a = [2.0, 0.0, 1.0], np.array([1.0, 0.2, 0.6])  # mean 0.6: the cut (score 0) is far off the centre
    obj = srank("StochasticRank:metric=FilteredDCG;lambda=2")
    Q = 20000
    yy, aa, ptr = replicate(y, a, Q)
    grad, _ = obj.bind(as_training_data(yy, ptr), random_state=5)(aa)
    expected = -filtered_dcg_projected_expectation(obj, y, a)
    mean, se = check_mean(grad, 3, Q, expected)
    # the cut's share is not negligible: leaving it out of the projection moves the mean by many standard errors
    p = obj.params
    gain, discount = ranked_filtered_dcg_setup(obj, y)
    real = central_difference(lambda v: smoothed_ranked_filtered_dcg(v, gain, p["sigma"], discount), a, h=1e-4)
    c = a - a.mean()
    without_cut = -(real - p["lambda"] * (real @ c) / (math.sqrt(c @ c) + p["nu"]) ** 2 * c)
    assert np.max(np.abs(without_cut - expected) / se) > 20


@pytest.mark.parametrize("spec", ["StochasticRank:metric=FilteredDCG",
                                  "StochasticRank:metric=FilteredDCG;lambda=2;type=Exp"])
def test_filtered_dcg_equals_catboosts_derivative_in_expectation(spec):
    """CatBoost's own estimate (1.2.10 trains this spec), averaged over 20,000 noise draws in one call, lies within
    5 standard errors of the exact expectation; the errors are those of 20,000 draws of this estimator."""
    from conftest import catboost_one_tree

    y, a = [2.0, 0.0, 1.0], np.array([1.0, 0.2, 0.6])  # mean 0.6: the cut (score 0) is far off the centre
    obj = srank(spec)
    Q = 20000
    model, X = catboost_one_tree(y, np.zeros(3, int), f"{spec};num_estimations={Q}", a,
                                 leaf_estimation_method="Gradient", leaf_estimation_iterations=1,
                                 leaf_estimation_backtracking="No")
    catboost_ascent = model.predict(X)  # CatBoost returns the derivative of the metric, not of the loss
    yy, aa, ptr = replicate(y, a, Q)
    grad, _ = obj.bind(as_training_data(yy, ptr), random_state=5)(aa)
    se = grad.reshape(Q, 3).std(0, ddof=1) / math.sqrt(Q)
    expected = filtered_dcg_projected_expectation(obj, y, a)
    assert np.all(np.abs(catboost_ascent - expected) <= Z * se), (catboost_ascent, expected, se)


def test_filtered_dcg_spec_defaults_and_reported_metric():
    obj = srank("StochasticRank:metric=FilteredDCG")
    assert obj.params == {"metric": "FilteredDCG", "top": -1, "type": "Base", "denominator": "Position",
                          "num_estimations": 1, "mu": 0.0, "sigma": 1.0, "lambda": 0.0, "nu": 0.01}
    assert obj.eval_spec == "FilteredDCG"
    obj = srank("StochasticRank:metric=FilteredDCG;top=3;type=Exp;denominator=LogPosition;lambda=1")
    assert obj.eval_spec == "FilteredDCG:type=Exp;denominator=LogPosition"  # the catalogue metric has no top
    assert obj.params["lambda"] == 1.0
    assert srank("StochasticRank:metric=NDCG").params["lambda"] == 1.0
    with pytest.raises(ValueError, match="metric=FilteredDCG has no parameter 'decay'"):
        srank("StochasticRank:metric=FilteredDCG;decay=0.5")
    with pytest.raises(ValueError, match="FilteredDCG:type=Exp: label 2000"):
        obj.gradient_hessian([2000.0, 0.0], [0.0, 1.0], [0, 2])


def test_gbranker_learns_the_ranked_filter():
    from metricrank import GBRanker, make_ltr

    ds = make_ltr(60, n_features=8, random_state=0)
    test = make_ltr(40, n_features=8, random_state=1)
    model = GBRanker("StochasticRank:metric=FilteredDCG", n_estimators=25, min_data_in_leaf=5).fit(
        ds.X, ds.y, qid=ds.qid)
    assert model.objective_.eval_spec == "FilteredDCG"

    def ranked_filtered_dcg(score):  # the catalogue metric on each query listed in score order
        order = np.lexsort((-score, test.qid))
        return evaluate(test.y[order], score[order], group_ptr=test.group_ptr, metric="FilteredDCG")

    learned = ranked_filtered_dcg(model.predict(test.X))
    keep_all = ranked_filtered_dcg(np.zeros(test.n_docs))  # every document, in input order
    assert learned > keep_all + 0.1, (learned, keep_all)
