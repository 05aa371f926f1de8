"""RankNet λ of explicit preference pairs (CatBoost pairs: winner, loser, weight)."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["pair_gradient"]


def pair_gradient(scores, winners, losers, weights, sigma: float, n: int) -> np.ndarray:
    """Loss gradient ``∂C/∂s`` of ``C = Σ_k w_k log(1 + exp(-σ (s_winner - s_loser)))``.

    Burges eq. 3 with ``S_ij = 1``: each pair contributes
    ``λ_k = σ w_k (1 - P_k)``, ``P_k = 1 / (1 + exp(-σ (s_winner - s_loser)))``, pushing
    the winner up (gradient ``-λ_k``) and the loser down (``+λ_k``); a row's gradient
    is the sum over its pairs (eq. 4).

    Parameters
    ----------
    scores : array of shape (n,)
    winners, losers : int arrays of shape (n_pairs,)
        Row indices into ``scores``.
    weights : array of shape (n_pairs,)
    sigma : float
    n : int
        Length of the output.

    Examples
    --------
    >>> import numpy as np
    >>> g = pair_gradient(np.zeros(2), np.array([0]), np.array([1]), np.array([2.0]), 1.0, 2)
    >>> g.tolist()  # σ w (1 - 1/2) = 1
    [-1.0, 1.0]
    """
    diff = np.asarray(scores, dtype=np.float64)[winners] - np.asarray(scores, dtype=np.float64)[losers]
    lam = sigma * weights * expit(-sigma * diff)  # 1 - P = P(loser above winner)
    return np.bincount(losers, lam, minlength=n) - np.bincount(winners, lam, minlength=n)
