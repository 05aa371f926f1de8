"""Cutting-plane machinery: Algorithm 1 against a direct solve of the full OP 1, stopping rule,
duality gap, solver failures and bad input."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from metricrank import evaluate
from metricrank.learners._struct_svm import (
    StructSVMSolverError,
    binary_relevance,
    solve_working_set_qp,
)
from metricrank.learners.svm_map import SVMMAP, map_most_violated
from metricrank.learners.svm_roc import SVMROCArea, roc_most_violated


def small_problem(seed=0, n_queries=3, size=4, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_queries * size, d))
    y = np.zeros(n_queries * size)
    for q in range(n_queries):
        k = int(rng.integers(1, size))
        y[q * size + rng.choice(size, k, replace=False)] = 1
    return X, y, np.repeat(np.arange(n_queries), size)


def enumerate_constraints(X, y, qid, loss):
    """Every ranking of every query: (g = Psi(y_i) - Psi(y), Delta, query) from the definitions."""
    G, D, owner = [], [], []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        Xq, rel = X[rows], y[rows] > 0
        P, N = rel.sum(), (~rel).sum()
        psi_true = (Xq[rel].sum(0) * N - Xq[~rel].sum(0) * P) / (P * N)
        for order in itertools.permutations(range(len(rows))):
            pos = np.empty(len(rows), dtype=int)
            pos[list(order)] = np.arange(len(rows))
            psi = np.zeros(X.shape[1])
            swapped = 0
            for i in np.flatnonzero(rel):
                for j in np.flatnonzero(~rel):
                    yij = 1 if pos[i] < pos[j] else -1
                    psi += yij * (Xq[i] - Xq[j])
                    swapped += yij < 0
            psi /= P * N
            if loss == "map":
                ranked = rel[list(order)]
                ap = np.sum(np.cumsum(ranked)[ranked] / (np.flatnonzero(ranked) + 1)) / P
                delta = 1 - ap
            else:
                delta = swapped / (P * N)
            G.append(psi_true - psi)
            D.append(delta)
            owner.append(q)
    return np.array(G), np.array(D), np.array(owner)


def full_qp_osqp(G, D, owner, n, C):
    """OP 1 over the enumerated constraint set, solved by OSQP (an independent solver)."""
    import osqp

    m, d = G.shape
    P = sp.block_diag([sp.identity(d), sp.csc_matrix((n, n))], format="csc")
    q = np.concatenate([np.zeros(d), np.full(n, C / n)])
    A = sp.vstack([
        sp.hstack([sp.csr_matrix(G), sp.csr_matrix((np.ones(m), (np.arange(m), owner)), shape=(m, n))]),
        sp.hstack([sp.csr_matrix((n, d)), sp.identity(n)]),
    ]).tocsc()
    lower = np.concatenate([D, np.zeros(n)])
    upper = np.full(m + n, np.inf)
    solver = osqp.OSQP()
    solver.setup(P, q, A, lower, upper, eps_abs=1e-10, eps_rel=1e-10, max_iter=200000,
                 polishing=True, verbose=False)
    res = solver.solve(raise_error=True)
    w = res.x[:d]
    xi = np.maximum(0, np.max(np.where(owner[None, :] == np.arange(n)[:, None], D - G @ w, -np.inf), axis=1))
    return w, 0.5 * w @ w + C / n * xi.sum()


@pytest.mark.parametrize("cls,loss", [(SVMMAP, "map"), (SVMROCArea, "roc")])
@pytest.mark.parametrize("C", [0.5, 20.0])
def test_objective_matches_the_full_qp(cls, loss, C):
    X, y, qid = small_problem(seed=1)
    eps = 1e-7
    model = cls(C=C, epsilon=eps).fit(X, y, qid=qid)
    G, D, owner = enumerate_constraints(X, y, qid, loss)
    w_full, obj_full = full_qp_osqp(G, D, owner, 3, C)
    rep = model.fit_report_
    # the report's primal objective, recomputed from the enumerated constraints
    w = model.coef_
    xi = [max(0.0, np.max(D[owner == q] - G[owner == q] @ w)) for q in range(3)]
    obj_w = 0.5 * w @ w + C / 3 * sum(xi)
    assert rep.primal_objective == pytest.approx(obj_w, abs=1e-9)
    assert obj_full - 1e-7 <= obj_w <= obj_full + C * eps + 1e-6
    assert rep.dual_objective <= obj_full + 1e-6
    np.testing.assert_allclose(w, w_full, atol=1e-3)


@pytest.mark.parametrize("cls,oracle", [(SVMMAP, map_most_violated), (SVMROCArea, roc_most_violated)])
def test_stops_with_every_constraint_satisfied_within_epsilon(cls, oracle):
    X, y, qid = small_problem(seed=4, n_queries=8, size=7, d=4)
    eps = 1e-3
    model = cls(C=5.0, epsilon=eps).fit(X, y, qid=qid)
    rep = model.fit_report_
    assert rep.converged and rep.max_violation <= eps
    # xi_i from the oracle at the final w bounds every constraint of OP 1 (checked by enumerating
    # a query's rankings) and the working-set slack is within epsilon of it
    G, D, owner = enumerate_constraints(X[:7], y[:7], qid[:7], "map" if cls is SVMMAP else "roc")
    _, _, H = oracle(X[:7] @ model.coef_, (y[:7] > 0).astype(np.int8), np.array([0, 7]))
    assert np.max(D - G @ model.coef_) == pytest.approx(H[0], abs=1e-12)
    assert 0 <= rep.duality_gap <= 5.0 * eps + 1e-6


def test_proposition_1_mean_slack_bounds_the_training_loss():
    X, y, qid = small_problem(seed=7, n_queries=10, size=8, d=3)
    model = SVMMAP(C=3.0).fit(X, y, qid=qid)
    train_map = evaluate(y, model.predict(X), qid=qid, metric="MAP")
    assert model.fit_report_.mean_slack >= (1 - train_map) - 1e-9


def test_queries_without_both_classes_are_skipped_and_counted():
    X, y, qid = small_problem(seed=2, n_queries=4, size=5)
    X2 = np.vstack([X, np.ones((3, 3)), np.zeros((2, 3))])
    y2 = np.concatenate([y, [1, 1, 1], [0, 0]])
    qid2 = np.concatenate([qid, [10, 10, 10], [11, 11]])
    a = SVMMAP(C=2.0).fit(X, y, qid=qid)
    b = SVMMAP(C=2.0).fit(X2, y2, qid=qid2)
    assert b.fit_report_.n_queries == 6 and b.fit_report_.n_queries_skipped == 2
    assert b.fit_report_.n_queries_used == 4
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)


def test_sparse_and_dense_input_agree():
    X, y, qid = small_problem(seed=3, n_queries=5, size=6)
    X[np.abs(X) < 0.5] = 0
    dense = SVMMAP(C=4.0).fit(X, y, qid=qid)
    sparse = SVMMAP(C=4.0).fit(sp.csr_matrix(X), y, qid=qid)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, atol=1e-8)
    np.testing.assert_allclose(dense.predict(X), sparse.predict(sp.csr_matrix(X)), atol=1e-8)


def test_working_set_qp_hand_solution():
    # two queries, one constraint each: min 1/2 w^2 + c(xi1 + xi2), w >= 1 - xi1, 2w >= 1 - xi2
    G = np.array([[1.0], [2.0]])
    w, alpha, obj, status = solve_working_set_qp(G, np.array([1.0, 1.0]), np.array([0, 1]), 2, 5.0)
    assert status == "Solved"
    assert w[0] == pytest.approx(1.0, abs=1e-7) and obj == pytest.approx(0.5, abs=1e-7)
    # KKT: w = sum alpha_k g_k, alpha within [0, C/n]
    assert G.T @ alpha == pytest.approx(w, abs=1e-6)
    assert np.all(alpha >= 0) and np.all(alpha <= 5.0 + 1e-9)


def test_solver_failure_names_the_status():
    import clarabel

    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.max_iter = 1
    rng = np.random.default_rng(0)
    with pytest.raises(StructSVMSolverError, match="MaxIterations"):
        solve_working_set_qp(rng.normal(size=(20, 5)), rng.random(20), np.arange(20) % 4, 4, 1.0,
                             settings=settings)


def test_solver_failure_propagates_from_fit(monkeypatch):
    import metricrank.learners._struct_svm as mod

    def failing(*args, **kwargs):
        raise StructSVMSolverError("Clarabel failed on the working-set QP: status NumericalError")

    monkeypatch.setattr(mod, "solve_working_set_qp", failing)
    X, y, qid = small_problem()
    with pytest.raises(StructSVMSolverError, match="NumericalError"):
        SVMMAP().fit(X, y, qid=qid)


@pytest.mark.parametrize("cls", [SVMMAP, SVMROCArea])
@pytest.mark.parametrize("param,value,match", [
    ("C", 0, "C must be"), ("C", -1.0, "C must be"), ("C", float("nan"), "C must be"),
    ("epsilon", 0.0, "epsilon must be"), ("epsilon", -1e-3, "epsilon must be"),
    ("max_iter", 0, "max_iter"), ("max_iter", 2.5, "max_iter"), ("border", "high", "border"),
])
def test_bad_parameters(cls, param, value, match):
    X, y, qid = small_problem()
    with pytest.raises(ValueError, match=match):
        cls(**{param: value}).fit(X, y, qid=qid)


@pytest.mark.parametrize("cls", [SVMMAP, SVMROCArea])
def test_bad_training_sets(cls):
    X, y, qid = small_problem()
    with pytest.raises(ValueError, match="no relevant document"):
        cls().fit(X, np.zeros_like(y), qid=qid)
    with pytest.raises(ValueError, match="no non-relevant document"):
        cls().fit(X, np.ones_like(y), qid=qid)
    one_class_per_query = np.repeat([1.0, 0.0, 1.0], 4)
    with pytest.raises(ValueError, match="no training query has both"):
        cls().fit(X, one_class_per_query, qid=qid)
    with pytest.raises(ValueError, match="border must be"):
        cls(border=float("inf")).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="Input X contains infinity"):  # scikit-learn's message
        cls().fit(np.where(X > 1, np.inf, X), y, qid=qid)
    with pytest.raises(ValueError):
        cls().fit(X, y[:-1], qid=qid)
    with pytest.raises(ValueError):
        cls().fit(X, y, qid=[0, 1] * 6)  # a query's rows are not contiguous


def test_predict_checks_the_feature_count_and_fitting():
    from sklearn.exceptions import NotFittedError

    X, y, qid = small_problem()
    with pytest.raises(NotFittedError):
        SVMMAP().predict(X)
    model = SVMMAP().fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])


def test_max_iter_reached_warns_and_reports_not_converged():
    X, y, qid = small_problem(seed=5, n_queries=6, size=6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SVMMAP(C=100.0, epsilon=1e-8, max_iter=1).fit(X, y, qid=qid)
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert model.n_iter_ == 1 and not model.fit_report_.converged
    assert model.fit_report_.max_violation > 1e-8
    assert np.any(model.coef_ != 0)


def test_graded_labels_are_mapped_by_border():
    X, y, qid = small_problem(seed=8)
    graded = y * np.tile([2, 1, 1, 2], 3)  # relevant documents get grade 1 or 2
    a = SVMMAP(C=2.0).fit(X, y, qid=qid)
    b = SVMMAP(C=2.0).fit(X, graded, qid=qid)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)
    assert binary_relevance([0, 1, 2], 1).tolist() == [0, 0, 1]


def test_sklearn_conventions():
    model = SVMROCArea(C=3.0, epsilon=0.01, max_iter=7, border=0.5)
    assert model.get_params() == dict(C=3.0, epsilon=0.01, max_iter=7, border=0.5, verbose=False)
    model.set_params(C=4.0)
    assert clone(model).C == 4.0
    X, y, qid = small_problem()
    assert model.fit(X, y, qid=qid) is model
    assert model.coef_.shape == (3,) and model.n_features_in_ == 3
