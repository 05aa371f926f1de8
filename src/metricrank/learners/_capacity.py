"""The capacity check of ``num_leaves="auto"``: more leaves only where held-out queries prove they help.

The size rule (:func:`~metricrank.learners._gbdt.auto_num_leaves`,
:func:`~metricrank.learners._gbdt.auto_extra_trees`) sides with noisy data:
size alone cannot tell a noisy collection, where bigger trees fit the noise,
from a clean one, where the rule's trees underfit (BENCHMARKS.md, "Capacity
for the YetiRank gradient"). From :data:`CHECK_MIN_DOCS` training documents the
data are asked instead: a fifth of the training queries is held out, the
rule's trees and one level more (twice the leaves plus one, without randomised
splits) are grown on the rest, each read at its best tree count on the held-out
queries by the judged metric, and the bigger trees are kept only if they beat
the smaller ones there query by query (one-sided Wilcoxon, p <
:data:`CHECK_ALPHA`). A win tries the next level, up to
:data:`CHECK_MAX_STEPS` levels above the rule. The final model then trains
on all the training queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone

from ..data import RankingDataset
from ..metrics.evaluate import evaluate

__all__ = ["CHECK_ALPHA", "CHECK_HOLDOUT", "CHECK_MAX_STEPS", "CHECK_MIN_DOCS", "CHECK_MIN_HOLDOUT_QUERIES",
           "CapacityCheck", "check_capacity", "next_capacity"]

#: The check runs from this many training documents, where the size rule gives 15 leaves or
#: more; below it the LETOR sets (2,400-9,600 documents) lost with more leaves.
CHECK_MIN_DOCS = 30_000
#: Fraction of the training queries held out by the check.
CHECK_HOLDOUT = 0.2
#: Fewer held-out queries than this cannot show a difference: the check is skipped.
CHECK_MIN_HOLDOUT_QUERIES = 50
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
        Training queries held out (the trials trained on the others).
    trials : list of dict
        ``{"num_leaves", "extra_trees", "value", "trees"}`` of each trial, in order: the size
        rule's trees first. ``value`` is the mean of ``metric`` over the held-out queries at
        the trial's best tree count ``trees``.
    pvalues : list of float
        One-sided Wilcoxon p-value of trial ``i + 1`` beating the kept trial before it.
    num_leaves, extra_trees
        What the final model used.
    """

    metric: str
    holdout_queries: int
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
        return (f"capacity check on {self.holdout_queries} held-out training queries by {self.metric}: "
                + "; ".join(parts) + f" -> {self.num_leaves} leaves"
                + (", randomised splits" if self.extra_trees else ""))


def _holdout(ds: RankingDataset, seed) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0 if seed is None else seed)
    order = rng.permutation(ds.n_queries)
    n_hold = int(round(CHECK_HOLDOUT * ds.n_queries))
    return np.sort(order[n_hold:]), np.sort(order[:n_hold])


def check_capacity(estimator, ds: RankingDataset, metric: str, start: tuple[int, bool], *, init_model=None,
                   early_stopping_rounds=None, categorical_feature=None) -> CapacityCheck | None:
    """Run the check for ``estimator`` (unfitted, its ``num_leaves`` and ``extra_trees`` "auto") on ``ds``.

    ``start`` is the size rule's ``(num_leaves, extra_trees)``; ``init_model`` the warm start's base
    model, or None. Each trial is stopped as the final model will be: after ``early_stopping_rounds``
    trees without improvement on the held-out queries, or (None) after all ``n_estimators`` trees;
    its value is read at its best tree count on them. Without a patience of its own a noisy metric
    stops a trial at a chance peak: on the noisy suite set, stopped after 30 trees without
    improvement, the rule's trees peaked at 11 trees by MRR and lost to bigger trees that went on
    to 143 (BENCHMARKS.md, "The capacity check of num_leaves="auto""). Returns None when there are too few queries to
    hold out :data:`CHECK_MIN_HOLDOUT_QUERIES`.
    """
    from ..metrics import get_metric
    from ..model_selection import improvement_pvalue

    keep, hold = _holdout(ds, estimator.random_state)
    if hold.size < CHECK_MIN_HOLDOUT_QUERIES:
        return None
    fit_ds, hold_ds = ds.subset_queries(keep), ds.subset_queries(hold)
    preset = getattr(estimator, "preset", None)
    higher = get_metric(metric, preset=preset).higher_is_better
    report = CapacityCheck(metric=metric, holdout_queries=int(hold.size))

    def trial(num_leaves, extra_trees):
        model = clone(estimator).set_params(num_leaves=num_leaves, extra_trees=extra_trees, verbose=0)
        model.fit(fit_ds, eval_set=[hold_ds], eval_names=["held_out"], eval_metrics=[metric],
                  early_stopping_rounds=early_stopping_rounds, init_model=init_model,
                  categorical_feature=categorical_feature)
        curve = np.asarray(model.evals_result_["held_out"][metric], dtype=np.float64)
        trees = int(np.nanargmax(curve) if higher else np.nanargmin(curve)) + 1
        scores = model.predict(hold_ds.X, num_iteration=trees)
        per_query = np.asarray(evaluate(hold_ds, scores, metric=metric, preset=preset, per_query=True), dtype=float)
        report.trials.append({"num_leaves": int(num_leaves), "extra_trees": bool(extra_trees),
                              "value": float(np.nanmean(per_query)), "trees": trees})
        return per_query

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
