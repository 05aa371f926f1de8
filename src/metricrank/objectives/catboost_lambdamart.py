"""CatBoost's ``LambdaMart`` loss: its λ-gradients for DCG, NDCG, MRR, ERR and MAP, as CatBoost computes them.

This is the objective a CatBoost user names ``LambdaMart:metric=NDCG``; metricrank's own exact λ-gradients are
``lambda:<metric>`` (and :class:`metricrank.LambdaMART`). The two differ where CatBoost's pair weights are not
the metric's exact swap delta, so the name keeps CatBoost's meaning:

Per query, documents are ordered by score (descending, ties in input order); ``r`` is a rank (0-based). For
every counted pair, ``hi`` the document with the higher label, ``d = s_hi - s_lo`` and
``ρ = 1 / (1 + e^{σ d})``, the pair weight ``δ`` below gives ``grad_hi -= σ δ ρ``, ``grad_lo += σ δ ρ`` and
``σ² δ ρ (1 - ρ)`` added to both hessians.

NDCG and DCG (both divided by the ideal DCG at ``top``)
    pairs with different labels, one of them within ``top``;
    ``δ = (G(t_hi) - G(t_lo)) |1/D(r_a) - 1/D(r_b)| / IDCG``, ``G`` the ``type`` gain, ``D`` the ``denominator``.
MRR (relevant: label > 0)
    relevant against non-relevant pairs that the first relevant document, or a relevant document against one
    ranked above the first, forms; ``δ`` the change of the reciprocal rank (the second relevant document
    bounds the first's fall).
ERR (labels are probabilities in [0, 1])
    every pair with different labels; ``δ`` from the prefix stop probability and the reciprocal ranks between
    the two, where documents whose label equals the upper document's are skipped in the running products
    (as CatBoost's loop does).
MAP (relevant: label > 0)
    relevant against non-relevant pairs; ``δ`` the upper document's reciprocal rank plus those of the
    relevant documents between the two that follow a non-relevant upper document (CatBoost's running sum).

With ``norm`` (the default), ``δ`` is divided by ``0.01 + |d|`` unless every score of the query is equal, and
the query's gradients and hessians are then scaled by ``log2(1 + S) / S``, ``S = Σ 2 σ δ ρ``. Group weights
scale whole queries (CatBoost ignores them); row weights are not read, as in CatBoost.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..metrics._base import Param, parse_bool, parse_choice, parse_positive, parse_top
from ._base import BoundObjective, Objective, ObjectiveDef, TrainingData, fill_scoped, metric_name_parser

__all__ = ["DEFINITIONS", "LAMBDAMART_METRICS", "CatBoostLambdaMart", "catboost_lambdamart_grad_hess"]

LAMBDAMART_METRICS = ("DCG", "NDCG", "MRR", "ERR", "MAP")
_DCG_PARAMS = {"top": -1, "type": "Base", "denominator": "LogPosition"}  # CatBoost's defaults
_CHOICES = {"type": ("Base", "Exp"), "denominator": ("LogPosition", "Position")}
_NDCG, _MRR, _ERR, _MAP = 0, 1, 2, 3
_CODES = {"DCG": _NDCG, "NDCG": _NDCG, "MRR": _MRR, "ERR": _ERR, "MAP": _MAP}


@njit(cache=True, inline="always")
def _add_pair(raw, hi, lo, delta, sigma, norm, same, grad, hess):
    """Add one pair's derivatives; return ``2 σ δ ρ``, its share of the query's normaliser."""
    diff = raw[hi] - raw[lo]
    if norm and not same:
        delta /= 0.01 + abs(diff)
    rho = 1.0 / (1.0 + math.exp(sigma * diff))
    g = sigma * delta * rho
    h = sigma * sigma * delta * rho * (1.0 - rho)
    grad[hi] -= g
    grad[lo] += g
    hess[hi] += h
    hess[lo] += h
    return 2.0 * g


@njit(cache=True)
def _ndcg_pairs(raw, t, o, top, exp_gain, log_position, sigma, norm, same, grad, hess):
    n = o.shape[0]
    k = n if top == -1 or top > n else top
    gain = np.empty(n)  # by rank
    inv_discount = np.empty(n)
    for r in range(n):
        gain[r] = 2.0 ** t[o[r]] - 1.0 if exp_gain else t[o[r]]
        inv_discount[r] = 1.0 / (math.log2(2.0 + r) if log_position else 1.0 + r)
    ideal_gain = np.sort(gain)[::-1]
    ideal = 0.0
    for r in range(k):
        ideal += ideal_gain[r] * inv_discount[r]
    total = 0.0
    for a in range(n):
        for b in range(n if a < k else k):
            if t[o[a]] <= t[o[b]]:
                continue
            delta = (gain[a] - gain[b]) * abs(inv_discount[a] - inv_discount[b]) / ideal
            total += _add_pair(raw, o[a], o[b], delta, sigma, norm, same, grad, hess)
    return total


@njit(cache=True)
def _mrr_pairs(raw, t, o, sigma, norm, same, grad, hess):
    n = o.shape[0]
    first = -1
    second = -1
    for r in range(n):
        if t[o[r]] > 0:
            if first < 0:
                first = r
            else:
                second = r
                break
    if first < 0:
        return 0.0
    total = 0.0
    for a in range(n):
        if not t[o[a]] > 0:
            continue
        for b in range(n if a == first else first):
            if t[o[b]] > 0:
                continue
            if b < a:
                delta = 1.0 / (b + 1) - 1.0 / (a + 1)
            elif second < 0 or b < second:
                delta = 1.0 / (a + 1) - 1.0 / (b + 1)
            else:
                delta = 1.0 / (a + 1) - 1.0 / (second + 1)
            total += _add_pair(raw, o[a], o[b], delta, sigma, norm, same, grad, hess)
    return total


@njit(cache=True)
def _err_pairs(raw, t, o, sigma, norm, same, grad, hess):
    n = o.shape[0]
    total = 0.0
    stop_before = 1.0  # probability that the user reaches rank a
    for a in range(n):
        ta = t[o[a]]
        reach = 1.0  # probability of passing the counted documents between a and b
        between = 0.0  # their reciprocal-rank mass
        for b in range(a + 1, n):
            tb = t[o[b]]
            if ta == tb:
                continue
            delta = stop_before * abs((ta - tb) / (a + 1) + between * (tb - ta) + reach * (tb - ta) / (b + 1))
            between += reach * tb / (b + 1)
            reach *= 1.0 - tb
            if ta > tb:
                total += _add_pair(raw, o[a], o[b], delta, sigma, norm, same, grad, hess)
            else:
                total += _add_pair(raw, o[b], o[a], delta, sigma, norm, same, grad, hess)
        stop_before *= 1.0 - ta
    return total


@njit(cache=True)
def _map_pairs(raw, t, o, sigma, norm, same, grad, hess):
    n = o.shape[0]
    total = 0.0
    for a in range(n):
        ta = t[o[a]]
        a_relevant = ta > 0
        mass = 1.0 / (a + 1)
        for b in range(a + 1, n):
            tb = t[o[b]]
            b_relevant = tb > 0
            if a_relevant == b_relevant:
                continue
            if ta > tb:
                total += _add_pair(raw, o[a], o[b], mass, sigma, norm, same, grad, hess)
            else:
                total += _add_pair(raw, o[b], o[a], mass, sigma, norm, same, grad, hess)
            if b_relevant:
                mass += 1.0 / (b + 1)
    return total


@njit(cache=True, parallel=True)
def catboost_lambdamart_grad_hess(y, raw, group_ptr, group_weight, code, top, exp_gain, log_position, sigma, norm,
                                  grad, hess):
    """CatBoost's LambdaMart derivatives of every query (see the module docstring), written to grad and hess."""
    for q in prange(group_ptr.shape[0] - 1):
        s = group_ptr[q]
        e = group_ptr[q + 1]
        for i in range(s, e):
            grad[i] = 0.0
            hess[i] = 0.0
        if e - s < 2:
            continue
        r = raw[s:e]
        t = y[s:e]
        g = grad[s:e]
        h = hess[s:e]
        o = np.argsort(-r, kind="mergesort")  # stable: ties keep the input order
        same = r[o[0]] == r[o[e - s - 1]]
        if code == _NDCG:
            total = _ndcg_pairs(r, t, o, top, exp_gain, log_position, sigma, norm, same, g, h)
        elif code == _MRR:
            total = _mrr_pairs(r, t, o, sigma, norm, same, g, h)
        elif code == _ERR:
            total = _err_pairs(r, t, o, sigma, norm, same, g, h)
        else:
            total = _map_pairs(r, t, o, sigma, norm, same, g, h)
        scale = group_weight[q]
        if norm and total > 0:
            scale *= math.log2(1.0 + total) / total
        if scale != 1.0:
            for i in range(e - s):
                g[i] *= scale
                h[i] *= scale


class _BoundLambdaMart(BoundObjective):
    def __init__(self, objective: "CatBoostLambdaMart", data: TrainingData):
        p = objective.params
        self.y, self.group_ptr, self.group_weight = data.y, data.group_ptr, data.group_weight
        self.args = (_CODES[p["metric"]], int(p.get("top", -1)), p.get("type") == "Exp",
                     p.get("denominator", "LogPosition") == "LogPosition", float(p["sigma"]), bool(p["norm"]))
        self._grad = np.empty(data.n_rows)
        self._hess = np.empty(data.n_rows)

    def __call__(self, raw):
        catboost_lambdamart_grad_hess(self.y, raw, self.group_ptr, self.group_weight, *self.args,
                                      self._grad, self._hess)
        return self._grad, self._hess


class CatBoostLambdaMart(Objective):
    """CatBoost's ``LambdaMart`` loss (see the module docstring); metricrank's exact λ is ``lambda:<metric>``.

    Parameters (spec)
    -----------------
    metric : {"NDCG", "DCG", "MRR", "ERR", "MAP"}, default "NDCG"
    sigma : float > 0, default 1.0
        Scale of the score difference in the pair probability.
    norm : bool, default true
        Divide each pair's weight by ``0.01 + |score difference|`` and scale each query by
        ``log2(1 + S) / S``.
    top, type, denominator
        NDCG and DCG only, CatBoost's defaults: -1 (all documents), Base, LogPosition.

    Examples
    --------
    >>> from metricrank.objectives import get_objective
    >>> obj = get_objective("LambdaMart:metric=NDCG;norm=false")
    >>> grad, hess = obj.gradient_hessian([1.0, 0.0], [0.0, 0.0], [0, 2])
    >>> delta = 1 - 1 / np.log2(3)       # |1/D(0) - 1/D(1)| / IDCG, IDCG = 1
    >>> bool(np.allclose(grad, [-delta / 2, delta / 2]) and np.allclose(hess, delta / 4))
    True
    """

    name = "LambdaMart"
    quadratic = True
    reads_row_weights = False

    @property
    def eval_spec(self) -> str:
        metric = self.params["metric"]
        if metric in ("MRR", "MAP"):
            return f"{metric}:border=0"  # relevant means label > 0, as in the loss
        explicit = [f"{k}={self.params[k]}" for k in _DCG_PARAMS if k in self.params
                    and self.params[k] != _DCG_PARAMS[k]]
        return metric + (":" + ";".join(explicit) if explicit else "")

    def check_labels(self, y):
        metric = self.params["metric"]
        lo, hi = (0.0, 1.0) if metric == "ERR" else (0.0, np.inf) if metric in ("DCG", "NDCG") else (-np.inf, np.inf)
        bad = (y < lo) | (y > hi)
        if np.any(bad):
            k = int(np.flatnonzero(bad)[0])
            domain = "in [0, 1] (probabilities)" if metric == "ERR" else ">= 0"
            raise ValueError(f"LambdaMart:metric={metric} needs labels {domain}; row {k} has label {y[k]:g}")

    def bind(self, data: TrainingData, random_state=None) -> BoundObjective:
        self.check_labels(data.y)
        return _BoundLambdaMart(self, data)


def _make(spec: str, params: dict) -> CatBoostLambdaMart:
    metric = params["metric"]
    scoped = {key: (default, "metric=DCG and NDCG") for key, default in _DCG_PARAMS.items()}
    params = fill_scoped(f"LambdaMart:metric={metric}", params, scoped, lambda key: metric in ("DCG", "NDCG"),
                         _CHOICES)
    return CatBoostLambdaMart(spec, params)


DEFINITIONS = (
    ObjectiveDef(
        "LambdaMart",
        (Param("metric", "NDCG", metric_name_parser("LambdaMart", LAMBDAMART_METRICS), LAMBDAMART_METRICS,
               "metric whose λ-gradients are followed"),
         Param("sigma", 1.0, parse_positive, None, "scale of the score difference in the pair probability"),
         Param("norm", True, parse_bool, (True, False), "normalise pair weights and queries as CatBoost does"),
         Param("top", None, parse_top, None, "DCG/NDCG cutoff; -1 counts all documents (default -1)",
               "all (DCG, NDCG)"),
         Param("type", None, parse_choice, None, "DCG/NDCG gain: Base = label, Exp = 2^label - 1 (default Base)",
               "Base (DCG, NDCG)"),
         Param("denominator", None, parse_choice, None,
               "DCG/NDCG discount: LogPosition = 1/log2(r+2), Position = 1/(r+1) (default LogPosition)",
               "LogPosition (DCG, NDCG)")),
        _make,
        "CatBoost's LambdaMart: its λ-gradients of DCG, NDCG, MRR, ERR or MAP (not the exact swap deltas of "
        "lambda:<metric>)",
    ),
)
