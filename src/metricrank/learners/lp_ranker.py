"""LP ranker: maximise an approximation of AUC with a 1-norm linear program.

Ataman, Street & Zhang (IJCNN 2006, seed ``002``) score a point with a kernel
expansion over the training set, ``f(x) = sum_i alpha_i y_i K(x_i, x)`` (no
intercept: adding a constant does not change a ranking), and choose
``alpha >= 0`` by the linear program::

    min  sum_i alpha_i + C * sum_(p,n) z_pn
    s.t. f(x_p) - f(x_n) >= epsilon - z_pn,  z_pn >= 0

with one soft constraint for every positive/negative pair -- over the whole
training set, or within each query when ``qid`` is given. Training points with
``alpha_i > 0`` are the *ranking vectors*. Because the constraint count is
``n_pos * n_neg``, the paper also solves the LP by chunking;
:mod:`metricrank.learners._lp_chunking` holds the LP and the chunking loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.metrics.pairwise import pairwise_kernels

from .._checks import check_generator_seed, is_integer, is_real
from .._seeds import as_generator
from ._sklearn_compat import RankerContractMixin, border_spec
from ._lp_chunking import LPSolveError, enumerate_pairs, solve_chunked, solve_pair_lp

__all__ = ["LPFitReport", "LPRanker", "LPSolveError"]

_KERNELS = ("rbf", "poly", "linear")
_CHUNKING = (None, "all-violated", "top-violated")


@dataclass(frozen=True)
class LPFitReport:
    """What one :meth:`LPRanker.fit` did (the paper's Table IV quantities).

    Attributes
    ----------
    n_pairs_full : int
        Constraints of the full LP: positive/negative pairs (within queries).
    n_pairs_used : int
        Pairs the LP was built from (``n_pairs_full`` unless ``max_pairs`` sampled).
    n_constraints : int
        Pair constraints in the final LP (all of them without chunking; the
        retained working set with chunking).
    reduction : float
        ``1 - n_constraints / n_pairs_full``.
    passes : int
        Full passes over the chunks (1 without chunking).
    n_solves : int
        HiGHS solves.
    objective : float
        ``sum(alpha) + C * sum(z)`` of the final LP (HiGHS's value).
    status : str
        HiGHS's model status of the final solve (``"Optimal"``).
    solve_time : float
        Seconds spent inside HiGHS, all solves.
    fit_time : float
        Seconds for the whole fit (kernel, pairs, solves).
    chunking : str or None
    exact : bool
        False when ``max_pairs`` subsampled the pairs.
    rounds : int
        Chunking rounds, i.e. HiGHS solves of the growing model (``n_solves``).
    pairs_added : tuple of int
        Pair constraints added before each solve (columns of the dual LP HiGHS
        solves by default; rows, plus one slack column each, of the primal).
    iterations : tuple of int
        Simplex iterations of each solve; after the first round HiGHS starts
        from the previous basis, so these show the warm start.
    solve_times : tuple of float
        Seconds inside HiGHS of each solve (they sum to ``solve_time``).

    The report also reads as a mapping: ``report["objective"]``, ``report.keys()``.
    """

    n_pairs_full: int
    n_pairs_used: int
    n_constraints: int
    reduction: float
    passes: int
    n_solves: int
    objective: float
    status: str
    solve_time: float
    fit_time: float
    chunking: str | None
    exact: bool
    rounds: int
    pairs_added: tuple
    iterations: tuple
    solve_times: tuple

    def keys(self):
        """Field names, so ``dict(report)`` and ``report[name]`` work."""
        return [f.name for f in fields(self)]

    def __getitem__(self, name):
        if not isinstance(name, str) or name not in self.keys():
            raise KeyError(name)
        return getattr(self, name)


def _check_real(name, value, *, low=0.0, low_open=True, allow_none=False):
    if value is None and allow_none:
        return None
    ok = is_real(value) and np.isfinite(value)
    ok = ok and (value > low if low_open else value >= low)
    if not ok:
        bound = f"> {low}" if low_open else f">= {low}"
        extra = " or None" if allow_none else ""
        raise ValueError(f"{name} must be a finite real number {bound}{extra}; got {value!r}")
    return float(value)


def _check_int(name, value, *, low=1, allow_none=False):
    if value is None and allow_none:
        return None
    if not (is_integer(value) and value >= low):
        extra = " or None" if allow_none else ""
        raise ValueError(f"{name} must be an integer >= {low}{extra}; got {value!r}")
    return int(value)


class LPRanker(RankerContractMixin, BaseEstimator):
    """Kernel ranker that maximises an approximation of AUC by linear programming.

    :meth:`score` defaults to ROCArea per query, with the positives of fit
    (``"ROCArea:border=<border>"``; without ``border``, the labels must be binary,
    and their positives are the labels > 0).

    Parameters
    ----------
    kernel : {"rbf", "poly", "linear"}, default="rbf"
        ``rbf``: ``exp(-gamma * |x - x'|^2)``; ``poly``: ``(gamma <x, x'> + coef0)^degree``;
        ``linear``: ``<x, x'>`` (computed by :func:`sklearn.metrics.pairwise.pairwise_kernels`).
    gamma : {"scale", "auto"} or float > 0, default="scale"
        Kernel coefficient for ``rbf`` and ``poly``, as in :class:`sklearn.svm.SVC`:
        ``"scale"`` is ``1 / (n_features * X.var())``, ``"auto"`` is ``1 / n_features``.
    degree : int >= 1, default=3
        Degree of the ``poly`` kernel.
    coef0 : float, default=1.0
        Constant of the ``poly`` kernel (the paper's ``(<x, x'> + 1)^d`` form).
    C : float > 0, default=1.0
        Weight of the pairwise errors ``z`` against ``sum(alpha)``.
    epsilon : float > 0, default=1.0
        Required score gap of a pair. The LP is homogeneous in ``(alpha, z,
        epsilon)``: scaling ``epsilon`` scales the solution and leaves the
        ranking unchanged, so any positive value gives the same ranker.
    chunking : {None, "all-violated", "top-violated"}, default=None
        ``None`` solves the full LP once. The chunked variants (the paper's two
        speed-up schemes) grow a working set of pair constraints inside one
        HiGHS model, re-solving after each addition from the previous optimal
        basis: ``"all-violated"`` scans the shuffled pairs in chunks of
        ``chunk_size`` and adds every violated pair of each chunk;
        ``"top-violated"`` scans every pair each round and adds the ``top_k``
        most violated. Both stop when no pair is violated and reach the full
        LP's optimum; ``"top-violated"`` is usually the fastest way to it
        (``benchmarks/lp_chunking.py``).
    chunk_size : int >= 1, default=5000
        Pairs per chunk of ``"all-violated"``. ``"top-violated"`` starts from a
        random ``chunk_size // 10`` pairs (at least 1, at most ``top_k``).
    top_k : int >= 1, optional
        Pairs added per round by ``"top-violated"``; default ``4 * chunk_size``
        (few large rounds: pairs added needlessly are cheap, see
        :mod:`metricrank.learners._lp_chunking`).
    max_passes : int >= 1, default=100
        Safety bound on chunking passes (a ``"top-violated"`` round is a pass).
    tol : float in [0, 1), default=1e-6
        Chunking counts a pair as violated when ``f_p - f_n < epsilon * (1 - tol)``.
    max_pairs : int >= 1, optional
        *Approximate mode*: if the data have more pairs, a uniform random sample
        of ``max_pairs`` of them is used (the result is then not the exact LP
        optimum; ``fit_report_.exact`` is False). Default: all pairs (exact).
    border : float, optional
        Labels ``> border`` are positive. Required for labels other than
        {0, 1}, {-1, 1} or bool (e.g. graded relevance: ``border=0``).
    formulation : {"dual", "primal"}, default="dual"
        Which (lifted) form of the LP HiGHS solves; same optimum, different speed
        (see :mod:`metricrank.learners._lp_chunking`). Chunking adds a pair as a
        column of the dual, or as a row plus its slack column of the primal.
    time_limit : float > 0, optional
        HiGHS time limit per solve, in seconds.
    random_state : int, numpy Generator or RandomState, or None, default=0
        Shuffles the pairs into chunks and draws the ``max_pairs`` sample.

    Attributes
    ----------
    alpha_ : ndarray of shape (n_train,)
        LP weights, one per training point (``>= 0``).
    support_ : ndarray of int
        Indices of the ranking vectors (``alpha_ > 0``).
    ranking_vectors_ : ndarray of shape (n_ranking_vectors, n_features)
        Training points with non-zero weight.
    dual_coef_ : ndarray of shape (n_ranking_vectors,)
        ``alpha_i * y_i`` of the ranking vectors (``y_i`` in {-1, +1}).
    pairs_ : ndarray of int, shape (n_constraints, 2)
        (positive, negative) training indices of the constraints in the final LP.
    slack_ : ndarray of shape (n_constraints,)
        ``z`` of those constraints.
    fit_report_ : LPFitReport
        Constraint counts, rounds, pairs added, simplex iterations and HiGHS
        time per round, HiGHS status, objective and timings; attributes or
        keys (``fit_report_["objective"]``).
    gamma_ : float
        The kernel coefficient used.
    n_features_in_ : int

    Raises
    ------
    ValueError
        From :meth:`fit`, for a parameter outside its range (naming it), NaN or
        infinite features, labels that are not binary without ``border``, or a
        training set with one class (overall, or in every query).
    LPSolveError
        If HiGHS stops without an optimal solution (message names its status).

    Notes
    -----
    The kernel matrix of the training set is held in memory (``n_train**2``
    floats) and the full LP has ``n_pos * n_neg`` constraints, each with three
    non-zeros in the lifted form used here (see
    :mod:`metricrank.learners._lp_chunking`).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> ranker = LPRanker(kernel="linear", C=10.0).fit(X, [0, 0, 1, 1])
    >>> ranker.predict(X).argsort().tolist()
    [0, 1, 2, 3]
    >>> ranker.fit_report_.n_pairs_full, ranker.fit_report_["status"]
    (4, 'Optimal')

    Chunking reaches the same optimum through a growing, warm-started LP:

    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(120) < 0.3
    >>> X = rng.normal(size=(120, 4)) + y[:, None]
    >>> full = LPRanker(kernel="rbf", C=1.0).fit(X, y)
    >>> chunked = LPRanker(kernel="rbf", C=1.0, chunking="top-violated", chunk_size=500).fit(X, y)
    >>> rep = chunked.fit_report_
    >>> abs(rep["objective"] - full.fit_report_["objective"]) < 1e-6 * full.fit_report_["objective"]
    True
    >>> rep["rounds"] > 1, rep["n_constraints"] < rep["n_pairs_full"], len(rep["iterations"]) == rep["rounds"]
    (True, True, True)
    """

    def __init__(self, kernel="rbf", *, gamma="scale", degree=3, coef0=1.0, C=1.0, epsilon=1.0,
                 chunking=None, chunk_size=5000, top_k=None, max_passes=100, tol=1e-6,
                 max_pairs=None, border=None, formulation="dual", time_limit=None, random_state=0):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.C = C
        self.epsilon = epsilon
        self.chunking = chunking
        self.chunk_size = chunk_size
        self.top_k = top_k
        self.max_passes = max_passes
        self.tol = tol
        self.max_pairs = max_pairs
        self.border = border
        self.formulation = formulation
        self.time_limit = time_limit
        self.random_state = random_state

    # ------------------------------------------------------------------ validation
    def _check_params(self):
        if self.kernel not in _KERNELS:
            raise ValueError(f"kernel must be one of {', '.join(map(repr, _KERNELS))}; got {self.kernel!r}")
        if isinstance(self.gamma, str):
            if self.gamma not in ("scale", "auto"):
                raise ValueError(f"gamma must be 'scale', 'auto' or a float > 0; got {self.gamma!r}")
        else:
            _check_real("gamma", self.gamma)
        _check_int("degree", self.degree)
        _check_real("coef0", self.coef0, low=-np.inf)
        _check_real("C", self.C)
        _check_real("epsilon", self.epsilon)
        if self.chunking not in _CHUNKING:
            raise ValueError(f"chunking must be one of {', '.join(map(repr, _CHUNKING))}; got {self.chunking!r}")
        _check_int("chunk_size", self.chunk_size)
        _check_int("top_k", self.top_k, allow_none=True)
        _check_int("max_passes", self.max_passes)
        if not (is_real(self.tol) and 0.0 <= self.tol < 1.0):
            raise ValueError(f"tol must be a real number in [0, 1); got {self.tol!r}")
        _check_int("max_pairs", self.max_pairs, allow_none=True)
        _check_real("border", self.border, low=-np.inf, allow_none=True)
        _check_real("time_limit", self.time_limit, allow_none=True)
        if self.formulation not in ("dual", "primal"):
            raise ValueError(f"formulation must be 'dual' or 'primal'; got {self.formulation!r}")
        check_generator_seed(self.random_state)

    def _binary_labels(self, y):
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be one-dimensional, got shape {y.shape}")
        if self.border is not None:
            yf = y.astype(np.float64)
            if not np.all(np.isfinite(yf)):
                raise ValueError("y contains NaN or infinite labels")
            return yf > self.border
        if y.dtype == bool:
            return y.copy()
        values = set(np.unique(y).tolist())
        if values <= {0, 1}:
            return y == 1
        if values <= {-1, 1}:
            return y == 1
        shown = sorted(values)[:6]
        raise ValueError(
            f"y must be binary ({{0, 1}}, {{-1, 1}} or bool); got values {shown}"
            f"{' ...' if len(values) > 6 else ''}; pass border=... to make labels > border positive"
        )

    def _kernel(self, A, B):
        if self.kernel == "linear":
            return pairwise_kernels(A, B, metric="linear")
        if self.kernel == "rbf":
            return pairwise_kernels(A, B, metric="rbf", gamma=self.gamma_)
        return pairwise_kernels(A, B, metric="poly", gamma=self.gamma_, degree=int(self.degree),
                                coef0=float(self.coef0))

    # ------------------------------------------------------------------ fitting
    _fitted_attr = "alpha_"
    _accept_sparse = False

    def fit(self, X, y=None, *, qid=None):
        """Solve the LP on the training set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Binary labels ({0, 1}, {-1, 1} or bool), or any labels with ``border``.
        qid : array-like of shape (n_samples,), optional
            Query of each row (rows of a query contiguous). Pairs are then formed
            within queries only; the scoring function still spans every training point.

        Returns
        -------
        self
        """
        t_start = time.perf_counter()
        self._check_params()
        ds = self._training_data(X, y, qid)
        X, y = np.asarray(ds.X, dtype=np.float64), ds.y
        positive = self._binary_labels(y)
        if positive.shape[0] != X.shape[0]:
            raise ValueError(f"y has {positive.shape[0]} labels but X has {X.shape[0]} rows")
        n_pos = int(positive.sum())
        if n_pos == 0 or n_pos == positive.size:
            rule = "" if self.border is None else f"; positive: label > border={self.border!r}"
            raise ValueError(  # "one class" is what scikit-learn's estimator checks look for
                f"the training set has a single class ({n_pos} positive of {positive.size}: one class{rule}); "
                "the LP ranker needs both positives and negatives"
            )
        group_ptr = ds.group_ptr  # one query of every row without qid
        pairs = enumerate_pairs(positive, group_ptr)
        if pairs.shape[0] == 0:
            raise ValueError("no query holds both a positive and a negative row; every query has a single class")
        rng = as_generator(self.random_state)
        n_full = pairs.shape[0]
        exact = True
        if self.max_pairs is not None and n_full > self.max_pairs:
            pairs = pairs[np.sort(rng.choice(n_full, size=self.max_pairs, replace=False))]
            exact = False

        if self.gamma == "scale":
            var = X.var()
            self.gamma_ = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        elif self.gamma == "auto":
            self.gamma_ = 1.0 / X.shape[1]
        else:
            self.gamma_ = float(self.gamma)
        K = self._kernel(X, X)
        y_pm = np.where(positive, 1.0, -1.0)
        common = dict(C=float(self.C), epsilon=float(self.epsilon), time_limit=self.time_limit,
                      formulation=self.formulation)
        if self.chunking is None:
            sol = solve_pair_lp(K, y_pm, pairs, **common)
            working, passes, solve_time = np.arange(pairs.shape[0]), 1, sol.solve_time
            added, iterations, times = (pairs.shape[0],), (sol.iterations,), (sol.solve_time,)
        else:
            top_k = self.top_k if self.top_k is not None else 4 * self.chunk_size
            res = solve_chunked(K, y_pm, pairs, variant=self.chunking, chunk_size=int(self.chunk_size),
                                top_k=int(top_k), tol=float(self.tol), max_passes=int(self.max_passes),
                                rng=rng, **common)
            sol, working, passes, solve_time = res.solution, res.working, res.passes, res.solve_time
            added, iterations, times = res.pairs_added, res.iterations, res.solve_times
        alpha = sol.alpha.copy()
        alpha[alpha <= 1e-10 * max(1.0, float(alpha.max(initial=0.0)))] = 0.0
        self.alpha_ = alpha
        self.support_ = np.flatnonzero(alpha > 0)
        self.ranking_vectors_ = X[self.support_].copy()
        self.dual_coef_ = alpha[self.support_] * y_pm[self.support_]
        self.pairs_ = pairs[working]
        self.slack_ = sol.z
        self.fit_report_ = LPFitReport(
            n_pairs_full=int(n_full), n_pairs_used=int(pairs.shape[0]), n_constraints=int(working.size),
            reduction=1.0 - working.size / n_full, passes=int(passes), n_solves=len(times),
            objective=sol.objective, status=sol.status, solve_time=float(solve_time),
            fit_time=time.perf_counter() - t_start, chunking=self.chunking, exact=exact,
            rounds=len(times), pairs_added=tuple(added), iterations=tuple(iterations), solve_times=tuple(times),
        )
        return self

    def predict(self, X):
        """Scores ``f(x) = sum_i alpha_i y_i K(x_i, x)``; higher ranks first.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        X, _ = self._predict_data(X)
        if self.support_.size == 0:
            return np.zeros(X.shape[0])
        return self._kernel(X, self.ranking_vectors_) @ self.dual_coef_

    def decision_function(self, X):
        """Alias of :meth:`predict` (scikit-learn's name for ranking scores)."""
        return self.predict(X)

    def _score_metric(self, y) -> str:
        self._binary_labels(y)  # fit's label check: binary labels unless border is set
        # the positives of {0, 1}, {-1, 1} and bool labels are exactly the labels > 0
        return border_spec("ROCArea", 0.0 if self.border is None else self.border)
