"""The pair LP (lifted primal and dual) and its chunked solution against a dense LP built directly."""

import highspy
import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.metrics.pairwise import pairwise_kernels

from metricrank.learners._lp_chunking import LPSolveError, enumerate_pairs, solve_chunked, solve_pair_lp


def dense_primal_objective(K, y, pairs, C, eps):
    """The paper's LP exactly as written: variables [alpha | z], one dense row per pair."""
    m, P = K.shape[0], pairs.shape[0]
    Ky = K * y[None, :]
    D = Ky[pairs[:, 0]] - Ky[pairs[:, 1]]                 # f_p - f_n = D @ alpha
    A_ub = -np.hstack([D, np.eye(P)])                      # D alpha + z >= eps
    c = np.r_[np.ones(m), np.full(P, C)]
    res = linprog(c, A_ub=A_ub, b_ub=np.full(P, -eps), bounds=(0, None), method="highs")
    assert res.status == 0
    return res.fun


def problem(seed, m=40, kernel="rbf", overlap=1.0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(m) < 0.4, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    X = rng.normal(size=(m, 3)) + overlap * y[:, None]
    params = {"rbf": {"gamma": 0.5}, "poly": {"degree": 2, "gamma": 0.3, "coef0": 1.0}, "linear": {}}[kernel]
    K = pairwise_kernels(X, metric=kernel, **params)
    pairs = enumerate_pairs(y > 0, np.array([0, m]))
    return K, y, pairs


def full_objective_of(alpha, K, y, pairs, C, eps):
    """sum(alpha) + C * sum of the optimal slacks of *every* pair for this alpha."""
    f = (K * y[None, :]) @ alpha
    z = np.maximum(0.0, eps - (f[pairs[:, 0]] - f[pairs[:, 1]]))
    return alpha.sum() + C * z.sum()


def test_enumerate_pairs_equals_double_loop():
    rng = np.random.default_rng(3)
    pos = rng.random(30) < 0.3
    ptr = np.array([0, 4, 5, 13, 30])
    expected = {(p, n) for q in range(4) for p in range(ptr[q], ptr[q + 1])
                for n in range(ptr[q], ptr[q + 1]) if pos[p] and not pos[n]}
    got = enumerate_pairs(pos, ptr)
    assert got.shape[0] == len(expected)
    assert {tuple(r) for r in got.tolist()} == expected
    assert enumerate_pairs([True, True], [0, 2]).shape == (0, 2)


@pytest.mark.parametrize("formulation", ["dual", "primal"])
@pytest.mark.parametrize("kernel,seed,C", [("rbf", 0, 1.0), ("rbf", 1, 0.05), ("poly", 2, 1.0),
                                           ("linear", 3, 10.0), ("rbf", 4, 100.0)])
def test_lifted_lp_equals_dense_lp(formulation, kernel, seed, C):
    K, y, pairs = problem(seed, kernel=kernel)
    eps = 0.7
    sol = solve_pair_lp(K, y, pairs, C=C, epsilon=eps, formulation=formulation)
    expected = dense_primal_objective(K, y, pairs, C, eps)
    assert sol.objective == pytest.approx(expected, rel=1e-7, abs=1e-9)
    # the reported alpha and z attain the reported objective and satisfy every constraint
    assert np.all(sol.alpha >= 0) and np.all(sol.z >= 0)
    assert sol.alpha.sum() + C * sol.z.sum() == pytest.approx(expected, rel=1e-6, abs=1e-8)
    f = (K * y[None, :]) @ sol.alpha
    assert np.all(f[pairs[:, 0]] - f[pairs[:, 1]] + sol.z >= eps - 1e-7)
    assert "Optimal" in sol.status


@pytest.mark.parametrize("variant", ["all-violated", "top-violated"])
@pytest.mark.parametrize("seed,chunk_size,top_k,C", [(0, 50, 5, 1.0), (1, 97, 20, 10.0), (2, 30, 1, 0.2),
                                                     (3, 1000, 100, 1.0)])
def test_chunked_reaches_full_objective(variant, seed, chunk_size, top_k, C):
    K, y, pairs = problem(seed, m=50, overlap=0.6)
    eps = 1.0
    full = dense_primal_objective(K, y, pairs, C, eps)
    res = solve_chunked(K, y, pairs, C=C, epsilon=eps, variant=variant, chunk_size=chunk_size, top_k=top_k,
                        tol=1e-9, max_passes=200, rng=np.random.default_rng(seed))
    assert res.solution.objective == pytest.approx(full, rel=1e-6)
    # the chunked alpha is optimal for the *full* LP: its full objective is the optimum
    assert full_objective_of(res.solution.alpha, K, y, pairs, C, eps) == pytest.approx(full, rel=1e-6)
    assert np.unique(res.working).size == res.working.size <= pairs.shape[0]
    assert res.passes >= 2  # the last pass is the one that adds nothing
    if variant == "top-violated":
        assert res.n_solves >= -(-res.working.size // top_k)


def test_top_violated_retains_fewer_pairs_than_all_violated():
    K, y, pairs = problem(5, m=60, overlap=1.5)
    kw = dict(C=1.0, epsilon=1.0, chunk_size=200, tol=1e-9, max_passes=200)
    a = solve_chunked(K, y, pairs, variant="all-violated", top_k=20, rng=np.random.default_rng(0), **kw)
    t = solve_chunked(K, y, pairs, variant="top-violated", top_k=20, rng=np.random.default_rng(0), **kw)
    assert t.working.size < a.working.size < pairs.shape[0]
    assert t.solution.objective == pytest.approx(a.solution.objective, rel=1e-6)


def test_max_passes_exceeded_raises():
    K, y, pairs = problem(0, m=50, overlap=0.3)
    with pytest.raises(LPSolveError, match="max_passes=1"):
        solve_chunked(K, y, pairs, C=1.0, epsilon=1.0, variant="top-violated", chunk_size=20, top_k=1,
                      tol=1e-9, max_passes=1, rng=np.random.default_rng(0))


@pytest.mark.parametrize("status,word", [(highspy.HighsModelStatus.kInfeasible, "infeasible"),
                                         (highspy.HighsModelStatus.kTimeLimit, "time limit"),
                                         (highspy.HighsModelStatus.kSolveError, "solve error")])
def test_failed_solve_names_highs_status(monkeypatch, status, word):
    K, y, pairs = problem(0, m=10)
    monkeypatch.setattr(highspy.Highs, "getModelStatus", lambda self: status)
    with pytest.raises(LPSolveError, match=rf"(?i)model status {int(status)} \(.*{word}.*\)"):
        solve_pair_lp(K, y, pairs, C=1.0, epsilon=1.0)


def test_real_time_limit_is_reported():
    K, y, pairs = problem(0, m=120, overlap=0.2)
    with pytest.raises(LPSolveError, match="Time limit reached"):
        solve_pair_lp(K, y, pairs, C=1.0, epsilon=1.0, time_limit=1e-9)


def test_each_solve_gets_the_whole_time_limit_after_earlier_runs():
    # HiGHS's time_limit bounds the object's run time summed over all runs, so a limit set once would
    # leave later rounds of chunking less time each; PairLP extends it by the run time so far.
    from metricrank.learners._lp_highs import PairLP

    class Clock:
        """The real model, with 1,000 s of earlier runs on its clock and the options it is given kept."""

        def __init__(self, real):
            self.real, self.options = real, {}

        def getRunTime(self):
            return 1000.0 + self.real.getRunTime()

        def setOptionValue(self, name, value):
            self.options[name] = value
            return self.real.setOptionValue(name, value if name != "time_limit" else 60.0)

        def __getattr__(self, name):
            return getattr(self.real, name)

    K, y, pairs = problem(0, m=30)
    lp = PairLP(y[None, :] * K, C=1.0, epsilon=1.0, time_limit=5.0)
    lp._h = Clock(lp._h)
    lp.add_pairs(pairs)
    lp.solve()
    assert lp._h.options["time_limit"] == pytest.approx(1005.0, abs=1.0)
