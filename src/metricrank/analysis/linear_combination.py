"""A linear LambdaRank on several rankers' scores (Burges, sec. 7.1, the extension to many rankers).

Burges notes that instead of the exact two-ranker sweep one may "simply train a linear
LambdaRank model using the previous model scores as inputs". :func:`combine_rankers`
does that with plain numpy: the combined score is ``X @ w`` (``X`` the standardised
rankers' scores), the λ of each document is minus the gradient of
:class:`~metricrank.objectives.LambdaObjective` (``norm=False``), and the weights
ascend ``X^T λ`` (averaged over queries) for a fixed number of epochs with a fixed step.
The weights with the best training metric seen (the start included) are returned.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._checks import is_integer, is_real
from .._groups import resolve_groups
from ..metrics import get_metric
from ..metrics.evaluate import _as_float_vector, make_input, with_scores
from ..objectives import LambdaObjective

__all__ = ["LinearCombinationResult", "combine_rankers"]


@dataclass(frozen=True)
class LinearCombinationResult:
    """Outcome of :func:`combine_rankers`.

    Attributes
    ----------
    weights : ndarray of shape (n_rankers,)
        Weights on the *raw* scores: the combined ranker is ``sum_k weights[k] * scores[k]``.
    value : float
        Training metric of the combined ranker.
    single_values : ndarray of shape (n_rankers,)
        Training metric of each ranker alone.
    history : ndarray of shape (epochs + 1,)
        Training metric at the start and after every epoch.
    higher_is_better : bool
    metric : str
    """

    weights: np.ndarray
    value: float
    single_values: np.ndarray
    history: np.ndarray = field(repr=False)
    higher_is_better: bool = True
    metric: str = ""

    def predict(self, score_list) -> np.ndarray:
        """Combined scores of new score vectors (same rankers, same order)."""
        return np.column_stack([np.asarray(s, dtype=np.float64) for s in score_list]) @ self.weights


def combine_rankers(score_list, y, *, qid=None, group_ptr=None, metric="NDCG:top=10", epochs=100,
                    learning_rate=0.5, sigma=1.0, preset=None) -> LinearCombinationResult:
    """Learn a linear combination of several rankers with λ-gradient ascent.

    Parameters
    ----------
    score_list : sequence of array-like of shape (n,)
        Rankers' scores on the same rows (one or more; with one, only its sign
        and scale are learnt).
    y : array-like of shape (n,)
        Relevance labels.
    qid, group_ptr : optional
        Queries, as for :func:`metricrank.evaluate`.
    metric : str, default="NDCG:top=10"
        A λ target of :class:`~metricrank.objectives.LambdaObjective` (NDCG, DCG, MAP, MRR,
        ERR, PrecisionAt, ROCArea, QueryAUC, MAUC); the same spec is the training metric.
    epochs : int, default=100
        Full-batch gradient steps.
    learning_rate : float, default=0.5
        Step on the weights of the standardised scores, per unit of mean λ-gradient per query.
    sigma : float, default=1.0
        σ of the λ-gradients.
    preset : str, optional

    Returns
    -------
    LinearCombinationResult
        Starts from equal weights on the standardised scores and keeps the best
        training value seen, so it is never worse than that start.

    Examples
    --------
    >>> import numpy as np
    >>> from metricrank import make_ltr
    >>> ds = make_ltr(30, n_features=3, n_informative=3, random_state=0)
    >>> r = combine_rankers([ds.X[:, 0], ds.X[:, 1], ds.X[:, 2]], ds.y, group_ptr=ds.group_ptr,
    ...                     metric="NDCG:top=5", epochs=20)
    >>> r.weights.shape, bool(r.value >= r.single_values.max())
    ((3,), True)
    """
    if isinstance(score_list, np.ndarray) and score_list.ndim == 2:
        score_list = list(score_list)
    if len(score_list) < 1:
        raise ValueError("score_list must hold at least one score vector")
    y = _as_float_vector(y, "y")
    X = np.column_stack([_as_float_vector(s, f"score_list[{k}]", y.shape[0]) for k, s in enumerate(score_list)])
    if not (is_integer(epochs) and epochs >= 0):
        raise ValueError(f"epochs must be a non-negative integer; got {epochs!r}")
    if not (is_real(learning_rate) and np.isfinite(learning_rate) and learning_rate > 0):
        raise ValueError(f"learning_rate must be a positive number; got {learning_rate!r}")
    m = get_metric(metric, preset)
    objective = LambdaObjective(m, sigma=sigma, norm=False, preset=preset)
    ptr = resolve_groups(y.shape[0], qid=qid, group_ptr=group_ptr)
    labels = objective.prepare_labels(y)
    inp = make_input(y, np.zeros(y.shape[0]), group_ptr=ptr)
    sign = 1.0 if m.higher_is_better else -1.0

    def value_of(scores):
        return m.compute(with_scores(inp, scores))[0]

    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X - X.mean(axis=0)) / scale
    single = np.array([value_of(X[:, k]) for k in range(X.shape[1])])
    w = np.full(X.shape[1], 1.0 / X.shape[1])
    best_w, best = w.copy(), value_of(Z @ w)
    history = [best]
    n_queries = ptr.shape[0] - 1
    for _ in range(int(epochs)):
        grad, _hess = objective.lambdas(labels, Z @ w, ptr)
        w = w + learning_rate * (Z.T @ -grad) / n_queries
        current = value_of(Z @ w)
        history.append(current)
        if sign * current > sign * best:
            best_w, best = w.copy(), current
    return LinearCombinationResult(weights=best_w / scale, value=float(best), single_values=single,
                                   history=np.asarray(history), higher_is_better=m.higher_is_better, metric=m.spec)
