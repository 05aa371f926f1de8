"""Turning ``fit``/``predict`` arguments into validated arrays (shared by the tree learners)."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import scipy.sparse as sp

from .._arrays import numeric_array
from .._checks import is_integer
from .._groups import holds_two_labels
from ..data import OneQueryWarning, RankingDataset
from ..metrics.evaluate import dataset_evaluator, unread_weights
from ..metrics.registry import Metric, get_metric, parse_spec

__all__ = ["as_dataset", "check_eval_labels", "check_features", "check_labels_for", "check_num_iteration",
           "check_start_iteration", "eval_datasets", "eval_specs", "eval_starting_scores", "order_moves",
           "starting_scores", "unmoved_warnings_silenced", "warn_no_order_to_learn", "warn_unmoved",
           "warn_unmoved_judges", "warn_unmoved_metrics", "warn_unordered_labels", "warn_unread_eval_weights",
           "warn_unread_weights"]


def check_num_iteration(num_iteration):
    """``num_iteration`` of ``predict``: None or an integer (not a bool); else a TypeError naming it."""
    if not (num_iteration is None or is_integer(num_iteration)):
        raise TypeError(f"num_iteration must be an integer (0 or less: every iteration); got {num_iteration!r}")
    return num_iteration


def check_start_iteration(start_iteration, n_iterations: int) -> int:
    """``start_iteration`` of ``predict`` as LightGBM reads it (0 or less: the first iteration), checked against the
    ``n_iterations`` a model holds: a TypeError for a non-integer, a ValueError for a start past the last iteration
    (LightGBM would score every row 0 there)."""
    if not is_integer(start_iteration):
        raise TypeError(f"start_iteration must be an integer (0 or less: the first iteration); got {start_iteration!r}")
    if start_iteration >= n_iterations:
        raise ValueError(f"start_iteration={start_iteration}: the model holds {n_iterations} iterations, so it must be "
                         f"below {n_iterations}")
    return max(int(start_iteration), 0)


def check_features(X, *, n_features: int | None = None, what: str = "X", estimator: str = "the model"):
    """X as float32/float64 (dense C-contiguous or CSR) with no infinite value.

    NaN is allowed: LightGBM treats it as a missing value. ``+-inf`` is not,
    because LightGBM would silently bin it with the largest finite values.
    Messages follow scikit-learn's wording (its estimator checks match them).
    """
    if sp.issparse(X):
        X = X.tocsr()
        if not isinstance(X, sp.csr_matrix):  # a sparse array: LightGBM reads only the matrix classes
            X = sp.csr_matrix(X)
        if np.iscomplexobj(X.data):
            raise ValueError(f"Complex data not supported in {what}")
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
    else:
        X = np.asarray(X)
        if np.iscomplexobj(X):
            raise ValueError(f"Complex data not supported in {what}")
        if X.dtype.kind == "O":
            X = X.astype(np.float64)  # numbers stored as objects; anything else raises TypeError here
        if X.dtype.kind not in "fiub":
            raise ValueError(f"{what} must be numeric, got dtype {X.dtype}")
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X = np.ascontiguousarray(X)
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array for {what}, got {X.ndim}D array of shape {X.shape} instead. "
                         "Reshape your data either using array.reshape(-1, 1) if your data has a single "
                         "feature or array.reshape(1, -1) if it contains a single sample.")
    if n_features is None and X.shape[1] == 0:
        raise ValueError(f"0 feature(s) (shape={X.shape}) while a minimum of 1 is required ({what}).")
    infinite = first_infinite(X)
    if infinite is not None:
        row, col, _ = infinite
        raise ValueError(f"{what} has an infinite value at row {row}, feature {col}; {FINITE_FEATURES}")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{what} has {X.shape[1]} features, but {estimator} is expecting {n_features} features "
                         f"as input")
    return X


def as_dataset(X, y=None, *, qid=None, group=None, sample_weight=None, group_weight=None, pairs=None,
               pair_weight=None, what: str = "training data") -> RankingDataset:
    """A RankingDataset from arrays, or the dataset itself (then ``y``, ``qid``... must be None)."""
    if isinstance(X, RankingDataset):
        if any(v is not None for v in (y, qid, group, sample_weight, group_weight)):
            raise ValueError(f"{what}: pass either a RankingDataset or arrays (X, y, qid/group), not both")
        check_features(X.X)
        if pairs is None and pair_weight is None:
            return X
        if X.pairs is not None:
            raise ValueError(f"{what}: the RankingDataset already holds pairs; do not pass pairs= as well")
        return X.replace(pairs=pairs, pair_weight=pair_weight, source=None)  # fit's pairs: no file to blame
    if y is None:
        raise ValueError(f"{what}: this ranker requires y to be passed, but the target y is None "
                         "(pass relevance labels, or a RankingDataset as X)")
    X = check_features(X, what=what)
    y = np.asarray(y)
    if sample_weight is not None:
        sample_weight = numeric_array(sample_weight, "sample_weight").astype(np.float64)
        if sample_weight.size and not np.any(sample_weight):
            raise ValueError(f"{what}: sample weights are all zero: every row would count for nothing")
    if qid is None and group is None and y.shape[0] > 1:
        # LightGBM and XGBoost refuse a ranker without groups; scikit-learn's fit(X, y) needs one
        # to work, so it does, but never silently
        warnings.warn(f"{what}: no qid or group given: all {y.shape[0]} rows are treated as one query",
                      OneQueryWarning, stacklevel=3)
    return RankingDataset(X, y, qid=qid, group=group, weight=sample_weight,
                          group_weight=group_weight, pairs=pairs, pair_weight=pair_weight)


def eval_set_of(eval_set, eval_X, eval_y):
    """``eval_set``, or LightGBM 4.7's ``eval_X`` and ``eval_y`` made one: a set each, or tuples of one per set.

    >>> eval_set_of(None, ("X1", "X2"), ("y1", "y2"))
    [('X1', 'y1'), ('X2', 'y2')]
    """
    if eval_X is None and eval_y is None:
        return eval_set
    if eval_set is not None:
        raise ValueError("pass eval_set, or eval_X and eval_y (LightGBM 4.7's spelling of it), not both")
    if eval_X is None or eval_y is None:
        raise ValueError("eval_X and eval_y go together: pass both, or neither")
    if isinstance(eval_X, tuple) != isinstance(eval_y, tuple) or (isinstance(eval_X, tuple)
                                                                 and len(eval_X) != len(eval_y)):
        raise ValueError("eval_X and eval_y must both be one set, or both tuples of one entry per set "
                         "(of the same length)")
    return list(zip(eval_X, eval_y)) if isinstance(eval_X, tuple) else [(eval_X, eval_y)]


def training_entries(eval_set, X, y, early_stopping_rounds=None) -> frozenset:
    """Positions in ``eval_set`` of the training data itself: the RankingDataset given to fit, or ``(X, y, ...)`` of
    the very ``X`` and ``y`` objects (LightGBM's test, which names such an entry "training" and does not stop on it).
    A ValueError where ``early_stopping_rounds`` would have only those to watch.

    >>> X, y = [[0.0], [1.0]], [0, 1]
    >>> sorted(training_entries([([[0.0]], [1]), (X, y)], X, y))
    [1]
    """
    if eval_set is None:
        return frozenset()
    entries = [eval_set] if isinstance(eval_set, (RankingDataset, tuple)) else list(eval_set)
    training = frozenset(i for i, entry in enumerate(entries)
                         if entry is X or (isinstance(entry, tuple) and len(entry) >= 2 and entry[0] is X
                                           and entry[1] is y))
    if early_stopping_rounds is not None and entries and len(training) == len(entries):
        raise ValueError("early_stopping_rounds needs an eval set other than the training data, which early "
                         "stopping does not watch (as in LightGBM)")
    return training


def name_training(evals: list, training: frozenset, eval_names) -> list:
    """``evals`` (``(name, data set)`` pairs) with the first of the ``training`` entries named "training", LightGBM's
    name for the training data among the eval sets, unless ``eval_names`` named every set."""
    if eval_names is None and training:
        evals = list(evals)
        evals[min(training)] = ("training", evals[min(training)][1])
    return evals


#: Why features must be finite, said wherever an infinite one is refused.
FINITE_FEATURES = ("features must be finite (LightGBM would bin inf with the largest finite values; the tree rankers "
                   "read NaN as missing, the neural ones need complete features)")


def first_infinite(X):
    """``(row, column, value)`` of the first infinite entry of ``X`` (dense or CSR, in row order), or None."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    bad = np.isinf(values)
    if not bad.any():
        return None
    flat = int(np.flatnonzero(bad)[0])
    if sp.issparse(X):
        row, col = int(np.searchsorted(X.indptr, flat, side="right") - 1), int(X.indices[flat])
    else:
        row, col = divmod(flat, X.shape[1])
    return row, col, float(values.flat[flat])


def eval_datasets(eval_set, eval_qid=None, eval_group=None, eval_names=None, eval_sample_weight=None,
                  eval_group_weight=None) -> list[tuple[str, RankingDataset]]:
    """Normalise ``eval_set`` the way LightGBM's scikit-learn API takes it.

    Each entry is a RankingDataset, ``(X, y)`` (with ``eval_qid[i]`` or
    ``eval_group[i]``), or ``(X, y, qid)``; ``eval_sample_weight[i]`` and
    ``eval_group_weight[i]`` (None for none) are an array entry's row and query
    weights, as ``sample_weight`` and ``group_weight`` are the training data's. A
    RankingDataset holds its own.
    """
    if eval_set is None:
        return []
    if isinstance(eval_set, (RankingDataset, tuple)):
        eval_set = [eval_set]
    if isinstance(eval_names, str):
        eval_names = [eval_names]
    per_set = {"eval_names": eval_names, "eval_qid": eval_qid, "eval_group": eval_group,
               "eval_sample_weight": eval_sample_weight, "eval_group_weight": eval_group_weight}
    for what, values in per_set.items():
        if values is not None and len(values) != len(eval_set):
            raise ValueError(f"{what} has {len(values)} entries and eval_set {len(eval_set)}; give one per eval set")
    if eval_names is not None and len(set(eval_names)) < len(eval_names):
        raise ValueError(f"eval_names must be distinct (each names its set's curves in evals_result_); "
                         f"got {list(eval_names)}")
    out = []
    for i, entry in enumerate(eval_set):
        name = eval_names[i] if eval_names is not None else f"valid_{i}"
        what = f"eval_set[{i}]"
        weights = {arg: None if values is None else values[i]
                   for arg, values in (("sample_weight", eval_sample_weight), ("group_weight", eval_group_weight))}
        qid = eval_qid[i] if eval_qid is not None else None
        group = eval_group[i] if eval_group is not None else None
        if isinstance(entry, RankingDataset):
            given = [f"eval_{arg}[{i}]" for arg, value in [*weights.items(), ("qid", qid), ("group", group)]
                     if value is not None]
            if given:
                raise ValueError(f"{what} is a RankingDataset, which holds its own queries and weights; "
                                 f"{' and '.join(given)} must be None (or build the RankingDataset with them)")
            out.append((name, as_dataset(entry, what=what)))
            continue
        if not isinstance(entry, tuple) or len(entry) not in (2, 3):
            raise ValueError(f"{what} must be a RankingDataset, (X, y) or (X, y, qid); got {type(entry).__name__}")
        X, y = entry[0], entry[1]
        if len(entry) == 3:
            if qid is not None and not np.array_equal(np.asarray(qid), np.asarray(entry[2])):
                raise ValueError(f"{what} is (X, y, qid) and eval_qid[{i}] gives other query ids; pass them once")
            qid = entry[2]
        if qid is None and group is None:  # its metric would read every row as one query, and early stopping too
            raise ValueError(f"{what} has no queries: pass eval_qid[{i}] or eval_group[{i}], (X, y, qid), or a "
                             "RankingDataset (LightGBM refuses an eval set without eval_group too)")
        try:
            out.append((name, as_dataset(X, y, qid=qid, group=group, what=what, **weights)))
        except ValueError as err:  # the data set's own checks do not know which eval set they read
            raise ValueError(str(err) if str(err).startswith(what) else f"{what}: {err}") from None
    return out


#: What :func:`warn_unordered_labels` says a model that learns nothing does, by kind of model.
UNTRAINED = {"trees": "trees grown from zero score the documents of a query alike",
             "net": "the net keeps its random start, which weight decay only draws toward 0"}


def warn_no_order_to_learn(ds: RankingDataset, *, stacklevel: int = 3, model: str = "trees") -> None:
    """Warn when no query of the training set ``ds`` (without explicit pairs) holds two labels: every query-wise
    objective then has nothing to order (no pair, a zero λ, a per-query constant for QueryRMSE), and the model
    (``model``: a key of :data:`UNTRAINED`) learns no order; all-zero labels, or labels read from the wrong column,
    look like this.
    ``stacklevel`` points the warning at the user's ``fit`` call."""
    if ds.pairs is not None or ds.n_docs == 0:
        return
    if not holds_two_labels(ds.y, ds.group_ptr[:-1]):
        warn_unordered_labels(ds.y[0] if np.all(ds.y == ds.y[0]) else None, stacklevel=stacklevel + 1, model=model)


def warn_unordered_labels(single_label=None, *, stacklevel: int = 3, model: str = "trees") -> None:
    """The warning of :func:`warn_no_order_to_learn`, for a training set found to hold one label per query
    (``single_label``: the one label of every document, when they share one)."""
    what = ("no training query holds two different labels" if single_label is None
            else f"every training document has label {single_label:g}")
    warnings.warn(f"{what}: the ranking objective has no order to learn, so the model learns none "
                  f"({UNTRAINED[model]}); check the labels (and qid)", UserWarning, stacklevel=stacklevel)


def warn_unread_eval_weights(specs, preset=None, eval_sample_weight=None, eval_group_weight=None, *,
                             stacklevel: int = 3) -> None:
    """Warn, as :func:`~metricrank.metrics.evaluate` does for its ``weights``, where weights given for the eval
    sets (any entry of ``eval_sample_weight`` or ``eval_group_weight`` not None) go unread by an eval metric:
    LightGBM's NDCG reads ``eval_sample_weight``; CatBoost's, which the catalogue follows, reads query weights
    only. ``stacklevel`` points the warning at the user's ``fit`` call."""
    passed = {kind: arg if values is not None and any(v is not None for v in values) else None
              for kind, arg, values in (("weights", "eval_sample_weight", eval_sample_weight),
                                        ("group_weights", "eval_group_weight", eval_group_weight))}
    warn_unread_weights(specs, passed, preset, label="eval metric", stacklevel=stacklevel)


def warn_unread_weights(specs, passed: dict, preset=None, *, label: str = "metric", stacklevel: int = 2) -> None:
    """Warn, once per metric spec of ``specs`` and weight it leaves unread, ``"{label} {spec}: {argument} is
    ignored: {why}"``: ``passed`` maps ``"weights"`` and ``"group_weights"`` to the caller's name for them, None
    where none were given (:func:`~metricrank.metrics.evaluate.unread_weights`: MAP reads none, for one).
    ``stacklevel`` counts from the caller, as if it warned itself."""
    for spec in specs:
        for argument, why in unread_weights(get_metric(spec, preset), passed):
            warnings.warn(f"{label} {spec}: {argument} is ignored: {why}", UserWarning, stacklevel=stacklevel + 1)


def eval_specs(eval_metrics, eval_metric=None, eval_at=None, *, default) -> list[str]:
    """The metric specs a fit evaluates, from its own ``eval_metrics`` or LightGBM's spellings.

    Parameters
    ----------
    eval_metrics, eval_metric : str or list of str, optional
        Metric specs; ``eval_metric`` is the name LightGBM's ``fit`` gives them (one of the two).
    eval_at : int or list of int, optional
        LightGBM's ``eval_at``: each metric is evaluated at each of these cutoffs (its ``top``), metric by metric,
        so the first cutoff of the first metric drives early stopping. A metric without ``top`` (AUC), or one
        whose spec writes ``top`` itself, is refused rather than evaluated at another cutoff than asked.
    default : callable
        Returns the fit's default spec where no metric is named; ``eval_at`` replaces that spec's ``top``.

    Returns
    -------
    list of str

    Examples
    --------
    >>> eval_specs(None, "ndcg", [1, 10], default=lambda: "MAP")
    ['NDCG:top=1', 'NDCG:top=10']
    >>> eval_specs(None, eval_at=5, default=lambda: "NDCG:top=10;type=Exp")
    ['NDCG:top=5;type=Exp']
    """
    if eval_metrics is not None and eval_metric is not None:
        raise ValueError("eval_metric is LightGBM's name for eval_metrics; pass one of the two")
    named = eval_metrics if eval_metrics is not None else eval_metric
    specs = [default()] if named is None else list(named) if isinstance(named, (list, tuple, np.ndarray)) else [named]
    for spec in specs:
        if not isinstance(spec, str):
            raise TypeError(f"eval metrics are metric specs such as 'NDCG:top=10;type=Exp' or 'map@5'; got "
                            f"{spec!r}; metric functions are not taken (metricrank.metrics lists the metrics)")
    if eval_at is None:
        return _distinct(specs)
    cutoffs = ([eval_at] if is_integer(eval_at)
               else list(eval_at) if isinstance(eval_at, (list, tuple, range, np.ndarray)) else None)
    if not cutoffs or not all(is_integer(k) and k >= 1 for k in cutoffs) or len(set(cutoffs)) < len(cutoffs):
        raise ValueError(f"eval_at must be a positive integer or a list of distinct ones; got {eval_at!r}")
    out = []
    for spec in specs:
        definition, written = parse_spec(spec)
        if "top" not in {p.name for p in definition.params}:
            raise ValueError(f"eval_at sets the cutoff 'top' of each eval metric, and {spec} has none; "
                             f"evaluate it without eval_at")
        if "top" in written and named is not None:
            raise ValueError(f"eval metric {spec!r} writes its cutoff 'top' and eval_at={eval_at!r} another; "
                             f"pass one of the two")
        rest = {k: v for k, v in written.items() if k != "top"}
        out += [Metric(definition, {}, {"top": int(k), **rest}).spec for k in cutoffs]
    return _distinct(out)


def _distinct(specs: list[str]) -> list[str]:
    if len(set(specs)) < len(specs):
        raise ValueError(f"eval metrics must be distinct (each names its curve in evals_result_); got {specs}")
    return specs


def check_eval_labels(evals, specs, preset=None) -> None:
    """Raise ValueError, naming the eval set, if its labels are outside a metric's domain (NDCG's >= 0, graded
    ERR's ``max_label``...): once before training, not when the first tree (or, under Dask, the last) is scored."""
    for name, ds in evals:
        check_labels_for(ds, specs, preset, where=f"eval set {name}")


def check_labels_for(ds: RankingDataset, specs, preset=None, *, where: str) -> None:
    """Raise ValueError, prefixed ``where``, if the labels of ``ds`` are outside the domain of a metric of
    ``specs``."""
    try:
        dataset_evaluator(ds, specs, preset=preset)(np.zeros(ds.n_docs))
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


UNMOVED_MESSAGE = "scores every query the same"


def order_moves(ds: RankingDataset, spec, preset=None):
    """``(moved, result)``: whether ``spec`` scores some query of ``ds`` differently with its documents ranked best
    first (scores = labels) than worst first, and its result at the best order (an
    :class:`~metricrank.metrics.evaluate.EvaluationResult`); None where the metric reads more
    than the order of the scores (the query losses, PairLogit, FilteredDCG), where ``ds`` holds explicit pairs
    (they order it instead of its labels) or no rows, or where its labels leave the metric's domain."""
    if not get_metric(spec, preset).definition.reads_order_only or ds.pairs is not None or ds.n_docs == 0:
        return None
    judge = dataset_evaluator(ds, [spec], preset=preset)
    try:
        (best,), (worst,) = judge(ds.y), judge(-ds.y)
    except ValueError:
        return None
    return not np.allclose(best.per_query, worst.per_query, rtol=1e-12, atol=0.0, equal_nan=True), best


def warn_unmoved_metrics(sets, specs, preset=None, *, purpose: str, stacklevel: int = 3) -> bool:
    """Warn, once per set and metric, where a metric of ``specs`` that reads only the order of the scores scores
    every query of a set (``sets``: ``[(name, RankingDataset)]``) the same with its documents ranked best first
    as worst first (:func:`order_moves`): no order moves it there, so it cannot tell one model from another.
    Labels on the wrong scale look like this: MAP, MRR, PrecisionAt and RecallAt count a label above ``border``
    (0.5 by default) as relevant, and grades 1-5 make every document relevant. ``purpose`` says what the metric
    does with the set (the training labels are checked against the objective's domain, not the eval metrics':
    a metric whose domain they leave is not read). Returns whether it warned."""
    warned = False
    for name, ds in sets:
        for spec in specs:
            judged = order_moves(ds, spec, preset)
            if judged is not None and not judged[0]:
                warn_unmoved(name, spec, judged[1].value, preset, int(ds.query_sizes.max()), purpose=purpose,
                             stacklevel=stacklevel)
                warned = True
    return warned


def warn_unmoved(name: str, spec, value: float, preset, max_query_size: int, *, purpose: str,
                 stacklevel: int = 2) -> None:
    """The warning of :func:`warn_unmoved_metrics` for set ``name`` (its largest query: ``max_query_size``),
    where ``spec`` reads ``value`` at every order; ``stacklevel`` counts from the caller, as if it warned itself."""
    metric = get_metric(spec, preset)
    top = metric.params.get("top", -1)
    if 0 < top and top >= max_query_size:  # a cutoff that holds every document
        hint = f"; its top={top} holds every document of every query (at most {max_query_size})"
    elif "border" in metric.params:  # or the border that splits relevant from not
        hint = f"; {metric.name} counts a label above border={metric.params['border']:g} as relevant"
    else:
        hint = ""
    warnings.warn(f"{name}: {spec} {UNMOVED_MESSAGE} ({value:g}) whether its documents are ranked best or worst "
                  f"first{hint}, so it {purpose} by a constant; check the labels (and qid) against the metric",
                  UserWarning, stacklevel=stacklevel + 1)


def warn_unmoved_judges(ds: RankingDataset, evals, specs, preset=None, *, step: str, stacklevel: int = 3) -> None:
    """:func:`warn_unmoved_metrics` for a fit: the first of ``specs`` (its judge) on the training data ``ds``, unless
    no query there holds two labels (the no-order warning then said it), and every spec on every eval set of
    ``evals``, which judge every ``step`` ("iteration", "epoch")."""
    if holds_two_labels(ds.y, ds.group_ptr[:-1]):
        warn_unmoved_metrics([("training data", ds)], specs[:1], preset, purpose="judges the fit",
                             stacklevel=stacklevel + 1)
    warn_unmoved_metrics(evals, specs, preset, purpose=f"judges every {step} (and early stopping)",
                         stacklevel=stacklevel + 1)


@contextlib.contextmanager
def unmoved_warnings_silenced(silenced: bool):
    """Drop :func:`warn_unmoved_metrics`' warnings inside the context when ``silenced`` (a caller that said it once,
    at the user's line, for the fits it runs). Enter it from one thread: Python's warning filters are global."""
    with warnings.catch_warnings():
        if silenced:
            warnings.filterwarnings("ignore", message=f".*{UNMOVED_MESSAGE}", category=UserWarning)
        yield


def starting_scores(scores, n_docs: int, name: str) -> np.ndarray:
    """``scores`` (an ``init_score``) as one finite float score a row (a column counts as one), else a ValueError
    naming them.

    >>> starting_scores([[0.5], [1.0]], 2, "init_score").tolist()
    [0.5, 1.0]
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape not in ((n_docs,), (n_docs, 1)):  # a column is one score a row; any other shape is not
        raise ValueError(f"{name} must have shape ({n_docs},), one score a row; got shape {scores.shape}")
    scores = scores.ravel()
    if not np.all(np.isfinite(scores)):
        row = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise ValueError(f"{name} must be finite; row {row} is {scores[row]}")
    return scores


def eval_starting_scores(init_score, eval_init_score, evals) -> list:
    """The eval sets' starting scores from ``eval_init_score`` (LightGBM's: one array, or None for zeros, per eval
    set of ``evals``, ``[(name, RankingDataset)]``), which needs ``init_score``; all None without it."""
    if eval_init_score is None:
        return [None] * len(evals)
    if init_score is None:
        raise ValueError("eval_init_score needs init_score: the eval sets would start elsewhere than the "
                         "training data")
    if not evals or isinstance(eval_init_score, (np.ndarray, str)) or len(eval_init_score) != len(evals):
        raise ValueError(f"eval_init_score must be a list of one score array (or None) per eval set; "
                         f"got {type(eval_init_score).__name__} for {len(evals)} eval set(s)")
    return [None if scores is None else starting_scores(scores, eds.n_docs, f"eval_init_score[{i}]")
            for i, (scores, (_, eds)) in enumerate(zip(eval_init_score, evals))]
