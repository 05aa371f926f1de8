"""Chunked LP ranker in one warm-started HiGHS model: same optimum as the full LP, every pair
constraint of the full LP holds, the warm start saves simplex iterations, bad parameters named.

Objective tolerance: relative 1e-6. HiGHS declares optimality with primal and dual feasibility
tolerances of 1e-7 (its defaults), so two optimal bases of the same LP can report objectives that
differ by about that much relative to the multipliers' size; chunking stops when no pair outside
the working set is violated by more than ``epsilon * tol`` (tol = 1e-9 here), which can only add
``C * n_pairs * epsilon * tol`` (< 1e-5 absolute, < 1e-7 relative here) to the full objective.
Observed differences are 1e-13 to 1e-15.
"""

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.metrics.pairwise import pairwise_kernels

import metricrank
from metricrank.learners._lp_chunking import enumerate_pairs, solve_chunked

REL = 1e-6


def blobs(seed, n=60, d=3, shift=1.0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    y[:2] = [1, 0]
    X = rng.normal(size=(n, d)) + shift * y[:, None]
    return X, y


def dense_lp_objective(K, y01, C, eps):
    """The paper's LP as written (variables [alpha | z], one dense row per pair), solved by SciPy."""
    ypm = np.where(y01 == 1, 1.0, -1.0)
    pairs = enumerate_pairs(y01 == 1, [0, y01.size])
    Ky = K * ypm[None, :]
    D = Ky[pairs[:, 0]] - Ky[pairs[:, 1]]
    c = np.r_[np.ones(K.shape[0]), np.full(pairs.shape[0], C)]
    res = linprog(c, A_ub=-np.hstack([D, np.eye(pairs.shape[0])]), b_ub=np.full(pairs.shape[0], -eps),
                  bounds=(0, None), method="highs")
    assert res.status == 0
    return res.fun


def full_lp_violation(alpha, K, y01, work_pairs, work_slack, C, eps, objective):
    """Largest violation of the *full* LP by (alpha, z), z = reported slack on the working pairs and 0
    on every other pair; also the gap between the reported objective and sum(alpha) + C * sum(z)."""
    ypm = np.where(y01 == 1, 1.0, -1.0)
    pairs = enumerate_pairs(y01 == 1, [0, y01.size])
    z = np.zeros(pairs.shape[0])
    index = {tuple(p): i for i, p in enumerate(pairs.tolist())}
    for (p, n), s in zip(work_pairs.tolist(), work_slack):
        z[index[(p, n)]] = s
    f = (K * ypm[None, :]) @ alpha
    pair_violation = eps - (f[pairs[:, 0]] - f[pairs[:, 1]] + z)   # each f_p - f_n + z_pn >= eps
    worst = max(pair_violation.max(), -alpha.min(), -z.min())
    return worst, abs(alpha.sum() + C * z.sum() - objective) / abs(objective)


@pytest.mark.parametrize("kernel,C,seed", [("linear", 1.0, 0), ("linear", 10.0, 1), ("rbf", 1.0, 2),
                                           ("rbf", 0.1, 3), ("rbf", 10.0, 4)])
def test_top_violated_reaches_the_full_optimum_and_satisfies_every_pair(kernel, C, seed):
    X, y = blobs(seed, shift=0.8)
    kw = dict(kernel=kernel, gamma=0.5, C=C)
    full = metricrank.LPRanker(**kw).fit(X, y)
    chunked = metricrank.LPRanker(**kw, chunking="top-violated", chunk_size=60, tol=1e-9).fit(X, y)
    rep = chunked.fit_report_
    K = pairwise_kernels(X, metric=kernel, **({"gamma": 0.5} if kernel == "rbf" else {}))
    assert rep["objective"] == pytest.approx(full.fit_report_["objective"], rel=REL)
    assert rep["objective"] == pytest.approx(dense_lp_objective(K, y, C, 1.0), rel=REL)
    assert rep["rounds"] >= 2 and rep["n_constraints"] < rep["n_pairs_full"]  # it really chunked
    assert "Optimal" in rep["status"]

    worst, obj_gap = full_lp_violation(chunked.alpha_, K, y, chunked.pairs_, chunked.slack_, C, 1.0,
                                       rep["objective"])
    assert worst <= 1e-7 and obj_gap <= REL
    # the check has teeth: a slightly shrunken alpha breaks some pair constraint of the full LP
    worst_bad, _ = full_lp_violation(0.97 * chunked.alpha_, K, y, chunked.pairs_, chunked.slack_, C, 1.0,
                                     rep["objective"])
    assert worst_bad > 1e-3


def test_report_reads_as_a_mapping_and_accounts_for_every_round():
    X, y = blobs(5, n=70, shift=0.8)
    rep = metricrank.LPRanker(C=1.0, chunking="top-violated", chunk_size=100, top_k=150).fit(X, y).fit_report_
    assert dict(rep)["objective"] == rep["objective"] == rep.objective
    assert rep["rounds"] == rep["n_solves"] == len(rep["pairs_added"]) == len(rep["iterations"]) \
        == len(rep["solve_times"])
    assert sum(rep["pairs_added"]) == rep["n_constraints"] and max(rep["pairs_added"]) <= 150
    assert rep["pairs_added"][0] == 10                     # the random seed: chunk_size // 10
    assert sum(rep["solve_times"]) == pytest.approx(rep["solve_time"])
    with pytest.raises(KeyError):
        rep["no such field"]


@pytest.mark.parametrize("kernel,seed,m", [("rbf", 0, 80), ("linear", 1, 80), ("rbf", 2, 120)])
def test_warm_start_needs_fewer_iterations_than_cold_solves_of_the_same_models(kernel, seed, m):
    """Round r solves the same LP warm (grown model, previous basis) and cold (rebuilt model);
    HiGHS is deterministic, so the iteration counts are too."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(m) < 0.4, 1.0, -1.0)
    X = rng.normal(size=(m, 3)) + 0.8 * y[:, None]
    K = pairwise_kernels(X, metric=kernel, **({"gamma": 0.5} if kernel == "rbf" else {}))
    pairs = enumerate_pairs(y > 0, [0, m])
    kw = dict(C=1.0, epsilon=1.0, variant="top-violated", chunk_size=100, top_k=100, tol=1e-9, max_passes=100)
    warm = solve_chunked(K, y, pairs, rng=np.random.default_rng(0), warm_start=True, **kw)
    cold = solve_chunked(K, y, pairs, rng=np.random.default_rng(0), warm_start=False, **kw)
    assert warm.pairs_added == cold.pairs_added and len(warm.iterations) >= 3   # same rounds, same models
    assert warm.iterations[0] == cold.iterations[0]                             # round 1 is cold in both
    assert all(w < c for w, c in zip(warm.iterations[1:], cold.iterations[1:]))
    assert sum(warm.iterations) < 0.7 * sum(cold.iterations)
    assert warm.solution.objective == pytest.approx(cold.solution.objective, rel=REL)


@pytest.mark.parametrize("variant", ["top-violated", "all-violated"])
def test_primal_form_grows_rows_and_slack_columns_to_the_same_optimum(variant):
    """formulation="primal" adds each pair as a row plus its z column; same optimum, warm start too."""
    X, y = blobs(7, n=70, shift=0.8)
    K = pairwise_kernels(X, metric="rbf", gamma=0.5)
    ypm = np.where(y == 1, 1.0, -1.0)
    pairs = enumerate_pairs(y == 1, [0, y.size])
    kw = dict(C=1.0, epsilon=1.0, variant=variant, chunk_size=150, top_k=150, tol=1e-9, max_passes=100,
              formulation="primal")
    warm = solve_chunked(K, ypm, pairs, rng=np.random.default_rng(0), **kw)
    cold = solve_chunked(K, ypm, pairs, rng=np.random.default_rng(0), warm_start=False, **kw)
    assert warm.solution.objective == pytest.approx(dense_lp_objective(K, y, 1.0, 1.0), rel=REL)
    assert warm.working.size < pairs.shape[0] and len(warm.iterations) >= 3
    assert sum(warm.iterations[1:]) < sum(cold.iterations[1:])


@pytest.mark.parametrize("param,value,allowed", [
    ("chunking", "top", r"None, 'all-violated', 'top-violated'"),
    ("chunking", "TOP-VIOLATED", r"None, 'all-violated', 'top-violated'"),
    ("C", 0.0, r"> 0"),
    ("C", -2.0, r"> 0"),
    ("chunk_size", 0, r"integer >= 1"),
    ("chunk_size", 2.5, r"integer >= 1"),
    ("top_k", 0, r"integer >= 1 or None"),
])
def test_bad_chunking_parameters_name_the_parameter_and_allowed_values(param, value, allowed):
    X, y = blobs(6)
    kw = {"chunking": "top-violated", param: value}
    with pytest.raises(ValueError, match=rf"^{param} must be .*{allowed}.*; got {value!r}$"):
        metricrank.LPRanker(kernel="rbf", **kw).fit(X, y)


def test_a_fit_prints_nothing_not_even_highs_banner(capfd):
    X, y = blobs(0)
    metricrank.LPRanker(kernel="linear", C=1).fit(X, y)
    assert capfd.readouterr().out == ""


def test_ctrl_c_during_a_solve_stops_highs_there_and_raises_keyboard_interrupt(monkeypatch):
    """Ctrl-C arrives while HiGHS is in the simplex (this fit is one solve of about 23 s here; the
    signal is sent at the first simplex callback 0.3 s after the solve starts). Python's own handler
    acts only after the solve (or raises inside highspy's callback, which HiGHS reports as a solve
    error); the fit must stop HiGHS mid-solve, its model status "Interrupted", and raise
    KeyboardInterrupt. The signal is sent from a callback, so that it lands mid-solve whatever the
    machine's speed. A process started in the background of a non-interactive shell inherits SIGINT
    ignored, where Ctrl-C cannot reach it and the fit rightly leaves the handler alone; the test sets
    Python's default handler first, as an interactive session has it."""
    import os
    import signal
    import time

    import highspy

    from metricrank.learners import _lp_highs

    status_at_interrupt = []
    solve = _lp_highs.PairLP.solve

    def recording_solve(self):
        try:
            return solve(self)
        except KeyboardInterrupt:
            status_at_interrupt.append(self._h.getModelStatus())
            raise

    sent = []
    run = _lp_highs._QuietHighs.run

    def run_with_ctrl_c_during_it(self):
        start = time.perf_counter()

        def ctrl_c_once(event):
            if not sent and time.perf_counter() - start > 0.3:
                sent.append(True)
                os.kill(os.getpid(), signal.SIGINT)

        self.cbSimplexInterrupt += ctrl_c_once
        try:
            return run(self)
        finally:
            self.cbSimplexInterrupt -= ctrl_c_once

    monkeypatch.setattr(_lp_highs.PairLP, "solve", recording_solve)
    monkeypatch.setattr(_lp_highs._QuietHighs, "run", run_with_ctrl_c_during_it)
    rng = np.random.default_rng(0)
    y = (rng.random(800) < 0.35).astype(int)
    X = rng.normal(size=(800, 5)) + 0.3 * y[:, None]
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            metricrank.LPRanker(kernel="rbf", C=1).fit(X, y)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is restored
    finally:
        signal.signal(signal.SIGINT, inherited)
    assert sent == [True]
    assert status_at_interrupt == [highspy.HighsModelStatus.kInterrupt]
