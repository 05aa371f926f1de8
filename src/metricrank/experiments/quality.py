"""The quality suite: metricrank's rankers against LightGBM, XGBoost and CatBoost, metric by metric.

Protocol, the same for every system: one learning rate and one tree budget for all, each
library's own defaults otherwise; each system is trained once per fold (or once per fold and random
state, with ``random_states``: the values are then averaged over the states), the tree count is chosen
on the validation data by the judged metric, and the test value is read at that count. For
metricrank, ``LambdaMART(metric=M)`` is trained for each judged metric M (and each ``GBRanker``
objective once). Reported per data set and judged metric: the mean test value over folds, the
best anchor, the per-query Wilcoxon signed-rank test against it, and the training seconds.

Data sets: MQ2008 (5 folds), LightGBM's ranking example (validation split by query from its train
file, 3 seeds), and ``make_ltr(relevance="nonlinear")`` at two sizes (3 seeds each; the committed cache
holds two of the larger) plus a noisy MQ2007-like variant (``synthetic-noisy-40k``, 3 seeds).

Run: ``metricrank experiment quality [--random-states R ...] [--tune-storage URL]`` (or :func:`run`); a cache of every
fitted system's values (``results.json`` in the output directory) lets reruns and the defaults search reuse the
anchors, and a storage lets a stopped run resume its searches.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable
from typing import Callable

import numpy as np

from .._checks import is_integer
from .._io import atomic_write, save_figure
from ..analysis import compare_per_query
from ..data import RankingDataset, load_letor, make_ltr
from ..metrics import evaluate
from ._datasets import load_mq2008_fold, shared_data_dir

__all__ = ["ANCHORS", "JUDGED", "SUITE", "Split", "gbranker", "lambdamart", "load_suite", "run", "run_system",
           "study_name", "tuned"]

#: Keys of a cache entry that are not judged metrics.
DETAILS = ("seconds", "grow_policy", "capacity_check", "tune")

#: Judged metrics: NDCG@10 with exponential gain, MAP, MRR, ERR@10 (Burges' graded), MAUC.
JUDGED = ("NDCG:top=10;type=Exp", "MAP", "MRR", "ERR:type=Graded;top=10", "MAUC")


@dataclass(frozen=True)
class Split:
    """One train/validation/test split of a suite data set."""

    dataset: str
    fold: int
    train: RankingDataset
    vali: RankingDataset
    test: RankingDataset


def _split_queries(ds: RankingDataset, cuts, seed: int):
    """``ds``'s queries shuffled with ``seed`` and cut at ``cuts``: one RankingDataset per part."""
    order = np.random.default_rng(seed).permutation(ds.n_queries)
    return tuple(ds.subset_queries(np.sort(part)) for part in np.split(order, cuts))


def _split_by_query(ds: RankingDataset, fraction: float, seed: int):
    vali, train = _split_queries(ds, [int(round(fraction * ds.n_queries))], seed)
    return train, vali


def _synthetic(n_queries: int, seed: int, n_features: int = 40):
    """Train, validation and test queries of *one* ``make_ltr`` draw (n, n/4, n/4 queries).

    One draw, split by query: ``make_ltr`` draws its relevance function (thresholds, steps,
    interaction signs) from the seed, so separate draws would ask the ranker to transfer to
    another function.
    """
    n_small = max(n_queries // 4, 20)
    data = make_ltr(n_queries + 2 * n_small, docs_per_query=(20, 180), n_features=n_features, n_informative=12,
                    relevance="nonlinear", random_state=1000 * seed)
    return _split_queries(data, [n_queries, n_queries + n_small], 1000 * seed + 1)


def _synthetic_noisy(seed: int, n_queries: int = 1500, seed_offset: int = 100):
    """An MQ2007-sized, noisy nonlinear set: 1,500 queries of 10-70 documents (about 60,000), 46
    features, labels 0-2 (74/19/7 %), label noise 5 (NDCG@10 about 0.44, as LETOR's MQ2007), split
    2/3, 1/6, 1/6 by query (1,000/250/250). ``n_queries`` draws the same kind of data at another size
    (drawn with ``random_state=seed_offset + seed``)."""
    data = make_ltr(n_queries, docs_per_query=(10, 70), n_features=46, n_informative=12, n_labels=3,
                    label_probs=[0.74, 0.19, 0.07], noise=5.0, relevance="nonlinear", random_state=seed_offset + seed)
    return _split_queries(data, [2 * n_queries // 3, 5 * n_queries // 6], seed)


#: Version of each suite data set whose content changed; cache keys carry it, so stale entries are
#: never read (2: the synthetic sets' three parts come from one draw, see :func:`_synthetic`).
DATA_VERSION = {"synthetic-50k": 2, "synthetic-250k": 2, "synthetic-1m": 2}


#: The suite's data sets, in report order.
SUITE = ("mq2008", "lgb-example", "synthetic-noisy-40k", "synthetic-50k", "synthetic-250k")


def load_suite(names=SUITE, data_dir=None, folds: int | None = None) -> list[Split]:
    """The suite's splits. ``folds`` caps the folds/seeds per data set (None: all).

    Parameters
    ----------
    names : iterable of str, default=SUITE
        Data sets: "mq2008" (5 folds), "lgb-example" (LightGBM's ranking example, 3 validation
        splits by query), "synthetic-noisy-40k", "synthetic-50k", "synthetic-250k" and
        "synthetic-1m" (3 draws each of :func:`metricrank.make_ltr`'s nonlinear relevance).
    data_dir : path, optional
        The shared data directory (the real sets); see
        :func:`metricrank.experiments._datasets.shared_data_dir`.
    folds : int, optional
        At most this many folds or draws of each data set.

    Returns
    -------
    list of Split

    Raises
    ------
    ValueError
        An unknown data set name.

    Examples
    --------
    >>> splits = load_suite(["synthetic-noisy-40k"], folds=1)
    >>> [(s.dataset, s.fold, s.train.n_queries, s.vali.n_queries, s.test.n_queries) for s in splits]
    [('synthetic-noisy-40k', 1, 1000, 250, 250)]
    """
    out = []
    for name in names:
        if name == "mq2008":
            for f in range(1, 6)[:folds]:
                fold = load_mq2008_fold(f, data_dir)
                out.append(Split(name, f, fold.train, fold.vali, fold.test))
        elif name == "lgb-example":
            root = shared_data_dir(data_dir) / "lightgbm-rank-example"
            full = load_letor(root / "rank.train", dense=True)
            test = load_letor(root / "rank.test", n_features=full.n_features, dense=True)
            for seed in range(3)[:folds]:
                train, vali = _split_by_query(full, 0.2, seed)
                out.append(Split(name, seed + 1, train, vali, test))
        elif name == "synthetic-noisy-40k":
            for seed in range(1, 4)[:folds]:
                out.append(Split(name, seed, *_synthetic_noisy(seed)))
        elif name.startswith("synthetic-"):
            size = {"synthetic-50k": 500, "synthetic-250k": 2500, "synthetic-1m": 10000}[name]
            for seed in range(3)[:folds]:
                train, vali, test = _synthetic(size, seed)
                out.append(Split(name, seed + 1, train, vali, test))
        else:
            raise ValueError(f"unknown suite data set {name!r}")
    return out


# --- systems -----------------------------------------------------------------------------------
# A system is ``fit(split, metrics, lr, trees, threads, seed) -> (curves, predict_test)``: ``curves[m]``
# holds the validation value of metric m after each tree, ``predict_test(k)`` the test scores of the
# first k trees. Validation values are computed tree by tree as each library trains.


def _curves(split: Split, metrics, staged_scores) -> dict:
    curves = {m: [] for m in metrics}
    for scores in staged_scores:
        for m in metrics:
            curves[m].append(evaluate(split.vali, scores, metric=m))
    return curves


def _lightgbm(objective: str):
    def fit(split: Split, metrics, lr: float, trees: int, threads: int, seed: int):
        import lightgbm as lgb

        params = {"objective": objective, "learning_rate": lr, "num_threads": threads, "seed": seed,
                  "verbosity": -1, "metric": "None"}
        train = lgb.Dataset(split.train.X, split.train.y, group=split.train.query_sizes)
        vali = lgb.Dataset(split.vali.X, split.vali.y, group=split.vali.query_sizes, reference=train)
        curves = {m: [] for m in metrics}

        def feval(raw, _data):
            for m in metrics:
                curves[m].append(evaluate(split.vali, raw, metric=m))
            return []

        model = lgb.train(params, train, num_boost_round=trees, valid_sets=[vali], feval=feval)
        return curves, lambda k: model.predict(split.test.X, num_iteration=k, raw_score=True)

    return fit


def _xgboost(objective: str):
    def fit(split: Split, metrics, lr: float, trees: int, threads: int, seed: int):
        import xgboost as xgb

        # XGBoost wants non-decreasing query ids: the queries' positions, not the files' ids
        positions = np.repeat(np.arange(split.train.n_queries), split.train.query_sizes)
        train = xgb.DMatrix(split.train.X, split.train.y, qid=positions)
        model = xgb.train({"objective": objective, "eta": lr, "nthread": threads, "seed": seed,
                           "tree_method": "hist"}, train, num_boost_round=trees)
        vali, test = xgb.DMatrix(split.vali.X), xgb.DMatrix(split.test.X)
        staged = (model.predict(vali, iteration_range=(0, k + 1), output_margin=True) for k in range(trees))
        return _curves(split, metrics, staged), lambda k: model.predict(test, iteration_range=(0, k),
                                                                        output_margin=True)

    return fit


def _catboost(objective: str, **params):
    """A CatBoost system: its defaults, or with ``params`` changed (``benchmarks/catboost_variants.py``)."""
    def fit(split: Split, metrics, lr: float, trees: int, threads: int, seed: int):
        import catboost

        model = catboost.CatBoost({"loss_function": objective, "iterations": trees, "learning_rate": lr,
                                   "thread_count": threads, "random_seed": seed, "verbose": False,
                                   "allow_writing_files": False} | params)
        model.fit(catboost.Pool(split.train.X, split.train.y, group_id=split.train.row_qid))
        staged = model.staged_predict(catboost.Pool(split.vali.X), prediction_type="RawFormulaVal")
        test = catboost.Pool(split.test.X)
        return _curves(split, metrics, staged), lambda k: model.predict(test, prediction_type="RawFormulaVal",
                                                                        ntree_end=k)

    return fit


def _metricrank(make_model: Callable[[float, int, int, int], object]):
    def fit(split: Split, metrics, lr: float, trees: int, threads: int, seed: int):
        model = make_model(lr, trees, threads, seed)
        model.fit(split.train, eval_set=[split.vali], eval_names=["vali"], eval_metrics=list(metrics))
        curves = {m: model.evals_result_["vali"][m] for m in metrics}
        return curves, lambda k: model.predict(split.test.X, num_iteration=k), _fit_record(model)

    return fit


def _fit_record(model) -> dict:
    """``{"grow_policy": the kind of trees grown}`` for a metricrank model, and ``"capacity_check"`` (its text)
    when its capacity check ran (of each kind of tree that ran one, joined by " | ")."""
    record = {"grow_policy": model.grow_policy_} if hasattr(model, "grow_policy_") else {}
    checks = [str(kind.capacity_check) for kind in getattr(model, "kinds_", []) if kind.capacity_check is not None]
    return {**record, "capacity_check": " | ".join(checks)} if checks else record


def lambdamart(metric: str, **params):
    """A metricrank system: ``LambdaMART(metric, **params)`` at the suite's rate and budget.

    Parameters
    ----------
    metric : str
        The judged metric, passed as ``LambdaMART(metric=...)``.
    **params
        Other ``LambdaMART`` parameters; the rate, tree budget, threads and random state are
        the run's.

    Returns
    -------
    callable
        ``fit(split, metrics, lr, trees, threads, seed)``, as :func:`run_system` calls it.

    Examples
    --------
    >>> fit = lambdamart("MAP", num_leaves=4)   # run_system fits it on a split
    >>> callable(fit)
    True
    """
    from ..learners import LambdaMART

    return _metricrank(lambda lr, trees, threads, seed: LambdaMART(
        metric, n_estimators=trees, learning_rate=lr, n_jobs=threads, random_state=seed, **params))


def gbranker(objective: str, **params):
    """A metricrank system: ``GBRanker(objective, **params)``.

    Parameters
    ----------
    objective : str
        An objective spec (:func:`metricrank.objectives.available_objectives`).
    **params
        Other ``GBRanker`` parameters, as :func:`lambdamart` takes them.

    Returns
    -------
    callable
        ``fit(split, metrics, lr, trees, threads, seed)``, as :func:`run_system` calls it.

    Examples
    --------
    >>> fit = gbranker("QuerySoftMax", num_leaves=8)
    >>> callable(fit)
    True
    """
    from ..learners import GBRanker

    return _metricrank(lambda lr, trees, threads, seed: GBRanker(
        objective, n_estimators=trees, learning_rate=lr, n_jobs=threads, random_state=seed, **params))


#: A fit's detail: seconds its search spent in earlier runs (a resumed search), added to the entry's ``seconds``.
EARLIER_SECONDS = "earlier_seconds"


def tuned(metric: str, n_trials: int = 20, cv: int | None = None, storage=None):
    """A metricrank system: ``LambdaMART(metric)`` with parameters found by :func:`metricrank.tune`.

    The search scores each trial (early stopping inside) on the split's validation queries after
    training on its training queries (``cv=None``), or by ``cv`` query-grouped folds of the training
    and validation queries together; the default search space (learning rate included, the suite's
    tree budget as cap). The best parameters are then trained like every other system, the tree
    count chosen on validation. Test queries are never seen by the search.

    ``storage`` (an Optuna database URL or storage object) keeps each split's search as a study
    named by :func:`study_name`, so that a run stopped part-way resumes its searches (see
    :func:`metricrank.tune`); the entry's ``seconds`` then add the finished trials of earlier runs
    (those a stopped run left unfinished are not known).

    Parameters
    ----------
    metric : str
        The judged metric (of the search and of the model).
    n_trials : int, default=20
    cv : int, optional
        Query-grouped folds of the training and validation queries; None: the validation queries.
    storage : str or optuna storage, optional

    Returns
    -------
    callable
        ``fit(split, metrics, lr, trees, threads, seed)``, as :func:`run_system` calls it.

    Examples
    --------
    >>> fit = tuned("NDCG:top=10;type=Exp", n_trials=20, cv=3)   # a search runs when the system is fitted
    >>> callable(fit)
    True
    """
    from ..learners import LambdaMART
    from ..model_selection._tune import trial_seconds

    def fit(split: Split, metrics, lr: float, trees: int, threads: int, seed: int):
        stored = {} if storage is None else {
            "storage": storage, "study_name": study_name(metric, cv, split, lr, trees, seed)}
        started = datetime.datetime.now()  # as Optuna stamps trials
        # no refit inside tune: the kept parameters are trained below on the split's training queries
        result = tune_on_split(split, metric, lr, trees, threads, seed, n_trials, cv, refit=False, **stored)
        params = {k: v for k, v in result.best_params_.items() if k != "n_estimators"}
        model = LambdaMART(metric, n_estimators=trees, learning_rate=lr, n_jobs=threads, random_state=seed)
        model.set_params(**params)
        model.fit(split.train, eval_set=[split.vali], eval_names=["vali"], eval_metrics=list(metrics))
        details = {"tune": result.summary(), **_fit_record(model)}
        if storage is not None:
            details[EARLIER_SECONDS] = trial_seconds(result.study_.trials, started_before=started)
        return {m: model.evals_result_["vali"][m] for m in metrics}, \
            lambda k: model.predict(split.test.X, num_iteration=k), details

    return fit


def study_name(metric: str, cv: int | None, split: Split, lr: float, trees: int, seed: int) -> str:
    """The name of :func:`tuned`'s study of one split in a storage: the search's metric, folds, split, rate,
    budget and random state (one study per search).

    Parameters
    ----------
    metric : str
        The judged metric the search scores by.
    cv : int or None
        Query-grouped folds, or None for the split's validation queries.
    split : Split
    lr : float
        The suite's learning rate.
    trees : int
        The suite's tree budget.
    seed : int
        The random state.

    Returns
    -------
    str

    Examples
    --------
    >>> from metricrank import make_ltr
    >>> part = make_ltr(4, random_state=0)
    >>> study_name("MAP", 3, Split("mq2008", 2, part, part, part), 0.1, 300, 0)
    'tuned MAP|3-fold CV|mq2008|2|0.1|300|0'
    """
    folds = "vali" if cv is None else f"{cv}-fold CV"
    return f"tuned {metric}|{folds}|{split.dataset}|{split.fold}|{lr}|{trees}|{seed}"


def tune_on_split(split: Split, metric: str, lr: float, trees: int, threads: int, seed: int, n_trials: int = 20,
                  cv: int | None = None, **tune_options):
    """The search of :func:`tuned` on one split: :func:`metricrank.tune` result (test queries unseen).

    ``tune_options`` go to :func:`metricrank.tune` (for example another ``pruner``).
    """
    from ..learners import LambdaMART
    from ..model_selection import tune

    parts = (split.train, split.vali)
    X = np.vstack([np.asarray(p.X.toarray() if hasattr(p.X, "toarray") else p.X) for p in parts])
    # query ids made distinct across the two parts (LightGBM's example has none of its own)
    qid = np.repeat(np.arange(split.train.n_queries + split.vali.n_queries),
                    np.concatenate([split.train.query_sizes, split.vali.query_sizes]))
    rows = np.arange(X.shape[0])
    folds = [(rows[:split.train.n_docs], rows[split.train.n_docs:])] if cv is None else cv
    base = LambdaMART(metric, n_estimators=trees, learning_rate=lr, n_jobs=threads, random_state=seed)
    return tune(base, X, np.concatenate([p.y for p in parts]), qid=qid, metric=metric, n_trials=n_trials,
                cv=folds, random_state=seed, show_progress=False, **tune_options)


#: Anchor systems: one fit serves every judged metric.
ANCHORS = {
    "LightGBM lambdarank": _lightgbm("lambdarank"),
    "LightGBM rank_xendcg": _lightgbm("rank_xendcg"),
    "XGBoost rank:ndcg": _xgboost("rank:ndcg"),
    "XGBoost rank:pairwise": _xgboost("rank:pairwise"),
    "CatBoost YetiRank": _catboost("YetiRank"),
    "CatBoost QuerySoftMax": _catboost("QuerySoftMax"),
    "CatBoost PairLogit": _catboost("PairLogit"),
}


def run_system(fit, split: Split, metrics, *, lr: float, trees: int, threads: int, seed: int = 0) -> dict:
    """Fit one system on one split: ``{"seconds", metric: {"trees", "vali", "test", "per_query"}}``, and
    ``"grow_policy"`` (the trees a metricrank model grew), ``"capacity_check"`` (its text) when
    ``num_leaves="auto"``'s capacity check ran, ``"tune"``
    (:meth:`metricrank.model_selection.TuneResult.summary`: the kept trial, its parameters...) for a tuned system.

    ``seconds`` covers the fit and the per-tree validation evaluation that every system pays alike, and for a
    search resumed from a storage its finished trials of earlier runs.

    Parameters
    ----------
    fit : callable
        A system: :func:`lambdamart`, :func:`gbranker`, :func:`tuned` or an entry of :data:`ANCHORS`.
    split : Split
    metrics : iterable of str
        Judged metrics; each chooses its own tree count on the validation queries.
    lr : float
        Learning rate.
    trees : int
        Tree budget.
    threads : int
        Threads of the fit and of the per-tree evaluation.
    seed : int, default=0
        The system's random state.

    Returns
    -------
    dict

    Examples
    --------
    >>> import numpy as np
    >>> from metricrank import make_ltr
    >>> data = make_ltr(60, docs_per_query=(5, 15), n_features=8, relevance="nonlinear", random_state=0)
    >>> split = Split("tiny", 1, *(data.subset_queries(q) for q in np.split(np.arange(60), [40, 50])))
    >>> out = run_system(lambdamart("MAP", num_leaves=4), split, ["MAP", "MRR"], lr=0.3, trees=5, threads=1)
    >>> sorted(out["MAP"]), [len(out[m]["per_query"]) for m in ("MAP", "MRR")]   # 10 test queries
    (['per_query', 'test', 'trees', 'vali'], [10, 10])
    """
    from ..learners._boosting import numba_threads

    start = time.perf_counter()
    # the per-tree metric evaluation runs on ``threads`` numba threads too: every system pays alike,
    # and on a busy machine a parallel region per tree costs more than the metric itself
    with numba_threads(threads):
        curves, predict_test, *details = fit(split, metrics, lr, trees, threads, seed)
    out = {"seconds": time.perf_counter() - start}
    if details:
        extra = dict(details[0])  # what the capacity check saw, or what a search kept
        out["seconds"] += extra.pop(EARLIER_SECONDS, 0.0)
        out.update(extra)
    for metric in metrics:
        k = int(np.nanargmax(curves[metric])) + 1
        scores = predict_test(k)
        out[metric] = {"trees": k, "vali": float(curves[metric][k - 1]),
                       "test": float(evaluate(split.test, scores, metric=metric)),
                       "per_query": [float(v) for v in evaluate(split.test, scores, metric=metric, per_query=True)]}
    return out


def _key(system: str, split: Split, lr: float, trees: int, random_state: int = 0) -> str:
    version = DATA_VERSION.get(split.dataset, 1)
    return (f"{system}|{split.dataset}|{split.fold}|{lr}|{trees}" + (f"|data=v{version}" if version > 1 else "")
            + (f"|seed={random_state}" if random_state else ""))  # state 0: the keys of the committed cache


def check_random_states(random_states) -> tuple[int, ...]:
    """``random_states`` as a tuple of distinct integers in [0, 2**31), at least one; else a ValueError."""
    iterable = isinstance(random_states, Iterable) and not isinstance(random_states, (str, bytes))
    states = tuple(random_states) if iterable else ()
    if (not states or len(set(states)) != len(states)
            or not all(is_integer(r) and 0 <= r < 2**31 for r in states)):
        raise ValueError(f"random_states must be distinct integers in [0, 2**31), at least one; got {random_states!r}")
    return tuple(int(r) for r in states)


def default_systems() -> dict:
    """The metricrank systems with every default: ``{name: (judged metrics, fit)}``, in report order.

    ``LambdaMART(metric=M)`` for each judged metric M, then ``GBRanker`` YetiRank, QuerySoftMax and
    PairLogit (judged by all of them).
    """
    systems = {f"LambdaMART({m})": ((m,), lambdamart(m)) for m in JUDGED}
    for objective in ("YetiRank", "QuerySoftMax", "PairLogit"):
        systems[f"GBRanker({objective})"] = (JUDGED, gbranker(objective))
    return systems


def tuned_systems(storage=None) -> dict:
    """LambdaMART tuned by :func:`tuned` for every judged metric on the validation queries, and for NDCG@10 and
    MAP by 3-fold CV too (a search by CV costs 2-2.5 times one on the validation queries); each search kept in
    ``storage`` when given."""
    systems = {}
    for m in JUDGED:
        systems[f"tuned LambdaMART({m})"] = ((m,), tuned(m, storage=storage))
        if m in JUDGED[:2]:
            systems[f"tuned (3-fold CV) LambdaMART({m})"] = ((m,), tuned(m, cv=3, storage=storage))
    return systems


def run(data_dir=None, out_dir: str | os.PathLike = "reports/quality", datasets=None, lr: float = 0.1,
        trees: int = 300, threads: int = 2, folds: int | None = None, metricrank_systems=None,
        anchors=None, progress: bool = True, splits=None, random_states=(0,), tune_storage=None) -> str:
    """Run the suite, write ``report.md``, plots and ``results.json``; return the report text.

    ``metricrank_systems`` maps a name to ``(judged metrics, fit)``; by default
    ``LambdaMART(metric=M)`` for each judged metric M, GBRanker YetiRank, QuerySoftMax and PairLogit,
    and LambdaMART tuned by :func:`tuned` (20 trials) on the validation queries for every judged metric, and by
    3-fold CV for NDCG@10 and MAP. With ``tune_storage`` (an Optuna database URL such as
    ``"sqlite:///searches.db"``, or a storage object) those searches are kept there, so that a run
    stopped part-way goes on with the trials each search lacks (a search takes hours on the larger sets).

    ``random_states`` seeds every system, anchors included, once per state on every split. With more
    than one, a split's test value is the mean over the states and so is each test query's value
    before the paired test: a single draw of a system's randomness (or of the best anchor's) can move a
    small test set's MRR by 0.02 (BENCHMARKS.md, "Stop 38: the two real sets over five random states of
    every system").

    Parameters
    ----------
    data_dir : path, optional
        The shared data directory (MQ2008, LightGBM's example).
    out_dir : path, default="reports/quality"
        Where ``report.md``, a plot per data set and ``results.json`` go. ``results.json`` is a
        cache: an entry already there (system, split, rate, budget, state) is not fitted again,
        so an interrupted run goes on where it stopped.
    datasets : iterable of str, optional
        Names of :func:`load_suite` (default: :data:`SUITE`).
    lr : float, default=0.1
        The learning rate of every system.
    trees : int, default=300
        The tree budget of every system; each chooses its tree count on validation.
    threads : int, default=2
    folds : int, optional
        At most this many folds or draws of each data set.
    metricrank_systems : dict, optional
        ``{name: (judged metrics, fit)}``; the default systems above when not given.
    anchors : iterable of str, optional
        Names of :data:`ANCHORS` (default: all seven).
    progress : bool, default=True
        One line per fit.
    splits : list of Split, optional
        Instead of ``datasets``: the splits to run.
    random_states : iterable of int, default=(0,)
    tune_storage : str or optuna storage, optional
        Only with the default systems (see above).

    Returns
    -------
    str
        The Markdown report.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from metricrank import make_ltr
    >>> data = make_ltr(60, docs_per_query=(5, 15), n_features=8, relevance="nonlinear", random_state=0)
    >>> split = Split("tiny", 1, *(data.subset_queries(q) for q in np.split(np.arange(60), [40, 50])))
    >>> systems = {"LambdaMART(MAP)": (("MAP",), lambdamart("MAP", num_leaves=4))}
    >>> report = run(out_dir=tempfile.mkdtemp(), splits=[split], lr=0.3, trees=5, threads=1,
    ...              metricrank_systems=systems, anchors=["LightGBM lambdarank"], progress=False)
    >>> "LambdaMART(MAP)" in report and "LightGBM lambdarank (best anchor)" in report
    True
    """
    random_states = check_random_states(random_states)
    if tune_storage is not None and metricrank_systems is not None:
        raise ValueError("tune_storage keeps the suite's own tuned systems' searches; with metricrank_systems, "
                         "give each tuned system its storage: quality.tuned(metric, storage=...)")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cache_path = out / "results.json"
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    if splits is None:
        splits = load_suite(datasets or SUITE, data_dir, folds)
    anchors = ANCHORS if anchors is None else {k: ANCHORS[k] for k in anchors}
    if metricrank_systems is None:
        metricrank_systems = {**default_systems(), **tuned_systems(tune_storage)}
    jobs = [(name, JUDGED, fit) for name, fit in anchors.items()]
    jobs += [(name, metrics, fit) for name, (metrics, fit) in metricrank_systems.items()]
    for split in splits:
        for name, metrics, fit in jobs:
            for state in random_states:
                key = _key(name, split, lr, trees, state)
                if "error" in cache.get(key, {}):  # its library was missing: tried again, it may be installed now
                    del cache[key]
                missing = [m for m in metrics if m not in cache.get(key, {})]
                if not missing:
                    continue
                try:
                    # systems are seeded, so values for metrics added later come from the same model
                    cache[key] = {**cache.get(key, {}), **run_system(fit, split, missing, lr=lr, trees=trees,
                                                                     threads=threads, seed=state)}
                except ImportError as err:  # an anchor library that is not installed
                    cache[key] = {"error": str(err)}
                if progress:
                    print(f"{split.dataset} fold {split.fold}{f' state {state}' if state else ''}: {name} "
                          f"{cache[key].get('seconds', float('nan')):.1f}s", flush=True)
                with atomic_write(cache_path) as fh:
                    fh.write(json.dumps(cache).encode())
    report = _report(cache, splits, jobs, lr, trees, out, random_states)
    with atomic_write(out / "report.md") as fh:
        fh.write(report.encode("utf-8"))
    return report


def summarise(cache: dict, splits, names, lr: float, trees: int, dataset: str, metric: str, random_states=(0,)):
    """``{system: (mean test value, per-fold values, concatenated per-query values, mean seconds)}``.

    With several ``random_states`` a fold's value and each query's value are their means over the states.
    """
    rows = {}
    for name in names:
        entries = [[cache.get(_key(name, s, lr, trees, r)) for r in random_states]
                   for s in splits if s.dataset == dataset]
        if not entries or any(e is None or metric not in e for fold in entries for e in fold):
            continue
        tests = [float(np.mean([e[metric]["test"] for e in fold])) for fold in entries]
        per_query = np.concatenate([np.mean([e[metric]["per_query"] for e in fold], axis=0) for fold in entries])
        seconds = float(np.mean([e["seconds"] for fold in entries for e in fold]))
        rows[name] = (float(np.mean(tests)), tests, per_query, seconds)
    return rows


def _compare(a, b):
    # queries a metric cannot score (MAUC of a query with one class) are NaN for every
    # system alike: they are left out of the paired test
    a, b = np.asarray(a), np.asarray(b)
    scored = np.isfinite(a) & np.isfinite(b)
    return compare_per_query(a[scored], b[scored])


def _split_by_split(cache, splits, name, lr, trees, dataset, random_states, read) -> list[list[str]]:
    """``read(entry)`` of ``name``'s entry on each split of ``dataset`` (outer list), under each random state."""
    return [[read(cache[_key(name, s, lr, trees, r)]) for r in random_states] for s in splits if s.dataset == dataset]


def _kept_trials(cache, splits, names, lr, trees, dataset, random_states) -> list[str]:
    """A line under a table: the trial each tuned system's search kept on each split (0: the defaults)."""
    def kept(entry):
        return str(entry["tune"]["selected_trial"]) if "tune" in entry else "?"

    found = [f"{name}: " + ", ".join("/".join(states) for states in _split_by_split(
        cache, splits, name, lr, trees, dataset, random_states, kept)) for name in names]
    return ["", "Trial kept by each search, split by split: " + "; ".join(found) + "."] if found else []


def _trees_grown(entry: dict) -> str:
    """The trees a metricrank entry's fit grew: its record, or for an entry older than the record (stop 70) what
    its capacity checks show (two checks: "mixed"; one: the kind that ran it), else "?"."""
    if "grow_policy" in entry:
        return entry["grow_policy"]
    checks = entry["capacity_check"].split(" | ") if "capacity_check" in entry else []
    if len(checks) == 2:
        return "mixed"
    if len(checks) == 1:
        return "symmetric_then_leafwise" if "-> depth" in checks[0] else "leafwise"
    return "?"


def _trees_line(cache, splits, names, lr, trees, dataset, random_states) -> list[str]:
    """A line under a table: the trees each LambdaMART system's fit grew on each split (where any split says)."""
    found = {name: _split_by_split(cache, splits, name, lr, trees, dataset, random_states, _trees_grown)
             for name in names}
    said = [f"{name}: " + ", ".join("/".join(states) for states in kinds) for name, kinds in found.items()
            if any(kind != "?" for states in kinds for kind in states)]
    return ["", "Trees grown, split by split (? an entry older than this record that ran no capacity check): "
            + "; ".join(said) + "."] if said else []


def _saturation_line(cache, splits, names, lr, trees, dataset, metric, random_states) -> list[str]:
    """A line under a table: the splits on which every system scored 1, the judged metric's best, on every
    validation query at the tree count it kept. Each kept the first tree count that did, so there the tie-break,
    not the fit after it, decides the test values (the 50k set's MRR: BENCHMARKS.md, "Stop 81")."""
    perfect = [_split_by_split(cache, splits, name, lr, trees, dataset, random_states,
                               lambda entry: entry[metric]["vali"] >= 1.0) for name in names]
    folds = [s.fold for s in splits if s.dataset == dataset]
    saturated = [str(fold) for i, fold in enumerate(folds) if all(all(system[i]) for system in perfect)]
    if not saturated:
        return []
    return ["", f"Validation saturated on split{'s' if len(saturated) > 1 else ''} {', '.join(saturated)}: every "
                "system scored 1 on the validation queries at the tree count it kept, the first to reach 1, so which "
                "tree first scored 1 decides the test values there (`benchmarks/saturated_selection.py` reads them "
                "at every tree count tied at 1)."]


def _report(cache, splits, jobs, lr, trees, out: Path, random_states=(0,)) -> str:
    anchors = [name for name, _, _ in jobs if name in ANCHORS]
    names = [name for name, _, _ in jobs]
    lines = ["# Quality suite", "", f"Learning rate {lr}, {trees} trees, each library's defaults otherwise; "
             "tree count chosen on validation by the judged metric; mean test value over folds. "
             "Δ = system − best anchor; W/L and p: per-query Wilcoxon against the best anchor (queries the "
             "metric cannot score left out). Seconds: the fit plus the per-tree validation of the metrics the "
             "system is judged on (every judged metric for anchors and GBRanker, one for LambdaMART(M)), "
             "on a shared machine: indicative only. LambdaMART(M) is LambdaMART(metric=M) with every other "
             "parameter at its default: target=\"auto\" trains NDCG, MAP, graded ERR and MAUC on YetiRank, and MRR "
             "on YetiRank from 30,000 training documents and on PairLogit below. "
             "Where the capacity check runs (30,000 training documents and 100 queries), grow_policy=\"auto\" "
             "grows completed symmetric trees and leaf-wise trees side by side (\"mixed\", since stop 68), each kind "
             "sized by its own check; from 30,000 documents in fewer than 100 queries too (since stop 69, sized by "
             "the size rule); below 30,000 documents leaf-wise trees. So for NDCG, "
             "MAP, ERR and MAUC LambdaMART(M) is GBRanker(YetiRank)'s very model, judged by M, on MQ2008 and "
             "LightGBM's example, and for MRR GBRanker(PairLogit)'s; on the drawn sets it differs from "
             "GBRanker(YetiRank)'s model by its trees. Under a table, the trees each LambdaMART fit grew (an entry "
             "older than that record: read from its capacity checks, one per kind of tree), and the trial each "
             "tuned system's search kept on each split: 0 is the estimator as given (the defaults), ? an entry "
             "older than this record; and the splits, if any, where every system scored 1 on every validation "
             "query at the tree count it kept (the first to reach 1: there the tie-break decides)."]
    if len(random_states) > 1:
        lines[-1] += (f" Every system ran under random states {', '.join(map(str, random_states))}: a fold's "
                      "test value and each test query's value are their means over the states.")
    lines.append("")
    for dataset in dict.fromkeys(s.dataset for s in splits):
        lines += [f"## {dataset}", ""]
        for metric in JUDGED:
            rows = summarise(cache, splits, names, lr, trees, dataset, metric, random_states)
            anchor_rows = {k: v for k, v in rows.items() if k in anchors}
            if not anchor_rows:
                continue
            best = max(anchor_rows, key=lambda k: anchor_rows[k][0])
            lines += [f"### {metric}", "", "| system | test | Δ best anchor | W/L, p | seconds |",
                      "|---|---|---|---|---|"]
            for name, (mean, _, per_query, seconds) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
                cmp = _compare(per_query, anchor_rows[best][2]) if name != best else None
                lines.append(f"| {name}{' (best anchor)' if name == best else ''} | {mean:.4f} | "
                             f"{mean - anchor_rows[best][0]:+.4f} | "
                             f"{'' if cmp is None else f'{cmp.wins}/{cmp.losses}, {cmp.pvalue:.3g}'} | {seconds:.1f} |")
            lines += _trees_line(cache, splits, [n for n in rows if "LambdaMART(" in n], lr, trees, dataset,
                                 random_states)
            lines += _saturation_line(cache, splits, list(rows), lr, trees, dataset, metric, random_states)
            lines += _kept_trials(cache, splits, [n for n in rows if n.startswith("tuned")], lr, trees, dataset,
                                  random_states)
            lines.append("")
        _plot(cache, splits, names, lr, trees, dataset, out, random_states)
        lines += [f"![{dataset}]({dataset}.png)", ""]
    return "\n".join(lines)


def _plot(cache, splits, names, lr, trees, dataset, out: Path, random_states=(0,)) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, len(JUDGED), figsize=(4 * len(JUDGED), 5), sharey=False)
    for ax, metric in zip(axes, JUDGED):
        rows = summarise(cache, splits, names, lr, trees, dataset, metric, random_states)
        labels = list(rows)
        ax.boxplot([rows[k][1] for k in labels], orientation="horizontal")
        ax.set_yticks(range(1, len(labels) + 1), labels, fontsize=7)
        ax.set_title(metric, fontsize=9)
    fig.suptitle(f"{dataset}: test value per fold")
    fig.tight_layout()
    save_figure(fig, out / f"{dataset}.png", dpi=90)
