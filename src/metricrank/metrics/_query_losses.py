"""CatBoost's query-wise losses used as metrics: QueryRMSE, QuerySoftMax, QueryCrossEntropy.

All three are *ratio-of-totals* metrics: each query contributes the sums in
the numerator and denominator of the formula in the CatBoost documentation
(seed ``001``), and the overall value is ``sum(num) / sum(den)`` over the
queries (then ``sqrt`` for QueryRMSE). Lower is better for all three.

Weights. ``catboost.utils.eval_metric`` evaluates these metrics with *object*
weights only: group weights passed as ``group_weight=`` do not change the value
(measured with catboost 1.2.10), so the kernels read ``MetricInput.weight`` and
ignore ``MetricInput.group_weight`` (``evaluate`` warns that they go unread).
A CatBoost ``Pool`` with group weights, as in CatBoost's training logs, is
different: it gives each row its query's weight, so there the value is this
one with ``weights`` = each row's group weight. With ``use_weights=false``
every weight is 1.

QueryCrossEntropy, exactly (CatBoost's ``TQueryCrossEntropyMetric``): for each
query, a shift ``b_q`` solving ``sum_i w_i (t_i - sigmoid(a_i + b_q)) = 0`` is
found by **30 bisection steps on [-20, 20]** (not Newton steps; so the shift
is clipped to [-20, 20] and accurate to ~3.7e-8, which moves the value only at
second order because the group term is stationary in the shift). The query
contributes ``sum_i w_i [(1-α) LL(t_i, a_i) + α LL(t_i, a_i + b_q)]`` with
``LL(t, a) = -(t a - log(1 + e^a))`` to the numerator and ``sum_i w_i`` to
the denominator; a query whose labels are all equal drops the ``α`` term
(it contributes only ``(1-α)·LogLoss``, still over the full ``sum w``).
Labels must lie in [0, 1].

Agreement with ``catboost.utils.eval_metric`` (catboost 1.2.10): ~1e-15
relative on randomized data (weights, group weights, single-document and
single-class queries, tied approxes), given that

* CatBoost stores labels and weights as float32: with values that are not
  float32-representable, CatBoost's rounded copy is the difference;
* CatBoost parses an *explicit* ``alpha`` as float32 (``alpha=0.3`` is
  evaluated as 0.30000001192...; the default 0.95 stays a double); we use
  the double that was given, a ~2e-9 relative difference for such alphas;
* a data set where no query is counted gives NaN here (CatBoost reports 0).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ._base import (
    USE_WEIGHTS_TRUE,
    MetricDef,
    MetricInput,
    Param,
    check_finite_labels_in,
    parse_nonnegative,
    parse_positive,
    parse_unit_interval,
)

__all__ = ["DEFINITIONS", "QUERY_SOFTMAX_LAMBDA", "query_rmse_parts", "query_softmax_parts",
           "query_cross_entropy_parts"]


#: CatBoost's ``lambda`` of QuerySoftMax: a term of the objective's hessian (see
#: :mod:`metricrank.objectives.query_losses`) that leaves the metric's value unchanged, in CatBoost too. The
#: metric takes it so that an objective's spec is its metric's.
QUERY_SOFTMAX_LAMBDA = Param("lambda", 0.0, parse_nonnegative, None,
                             "hessian term of the objective, beta T lambda per document (CatBoost 1.2's default "
                             "is 0.01); the metric's value does not depend on it")
#: The objectives' and metrics' beta and alpha, one domain for both (CatBoost takes any number: a negative
#: beta trains and scores the reversed order, an alpha outside [0, 1] weights a LogLoss negatively).
QUERY_SOFTMAX_BETA = Param("beta", 1.0, parse_positive, None, "input scale coefficient, > 0")
QUERY_CROSS_ENTROPY_ALPHA = Param("alpha", 0.95, parse_unit_interval, None,
                                  "weight of the per-query shifted LogLoss, in [0, 1]")


# --- QueryRMSE ----------------------------------------------------------------------------

@njit(cache=True, parallel=True)
def query_rmse_parts(y, score, weight, group_ptr):
    """Per-query ``sum_i w_i (t_i - a_i - mean_w(t - a))^2`` and ``sum_i w_i``.

    ``mean_w`` is the weighted mean of the residuals ``t - a`` of the query
    (the best per-query additive shift). A query whose weights sum to 0
    gets ``num = den = 0``.
    """
    nq = group_ptr.shape[0] - 1
    num = np.zeros(nq)
    den = np.zeros(nq)
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        sw = 0.0
        swr = 0.0
        for i in range(s, e):
            sw += weight[i]
            swr += weight[i] * (y[i] - score[i])
        mu = swr / sw if sw != 0.0 else 0.0
        acc = 0.0
        for i in range(s, e):
            d = y[i] - score[i] - mu
            acc += weight[i] * d * d
        num[q] = acc
        den[q] = sw
    return num, den


def _query_rmse(inp: MetricInput, params: dict):
    return query_rmse_parts(inp.y, inp.score, inp.weight, inp.group_ptr)


# --- QuerySoftMax -------------------------------------------------------------------------


def check_softmax_labels(y: np.ndarray, params: dict | None = None) -> None:
    """QuerySoftMax's labels, as metric and objective: >= 0, since its target is each query's labels over their
    sum (CatBoost refuses a negative one too)."""
    bad = y < 0
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"QuerySoftMax needs labels >= 0; row {k} has label {y[k]:g}")


@njit(cache=True, parallel=True)
def query_softmax_parts(y, score, weight, group_ptr, beta):
    """Per-query ``-sum_i w_i t_i log(w_i e^{b a_i} / sum_j w_j e^{b a_j})`` and ``sum_i w_i t_i``.

    As in CatBoost: only documents with ``t_i > 0`` enter either sum, only
    documents with ``w_j > 0`` enter the softmax normaliser, and a query with
    ``sum w_i t_i <= 0`` is not counted (``den = 0``). The softmax is computed
    after subtracting the query's largest ``b a_j`` (no overflow).
    """
    nq = group_ptr.shape[0] - 1
    num = np.zeros(nq)
    den = np.zeros(nq)
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        swt = 0.0
        for i in range(s, e):
            if y[i] > 0.0:
                swt += weight[i] * y[i]
        if swt <= 0.0:
            continue
        m = -np.inf
        for i in range(s, e):
            if weight[i] > 0.0:
                v = beta * score[i]
                if v > m:
                    m = v
        z = 0.0
        for i in range(s, e):
            if weight[i] > 0.0:
                z += weight[i] * math.exp(beta * score[i] - m)
        acc = 0.0
        for i in range(s, e):
            if y[i] > 0.0 and weight[i] > 0.0:
                p = weight[i] * math.exp(beta * score[i] - m)
                acc -= weight[i] * y[i] * math.log(p / z)
        num[q] = acc
        den[q] = swt
    return num, den


def _query_softmax(inp: MetricInput, params: dict):
    return query_softmax_parts(inp.y, inp.score, inp.weight, inp.group_ptr, float(params["beta"]))


# --- QueryCrossEntropy --------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _best_query_shift(score, y, weight, s, e):
    """CatBoost's per-query shift: 30 bisection steps on [-20, 20].

    Solves ``sum_i w_i (t_i - sigmoid(a_i + shift)) = 0`` by bisection exactly
    as CatBoost's ``BestQueryShift`` does (the midpoint after 30 halvings, so
    the root is found to 40 / 2^30 ~ 3.7e-8 and clipped to [-20, 20]).
    """
    best = 0.0
    left = -20.0
    right = 20.0
    for _ in range(30):
        der = 0.0
        for i in range(s, e):
            ex = math.exp(score[i] + best)
            p = ex / (1.0 + ex) if math.isfinite(ex) else 1.0
            der += weight[i] * (y[i] - p)
        if der > 0.0:
            left = best
        else:
            right = best
        best = (left + right) / 2.0
    return best


@njit(cache=True, nogil=True)
def _log1p_exp(a):
    """``log(1 + e^a)`` written as CatBoost writes it (``a`` when ``e^a`` overflows)."""
    ex = math.exp(a)
    if math.isfinite(ex + 1.0):
        return math.log(1.0 + ex)
    return a


@njit(cache=True, parallel=True)
def query_cross_entropy_parts(y, score, weight, group_ptr, alpha):
    """Per-query ``sum_i w_i [(1-α) LL(t_i, a_i) + α LL(t_i, a_i + shift_q)]`` and ``sum_i w_i``.

    ``LL(t, a) = -(t a - log(1 + e^a))`` is the logistic loss of a logit and
    ``shift_q`` the query's best additive shift (:func:`_best_query_shift`).
    In a query whose labels are all equal the group term is dropped (the
    query then contributes only ``(1-α)·LogLoss``), as in CatBoost.
    """
    nq = group_ptr.shape[0] - 1
    num = np.zeros(nq)
    den = np.zeros(nq)
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        shift = _best_query_shift(score, y, weight, s, e)
        single_class = True
        for i in range(s + 1, e):
            if abs(y[i] - y[s]) > 1e-20:
                single_class = False
                break
        acc = 0.0
        sw = 0.0
        for i in range(s, e):
            a = score[i]
            t = y[i]
            w = weight[i]
            acc += (1.0 - alpha) * (-w * (t * a - _log1p_exp(a)))
            if not single_class:
                sa = a + shift
                acc += alpha * (-w * (t * sa - _log1p_exp(sa)))
            sw += w
        num[q] = acc
        den[q] = sw
    return num, den


def _query_cross_entropy(inp: MetricInput, params: dict):
    return query_cross_entropy_parts(inp.y, inp.score, inp.weight, inp.group_ptr, float(params["alpha"]))


# --- definitions --------------------------------------------------------------------------

DEFINITIONS: list[MetricDef] = [
    MetricDef(
        name="QueryRMSE",
        object_weights=True,
        reads_order_only=False,
        params=(USE_WEIGHTS_TRUE,),
        higher_is_better=False,
        compute=_query_rmse,
        finalize=np.sqrt,
        source="catboost",
        doc="RMSE of the residuals after removing each query's weighted mean residual",
    ),
    MetricDef(
        name="QuerySoftMax",
        object_weights=True,
        reads_order_only=False,
        params=(USE_WEIGHTS_TRUE, QUERY_SOFTMAX_BETA, QUERY_SOFTMAX_LAMBDA),
        higher_is_better=False,
        compute=_query_softmax,
        check_labels=check_softmax_labels,
        source="catboost",
        doc="target-weighted cross-entropy of the per-query softmax of beta * approx",
    ),
    MetricDef(
        name="QueryCrossEntropy",
        object_weights=True,
        reads_order_only=False,
        params=(
            USE_WEIGHTS_TRUE,
            QUERY_CROSS_ENTROPY_ALPHA,
        ),
        higher_is_better=False,
        compute=_query_cross_entropy,
        check_labels=check_finite_labels_in(0.0, 1.0, "QueryCrossEntropy", "labels (probabilities)"),
        source="catboost",
        doc="(1 - alpha) LogLoss + alpha LogLoss after a per-query best additive logit shift",
    ),
]
