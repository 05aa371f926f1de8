"""StochasticRank: gradient of a Gaussian-smoothed ranking metric (Ustimenko & Prokhorenkova, 2020).

For a query with scores ``a`` and labels ``y`` the smoothed metric is::

    M_sigma(a) = E_z[ M(a - sigma * mu * y + sigma * z) ],   z ~ N(0, I)

with ``M`` the catalogue metric of the same spec (``DCG``, ``NDCG`` or
``PFound`` with their ``top``, ``type``, ``denominator`` / ``decay``; ``ERR``
of probability labels; ``MRR`` with relevant meaning label > 0, i.e.
``MRR:border=0``; each with ``top``), and the loss is ``-M_sigma``.
``mu >= 0`` is CatBoost's tie penalty: the scores are shifted *down* by
``sigma * mu * y`` before the noise, so that equal scores are valued as if
the more relevant document were ranked lower (the pessimistic tie order of
the catalogue metrics); ``mu = 0`` smooths ``M`` itself.

``metric=FilteredDCG`` (CatBoost's source has it; its documentation does
not list it) smooths the DCG of the documents *ranked by score* whose score
is ``>= 0``: the kept documents take positions 1, 2, ... in score order
(``denominator`` defaults to ``Position``, as the metric's does; ``top``
truncates). The catalogue's ``FilteredDCG`` keeps the input order, so the two
agree when the documents come in score order; it is still the metric
reported, as CatBoost reports it. That metric is not shift invariant and
scores are not centred. CatBoost adds a virtual document of score 0 (no
noise) and gain 0 marking the cut, so every real document's score is its
own Gaussian: ``dM_sigma/da_i = sum_r phi_sigma(s'_r - a~_i) (M_r - M_{r+1})``
over the others and the cut, ``i`` counted at ``r`` when the document below it
scores ``>= 0``. A one-document query has a gradient. No query mean is
subtracted; with ``lambda > 0`` the projection below counts the cut as a
document of score 0 (its own estimate included), as CatBoost does. The
default ``lambda`` is 0 for this metric (CatBoost's).

Estimator
---------
The paper's coordinate-conditional Monte-Carlo estimator, as CatBoost
computes it. For a noise sample ``z`` and a document ``i``, the ordering
depends on ``s_i - s_j`` only, and ``z_i - mean(z_{-i})`` is independent of
the deviations ``z_j - mean(z_{-i})``; conditionally on those, ``i``'s score
relative to the others is Gaussian with mean ``a~_i + sigma * mean(z_{-i})``
and standard deviation ``sigma' = sigma * sqrt(n / (n - 1))``. Integrating
that one coordinate exactly::

    dM_sigma/da_i  ~  sum_r  phi_sigma'(s'_r - mean_i) * (M_r - M_{r+1})

where ``s'_0 > s'_1 > ...`` are the noisy scores of the other documents and
``M_r`` is the metric with ``i`` inserted at position ``r`` among them
(``M_r - M_{r+1}`` is the metric change of swapping ``i`` with the ``r``-th
other document, O(1) for every metric: for ERR it is
``look_r (R_i - R_j) (1/(r+1) - 1/(r+2))``, ``look_r`` the product of
``1 - R`` over the documents above, and ``1/(r+2)`` dropped at ``r + 1 = top``;
MRR is ERR of the indicators ``label > 0``). It is an unbiased estimate of
the gradient of ``M_sigma``, averaged over ``num_estimations`` samples.

CatBoost then post-processes the estimate per query ("SFA"):

* the query mean of the estimate is subtracted (unbiased: ``M_sigma`` is
  invariant to a common shift of the scores, its gradient sums to 0);
* with ``lambda > 0`` (default 1) and more than two documents, the component
  along the centred scores ``c = a - mean(a)`` is reduced:
  ``g -= lambda * (g . c) / (|c| + nu)^2 * c``. This is the paper's
  scale-free step, *not* part of the gradient of ``M_sigma``;
  ``lambda = 0`` gives the plain (unbiased) estimate.

The loss gradient is ``grad_i = -group_weight[q] * weight_i * estimate_i``
and ``hess_i = group_weight[q] * weight_i``: CatBoost values the leaves of
this objective by gradient steps (a leaf is the mean derivative); the engine
needs positive hessians, and this Newton leaf is that mean. CatBoost ignores
object and group weights; with none given the result equals its derivative
(negated, since CatBoost returns the ascent direction).

Deviations from CatBoost's code
-------------------------------
* CatBoost centres document ``i``'s conditional Gaussian at
  ``a~_i + (sum(z) - sigma z_i) / (n - 1)``, mixing scaled and unscaled noise;
  that is the conditional mean only for ``sigma = 1``. Here the mean is
  ``a~_i + sigma * (sum(z) - z_i) / (n - 1)`` for every ``sigma``.
* NDCG of a query whose ideal DCG is not positive is the constant 1 in the
  catalogue, so its gradient here is 0 (CatBoost falls back to DCG's).
* PFound and ERR need labels in [0, 1], as the catalogue metrics do.
* MRR honours ``top`` (the reciprocal rank is 0 beyond it, as ``MRR:top=k``);
  CatBoost's MRR ignores it.

Randomness: :meth:`StochasticRank.bind` creates a ``numpy`` Generator from
``random_state``; each call draws its ``num_estimations x n_rows`` standard
normals up front in one array, so the estimate depends on the seed and the
call number, never on the thread count.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..metrics._base import (REQUIRED, Param, check_finite_labels_in, parse_choice, parse_float, parse_nonnegative,
                             parse_positive, parse_top)
from ..metrics.registry import get_metric
from .._seeds import as_generator
from ._base import BoundObjective, Objective, ObjectiveDef, TrainingData, metric_name_parser
from .stochastic_filter import check_num_estimations, parse_num_estimations

__all__ = ["DEFINITIONS", "STOCHASTIC_RANK_METRICS", "BoundStochasticRank", "StochasticRank"]

#: Metrics StochasticRank optimises.
STOCHASTIC_RANK_METRICS = ("DCG", "NDCG", "PFound", "ERR", "MRR", "FilteredDCG")

_DCG, _NDCG, _PFOUND, _ERR, _MRR, _FILTERED_DCG = 0, 1, 2, 3, 4, 5
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_ALL = np.iinfo(np.int64).max


@njit(cache=True, parallel=True)
def _srank_grad(raw, y, ptr, normals, code, top, exp_gain, log_position, decay, sigma, mu, lam, nu,
                row_factor, grad, hess):
    nq = ptr.shape[0] - 1
    n_est = normals.shape[0]
    filtered = code == 5
    for q in prange(nq):
        s = ptr[q]
        n = ptr[q + 1] - s
        for i in range(s, s + n):
            grad[i] = 0.0
            hess[i] = row_factor[i]
        # FilteredDCG: document n is the cut, a virtual document of score 0 (no noise) and gain 0
        m = n + 1 if filtered else n
        if m < 2:
            continue
        t = min(top, m)
        # Per-document value (gain or PFound relevance) and position weights w[0..m] (w[r] = 0 for r >= t).
        val = np.zeros(m)
        w = np.zeros(m + 1)
        if code == 2 or code == 3:  # PFound and ERR: labels are probabilities
            for i in range(n):
                val[i] = y[s + i]
        elif code == 4:  # MRR is ERR of the relevance indicators: 1/(r + 1) at the first one, else 0
            for i in range(n):
                val[i] = 1.0 if y[s + i] > 0 else 0.0
        else:
            for i in range(n):
                val[i] = 2.0 ** y[s + i] - 1.0 if exp_gain else y[s + i]
            for r in range(t):
                w[r] = 1.0 / math.log2(r + 2.0) if log_position else 1.0 / (r + 1.0)
            if code == 1:
                best = np.sort(val)[::-1]
                ideal = 0.0
                for r in range(t):
                    ideal += best[r] * w[r]
                if not ideal > 0.0:
                    continue  # NDCG is the constant 1 (catalogue convention): zero gradient
                for r in range(t):
                    w[r] /= ideal
        shifted = np.zeros(m)
        for i in range(n):
            shifted[i] = raw[s + i] - sigma * mu * y[s + i]
        der = np.zeros(m)
        noisy = np.zeros(m)
        # Without a cut only score differences count: i's score relative to the others' mean is the Gaussian.
        # With it every score is its own Gaussian.
        cond_sd = sigma if filtered else sigma * math.sqrt(n / (n - 1.0))
        for k in range(n_est):
            zsum = 0.0
            for i in range(n):
                noisy[i] = shifted[i] + sigma * normals[k, s + i]
                zsum += normals[k, s + i]
            order = np.argsort(-noisy)
            for p in range(m):
                i = order[p]
                mean_i = shifted[i] if filtered else shifted[i] + sigma * (zsum - normals[k, s + i]) / (n - 1.0)
                look = 1.0
                acc = 0.0
                for r in range(min(m - 1, t)):
                    j = order[r] if r < p else order[r + 1]
                    if filtered:  # i just above j counts if j's score is >= 0; just below j, if the next one's is
                        kept_j = 1.0 if noisy[j] >= 0.0 else 0.0
                        kept_below = 0.0
                        if r + 1 < m - 1:
                            kept_below = 1.0 if noisy[order[r + 1] if r + 1 < p else order[r + 2]] >= 0.0 else 0.0
                        dm = val[i] * (w[r] * kept_j - w[r + 1] * kept_below) + kept_j * val[j] * (w[r + 1] - w[r])
                    elif code == 2:
                        c = 1.0 - (decay if r + 1 < t else 0.0)
                        dm = look * (val[i] - val[j]) * c
                        look *= (1.0 - val[j]) * decay
                    elif code >= 3:  # i at r, then at r + 1 (uncounted beyond top); later terms are unchanged
                        c = 1.0 / (r + 1.0) - (1.0 / (r + 2.0) if r + 1 < t else 0.0)
                        dm = look * (val[i] - val[j]) * c
                        look *= 1.0 - val[j]
                    else:
                        dm = (val[i] - val[j]) * (w[r] - w[r + 1])
                    if dm != 0.0:
                        u = (noisy[j] - mean_i) / cond_sd
                        acc += dm * math.exp(-0.5 * u * u) * _INV_SQRT_2PI / cond_sd
                der[i] += acc / n_est
        if not filtered:  # the metric is shift invariant: its gradient sums to 0
            avg = 0.0
            for i in range(n):
                avg += der[i]
            avg /= n
            for i in range(n):
                der[i] -= avg
        if lam != 0.0 and m > 2:  # CatBoost's projection counts the cut (score 0) as a document
            ma = 0.0
            for i in range(n):
                ma += raw[s + i]
            ma /= m
            norm = 0.0
            dot = 0.0
            for i in range(m):
                c = (raw[s + i] if i < n else 0.0) - ma
                norm += c * c
                dot += der[i] * c
            kfac = lam * dot / (math.sqrt(norm) + nu) ** 2
            for i in range(n):
                der[i] -= kfac * (raw[s + i] - ma)
        for i in range(n):
            grad[s + i] = -row_factor[s + i] * der[i]


class BoundStochasticRank(BoundObjective):
    """StochasticRank bound to one training set; each call draws new noise."""

    def __init__(self, obj: "StochasticRank", data: TrainingData, rng: np.random.Generator):
        p = obj.params
        self.y = data.y
        self.group_ptr = data.group_ptr
        self.rng = rng
        self.code = {"DCG": _DCG, "NDCG": _NDCG, "PFound": _PFOUND, "ERR": _ERR, "MRR": _MRR,
                     "FilteredDCG": _FILTERED_DCG}[p["metric"]]
        self.top = _ALL if p["top"] == -1 else int(p["top"])
        self.exp_gain = p.get("type") == "Exp"
        self.log_position = p.get("denominator", "LogPosition") == "LogPosition"
        self.decay = float(p.get("decay", 0.0))
        self.sigma = float(p["sigma"])
        self.mu = float(p["mu"])
        self.lam = float(p["lambda"])
        self.nu = float(p["nu"])
        self.row_factor = np.ascontiguousarray(data.weight * np.repeat(data.group_weight, np.diff(data.group_ptr)))
        self._normals = np.empty((int(p["num_estimations"]), data.n_rows))
        self._grad = np.empty(data.n_rows)
        self._hess = np.empty(data.n_rows)

    def __call__(self, raw):
        self.rng.standard_normal(out=self._normals)
        _srank_grad(raw, self.y, self.group_ptr, self._normals, self.code, self.top, self.exp_gain,
                    self.log_position, self.decay, self.sigma, self.mu, self.lam, self.nu, self.row_factor,
                    self._grad, self._hess)
        return self._grad, self._hess


class StochasticRank(Objective):
    """Minus a Gaussian-smoothed DCG, NDCG, PFound, ERR, MRR or FilteredDCG, by the conditional Monte-Carlo gradient.

    Parameters (spec)
    -----------------
    metric : {"DCG", "NDCG", "PFound", "ERR", "MRR", "FilteredDCG"}
        Obligatory. ERR and PFound read labels as probabilities in [0, 1]; MRR counts label > 0 as relevant;
        FilteredDCG counts the documents scored >= 0, in score order (see the module notes).
    top : int, default -1
        Cutoff of the metric (-1: every document); every metric.
    type : {"Base", "Exp"}, default "Base"; denominator : {"LogPosition", "Position"}, default "LogPosition"
        DCG, NDCG and FilteredDCG only (FilteredDCG's denominator defaults to "Position").
    decay : float in [0, 1], default 0.85
        PFound only.
    num_estimations : int >= 1, default 1
        Noise samples per query and call.
    mu : float >= 0, default 0
        Tie penalty (scores shifted by ``-sigma * mu * label``).
    sigma : float > 0, default 1
        Standard deviation of the noise.
    lambda : float >= 0, default 1 (0 for FilteredDCG)
        Strength of the scale-free projection (0: the plain gradient estimate).
    nu : float > 0, default 0.01
        Added to the norm of the centred scores in that projection.

    Examples
    --------
    >>> import numpy as np
    >>> from metricrank.objectives.registry import get_objective
    >>> obj = get_objective("StochasticRank:metric=NDCG;top=10")
    >>> obj.eval_spec
    'NDCG:top=10'
    >>> grad, hess = obj.gradient_hessian([2.0, 0.0, 1.0], np.zeros(3), [0, 3], random_state=0)
    >>> bool(abs(grad.sum()) < 1e-12), hess.tolist()
    (True, [1.0, 1.0, 1.0])
    """

    name = "StochasticRank"
    stochastic = True

    @property
    def eval_spec(self) -> str:
        p = self.params
        parts = []
        if p["top"] != -1:
            parts.append(f"top={p['top']}")
        if p["metric"] == "MRR":
            parts.append("border=0")  # relevant: label > 0, as in the loss (the catalogue's MRR says 0.5)
        elif p["metric"] == "PFound":
            if p["decay"] != 0.85:
                parts.append(f"decay={p['decay']:g}")
        elif p["metric"] == "FilteredDCG":  # the catalogue metric has no top; its denominator defaults to Position
            parts = [f"type={p['type']}"] if p["type"] != "Base" else []
            if p["denominator"] != "Position":
                parts.append(f"denominator={p['denominator']}")
        elif p["metric"] != "ERR":
            if p["type"] != "Base":
                parts.append(f"type={p['type']}")
            if p["denominator"] != "LogPosition":
                parts.append(f"denominator={p['denominator']}")
        return p["metric"] + (":" + ";".join(parts) if parts else "")

    def check_labels(self, y: np.ndarray) -> None:
        metric = self.params["metric"]
        if metric in ("PFound", "ERR"):
            check_finite_labels_in(0.0, 1.0, f"StochasticRank:metric={metric}", "labels (probabilities)")(
                y, self.params)
        elif metric == "FilteredDCG":  # the metric's own check: type=Exp's gain must stay finite
            judged = get_metric(self.eval_spec)
            judged.definition.check_labels(y, judged.params)
        elif metric == "NDCG" and np.any(y < 0):  # the metric it optimises refuses them (DCG takes any label)
            k = int(np.argmax(y < 0))
            raise ValueError(f"StochasticRank:metric=NDCG needs labels >= 0; row {k} has label {y[k]:g}")

    def bind(self, data: TrainingData, random_state=None) -> BoundStochasticRank:
        self.check_labels(data.y)
        return BoundStochasticRank(self, data, as_generator(random_state))


_DCG_ONLY = ("type", "denominator")
_PFOUND_ONLY = ("decay",)
_CHOICES = {"type": ("Base", "Exp"), "denominator": ("LogPosition", "Position")}


def _make(spec: str, params: dict) -> StochasticRank:
    metric = params["metric"]
    if metric not in STOCHASTIC_RANK_METRICS:
        raise ValueError(f"StochasticRank optimises {', '.join(STOCHASTIC_RANK_METRICS)}; got {metric!r}")
    params = dict(params)
    wrong = {"PFound": _DCG_ONLY, "DCG": _PFOUND_ONLY, "NDCG": _PFOUND_ONLY, "FilteredDCG": _PFOUND_ONLY}.get(
        metric, _DCG_ONLY + _PFOUND_ONLY)
    for key in wrong:
        if params.get(key) is not None:
            owners = "PFound" if key in _PFOUND_ONLY else "DCG, NDCG and FilteredDCG"
            raise ValueError(f"StochasticRank:metric={metric} has no parameter {key!r} "
                             f"(it belongs to metric={owners})")
        params.pop(key, None)
    if metric == "PFound":
        params["decay"] = 0.85 if params.get("decay") is None else float(params["decay"])
        if not 0.0 <= params["decay"] <= 1.0:
            raise ValueError(f"StochasticRank: decay must be in [0, 1], got {params['decay']!r}")
    elif metric in ("DCG", "NDCG", "FilteredDCG"):
        denominator = "Position" if metric == "FilteredDCG" else "LogPosition"  # each metric's own default
        for key, default in (("type", "Base"), ("denominator", denominator)):
            value = default if params.get(key) is None else params[key]
            if value not in _CHOICES[key]:
                raise ValueError(f"StochasticRank: {key}={value} is not allowed; choose one of "
                                 f"{', '.join(_CHOICES[key])}")
            params[key] = value
    if params.get("lambda") is None:  # CatBoost's defaults: the plain estimate for FilteredDCG
        params["lambda"] = 0.0 if metric == "FilteredDCG" else 1.0
    top = params["top"]
    if int(top) != top or (top < 1 and top != -1):
        raise ValueError(f"StochasticRank: top must be a positive integer or -1, got {top!r}")
    check_num_estimations("StochasticRank", params["num_estimations"])
    for key, ok, what in (("sigma", lambda v: v > 0, "> 0"), ("mu", lambda v: v >= 0, ">= 0"),
                          ("lambda", lambda v: v >= 0, ">= 0"), ("nu", lambda v: v > 0, "> 0")):
        if not (np.isfinite(params[key]) and ok(params[key])):
            raise ValueError(f"StochasticRank: {key} must be a finite number {what}, got {params[key]!r}")
    obj = StochasticRank(spec, params)
    get_metric(obj.eval_spec)  # the metric it optimises exists in the catalogue
    return obj


def _parse_decay(text: str) -> float:
    value = parse_float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"decay must be in [0, 1], got {text!r}")
    return value


DEFINITIONS = (
    ObjectiveDef(
        "StochasticRank",
        (Param("metric", REQUIRED, metric_name_parser("StochasticRank", STOCHASTIC_RANK_METRICS),
               STOCHASTIC_RANK_METRICS,
               "metric to optimise: DCG, NDCG, PFound, ERR, MRR or FilteredDCG"),
         Param("top", -1, parse_top, None, "cutoff of the metric; -1 counts all documents"),
         Param("type", None, parse_choice, None,
               "DCG/NDCG/FilteredDCG gain: Base = label, Exp = 2^label - 1 (default Base)",
               "Base (DCG, NDCG, FilteredDCG)"),
         Param("denominator", None, parse_choice, None,
               "DCG/NDCG/FilteredDCG discount: LogPosition = 1/log2(i+1), Position = 1/i "
               "(default LogPosition; Position for FilteredDCG)",
               "LogPosition (DCG, NDCG); Position (FilteredDCG)"),
         Param("decay", None, _parse_decay, None, "PFound: probability of continuing (default 0.85)", "0.85 (PFound)"),
         Param("num_estimations", 1, parse_num_estimations, None, "noise samples per query and iteration"),
         Param("mu", 0.0, parse_nonnegative, None, "tie penalty: scores shifted by -sigma mu label"),
         Param("sigma", 1.0, parse_positive, None, "standard deviation of the Gaussian noise"),
         Param("lambda", None, parse_nonnegative, None, "scale-free projection strength; 0 = plain gradient",
               "1 (0 for FilteredDCG)"),
         Param("nu", 0.01, parse_positive, None, "added to the score norm in the scale-free projection")),
        _make,
        "-E[metric(a + sigma z)] for DCG, NDCG, PFound, ERR, MRR or FilteredDCG; conditional Monte-Carlo "
        "gradient (CatBoost)",
    ),
)
