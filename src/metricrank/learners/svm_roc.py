"""SVM-ROCArea (Joachims 2005, SVM-perf's ROC loss) and Welleck's one-SVM-per-class baseline.

SVM-ROCArea is OP 1 of Yue et al. (seed ``004``) with
``Delta_roc = 1 - ROCArea = (#swapped relevant/non-relevant pairs) / (P N)``
and the same ``Psi``. Both ``Delta_roc`` and ``w^T Psi`` are sums over the
pairs, so ``H`` is maximised pair by pair: ``y_ij = +1`` (relevant ``i``
above non-relevant ``j``) exactly when ``s_i - s_j > 1/2``, otherwise ``-1``
(``+1`` contributes ``(s_i - s_j)/(P N)``, ``-1`` contributes
``(1 - (s_i - s_j))/(P N)``). This is the ranking of relevant documents by
``s - 1/4`` and non-relevant ones by ``s + 1/4`` (Joachims 2005, Algorithm 3),
and the counts it needs come from two sorts and binary searches:
``O(n log n)`` per query.

With ``a_i = #{j : s_j < s_i - 1/2}`` and ``b_j = #{i : s_i - 1/2 > s_j}``:
``c_hat_i = (2 a_i - N) / (P N)``, ``c_hat_j = (P - 2 b_j) / (P N)`` and
``Delta_roc = 1 - sum_i a_i / (P N)``.

The model is trained per query (one slack per query, as Yue et al. train their
SVM-ROCArea baseline); SVM-perf as used by Welleck pools all documents of the
training set into one ranking instead.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from sklearn.base import BaseEstimator, clone

from .._checks import check_verbose
from ..metrics import evaluate
from ._sklearn_compat import RankerContractMixin
from ._struct_svm import (VERBOSE_MEANING, StructSVMBase, check_max_iter, check_positive, run_most_violated,
                          usable_queries)

__all__ = ["SVMROCArea", "SVMROCAreaMultiClass", "roc_loss", "roc_most_violated"]


@njit(cache=True)
def _roc_query(s, rel, out_coef):
    n = s.shape[0]
    P = 0
    for t in range(n):
        P += rel[t]
    N = n - P
    pos_s = np.empty(P)
    neg_s = np.empty(N)
    a = 0
    b = 0
    for t in range(n):
        if rel[t]:
            pos_s[a] = s[t] - 0.5
            a += 1
        else:
            neg_s[b] = s[t]
            b += 1
    pos_sorted = np.sort(pos_s)
    neg_sorted = np.sort(neg_s)
    PN = float(P) * float(N)
    h = 0.0
    correct = 0.0
    for t in range(n):
        if rel[t]:
            ai = np.searchsorted(neg_sorted, s[t] - 0.5, side="left")  # s_j < s_i - 1/2
            correct += ai
            d = 1.0 / P - (2.0 * ai - N) / PN
        else:
            bj = P - np.searchsorted(pos_sorted, s[t], side="right")  # s_i - 1/2 > s_j
            d = -1.0 / N - (P - 2.0 * bj) / PN
        out_coef[t] = d
        h -= d * s[t]
    delta = 1.0 - correct / PN
    return delta, delta + h


@njit(cache=True, parallel=True)
def _roc_all(scores, rel, group_ptr, out_coef, out_delta, out_h):
    nq = group_ptr.shape[0] - 1
    for q in prange(nq):
        a = group_ptr[q]
        b = group_ptr[q + 1]
        dlt, h = _roc_query(scores[a:b], rel[a:b], out_coef[a:b])
        out_delta[q] = dlt
        out_h[q] = h


def roc_most_violated(scores, rel, group_ptr):
    """Most violated constraint for ``Delta_roc`` on every query (``O(n log n)`` each).

    Same contract as :func:`metricrank.learners.svm_map.map_most_violated`:
    returns ``(diff_coef, delta, H)``.

    Examples
    --------
    With ``w = 0`` every pair is swapped: ``Delta_roc = 1``.

    >>> import numpy as np
    >>> d, delta, H = roc_most_violated(np.zeros(3), np.array([1, 0, 0], np.int8), np.array([0, 3]))
    >>> delta.tolist(), H.tolist()
    ([1.0], [1.0])
    """
    return run_most_violated(_roc_all, scores, rel, group_ptr)


def roc_loss(scores, rel, group_ptr):
    """Per-query ``Delta_roc = 1 - ROCArea`` of the ranking by ``scores`` (ties count 1/2).

    NaN for a query without both classes.

    Examples
    --------
    Yue et al. Table 1, hypothesis h2 (rank value 8 first): ROCArea 8/15 = 0.53.

    >>> import numpy as np
    >>> p = np.array([1, 0, 0, 0, 0, 1, 1, 0], np.int8)
    >>> round(1 - float(roc_loss(np.arange(1, 9.0), p, [0, 8])[0]), 2)
    0.53
    """
    # the metric catalogue's ROCArea: per-query, ties 1/2, NaN without both classes
    return 1.0 - evaluate(np.asarray(rel, dtype=np.float64), scores, group_ptr=group_ptr, metric="ROCArea",
                          per_query=True)


class SVMROCArea(StructSVMBase):
    """Structural SVM optimising ROC area per query (SVM-ROCArea; Joachims 2005, Yue et al. 2007).

    Same estimator as :class:`~metricrank.learners.svm_map.SVMMAP` with
    ``Delta_roc = 1 - ROCArea`` and its ``O(n log n)`` most violated constraint;
    :meth:`score` defaults to ROCArea per query (``"ROCArea:border=<border>"``).

    Parameters
    ----------
    C : float, default=1.0
        Trade-off of OP 1 (``C/n sum_i xi_i``, ``n`` usable queries). Must be > 0.
    epsilon : float, default=1e-3
        Tolerance of Algorithm 1. Must be > 0.
    max_iter : int, default=500
        Maximum number of cutting-plane iterations.
    border : float, default=0.0
        ``label > border`` is relevant.
    verbose : bool or int, default=False
        Print one line per iteration (any value but 0 or False).

    Attributes
    ----------
    coef_, n_iter_, fit_report_, n_features_in_
        As for :class:`~metricrank.learners.svm_map.SVMMAP`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.9, 0.2], [0.1, 0.8], [0.2, 0.3]])
    >>> model = SVMROCArea(C=10.0).fit(X, [1, 0, 0, 1, 0, 0], qid=[1, 1, 1, 2, 2, 2])
    >>> s = model.predict(X)
    >>> bool(s[0] > max(s[1], s[2])), bool(s[3] > max(s[4], s[5]))
    (True, True)
    """

    _loss = "roc"
    _metric = "ROCArea"

    def __init__(self, C=1.0, epsilon=1e-3, max_iter=500, border=0.0, verbose=False):
        self.C = C
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.border = border
        self.verbose = verbose

    def _oracle(self, scores, rel, group_ptr):
        return roc_most_violated(scores, rel, group_ptr)


class SVMROCAreaMultiClass(RankerContractMixin, BaseEstimator):
    """Welleck's multi-class baseline: one binary SVM-ROCArea per relevance class.

    For each class ``c = 1 .. L`` (``L`` the largest training label) a
    :class:`SVMROCArea` ``f_c`` is trained with class ``c`` relevant and every
    other label non-relevant (one-vs-rest; Welleck section 5: "a binary
    classifier was trained for each individual relevance class"). The score
    is ``sum_c c * f_c(d)``. Class 0 (not relevant) would enter with weight 0,
    so it gets no model. A class that no training query holds together with
    another class gets no model either (``f_c = 0``) and is listed in
    ``skipped_classes_``. :meth:`score` defaults to Welleck's MAUC per query
    (``"MAUC"``: ``sum_c p(c) AUC(c)`` over the relevant classes).

    Parameters
    ----------
    C, epsilon, max_iter, verbose
        Passed to each :class:`SVMROCArea`.

    Attributes
    ----------
    classes_ : ndarray of int
        The classes ``1 .. L`` with a model.
    estimators_ : list of SVMROCArea
    skipped_classes_ : list of int
    coef_ : ndarray of shape (n_features,)
        ``sum_c c * w_c`` (the combined model is linear too).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [1.0, 0.5], [0.0, 1.0], [2.1, 0.1], [0.9, 0.4], [0.1, 0.9]])
    >>> m = SVMROCAreaMultiClass(C=10.0).fit(X, [2, 1, 0, 2, 1, 0], qid=[1, 1, 1, 2, 2, 2])
    >>> m.classes_.tolist(), m.predict(X).argmax() in (0, 3)
    ([1, 2], True)
    """

    def __init__(self, C=1.0, epsilon=1e-3, max_iter=500, verbose=False):
        self.C = C
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.verbose = verbose

    def _score_metric(self, y) -> str:
        return "MAUC"

    def fit(self, X, y=None, *, qid=None, group=None):
        """Fit one :class:`SVMROCArea` per relevance class; labels must be integers >= 0.

        ``X`` may be a RankingDataset (labels and queries included).
        """
        check_positive(self.C, "C")
        check_positive(self.epsilon, "epsilon")
        check_max_iter(self.max_iter)
        check_verbose(self.verbose, VERBOSE_MEANING)
        ds = self._training_data(X, y, qid, group)
        y = ds.y
        if np.any(y < 0) or np.any(y != np.round(y)):
            raise ValueError("SVMROCAreaMultiClass needs relevance classes: labels must be integers >= 0")
        top = int(y.max()) if y.size else 0
        if top < 1:
            raise ValueError("SVMROCAreaMultiClass needs at least one label >= 1 (a relevant class)")
        base = SVMROCArea(C=self.C, epsilon=self.epsilon, max_iter=self.max_iter, border=0.5,
                          verbose=self.verbose)
        self.estimators_, classes, self.skipped_classes_ = [], [], []
        coef = None
        for c in range(1, top + 1):
            target = (y == c).astype(np.float64)
            if not usable_queries(target.astype(np.int8), ds.group_ptr).any():
                self.skipped_classes_.append(c)
                continue
            est = clone(base).fit(ds.X, target, group=ds.query_sizes)
            self.estimators_.append(est)
            classes.append(c)
            coef = c * est.coef_ if coef is None else coef + c * est.coef_
        if not self.estimators_:
            raise ValueError("no relevance class could be trained: no query holds a class >= 1 "
                             "together with another class (every query has one class)")
        self.classes_ = np.asarray(classes, dtype=np.int64)
        self.coef_ = coef
        return self

    def decision_function(self, X):
        """Scores ``sum_c c * f_c(d)`` (``X``: array, sparse matrix or RankingDataset); sorting them in descending
        order is the predicted ranking."""
        X, _ = self._predict_data(X)
        return sum(c * est.predict(X) for c, est in zip(self.classes_, self.estimators_))

    def predict(self, X):
        """Ranking scores (same as :meth:`decision_function`, as for the other structural SVMs)."""
        return self.decision_function(X)
