"""SVM-MAP (Yue, Finley, Radlinski, Joachims, SIGIR 2007; seed ``004``).

The structural SVM of OP 1 with ``Delta_map = 1 - AP`` and Algorithm 2 as the
separation oracle, trained by the cutting-plane Algorithm 1 of
:mod:`metricrank.learners._struct_svm`.

Algorithm 2 (most violated constraint for ``Delta_map``)
---------------------------------------------------------
Relevant documents ``1..P`` and non-relevant documents ``1..N`` are each
sorted by descending score ``s = w^T phi``. A candidate ranking is encoded by
``o_1 <= ... <= o_N``: non-relevant document ``j`` is ranked just above
relevant document ``o_j`` (``o_j = P + 1``: below every relevant one). Sliding
non-relevant ``j`` up past relevant ``k`` changes ``H`` by eq. (5)::

    delta_j(k, k+1) = 1/P (j/(j+k) - (j-1)/(j+k-1)) - 2 (s_k^+ - s_j^-) / (P N)

and ``opt_j = argmax_k sum_{m=k}^{P} delta_j(m, m+1)``. Ties are broken toward
the *smallest* ``k`` (the reading under which Theorem 2's proof is valid: its
step "for any i < opt_j, delta_j(i, opt_j) < 0" needs opt_j to be the first
maximiser). The search for ``opt_j`` starts at ``opt_{j-1}``: Theorem 2 shows
the unconstrained maximiser is never smaller, so this costs nothing in
exactness, and it keeps the encoding feasible (eq. 9) even when rounding makes
two candidates tie. Cost: ``O(n log n)`` for the sorts plus ``O(P N)``.

From the encoding: relevant ``i`` has ``n_i = #{j : o_j <= i}`` non-relevant
documents above it, ``AP = 1/P sum_i i / (i + n_i)``, and the coefficients of
``Psi(x, y_hat) = sum_d c_d phi_d`` are ``c_i = (N - 2 n_i) / (P N)`` for a
relevant ``i`` and ``c_j = (P + 2 - 2 o_j) / (P N)`` for a non-relevant ``j``
(the true ranking has ``1/P`` and ``-1/N``).

Reading of the paper
--------------------
``Delta_map(y, y_hat) = 1 - AP`` with AP over *all* relevant documents of the
query (section 2; Table 2's 0.59 / 0.51 and Table 4's 0.56 / 0.51 are exactly
this AP for the rank values read as "higher is ranked first", see the tests).
The first term of eq. (5) equals ``1/P * k / ((j+k)(j+k-1))``, the change of
relevant ``k``'s precision term ``k/(k+j-1) -> k/(k+j)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._struct_svm import StructSVMBase, run_most_violated

__all__ = ["SVMMAP", "map_most_violated", "map_loss", "ranking_coefficients"]


@njit(cache=True)
def _alg2_query(s, rel, out_coef):
    """Algorithm 2 on one query; writes ``c_bar - c_hat`` into ``out_coef``; returns (Delta, H)."""
    n = s.shape[0]
    P = 0
    for t in range(n):
        P += rel[t]
    N = n - P
    pos = np.empty(P, np.int64)
    neg = np.empty(N, np.int64)
    a = 0
    b = 0
    for t in range(n):
        if rel[t]:
            pos[a] = t
            a += 1
        else:
            neg[b] = t
            b += 1
    pos = pos[np.argsort(-s[pos], kind="mergesort")]
    neg = neg[np.argsort(-s[neg], kind="mergesort")]
    sp_ = s[pos]
    sn = s[neg]
    PN = float(P) * float(N)
    opt = np.empty(N, np.int64)
    lo = 1
    for j in range(1, N + 1):
        best = 0.0
        best_k = P + 1
        acc = 0.0
        sj = sn[j - 1]
        for k in range(P, lo - 1, -1):
            acc += k / ((j + k) * (j + k - 1.0)) / P - 2.0 * (sp_[k - 1] - sj) / PN
            if acc >= best:
                best = acc
                best_k = k
        opt[j - 1] = best_k
        lo = best_k
    # decode: n_i = #{j : o_j <= i}
    ap = 0.0
    h = 0.0
    jj = 0
    for i in range(1, P + 1):
        while jj < N and opt[jj] <= i:
            jj += 1
        ap += i / (i + float(jj))
        c_hat = (N - 2.0 * jj) / PN
        d = 1.0 / P - c_hat
        out_coef[pos[i - 1]] = d
        h -= d * sp_[i - 1]
    for j in range(N):
        c_hat = (P + 2.0 - 2.0 * opt[j]) / PN
        d = -1.0 / N - c_hat
        out_coef[neg[j]] = d
        h -= d * sn[j]
    delta = 1.0 - ap / P
    return delta, delta + h


@njit(cache=True, parallel=True)
def _alg2_all(scores, rel, group_ptr, out_coef, out_delta, out_h):
    nq = group_ptr.shape[0] - 1
    for q in prange(nq):
        a = group_ptr[q]
        b = group_ptr[q + 1]
        dlt, h = _alg2_query(scores[a:b], rel[a:b], out_coef[a:b])
        out_delta[q] = dlt
        out_h[q] = h


def map_most_violated(scores, rel, group_ptr):
    """Algorithm 2 for every query: the most violated constraint for ``Delta_map``.

    Parameters
    ----------
    scores : ndarray of float64, shape (n_docs,)
        ``w^T phi(d)``.
    rel : ndarray of int8, shape (n_docs,)
        Binary relevance; every query must hold both classes.
    group_ptr : ndarray of int64, shape (n_queries + 1,)

    Returns
    -------
    diff_coef : ndarray of shape (n_docs,)
        ``c_bar - c_hat``: ``Psi(x, y_i) - Psi(x, y_hat) = X_q^T diff_coef_q``.
    delta : ndarray of shape (n_queries,)
        ``Delta_map(y_i, y_hat) = 1 - AP(y_hat)``.
    H : ndarray of shape (n_queries,)
        ``Delta + w^T Psi(y_hat) - w^T Psi(y_i)``, the maximum of ``H`` over all rankings.

    Examples
    --------
    With ``w = 0`` the most violated ranking puts every non-relevant document
    first: ``AP = (1/3 + 2/4) / 2``.

    >>> import numpy as np
    >>> d, delta, H = map_most_violated(np.zeros(4), np.array([1, 1, 0, 0], np.int8),
    ...                                 np.array([0, 4]))
    >>> bool(np.isclose(delta[0], 1 - (1/3 + 2/4) / 2)), bool(np.isclose(H[0], delta[0]))
    (True, True)
    """
    return run_most_violated(_alg2_all, scores, rel, group_ptr)


@njit(cache=True)
def _ranking_coef_kernel(order_pos, rel, group_ptr, out_coef, out_ap):
    """Psi coefficients and AP of a given complete ranking (``order_pos``: rank of each doc, 0 = top)."""
    nq = group_ptr.shape[0] - 1
    for q in range(nq):
        a = group_ptr[q]
        b = group_ptr[q + 1]
        n = b - a
        P = 0
        for t in range(a, b):
            P += rel[t]
        N = n - P
        if P == 0 or N == 0:
            out_ap[q] = np.nan
            continue
        PN = float(P) * float(N)
        by_rank = np.empty(n, np.int64)
        for t in range(a, b):
            by_rank[order_pos[t]] = t
        neg_above = 0
        pos_above = 0
        ap = 0.0
        for r in range(n):
            t = by_rank[r]
            if rel[t]:
                pos_above += 1
                ap += pos_above / (pos_above + float(neg_above))
                out_coef[t] = (N - 2.0 * neg_above) / PN
            else:
                neg_above += 1
                out_coef[t] = -(2.0 * pos_above - P) / PN
        out_ap[q] = ap / P


def ranking_coefficients(scores, rel, group_ptr):
    """``Psi`` coefficients and AP of the rankings induced by ``scores``.

    Ties are broken by row order (stable sort). Returns ``(coef, ap)`` with
    ``Psi(x_q, y) = X_q^T coef_q`` and ``ap`` NaN for a query without both
    classes.

    Examples
    --------
    >>> import numpy as np
    >>> coef, ap = ranking_coefficients([3.0, 2.0, 1.0], np.array([0, 1, 1], np.int8), [0, 3])
    >>> coef.round(3).tolist(), round(float(ap[0]), 4)
    ([1.0, -0.5, -0.5], 0.5833)
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    rel = np.ascontiguousarray(rel, dtype=np.int8)
    group_ptr = np.ascontiguousarray(group_ptr, dtype=np.int64)
    pos = np.empty(scores.shape[0], dtype=np.int64)
    for q in range(group_ptr.shape[0] - 1):
        a, b = group_ptr[q], group_ptr[q + 1]
        order = np.argsort(-scores[a:b], kind="stable")
        pos[a + order] = np.arange(b - a)
    coef = np.zeros(scores.shape[0])
    ap = np.empty(group_ptr.shape[0] - 1)
    _ranking_coef_kernel(pos, rel, group_ptr, coef, ap)
    return coef, ap


def map_loss(scores, rel, group_ptr):
    """Per-query ``Delta_map = 1 - AP`` of the ranking induced by ``scores`` (ties: row order).

    Examples
    --------
    Yue et al. Table 1, hypothesis h1 (rank value 8 ranked first): AP 0.59.

    >>> import numpy as np
    >>> p = np.array([1, 0, 0, 0, 0, 1, 1, 0], np.int8)
    >>> round(1 - float(map_loss(np.arange(8, 0, -1.0), p, [0, 8])[0]), 2)
    0.59
    """
    return 1.0 - ranking_coefficients(scores, rel, group_ptr)[1]


class SVMMAP(StructSVMBase):
    """Structural SVM optimising MAP (SVM-MAP, Yue et al. 2007).

    Solves OP 1 with ``Delta_map`` by the cutting-plane Algorithm 1 and
    Algorithm 2 as the separation oracle; the working-set QP goes to Clarabel.
    The model is linear: :meth:`predict` returns ``w^T phi(d)`` and the
    predicted ranking sorts these scores in descending order. :meth:`score`
    defaults to MAP per query (``"MAP:border=<border>"``).

    Parameters
    ----------
    C : float, default=1.0
        Trade-off of OP 1 (the slacks enter as ``C/n sum_i xi_i`` with ``n``
        the number of usable training queries). Must be > 0.
    epsilon : float, default=1e-3
        Tolerance of Algorithm 1: stop when no constraint is violated by more
        than ``epsilon``. Must be > 0.
    max_iter : int, default=500
        Maximum number of cutting-plane iterations (a ``ConvergenceWarning``
        is issued when reached).
    border : float, default=0.0
        A document is relevant when its label is ``> border`` (graded labels
        are mapped, e.g. MQ2008's 1 and 2 both relevant).
    verbose : bool or int, default=False
        Print one line per iteration (any value but 0 or False).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ``w``.
    n_iter_ : int
        Cutting-plane iterations.
    fit_report_ : StructSVMFitReport
        Iterations, working-set size, final slack, duality gap, skipped queries, times.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from metricrank.learners.svm_map import SVMMAP
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.9, 0.2], [0.1, 0.8], [0.2, 0.3]])
    >>> y = np.array([1, 0, 0, 1, 0, 0])
    >>> model = SVMMAP(C=10.0).fit(X, y, qid=[1, 1, 1, 2, 2, 2])
    >>> s = model.predict(X)
    >>> bool(s[0] > s[2] > s[1]), bool(s[3] > s[5] > s[4]), model.fit_report_.converged
    (True, True, True)
    """

    _loss = "map"
    _metric = "MAP"
    _per_query = True

    def __init__(self, C=1.0, epsilon=1e-3, max_iter=500, border=0.0, verbose=False):
        self.C = C
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.border = border
        self.verbose = verbose

    def _oracle(self, scores, rel, group_ptr):
        return map_most_violated(scores, rel, group_ptr)
