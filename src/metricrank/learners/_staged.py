"""Each boosting iteration's raw output on some rows, as LightGBM predicts it, without one ``predict`` per iteration.

``predict(num_iteration=k)`` for every k costs k iterations' trees each time, so a whole validation curve costs
the square of the trees. Here the trees' leaves come from ``pred_leaf`` calls over blocks of iterations, and each
tree's output is its leaf's value in the model text (written with 17 significant digits, so read back to the last
bit); running sums in the order of the trees then give LightGBM's raw scores bit for bit. Where a tree's leaves
are linear models (``linear_tree``), not values, each iteration is predicted on its own.
"""

from __future__ import annotations

import re
from typing import Iterator

import numpy as np

from ._model_text import split_model_text

__all__ = ["iteration_outputs", "staged_raw_scores"]

#: A tree's leaf values in LightGBM's model text, and the mark of a tree whose leaves are linear models.
_LEAF_VALUES = re.compile(r"(?m)^leaf_value=(.*)$")
_LINEAR_TREE = re.compile(r"(?m)^is_linear=1$")
#: At most this many leaf indices are asked of ``pred_leaf`` at once (rows x trees of a block; 16 MB as LightGBM's
#: int32), so a long model's curve on many rows never holds every tree's leaves.
BLOCK_LEAVES = 1 << 22


def iteration_outputs(booster, X, n_iterations: int) -> Iterator[np.ndarray]:
    """The raw output of each of the first ``n_iterations`` iterations' trees on the rows of ``X``, one array per
    iteration, shaped as ``booster.predict(X, start_iteration=i, num_iteration=1, raw_score=True)`` would give it:
    ``(rows,)`` for one tree per iteration, ``(rows, trees per iteration)`` for more (``n_models`` > 1, mixed
    trees).

    Examples
    --------
    >>> import lightgbm as lgb, numpy as np
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> booster = lgb.train({"objective": "regression", "verbose": -1}, lgb.Dataset(X, X[:, 0]), 5)
    >>> outputs = list(iteration_outputs(booster, X[:4], 5))
    >>> len(outputs), outputs[0].shape
    (5, (4,))
    >>> bool(np.array_equal(sum(outputs), booster.predict(X[:4], raw_score=True)))
    True
    """
    per_iteration = booster.num_model_per_iteration()
    n_rows = X.shape[0]
    shape = (n_rows,) if per_iteration == 1 else (n_rows, per_iteration)
    if n_iterations > booster.current_iteration():
        raise ValueError(f"n_iterations={n_iterations}, but the booster holds {booster.current_iteration()} iterations")
    if n_iterations <= 0:
        return
    _, blocks, _ = split_model_text(booster.model_to_string(num_iteration=n_iterations))
    if any(_LINEAR_TREE.search(block) for block in blocks):
        for it in range(n_iterations):
            yield np.asarray(booster.predict(X, start_iteration=it, num_iteration=1, raw_score=True),
                             dtype=np.float64).reshape(shape)
        return
    values = [np.array(_LEAF_VALUES.search(block).group(1).split(), dtype=np.float64) for block in blocks]
    step = max(1, BLOCK_LEAVES // max(1, n_rows * per_iteration))
    for start in range(0, n_iterations, step):
        count = min(step, n_iterations - start)
        leaves = np.asarray(booster.predict(X, pred_leaf=True, start_iteration=start, num_iteration=count))
        leaves = leaves.reshape(n_rows, count * per_iteration)
        for it in range(count):
            first = (start + it) * per_iteration
            out = np.empty((n_rows, per_iteration), dtype=np.float64)
            for c in range(per_iteration):
                out[:, c] = values[first + c][leaves[:, it * per_iteration + c]]
            yield out.reshape(shape)


def staged_raw_scores(booster, X, n_iterations: int) -> Iterator[np.ndarray]:
    """``booster.predict(X, num_iteration=k, raw_score=True)`` for k = 1, ..., ``n_iterations``, in that order, each
    a new array: the running sum of :func:`iteration_outputs` (LightGBM adds a row's trees in the same order, from
    zero, so the sums are its scores bit for bit)."""
    raw = None
    for out in iteration_outputs(booster, X, n_iterations):
        raw = out.copy() if raw is None else raw + out
        yield raw
