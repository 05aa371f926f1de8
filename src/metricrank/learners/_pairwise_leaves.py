"""Leaf values from the pairwise Newton system (the ``*Pairwise`` objectives).

LightGBM grows each tree on the objective's per-row gradient and diagonal
hessian. For PairLogitPairwise and YetiRankPairwise the leaf values are then
recomputed from the pairs themselves: with the PairLogit loss
``ℓ(d) = W log(1 + e^{-d})`` of a pair whose score difference is
``d = s_winner - s_loser``, a tree adding ``v[leaf(i)]`` to row ``i`` changes
``d`` by ``v[leaf(w)] - v[leaf(l)]``, and the second-order model of the loss is

    Σ_pairs g (v_a - v_b) + ½ h (v_a - v_b)² + ½ λ Σ_leaves v²,
    g = ℓ'(d) = -W (1 - p),   h = ℓ''(d) = W p (1 - p),   p = σ(d),

with ``a = leaf(w)``, ``b = leaf(l)``. Pairs inside one leaf do not move. The
minimiser solves the L×L system ``(Σ h (e_a - e_b)(e_a - e_b)ᵀ + λ I) v = -Σ g (e_a - e_b)``:
a weighted graph Laplacian over the leaves plus ``λ`` (LightGBM's ``lambda_l2``).
Without ``λ`` the Laplacian is singular (a constant shift of every leaf changes
no pair), and the minimum-norm solution is taken.

CatBoost's ``*Pairwise`` objectives also choose the *splits* by a pairwise
model; here the tree structure comes from LightGBM's per-row gradient, and only
the leaf values are pairwise. CatBoost 1.2.10's leaf values are a first-order
step, the only leaf method it allows these objectives on the CPU: each pair
adds its *weight* (not ``h``) to the Laplacian, which takes
``bayesian_matrix_reg`` (0.1) times ``I - 11ᵀ/L`` plus its L2 penalty; one leaf
is pinned to 0 and the solution shifted to mean 0 (PairLogitPairwise's leaves
of one-row-leaf trees probed equal to 1e-8). Here the step is Newton's.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ._boosting import ScoreTracker

__all__ = ["PairwiseLeafTracker", "pairwise_leaf_values"]


def pairwise_leaf_values(leaf, n_leaves: int, winners, losers, weights, scores, l2: float = 0.0) -> np.ndarray:
    """Minimiser of the pairwise second-order model over the leaves.

    Parameters
    ----------
    leaf : int array (n_rows,)
        Leaf index of every row in the new tree.
    n_leaves : int
    winners, losers : int arrays (n_pairs,)
        Row indices of each pair's winner and loser.
    weights : float array (n_pairs,)
    scores : float array (n_rows,)
        Current scores (before the new tree).
    l2 : float
        Ridge ``λ`` on the leaf values.

    Returns
    -------
    ndarray of shape (n_leaves,)
        Leaf values (not yet multiplied by the learning rate).

    Examples
    --------
    >>> import numpy as np
    >>> v = pairwise_leaf_values(np.array([0, 1]), 2, np.array([0]), np.array([1]), np.array([1.0]),
    ...                          np.zeros(2), l2=1.0)
    >>> bool(v[0] > 0 > v[1])
    True
    """
    a, b = leaf[winners], leaf[losers]
    split = a != b
    a, b = a[split], b[split]
    p = expit(scores[winners[split]] - scores[losers[split]])
    w = weights[split]
    g = -w * (1.0 - p)
    h = w * p * (1.0 - p)
    L = int(n_leaves)
    grad = np.bincount(a, g, L) - np.bincount(b, g, L)
    hess = (np.bincount(a * L + a, h, L * L) + np.bincount(b * L + b, h, L * L)
            - np.bincount(a * L + b, h, L * L) - np.bincount(b * L + a, h, L * L)).reshape(L, L)
    if l2 > 0:
        return np.linalg.solve(hess + l2 * np.eye(L), -grad)
    return np.linalg.lstsq(hess, -grad, rcond=None)[0]


class PairwiseLeafTracker(ScoreTracker):
    """Revalues each new tree's leaves from the pairs of the objective's latest call."""

    def __init__(self, bound_objective, learning_rate: float, l2: float, train_X, train_base, eval_X, eval_base):
        super().__init__(train_X, train_base, eval_X, eval_base)
        self.bound = bound_objective
        self.learning_rate = float(learning_rate)
        self.l2 = float(l2)

    def revalue(self, booster, tree_index: int, train_scores: np.ndarray) -> None:
        leaf = booster.predict(self.train_X, start_iteration=tree_index, num_iteration=1,
                               pred_leaf=True).astype(np.int64).ravel()
        n_leaves = int(leaf.max()) + 1
        winners, losers, weights = self.bound.pairs()
        values = pairwise_leaf_values(leaf, n_leaves, winners, losers, weights, train_scores, self.l2)
        for j, value in enumerate(values):
            booster.set_leaf_output(tree_index, j, float(self.learning_rate * value))
