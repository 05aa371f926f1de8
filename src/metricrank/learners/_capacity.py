"""The capacity check of ``num_leaves="auto"``: more leaves only where held-out queries prove they help.

The size rule (:func:`~metricrank.learners._gbdt.auto_num_leaves`,
:func:`~metricrank.learners._gbdt.auto_extra_trees`) sides with noisy data:
size alone cannot tell a noisy collection, where bigger trees fit the noise,
from a clean one, where the rule's trees underfit (BENCHMARKS.md, "Capacity
for the YetiRank gradient"). From :data:`CHECK_MIN_DOCS` training documents the
data are asked instead, one step at a time: the rule's trees against one level
more (twice the leaves plus one, without randomised splits; with ``lambda_l2="auto"``, a
penalty of :data:`~metricrank.learners._gbdt.ADDED_LEVEL_LAMBDA_L2` instead of the rule's
:func:`~metricrank.learners._gbdt.rule_lambda_l2_cap`: 10, or 1 where the final model averages
randomised trees from 5,000 training documents or of 15 leaves or more).

A step is a sequential test on held-out training queries. The queries are split
into :data:`CHECK_FOLDS` random folds; at look ``k`` each capacity has one model
per held-out fold ``1..k``, trained on the other folds, and is read at the tree
count that is best by the judged metric over all those held-out queries together.
The bigger trees win when they beat the smaller ones query by query (one-sided
Wilcoxon) at p < :data:`CHECK_ALPHA` / L, L the looks the step may take:
Bonferroni over the looks (with permuted labels: 1 false win in 40 sets, where
stop 20's single look at p < 0.05 made 4; BENCHMARKS.md). The step stops as a
loss as soon as the bigger trees are not ahead (p >= :data:`CHECK_FUTILITY`), and
otherwise holds out the next fold, until :data:`CHECK_QUERIES` queries are judged
(all of them on smaller data). Clear cases, either way, cost one fold per
capacity; only close ones pay for more folds. A step still undecided at its last
look is a win if the kept trees were still learning when the trees ran out
(:func:`still_learning`: best at :data:`BUDGET_BOUND_SHARE` of ``n_estimators`` or later,
and their later half of the trees a significant gain) and the bigger ones ahead
(p < :data:`CHECK_FUTILITY`); otherwise a loss. A win tries the next level, up to
:data:`CHECK_MAX_STEPS` levels above the rule. Where the first step is lost but the
rule's randomised trees were still learning, the final model keeps randomised splits
one level deeper, untested (``widened``): at learning rate 0.05 with 300 trees on clean
MQ2007-shaped draws, the bigger unrandomised trees lost, yet 31 randomised leaves scored
higher on test than the rule's 15 (BENCHMARKS.md, "Stop 49"; as the check chose them,
+0.0019 / +0.0020 / +0.0013 on NDCG@10 / MAP / MAUC: "Stop 50"). The final model then trains
on all the training queries.

With ``grow_policy="symmetric_then_leafwise"`` (and for those trees of ``"mixed"``, which ``"auto"``, LambdaMART's
default, chooses where the check runs; its leaf-wise trees have a check of their own), and ``max_depth`` left
to ``num_leaves``, the same steps
compare depths: a capacity's leaves give the depth, ``floor(log2(num_leaves + 1))``; its trees are never
randomised, so no step widens, and ``lambda_l2="auto"`` is 0 at every depth.

Metrics that a query's first relevant documents decide (:data:`COARSE_METRICS`) judge
the capacities by :data:`PROXY_METRIC` instead (:func:`judging_metric`): their
per-query values are too coarse to tell two capacities apart on a few hundred
queries.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone

from ..data import RankingDataset
from ..metrics.evaluate import evaluate_many, make_input, with_scores
from ..metrics.registry import get_metric, judge_reading
from ._staged import iteration_outputs

__all__ = ["BUDGET_BOUND_SHARE", "CHECK_ALPHA", "CHECK_FOLDS", "CHECK_FUTILITY", "CHECK_MAX_STEPS", "CHECK_MIN_DOCS",
           "CHECK_MIN_QUERIES", "CHECK_QUERIES", "COARSE_METRICS", "PROXY_METRIC", "RISING_ALPHA", "CapacityCheck",
           "applies", "budget_bound", "check_capacity", "data_allow_check", "held_out_folds", "judging_metric",
           "next_capacity", "sizes_allow_check", "still_learning"]

#: The check runs from this many training documents, where the size rule gives 15 leaves or
#: more; below it the LETOR sets (2,400-9,600 documents) lost with more leaves.
CHECK_MIN_DOCS = 30_000
#: The training queries are split into this many folds; each model trains on all but one.
CHECK_FOLDS = 5
#: Folds are held out, one more per look, until this many queries are judged. With a per-query
#: standard deviation of about 0.12 in NDCG@10 differences (the suite's clean sets), 500
#: queries detect a gain of 0.015 with 80 % power at one-sided p < 0.05
#: (``((1.645 + 0.84) * 0.12 / 0.015) ** 2`` ≈ 400); one fold of 100 queries (stop 20's check,
#: a single look) missed a gain of 0.019 (p 0.18).
CHECK_QUERIES = 500
#: Fewer training queries than this: the check is skipped (the size rule stands).
CHECK_MIN_QUERIES = 100
#: A step's level, split evenly among the looks it may take.
CHECK_ALPHA = 0.05
#: A step ends as a loss at a look where the bigger trees' one-sided p-value is at least this:
#: they are not ahead. (Stopping for futility only lowers the chance of a false win.)
CHECK_FUTILITY = 0.5
#: The kept trees are budget-bound where their best tree count on the held-out queries is at least this share of
#: ``n_estimators``. Their curve still rose when the trees ran out, so the user's budget, not the data, limits
#: them, and bigger trees, which learn more per tree, need only be ahead (one-sided p below
#: :data:`CHECK_FUTILITY` at the last look), not significantly so. With 100 trees at learning rate 0.1 on clean
#: MQ2007-shaped draws the rule's trees were best at 96-100 trees and 31 leaves ahead but not significantly: the rule
#: changed 9 of 36 fits there, NDCG@10, MAP and MAUC +0.0033, +0.0017, +0.0008 on test (p 0.0016, 0.011, 0.075). On
#: noisy draws the rule's trees were best at 36-86 of 100 trees, and at 300 trees (noise 1, 3, 5) no fit changed
#: (BENCHMARKS.md, "Stop 48").
BUDGET_BOUND_SHARE = 0.9
#: Budget-bound trees are still learning where the held-out queries score better at their last tree than at half of
#: it, query by query (one-sided Wilcoxon), at p below this. Being best near the budget's end alone is a weak sign:
#: with permuted labels (``benchmarks/capacity_false_positives.py``) the rule's trees were best at 36 trees or
#: later of 40 on 4 of 40 sets, by chance; their later half's p-values were 0.043-0.48, and 0.015 at the least on
#: all 40. On the clean MQ2007-shaped draws where the budget bound them they were 1.1e-10 at most (BENCHMARKS.md,
#: "Stop 50").
RISING_ALPHA = 0.01
#: At most this many levels above the size rule.
CHECK_MAX_STEPS = 2
#: Metrics whose value on a query its first relevant documents decide. Judged by them the check
#: could not see what NDCG@10 saw: by MRR both capacities scored 1 on every held-out query of the
#: clean 50k set (no step can win); by ERR@10 on the clean 250k set 63 leaves led, not
#: significantly (p 0.3, 0.1), where by NDCG@10 they won (p 0.027, 0.041) and then scored ERR@10
#: +0.0045 on test (BENCHMARKS.md, "Stop 32").
COARSE_METRICS = frozenset({"MRR", "ERR"})
#: What judges the capacities for :data:`COARSE_METRICS`.
PROXY_METRIC = "NDCG:top=10;type=Exp"


def next_capacity(num_leaves: int, extra_trees: bool) -> tuple[int, bool]:
    """One level more than ``(num_leaves, extra_trees)``: a full binary tree one level deeper, splits not randomised.

    Examples
    --------
    >>> next_capacity(15, True), next_capacity(31, False)
    ((31, False), (63, False))
    """
    return 2 * int(num_leaves) + 1, False


def budget_bound(best_trees: int, n_estimators: int) -> bool:
    """Whether a capacity best at ``best_trees`` trees on the held-out queries ran out of trees: ``best_trees``
    at least :data:`BUDGET_BOUND_SHARE` of ``n_estimators``.

    Examples
    --------
    >>> budget_bound(96, 100), budget_bound(86, 100), budget_bound(270, 300)
    (True, False, True)
    """
    return int(best_trees) >= BUDGET_BOUND_SHARE * int(n_estimators)


def still_learning(summary: dict, n_estimators: int) -> bool:
    """Whether a capacity judged as ``summary`` (a :class:`CapacityCheck` trial) ran out of trees while it still
    learned: :func:`budget_bound`, and its held-out queries' gain over the later half of its trees significant at
    :data:`RISING_ALPHA`.

    Examples
    --------
    >>> still_learning({"trees": 98, "rising_p": 1e-12}, 100), still_learning({"trees": 98, "rising_p": 0.04}, 100)
    (True, False)
    >>> still_learning({"trees": 60, "rising_p": 1e-12}, 100)
    False
    """
    return budget_bound(summary["trees"], n_estimators) and summary["rising_p"] < RISING_ALPHA


def held_out_folds(n_queries: int, seed) -> list[np.ndarray]:
    """The query folds a step can hold out, in order: the first of :data:`CHECK_FOLDS` random folds that
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


@dataclass
class CapacityCheck:
    """What the check saw (the fitted ``capacity_check_``).

    Attributes
    ----------
    metric : str
        The judged metric.
    level : float
        The p-value a step's bigger trees had to beat at a look (:data:`CHECK_ALPHA` / ``max_looks``).
    max_looks : int
        Looks a step could take (folds available, each of ``fold_queries`` or so queries).
    fold_queries : int
        Queries of the first held-out fold.
    trials : list of dict
        ``{"num_leaves", "extra_trees", "lambda_l2", "value", "trees", "queries", "rising_p"}`` of each capacity
        tried, the size rule's first, at the last look of the step that tried it (the rule: of the first step):
        ``metric`` over ``queries`` held-out queries at the tree count ``trees`` that is best there (each
        fold's model capped at its own number of trees), and the one-sided p-value that those queries score better
        at the last tree than at half of it (absent in files written before stop 50).
    looks : list of list of float
        The one-sided p-values of each step's looks (step ``i``: trial ``i + 1`` against the kept one).
    budget_wins : list of bool
        Per step, whether it was won because the kept trees were still learning when the trees ran out
        (:func:`still_learning`; before stop 50: budget-bound, :data:`BUDGET_BOUND_SHARE`) and the bigger ones
        ahead but not significantly (empty in files written before stop 48).
    widened : bool
        Whether the first step was lost while the rule's randomised trees were still learning
        (:func:`still_learning`), so that the final model keeps randomised splits one level deeper, with the added
        levels' penalty, untested.
    num_leaves, extra_trees, lambda_l2
        What the final model used (``lambda_l2`` None in files written before it was recorded).
    grow_policy : str
        The estimator's: with ``"symmetric_then_leafwise"`` each capacity's ``num_leaves`` sets the depth,
        ``floor(log2(num_leaves + 1))`` (:func:`~metricrank.learners._symmetric.symmetric_depth`), and the
        report gives depths.
    """

    metric: str
    level: float
    max_looks: int
    fold_queries: int
    trials: list = field(default_factory=list)
    looks: list = field(default_factory=list)
    budget_wins: list = field(default_factory=list)
    widened: bool = False
    num_leaves: int = 0
    extra_trees: bool = False
    lambda_l2: float | None = None
    grow_policy: str = "leafwise"

    def _size(self, num_leaves: int) -> str:
        if self.grow_policy == "leafwise":
            return f"{num_leaves} leaves"
        from ._symmetric import symmetric_depth

        return f"depth {symmetric_depth(num_leaves, -1)}"

    def __str__(self) -> str:
        parts = []
        for i, t in enumerate(self.trials):
            p = "; p " + ", ".join(f"{v:.2g}" for v in self.looks[i - 1]) if i else ""
            if i and i <= len(self.budget_wins) and self.budget_wins[i - 1]:
                p += "; ahead where the smaller trees still learned at the budget's end"
            l2 = f" L2 {t['lambda_l2']:g}" if t.get("lambda_l2") is not None else ""
            rising = f", later half p {t['rising_p']:.2g}" if "rising_p" in t else ""
            randomised = " randomised" if t["extra_trees"] else ""
            parts.append(f"{self._size(t['num_leaves'])}{randomised}{l2}: {t['value']:.4f} "
                         f"({t['trees']} trees{rising}, {t['queries']} queries{p})")
        return (f"capacity check by {self.metric} on held-out training queries (up to {self.max_looks} looks of "
                f"{self.fold_queries} more queries, level {self.level:.2g} per look): " + "; ".join(parts)
                + ("; lost while the rule's trees still learned: one level deeper, randomised" if self.widened else "")
                + f" -> {self._size(self.num_leaves)}" + (", randomised splits" if self.extra_trees else "")
                + ("" if self.lambda_l2 is None else f", lambda_l2 {self.lambda_l2:g}"))


def applies(estimator, ds: RankingDataset, metric: str) -> bool:
    """Whether ``fit`` runs the check: ``num_leaves`` and ``extra_trees`` both "auto", at least
    :data:`CHECK_MIN_DOCS` training documents and :data:`CHECK_MIN_QUERIES` training queries, and a judged
    ``metric`` with per-query values to compare (not one value over all rows, as CatBoost's global
    ``AUC`` or ``RMSE``). Otherwise the size rule stands.
    """
    return estimator._sizes_by_rule() and data_allow_check(ds, metric, getattr(estimator, "preset", None))


def data_allow_check(ds: RankingDataset, metric: str, preset=None) -> bool:
    """Whether ``ds`` and ``metric`` allow the check (:func:`sizes_allow_check` of its documents and queries)."""
    return sizes_allow_check(ds.n_docs, ds.n_queries, metric, preset)


def sizes_allow_check(n_docs: int, n_queries: int, metric: str, preset=None) -> bool:
    """Whether training data of ``n_docs`` documents in ``n_queries`` queries, judged by ``metric``, allow
    the check: at least :data:`CHECK_MIN_DOCS` documents and :data:`CHECK_MIN_QUERIES` queries, and
    per-query values of ``metric`` to compare.

    Examples
    --------
    >>> sizes_allow_check(30_000, 100, "MAP"), sizes_allow_check(29_999, 100, "MAP")
    (True, False)
    """
    return (n_docs >= CHECK_MIN_DOCS and n_queries >= CHECK_MIN_QUERIES
            and get_metric(metric, preset=preset).definition.per_query)


def judging_metric(metric: str, preset=None, y=()) -> str:
    """The metric the check judges capacities by on the training labels ``y``: ``metric`` itself, or
    :data:`PROXY_METRIC` for :data:`COARSE_METRICS`; an NDCG among them as DCG where ``y`` holds negative labels,
    which NDCG refuses (:func:`~metricrank.metrics.registry.judge_reading`).

    Examples
    --------
    >>> judging_metric("MAP"), judging_metric("ERR:top=10"), judging_metric("MRR", y=[-1, 0, 1])
    ('MAP', 'NDCG:top=10;type=Exp', 'DCG:top=10;type=Exp')
    """
    coarse = get_metric(metric, preset=preset).definition.name in COARSE_METRICS
    return judge_reading(PROXY_METRIC if coarse else metric, y, preset)


def check_capacity(estimator, ds: RankingDataset, metric: str, start: tuple[int, bool, float], *, init_model=None,
                   early_stopping_rounds=None, categorical_feature=None, mean_hessian=None) -> CapacityCheck:
    """Run the check for ``estimator`` (unfitted, its ``num_leaves`` and ``extra_trees`` "auto") on ``ds``.

    ``start`` is the size rule's ``(num_leaves, extra_trees, lambda_l2)``; ``init_model`` the warm start's base
    model, or None. Each fold's model trains on the final model's gradient (LambdaMART's ``target="auto"`` as
    resolved from all the training labels, not from the fold's 80 %), and is grown as the final model will be: with
    ``early_stopping_rounds``, until that many trees bring no improvement on its held-out fold;
    without, all ``n_estimators`` trees. A shorter patience of the check's own stops a noisy metric at
    a chance peak: on the noisy suite set, stopped after 30 trees without improvement, the rule's
    trees peaked at 11 trees by MRR and lost to bigger trees that went on to 143 (BENCHMARKS.md, "The
    capacity check of num_leaves="auto""). ``mean_hessian`` bounds the added levels' ``lambda_l2="auto"``
    as it bounds the rule's (:func:`~metricrank.learners._gbdt.auto_lambda_l2`). Call it where :func:`applies`.
    """
    from ..model_selection import improvement_pvalue

    preset = getattr(estimator, "preset", None)
    metric = judging_metric(metric, preset, ds.y)
    folds = held_out_folds(ds.n_queries, estimator.seed_)
    higher = get_metric(metric, preset=preset).higher_is_better
    held = [ds.subset_queries(f) for f in folds]
    report = CapacityCheck(metric=metric, level=CHECK_ALPHA / len(folds), max_looks=len(folds),
                           fold_queries=int(folds[0].size), grow_policy=estimator._policy())
    models: dict = {}  # capacity -> one model per held-out fold, grown as the looks need them

    @functools.cache  # the kept capacity is judged again at the next step's first looks
    def judged(capacity, looks):
        fitted = models.setdefault(capacity, [])
        for fold, hold_ds in zip(folds[len(fitted):looks], held[len(fitted):looks]):
            # one model per fold even where the final one averages several (n_models): the capacities are judged
            # as measured since stop 20, and averaging narrows close steps, which then take every look (with two
            # models averaged, 4.5 times the fit on an MQ2007-shaped draw, for the same choice); each on the final
            # model's gradient, resolved from all the training labels (MRR's "auto" reads their count)
            model = clone(estimator).set_params(n_models=1, num_leaves=capacity[0], extra_trees=capacity[1],
                                                lambda_l2=capacity[2], verbose=0, grow_policy=estimator._policy(),
                                                random_state=estimator.seed_,  # the final fit's draw
                                                **estimator._resolved_objective_params())
            model._unmoved_said = True  # a metric no order moves: the outer fit said so of the whole training data
            model._keeps_every_tree = True  # the check reads every grown tree of its curves (best or not)
            watch = {} if early_stopping_rounds is None else {
                "eval_set": [hold_ds], "eval_names": ["held_out"], "eval_metrics": [metric],
                "early_stopping_rounds": early_stopping_rounds}
            model.fit(ds.subset_queries(np.setdiff1d(np.arange(ds.n_queries), fold)), init_model=init_model,
                      categorical_feature=categorical_feature, **watch)
            fitted.append(model)
        pooled = ds.subset_queries(np.concatenate(folds[:looks]))
        trees = _best_common_tree_count(fitted[:looks], held[:looks], pooled, metric, preset, higher)
        result = _held_out_result(fitted[:looks], held[:looks], pooled, trees, metric, preset)
        summary = {"num_leaves": int(capacity[0]), "extra_trees": bool(capacity[1]),
                   "lambda_l2": float(capacity[2]), "value": float(result.value),
                   "trees": trees, "queries": pooled.n_queries,
                   "rising_p": _rising_pvalue(fitted[:looks], held[:looks], pooled, metric, preset, higher)}
        return np.asarray(result.per_query, dtype=np.float64), summary

    kept = start
    added_l2 = estimator._lambda_l2_for(True, ds.n_docs, mean_hessian)
    for _ in range(CHECK_MAX_STEPS):
        candidate = (*next_capacity(*kept[:2]), added_l2)
        report.looks.append([])
        for looks in range(1, len(folds) + 1):
            kept_values, kept_summary = judged(kept, looks)
            values, summary = judged(candidate, looks)
            p = improvement_pvalue(values, kept_values, higher)
            report.looks[-1].append(p)
            if p < report.level or p >= CHECK_FUTILITY:
                break
        if not report.trials:  # the rule, at the first step's last look
            report.trials.append(kept_summary)
        report.trials.append(summary)
        learning = still_learning(kept_summary, estimator.n_estimators)
        # undecided at the last look: the bigger trees are ahead; they win where the kept ones ran out of trees
        by_budget = report.level <= p < CHECK_FUTILITY and learning
        report.budget_wins.append(bool(by_budget))
        if not (p < report.level or by_budget):
            if len(report.looks) == 1 and kept[1] and learning:  # the first step lost; the rule's trees learn on
                kept, report.widened = (2 * int(kept[0]) + 1, True, added_l2), True
            break
        kept = candidate
    report.num_leaves, report.extra_trees, report.lambda_l2 = int(kept[0]), bool(kept[1]), float(kept[2])
    return report


def _rising_pvalue(models, held, pooled, metric, preset, higher) -> float:
    """One-sided Wilcoxon p-value that the held-out queries score better at the models' last tree than at half of
    it (each model capped at its own number of trees): 1.0 below two trees."""
    from ..model_selection import improvement_pvalue

    last = max(m.n_estimators_ for m in models)
    if last < 2:
        return 1.0
    values = [np.asarray(_held_out_result(models, held, pooled, k, metric, preset).per_query, dtype=np.float64)
              for k in (last, last // 2)]
    return float(improvement_pvalue(*values, higher))


def _held_out_result(models, held, pooled, trees, metric, preset):
    """``metric`` over the held-out queries ``pooled`` (the folds ``held`` in order), each model read at ``trees``
    trees or all of its own."""
    scores = np.concatenate([m.predict(h.X, num_iteration=min(trees, m.n_estimators_)) for m, h in zip(models, held)])
    (result,) = evaluate_many(pooled, scores, [metric], preset=preset)
    return result


def _best_common_tree_count(models, held, pooled, metric, preset, higher) -> int:
    """The first tree count at which ``metric`` over the held-out queries of every model is best (the models'
    scores summed tree by tree; a model with fewer trees keeps its last score)."""
    scores = [np.zeros(h.n_docs) if m.init_model_ is None else np.asarray(m.init_model_.predict(h.X), np.float64)
              for m, h in zip(models, held)]
    outputs = [np.array(list(iteration_outputs(m.booster_, h.X, m.n_estimators_))) for m, h in zip(models, held)]
    judge = get_metric(metric, preset)
    inp = make_input(pooled, np.concatenate(scores))  # validated once; each tree's scores replace these
    curve = []
    for tree in range(max(m.n_estimators_ for m in models)):
        for out, s in zip(outputs, scores):
            if tree < out.shape[0]:
                s += out[tree]
        curve.append(judge.compute(with_scores(inp, np.concatenate(scores)))[0])
    curve = np.asarray(curve, dtype=np.float64)
    if np.all(np.isnan(curve)):  # the metric is undefined on every held-out query: nothing to choose
        return len(curve)
    return int(np.nanargmax(curve) if higher else np.nanargmin(curve)) + 1
