"""Cutting-plane training of the n-slack structural SVM of Yue et al. (seed ``004``), OP 1.

Formulation
-----------
One slack per training query (OP 1, the *n-slack* form)::

    min_{w, xi >= 0}  1/2 ||w||^2 + C/n sum_i xi_i
    s.t.  w^T (Psi(x_i, y_i) - Psi(x_i, y)) >= Delta(y_i, y) - xi_i   for all i, all y

with the joint feature map of section 3,
``Psi(x, y) = 1/(|C+| |C-|) sum_{i in C+} sum_{j in C-} y_ij (phi_i - phi_j)``.
``Psi`` is never built from pairs: for a complete ranking it equals
``sum_d c_d phi_d`` with per-document coefficients
``c_i = sum_j y_ij / (|C+| |C-|)`` for a relevant ``i`` and
``c_j = -sum_i y_ij / (|C+| |C-|)`` for a non-relevant ``j``, so a constraint
vector ``g = Psi(x, y_i) - Psi(x, y)`` is ``X_q^T (c_bar - c_hat)``. The
separation oracles (Algorithm 2 for MAP, the sort-based oracle for ROCArea)
return the difference coefficients ``c_bar - c_hat`` directly.

``n`` is the number of *usable* queries (those with at least one relevant and
one non-relevant document). A query without both carries no constraint: every
ranking of it has the same Delta and the same Psi (the pair sum is empty), so
it is skipped and counted in the fit report.

Algorithm 1, as run here
------------------------
Each iteration sweeps all usable queries with the oracle at the current
``w``, adds ``y_hat`` to ``W_i`` for every query whose most violated
constraint exceeds its working-set slack by more than ``epsilon``
(line 8 of Algorithm 1) and then re-solves the working-set QP *once* (the
paper re-solves after every single added constraint; with hundreds of queries
that is hundreds of QP solves per sweep, while the batched variant keeps the
same stopping rule and the same guarantee: it stops only when every
constraint of OP 1 holds within ``epsilon``). The QP is solved in its primal
form by Clarabel (interior point; variables ``w`` and the ``n`` slacks, one
row per working-set constraint).

Duality gap
-----------
The constraint multipliers ``alpha`` returned by Clarabel give a dual
feasible point of the *full* OP 1 (zero for constraints outside the working
set), after clipping to ``alpha >= 0`` and ``sum_{k in W_i} alpha_k <= C/n``.
Its dual value ``D = sum_k alpha_k Delta_k - 1/2 ||sum_k alpha_k g_k||^2``
bounds the optimum of OP 1 from below, and the primal value at ``w`` with the
true slacks ``xi_i = max(0, max_y H_i(y; w))`` (from the oracle) bounds it
from above; ``duality_gap = P - D``. At convergence it is at most
``C * epsilon`` plus the QP's own tolerance.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from .._checks import check_verbose, is_integer, is_real
from ._sklearn_compat import RankerContractMixin, border_spec

__all__ = [
    "StructSVMFitReport",
    "StructSVMSolverError",
    "binary_relevance",
    "check_positive",
    "cutting_plane",
    "solve_working_set_qp",
]


VERBOSE_MEANING = "0 or False: silent, otherwise one line per iteration"


class StructSVMSolverError(RuntimeError):
    """The working-set QP solver did not return an optimal solution."""


def check_positive(value, name: str) -> float:
    """``float(value)`` if it is a finite number > 0, else a ValueError naming ``name`` (a string or a bool is no
    number, though ``float`` takes both)."""
    if not (is_real(value) and np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return float(value)


def check_max_iter(value) -> int:
    """``int(value)`` if it is an integer >= 1, else a ValueError."""
    if not (is_integer(value) and value >= 1):
        raise ValueError(f"max_iter must be an integer >= 1; got {value!r}")
    return int(value)


def binary_relevance(y, border) -> np.ndarray:
    """Binary relevance ``label > border`` as int8 (1 relevant, 0 not).

    Graded labels are mapped, not rejected: with the default ``border=0``,
    labels 1 and 2 of LETOR's MQ2008 are both relevant (the usual reading of
    binary MAP on LETOR). ``border`` must be a finite number.

    Examples
    --------
    >>> binary_relevance([0, 1, 2, 0], 0).tolist()
    [0, 1, 1, 0]
    >>> binary_relevance([0, 1, 2, 0], 1.5).tolist()
    [0, 0, 1, 0]
    """
    if not (is_real(border) and np.isfinite(border)):
        raise ValueError(f"border must be a finite number; got {border!r}")
    return (np.asarray(y, dtype=np.float64) > float(border)).astype(np.int8)


def run_most_violated(driver, scores, rel, group_ptr):
    """Call a per-query numba ``driver(scores, rel, group_ptr, out_coef, out_delta, out_h)``.

    The drivers (Algorithm 2 for MAP, the ROC-area oracle) stay separate numba
    functions because a cached kernel cannot take another kernel as an argument;
    this is the one place that prepares their inputs and outputs.
    Returns ``(diff_coef, delta, H)``.
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    rel = np.ascontiguousarray(rel, dtype=np.int8)
    group_ptr = np.ascontiguousarray(group_ptr, dtype=np.int64)
    nq = group_ptr.shape[0] - 1
    coef = np.zeros(scores.shape[0])
    delta = np.empty(nq)
    h = np.empty(nq)
    driver(scores, rel, group_ptr, coef, delta, h)
    return coef, delta, h


def usable_queries(rel: np.ndarray, group_ptr: np.ndarray) -> np.ndarray:
    """Boolean mask of queries with at least one relevant and one non-relevant document."""
    n_rel = np.add.reduceat(rel.astype(np.int64), group_ptr[:-1]) if rel.size else np.zeros(0, np.int64)
    sizes = np.diff(group_ptr)
    return (n_rel > 0) & (n_rel < sizes)


@dataclass(frozen=True)
class StructSVMFitReport:
    """What a structural-SVM fit did (``fit_report_`` of the estimators).

    Attributes
    ----------
    loss : str
        ``"map"`` or ``"roc"``.
    C, epsilon : float
    n_iter : int
        Cutting-plane iterations: oracle sweeps over the queries that added at
        least one constraint (each followed by one QP solve).
    converged : bool
        True when the last sweep found no constraint violated by more than
        ``epsilon`` (Algorithm 1's stopping rule).
    n_constraints : int
        Working-set size ``|W|`` at the end.
    n_support : int
        Working-set constraints with multiplier ``alpha > 1e-8 * C / n``.
    n_queries : int
        Queries in the training set.
    n_queries_used : int
        Queries with both a relevant and a non-relevant document (``n`` of OP 1).
    n_queries_skipped : int
        Queries without a relevant or without a non-relevant document.
    mean_slack : float
        ``(1/n) sum_i xi_i`` with ``xi_i = max(0, max_y H_i(y; w))`` at the
        final ``w``; by Proposition 1 it bounds the training loss from above.
    max_violation : float
        ``max_i (max_y H_i(y; w) - xi_i^W)`` at the final ``w``, where
        ``xi_i^W`` is the slack on the working set; ``<= epsilon`` when converged.
    primal_objective, dual_objective, duality_gap : float
        See the module notes.
    qp_status : str
        Clarabel's status of the last QP solve.
    fit_time, oracle_time, qp_time : float
        Seconds.
    history : tuple of dict
        Per iteration: ``n_added``, ``n_constraints``, ``max_violation`` (before
        adding), ``qp_objective`` (after solving), ``qp_time``.
    """

    loss: str
    C: float
    epsilon: float
    n_iter: int
    converged: bool
    n_constraints: int
    n_support: int
    n_queries: int
    n_queries_used: int
    n_queries_skipped: int
    mean_slack: float
    max_violation: float
    primal_objective: float
    dual_objective: float
    duality_gap: float
    qp_status: str
    fit_time: float
    oracle_time: float
    qp_time: float
    history: tuple = field(default_factory=tuple, repr=False)


# --------------------------------------------------------------------------------------
# The working-set QP
# --------------------------------------------------------------------------------------
_ACCEPTED = ("Solved", "AlmostSolved")


def solve_working_set_qp(G, delta, owner, n_slack, C_over_n, *, settings=None):
    """Solve OP 1 restricted to a working set with Clarabel.

    Parameters
    ----------
    G : ndarray of shape (m, d)
        Constraint vectors ``g_k = Psi(x_i, y_i) - Psi(x_i, y_k)``.
    delta : ndarray of shape (m,)
        ``Delta(y_i, y_k)``.
    owner : ndarray of int, shape (m,)
        Slack index ``i`` of each constraint, in ``0 .. n_slack - 1``.
    n_slack : int
        Number of slack variables (queries).
    C_over_n : float
        Weight of each slack in the objective.

    Returns
    -------
    w : ndarray of shape (d,)
    alpha : ndarray of shape (m,)
        Multipliers of the constraints (clipped to the dual feasible set).
    objective : float
        Primal objective of the working-set QP.
    status : str

    Raises
    ------
    StructSVMSolverError
        If Clarabel's status is neither ``Solved`` nor ``AlmostSolved``; the
        message names the status.

    Examples
    --------
    One query, one constraint ``w >= 1 - xi``: with ``C/n = 10`` the margin is met.

    >>> import numpy as np
    >>> w, alpha, obj, status = solve_working_set_qp(np.array([[1.0]]), np.array([1.0]),
    ...                                              np.array([0]), 1, 10.0)
    >>> round(float(w[0]), 6), round(float(alpha[0]), 6), status
    (1.0, 1.0, 'Solved')
    """
    import clarabel

    G = np.asarray(G, dtype=np.float64)
    m, d = G.shape
    delta = np.asarray(delta, dtype=np.float64)
    owner = np.asarray(owner, dtype=np.int64)
    nv = d + n_slack
    P = sp.csc_matrix(
        (np.ones(d), (np.arange(d), np.arange(d))), shape=(nv, nv)
    )
    q = np.concatenate([np.zeros(d), np.full(n_slack, C_over_n)])
    # rows 0..m-1:  -g_k^T w - xi_owner <= -Delta_k ; rows m..: -xi <= 0
    A_top = sp.hstack(
        [sp.csr_matrix(-G), sp.csr_matrix((-np.ones(m), (np.arange(m), owner)), shape=(m, n_slack))]
    )
    A_bot = sp.hstack([sp.csr_matrix((n_slack, d)), -sp.identity(n_slack, format="csr")])
    A = sp.vstack([A_top, A_bot]).tocsc()
    b = np.concatenate([-delta, np.zeros(n_slack)])
    if settings is None:
        settings = clarabel.DefaultSettings()
        settings.verbose = False
    solver = clarabel.DefaultSolver(P, q, A, b, [clarabel.NonnegativeConeT(m + n_slack)], settings)
    sol = solver.solve()
    status = str(sol.status)
    if status not in _ACCEPTED:
        raise StructSVMSolverError(
            f"Clarabel failed on the working-set QP ({m} constraints, {d} features, "
            f"{n_slack} slacks): status {status}"
        )
    x = np.asarray(sol.x)
    w = x[:d].copy()
    alpha = np.maximum(np.asarray(sol.z)[:m], 0.0)
    # project onto sum_{k in W_i} alpha_k <= C/n so that alpha is dual feasible
    sums = np.bincount(owner, weights=alpha, minlength=n_slack)
    scale = np.where(sums > C_over_n, C_over_n / np.maximum(sums, 1e-300), 1.0)
    alpha *= scale[owner]
    return w, alpha, float(sol.obj_val), status


# --------------------------------------------------------------------------------------
# Algorithm 1
# --------------------------------------------------------------------------------------
def _rows_to_constraints(X, diff_coef, group_ptr, queries):
    """``G[k] = X_q^T diff_coef_q`` for each query ``q`` in ``queries`` (one sparse product)."""
    starts, ends = group_ptr[queries], group_ptr[queries + 1]
    sizes = ends - starts
    cols = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)]) if len(queries) else np.zeros(0, np.int64)
    rows = np.repeat(np.arange(len(queries)), sizes)
    M = sp.csr_matrix((diff_coef[cols], (rows, cols)), shape=(len(queries), X.shape[0]))
    G = M @ X
    return np.asarray(G.toarray() if sp.issparse(G) else G, dtype=np.float64)


def cutting_plane(X, rel, group_ptr, oracle, *, C, epsilon, max_iter, loss, verbose=False):
    """Algorithm 1 (batched per sweep) for OP 1 with a separation ``oracle``.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_docs, d)
    rel : ndarray of int8, shape (n_docs,)
        Binary relevance.
    group_ptr : ndarray of int64
        Query offsets of the *usable* queries only (each has both classes).
    oracle : callable
        ``oracle(scores, rel, group_ptr) -> (diff_coef, delta, H)``: for each
        query the most violated ranking ``y_hat``, as difference coefficients
        ``c_bar - c_hat`` (shape (n_docs,)), ``Delta(y_i, y_hat)`` and
        ``H(y_hat; w) = Delta - scores . (c_bar - c_hat)`` (shape (n_queries,)).
    C, epsilon : float
    max_iter : int
    loss : str
        Name recorded in the report.

    Returns
    -------
    w : ndarray of shape (d,)
    report : StructSVMFitReport (with ``n_queries``/skip counts of the usable set;
        the caller fills in the totals)
    """
    t0 = time.perf_counter()
    n_q = group_ptr.shape[0] - 1
    d = X.shape[1]
    C_over_n = C / n_q
    w = np.zeros(d)
    cap = max(4 * n_q, 64)
    G = np.empty((cap, d))
    delta_ws = np.empty(cap)
    owner = np.empty(cap, dtype=np.int64)
    m = 0
    alpha = np.zeros(0)
    status = "not run"
    oracle_time = qp_time = 0.0
    history = []
    n_iter = 0
    converged = False
    while True:
        t = time.perf_counter()
        scores = np.asarray(X @ w, dtype=np.float64).ravel()
        diff_coef, delta, H = oracle(scores, rel, group_ptr)
        oracle_time += time.perf_counter() - t
        if m:
            margins = delta_ws[:m] - G[:m] @ w
            xi_ws = np.zeros(n_q)
            np.maximum.at(xi_ws, owner[:m], margins)
        else:
            xi_ws = np.zeros(n_q)
        violation = H - xi_ws
        max_violation = float(violation.max())
        add = np.flatnonzero(violation > epsilon)
        if add.size == 0:
            converged = True
            break
        if n_iter >= max_iter:
            break
        n_iter += 1
        G_new = _rows_to_constraints(X, diff_coef, group_ptr, add)
        if m + add.size > cap:
            cap = max(2 * cap, m + add.size)
            G = np.concatenate([G[:m], np.empty((cap - m, d))])
            delta_ws = np.concatenate([delta_ws[:m], np.empty(cap - m)])
            owner = np.concatenate([owner[:m], np.empty(cap - m, dtype=np.int64)])
        G[m:m + add.size] = G_new
        delta_ws[m:m + add.size] = delta[add]
        owner[m:m + add.size] = add
        m += add.size
        t = time.perf_counter()
        w, alpha, qp_obj, status = solve_working_set_qp(G[:m], delta_ws[:m], owner[:m], n_q, C_over_n)
        dt = time.perf_counter() - t
        qp_time += dt
        history.append(dict(n_added=int(add.size), n_constraints=m, max_violation=max_violation,
                            qp_objective=qp_obj, qp_time=dt))
        if verbose:
            print(f"[{loss}] iter {n_iter}: +{add.size} constraints (|W|={m}), "
                  f"max violation {max_violation:.4g}, QP objective {qp_obj:.6g} ({dt:.2f}s)")
    if not converged:
        warnings.warn(
            f"structural SVM ({loss}) stopped after max_iter={max_iter} iterations with a "
            f"constraint violated by {max_violation:.3g} > epsilon={epsilon}",
            ConvergenceWarning, stacklevel=3,
        )
    xi = np.maximum(H, 0.0)
    primal = 0.5 * float(w @ w) + C_over_n * float(xi.sum())
    if m:
        w_dual = G[:m].T @ alpha
        dual = float(alpha @ delta_ws[:m]) - 0.5 * float(w_dual @ w_dual)
    else:
        dual = 0.0
    report = StructSVMFitReport(
        loss=loss, C=C, epsilon=epsilon, n_iter=n_iter, converged=converged, n_constraints=m,
        n_support=int(np.count_nonzero(alpha > 1e-8 * C_over_n)), n_queries=n_q,
        n_queries_used=n_q, n_queries_skipped=0, mean_slack=float(xi.mean()),
        max_violation=max_violation, primal_objective=primal, dual_objective=dual,
        duality_gap=primal - dual, qp_status=status, fit_time=time.perf_counter() - t0,
        oracle_time=oracle_time, qp_time=qp_time, history=tuple(history),
    )
    return w, report


# --------------------------------------------------------------------------------------
# Estimator base
# --------------------------------------------------------------------------------------
class StructSVMBase(RankerContractMixin, BaseEstimator):
    """Shared ``fit`` / ``predict`` / ``score`` of :class:`SVMMAP` and :class:`SVMROCArea`.

    Subclasses set ``_loss``, ``_metric`` (the catalogue metric whose one-minus
    is the loss; with the estimator's ``border`` it is ``score``'s default) and
    implement ``_oracle``.
    """

    _loss = "?"
    _metric = "?"

    def _score_metric(self, y) -> str:
        return border_spec(self._metric, self.border)

    def _oracle(self, scores, rel, group_ptr):  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, X, y=None, *, qid=None, group=None):
        """Train by Algorithm 1.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_docs, n_features), or RankingDataset
            A RankingDataset carries ``y`` and the queries (then leave ``y``,
            ``qid`` and ``group`` None).
        y : array-like of shape (n_docs,)
            Labels; ``label > border`` is relevant.
        qid : array-like of shape (n_docs,), optional
            Query id per row (rows of a query contiguous). Without ``qid`` and
            ``group`` all rows are one query (SVM-MAP, a per-query method, says
            so with a :class:`~metricrank.data.OneQueryWarning`).
        group : array-like of int, optional
            Query sizes, instead of ``qid``.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On ``C <= 0``, ``epsilon <= 0``, bad ``max_iter`` or ``border``,
            non-finite ``X``, or
            when no query has both a relevant and a non-relevant document.
        StructSVMSolverError
            When Clarabel does not solve a working-set QP.
        """
        C = check_positive(self.C, "C")
        epsilon = check_positive(self.epsilon, "epsilon")
        max_iter = check_max_iter(self.max_iter)
        check_verbose(self.verbose, VERBOSE_MEANING)
        ds = self._training_data(X, y, qid, group)
        data = ds.X.data if sp.issparse(ds.X) else ds.X
        if not np.all(np.isfinite(data)):
            raise ValueError("X must be finite (no NaN or inf)")
        rel = binary_relevance(ds.y, self.border)
        if rel.size == 0:
            raise ValueError("the training set is empty")
        n_pos = int(rel.sum())
        if n_pos == 0 or n_pos == rel.size:
            kind = "relevant" if n_pos == 0 else "non-relevant"
            raise ValueError(
                f"the training set has only one class: no {kind} document (label > "
                f"border={self.border}); {type(self).__name__} needs both classes"
            )
        use = usable_queries(rel, ds.group_ptr)
        if not use.any():
            raise ValueError(
                "no training query has both a relevant and a non-relevant document "
                f"(label > border={self.border}); there is no constraint to learn from"
            )
        sub = ds if use.all() else ds.subset_queries(np.flatnonzero(use))
        rel_sub = binary_relevance(sub.y, self.border)
        w, report = cutting_plane(
            sub.X, rel_sub, sub.group_ptr, self._oracle, C=C, epsilon=epsilon,
            max_iter=max_iter, loss=self._loss, verbose=bool(self.verbose),
        )
        self.fit_report_ = replace(report, n_queries=ds.n_queries,
                                   n_queries_skipped=int(ds.n_queries - use.sum()))
        self.coef_ = w
        self.n_iter_ = report.n_iter
        return self

    def decision_function(self, X):
        """Scores ``w^T phi(d)``; sorting them in descending order is the predicted ranking.

        ``X``: array-like, sparse matrix or RankingDataset.
        """
        X, _ = self._predict_data(X)
        return np.asarray(X @ self.coef_, dtype=np.float64).ravel()

    def predict(self, X):
        """Ranking scores (same as :meth:`decision_function`)."""
        return self.decision_function(X)
