"""λ-objectives: the LambdaRank/LambdaMART gradient of any metric with an exact swap delta.

A λ target is a metric spec from :mod:`metricrank.metrics` (``"NDCG:top=10;type=Exp"``,
``"MAP"``, ``"MAUC"``, ...) or ``"RankNet"`` (every pair weighs 1). The spec is
resolved once into a target code, a parameter vector and a tie policy; the
numba accumulator in :mod:`._accumulate` then does all the work.

Targets and the metric each one equals (so early stopping and the swap-delta
tests read the very same definition):

=================  =========================================================
target             metric whose swap delta is used
=================  =========================================================
NDCG, DCG          ``NDCG`` / ``DCG`` with every ``top``/``type``/``denominator``
MAP                ``MAP`` with ``top``, ``border``, ``norm``
MRR                ``MRR`` with ``top``, ``border``
ERR                ``ERR`` with ``top``, ``type`` (Probability or Graded)
PrecisionAt        ``PrecisionAt`` with ``top``, ``border``, ``norm``
ROCArea            Welleck's per-query AUC of binary relevance ``label > border``
                   (``ROCArea`` with ``border``, default 0)
QueryAUC           ``QueryAUC`` (CatBoost's mean of per-query AUCs) on binary
                   labels 0/1; ``type=Ranking`` has no O(1) delta
``AUC`` is not a target: in the metric catalogue it is CatBoost's *global*
AUC over all rows, which no per-query λ optimises; the error says so and
points to ROCArea and QueryAUC.
MAUC               ``MAUC`` with ``classes`` (per query; ``pooled=true`` is global)
RankNet            none: ``|ΔZ| = 1``
=================  =========================================================

The pair direction is always the label order (Welleck's ``S_ij``), the size is
the exact ``|ΔZ_ij|``. For MAUC this follows eq. 18/19 literally: the swap of
two relevant documents of classes ``a < b`` changes ``AUC(a)`` and ``AUC(b)``
in opposite directions, and ``|ΔMAUC|`` is the size of their weighted sum.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._arrays import float64_array, numeric_array
from .._checks import check_positive_finite, is_real
from ..metrics._ordering import TIE_POLICIES
from ..metrics._positional import err_probabilities
from ..metrics.registry import Metric, get_metric
from . import _swap_deltas as sd
from ._accumulate import lambda_gradients, n_chunks, query_constants
from ._base import BoundObjective, Objective, TrainingData

__all__ = ["FAST_MIN_SIZE", "LAMBDA_TARGETS", "LambdaObjective", "LambdaTarget", "resolve_target", "swap_delta_matrix"]

#: Names accepted as λ targets (case-insensitive; metric parameters allowed).
LAMBDA_TARGETS = ("NDCG", "DCG", "MAP", "MRR", "ERR", "PrecisionAt", "ROCArea", "QueryAUC", "MAUC", "RankNet")

_ALL = float("inf")

#: Targets whose λ are better without LightGBM's lambdarank_norm (norm="auto"); measured on MQ2008 and
#: LightGBM's ranking example, MAP -0.0071/-0.0126 -> -0.0023/-0.0027 and MAUC -0.0020 -> -0.0012 to
#: the best anchor, while NDCG, ERR and MRR were better with it (BENCHMARKS.md, "Defaults").
NORM_OFF_CODES = (sd.MAP, sd.AUC, sd.MAUC)
_MAX_TRUNCATION = np.iinfo(np.int64).max

#: Smallest query that ``exact="auto"`` sends to the O(n log n) AUC/MAUC kernel
#: (:mod:`._auc_fast`); measured crossover of the two kernels, see BENCHMARKS.md.
FAST_MIN_SIZE = 64


@dataclass(frozen=True)
class LambdaTarget:
    """A resolved λ target.

    Attributes
    ----------
    spec : str
        The canonical spec (``"RankNet"`` or the metric's spec).
    code : int
        Swap-delta family (``_swap_deltas.DCG``, ...).
    params : ndarray of float64
        Parameter vector read by the kernels.
    ties : str
        Tie policy used to rank tied scores while computing λ.
    metric : Metric or None
        The metric whose swap delta this is (``None`` for RankNet); use it to
        evaluate the very quantity being optimised.
    """

    spec: str
    code: int
    params: np.ndarray = field(repr=False)
    ties: str
    metric: Metric | None

    @property
    def eval_spec(self) -> str:
        """The metric that measures this target (RankNet, which has none: ``NDCG:top=10``)."""
        return self.metric.spec if self.metric is not None else "NDCG:top=10"

    def transform_labels(self, y: np.ndarray) -> np.ndarray:
        """Labels as the kernels read them (ERR: stopping probabilities; MAUC: dense class ids).

        MAUC's kernel keeps one table entry per class id, so the classes are
        renumbered 0, 1, 2, ... in label order (0 stays 0, so "relevant" = id > 0
        is unchanged): memory follows the number of classes, not the largest label.
        """
        if self.code == sd.ERR:
            return err_probabilities(y, self.metric.params)
        if self.code == sd.MAUC and y.size:
            classes, ids = np.unique(y, return_inverse=True)
            return (ids + (classes[0] > 0)).astype(np.float64)
        return y

    def check_labels(self, y: np.ndarray, role: str = "λ target") -> None:
        """Raise ValueError (naming the target, as ``role``) if ``y`` is outside its label domain."""
        if not np.all(np.isfinite(y)):
            raise ValueError(f"{role} {self.spec}: labels must be finite")
        # NDCG's ideal DCG bounds it only for gains >= 0 (DCG itself, as evaluate, takes any label);
        # MAUC's labels are classes
        normalised = self.metric is not None and self.metric.name == "NDCG"
        if (normalised or self.code == sd.MAUC) and np.any(y < 0):
            bad = int(np.argmax(y < 0))
            raise ValueError(f"{role} {self.spec} needs graded labels >= 0; row {bad} has label {y[bad]:g}")
        if self.metric is not None and self.metric.name == "QueryAUC" and np.any((y != 0) & (y != 1)):
            bad = int(np.argmax((y != 0) & (y != 1)))
            raise ValueError(f"{role} {self.spec} needs binary labels 0/1; row {bad} has label {y[bad]:g} "
                             f"(for graded labels use ROCArea:border=b or MAUC)")
        if self.code == sd.MAUC and np.any(y != np.round(y)):
            bad = int(np.argmax(y != np.round(y)))
            raise ValueError(
                f"{role} {self.spec} needs integer relevance classes 0, 1, 2, ...; "
                f"row {bad} has label {y[bad]:g}"
            )
        if self.metric is not None and self.metric.definition.check_labels is not None:
            self.metric.definition.check_labels(y, self.metric.params)


def _vector(*values) -> np.ndarray:
    out = np.zeros(sd.N_PARAMS)
    out[: len(values)] = values
    return out


def _top(params: dict) -> float:
    return _ALL if params["top"] == -1 else float(params["top"])


def _no_delta(spec: str, why: str = "") -> ValueError:
    return ValueError(
        f"{spec!r} cannot be a λ target{': ' + why if why else ''}; valid targets are "
        f"{', '.join(LAMBDA_TARGETS)} (with their metric parameters, e.g. 'NDCG:top=10;type=Exp')"
    )


def resolve_target(spec: str | Metric, preset: str | None = None) -> LambdaTarget:
    """Resolve a λ-target spec.

    Parameters
    ----------
    spec : str or Metric
        A metric spec with an exact swap delta, or ``"RankNet"``.
    preset : str, optional
        Metric convention preset (see :mod:`metricrank.metrics.conventions`).

    Returns
    -------
    LambdaTarget
        The metric resolved, with the kernel code and parameters the λ kernels read.

    Raises
    ------
    ValueError
        For a metric without an exact swap delta, listing the valid targets.

    Examples
    --------
    >>> t = resolve_target("NDCG:top=10;type=Exp")
    >>> t.spec, t.ties
    ('NDCG:top=10;type=Exp', 'pessimistic')
    >>> resolve_target("ranknet").spec
    'RankNet'
    """
    if isinstance(spec, str) and spec.strip().lower() == "ranknet":
        return LambdaTarget("RankNet", sd.RANKNET, _vector(), "stable", None)
    try:
        metric = get_metric(spec, preset=preset)
    except ValueError as err:
        raise _no_delta(str(spec), str(err)) from None
    name, p = metric.name, metric.params
    ties = p.get("ties", "stable")
    if ties == "docid":  # no doc ids while training: descending row number
        ties = "reverse"
    if name in ("NDCG", "DCG"):
        code = sd.DCG
        vec = _vector(_top(p), p["type"] == "Exp", p["denominator"] == "LogPosition", name == "NDCG")
    elif name == "MAP":
        code, vec = sd.MAP, _vector(_top(p), p["border"], {"min": 0, "retrieved": 1, "all": 2}[p["norm"]])
    elif name == "MRR":
        code, vec = sd.MRR, _vector(_top(p), p["border"])
    elif name == "ERR":
        code, vec = sd.ERR, _vector(_top(p))
    elif name == "PrecisionAt":
        code, vec = sd.PRECISION, _vector(_top(p), p["border"], p["norm"] == "top")
    elif name == "AUC":
        raise _no_delta(metric.spec, "AUC is CatBoost's global AUC over all rows, not a per-query metric; "
                                     "Welleck's per-query AUC is 'ROCArea' (relevance label > border) or "
                                     "'QueryAUC' (binary labels)")
    elif name == "QueryAUC":
        if p["type"] != "Classic":
            raise _no_delta(metric.spec, "QueryAUC:type=Ranking has no O(1) swap delta; use QueryAUC, ROCArea "
                                         "or MAUC")
        # binary labels 0/1 (checked by check_labels): the per-query AUC is ROCArea with border 0.5
        code, vec = sd.AUC, _vector(0.5)
    elif name == "ROCArea":
        code, vec = sd.AUC, _vector(p["border"])
    elif name == "MAUC":
        if p["pooled"]:
            raise _no_delta(metric.spec, "pooled MAUC ranks across queries; use the per-query MAUC")
        code, vec = sd.MAUC, _vector(p["classes"] == "relevant")
    else:
        raise _no_delta(metric.spec)
    return LambdaTarget(metric.spec, code, vec, ties, metric)


def swap_delta_matrix(spec: str | LambdaTarget, ranked_labels) -> np.ndarray:
    """|ΔZ_ij| of every pair of one query whose labels are given in ranked order.

    Parameters
    ----------
    spec : str or LambdaTarget
        A λ target: a metric spec of :data:`LAMBDA_TARGETS` (``"NDCG:top=10"``, ``"MAP"``...).
    ranked_labels : array-like of shape (n,)
        The query's labels, best-ranked document first.

    Returns
    -------
    ndarray of shape (n, n)
        Entry ``[i, j]``: the absolute change of the metric when the documents at ranks
        ``i`` and ``j`` swap (the brute-force oracle the λ kernels are tested against).

    Raises
    ------
    ValueError
        An unknown target, or labels outside the metric's domain.

    Examples
    --------
    >>> import numpy as np
    >>> d = swap_delta_matrix("ROCArea", [1, 0, 1, 0])  # Welleck: (j - i) / (m n)
    >>> float(d[0, 3]) == 3 / 4
    True
    """
    target = spec if isinstance(spec, LambdaTarget) else resolve_target(spec)
    lab = float64_array(numeric_array(ranked_labels, "ranked_labels"))
    target.check_labels(lab)
    return sd.delta_matrix(target.code, target.transform_labels(lab), target.params)


class LambdaObjective(Objective):
    """λ-gradients and Newton weights of a metric, for a gradient-boosting engine.

    Parameters
    ----------
    metric : str, default "NDCG"
        The λ target (see :data:`LAMBDA_TARGETS`).
    sigma : float, default 1.0
        σ of the pairwise logistic ``ρ_ij = 1 / (1 + exp(σ (s_i - s_j)))``.
    truncation : int or None, default None
        Only pairs whose higher-ranked document is among the first
        ``truncation`` positions (LightGBM's ``lambdarank_truncation_level``).
        ``None`` uses every pair; top-k targets already give zero delta to pairs
        entirely below ``k``.
    norm : bool or "auto", default "auto"
        LightGBM's ``lambdarank_norm``: per-query ``log2(1 + S) / S`` scaling and
        division of ``|ΔZ|`` by ``0.01 + |s_i - s_j|``. ``"auto"`` (measured,
        BENCHMARKS.md "Defaults"): off for MAP and the AUC targets (ROCArea,
        QueryAUC, MAUC), whose deltas carry no position discount, on for the
        others (NDCG, DCG, ERR, MRR, PrecisionAt, RankNet) as in LightGBM.
    preset : str, optional
        Metric convention preset for the target.
    exact : "auto", True or False, default "auto"
        AUC targets (ROCArea, QueryAUC, MAUC) with ``norm=False`` have an
        O(n log n) λ kernel (:mod:`metricrank.objectives._auc_fast`, relative
        error below 1e-12 per document in practice, proven ``ε_P + rounding``).
        ``"auto"`` uses it for queries of at least :data:`FAST_MIN_SIZE` (64)
        documents (measured crossover: the fast kernel wins from
        about 32 documents for ROCArea, 64 for MAUC); ``True`` always
        uses the exact O(n²) kernel; ``False`` uses the fast kernel for every
        query (an error for other targets or ``norm=True``, whose
        ``|ΔZ| / (0.01 + |s_i - s_j|)`` does not factorise).
    eval_metric : str, optional
        The metric the trained model is judged by, when it is not the target
        (``LambdaMART(target=...)``): :attr:`eval_spec`, the default
        early-stopping metric; :meth:`check_labels` checks its label domain
        too. Default: the target's own metric.

    Examples
    --------
    >>> import numpy as np
    >>> obj = LambdaObjective("NDCG:top=10")
    >>> grad, hess = obj.gradient_hessian(np.array([2.0, 0, 1]), np.zeros(3), np.array([0, 3]))
    >>> bool(abs(grad.sum()) < 1e-12), bool(grad[0] < 0 < grad[1])
    (True, True)
    """

    name = "lambda"

    def __init__(self, metric: str = "NDCG", *, sigma: float = 1.0, truncation: int | None = None,
                 norm: bool | str = "auto", preset: str | None = None, exact: bool | str = "auto",
                 eval_metric: str | None = None):
        check_positive_finite(sigma, "sigma")
        if truncation is not None and (not is_real(truncation) or not np.isfinite(truncation)
                                       or int(truncation) != truncation or truncation < 1):
            raise ValueError(f"truncation must be a positive integer or None (all pairs); got {truncation!r}")
        self.target = resolve_target(metric, preset=preset)
        self.sigma = float(sigma)
        self.truncation = None if truncation is None else int(truncation)
        if isinstance(norm, str):
            if norm != "auto":
                raise ValueError(f"norm must be True, False or 'auto'; got {norm!r}")
            norm = self.target.code not in NORM_OFF_CODES
        self.norm = bool(norm)
        if not (exact == "auto" or exact is True or exact is False):
            raise ValueError(f"exact must be 'auto', True or False; got {exact!r}")
        if exact is False and not self.fast_available:
            raise ValueError(f"exact=False (the O(n log n) kernel) needs an AUC target (ROCArea, QueryAUC, MAUC) "
                             f"and norm=False; got {self.target.spec!r} with norm={self.norm}")
        self.exact = exact
        self._judged = None if eval_metric is None else get_metric(eval_metric, preset=preset)
        self.eval_metric = None if self._judged is None else self._judged.spec
        super().__init__("lambda:" + self.target.spec, {"metric": self.target.spec, "sigma": self.sigma,
                                                       "truncation": self.truncation, "norm": self.norm,
                                                       "exact": self.exact})

    @property
    def fast_available(self) -> bool:
        """Whether the target has the O(n log n) kernel (AUC/MAUC targets with ``norm=False``)."""
        return self.target.code in (sd.AUC, sd.MAUC) and not self.norm

    @property
    def fast_min_size(self) -> int:
        """Smallest query size that uses the O(n log n) kernel (``_MAX_TRUNCATION``: never)."""
        if not self.fast_available or self.exact is True:
            return _MAX_TRUNCATION
        return 0 if self.exact is False else FAST_MIN_SIZE

    @property
    def quadratic(self) -> bool:
        """Whether a query of n documents costs O(n²) (False when every large query takes the fast kernel)."""
        return self.fast_min_size == _MAX_TRUNCATION

    def __repr__(self) -> str:
        return (f"LambdaObjective({self.target.spec!r}, sigma={self.sigma!r}, truncation={self.truncation!r}, "
                f"norm={self.norm!r}, exact={self.exact!r})")

    @property
    def eval_spec(self) -> str:
        return self.eval_metric or self.target.eval_spec

    @property
    def judge_stands_in(self) -> bool:
        return self.eval_metric is None and self.target.metric is None  # RankNet's target names no metric

    def check_labels(self, y: np.ndarray) -> None:
        y = np.ascontiguousarray(y, dtype=np.float64)
        self.target.check_labels(y)
        # judged by another metric: its label domain holds as well (graded ERR's max_label, ...)
        if self._judged is not None and self._judged.definition.check_labels is not None:
            self._judged.definition.check_labels(y, self._judged.params)

    def bind(self, data: TrainingData, random_state=None) -> BoundObjective:
        self.check_labels(data.y)
        return _BoundLambda(self, data)

    def prepare_labels(self, y) -> np.ndarray:
        """Validate ``y`` for this target and return the labels the kernel reads (see :meth:`lambdas`)."""
        y = np.ascontiguousarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError(f"λ target {self.target.spec}: labels must be finite")
        self.check_labels(y)
        return np.ascontiguousarray(self.target.transform_labels(y), dtype=np.float64)

    def lambdas(self, labels, raw, group_ptr, weights=None, group_weights=None, out_grad=None, out_hess=None):
        """``(grad, hess)`` from labels prepared by :meth:`prepare_labels`, for trusted callers.

        The nets and the linear combination call this once per batch; their
        arrays come from validated data, so nothing is checked again here
        (:meth:`gradient_hessian` is the validating entry point).
        """
        n = labels.shape[0]
        ptr = np.ascontiguousarray(group_ptr, dtype=np.int64)
        w = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        gw = np.ones(ptr.shape[0] - 1) if group_weights is None else np.ascontiguousarray(group_weights,
                                                                                         dtype=np.float64)
        grad = np.empty(n) if out_grad is None else out_grad
        hess = np.empty(n) if out_hess is None else out_hess
        const, const_ptr = query_constants(self.target.code, self.target.params, labels, ptr)
        lambda_gradients(self.target.code, self.target.params, const, const_ptr,
                         np.ascontiguousarray(raw, dtype=np.float64), labels, ptr, TIE_POLICIES[self.target.ties],
                         self.sigma, _MAX_TRUNCATION if self.truncation is None else self.truncation, self.norm,
                         self.norm, w, gw, grad, hess, self.fast_min_size, n_chunks())
        return grad, hess


class _BoundLambda(BoundObjective):
    """λ-gradients on one training set: labels transformed once, buffers reused."""

    def __init__(self, objective: LambdaObjective, data: TrainingData):
        self.objective = objective
        self.data = data
        self.labels = np.ascontiguousarray(objective.target.transform_labels(data.y), dtype=np.float64)
        self.grad = np.empty(data.n_rows)
        self.hess = np.empty(data.n_rows)
        self.fast_min = objective.fast_min_size
        # label-only per-query state (ideal DCG, 1/(mn), class weights), computed once, not per call
        self.const, self.const_ptr = query_constants(objective.target.code, objective.target.params, self.labels,
                                                     data.group_ptr)
        sizes = np.diff(data.group_ptr)
        #: number of queries that take the O(n log n) kernel
        self.fast_queries = int(np.count_nonzero(sizes >= self.fast_min))

    def __call__(self, raw):
        obj, data = self.objective, self.data
        lambda_gradients(
            obj.target.code, obj.target.params, self.const, self.const_ptr, raw, self.labels, data.group_ptr,
            TIE_POLICIES[obj.target.ties], obj.sigma, _MAX_TRUNCATION if obj.truncation is None else obj.truncation,
            obj.norm, obj.norm, data.weight, data.group_weight, self.grad, self.hess, self.fast_min, n_chunks(),
        )
        return self.grad, self.hess
