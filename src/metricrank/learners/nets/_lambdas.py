"""Per-document λ of a batch of queries, and the single backward pass that uses them.

Burges section 2.1: ``∂C/∂w = Σ_i (∂C/∂s_i) ∂s_i/∂w``, with ``∂C/∂s_i = -λ_i``
accumulated over every pair of document ``i``. One forward pass scores the
batch, the λ kernel fills ``∂C/∂s`` for every document, and ONE
``scores.backward(∂C/∂s)`` gives the parameter gradients: the network is
back-propagated once per batch, never once per pair.
"""

from __future__ import annotations

import numpy as np

from ...objectives.lambda_objective import LambdaObjective
from ._batches import Batch
from ._pairs import pair_gradient

__all__ = ["LabelLambdas", "PairLambdas", "backward_lambdas"]


class LabelLambdas:
    """λ from graded labels through the numba λ kernel (RankNet: ``|ΔZ| = 1``; LambdaRank: exact ``|ΔZ|``)."""

    def __init__(self, objective: LambdaObjective, y, weights=None, group_weights=None):
        self.objective = objective
        self.labels = objective.prepare_labels(y)
        self.weights = np.ones(self.labels.size) if weights is None else np.asarray(weights, dtype=np.float64)
        self.group_weights = group_weights

    def gradient(self, scores: np.ndarray, batch: Batch) -> np.ndarray:
        """Loss gradient ``-λ`` of every row of ``batch``."""
        gw = None if self.group_weights is None else self.group_weights[batch.queries]
        grad, _ = self.objective.lambdas(np.ascontiguousarray(self.labels[batch.rows]), scores, batch.ptr,
                                         weights=self.weights[batch.rows], group_weights=gw)
        return grad


class PairLambdas:
    """RankNet λ from explicit pairs ``(winner, loser)`` of global row indices.

    A pair's weight is ``pair_weight × group_weight`` of its query.
    """

    def __init__(self, pairs, pair_weight, group_ptr, group_weights=None, sigma: float = 1.0):
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        weight = np.ones(len(pairs)) if pair_weight is None else np.asarray(pair_weight, dtype=np.float64)
        query = np.searchsorted(group_ptr, pairs[:, 0], side="right") - 1
        if group_weights is not None:
            weight = weight * group_weights[query]
        order = np.argsort(query, kind="stable")
        self.pairs, self.weight = pairs[order], weight[order]
        self.pair_ptr = np.searchsorted(query[order], np.arange(len(group_ptr)), side="left").astype(np.int64)
        self.group_ptr = group_ptr
        self.sigma = float(sigma)

    def gradient(self, scores: np.ndarray, batch: Batch) -> np.ndarray:
        """Loss gradient ``-λ`` of every row of ``batch`` from the pairs of its queries."""
        q = batch.queries
        counts = self.pair_ptr[q + 1] - self.pair_ptr[q]
        cptr = np.zeros(q.size + 1, dtype=np.int64)
        np.cumsum(counts, out=cptr[1:])
        idx = np.repeat(self.pair_ptr[q] - cptr[:-1], counts) + np.arange(cptr[-1], dtype=np.int64)
        shift = np.repeat(batch.ptr[:-1] - self.group_ptr[q], counts)  # global row -> batch position
        pairs = self.pairs[idx]
        return pair_gradient(scores, pairs[:, 0] + shift, pairs[:, 1] + shift, self.weight[idx], self.sigma,
                             batch.rows.size)


def backward_lambdas(model, X, batch: Batch, lambdas, scale: float = 1.0, offset=None):
    """Score ``X[batch.rows]``, get ``∂C/∂s`` from ``lambdas``, back-propagate it once.

    ``offset`` (numpy, one per row of ``X``, or None) is added to the network's scores: the cost is read at
    ``offset + s``, whose derivative in ``s`` is the same. Adds ``scale · ∂C/∂w`` to every parameter's ``.grad``
    and returns ``∂C/∂s`` (numpy).
    """
    scores = model(X[batch.rows]).squeeze(-1)
    at = scores.detach().cpu().numpy().astype(np.float64)
    grad = lambdas.gradient(at if offset is None else at + offset[batch.rows], batch)
    import torch

    scores.backward(torch.as_tensor(grad * scale, dtype=scores.dtype, device=scores.device))
    return grad
