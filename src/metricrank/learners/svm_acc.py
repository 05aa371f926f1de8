"""Classification-SVM baselines of Yue et al. (seed ``004``, sections 2.2 and 5.2.1).

* ``acc``  -- a linear SVM (hinge loss, scikit-learn's ``LinearSVC``) on the
  documents, relevant (label > border) against non-relevant; the ranking score
  is the decision value.
* ``acc2`` -- the same with false negatives costing ``#non-relevant /
  #relevant`` times a false positive ("the ratio of the number non-relevant
  and relevant documents in that dataset"; counted on the training set).
* ``acc3`` -- every feature replaced by its per-query percentile, then binned
  at ``n_thresholds`` evenly spaced values in (0, 1). The percentile of
  ``f(d|q)`` is read as the share of the query's documents scoring at most
  ``f(d|q)`` (the top document gets 1, ties share the value).
* ``acc4`` -- every feature min-max normalised per query,
  ``(f - min_q f) / (max_q f - min_q f)`` (0 when the query's values are all
  equal), then binned like ``acc3``.

acc3 and acc4 need the query structure at prediction time too:
``predict(X, qid=...)``.

:func:`best_threshold_accuracy` is the quantity of Yue et al. Table 4 that an
accuracy-optimising learner cares about.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from sklearn.base import BaseEstimator
from sklearn.svm import SVC, LinearSVC

from .._checks import is_integer
from ..data import RankingDataset
from ..metrics.evaluate import _as_float_vector
from ._sklearn_compat import RankerContractMixin, border_spec
from ._struct_svm import binary_relevance, check_max_iter, check_positive
from .binning import ThresholdBinner

__all__ = ["SVMAcc", "best_threshold_accuracy", "binned_linear_kernel", "query_minmax", "query_percentiles"]

_VARIANTS = ("acc", "acc2", "acc3", "acc4")


@njit(cache=True, parallel=True)
def _percentile_kernel(X, group_ptr, out):
    nq = group_ptr.shape[0] - 1
    for q in prange(nq):
        a = group_ptr[q]
        b = group_ptr[q + 1]
        n = b - a
        for f in range(X.shape[1]):
            srt = np.sort(X[a:b, f])
            for t in range(a, b):
                out[t, f] = np.searchsorted(srt, X[t, f], side="right") / n


@njit(cache=True, parallel=True)
def _minmax_kernel(X, group_ptr, out):
    nq = group_ptr.shape[0] - 1
    for q in prange(nq):
        a = group_ptr[q]
        b = group_ptr[q + 1]
        for f in range(X.shape[1]):
            lo = X[a, f]
            hi = X[a, f]
            for t in range(a, b):
                lo = min(lo, X[t, f])
                hi = max(hi, X[t, f])
            span = hi - lo
            for t in range(a, b):
                out[t, f] = (X[t, f] - lo) / span if span > 0 else 0.0


@njit(cache=True, parallel=True)
def _intersection_kernel(A, B, out):
    for i in prange(A.shape[0]):
        for j in range(B.shape[0]):
            acc = 0.0
            for f in range(A.shape[1]):
                acc += min(A[i, f], B[j, f])
            out[i, j] = acc


def binned_linear_kernel(counts_a, counts_b):
    """Linear kernel of threshold features from per-feature counts of thresholds exceeded.

    With ``phi(d) = <1[f(d) > k]>`` and ``n_f(d) = #{k in K_f : f(d) > k}``,
    ``phi(a)^T phi(b) = sum_f min(n_f(a), n_f(b))`` (the histogram
    intersection of the counts), so the Gram matrix costs
    ``O(n_a n_b |F|)`` instead of ``O(n_a n_b sum_f |K_f|)``.

    Examples
    --------
    >>> import numpy as np
    >>> binned_linear_kernel(np.array([[3.0, 1.0]]), np.array([[2.0, 5.0], [0.0, 0.0]])).tolist()
    [[3.0, 0.0]]
    """
    A = np.ascontiguousarray(counts_a, dtype=np.float64)
    B = np.ascontiguousarray(counts_b, dtype=np.float64)
    out = np.empty((A.shape[0], B.shape[0]))
    _intersection_kernel(A, B, out)
    return out


def _dense(X):
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    X = np.ascontiguousarray(X, dtype=np.float64)
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite (no NaN or inf)")
    return X


def query_percentiles(X, group_ptr):
    """Per-query percentile of every feature: ``#{d' in q : f(d') <= f(d)} / |q|``.

    Examples
    --------
    >>> import numpy as np
    >>> query_percentiles(np.array([[3.0], [1.0], [2.0], [5.0], [5.0]]), np.array([0, 3, 5])).ravel().tolist()
    [1.0, 0.3333333333333333, 0.6666666666666666, 1.0, 1.0]
    """
    X = _dense(X)
    out = np.empty_like(X)
    _percentile_kernel(X, np.ascontiguousarray(group_ptr, dtype=np.int64), out)
    return out


def query_minmax(X, group_ptr):
    """Per-query min-max normalisation of every feature (0 for a constant feature).

    Examples
    --------
    >>> import numpy as np
    >>> query_minmax(np.array([[0.2], [0.7], [0.6], [4.0], [4.0]]), np.array([0, 3, 5])).ravel().round(6).tolist()
    [0.0, 1.0, 0.8, 0.0, 0.0]
    """
    X = _dense(X)
    out = np.empty_like(X)
    _minmax_kernel(X, np.ascontiguousarray(group_ptr, dtype=np.int64), out)
    return out


def best_threshold_accuracy(rel, scores):
    """Highest accuracy of "the top ``t`` documents are relevant" over every cutoff ``t``.

    Yue et al. Table 4's "best accuracy": the best any threshold on the
    scores can do. Tied scores are not split by a threshold.

    Examples
    --------
    Table 3's hypothesis h1 (rank value 11 first): 4 errors out of 11.

    >>> import numpy as np
    >>> p = [1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0]
    >>> round(best_threshold_accuracy(p, np.arange(11, 0, -1)), 2)
    0.64
    """
    rel = _as_float_vector(rel, "rel")
    scores = _as_float_vector(scores, "scores", rel.shape[0])
    if rel.size == 0:
        raise ValueError("rel and scores must be non-empty")
    order = np.argsort(-scores, kind="stable")
    r, s = rel[order] > 0, scores[order]
    n, total = r.size, int(r.sum())
    tp = np.concatenate([[0], np.cumsum(r)])  # relevant among the top t
    t = np.arange(n + 1)
    correct = tp + (n - t) - (total - tp)
    # a threshold can only fall between different scores
    allowed = np.ones(n + 1, dtype=bool)
    allowed[1:n] = s[1:] != s[:-1]
    return float(correct[allowed].max() / n)


class SVMAcc(RankerContractMixin, BaseEstimator):
    """Linear classification SVM used as a ranker (SVM-acc, acc2, acc3, acc4 of Yue et al.).

    ``acc``/``acc2`` train scikit-learn's ``LinearSVC`` (hinge loss, liblinear's
    dual coordinate descent) on the given features. ``acc3``/``acc4`` train on
    the binned per-query transform; its design is dense (every threshold
    below a value is on), where liblinear barely moves, so they solve the same
    linear hinge-loss SVM in its dual with scikit-learn's ``SVC`` and the
    exact Gram matrix of the threshold features
    (:func:`binned_linear_kernel`; memory ``O(n_docs^2)``). That SVM also has
    SVM-light's unregularised intercept. :meth:`score` defaults to MAP per
    query (``"MAP:border=<border>"``), the measure Yue et al. compare these
    baselines by; acc3/acc4 need its ``qid`` or ``group``, as :meth:`predict` does.

    Parameters
    ----------
    C : float, default=1.0
        The SVM's C (hinge loss summed over documents). Must be > 0.
    variant : {"acc", "acc2", "acc3", "acc4"}, default="acc"
        See the module notes.
    border : float, default=0.0
        ``label > border`` is relevant.
    n_thresholds : int, default=50
        Thresholds of the acc3/acc4 features (``0``: use the transformed scores
        unbinned, with ``LinearSVC``).
    max_iter : int, optional
        Iteration cap of the solver: liblinear's (default 20000) or libsvm's
        SMO iterations (default: no cap). A capped, unconverged fit issues
        scikit-learn's ``ConvergenceWarning``.
    tol : float, optional
        Stopping tolerance of the solver (default: liblinear 1e-4, libsvm 1e-3,
        scikit-learn's defaults; libsvm's equals SVM-light's default).

    Attributes
    ----------
    svm_ : LinearSVC or SVC
    binner_ : ThresholdBinner or None
    class_weight_ : dict
        ``{0: 1, 1: #non-relevant/#relevant}`` for acc2, else ``{0: 1, 1: 1}``.
    n_iter_ : int
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.2, 0.4], [0.9, 0.2], [0.1, 0.8], [0.3, 0.3]])
    >>> m = SVMAcc(C=10.0, variant="acc2").fit(X, [1, 0, 0, 1, 0, 0], qid=[1, 1, 1, 2, 2, 2])
    >>> m.class_weight_[1], bool(m.predict(X)[0] > m.predict(X)[1])
    (2.0, True)
    >>> m4 = SVMAcc(C=10.0, variant="acc4", n_thresholds=5).fit(X, [1, 0, 0, 1, 0, 0], group=[3, 3])
    >>> s = m4.predict(X, group=[3, 3])
    >>> bool(s[0] > max(s[1], s[2])), bool(s[3] > max(s[4], s[5]))
    (True, True)
    """

    def __init__(self, C=1.0, variant="acc", border=0.0, n_thresholds=50, max_iter=None, tol=None):
        self.C = C
        self.variant = variant
        self.border = border
        self.n_thresholds = n_thresholds
        self.max_iter = max_iter
        self.tol = tol

    @property
    def _uses_kernel(self):
        return self.variant in ("acc3", "acc4") and self.n_thresholds != 0

    def _transform(self, X, group_ptr):
        if self.variant in ("acc", "acc2"):
            return X
        if group_ptr is None:
            raise ValueError(f"variant {self.variant!r} normalises features per query: pass qid or group")
        return (query_percentiles if self.variant == "acc3" else query_minmax)(X, group_ptr)

    def _counts(self, Z):
        """Per-feature number of thresholds exceeded (``phi(d)`` summarised; see binned_linear_kernel)."""
        out = np.empty_like(Z)
        for f, thr in enumerate(self.binner_.thresholds_):
            out[:, f] = np.searchsorted(thr, Z[:, f], side="left")
        return out

    _fitted_attr = "svm_"

    def fit(self, X, y=None, *, qid=None, group=None):
        """Train the classifier on the documents.

        ``X`` may be a RankingDataset (labels and queries included).

        Raises
        ------
        ValueError
            On a bad ``C``, ``variant``, ``border``, ``n_thresholds``,
            ``max_iter`` or ``tol``, non-finite ``X``, or a training set
            without both classes.
        """
        C = check_positive(self.C, "C")
        tol = None if self.tol is None else check_positive(self.tol, "tol")
        max_iter = None if self.max_iter is None else check_max_iter(self.max_iter)
        if self.variant not in _VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(_VARIANTS)}; got {self.variant!r}")
        k = self.n_thresholds
        if not (is_integer(k) and k >= 0):
            raise ValueError(f"n_thresholds must be an integer >= 0; got {k!r}")
        ds = self._training_data(X, y, qid, group)
        Xd = ds.X
        data = Xd.data if sp.issparse(Xd) else Xd
        if not np.all(np.isfinite(data)):
            raise ValueError("X must be finite (no NaN or inf)")
        rel = binary_relevance(ds.y, self.border)
        n_pos = int(rel.sum())
        n_neg = rel.size - n_pos
        if n_pos == 0 or n_neg == 0:
            raise ValueError(f"the training set has only one class: it needs both relevant and "
                             f"non-relevant documents (label > border={self.border}); got {n_pos} "
                             f"relevant and {n_neg} not")
        self.class_weight_ = {0: 1.0, 1: n_neg / n_pos} if self.variant == "acc2" else {0: 1.0, 1: 1.0}
        self.binner_ = None
        Z = self._transform(Xd, ds.group_ptr)
        if self._uses_kernel:
            self.binner_ = ThresholdBinner(k, strategy="uniform", value_range=(0.0, 1.0)).fit(Z)
            self.train_counts_ = self._counts(Z)
            K = binned_linear_kernel(self.train_counts_, self.train_counts_)
            self.svm_ = SVC(C=C, kernel="precomputed", class_weight=self.class_weight_,
                            tol=1e-3 if tol is None else tol,
                            max_iter=-1 if max_iter is None else max_iter, cache_size=1000)
            self.svm_.fit(K, rel)
            self.n_iter_ = int(np.sum(self.svm_.n_iter_))
        else:
            self.svm_ = LinearSVC(C=C, loss="hinge", dual=True, class_weight=self.class_weight_,
                                  max_iter=20000 if max_iter is None else max_iter,
                                  tol=1e-4 if tol is None else tol,
                                  random_state=0)
            self.svm_.fit(Z, rel)
            self.n_iter_ = int(self.svm_.n_iter_)
        return self

    def decision_function(self, X, *, qid=None, group=None):
        """Signed distance to the separating hyperplane (the ranking score).

        ``X`` may be a RankingDataset (its queries serve acc3/acc4).
        """
        X, group_ptr = self._predict_data(X)
        if group_ptr is not None and (qid is not None or group is not None):
            raise ValueError("pass either a RankingDataset or X with qid/group, not both")
        if self.variant in ("acc3", "acc4") and group_ptr is None:
            if qid is None and group is None:
                raise ValueError(f"variant {self.variant!r} normalises features per query: "
                                 "pass qid or group to predict")
            group_ptr = RankingDataset(np.zeros((X.shape[0], 0)), np.zeros(X.shape[0]),
                                       qid=qid, group=group).group_ptr
        Z = self._transform(X, group_ptr)
        if self._uses_kernel:
            Z = binned_linear_kernel(self._counts(Z), self.train_counts_)
        return np.asarray(self.svm_.decision_function(Z), dtype=np.float64)

    def predict(self, X, *, qid=None, group=None):
        """Ranking scores (the decision values)."""
        return self.decision_function(X, qid=qid, group=group)

    def _score_metric(self, y) -> str:
        return border_spec("MAP", self.border)

    def _score_predict(self, X, qid, group):
        return self.predict(X, qid=qid, group=group)  # acc3/acc4 normalise per query
