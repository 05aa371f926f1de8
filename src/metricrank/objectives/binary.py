"""MART for binary classification: the logistic loss and Burges' balanced loss (section 6.1).

Labels ``y ∈ {-1, +1}`` (given as 0/1 or -1/+1). The loss of a score ``F`` is
``log(1 + exp(-2 y σ F))``. Burges' gradient is ``ȳ = 2 y σ / (1 + exp(2 y σ F))``
and his Newton weight ``|ȳ| (2σ - |ȳ|)``, so the leaf value is
``Σ ȳ / Σ |ȳ| (2σ - |ȳ|)`` (his Algorithm 5). The *balanced* loss
``L_B = (I_+/n_+ + I_-/n_-) log(1 + exp(-2 y σ F))`` weighs each class by the
inverse of its size, so that errors count as
``false positives / 2n_- + false negatives / 2n_+``; both ``ȳ`` and the
Newton weight get the same factor (eq. 15).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from .._checks import check_positive_finite

__all__ = ["LogisticObjective", "binary_signs"]


def binary_signs(y) -> np.ndarray:
    """Labels as ±1 floats; raises ValueError naming the allowed label sets."""
    y = np.asarray(y, dtype=np.float64).ravel()
    values = set(np.unique(y).tolist())
    if values <= {0.0, 1.0}:
        return 2.0 * y - 1.0
    if values <= {-1.0, 1.0}:
        return y.copy()
    raise ValueError(
        f"binary classification needs labels in {{0, 1}} or {{-1, +1}}; got {sorted(values)[:6]}"
    )


class LogisticObjective:
    """Gradient and Newton weight of the (optionally balanced) logistic loss.

    Parameters
    ----------
    sigma : float, default 1.0
    balanced : bool, default False
        Use Burges' balanced loss (each class weighted by 1 / its size).

    Examples
    --------
    >>> import numpy as np
    >>> obj = LogisticObjective()
    >>> g, h = obj.gradient_hessian(np.array([1.0, 0.0]), np.zeros(2))
    >>> g.tolist(), h.tolist()          # ȳ = ±2σ/2 = ±1, |ȳ|(2σ - |ȳ|) = 1
    ([-1.0, 1.0], [1.0, 1.0])
    """

    def __init__(self, *, sigma: float = 1.0, balanced: bool = False):
        check_positive_finite(sigma, "sigma")
        self.sigma = float(sigma)
        self.balanced = bool(balanced)

    def class_factor(self, signs: np.ndarray) -> np.ndarray:
        """``I_+/n_+ + I_-/n_-`` per row (ones for the plain loss)."""
        if not self.balanced:
            return np.ones_like(signs)
        n_pos = np.count_nonzero(signs > 0)
        n_neg = signs.shape[0] - n_pos
        if n_pos == 0 or n_neg == 0:
            raise ValueError("the balanced loss needs both classes in the training labels")
        return np.where(signs > 0, 1.0 / n_pos, 1.0 / n_neg)

    def loss(self, y, raw) -> float:
        """Mean (balanced: summed class-weighted) loss of scores ``raw``."""
        signs = binary_signs(y)
        per_row = np.logaddexp(0.0, -2.0 * signs * self.sigma * np.asarray(raw, dtype=np.float64))
        factor = self.class_factor(signs)
        return float(np.sum(factor * per_row) / (1.0 if self.balanced else signs.shape[0]))

    def gradient_hessian(self, y, raw, *, weights=None, signs=None):
        """Loss gradient ``-ȳ`` (times the class factor) and Newton weight per row."""
        signs = binary_signs(y) if signs is None else signs
        raw = np.asarray(raw, dtype=np.float64)
        ybar = 2.0 * signs * self.sigma * expit(-2.0 * signs * self.sigma * raw)
        hess = np.abs(ybar) * (2.0 * self.sigma - np.abs(ybar))
        factor = self.class_factor(signs)
        if weights is not None:
            factor = factor * np.asarray(weights, dtype=np.float64)
        return -ybar * factor, hess * factor
