"""Optuna search of a ranker's tree parameters, scoring whole queries: :func:`tune`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.base import clone

from .._checks import check_early_stopping_rounds, check_flag, is_integer, is_real
from .._groups import group_ptr_from_qid
from .._row_refs import renumber_rows
from .._seeds import check_lightgbm_random_state, draw_seed
from ..data import RankingDataset
from ..metrics import evaluate, get_metric
from ..objectives._base import default_eval_spec
from ._selection import improvement_pvalue, query_folds, selection_level
from ._space import _check_space, _optuna, _suggest, _values_in_space, check_storage, default_param_space

__all__ = ["TuneResult", "fold_value", "trial_seconds", "tune"]

#: User attribute of the first trial: it fits the estimator as given (see ``start_from_estimator``).
AS_GIVEN = "estimator_as_given"


@dataclass
class TuneResult:
    """What :func:`tune` returns.

    Attributes
    ----------
    best_params_ : dict
        The best trial's parameters, plus ``n_estimators``: the refit's tree count
        (the mean over folds of the best iteration found by early stopping). When
        the first trial (the estimator's own values) is kept, the parameters the
        estimator leaves at ``"auto"`` (or, with "auto" trees, an unset
        ``max_depth``) stay as it has them: the refit is then the estimator
        itself, capacity check included, on all rows, as that trial's fits were
        on each fold. Another trial of the completed trees' search adds
        ``grow_policy="symmetric_then_leafwise"``.
    best_score_ : float
        Mean over folds of the metric on the held-out fold (the metric's own sign).
    best_estimator_ : estimator or None
        A clone of the estimator with ``best_params_``, fitted on all rows (None
        with ``refit=False``).
    study_ : optuna.Study
    folds_ : list of (train rows, test rows)
    metric_ : str
    elapsed_ : float
        Seconds spent (trials and refit).
    selected_trial_ : int
        Number of the trial whose parameters were kept (see ``selection``).
    selection_pvalue_ : float or None
        One-sided p-value of the best trial against the first (``selection="significant"``
        when they differ); None otherwise.
    selection_level_ : float or None
        The level it was compared with (:func:`selection_level` of the completed trials
        other than the first); None when no comparison was made.
    """

    best_params_: dict
    best_score_: float
    best_estimator_: Any
    study_: Any
    folds_: list = field(repr=False)
    metric_: str = ""
    elapsed_: float = 0.0
    selected_trial_: int = 0
    selection_pvalue_: float | None = None
    selection_level_: float | None = None

    def summary(self) -> dict:
        """What the search found, as plain JSON-ready values.

        ``best_params``, ``best_score``, ``metric``, ``selected_trial``,
        ``selection_pvalue`` and ``selection_level`` are the attributes of those
        names (numpy scalars made Python numbers); ``n_trials`` counts the
        completed and pruned trials (as :func:`tune`'s ``n_trials`` does),
        ``n_completed`` the completed ones (the selection's level divides its
        alpha by one fewer), ``n_pruned`` the pruned ones, ``n_failed`` the
        failed ones, ``n_unfinished`` those a stopped process left running or
        waiting in a stored study, ``folds`` the folds, and ``seconds`` is ``elapsed_``
        (this call's time); ``trial_seconds`` sums the completed and pruned
        trials' durations, those of earlier calls included when a stored search
        resumed.
        """
        trials = self.study_.trials  # (a stored study's trials are read from the storage)
        states = [t.state.name for t in trials]
        return {"best_params": {k: v.item() if isinstance(v, np.generic) else v for k, v in self.best_params_.items()},
                "best_score": float(self.best_score_), "metric": self.metric_,
                "n_trials": states.count("COMPLETE") + states.count("PRUNED"),
                "n_completed": states.count("COMPLETE"), "n_pruned": states.count("PRUNED"),
                "n_failed": states.count("FAIL"), "n_unfinished": states.count("RUNNING") + states.count("WAITING"),
                "folds": len(self.folds_), "seconds": float(self.elapsed_),
                "trial_seconds": trial_seconds(trials),
                "selected_trial": int(self.selected_trial_), "selection_pvalue": self.selection_pvalue_,
                "selection_level": self.selection_level_}

    def trials_dataframe(self):
        """``study_.trials_dataframe()`` (needs pandas)."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise ImportError("trials_dataframe needs pandas: pip install 'metricrank[pandas]'") from None
        return self.study_.trials_dataframe()


def trial_seconds(trials, started_before=None) -> float:
    """Summed durations of the completed and pruned ``trials`` (those started before the datetime
    ``started_before`` alone, when given: a resumed search's earlier runs)."""
    return sum(t.duration.total_seconds() for t in trials
               if t.state.name in ("COMPLETE", "PRUNED") and t.duration is not None
               and (started_before is None or t.datetime_start < started_before))


def _as_arrays(X, y, qid):
    """``(X, y, qid, dataset)``: the rows the folds take, and the RankingDataset they come from when it holds
    what rows of X, y and qid alone would drop (row or query weights, pairs, doc ids; else None)."""
    from ..data import RankingDataset

    if isinstance(X, RankingDataset):
        if y is not None or qid is not None:
            raise ValueError("pass either a RankingDataset or X, y, qid; not both")
        ds = X
        held = any(a is not None for a in (ds.weight, ds.group_weight, ds.pairs, ds.doc_ids))
        return ds.X, ds.y, ds.row_qid, (ds if held else None)
    import scipy.sparse as sp

    from ..learners._frames import _as_pandas, take_columns

    X, y, qid = take_columns(X, y, qid)  # y="label", qid="qid": columns of a DataFrame X, as fit takes them
    if y is None:
        raise ValueError("tune needs y (the labels), unless X is a RankingDataset")
    if qid is None:
        raise ValueError("tune needs qid= (the query id of every row): folds are made of whole queries")
    frame = _as_pandas(X)  # a polars frame becomes pandas, whose rows the folds take by position
    X = frame if frame is not None else X if sp.issparse(X) else np.asarray(X)
    qid, y = np.asarray(qid), np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or qid.ndim != 1 or not X.shape[0] == y.shape[0] == qid.shape[0]:
        raise ValueError(f"X must have a row and y and qid an entry per document; got shapes X {X.shape}, "
                         f"y {y.shape}, qid {qid.shape}")
    group_ptr_from_qid(qid, source="qid")  # rows of a query contiguous
    return X, y, qid, None


def _fold_queries(dataset, rows, label: str = "these rows") -> np.ndarray:
    """Positions of the queries of ``dataset`` whose rows are ``rows`` (sorted); a fold that takes part of a
    query is refused: the data set's subsets are whole queries, with their weights and pairs."""
    row_query = np.repeat(np.arange(dataset.n_queries), dataset.query_sizes)
    queries = np.unique(row_query[rows])
    if int(dataset.query_sizes[queries].sum()) != rows.size:
        cut = next(q for q in queries if np.count_nonzero(row_query[rows] == q) != dataset.query_sizes[q])
        raise ValueError(f"{label} take part of the rows of query {dataset.query_ids[cut].item()!r}; with a "
                         "RankingDataset that holds weights, pairs or doc ids, folds take whole queries")
    return queries


def _rows(X, rows):
    """Rows of an array, sparse matrix or pandas DataFrame, by position."""
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def fold_value(estimator, params, X, y, qid, train, test, metric, early_stopping_rounds, per_query=False,
               callbacks=(), dataset=None):
    """Fit ``clone(estimator).set_params(**params)`` on ``train`` rows with early stopping on ``test``.

    Returns ``(value of metric on the test rows, trees used)``: the trial's score on one fold;
    with ``per_query=True`` also the metric of every test query (NaN where it is undefined).
    ``callbacks`` go to the fit (they see the test rows' metric after each tree). With ``dataset``
    (the RankingDataset that ``X``, ``y`` and ``qid`` are the rows of), the fit and the test value
    read its weights, pairs and doc ids on each side: ``train`` and ``test`` are then whole queries.
    """
    est = clone(estimator).set_params(**params)
    preset = getattr(est, "preset", None)
    try:
        if dataset is not None:
            train_set, test_set = (dataset.subset_queries(_fold_queries(dataset, rows)) for rows in (train, test))
            est.fit(train_set, eval_set=[test_set], eval_metrics=[metric],
                    early_stopping_rounds=early_stopping_rounds, callbacks=callbacks)
            truth, scores, where = test_set, est.predict(test_set.X), {}
        else:
            Xtr, Xte = _rows(X, train), _rows(X, test)
            est.fit(Xtr, y[train], qid=qid[train], eval_set=[(Xte, y[test], qid[test])], eval_metrics=[metric],
                    early_stopping_rounds=early_stopping_rounds, callbacks=callbacks)
            truth, scores, where = y[test], est.predict(Xte), {"qid": qid[test]}
    except ValueError as err:  # a label check counts the fold's rows: said as rows of the data tune was given
        if "label" not in str(err):
            raise
        rows = test if str(err).startswith("eval set") else train
        raise ValueError(renumber_rows(str(err), np.sort(rows) if dataset is not None else rows)) from None
    trees = est.best_iteration_ or est.n_estimators_
    value = evaluate(truth, scores, metric=metric, preset=preset, **where)
    if not per_query:
        return float(value), int(trees)
    values = evaluate(truth, scores, metric=metric, preset=preset, per_query=True, **where)
    return float(value), int(trees), np.asarray(values, dtype=np.float64)


# In-fold reports start at this share of a fold's tree budget. The learning rate is searched: before
# that, a trial with a low rate is behind the others by its speed, not by where its trees end. Replayed
# on 20 recorded searches, 0.4 and below cut more searches' best trials than fold-end reports alone,
# 0.5 none more, and it saved a median 13% of the time on the drawn sets (BENCHMARKS.md, "Stop 60").
PRUNE_FROM_BUDGET_SHARE = 0.5


def _tree_stride(estimator, space) -> int:
    """Steps reserved per fold in the trials' reports: the most trees a trial may grow."""
    dist = space.get("n_estimators")
    if dist is None:
        return int(estimator.get_params()["n_estimators"])
    return int(max(dist.choices) if hasattr(dist, "choices") else dist.high)


class _InFoldReports:
    """Reports a trial's value to Optuna while a fold's trees grow, and prunes it.

    At step ``fold * stride + trees`` the value is the mean over the folds done and, for
    this fold, the value the fold would have if it ended now: with early stopping the best
    held-out value of its trees so far (the trees it keeps), without it the last tree's.
    Reports start at ``PRUNE_FROM_BUDGET_SHARE`` of the budget. The fold's end reports at
    step ``(fold + 1) * stride``, the same step for every trial.
    """

    def __init__(self, trial, fold: int, stride: int, done: list, higher_is_better: bool, keeps_best: bool):
        self.trial, self.stride, self.done, self.higher = trial, stride, list(done), higher_is_better
        self.keeps_best = keeps_best
        self.first_step = fold * stride
        self.start = max(1, int(np.ceil(PRUNE_FROM_BUDGET_SHARE * stride)))
        self.kept = None

    def __call__(self, info) -> None:
        (values,) = info.evaluations.values()  # the fold's held-out rows, judged by the tuned metric only
        (value,) = values.values()
        if not self.keeps_best or self.kept is None or (value > self.kept if self.higher else value < self.kept):
            self.kept = value
        if self.start <= info.iteration < self.stride:
            self.trial.report((sum(self.done) + self.kept) / (len(self.done) + 1), self.first_step + info.iteration)
            if self.trial.should_prune():
                raise _optuna().TrialPruned(f"pruned at tree {info.iteration} of fold {len(self.done) + 1}")


class _GrowingPatience:
    """Stops a fit once its held-out value has not improved for ``max(rounds, best tree so far)`` trees.

    :func:`tune`'s first trial, the estimator as given, stops by it: the reference the other trials must
    beat is not cut short where its curve rises slowly and unevenly (a fixed patience of 30 stopped the
    suite's 50k defaults at 188 of 300 trees, 0.006 below their budget's best), and a large tree budget is
    not grown to its end (past twice the best tree so far).
    """

    def __init__(self, rounds: int, higher_is_better: bool):
        from ..learners._boosting import StoppingRule

        self.rounds = int(rounds)
        self.rule = StoppingRule(None, higher_is_better)  # tracks the best tree; never stops by itself

    def __call__(self, info) -> bool:
        (values,) = info.evaluations.values()  # the fold's held-out rows, judged by the tuned metric only
        (value,) = values.values()
        self.rule.observe(info.iteration, value, "")
        return info.iteration - self.rule.best_iter >= max(self.rounds, self.rule.best_iter)


class _RichProgress:
    def __init__(self, total, enabled, label, done=0):
        self.total, self.enabled, self.label, self.done = total, enabled, label, done
        self.progress = None

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(TextColumn("trials"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                     TextColumn("{task.description}"), console=Console(stderr=True))
            self.progress.__enter__()
            self.task = self.progress.add_task("", total=self.total, completed=self.done)
        return self

    def __call__(self, study, trial):
        if self.progress is None:
            return
        try:
            best = f"best {self.label}={study.best_value:.5f} (trial {study.best_trial.number})"
        except ValueError:
            best = "no completed trial yet"
        pruned = sum(t.state.name == "PRUNED" for t in study.trials)
        self.progress.update(self.task, advance=1, description=f"{best}, {pruned} pruned")

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.__exit__(*exc)
        return False


SEARCH_RECORD = "metricrank_search"  # the study's user attribute that says which search wrote it


def _digest(*arrays) -> str:
    """SHA-256 over the arrays' content digests: :func:`~metricrank.learners._dataset_cache.data_digest` (values,
    shape, dtype, sparse structure), object arrays by their values as text (not the objects' addresses), data frames
    by pandas' row hashes and their columns' names and dtypes."""
    import hashlib

    import scipy.sparse as sp

    from ..learners._dataset_cache import data_digest

    h = hashlib.sha256()
    for a in arrays:
        if hasattr(a, "iloc"):  # a pandas DataFrame (tune's own): its values may be objects
            import pandas as pd

            h.update(repr(list(zip(map(str, a.columns), map(str, a.dtypes)))).encode())
            a = pd.util.hash_pandas_object(a, index=False).to_numpy()
        elif not sp.issparse(a):
            a = np.asarray(a)
            if a.dtype == object:
                a = a.astype(str)
        h.update(data_digest(a).encode())
    return h.hexdigest()


def _search_record(estimator, X, y, qid, metric, folds, space, start_params, early_stopping_rounds, trial_policy,
                   dataset=None):
    """What makes two calls of :func:`tune` the same search, as strings (a stored study's user attribute)."""
    params = {k: v for k, v in estimator.get_params(deep=False).items() if k != "n_jobs"}
    held = () if dataset is None else [np.zeros(0) if a is None else a for a in (  # a None not taken for an array
        dataset.weight, dataset.group_weight, dataset.pairs, dataset.pair_weight, dataset.doc_ids)]
    return {"estimator": f"{type(estimator).__name__}{sorted(params.items())!r}", "metric": str(metric),
            "data": _digest(X, y, qid, *held), "folds": _digest(*(i for fold in folds for i in fold)),
            "space": repr(sorted((k, repr(v)) for k, v in space.items())),
            "first trial": repr(sorted(start_params.items())),
            "early_stopping_rounds": repr(early_stopping_rounds), "trees grown": repr(trial_policy)}


def _check_stored_search(study, record: dict) -> None:
    """Record the search in a new stored study; else fail unless the study holds this very search."""
    stored = study.user_attrs.get(SEARCH_RECORD)
    if stored is None:
        if study.get_trials(deepcopy=False):
            raise ValueError(f"study {study.study_name!r} in this storage holds trials that tune did not record; "
                             "pass another study_name")
        study.set_user_attr(SEARCH_RECORD, record)
        return
    differ = [key for key in record if stored.get(key) != record[key]]
    if differ:
        raise ValueError(f"study {study.study_name!r} in this storage holds another search: its "
                         f"{', '.join(differ)} differ from this call's; pass another study_name, or call tune as the "
                         "search that wrote it was called")


def tune(estimator, X, y=None, *, qid=None, metric=None, n_trials=30, cv=3, param_space=None,
         early_stopping_rounds=30, timeout=None, random_state=None, n_jobs=1, show_progress=True,
         sampler=None, pruner=None, start_from_estimator=True, selection="significant", storage=None,
         study_name=None, refit=True) -> TuneResult:
    """Search a ranker's tree parameters with Optuna, scoring whole queries.

    Each trial samples parameters, then for every fold fits a clone of
    ``estimator`` on the training queries with early stopping on the held-out
    queries (``estimator.n_estimators`` is the cap) and evaluates ``metric`` per
    query on them. The pruner (median by default) stops poor trials early: the
    mean so far is reported to Optuna after each fold and, from half of the tree
    budget on, after each tree, with the fold's value as it would be if it ended
    there (with early stopping, its best tree's) in place of its final one. Fold
    ``k``'s tree ``t`` is step ``k * n_estimators + t``, its end step
    ``(k + 1) * n_estimators``. So a single train -> validation split prunes
    too. The trial's value is the mean over folds. Note that the held-out fold
    both stops the trees and scores the trial (as LightGBM's own tuners do):
    the value is slightly optimistic, more so with few queries per fold.

    Parameters
    ----------
    estimator : GBRanker or LambdaMART (unfitted)
    X : array-like, sparse matrix, pandas or polars DataFrame, or RankingDataset
        A RankingDataset's row and query weights, pairs (with their weights) and
        doc ids are read on both sides of every fold, as ``fit`` and
        ``evaluate`` read them, and by the refit: each fold's training and test
        sets are whole queries of it (:meth:`RankingDataset.subset_queries`).
        The selection's Wilcoxon test pairs the held-out queries unweighted.
    y : array-like of shape (n,) or str; omit with a RankingDataset
        The labels, or the name of X's label column (a DataFrame's, as ``fit`` takes it).
    qid : array-like of shape (n,) or str
        Query id of every row (rows of a query contiguous), or the name of X's query id column.
    metric : str, optional
        Metric spec to optimise; default the estimator's objective metric.
    n_trials : int, default 30
    cv : int, splitter or iterable of (train, test), default 3
        Folds by query (:func:`query_folds`).
    param_space : dict, optional
        ``{parameter: optuna distribution or list of choices}``; default
        :func:`default_param_space` for the trees the estimator grows. For
        ``grow_policy="auto"`` (LambdaMART's default) that is the depth of
        completed symmetric trees where every training fold is large enough
        for "auto" to grow them (30,000 documents and 100 queries, the leaves
        left "auto"), and every trial but
        the first then fits ``grow_policy="symmetric_then_leafwise"`` (the
        first, as given, grows ``"mixed"`` trees there: completed ones beside
        leaf-wise ones); elsewhere the leaf-wise space (from 30,000 documents
        with fewer than 100 queries the first trial, as given, grows
        ``"mixed"`` trees by the size rule, and the others leaf-wise trees of
        the searched sizes).
    early_stopping_rounds : int, default 30
        Each trial stops a fold's trees this many trees after its best held-out
        value, and is scored at that best tree. The first trial, the estimator as
        given (``start_from_estimator``), waits longer: as many trees as its best
        tree so far, if that is more, so at most about twice its best. A fixed
        patience cuts a slowly rising curve short and judges the estimator below
        what its own budget reaches, the reference the other trials must beat (in
        the quality suite, a search kept a trial that beat the defaults stopped
        at 188 of 300 trees at p = 0.00064, against p = 0.26 for the defaults'
        whole budget, and that trial scored 0.015 below the defaults on test:
        BENCHMARKS.md, "Stop 80").
    timeout : float, optional
        Stop starting trials after this many seconds.
    random_state : int in [0, 2**31), numpy RandomState or Generator, optional
        Seeds the folds' shuffle, Optuna's TPE sampler and, when the estimator's own
        ``random_state`` is None, the estimator: the search is then deterministic
        (with ``n_jobs=1``). A RandomState or Generator is drawn from once per call,
        and that seed serves all three.
    n_jobs : int, default 1
        Trials run in parallel (Optuna threads; -1: one per core).
    show_progress : bool, default True
        A rich progress bar on stderr with the best value so far.
    sampler, pruner : Optuna sampler / pruner, optional
        Default ``TPESampler(seed=random_state)`` and ``MedianPruner(n_startup_trials=5)``.
    start_from_estimator : bool, default True
        The first trial takes the estimator's own values of the searched
        parameters (those that lie in the space; the others are sampled), so
        the search starts from the defaults measured in BENCHMARKS.md and its
        best trial is never worse, on its own folds, than the estimator you
        passed. Parameters the estimator leaves at ``"auto"`` stay ``"auto"``
        in that trial's fits, so each fold resolves them as the estimator's own
        fit would: by the size rule, and from 30,000 training documents by the
        capacity check and, for LambdaMART, completed symmetric trees beside
        leaf-wise ones (``"mixed"``, each kind sized by its own check). The trial records them as the size rule's
        values (the depth as that of the rule's leaves, where the check
        starts), which is what they resolve to below 30,000 documents. On small data a 20-trial search
        without that anchor can end on parameters that score worse on new
        queries than the defaults.
    selection : {"significant", "best"}, default "significant"
        ``"best"``: the trial with the best mean over folds. ``"significant"``
        (with ``start_from_estimator``): that trial only if it beats the first
        trial (the estimator's own parameters) on the held-out queries of all
        folds by a one-sided paired Wilcoxon test (:func:`improvement_pvalue`)
        at p < 0.05 / (completed trials - 1) (:func:`selection_level`: it is the
        best of that many); otherwise the first trial. The best of many trials
        on a few hundred held-out queries is partly luck: on the LETOR sets of
        the quality suite, taking it scored below the defaults on new queries
        (BENCHMARKS.md, "Quality suite").
    storage : str or optuna.storages.BaseStorage, optional
        Where Optuna keeps the study (a database URL such as
        ``"sqlite:///search.db"``, or a storage object such as a
        ``JournalStorage``; a URL is checked before any trial: SQLite's file must
        lie in a writable directory), so that a search stopped part-way can go on: called
        again with the same storage and ``study_name``, on the same data, with
        the same estimator, metric, folds and space, ``tune`` runs only the
        trials the study lacks (``n_trials`` counts its completed and pruned
        trials; failed ones, and those a stopped process left running, are
        neither counted nor read, and the first trial, the estimator as given,
        runs again if it did not finish), then selects and refits from the whole
        study.
        A study written by another search raises a ``ValueError`` that names what
        differs. The sampler continues from the stored trials, so a resumed
        search need not draw the trials an uninterrupted one would have.
        ``elapsed_`` is the time of this call. Default: a study in memory.
    study_name : str, optional
        The study's name in ``storage`` (default ``"metricrank-tune"``).
    refit : bool, default True
        Fit ``best_estimator_`` on all rows with ``best_params_``. With False it
        is None: for a caller that trains the kept parameters its own way (with
        an evaluation set, say), the refit would be a wasted fit.

    Returns
    -------
    TuneResult

    Examples
    --------
    >>> from metricrank import LambdaMART, make_ltr, tune
    >>> ds = make_ltr(30, docs_per_query=(5, 10), n_features=5, n_informative=3, random_state=0)
    >>> result = tune(LambdaMART(metric="NDCG:top=5", n_estimators=20), ds.X, ds.y, qid=ds.qid,
    ...               n_trials=3, random_state=0, show_progress=False)
    >>> result.summary()["n_completed"], result.summary()["folds"]
    (3, 3)
    >>> result.best_params_["n_estimators"] <= 20   # the trees the kept trial's folds stopped at
    True
    >>> scores = result.best_estimator_.predict(ds.X)   # refitted on every row with best_params_
    """
    from ..learners import GBRanker
    from ..learners._gbdt import check_stopping_with
    from ..learners._inputs import check_labels_for, unmoved_warnings_silenced, warn_unmoved_metrics

    if not isinstance(estimator, GBRanker):  # the space, the tree budget and the in-fold reports are the trees'
        raise TypeError(f"tune searches the trees of GBRanker and LambdaMART; got {type(estimator).__name__}: search "
                        "another ranker with scikit-learn's searches, scoring=metricrank.make_scorer(metric) and "
                        "cv=GroupKFold (README, \"Tuning\")")
    optuna = _optuna()
    start = time.perf_counter()
    X, y, qid, dataset = _as_arrays(X, y, qid)
    if selection not in ("significant", "best"):
        raise ValueError(f"selection must be 'significant' or 'best'; got {selection!r}")
    check_flag(refit, "refit")
    if not (is_integer(n_trials) and n_trials >= 1):
        raise ValueError(f"n_trials must be a positive integer; got {n_trials!r}")
    if not (timeout is None or (is_real(timeout) and timeout > 0)):
        raise ValueError(f"timeout must be None or a positive number of seconds; got {timeout!r}")
    check_lightgbm_random_state(random_state)
    random_state = draw_seed(random_state)  # one seed for the estimator, the folds and TPE
    check_flag(show_progress, "show_progress")
    check_flag(start_from_estimator, "start_from_estimator")
    if not (study_name is None or isinstance(study_name, str)):
        raise ValueError(f"study_name must be a string or None; got {study_name!r}")
    if not (param_space is None or isinstance(param_space, dict)):
        raise ValueError(f"param_space must be a dict (parameter: Optuna distribution or list of choices) or None; "
                         f"got {param_space!r}")
    if not is_integer(n_jobs) or not (n_jobs >= 1 or n_jobs == -1):
        raise ValueError(f"n_jobs must be a positive integer or -1 (Optuna: a trial per core); got {n_jobs!r}")
    if isinstance(storage, str):
        check_storage(storage)
    check_early_stopping_rounds(early_stopping_rounds)
    check_stopping_with(estimator.lgb_params, early_stopping_rounds)
    estimator = clone(estimator)
    if random_state is not None and "random_state" in estimator.get_params() and estimator.random_state is None:
        estimator.set_params(random_state=random_state)
    if metric is None:
        objective = estimator._make_objective() if hasattr(estimator, "_make_objective") else None
        metric = default_eval_spec(objective, y)
    preset = getattr(estimator, "preset", None)
    m = get_metric(metric, preset=preset)  # fails now on a bad spec
    whole = dataset if dataset is not None else RankingDataset(np.zeros((y.size, 1)), y, qid=qid)
    # every row is on some fold's test side: its labels checked once, here, not in the first trial's fits
    check_labels_for(whole, [metric], preset, where=f"metric {metric}")
    # said once, here, for the whole data; the trials' fits then keep quiet about it
    unmoved = warn_unmoved_metrics([("the data", whole)], [metric], preset, purpose="compares the trials")
    folds = query_folds(qid, cv, random_state)
    if dataset is not None:  # its subsets are whole queries
        for k, fold in enumerate(folds):
            for side, rows in zip(("training", "test"), fold):
                _fold_queries(dataset, rows, f"cv's fold {k}'s {side} rows")
    n_train = min(tr.size for tr, _ in folds)
    policy = getattr(estimator, "grow_policy", "leafwise")
    trial_policy = {}  # set in every trial but the first
    if policy == "auto" and param_space is None and hasattr(estimator, "_auto_completes"):
        # where every training fold makes "auto" complete symmetric trees, the trials search their depth
        n_train_queries = min(np.unique(qid[tr]).size for tr, _ in folds)
        policy = "symmetric_then_leafwise" if estimator._auto_completes(n_train, n_train_queries, metric) \
            else "leafwise"
        if policy != "leafwise":
            trial_policy = {"grow_policy": policy}
    if param_space is None:
        param_space = default_param_space(n_train, policy)
    space = _check_space(estimator, param_space)
    stride = _tree_stride(estimator, space)

    def objective(trial):
        params = {name: _suggest(trial, name, dist) for name, dist in space.items()}
        if trial.user_attrs.get(AS_GIVEN):
            # the first trial fits the estimator as given: what it resolves from the data stays unset on each fold
            params = {k: v for k, v in params.items() if k not in own_resolved}
        else:
            params.update(trial_policy)
        values, trees, queries = [], [], []
        first = early_stopping_rounds is not None and trial.user_attrs.get(AS_GIVEN)
        # the first trial stops by _GrowingPatience; its own rule, patient for more trees than any trial may grow
        # (the stride), only keeps the best
        rounds = max(early_stopping_rounds, stride) if first else early_stopping_rounds
        try:
            for k, (train, test) in enumerate(folds):
                reports = _InFoldReports(trial, k, stride, values, m.higher_is_better,
                                         keeps_best=early_stopping_rounds is not None)
                callbacks = [reports]
                if first:
                    callbacks.append(_GrowingPatience(early_stopping_rounds, m.higher_is_better))
                value, n, per_query = fold_value(estimator, params, X, y, qid, train, test, metric,
                                                 rounds, per_query=True, callbacks=callbacks, dataset=dataset)
                values.append(value)
                trees.append(n)
                queries.append(per_query)
                trial.report(float(np.mean(values)), step=(k + 1) * stride)
                if k < len(folds) - 1 and trial.should_prune():
                    raise optuna.TrialPruned()
        finally:
            trial.set_user_attr("fold_values", values)  # the folds done, a pruned trial's too
        trial.set_user_attr("best_iterations", trees)
        trial.set_user_attr("query_values", np.concatenate(queries).tolist())
        return float(np.mean(values))

    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)  # the progress bar reports; restored below
    start_params = _values_in_space(estimator, space, n_train, policy) if start_from_estimator else {}
    own = estimator.get_params(deep=False)
    # the estimator's own values that its fits resolve: "auto", and the depth the capacity check chooses
    own_resolved = {k for k in start_params if (isinstance(own[k], str) and own[k] == "auto")
                    or (k == "max_depth" and trial_policy and own[k] <= 0)}
    if study_name is None and storage is not None:
        study_name = "metricrank-tune"
    try:
        study = optuna.create_study(
            direction="maximize" if m.higher_is_better else "minimize",
            sampler=sampler if sampler is not None else optuna.samplers.TPESampler(seed=random_state),
            pruner=pruner if pruner is not None else optuna.pruners.MedianPruner(n_startup_trials=5),
            storage=storage, study_name=study_name, load_if_exists=storage is not None,
        )
        if storage is not None:
            _check_stored_search(study, _search_record(estimator, X, y, qid, metric, folds, space, start_params,
                                                       early_stopping_rounds, trial_policy, dataset))
        # a stored study goes on: its completed and pruned trials count, and the estimator as given runs unless a
        # trial of it finished or waits (a failed one, or one a stopped process left running, does not count)
        finished_states = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
        stored = study.get_trials(deepcopy=False)
        done = sum(t.state in finished_states for t in stored)
        given_states = (*finished_states, optuna.trial.TrialState.WAITING)
        if start_params and not any(t.user_attrs.get(AS_GIVEN) and t.state in given_states for t in stored):
            study.enqueue_trial(start_params, user_attrs={AS_GIVEN: True})
        if done < n_trials:
            with _RichProgress(int(n_trials), show_progress, metric, done) as progress, \
                    unmoved_warnings_silenced(unmoved):
                study.optimize(objective, n_trials=int(n_trials) - done, timeout=timeout, n_jobs=n_jobs,
                               callbacks=[progress], catch=())
    finally:
        optuna.logging.set_verbosity(verbosity)
    try:
        best = study.best_trial
    except ValueError:
        raise RuntimeError("no trial completed (all pruned or stopped by the timeout); raise n_trials or timeout") \
            from None
    completed = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    first = next((t for t in completed if t.user_attrs.get(AS_GIVEN)), None) if start_params else None
    pvalue = level = None
    if selection == "significant" and first is not None and best.number != first.number:
        pvalue = improvement_pvalue(best.user_attrs["query_values"], first.user_attrs["query_values"],
                                    m.higher_is_better)
        level = selection_level(len(completed) - 1)
        if not pvalue < level:
            best = first
    best_params = dict(best.params)
    if first is not None and best.number == first.number:
        # the defaults kept: the refit is the estimator as given, as its trial was on every fold
        best_params.update({k: own[k] for k in own_resolved})
    else:
        best_params.update(trial_policy)
    best_params["n_estimators"] = max(1, int(round(float(np.mean(best.user_attrs["best_iterations"])))))
    final = None
    if refit:
        final = clone(estimator).set_params(**best_params)
        # judged as the trials' fits were: policy and capacity check
        with unmoved_warnings_silenced(unmoved):
            if dataset is not None:
                final.fit(dataset, eval_metrics=[metric])
            else:
                final.fit(X, y, qid=qid, eval_metrics=[metric])
    return TuneResult(best_params_=best_params, best_score_=float(best.value), best_estimator_=final, study_=study,
                      folds_=folds, metric_=metric, elapsed_=time.perf_counter() - start,
                      selected_trial_=best.number, selection_pvalue_=pvalue, selection_level_=level)
