"""Per-tree evaluation and early stopping, done on the client after distributed training.

``lightgbm.dask`` evaluates validation sets with LightGBM's own metrics, on
each worker over that worker's share of the validation data, and the model
returned is one worker's: its ``evals_result_`` is not a metric of the whole
validation set, and no metricrank metric spec can be used. So the Dask
estimators train all ``n_estimators`` trees, then, on the client, score every
validation set tree by tree (cumulative sums of one-tree predictions, the
same additions LightGBM makes to its validation scores) and apply the
single-machine early-stopping rule (:func:`metricrank.learners._boosting.boost`)
to those curves. The model keeps the trees up to the best iteration, as the
single-machine model does, and the curves up to where its training would have
stopped. This is early *selection*: the trees after the stopping point were
grown (and paid for), then dropped.
"""

from __future__ import annotations

import lightgbm as lgb
import numpy as np

from ..data import RankingDataset
from ..learners._boosting import BoostResult, StoppingRule, last_values, model_mean, per_model
from ..learners._inputs import eval_datasets
from ..metrics.evaluate import dataset_evaluator

__all__ = ["gather_eval_sets", "per_tree_curves", "select_iteration"]


def _local(client, value):
    """An in-memory value: dask collections are computed (gathered to the client)."""
    if value is None or isinstance(value, (str, RankingDataset)):
        return value
    if type(value).__module__.split(".")[0] in ("dask", "dask_expr"):
        value = client.compute(value, sync=True)
    return value


def gather_eval_sets(client, eval_set, eval_qid, eval_group, eval_names, feature_names, qid_column,
                     eval_sample_weight=None, eval_group_weight=None):
    """``[(name, RankingDataset)]`` from eval sets given as dask or in-memory data.

    Each entry is a RankingDataset, ``(X, y)`` or ``(X, y, qid)`` (qid may come
    from ``eval_qid``); dask entries, and the weights of ``eval_sample_weight``
    and ``eval_group_weight``, are read to the client. A DataFrame entry is
    reduced to the training feature columns; its query ids default to the
    training qid column.
    """
    if eval_set is None:
        return []
    entries = [eval_set] if isinstance(eval_set, (RankingDataset, tuple)) else list(eval_set)
    qids = list(eval_qid) if eval_qid is not None else [None] * len(entries)
    out = []
    for i, entry in enumerate(entries):
        if isinstance(entry, RankingDataset) or not isinstance(entry, tuple) or len(entry) not in (2, 3):
            out.append(entry)
            continue
        X, y = _local(client, entry[0]), _local(client, entry[1])
        qid = _local(client, entry[2] if len(entry) == 3 else qids[i])
        if hasattr(X, "columns"):
            columns = [str(c) for c in X.columns]
            if isinstance(qid, str) or (qid is None and qid_column in columns and eval_group is None):
                qid = X[qid if isinstance(qid, str) else qid_column].to_numpy()
            if isinstance(y, str):
                y = X[y].to_numpy()
            wanted = feature_names if feature_names is not None else [c for c in columns if c != qid_column]
            missing = [c for c in wanted if c not in columns]
            if missing:
                raise ValueError(f"eval_set[{i}] lacks the training feature columns {missing}")
            X = X[[c for c in X.columns if str(c) in wanted]].to_numpy(dtype=np.float64)
        out.append((X, np.asarray(y), np.asarray(qid)) if qid is not None else (X, np.asarray(y)))
    weights = [None if values is None else [_local(client, v) for v in values]
               for values in (eval_sample_weight, eval_group_weight)]
    return eval_datasets(out, None, eval_group, eval_names, *weights)


def per_tree_curves(booster: lgb.Booster, evals, specs, preset, bases: list) -> tuple[dict, dict]:
    """``({set: {spec: [value after tree 1..T]}}, {(set, spec): higher_is_better})``, each set's scores starting
    from its entry of ``bases`` (its ``eval_init_score``; None: zeros)."""
    n_trees = booster.current_iteration()
    n_models = booster.num_model_per_iteration()  # side-by-side models: one score column each, judged by their mean
    curves: dict = {}
    directions: dict = {}
    for (name, ds), base in zip(evals, bases, strict=True):
        scores = per_model(np.zeros(ds.n_docs) if base is None else np.array(base, dtype=np.float64), n_models)
        per_set = curves.setdefault(name, {spec: [] for spec in specs})
        judge = dataset_evaluator(ds, specs, preset=preset)
        for tree in range(n_trees):
            scores += booster.predict(ds.X, start_iteration=tree, num_iteration=1, raw_score=True)
            for spec, r in zip(specs, judge(model_mean(scores))):
                per_set[spec].append(r.value)
                directions[name, spec] = r.higher_is_better
    return curves, directions


def select_iteration(booster: lgb.Booster, curves: dict, directions: dict, early_stopping_rounds,
                     n_estimators: int, unwatched=frozenset()) -> BoostResult:
    """Apply GBRanker's stopping rule to per-tree curves; the booster keeps the trees up to the best iteration
    (with early stopping; else every grown tree), as GBRanker's does.

    The watched value is the first metric of the last eval set not in ``unwatched`` (the training data), fed to the
    same :class:`~metricrank.learners._boosting.StoppingRule` that
    :func:`~metricrank.learners._boosting.boost` uses. As on one machine,
    ``best_iteration`` is set only with early stopping, ``best_score`` is the
    evaluation at the tree :meth:`predict` stops at (the best with early
    stopping, else the last), and ``evals_result`` covers the trees kept.
    """
    n_trees = booster.current_iteration()
    result = BoostResult(booster=booster)
    if n_trees < n_estimators:
        result.stopped_early = True
        result.stop_reason = f"no split improves the objective after {n_trees} trees"
    watchable = [name for name in curves if name not in unwatched]  # not the training data itself
    if not watchable:
        result.evals_result = curves
        result.best_score = last_values(curves)
        return result
    watched = watchable[-1]
    spec = next(iter(curves[watched]))
    rule = StoppingRule(early_stopping_rounds, directions[watched, spec])
    stop_at = n_trees
    for it in range(1, n_trees + 1):
        if rule.observe(it, curves[watched][spec][it - 1], f"{spec} on {watched}"):
            stop_at = it
            result.stopped_early = True
            result.stop_reason = rule.reason
            break
    best_iter = rule.best_iter
    result.evals_result = {name: {s: values[:stop_at] for s, values in per_set.items()}
                           for name, per_set in curves.items()}
    if best_iter > 0 and early_stopping_rounds is not None:
        result.best_score = {name: {s: values[best_iter - 1] for s, values in per_set.items()}
                             for name, per_set in curves.items()}
        result.best_iteration = best_iter
    else:
        result.best_score = last_values(result.evals_result)
    keep = result.best_iteration or stop_at  # as GBRanker: the trees after the best iteration go (LightGBM's)
    if keep < n_trees:
        result.booster = lgb.Booster(model_str=booster.model_to_string(num_iteration=keep))
    return result
