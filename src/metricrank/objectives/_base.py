"""The contract every training objective follows.

An objective is a loss over query offsets. Its public entry point,
:meth:`Objective.gradient_hessian`, validates its input once and returns the
*loss* derivatives ``(grad, hess)`` per row: a tree's Newton leaf
``-Σgrad / Σhess`` moves the scores in the direction that decreases the loss.

Training engines do not call it per tree. They call :meth:`Objective.bind`
once with validated :class:`TrainingData` and get a :class:`BoundObjective`:
a callable ``raw -> (grad, hess)`` that caches what depends only on the labels
(generated pairs, per-query constants), reuses its output buffers, and, for a
stochastic objective, draws from its own seeded generator, so a fit is
deterministic given ``random_state``.

Objectives whose loss is a weighted sum of PairLogit terms over pairs
``(winner, loser)`` (PairLogit, YetiRank and their ``Pairwise`` variants)
report the pairs of the latest call through :meth:`BoundObjective.pairs`, so
the engine can solve the pairwise Newton system for a tree's leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .._arrays import float64_array, numeric_array
from .._groups import check_group_ptr, check_pairs
from ..metrics._base import Param
from ..metrics.registry import judge_reading

__all__ = ["BoundObjective", "Objective", "ObjectiveDef", "TrainingData", "as_training_data",
           "default_eval_spec", "metric_name_parser"]


@dataclass(frozen=True)
class TrainingData:
    """Validated arrays an objective reads (contiguous float64 / int64).

    Attributes
    ----------
    y : float64 (n,)
    group_ptr : int64 (n_queries + 1,)
    weight : float64 (n,) row weights (ones when none were given)
    group_weight : float64 (n_queries,) (ones when none were given)
    pairs : int64 (n_pairs, 2) explicit ``(winner, loser)`` global row indices, or None
    pair_weight : float64 (n_pairs,) or None (ones when pairs were given without weights)
    has_weight, has_group_weight : whether the caller supplied them
    """

    y: np.ndarray
    group_ptr: np.ndarray
    weight: np.ndarray
    group_weight: np.ndarray
    pairs: np.ndarray | None = None
    pair_weight: np.ndarray | None = None
    has_weight: bool = False
    has_group_weight: bool = False

    @property
    def n_rows(self) -> int:
        return self.y.shape[0]

    @property
    def n_queries(self) -> int:
        return self.group_ptr.shape[0] - 1


def _float_vector(name: str, values, length: int, *, nonnegative: bool) -> np.ndarray:
    arr = float64_array(values)
    if arr.ndim != 1 or arr.shape[0] != length:
        raise ValueError(f"{name} must have shape ({length},); got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; entry {int(np.flatnonzero(~np.isfinite(arr))[0])} is not")
    if nonnegative and np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0; entry {int(np.flatnonzero(arr < 0)[0])} is {arr[arr < 0][0]:g}")
    return arr


def as_training_data(y, group_ptr, *, weights=None, group_weights=None, pairs=None,
                     pair_weights=None) -> TrainingData:
    """Validate labels, offsets, weights and pairs once; see :class:`TrainingData`.

    Parameters
    ----------
    y : array-like of shape (n,)
        Relevance labels (numbers, finite).
    group_ptr : array-like of int of shape (n_queries + 1,)
        Query offsets: query ``q`` is rows ``group_ptr[q]:group_ptr[q + 1]``.
    weights : array-like of shape (n,), optional
        Row weights, non-negative.
    group_weights : array-like of shape (n_queries,) or (n,), optional
        One weight per query, or per row and constant within each query.
    pairs : array-like of shape (n_pairs, 2), optional
        Explicit ``(winner, loser)`` rows, both of one query.
    pair_weights : array-like of shape (n_pairs,), optional

    Returns
    -------
    TrainingData

    Raises
    ------
    ValueError
        Naming the argument: non-finite labels, offsets that do not cover every
        row, weights of the wrong length or negative, pairs out of range or
        crossing queries (the error names the pair).

    Examples
    --------
    >>> data = as_training_data([2, 0, 1, 1, 0], [0, 3, 5], group_weights=[1.0, 2.0])
    >>> data.n_queries, data.weight.tolist(), data.has_group_weight
    (2, [1.0, 1.0, 1.0, 1.0, 1.0], True)
    """
    y = float64_array(numeric_array(y, "y (labels)"))
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional; got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise ValueError(f"labels must be finite; row {int(np.flatnonzero(~np.isfinite(y))[0])} is not")
    ptr = check_group_ptr(group_ptr, y.shape[0])
    n, nq = y.shape[0], ptr.shape[0] - 1
    w = np.ones(n) if weights is None else _float_vector("weights", weights, n, nonnegative=True)
    gw = np.ones(nq) if group_weights is None else _float_vector("group_weights", group_weights, nq,
                                                                   nonnegative=True)
    pw = None
    if pairs is not None:
        pairs = check_pairs(pairs, ptr)
        pw = np.ones(pairs.shape[0]) if pair_weights is None else _float_vector(
            "pair_weights", pair_weights, pairs.shape[0], nonnegative=True)
    elif pair_weights is not None:
        raise ValueError("pair_weights given without pairs")
    return TrainingData(y, ptr, w, gw, pairs, pw, weights is not None, group_weights is not None)


def metric_name_parser(objective: str, names: tuple) -> Callable[[str], str]:
    """Parser of an objective's ``metric`` parameter: one of ``names`` in any case, written canonically.

    Examples
    --------
    >>> metric_name_parser("StochasticRank", ("DCG", "NDCG"))("ndcg")
    'NDCG'
    """
    return choice_parser(objective, names, "optimises")


def choice_parser(what: str, names: tuple, verb: str = "is one of") -> Callable[[str], str]:
    """Parser of a parameter whose value is one of ``names``, in any case, written canonically; other text is
    refused with ``"<what> <verb> <names>; got <text>"``.

    Examples
    --------
    >>> choice_parser("YetiRank's mode", ("Classic", "NDCG"))("ndcg")
    'NDCG'
    """
    by_lower = {name.lower(): name for name in names}

    def parse(text: str) -> str:
        name = by_lower.get(str(text).strip().lower())
        if name is None:
            raise ValueError(f"{what} {verb} {', '.join(names)}; got {text!r}")
        return name

    return parse


def fill_scoped(label: str, params: dict, scoped: dict, applies: Callable[[str], bool],
                choices: dict | None = None) -> dict:
    """``params`` with the parameters that only some settings use: each of ``scoped`` (name -> ``(default, where it
    belongs)``) takes its default where ``applies(name)`` and is unset; set where it does not apply, it is refused
    (CatBoost ignores it). ``choices`` (name -> allowed values) are checked. ``label`` names the setting in messages.

    Examples
    --------
    >>> fill_scoped("LambdaMart:metric=NDCG", {"top": None}, {"top": (-1, "metric=DCG and NDCG")}, lambda k: True)
    {'top': -1}
    >>> fill_scoped("LambdaMart:metric=MAP", {"top": 3}, {"top": (-1, "metric=DCG and NDCG")}, lambda k: False)
    Traceback (most recent call last):
    ...
    ValueError: LambdaMart:metric=MAP has no parameter 'top' (it belongs to metric=DCG and NDCG)
    """
    params = dict(params)
    for key, (default, where) in scoped.items():
        if not applies(key):
            if params.get(key) is not None:
                raise ValueError(f"{label} has no parameter {key!r} (it belongs to {where})")
            params.pop(key, None)
            continue
        value = default if params.get(key) is None else params[key]
        allowed = (choices or {}).get(key)
        if allowed is not None and value not in allowed:
            raise ValueError(f"{label.split(':')[0]}: {key}={value} is not allowed; choose one of {', '.join(allowed)}")
        params[key] = value
    return params


def check_raw(raw, n: int) -> np.ndarray:
    """Current scores as contiguous float64 of length ``n``, all finite."""
    raw = np.ascontiguousarray(raw, dtype=np.float64)
    if raw.ndim != 1 or raw.shape[0] != n:
        raise ValueError(f"raw scores must have shape ({n},); got {raw.shape}")
    if not np.all(np.isfinite(raw)):
        raise ValueError(f"raw scores must be finite; row {int(np.flatnonzero(~np.isfinite(raw))[0])} is not")
    return raw


class BoundObjective:
    """An objective bound to one training set: ``bound(raw) -> (grad, hess)``.

    Subclasses implement :meth:`__call__`; the returned arrays may be reused
    buffers, valid until the next call. ``raw`` is trusted (the engine passes
    its own finite float64 scores).
    """

    def __call__(self, raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(winner rows, loser rows, pair weights)`` of the latest call (pair objectives only)."""
        raise TypeError(f"{type(self).__name__} is not a pair objective")


class Objective:
    """A training loss; create one with :func:`metricrank.objectives.get_objective`.

    Attributes
    ----------
    name : str
        Canonical name (``"YetiRank"``, ``"lambda"``...).
    spec : str
        Canonical spec, parameters written explicitly (``"YetiRank:permutations=20"``).
    params : dict
        Every parameter, defaults filled in.
    uses_pairs : bool
        The loss is a PairLogit sum over pairs (the bound objective reports them).
    accepts_pairs : bool
        Explicit ``(winner, loser)`` pairs may be given (PairLogit and PairLogitPairwise).
    pairwise_leaves : bool
        Leaves are valued by the pairwise Newton system (the ``*Pairwise`` variants).
    quadratic : bool
        A call visits every pair of a query (O(n²) per query), so estimators
        bound the query size (``max_query_size``).
    stochastic : bool
        Gradients are estimates drawn with a random generator.
    reads_row_weights : bool
        Row weights (``sample_weight``) enter the loss (YetiRank, as CatBoost's,
        ignores them: estimators warn when they are given).
    hessian_scales_penalty : bool
        ``lambda_l2="auto"`` is bounded by this objective's mean hessian per
        row (:func:`metricrank.learners._gbdt.auto_lambda_l2`); False: it
        keeps its cap (QuerySoftMax).
    """

    name: str = ""
    uses_pairs: bool = False
    accepts_pairs: bool = False
    pairwise_leaves: bool = False
    quadratic: bool = False
    stochastic: bool = False
    reads_row_weights: bool = True
    hessian_scales_penalty: bool = True

    def __init__(self, spec: str, params: dict):
        self.spec = spec
        self.params = dict(params)

    def __repr__(self) -> str:
        return f"get_objective({self.spec!r})"

    @property
    def eval_spec(self) -> str:
        """The metric spec that measures this objective (default early-stopping metric)."""
        return "NDCG:top=10"

    @property
    def judge_stands_in(self) -> bool:
        """Whether :attr:`eval_spec` stands in for a metric the objective does not name (NDCG@10)."""
        return type(self).eval_spec is Objective.eval_spec

    def eval_spec_for(self, *label_sets) -> str:
        """:attr:`eval_spec` for every label it judges (the training set's, the eval sets'...): a stand-in NDCG
        reads negative labels, which NDCG refuses, as DCG (:func:`~metricrank.metrics.registry.judge_reading`);
        a metric the objective names is kept."""
        if not self.judge_stands_in:
            return self.eval_spec
        return judge_reading(self.eval_spec, np.concatenate([np.ravel(y) for y in label_sets]))

    def check_labels(self, y: np.ndarray) -> None:
        """Raise ValueError (naming the objective) if ``y`` is outside its label domain."""

    def bind(self, data: TrainingData, random_state=None) -> BoundObjective:
        """A :class:`BoundObjective` for validated ``data`` (labels are checked here)."""
        raise NotImplementedError

    def gradient_hessian(self, y, raw, group_ptr, *, weights=None, group_weights=None, pairs=None,
                         pair_weights=None, random_state=None, out_grad=None, out_hess=None):
        """Loss gradient and hessian (diagonal) of every row at scores ``raw``.

        Parameters
        ----------
        y, raw : array of shape (n,)
            Labels and current scores (finite).
        group_ptr : int array of shape (n_queries + 1,)
            Query offsets covering every row.
        weights : array of shape (n,), optional
        group_weights : array of shape (n_queries,), optional
        pairs : int array of shape (n_pairs, 2), optional
            Explicit ``(winner, loser)`` rows (pair objectives only).
        pair_weights : array of shape (n_pairs,), optional
        random_state : int or numpy Generator, optional
            Seed of a stochastic objective's estimate (same seed, same estimate).
        out_grad, out_hess : float64 arrays of shape (n,), optional
            Where to write the result.

        Returns
        -------
        grad, hess : float64 arrays of shape (n,)
        """
        data = as_training_data(y, group_ptr, weights=weights, group_weights=group_weights, pairs=pairs,
                                pair_weights=pair_weights)
        if data.pairs is not None and not self.accepts_pairs:
            raise ValueError(f"objective {self.spec} does not read explicit pairs; they are read by PairLogit "
                             f"and PairLogitPairwise")
        raw = check_raw(raw, data.n_rows)
        grad, hess = self.bind(data, random_state)(raw)
        for out, value, name in ((out_grad, grad, "out_grad"), (out_hess, hess, "out_hess")):
            if out is not None:
                if out.shape != value.shape or out.dtype != np.float64:
                    raise ValueError(f"{name} must be a float64 array of shape {value.shape}")
                out[:] = value
        return (grad.copy() if out_grad is None else out_grad), (hess.copy() if out_hess is None else out_hess)


@dataclass(frozen=True)
class ObjectiveDef:
    """A registry entry: name, parameters (with defaults) and a factory.

    ``factory(spec, params) -> Objective`` receives every parameter with its
    default filled in, and raises ValueError for combinations it rejects.
    """

    name: str
    params: tuple  # of metrics._base.Param
    factory: Callable[[str, dict], Objective]
    doc: str = ""
    source: str = "catboost"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def default_eval_spec(objective, y) -> str:
    """The metric a model of ``objective`` is judged by on labels ``y`` when none is named: its
    :meth:`Objective.eval_spec_for`, or NDCG@10 standing in (read as DCG@10 where labels are negative) for a
    ranker without an objective (SVMs and nets that do not override it)."""
    judge = getattr(objective, "eval_spec_for", None)
    return judge_reading("NDCG:top=10", y) if judge is None else judge(y)
