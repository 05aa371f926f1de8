"""Public evaluation entry points: validate once, then run the kernels."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .._arrays import float64_array, numeric_array
from .._checks import check_flag
from .._groups import check_pairs, resolve_groups
from ._base import MetricInput
from .registry import Metric, get_metric

__all__ = ["EvaluationResult", "dataset_evaluator", "evaluate", "evaluate_many", "make_input", "unread_weights",
           "with_scores"]


@dataclass(frozen=True)
class EvaluationResult:
    """One metric's result.

    Attributes
    ----------
    spec : str
        The metric spec as written by the caller.
    value : float
        The overall value (NaN when no query could be scored).
    per_query : ndarray
        Per-query values (NaN for queries not counted; one entry for global metrics).
    n_counted : int
        Number of queries that entered the value.
    higher_is_better : bool
    """

    spec: str
    value: float
    per_query: np.ndarray
    n_counted: int
    higher_is_better: bool


def _as_float_vector(values, name: str, n: int | None = None) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    arr = float64_array(numeric_array(arr, name))
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} entries but there are {n} rows")
    bad = ~np.isfinite(arr)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must be finite; {np.count_nonzero(bad)} value(s) are NaN or inf "
                         f"(first at row {i}: {arr[i]})")
    return arr


def _non_negative(arr: np.ndarray, name: str) -> np.ndarray:
    """``arr``, checked as RankingDataset checks weights: none negative, and not all 0 (CatBoost refuses that too)."""
    if np.any(arr < 0):
        i = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name} must be >= 0; entry {i} is {arr[i]}")
    if arr.size and not arr.any():
        raise ValueError(f"{name} is 0 for every entry: every weighted metric would be 0 / 0; give some entry a "
                         "positive weight")
    return arr


def _group_weights(group_weights, ptr: np.ndarray) -> np.ndarray:
    nq, n = ptr.shape[0] - 1, int(ptr[-1])
    gw = _as_float_vector(group_weights, "group_weights")  # before its length is read: a matrix is refused
    if gw.shape[0] == nq:
        return _non_negative(gw, "group_weights")
    if gw.shape[0] == n:
        # CatBoost's per-object form: one value repeated over each query's rows.
        first = gw[ptr[:-1]]
        if not np.array_equal(np.repeat(first, np.diff(ptr)), gw):
            raise ValueError("per-row group_weights must be constant within each query")
        return _non_negative(first, "group_weights")
    raise ValueError(f"group_weights has {gw.shape[0]} entries; expected one per query ({nq}) or per row ({n})")


def _pairs(pairs, pair_weights, ptr: np.ndarray, qid=None):
    arr = np.asarray(pairs)
    if arr.ndim == 2 and arr.shape[1] == 3:
        if pair_weights is not None:
            raise ValueError("pass pair weights either as a third pairs column or as pair_weights, not both")
        arr, pair_weights = arr[:, :2], arr[:, 2]
    idx = check_pairs(arr, ptr, qid=None if qid is None else np.asarray(qid))
    pw = np.ones(idx.shape[0]) if pair_weights is None else _non_negative(
        _as_float_vector(pair_weights, "pair_weights", idx.shape[0]), "pair_weights")
    return idx, pw


def _tie_key(doc_ids, n: int) -> np.ndarray:
    ids = np.asarray(doc_ids).astype(str)
    if ids.shape != (n,):
        raise ValueError(f"doc_ids has shape {ids.shape}; expected ({n},)")
    # trec_eval orders tied scores by descending doc id: ascending key = descending id.
    _, inverse = np.unique(ids, return_inverse=True)
    return -inverse.ravel().astype(np.float64)


def make_input(y_true, y_score, *, qid=None, group_ptr=None, group=None, weights=None,
               group_weights=None, pairs=None, pair_weights=None, doc_ids=None) -> MetricInput:
    """Validate arrays once and pack them for the metric kernels.

    ``y_true`` may be a :class:`~metricrank.data.RankingDataset`, whose groups,
    weights, pairs and doc ids are then used unless given explicitly.

    Parameters
    ----------
    y_true, y_score, qid, group_ptr, group, weights, group_weights, pairs, pair_weights, doc_ids
        As in :func:`evaluate`.

    Returns
    -------
    MetricInput
        Labels and scores as float64, the query offsets, the weights (ones where none were
        given), the pairs and the tie-break key, each checked once.

    Raises
    ------
    ValueError
        Naming the array: empty, non-numeric or non-finite labels or scores, lengths that
        differ, scattered or missing query ids, negative weights, pairs across queries.

    Examples
    --------
    >>> inp = make_input([2, 0, 1, 1, 0], [0.9, 0.8, 0.1, 0.3, 0.2], qid=[7, 7, 7, 9, 9])
    >>> inp.group_ptr.tolist(), inp.y.tolist()
    ([0, 3, 5], [2.0, 0.0, 1.0, 1.0, 0.0])
    """
    ids = qid  # each row's query id, to name a pair's two queries by
    if hasattr(y_true, "group_ptr") and hasattr(y_true, "y"):
        ds = y_true
        if qid is None and group_ptr is None and group is None:
            group_ptr = ds.group_ptr
            ids = getattr(ds, "qid", None)
        weights = ds.weight if weights is None else weights
        group_weights = ds.group_weight if group_weights is None else group_weights
        if pairs is None and ds.pairs is not None:
            pairs, pair_weights = ds.pairs, ds.pair_weight
        doc_ids = ds.doc_ids if doc_ids is None else doc_ids
        y_true = ds.y
    y = _as_float_vector(y_true, "y_true (labels)")
    n = y.shape[0]
    if n == 0:
        raise ValueError("y_true is empty: there is nothing to evaluate")
    score = _as_float_vector(y_score, "y_score", n)
    ptr = resolve_groups(n, qid=qid, group_ptr=group_ptr, group=group)
    nq = ptr.shape[0] - 1
    w = np.ones(n) if weights is None else _non_negative(_as_float_vector(weights, "weights", n), "weights")
    gw = np.ones(nq) if group_weights is None else _group_weights(group_weights, ptr)
    pr, pw = (None, None) if pairs is None else _pairs(pairs, pair_weights, ptr, ids)
    key = None if doc_ids is None else _tie_key(doc_ids, n)
    return MetricInput(y, score, ptr, w, gw, pr, pw, key, weights is not None, group_weights is not None)


def with_scores(inp: MetricInput, y_score) -> MetricInput:
    """``inp`` (from :func:`make_input`) with other scores, checked as :func:`make_input` checks them: for one
    metric read at many scores of the same rows, where the rest need validating only once."""
    return replace(inp, score=_as_float_vector(y_score, "y_score", inp.y.shape[0]), cache={})


def unread_weights(metric: Metric, passed: dict) -> list[tuple[str, str]]:
    """``(argument, why)`` for each of ``passed``'s weights that ``metric`` leaves unread: ``passed`` maps
    ``"weights"`` (per-row) and ``"group_weights"`` (per-query) to the caller's name for them, or to None where
    the caller passed none. scikit-learn's metrics read a ``sample_weight``; CatBoost's positional metrics read
    no per-row weight, MAP no weight at all, its AUC none at its default. A spec that says ``use_weights=false``
    asked for that.

    Examples
    --------
    >>> from metricrank.metrics.registry import get_metric
    >>> unread_weights(get_metric("MAP"), {"weights": "sample_weight", "group_weights": None})
    [('sample_weight', "MAP reads no per-row weights (CatBoost's definition)")]
    >>> unread_weights(get_metric("PairAccuracy"), {"weights": "sample_weight", "group_weights": "group_weight"})
    []
    """
    out = []
    for kind, reads, what in (("weights", metric.definition.object_weights, "per-row"),
                              ("group_weights", metric.definition.query_weights, "per-query")):
        if passed.get(kind) is None or metric.explicit.get("use_weights") is False:
            continue
        if not reads:
            out.append((passed[kind], f"{metric.name} reads no {what} weights (CatBoost's definition)"))
        elif not metric.params.get("use_weights", True) and "use_weights" not in metric.explicit:
            out.append((passed[kind], f"{metric.name} reads them only with use_weights=true (CatBoost's default is "
                                      f"false)"))
    return out


def _warn_unread_weights(metric: Metric, spec, arrays: dict) -> None:
    """Warn that ``weights`` or ``group_weights`` passed to :func:`evaluate` go unread by ``metric``
    (:func:`unread_weights`; a dataset's own weights, there for training too, are not passed here)."""
    passed = {kind: kind if arrays.get(kind) is not None else None for kind in ("weights", "group_weights")}
    for arg, why in unread_weights(metric, passed):
        warnings.warn(f"{spec}: {arg} are ignored: {why}", UserWarning, stacklevel=4)  # evaluate(_many)'s caller


def evaluate_many(y_true, y_score, metrics, *, preset=None, **arrays) -> list[EvaluationResult]:
    """Evaluate several metric specs on the same validated input.

    Parameters
    ----------
    metrics : str, Metric, or an iterable of them
        A single spec is one metric (a string is not read letter by letter).
    preset : str, optional
    **arrays
        Keyword arrays of :func:`make_input` (``qid``, ``group_ptr``, ``weights``...).

    Returns
    -------
    list of EvaluationResult
        One per spec, in order: the spec as resolved, the value, the per-query values (NaN
        where a query is not counted), the number of queries counted and the direction.

    Examples
    --------
    >>> [r.value for r in evaluate_many([1, 0, 0, 1], [0.3, 0.2, 0.9, 0.8], ["MRR", "MAP"], qid=[1, 1, 2, 2])]
    [0.75, 0.75]
    >>> [r.spec for r in evaluate_many([1, 0], [0.3, 0.2], "MRR")]
    ['MRR']
    """
    return _evaluate_many(y_true, y_score, metrics, preset, arrays)


def dataset_evaluator(ds, metrics, *, preset=None) -> Callable[[np.ndarray], list[EvaluationResult]]:
    """A function scoring ``ds`` (a :class:`~metricrank.data.RankingDataset`) by ``metrics`` at any scores, as
    ``evaluate_many(ds, scores, metrics)`` does: its row and query weights, pairs and doc ids all read. For the
    library's eval sets, read after every tree or epoch: ``ds`` is validated once, here. A metric that leaves the
    data set's weights unread draws no warning: they are there for training too.

    Examples
    --------
    >>> from metricrank import RankingDataset
    >>> ds = RankingDataset(np.zeros((4, 1)), [1, 0, 0, 1], qid=[1, 1, 2, 2], group_weight=[1.0, 3.0])
    >>> judge = dataset_evaluator(ds, ["MRR", "MAP"])
    >>> [r.value for r in judge(np.array([0.3, 0.2, 0.9, 0.8]))]  # query 2 (RR 0.5) weighs 3; MAP reads no weights
    [0.625, 0.75]
    """
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    inp = make_input(ds, np.zeros(ds.y.shape[0]))
    judges = [(str(spec), get_metric(spec, preset)) for spec in metrics]

    def evaluate_scores(y_score) -> list[EvaluationResult]:
        scored = with_scores(inp, y_score)
        return [EvaluationResult(spec, *metric.compute(scored), metric.higher_is_better) for spec, metric in judges]

    return evaluate_scores


def _evaluate_many(y_true, y_score, metrics, preset, arrays: dict) -> list[EvaluationResult]:
    """:func:`evaluate_many`, called by it and by :func:`evaluate` (a warning then names their caller's line)."""
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    inp = make_input(y_true, y_score, **arrays)
    results = []
    for spec in metrics:
        metric = get_metric(spec, preset)
        _warn_unread_weights(metric, spec, arrays)
        value, per_q, counted = metric.compute(inp)
        results.append(EvaluationResult(str(spec), value, per_q, counted, metric.higher_is_better))
    return results


def evaluate(y_true, y_score, *, qid=None, group_ptr=None, metric="NDCG:top=10", preset=None,
             weights=None, group_weights=None, pairs=None, pair_weights=None, doc_ids=None,
             group=None, per_query=False):
    """Evaluate one ranking metric.

    Parameters
    ----------
    y_true : array-like of shape (n,) or RankingDataset
        Relevance labels.
    y_score : array-like of shape (n,)
        Predicted scores; higher ranks first.
    qid : array-like of shape (n,), optional
        Query id of each row; rows of a query must be contiguous.
    group_ptr : array-like of int, optional
        Query offsets (length n_queries + 1), instead of ``qid``.
    metric : str or Metric, default="NDCG:top=10"
        A spec such as ``"NDCG:top=10;type=Exp"``, ``"MAP"``, ``"AUC:type=Ranking"``
        or ``"ndcg@10"``. See :func:`metricrank.metrics.available_metrics`.
    preset : {"catboost", "lightgbm", "xgboost", "trec_eval"}, optional
        Conventions for parameters the spec leaves unset; without a preset each
        metric uses CatBoost's definition.
    weights : array-like of shape (n,), optional
        Object weights, read by the pair metrics, the query losses and AUC/QueryAUC with
        ``use_weights=true`` (CatBoost's conventions); given to a metric that does not read them, a
        UserWarning says so.
    group_weights : array-like, optional
        One weight per query (or per row, constant within a query); MAP, PrecisionAt, RecallAt,
        FilteredDCG, the query losses and AUC read none (a UserWarning says so).
    pairs : array-like of shape (n_pairs, 2 or 3), optional
        Explicit (winner row, loser row[, weight]) pairs for pairwise metrics.
    pair_weights : array-like of shape (n_pairs,), optional
    doc_ids : array-like of shape (n,), optional
        Document ids; used to order tied scores when ``ties=docid`` (trec_eval).
    group : array-like of int, optional
        Query sizes, instead of ``qid`` (LightGBM's ``group``).
    per_query : bool, default=False
        Return the per-query values (NaN where a query is not counted).

    Returns
    -------
    float, or ndarray of shape (n_queries,) when ``per_query``

    Examples
    --------
    >>> evaluate([2, 0, 1], [0.9, 0.8, 0.1], qid=[1, 1, 1], metric="DCG")
    2.5
    >>> round(evaluate([1, 0, 0, 1], [0.3, 0.2, 0.9, 0.8], qid=[1, 1, 2, 2], metric="MRR"), 4)
    0.75
    """
    check_flag(per_query, "per_query")
    (result,) = _evaluate_many(
        y_true, y_score, [metric], preset, dict(qid=qid, group_ptr=group_ptr, group=group, weights=weights,
                                                group_weights=group_weights, pairs=pairs, pair_weights=pair_weights,
                                                doc_ids=doc_ids),
    )
    return result.per_query if per_query else result.value
