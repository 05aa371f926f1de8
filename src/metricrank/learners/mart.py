"""MART for binary classification (Burges section 6), with the balanced loss of section 6.1."""

from __future__ import annotations

import lightgbm as lgb
import numpy as np
from scipy.special import expit
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from .._seeds import draw_seed
from ..objectives.binary import LogisticObjective
from ._boosting import boost, numba_threads
from ._gbdt import GBDTBase
from ._inputs import check_features
from ._staged import staged_raw_scores

__all__ = ["MARTClassifier"]


class MARTClassifier(ClassifierMixin, GBDTBase):
    """Boosted trees for two classes with Burges' logistic or balanced loss.

    The model ``F`` scores the log odds ``2σF``; leaves take the Newton step
    ``Σ ȳ / Σ |ȳ| (2σ - |ȳ|)`` (section 6). With ``loss="balanced"`` each class is
    weighted by the inverse of its size (eq. 15), so errors count as
    ``FP / 2n_- + FN / 2n_+``.

    Parameters
    ----------
    loss : {"logistic", "balanced"}, default "logistic"
    sigma : float, default 1.0
    n_estimators, learning_rate, num_leaves, ... :
        Tree parameters, as in :class:`~metricrank.learners.LambdaMART`
        (here LightGBM's defaults: 31 leaves, no L2 penalty, no path smoothing).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class.

    Examples
    --------
    >>> import numpy as np
    >>> from metricrank.learners import MARTClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)); y = (X[:, 0] + 0.3 * rng.normal(size=300) > 1).astype(int)
    >>> clf = MARTClassifier(loss="balanced", n_estimators=30, num_leaves=4).fit(X, y)
    >>> bool(clf.score(X, y) > 0.85)
    True
    """

    def __init__(self, loss="logistic", *, sigma=1.0, n_estimators=100, learning_rate=0.1, num_leaves=31,
                 min_data_in_leaf=20, min_sum_hessian_in_leaf=1e-3, lambda_l2=0.0, path_smooth=0.0, extra_trees=False,
                 max_depth=-1, max_bin=255, feature_fraction=1.0, bagging_fraction=1.0, bagging_freq=0, n_jobs=None,
                 random_state=None, importance_type="split", lgb_params=None):
        self.loss = loss
        self.sigma = sigma
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_data_in_leaf = min_data_in_leaf
        self.min_sum_hessian_in_leaf = min_sum_hessian_in_leaf
        self.lambda_l2 = lambda_l2
        self.path_smooth = path_smooth
        self.extra_trees = extra_trees
        self.max_depth = max_depth
        self.max_bin = max_bin
        self.feature_fraction = feature_fraction
        self.bagging_fraction = bagging_fraction
        self.bagging_freq = bagging_freq
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.importance_type = importance_type
        self.lgb_params = lgb_params

    def fit(self, X, y, *, sample_weight=None):
        """Fit on two-class labels (any two values; the larger one is positive)."""
        self._check_params()
        self.seed_ = draw_seed(self.random_state)
        if self.loss not in ("logistic", "balanced"):
            raise ValueError(f"loss must be 'logistic' or 'balanced'; got {self.loss!r}")
        objective = LogisticObjective(sigma=self.sigma, balanced=self.loss == "balanced")
        X = check_features(X)
        if y is None:
            raise ValueError("MARTClassifier requires y to be passed, but the target y is None")
        y = column_or_1d(y, warn=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y.shape[0]} labels but X has {X.shape[0]} rows")
        check_classification_targets(y)  # "Unknown label type" for continuous targets, as scikit-learn says
        self.classes_ = np.unique(y)
        k = self.classes_.shape[0]
        if k != 2:
            raise ValueError(f"Only binary classification is supported. MARTClassifier needs exactly two classes; "
                             f"got {k} class{'' if k == 1 else 'es'}: {self.classes_[:5].tolist()}")
        signs = np.where(y == self.classes_[1], 1.0, -1.0)
        weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if weights is not None and weights.size and not np.any(weights):
            raise ValueError("sample weights are all zero; nothing would be learnt")
        # every tree parameter reaches the Dataset: binning and feature pre-filtering read min_data_in_leaf
        params = self._tree_params(X.shape[0])
        train = lgb.Dataset(X, label=(signs > 0).astype(float), free_raw_data=False, params=params)

        def gradient(raw):
            return objective.gradient_hessian(None, raw, weights=weights, signs=signs)

        with numba_threads(self.n_jobs):
            result = boost(params, train, gradient, int(self.n_estimators))
        self._set_fitted(result, X.shape[1])
        return self

    def decision_function(self, X):
        """The score ``F(x)``; the log odds of the positive class are ``2σF``."""
        X = self._checked(X)  # fitted first: NotFittedError, not an AttributeError
        return self.booster_.predict(X, raw_score=True)

    def predict_proba(self, X):
        return self._proba(self.decision_function(X))

    def predict(self, X):
        return self._label(self.decision_function(X))

    def staged_decision_function(self, X):
        """:meth:`decision_function` after each tree, one array per tree, as scikit-learn's gradient boosting
        gives it; bit for bit the score of the model cut to that many trees, in one pass over the trees.

        Examples
        --------
        >>> import numpy as np
        >>> from metricrank.learners import MARTClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 3)); y = (X[:, 0] > 0).astype(int)
        >>> clf = MARTClassifier(n_estimators=20, num_leaves=4).fit(X, y)
        >>> errors = [float(np.mean(p != y)) for p in clf.staged_predict(X)]
        >>> len(errors), errors[-1] <= errors[0]
        (20, True)
        """
        X = self._checked(X)
        return staged_raw_scores(self.booster_, X, self.n_estimators_)

    def staged_predict_proba(self, X):
        """:meth:`predict_proba` after each tree (see :meth:`staged_decision_function`)."""
        return (self._proba(score) for score in self.staged_decision_function(X))

    def staged_predict(self, X):
        """:meth:`predict` after each tree (see :meth:`staged_decision_function`)."""
        return (self._label(score) for score in self.staged_decision_function(X))

    def _checked(self, X):
        self._check_fitted()
        return check_features(X, n_features=self.n_features_in_, estimator=type(self).__name__)

    def _proba(self, score):
        p = expit(2.0 * self.sigma * score)
        return np.column_stack([1.0 - p, p])

    def _label(self, score):
        return self.classes_[(score > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # Burges' two-class MART
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags
