"""The capacity check of ``num_leaves="auto"``: more leaves only where held-out queries prove they help.

The size rule (:func:`~metricrank.learners._gbdt.auto_num_leaves`,
:func:`~metricrank.learners._gbdt.auto_extra_trees`) sides with noisy data:
size alone cannot tell a noisy collection, where bigger trees fit the noise,
from a clean one, where the rule's trees underfit (BENCHMARKS.md, "Capacity
for the YetiRank gradient"). From :data:`CHECK_MIN_DOCS` training documents the
data are asked instead. The training queries are split into
:data:`CHECK_FOLDS` folds; one fold at a time is held out, as many folds as it
takes to judge on :data:`CHECK_QUERIES` queries (all of them on smaller data).
The rule's trees and one level more (twice the leaves plus one, without
randomised splits) are grown on the other folds, and each capacity is read at
the tree count that is best on all its held-out queries together, by the judged
metric. The bigger trees are kept only if they beat the smaller ones there query
by query (one-sided Wilcoxon, p < :data:`CHECK_ALPHA`). A win tries the next
level, up to :data:`CHECK_MAX_STEPS` levels above the rule. The final model then
trains on all the training queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone

from ..data import RankingDataset
from ..metrics.evaluate import evaluate_many

__all__ = ["CHECK_ALPHA", "CHECK_FOLDS", "CHECK_MAX_STEPS", "CHECK_MIN_DOCS", "CHECK_MIN_QUERIES", "CHECK_QUERIES",
           "CapacityCheck", "check_capacity", "next_capacity"]

#: The check runs from this many training documents, where the size rule gives 15 leaves or
#: more; below it the LETOR sets (2,400-9,600 documents) lost with more leaves.
CHECK_MIN_DOCS = 30_000
#: The training queries are split into this many folds (each trial trains on the others).
CHECK_FOLDS = 5
#: Folds are held out one at a time until this many queries are judged. With a per-query
#: standard deviation of about 0.12 in NDCG@10 differences (the suite's clean sets), 500
#: queries detect a gain of 0.015 with 80 % power at one-sided p < 0.05
#: (``((1.645 + 0.84) * 0.12 / 0.015) ** 2`` ≈ 400); a single fifth of 500 queries (stop 20's
#: check) missed one of 0.019 (p 0.18).
CHECK_QUERIES = 500
#: Fewer training queries than this: the check is skipped (the size rule stands).
CHECK_MIN_QUERIES = 100
#: One-sided p-value below which the bigger trees are kept.
CHECK_ALPHA = 0.05
#: At most this many levels above the size rule.
CHECK_MAX_STEPS = 2


def next_capacity(num_leaves: int, extra_trees: bool) -> tuple[int, bool]:
    """One level more than ``(num_leaves, extra_trees)``: a full binary tree one level deeper, splits not randomised.

    Examples
    --------
    >>> next_capacity(15, True), next_capacity(31, False)
    ((31, False), (63, False))
    """
    return 2 * int(num_leaves) + 1, False


@dataclass
class CapacityCheck:
    """What the check saw (the fitted ``capacity_check_``).

    Attributes
    ----------
    metric : str
        The judged metric of the trials.
    holdout_queries : int
        Training queries held out, each once (the trials trained on the other folds).
    folds : int
        Folds held out, one at a time, of :data:`CHECK_FOLDS`.
    trials : list of dict
        ``{"num_leaves", "extra_trees", "value", "trees"}`` of each trial, in order: the size
        rule's trees first. ``value`` is ``metric`` over all the held-out queries at the tree count
        ``trees`` that is best there (each fold's model capped at its own number of trees).
    pvalues : list of float
        One-sided Wilcoxon p-value of trial ``i + 1`` beating the kept trial before it.
    num_leaves, extra_trees
        What the final model used.
    """

    metric: str
    holdout_queries: int
    folds: int = 1
    trials: list = field(default_factory=list)
    pvalues: list = field(default_factory=list)
    num_leaves: int = 0
    extra_trees: bool = False

    def __str__(self) -> str:
        parts = []
        for i, t in enumerate(self.trials):
            p = f", p {self.pvalues[i - 1]:.2g}" if i else ""
            parts.append(f"{t['num_leaves']} leaves{' randomised' if t['extra_trees'] else ''}: "
                         f"{t['value']:.4f} ({t['trees']} trees{p})")
        return (f"capacity check on {self.holdout_queries} held-out training queries ({self.folds} of "
                f"{CHECK_FOLDS} folds) by {self.metric}: " + "; ".join(parts) + f" -> {self.num_leaves} leaves"
                + (", randomised splits" if self.extra_trees else ""))


def held_out_folds(n_queries: int, seed) -> list[np.ndarray]:
    """The query folds the check holds out, one at a time: the first of :data:`CHECK_FOLDS` random folds that
    together reach :data:`CHECK_QUERIES` queries (all of them when there are fewer).

    Examples
    --------
    >>> [f.size for f in held_out_folds(1000, 0)], [f.size for f in held_out_folds(5000, 0)]
    ([200, 200, 200], [1000])
    """
    order = np.random.default_rng(0 if seed is None else seed).permutation(n_queries)
    folds = np.array_split(order, CHECK_FOLDS)
    used = np.cumsum([f.size for f in folds])
    n_used = min(int(np.searchsorted(used, CHECK_QUERIES)) + 1, CHECK_FOLDS)
    return [np.sort(f) for f in folds[:n_used]]


def check_capacity(estimator, ds: RankingDataset, metric: str, start: tuple[int, bool], *, init_model=None,
                   early_stopping_rounds=None, categorical_feature=None) -> CapacityCheck | None:
    """Run the check for ``estimator`` (unfitted, its ``num_leaves`` and ``extra_trees`` "auto") on ``ds``.

    ``start`` is the size rule's ``(num_leaves, extra_trees)``; ``init_model`` the warm start's base
    model, or None. Each fold's model is grown as the final model will be: with
    ``early_stopping_rounds``, until that many trees bring no improvement on its held-out fold;
    without, all ``n_estimators`` trees. A shorter patience of the check's own stops a noisy metric at
    a chance peak: on the noisy suite set, stopped after 30 trees without improvement, the rule's
    trees peaked at 11 trees by MRR and lost to bigger trees that went on to 143 (BENCHMARKS.md, "The
    capacity check of num_leaves="auto""). Returns None with fewer than :data:`CHECK_MIN_QUERIES`
    training queries.
    """
    from ..metrics import get_metric
    from ..model_selection import improvement_pvalue

    if ds.n_queries < CHECK_MIN_QUERIES:
        return None
    folds = held_out_folds(ds.n_queries, estimator.random_state)
    preset = getattr(estimator, "preset", None)
    higher = get_metric(metric, preset=preset).higher_is_better
    held = [ds.subset_queries(f) for f in folds]
    rest = [ds.subset_queries(np.setdiff1d(np.arange(ds.n_queries), f)) for f in folds]
    all_held = ds.subset_queries(np.concatenate(folds))
    report = CapacityCheck(metric=metric, holdout_queries=all_held.n_queries, folds=len(folds))

    def trial(num_leaves, extra_trees):
        models = []
        for fit_ds, hold_ds in zip(rest, held):
            model = clone(estimator).set_params(num_leaves=num_leaves, extra_trees=extra_trees, verbose=0)
            watch = {} if early_stopping_rounds is None else {
                "eval_set": [hold_ds], "eval_names": ["held_out"], "eval_metrics": [metric],
                "early_stopping_rounds": early_stopping_rounds}
            model.fit(fit_ds, init_model=init_model, categorical_feature=categorical_feature, **watch)
            models.append(model)
        trees = _best_common_tree_count(models, held, all_held, metric, preset, higher)
        scores = np.concatenate([m.predict(h.X, num_iteration=min(trees, m.n_estimators_))
                                 for m, h in zip(models, held)])
        (result,) = evaluate_many(all_held, scores, [metric], preset=preset)
        report.trials.append({"num_leaves": int(num_leaves), "extra_trees": bool(extra_trees),
                              "value": float(result.value), "trees": trees})
        return np.asarray(result.per_query, dtype=np.float64)

    kept, kept_values = start, trial(*start)
    for _ in range(CHECK_MAX_STEPS):
        candidate = next_capacity(*kept)
        values = trial(*candidate)
        p = improvement_pvalue(values, kept_values, higher)
        report.pvalues.append(p)
        if not p < CHECK_ALPHA:
            break
        kept, kept_values = candidate, values
    report.num_leaves, report.extra_trees = int(kept[0]), bool(kept[1])
    return report


def _best_common_tree_count(models, held, all_held, metric, preset, higher) -> int:
    """The first tree count at which ``metric`` over every held-out query is best (the fold models' scores
    summed tree by tree; a model with fewer trees keeps its last score)."""
    scores = [np.zeros(h.n_docs) if m.init_model_ is None else np.asarray(m.init_model_.predict(h.X), np.float64)
              for m, h in zip(models, held)]
    curve = []
    for tree in range(max(m.n_estimators_ for m in models)):
        for m, h, s in zip(models, held, scores):
            if tree < m.n_estimators_:
                s += m.booster_.predict(h.X, start_iteration=tree, num_iteration=1, raw_score=True)
        (result,) = evaluate_many(all_held, np.concatenate(scores), [metric], preset=preset)
        curve.append(result.value)
    curve = np.asarray(curve, dtype=np.float64)
    return int(np.nanargmax(curve) if higher else np.nanargmin(curve)) + 1
