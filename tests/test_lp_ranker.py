"""LPRanker: the estimator contract, oracles for its scores and constraints, and bad input."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import roc_auc_score
from sklearn.metrics.pairwise import rbf_kernel

from metricrank.learners.lp_ranker import LPRanker, LPSolveError


def blobs(seed, n=40, d=2, shift=1.0):
    rng = np.random.default_rng(seed)
    y = (np.arange(n) % 3 == 0).astype(int)
    X = rng.normal(size=(n, d)) + shift * y[:, None]
    return X, y


def check_constraints(model, X, eps, tol=1e-6):
    """Every constraint the model reports holds: f_p - f_n + z_pn >= eps, z >= 0."""
    f = model.predict(X)
    p, n = model.pairs_[:, 0], model.pairs_[:, 1]
    assert np.all(model.slack_ >= 0)
    assert np.all(f[p] - f[n] + model.slack_ >= eps - tol)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_separable_data_auc_one_and_zero_slack(kernel):
    X, y = blobs(0, shift=8.0)
    model = LPRanker(kernel=kernel, gamma=0.05, C=1000.0).fit(X, y)
    assert roc_auc_score(y, model.predict(X)) == 1.0
    assert model.slack_.shape[0] == (y == 1).sum() * (y == 0).sum()
    np.testing.assert_allclose(model.slack_, 0.0, atol=1e-9)
    check_constraints(model, X, 1.0)
    # objective = sum(alpha) when every z is 0
    assert model.fit_report_.objective == pytest.approx(model.alpha_.sum(), rel=1e-8)


def test_separable_1d_linear_has_known_solution():
    # f(x) = w x with w = sum_i alpha_i y_i x_i; the closest pair (1, 2) needs w >= eps; the cheapest
    # alpha is on the point with the largest |x|: alpha = eps / 3 on x = 3 (positive).
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    model = LPRanker(kernel="linear", C=100.0, epsilon=1.0).fit(X, [0, 0, 1, 1])
    np.testing.assert_allclose(model.alpha_, [0, 0, 0, 1 / 3], atol=1e-9)
    assert model.support_.tolist() == [3]
    np.testing.assert_allclose(model.predict(X), X[:, 0] * 1.0, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_nonseparable_constraints_and_objective(seed):
    X, y = blobs(seed, n=45, shift=0.8)
    C, eps = 0.3, 0.5
    model = LPRanker(C=C, epsilon=eps, gamma=0.7).fit(X, y)
    check_constraints(model, X, eps)
    rep = model.fit_report_
    assert rep.objective == pytest.approx(model.alpha_.sum() + C * model.slack_.sum(), rel=1e-6)
    assert model.slack_.max() > 0  # overlapping classes: some pair is paid for
    assert rep.n_pairs_full == rep.n_constraints == (y == 1).sum() * (y == 0).sum()
    assert rep.reduction == 0.0 and rep.passes == 1 and rep.exact


def test_predict_is_the_kernel_expansion():
    X, y = blobs(2, n=30, shift=1.0)
    Xnew = np.random.default_rng(9).normal(size=(7, 2))
    model = LPRanker(gamma=0.4, C=2.0).fit(X, y)
    ypm = np.where(y == 1, 1.0, -1.0)
    expected = rbf_kernel(Xnew, X, gamma=0.4) @ (model.alpha_ * ypm)
    np.testing.assert_allclose(model.predict(Xnew), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.decision_function(Xnew), expected, rtol=1e-10, atol=1e-12)
    assert np.array_equal(model.ranking_vectors_, X[model.alpha_ > 0])
    np.testing.assert_allclose(model.dual_coef_, (model.alpha_ * ypm)[model.support_])


def test_poly_kernel_formula():
    X, y = blobs(3, n=25)
    model = LPRanker(kernel="poly", gamma=0.5, degree=2, coef0=1.0, C=5.0).fit(X, y)
    K = (0.5 * X @ model.ranking_vectors_.T + 1.0) ** 2
    np.testing.assert_allclose(model.predict(X), K @ model.dual_coef_, rtol=1e-10)


def test_gamma_scale_matches_svc_definition():
    X, y = blobs(4)
    assert LPRanker().fit(X, y).gamma_ == pytest.approx(1.0 / (X.shape[1] * X.var()))
    assert LPRanker(gamma="auto").fit(X, y).gamma_ == pytest.approx(1.0 / X.shape[1])


@pytest.mark.parametrize("chunking", ["all-violated", "top-violated"])
def test_chunked_fit_reaches_full_objective(chunking):
    X, y = blobs(5, n=60, shift=1.2)
    full = LPRanker(C=1.0).fit(X, y)
    chunked = LPRanker(C=1.0, chunking=chunking, chunk_size=97, top_k=15).fit(X, y)
    assert chunked.fit_report_.objective == pytest.approx(full.fit_report_.objective, rel=1e-6)
    np.testing.assert_allclose(chunked.predict(X), full.predict(X), atol=1e-5)
    rep = chunked.fit_report_
    assert rep.n_constraints == chunked.pairs_.shape[0] < rep.n_pairs_full
    assert rep.reduction == pytest.approx(1 - rep.n_constraints / rep.n_pairs_full)
    assert rep.passes >= 2 and rep.n_solves >= 2
    check_constraints(chunked, X, 1.0)


def test_epsilon_only_scales_the_solution():
    X, y = blobs(6, shift=1.0)
    a = LPRanker(C=1.0, epsilon=1.0).fit(X, y)
    b = LPRanker(C=1.0, epsilon=2.5).fit(X, y)
    np.testing.assert_allclose(b.predict(X), 2.5 * a.predict(X), rtol=1e-6, atol=1e-8)
    assert b.fit_report_.objective == pytest.approx(2.5 * a.fit_report_.objective, rel=1e-8)


def test_swapping_classes_negates_scores():
    X, y = blobs(7, shift=1.0)
    a = LPRanker(C=1.0).fit(X, y)
    b = LPRanker(C=1.0).fit(X, 1 - y)
    np.testing.assert_allclose(b.predict(X), -a.predict(X), atol=1e-7)


def test_label_encodings_agree_and_border():
    X, y = blobs(8)
    ref = LPRanker().fit(X, y).alpha_
    for labels in (2 * y - 1, y.astype(bool), y.astype(float)):
        np.testing.assert_allclose(LPRanker().fit(X, labels).alpha_, ref, atol=1e-10)
    graded = y * np.where(np.arange(y.size) % 2, 1, 2)          # grades 0, 1, 2
    with pytest.raises(ValueError, match="border"):
        LPRanker().fit(X, graded)
    np.testing.assert_allclose(LPRanker(border=0).fit(X, graded).alpha_, ref, atol=1e-10)


def test_qid_pairs_stay_within_queries():
    X, y = blobs(9, n=36, shift=0.7)
    qid = np.repeat([10, 20, 30], 12)
    model = LPRanker(C=1.0).fit(X, y, qid=qid)
    assert np.all(qid[model.pairs_[:, 0]] == qid[model.pairs_[:, 1]])
    expected = sum(((y[qid == q] == 1).sum() * (y[qid == q] == 0).sum()) for q in (10, 20, 30))
    assert model.fit_report_.n_pairs_full == expected
    check_constraints(model, X, 1.0)
    # queries holding one class contribute nothing
    y2 = y.copy()
    y2[qid == 20] = 0
    m2 = LPRanker(C=1.0).fit(X, y2, qid=qid)
    assert not np.any(qid[m2.pairs_[:, 0]] == 20)
    with pytest.raises(ValueError, match="contiguous|split"):
        LPRanker().fit(X, y, qid=np.tile([1, 2, 3], 12))


def test_max_pairs_is_approximate():
    X, y = blobs(10, n=40)
    model = LPRanker(max_pairs=50).fit(X, y)
    rep = model.fit_report_
    assert not rep.exact and rep.n_pairs_used == rep.n_constraints == 50
    assert rep.n_pairs_full == (y == 1).sum() * (y == 0).sum()
    check_constraints(model, X, 1.0)


def test_clone_and_params():
    model = LPRanker(kernel="poly", degree=2, C=3.0, chunking="top-violated", chunk_size=10)
    c = clone(model)
    assert c.get_params() == model.get_params()
    c.set_params(C=0.5, kernel="linear")
    assert (c.C, c.kernel, model.C) == (0.5, "linear", 3.0)
    X, y = blobs(11)
    assert c.fit(X, y) is c


@pytest.mark.parametrize("param,value", [
    ("kernel", "sigmoid"), ("gamma", -1.0), ("gamma", 0.0), ("gamma", "big"), ("gamma", float("nan")),
    ("degree", 0), ("degree", 2.5), ("C", 0.0), ("C", -1.0), ("C", float("inf")), ("epsilon", 0.0),
    ("chunking", "some"), ("chunk_size", 0), ("top_k", 0), ("max_passes", 0), ("tol", 1.0),
    ("max_pairs", 0), ("formulation", "both"), ("time_limit", -1.0),
    ("random_state", -1), ("random_state", "seed"), ("random_state", 1.5),
])
def test_bad_parameters_name_themselves(param, value):
    X, y = blobs(12)
    with pytest.raises(ValueError, match=param):
        LPRanker(**{param: value}).fit(X, y)


def test_bad_data():
    X, y = blobs(13)
    with pytest.raises(ValueError, match="single class"):
        LPRanker().fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="single class"):
        LPRanker().fit(X, np.ones_like(y), qid=np.repeat([1, 2], 20))
    y_q = np.r_[np.ones(20, int), np.zeros(20, int)]
    with pytest.raises(ValueError, match="every query has a single class"):
        LPRanker().fit(X, y_q, qid=np.repeat([1, 2], 20))
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LPRanker().fit(Xn, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):  # scikit-learn's message
        LPRanker().fit(X, y[:-1])
    with pytest.raises(NotFittedError):
        LPRanker().predict(X)
    model = LPRanker().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :1])


def test_solver_failure_surfaces_highs_status():
    X, y = blobs(14, n=120, shift=0.2)
    with pytest.raises(LPSolveError, match="HiGHS.*Time limit reached"):
        LPRanker(time_limit=1e-9).fit(X, y)
