"""StochasticFilter: REINFORCE gradient of the expected FilteredDCG (Vorobev et al., 2019).

A query's documents keep their input order; the model decides which of them
to keep. Document ``i`` is kept, independently, with probability
``p_i = sigmoid(sigma * a_i)`` and the reward is the catalogue metric
``FilteredDCG`` (``type=Base; denominator=Position``) of the kept documents::

    F(m) = sum over kept i of  y_i / (position of i among the kept documents, 1-based)

The loss of a query is ``-E[F]``. CatBoost's documentation writes the
distribution as ``P(filter | x) = sigmoid(a)``, but its code (and the
catalogue metric, which keeps ``score >= 0``) keeps a document with
probability ``sigmoid(sigma * a)``: a document with a high score is kept.
That is what is implemented.

Gradient
--------
The score-function (REINFORCE) estimator over ``K = num_estimations`` masks
``m^(k)`` drawn per query::

    dE[F]/da_i  ~  1/K sum_k (F(m^(k)) - b) * sigma * (m_i^(k) - p_i)

with CatBoost's baseline ``b`` = the FilteredDCG of the deterministic
filter ``a_i >= 0`` (the catalogue metric at the current scores). ``b``
does not depend on the sampled masks and ``E[m_i - p_i] = 0``, so the
estimator stays unbiased; the baseline only reduces its variance. The loss
gradient is ``grad_i = -group_weight[q] * weight_i * estimate_i``.

``sigma`` factor: CatBoost's derivative omits the factor ``sigma`` of
``d log P(m) / d a_i`` (it is the derivative with respect to ``sigma * a``);
here the factor is kept so the result is the gradient with respect to the
scores. Both agree at the default ``sigma = 1``.

Hessian
-------
CatBoost values the leaves of this objective by gradient steps (a leaf is the
mean derivative of its documents). The engine needs positive hessians, so
``hess_i = group_weight[q] * weight_i``: the Newton leaf ``-sum grad / sum
hess`` is then that (weighted) mean. Object and group weights are not used by
CatBoost; with none given both are 1 and the leaf equals CatBoost's.

Randomness: :meth:`StochasticFilter.bind` creates a ``numpy`` Generator from
``random_state``; each call draws its ``num_estimations x n_rows`` uniforms
up front in one array, so the estimate depends on the seed and the call
number, never on the thread count.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..metrics._base import Param, parse_int, parse_positive
from .._seeds import as_generator
from ._base import BoundObjective, Objective, ObjectiveDef, TrainingData

__all__ = ["DEFINITIONS", "BoundStochasticFilter", "StochasticFilter"]


@njit(cache=True, nogil=True)
def _sigmoid(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    ex = math.exp(x)
    return ex / (1.0 + ex)


@njit(cache=True, parallel=True)
def _filter_grad(raw, y, ptr, uniforms, sigma, row_factor, grad, hess):
    """REINFORCE estimate of the loss gradient ``-d E[FilteredDCG] / d a`` (times ``row_factor``)."""
    nq = ptr.shape[0] - 1
    n_est = uniforms.shape[0]
    for q in prange(nq):
        s = ptr[q]
        e = ptr[q + 1]
        # Baseline: the deterministic filter a >= 0 (independent of the draws).
        base = 0.0
        pos = 0
        for i in range(s, e):
            if raw[i] >= 0.0:
                pos += 1
                base += y[i] / pos
        for i in range(s, e):
            grad[i] = 0.0
        for k in range(n_est):
            reward = 0.0
            pos = 0
            for i in range(s, e):
                if uniforms[k, i] < _sigmoid(sigma * raw[i]):
                    pos += 1
                    reward += y[i] / pos
            adv = (reward - base) * sigma / n_est
            for i in range(s, e):
                p = _sigmoid(sigma * raw[i])
                kept = 1.0 if uniforms[k, i] < p else 0.0
                grad[i] -= adv * (kept - p)
        for i in range(s, e):
            grad[i] *= row_factor[i]
            hess[i] = row_factor[i]


class BoundStochasticFilter(BoundObjective):
    """StochasticFilter bound to one training set; each call draws new masks."""

    def __init__(self, data: TrainingData, sigma: float, num_estimations: int, rng: np.random.Generator):
        self.y = data.y
        self.group_ptr = data.group_ptr
        self.sigma = sigma
        self.rng = rng
        self.row_factor = np.ascontiguousarray(data.weight * np.repeat(data.group_weight, np.diff(data.group_ptr)))
        self._uniforms = np.empty((num_estimations, data.n_rows))
        self._grad = np.empty(data.n_rows)
        self._hess = np.empty(data.n_rows)

    def __call__(self, raw):
        self.rng.random(out=self._uniforms)
        _filter_grad(raw, self.y, self.group_ptr, self._uniforms, self.sigma, self.row_factor,
                     self._grad, self._hess)
        return self._grad, self._hess


class StochasticFilter(Objective):
    """Minus the expected FilteredDCG of a random keep/drop filter, by REINFORCE (CatBoost's).

    Parameters (spec)
    -----------------
    sigma : float > 0, default 1
        Keep probability ``sigmoid(sigma * a)``.
    num_estimations : int >= 1, default 1
        Sampled filters per query and call.

    Examples
    --------
    >>> import numpy as np
    >>> obj = StochasticFilter("StochasticFilter", {"sigma": 1.0, "num_estimations": 1})
    >>> grad, hess = obj.gradient_hessian([1.0, 0.0, 2.0], np.zeros(3), [0, 3], random_state=0)
    >>> grad.shape, hess.tolist()
    ((3,), [1.0, 1.0, 1.0])
    >>> obj.eval_spec
    'FilteredDCG'
    """

    name = "StochasticFilter"
    stochastic = True

    @property
    def eval_spec(self) -> str:
        return "FilteredDCG"

    def bind(self, data: TrainingData, random_state=None) -> BoundStochasticFilter:
        return BoundStochasticFilter(data, float(self.params["sigma"]), int(self.params["num_estimations"]),
                                     as_generator(random_state))


def parse_num_estimations(text: str) -> int:
    value = parse_int(text)
    if value < 1:
        raise ValueError(f"num_estimations must be an integer >= 1, got {text!r}")
    return value


def check_num_estimations(owner: str, value) -> int:
    if int(value) != value or value < 1:
        raise ValueError(f"{owner}: num_estimations must be an integer >= 1, got {value!r}")
    return int(value)


def _make(spec: str, params: dict) -> StochasticFilter:
    if not np.isfinite(params["sigma"]) or params["sigma"] <= 0:
        raise ValueError(f"StochasticFilter: sigma must be a positive number, got {params['sigma']!r}")
    check_num_estimations("StochasticFilter", params["num_estimations"])
    return StochasticFilter(spec, params)


DEFINITIONS = (
    ObjectiveDef(
        "StochasticFilter",
        (Param("sigma", 1.0, parse_positive, None, "keep probability sigmoid(sigma * score)"),
         Param("num_estimations", 1, parse_num_estimations, None, "sampled filters per query and iteration")),
        _make,
        "-E[FilteredDCG] of documents kept with probability sigmoid(sigma a), REINFORCE gradient",
    ),
)
