"""QueryRMSE, QuerySoftMax and QueryCrossEntropy as training objectives.

Each loss is the sum over queries of the *numerator* of the catalogue metric
of the same name (:mod:`metricrank.metrics._query_losses`), times the query's
group weight ``g_q``; the derivatives are exact, the hessian is the exact
diagonal. Notation: ``w_i`` row weight (1 with ``use_weights=false``, which
also drops group weights), ``t_i`` label, ``a_i`` score.

QueryRMSE
    ``L_q = 1/2 sum_i w_i (t_i - a_i - mu_q)^2``, ``mu_q = sum w (t - a) / W``,
    ``W = sum_i w_i``. The ½ makes the gradient the weighted residual
    ``grad_i = -w_i (t_i - a_i - mu_q)`` (the envelope theorem drops
    ``d mu / d a``, as ``mu`` minimises the loss), the derivative CatBoost's
    Newton step uses; the metric's numerator is ``2 L_q``.
    ``hess_i = w_i (1 - w_i / W)`` (``d(t_i - a_i - mu)/d a_i = -1 + w_i / W``);
    CatBoost 1.2's Newton step divides by ``w_i`` instead, so a row of an
    unweighted query of n documents steps n / (n - 1) as far here.
QuerySoftMax
    ``L_q = -sum_{i: t_i > 0} w_i t_i log p_i``, ``p_i = w_i e^{β a_i} / Z``,
    ``Z = sum_{j: w_j > 0} w_j e^{β a_j}``; with ``T = sum_{t_i > 0} w_i t_i``:
    ``grad_i = β (T p_i - w_i t_i)``, ``hess_i = β² T p_i (1 - p_i)``, plus
    ``β T λ`` with CatBoost's ``lambda`` (default 0 here, the exact hessian of
    the seed's loss; CatBoost 1.2 adds 0.01, which damps its Newton steps). A
    query with ``T = 0`` (no positive label) has no loss: zero gradient and
    hessian, as the metric does not count it. Labels must be >= 0.
QueryCrossEntropy
    ``L_q = (1-α) sum w_i LL(t_i, a_i) + α sum w_i LL(t_i, a_i + b_q)``,
    ``LL(t, a) = log(1 + e^a) - t a``, ``b_q`` solving
    ``F(b) = sum_i w_i (σ(a_i + b) - t_i) = 0``, found here to full precision
    (safeguarded Newton, :func:`query_shift`; the metric bisects 30 times on [-20, 20], which
    changes its value only at second order). See :func:`_qce_query` for the
    derivatives. As in the metric, a query whose labels are all equal drops the
    α term. If no finite shift exists (every positively weighted label is 0,
    or every one is 1) the α term is at its infimum 0 as ``b -> ±inf``, and so
    are its derivatives. Labels must lie in [0, 1].
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..metrics._base import USE_WEIGHTS_TRUE
from ..metrics._query_losses import (QUERY_CROSS_ENTROPY_ALPHA, QUERY_SOFTMAX_BETA, QUERY_SOFTMAX_LAMBDA,
                                     check_softmax_labels)
from ._base import BoundObjective, Objective, ObjectiveDef, TrainingData

__all__ = ["DEFINITIONS", "QueryCrossEntropy", "QueryRMSE", "QuerySoftMax", "query_cross_entropy_grad_hess",
           "query_rmse_grad_hess", "query_softmax_grad_hess"]


# --- kernels ----------------------------------------------------------------------------------

@njit(cache=True, parallel=True)
def query_rmse_grad_hess(y, raw, weight, group_weight, group_ptr, grad, hess):
    """QueryRMSE: ``grad_i = -g w_i (t_i - a_i - mu)``, ``hess_i = g w_i (1 - w_i / W)``."""
    nq = group_ptr.shape[0] - 1
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        g = group_weight[q]
        sw = 0.0
        swr = 0.0
        for i in range(s, e):
            sw += weight[i]
            swr += weight[i] * (y[i] - raw[i])
        if sw <= 0.0:
            for i in range(s, e):
                grad[i] = 0.0
                hess[i] = 0.0
            continue
        mu = swr / sw
        for i in range(s, e):
            w = weight[i]
            grad[i] = -g * w * (y[i] - raw[i] - mu)
            hess[i] = g * w * (1.0 - w / sw)


@njit(cache=True, parallel=True)
def query_softmax_grad_hess(y, raw, weight, group_weight, group_ptr, beta, lam, grad, hess):
    """QuerySoftMax: ``grad_i = g β (T p_i - w_i t_i [t_i > 0])``, ``hess_i = g β T (β p_i (1 - p_i) + λ)``."""
    nq = group_ptr.shape[0] - 1
    for q in prange(nq):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        g = group_weight[q]
        total = 0.0  # T
        m = -np.inf
        for i in range(s, e):
            grad[i] = 0.0
            hess[i] = 0.0
            if y[i] > 0.0:
                total += weight[i] * y[i]
            if weight[i] > 0.0 and beta * raw[i] > m:
                m = beta * raw[i]
        if total <= 0.0:
            continue
        z = 0.0
        for i in range(s, e):
            if weight[i] > 0.0:
                hess[i] = weight[i] * math.exp(beta * raw[i] - m)  # scratch: w_i e^{β a_i - m}
                z += hess[i]
        for i in range(s, e):
            w = weight[i]
            if w <= 0.0:
                continue
            p = hess[i] / z
            wt = w * y[i] if y[i] > 0.0 else 0.0
            grad[i] = g * beta * (total * p - wt)
            hess[i] = g * beta * total * (beta * p * (1.0 - p) + lam)


@njit(cache=True, nogil=True, inline="always")
def _sigmoid(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    ex = math.exp(x)
    return ex / (1.0 + ex)


@njit(cache=True, nogil=True, inline="always")
def _sigmoid_at(ex_i, scale, x):
    """``σ(x)`` for ``x = a_i + b``, given ``ex_i = e^{a_i - m}`` and ``scale = e^{b + m}``.

    One division instead of an ``exp`` per row and Newton step; falls back to
    :func:`_sigmoid` where the factored form under/overflows.
    """
    if ex_i == 0.0 or scale == 0.0 or scale == np.inf:
        return _sigmoid(x)
    z = ex_i * scale
    if z == np.inf:
        return 1.0
    return z / (1.0 + z)


@njit(cache=True, nogil=True)
def _query_exps(raw, s, e):
    """``(m, ex)``: the query's largest score and ``ex[i - s] = e^{a_i - m}`` (in (0, 1])."""
    m = raw[s]
    for i in range(s + 1, e):
        if raw[i] > m:
            m = raw[i]
    ex = np.empty(e - s)
    for i in range(s, e):
        ex[i - s] = math.exp(raw[i] - m)
    return m, ex


@njit(cache=True, nogil=True)
def _shift(y, raw, weight, s, e, m, ex):
    swt = 0.0
    sw1t = 0.0
    for i in range(s, e):
        swt += weight[i] * y[i]
        sw1t += weight[i] * (1.0 - y[i])
    if swt <= 0.0:
        return -np.inf
    if sw1t <= 0.0:
        return np.inf
    lo = -np.inf
    hi = np.inf
    b = 0.0
    for _ in range(500):
        f = 0.0
        df = 0.0
        scale = math.exp(b + m)
        for i in range(s, e):
            p = _sigmoid_at(ex[i - s], scale, raw[i] + b)
            f += weight[i] * (p - y[i])
            df += weight[i] * p * (1.0 - p)
        if f == 0.0:
            return b
        if f < 0.0:
            lo = b
        else:
            hi = b
        step = -f / df if df > 0.0 else (8.0 if f < 0.0 else -8.0)
        step = min(8.0, max(-8.0, step))
        if abs(step) <= 4e-16 * (1.0 + abs(b)):
            return b + step
        nb = b + step
        if not (lo < nb < hi):  # both ends are finite here: the step crossed a bound
            nb = 0.5 * (lo + hi)
            if nb == lo or nb == hi:  # the bracket is as small as it can be
                return nb
        b = nb
    return b


@njit(cache=True, nogil=True)
def query_shift(y, raw, weight, s, e):
    """The root ``b`` of ``F(b) = sum_i w_i (σ(a_i + b) - t_i)`` over rows ``s:e``.

    ``F`` increases strictly (where some ``w_i > 0``) from ``-sum w t`` to
    ``sum w (1 - t)``; a root exists iff both are positive, else returns
    ``-inf`` or ``+inf``. Safeguarded Newton from ``b = 0``: every evaluation
    narrows a bracket ``(lo, hi)`` around the root, a step is limited to 8
    (where ``F`` is flat, far from the root) and replaced by bisection when it
    leaves the bracket; it stops when the step is below ``4e-16 (1 + |b|)``.
    """
    m, ex = _query_exps(raw, s, e)
    return _shift(y, raw, weight, s, e, m, ex)


@njit(cache=True, nogil=True)
def _qce_query(y, raw, weight, g, alpha, s, e, grad, hess):
    """QueryCrossEntropy derivatives of one query (rows ``s:e``, group weight ``g``).

    With ``σ_i = σ(a_i)``, ``p_i = σ(a_i + b)``, ``v_i = p_i (1 - p_i)`` and
    ``S = sum_j w_j v_j``:

    * gradient (envelope theorem: ``dL/db = α F(b) = 0`` at the root)::

          grad_i = w_i [(1-α)(σ_i - t_i) + α (p_i - t_i)]

    * ``db/da_i`` by implicit differentiation of ``F(b(a), a) = 0``:
      ``dF/da_i = w_i v_i``, ``dF/db = S``, so ``db/da_i = -w_i v_i / S``;
      hence ``d p_i / d a_i = v_i (1 + db/da_i)`` and::

          hess_i = w_i [(1-α) σ_i (1 - σ_i) + α v_i (1 - w_i v_i / S)]
    """
    single_class = True
    for i in range(s + 1, e):
        if abs(y[i] - y[s]) > 1e-20:  # the metric's test for "all labels equal"
            single_class = False
            break
    m, ex = _query_exps(raw, s, e)
    b = 0.0
    group_term = not single_class
    if group_term:
        b = _shift(y, raw, weight, s, e, m, ex)
        group_term = math.isfinite(b)
    scale0 = math.exp(m)
    scale = math.exp(b + m)
    ssum = 0.0
    if group_term:
        for i in range(s, e):
            p = _sigmoid_at(ex[i - s], scale, raw[i] + b)
            ssum += weight[i] * p * (1.0 - p)
    for i in range(s, e):
        w = weight[i]
        sg = _sigmoid_at(ex[i - s], scale0, raw[i])
        gr = (1.0 - alpha) * (sg - y[i])
        hs = (1.0 - alpha) * sg * (1.0 - sg)
        if group_term:
            p = _sigmoid_at(ex[i - s], scale, raw[i] + b)
            v = p * (1.0 - p)
            gr += alpha * (p - y[i])
            # 1 - w v / S = (sum_{j != i} w_j v_j) / S >= 0; clamp the rounding of S - w v
            hs += alpha * v * (max(ssum - w * v, 0.0) / ssum if ssum > 0.0 else 1.0)
        grad[i] = g * w * gr
        hess[i] = g * w * hs


@njit(cache=True, parallel=True)
def query_cross_entropy_grad_hess(y, raw, weight, group_weight, group_ptr, alpha, grad, hess):
    """QueryCrossEntropy gradient and exact diagonal hessian of every row (see :func:`_qce_query`)."""
    nq = group_ptr.shape[0] - 1
    for q in prange(nq):
        _qce_query(y, raw, weight, group_weight[q], alpha, group_ptr[q], group_ptr[q + 1], grad, hess)


# --- objectives -------------------------------------------------------------------------------

class _BoundQueryLoss(BoundObjective):
    def __init__(self, kernel, data: TrainingData, weight, group_weight, extra):
        self.kernel = kernel
        self.y = data.y
        self.group_ptr = data.group_ptr
        self.weight = weight
        self.group_weight = group_weight
        self.extra = extra
        self._grad = np.empty(data.n_rows)
        self._hess = np.empty(data.n_rows)

    def __call__(self, raw):
        self.kernel(self.y, raw, self.weight, self.group_weight, self.group_ptr, *self.extra,
                    self._grad, self._hess)
        return self._grad, self._hess


class _QueryLoss(Objective):
    _kernel = None

    @property
    def eval_spec(self) -> str:
        return self.spec

    def _extra(self) -> tuple:
        return ()

    def bind(self, data: TrainingData, random_state=None) -> BoundObjective:
        self.check_labels(data.y)
        if self.params.get("use_weights", True):
            w, gw = data.weight, data.group_weight
        else:
            w, gw = np.ones(data.n_rows), np.ones(data.n_queries)
        return _BoundQueryLoss(type(self)._kernel, data, w, gw, self._extra())


class QueryRMSE(_QueryLoss):
    """``1/2 sum_i w_i (t_i - a_i - mu_q)^2`` per query (``mu_q`` the weighted mean residual).

    Examples
    --------
    >>> obj = QueryRMSE("QueryRMSE", {"use_weights": True})
    >>> grad, hess = obj.gradient_hessian([1.0, 0.0], [0.0, 0.0], [0, 2])
    >>> grad.tolist(), hess.tolist()      # mu = 1/2; hess = 1 - 1/2
    ([-0.5, 0.5], [0.5, 0.5])
    """

    name = "QueryRMSE"
    _kernel = query_rmse_grad_hess


class QuerySoftMax(_QueryLoss):
    """``-sum_i w_i t_i log softmax_i(β a + log w)`` per query; labels >= 0.

    Examples
    --------
    >>> obj = QuerySoftMax("QuerySoftMax", {"use_weights": True, "beta": 1.0})
    >>> grad, hess = obj.gradient_hessian([1.0, 0.0], [0.0, 0.0], [0, 2])
    >>> grad.tolist(), hess.tolist()      # T = 1, p = 1/2
    ([-0.5, 0.5], [0.25, 0.25])
    """

    name = "QuerySoftMax"
    _kernel = query_softmax_grad_hess
    # The softmax spreads a query's hessian (its label sum at most) over all of its documents, so on long
    # lists the mean per row is small while no leaf's hessian is concentrated, unlike YetiRank's few pairs
    # that the mean's bound was made for. On the np2003 shape the bound (1.4-1.6) lost NDCG@10, MAP and MAUC
    # 0.014, 0.013 and 0.012 to 10 (ten draws, MAUC p 1e-4; BENCHMARKS.md, "Stop 41"); elsewhere it gives 10.
    hessian_scales_penalty = False

    def _extra(self):
        return float(self.params.get("beta", 1.0)), float(self.params.get("lambda", 0.0))

    def check_labels(self, y):
        check_softmax_labels(y)


class QueryCrossEntropy(_QueryLoss):
    """``(1-α) LogLoss + α LogLoss`` after the query's best logit shift; labels in [0, 1].

    Examples
    --------
    >>> obj = QueryCrossEntropy("QueryCrossEntropy", {"use_weights": True, "alpha": 0.95})
    >>> grad, hess = obj.gradient_hessian([1.0, 0.0], [0.0, 0.0], [0, 2])
    >>> [round(float(v), 12) for v in grad], [round(float(v), 12) for v in hess]  # b = 0: hess = 1/4 - α/8
    ([-0.5, 0.5], [0.13125, 0.13125])
    """

    name = "QueryCrossEntropy"
    _kernel = query_cross_entropy_grad_hess

    def _extra(self):
        return (float(self.params.get("alpha", 0.95)),)

    def check_labels(self, y):
        bad = (y < 0) | (y > 1)
        if np.any(bad):
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"QueryCrossEntropy needs labels in [0, 1]; row {k} has label {y[k]:g}")


DEFINITIONS = (
    ObjectiveDef("QueryRMSE", (USE_WEIGHTS_TRUE,), QueryRMSE,
                 "1/2 sum w (t - a - mu_q)^2, mu_q the query's weighted mean residual"),
    ObjectiveDef("QuerySoftMax", (USE_WEIGHTS_TRUE, QUERY_SOFTMAX_BETA, QUERY_SOFTMAX_LAMBDA), QuerySoftMax,
                 "target-weighted cross-entropy of the per-query softmax of beta * a"),
    ObjectiveDef("QueryCrossEntropy", (USE_WEIGHTS_TRUE, QUERY_CROSS_ENTROPY_ALPHA), QueryCrossEntropy,
                 "(1 - alpha) LogLoss + alpha LogLoss after each query's best logit shift"),
)
