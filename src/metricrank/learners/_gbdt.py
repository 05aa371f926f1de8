"""What every LightGBM-engine estimator shares: tree parameters, fitted state, importances."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from ._boosting import BoostResult, tree_params

__all__ = ["GBDTBase", "positive_int"]


def positive_int(est, name: str, minimum: int = 1) -> None:
    """Raise ValueError unless ``est.<name>`` is an integer >= ``minimum``."""
    value = getattr(est, name)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")


class GBDTBase(BaseEstimator):
    """Base of the tree learners. Subclasses define ``__init__`` with the tree parameters
    ``n_estimators, learning_rate, num_leaves, min_data_in_leaf, min_sum_hessian_in_leaf,
    lambda_l2, max_depth, max_bin, feature_fraction, bagging_fraction, bagging_freq, n_jobs,
    random_state, importance_type, lgb_params``."""

    def _check_params(self) -> None:
        positive_int(self, "n_estimators")
        positive_int(self, "num_leaves", 2)
        positive_int(self, "min_data_in_leaf", 1)
        positive_int(self, "max_bin", 2)
        positive_int(self, "bagging_freq", 0)
        if not (np.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise ValueError(f"learning_rate must be a positive number; got {self.learning_rate!r}")
        for name in ("feature_fraction", "bagging_fraction"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"{name} must be in (0, 1]; got {value!r}")
        for name in ("lambda_l2", "min_sum_hessian_in_leaf"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0; got {getattr(self, name)!r}")
        if self.importance_type not in ("split", "gain"):
            raise ValueError(f"importance_type must be 'split' or 'gain'; got {self.importance_type!r}")

    def _tree_params(self) -> dict:
        return tree_params(
            num_leaves=self.num_leaves, learning_rate=self.learning_rate, min_data_in_leaf=self.min_data_in_leaf,
            min_sum_hessian_in_leaf=self.min_sum_hessian_in_leaf, lambda_l2=self.lambda_l2,
            max_depth=self.max_depth, max_bin=self.max_bin, feature_fraction=self.feature_fraction,
            bagging_fraction=self.bagging_fraction, bagging_freq=self.bagging_freq, n_jobs=self.n_jobs,
            random_state=self.random_state, extra=self.lgb_params,
        )

    def _set_fitted(self, result: BoostResult, n_features: int, init_model=None) -> None:
        self.booster_ = result.booster
        self.n_features_in_ = int(n_features)
        self.evals_result_ = result.evals_result
        self.best_iteration_ = result.best_iteration
        self.best_score_ = result.best_score
        self.n_estimators_ = int(result.booster.current_iteration())
        self.stop_reason_ = result.stop_reason
        self.init_model_ = init_model

    def _check_fitted(self) -> None:
        if not hasattr(self, "booster_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    @property
    def feature_importances_(self) -> np.ndarray:
        """Split counts (or total gain) of every feature over the trees :meth:`predict` uses."""
        self._check_fitted()
        return self.booster_.feature_importance(importance_type=self.importance_type,
                                                iteration=self.best_iteration_ or None).astype(np.float64)
