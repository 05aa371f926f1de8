"""DaskGBRanker and DaskLambdaMART: metricrank objectives on ``lightgbm.dask``.

Each estimator is a thin distributed front end to its single-machine twin
(:class:`~metricrank.GBRanker`, :class:`~metricrank.LambdaMART`): parameters,
their defaults and their validation are the twin's (the defaults are read from
the twin's ``get_params()``, so the two cannot drift), the objective is the
twin's, and the fitted model is a fitted twin (:meth:`DaskGBRanker.to_local`).
"""

from __future__ import annotations

import contextlib
import copy
import io
import re
import warnings
from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .._checks import check_early_stopping_rounds, check_flag
from .._seeds import draw_seed
from ..learners._boosting import per_model
from ..learners._frames import column_schema, refuse_named_weights
from ..learners._gbdt import check_stopping_with
from ..learners._inputs import (check_eval_labels, check_num_iteration, check_start_iteration, eval_set_of,
                                eval_specs, eval_starting_scores, warn_unmoved, warn_unmoved_metrics,
                                name_training, training_entries, warn_unordered_labels,
                                warn_unread_eval_weights)
from ..learners._param_names import NamesUnknownKeywords
from ..learners.gbranker import GBRanker
from ..learners.lambdamart import LambdaMART
from ..metrics import get_metric
from ..model_selection import RankerScoreMixin
from ._early_stopping import gather_eval_sets, per_tree_curves, select_iteration
from ._objective import WorkerObjective, check_distributable, hessian_mass_of_partitions
from ._partitions import (_is_dask, _is_dask_frame, as_dask_inputs, check_query_layout, metric_order_moves,
                          partition_by_query)

__all__ = ["DaskGBRanker", "DaskLambdaMART"]

#: Single-machine parameters with no distributed meaning, and why (a Dask estimator refuses them with this).
#: ``n_models`` is distributed: the side-by-side models are LightGBM's score
#: columns, and the workers' objective draws each column's gradient in turn.
NOT_DISTRIBUTED = {
    "n_jobs": "LightGBM's Dask interface sets each worker's threads to the worker's own thread count "
              "(lgb_params={'num_threads': ...} overrides it)",
    "verbose": "the trees are grown inside one distributed call, so there is no per-tree printout",
    "grow_policy": "the trees grow leaf-wise (the symmetric kinds need the capacity check's fits)",
}

_GB = GBRanker().get_params()
_LM = LambdaMART().get_params()


def _predict_block(block, model, iterations):
    if block.shape[0] == 0:
        return np.zeros(0)
    return model.predict(block, **iterations)


def _predict_frame(frame, model, iterations, as_array: bool):
    import pandas as pd

    values = frame.to_numpy(dtype=np.float64) if as_array else frame
    scores = model.predict(values, **iterations) if len(frame) else np.zeros(0)
    return pd.Series(scores, index=frame.index, name="score")


def _without_network(booster):
    """``(booster, number of LightGBM machines)``, the run's network parameters blanked in the model text.

    Worker addresses and ports are a record of where the model trained,
    meaningless (and leaking host names) in a model file used elsewhere.
    """
    import lightgbm as lgb

    text = booster.model_to_string()
    found = re.search(r"^\[num_machines: (\d+)\]$", text, flags=re.M)
    machines = int(found.group(1)) if found else 1
    text = re.sub(r"^\[machines: .*\]$", "[machines: ]", text, flags=re.M)
    text = re.sub(r"^\[num_machines: \d+\]$", "[num_machines: 1]", text, flags=re.M)
    text = re.sub(r"^\[local_listen_port: \d+\]$", "[local_listen_port: 12400]", text, flags=re.M)
    return lgb.Booster(model_str=text), machines


def _check_finite(scores, name: str) -> None:
    """Raise ValueError naming the first row of the dask vector ``scores`` that is not finite (one pass)."""
    import dask.array as da

    finite = da.isfinite(scores)
    if not bool(finite.all().compute()):
        row = int(da.argmin(finite).compute())
        raise ValueError(f"{name} must be finite; row {row} is {float(scores[row].compute())}")


class DaskGBRanker(RankerScoreMixin, NamesUnknownKeywords, BaseEstimator):
    """:class:`~metricrank.GBRanker` trained on a Dask cluster by ``lightgbm.dask``.

    Every worker runs the metricrank objective over the rows of its own
    partitions (LightGBM's data-parallel learner merges the histograms), so a
    query must lie in one partition; rows of a query must be contiguous, as
    on one machine. Use inside an active ``distributed.Client`` (or pass
    ``client=``). :meth:`score` is GBRanker's (default: the objective's
    evaluation metric, per query); it evaluates on the client, so dask
    scores, labels and query ids are computed there.

    Parameters
    ----------
    objective, n_estimators, learning_rate, num_leaves, min_data_in_leaf, min_sum_hessian_in_leaf, lambda_l2, \
path_smooth, extra_trees, max_depth, max_bin, feature_fraction, bagging_fraction, bagging_freq, n_models, preset, \
max_query_size, random_state, importance_type, lgb_params
        As :class:`~metricrank.GBRanker`, with its defaults (``n_models="auto"``:
        four YetiRank models side by side, LightGBM's score columns, averaged). ``lgb_params`` may
        also set LightGBM's distributed options (``tree_learner``: ``data``
        (default), ``voting`` or ``feature``; ``time_out``; ``machines``...).
        Objectives with pairwise leaves (``PairLogitPairwise``,
        ``YetiRankPairwise``) are rejected. A stochastic objective (YetiRank,
        Stochastic*) seeds each worker from ``random_state`` and the worker's
        own rows (see :func:`metricrank.dask._objective.worker_seed`).
        ``num_leaves="auto"`` and ``extra_trees="auto"`` follow the size rule
        only (so ``lambda_l2="auto"`` is the rule's: 10, or 1 for randomised
        trees averaged over several models from 5,000 training documents or of
        15 leaves or more; at most 750 times the mean hessian per row over the
        partitions and at least 0.1): GBRanker's
        capacity check (extra fits on held-out training queries,
        :mod:`metricrank.learners._capacity`) does not run on a cluster, and the
        trees grow leaf-wise (``LambdaMART``'s ``grow_policy="auto"`` chooses
        its completed symmetric trees only where that check runs).
    repartition_by_query : bool, default False
        Repartition the training data with :func:`partition_by_query` (query
        ids read to the client; a shuffle if rows of a query are scattered)
        instead of rejecting a query split across partitions.
    client : distributed.Client, optional
        Default: the active client (``distributed.default_client()``).

    Attributes
    ----------
    booster_, objective_, n_features_in_, evals_result_, best_iteration_, best_score_, n_estimators_, stop_reason_
        As :class:`~metricrank.GBRanker`. With ``eval_set`` all ``n_estimators``
        trees are grown; the per-tree metrics are then computed on the client
        and early stopping keeps the trees up to where GBRanker would have
        stopped (see :mod:`metricrank.dask._early_stopping`).
    num_leaves_, extra_trees_, lambda_l2_, n_models_
        The tree settings used, "auto" resolved (the size rule's, as GBRanker's without its capacity check).
    feature_names_in_ : ndarray of str
        Feature columns, when fitted on a dask DataFrame.
    n_partitions_ : int
        Training partitions (after repartitioning).
    n_workers_ : int
        Workers that trained: those holding training partitions (LightGBM's ``num_machines``).

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from metricrank import make_ltr, evaluate
    >>> from metricrank.dask import DaskGBRanker, partition_by_query
    >>> ds = make_ltr(60, n_features=8, random_state=0)
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
    ...                   dashboard_address=None) as cluster, Client(cluster):
    ...     X, y, qid = partition_by_query(da.from_array(ds.X), ds.y, ds.qid, npartitions=2)
    ...     model = DaskGBRanker("lambda:NDCG:top=10", n_estimators=20, min_data_in_leaf=5,
    ...                          random_state=0).fit(X, y, qid=qid)
    ...     scores = model.predict(X).compute()
    >>> bool(evaluate(ds, model.to_local().predict(ds.X), metric="NDCG:top=10") > 0.8)
    True
    """

    _local_class = GBRanker
    _absent_params = NOT_DISTRIBUTED

    def __init__(self, objective=_GB["objective"], *, n_estimators=_GB["n_estimators"],
                 learning_rate=_GB["learning_rate"], num_leaves=_GB["num_leaves"],
                 min_data_in_leaf=_GB["min_data_in_leaf"], min_sum_hessian_in_leaf=_GB["min_sum_hessian_in_leaf"],
                 lambda_l2=_GB["lambda_l2"], path_smooth=_GB["path_smooth"],
                 extra_trees=_GB["extra_trees"], max_depth=_GB["max_depth"],
                 max_bin=_GB["max_bin"],
                 feature_fraction=_GB["feature_fraction"], bagging_fraction=_GB["bagging_fraction"],
                 bagging_freq=_GB["bagging_freq"], n_models=_GB["n_models"], preset=_GB["preset"],
                 max_query_size=_GB["max_query_size"], random_state=_GB["random_state"],
                 importance_type=_GB["importance_type"],
                 lgb_params=_GB["lgb_params"], repartition_by_query=False, client=None):
        self.objective = objective
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_data_in_leaf = min_data_in_leaf
        self.min_sum_hessian_in_leaf = min_sum_hessian_in_leaf
        self.lambda_l2 = lambda_l2
        self.path_smooth = path_smooth
        self.extra_trees = extra_trees
        self.max_depth = max_depth
        self.max_bin = max_bin
        self.feature_fraction = feature_fraction
        self.bagging_fraction = bagging_fraction
        self.bagging_freq = bagging_freq
        self.n_models = n_models
        self.preset = preset
        self.max_query_size = max_query_size
        self.random_state = random_state
        self.importance_type = importance_type
        self.lgb_params = lgb_params
        self.repartition_by_query = repartition_by_query
        self.client = client

    def __getstate__(self):
        # a Client holds sockets; like lightgbm.dask, the model pickles without it
        state = self.__dict__.copy()
        state["client"] = None
        return state

    # --- the single-machine twin --------------------------------------------------------------

    @classmethod
    def _shared_params(cls) -> list:
        return [name for name in cls._local_class().get_params() if name not in NOT_DISTRIBUTED]

    def _twin(self):
        """An unfitted single-machine estimator with these parameters (validation and objective are its)."""
        return self._local_class(**{name: getattr(self, name) for name in self._shared_params()})

    def _client(self):
        if self.client is not None:
            return self.client
        try:
            from distributed import default_client

            return default_client()
        except ValueError:
            raise ValueError(f"{type(self).__name__} needs a Dask client: create one first "
                             "(distributed.Client('tcp://scheduler:8786') or Client(LocalCluster())) "
                             "or pass client=") from None

    # --- fitting ---------------------------------------------------------------------------------

    def fit(self, X, y=None, *, qid=None, sample_weight=None, pairs=None, eval_set=None, eval_qid=None,
            eval_group=None, eval_names=None, eval_metrics=None, early_stopping_rounds=None, eval_metric=None,
            eval_at=None, feature_name="auto", init_score=None, eval_init_score=None, eval_sample_weight=None,
            eval_group_weight=None, eval_X=None, eval_y=None):
        """Grow the trees on the cluster.

        Parameters
        ----------
        X : dask array of shape (n, n_features) or dask DataFrame
            Row blocks are the partitions: each must hold whole queries.
            A DataFrame's ``qid`` column (or the column named by ``qid``) gives
            the queries and is not a feature.
        y : dask array or Series of shape (n,), or a column name of X
        qid : dask array or Series of shape (n,), or a column name of X
            Query id of every row (rechunked to X's row blocks).
        sample_weight : dask array or Series of shape (n,), optional
            Row weights, as GBRanker's.
        pairs : None
            Explicit pairs are not supported distributed; passing them raises.
        eval_set : list of RankingDataset, (X, y) or (X, y, qid), optional
            Dask or in-memory; read to the client after training and scored
            tree by tree there with metricrank's metrics.
        eval_X, eval_y : optional
            LightGBM 4.7's spelling of an ``eval_set``, as :meth:`metricrank.GBRanker.fit`.
        eval_qid, eval_group, eval_names, eval_metrics, early_stopping_rounds, eval_metric, eval_at
            As :meth:`metricrank.GBRanker.fit`; early stopping selects the
            tree count after all trees were grown.
        feature_name : "auto" or list of str, default "auto"
            As :meth:`metricrank.GBRanker.fit`: names for a dask array's columns
            (a dask DataFrame's are its columns).
        init_score : dask array or Series of shape (n,), optional
            Raw starting scores, as GBRanker's (LightGBM's ``init_score``): the
            trees learn what to add to them; not added at predict.
        eval_init_score : list of array-like, optional
            The eval sets' starting scores, one per eval set (or None: zeros),
            with ``init_score``, as :meth:`metricrank.GBRanker.fit`.
        eval_sample_weight, eval_group_weight : list, optional
            Row and query weights of the array entries of ``eval_set``, one per
            eval set (or None), dask or in-memory, as :meth:`metricrank.GBRanker.fit`
            reads them.

        Returns
        -------
        self
        """
        twin = self._twin()
        twin._check_params()  # GBRanker's own messages, before any data is read
        twin.seed_ = draw_seed(self.random_state)  # once per fit, as in memory
        check_flag(self.repartition_by_query, "repartition_by_query")
        check_early_stopping_rounds(early_stopping_rounds)
        check_stopping_with(twin.lgb_params, early_stopping_rounds)
        eval_set = eval_set_of(eval_set, eval_X, eval_y)
        training = training_entries(eval_set, X, y, early_stopping_rounds)  # "training", not watched, as in memory
        objective = twin._make_objective()
        check_distributable(objective, pairs)
        specs = eval_specs(eval_metrics, eval_metric, eval_at, default=lambda: objective.eval_spec)
        for spec in specs:
            get_metric(spec, preset=self.preset)
        if early_stopping_rounds is not None and not eval_set:
            raise ValueError("early_stopping_rounds needs an eval_set")
        client = self._client()

        qid_column = qid if isinstance(qid, str) else "qid"
        refuse_named_weights(sample_weight=sample_weight, init_score=init_score)
        X, y, qid, sample_weight, init_score, names = as_dask_inputs(X, y, qid, sample_weight, init_score)
        schema = column_schema(names, feature_name, X.shape[1])
        if init_score is not None:
            _check_finite(init_score, "init_score")
        if self.repartition_by_query:
            parts = iter(partition_by_query(X, y, qid, sample_weight=sample_weight, init_score=init_score))
            X, y, qid = next(parts), next(parts), next(parts)
            sample_weight = None if sample_weight is None else next(parts)
            init_score = None if init_score is None else next(parts)
        # LambdaMART: target="auto" for these labels and weights (a Dask reduction over the weights)
        objective = twin._objective_for_training(objective, y, sample_weight)
        layout = check_query_layout(client, qid, y, objective, sample_weight)
        sizes = layout.group_sizes
        if int(sizes.sum()) < 2:
            raise ValueError(f"training data has {int(sizes.sum())} sample(s); a ranker needs at least 2 documents")
        if not layout.ordered and init_score is None:  # as in memory: nothing to order (explicit pairs are refused)
            warn_unordered_labels(layout.min_label if layout.min_label == layout.max_label else None)
        # GBRanker's query-size bound for objectives that visit every pair (duck-typed: it reads query_sizes)
        twin._check_query_sizes(objective, SimpleNamespace(query_sizes=sizes, pairs=None), "training data")
        evals = name_training(gather_eval_sets(client, eval_set, eval_qid, eval_group, eval_names, names,
                                               qid_column, eval_sample_weight, eval_group_weight), training, eval_names)
        unwatched = {evals[i][0] for i in training}
        for name, eds in evals:
            if eds.n_features != X.shape[1]:
                raise ValueError(f"eval set {name} has {eds.n_features} features; training data has {X.shape[1]}")
        # the objective's metric read for the labels it judges, as GBRanker's: the training labels (their least,
        # from the partitions' summaries) and the eval sets'
        if eval_metrics is None and eval_metric is None:
            specs = eval_specs(None, None, eval_at, default=lambda: objective.eval_spec_for(
                [layout.min_label], *(eds.y for _, eds in evals)))
        check_eval_labels(evals, specs, self.preset)
        warn_unread_eval_weights(specs, self.preset, eval_sample_weight, eval_group_weight)
        if layout.ordered:  # as in memory (else the no-order warning said it), from the partitions' parts
            moves = metric_order_moves(client, qid, y, specs[0], self.preset)
            if moves is not None and not moves[0]:
                warn_unmoved("training data", specs[0], moves[1], self.preset, moves[2], purpose="judges the fit")
        warn_unmoved_metrics(evals, specs, self.preset, purpose="judges every iteration (and early stopping)")
        eval_bases = eval_starting_scores(init_score, eval_init_score, evals)

        import dask.array as da
        from distributed import wait
        from lightgbm.dask import DaskLGBMRanker

        group = da.from_array(sizes, chunks=(layout.queries_per_partition,))
        # the single-machine twin's parameters ("auto" resolved for the whole training set; it has no
        # n_jobs, so LightGBM's threads are the workers' own)
        n_models = twin._resolve_n_models(objective)
        mean_hessian = None
        if twin._penalty_reads_hessian(objective):
            mean_hessian = hessian_mass_of_partitions(
                client, y, layout.sizes, sample_weight, objective, twin.seed_,
                init_score=init_score) / int(sizes.sum())
        params = twin._tree_params(int(sizes.sum()), mean_hessian=mean_hessian)
        self.num_leaves_, self.extra_trees_, self.lambda_l2_ = twin.num_leaves_, twin.extra_trees_, twin.lambda_l2_
        self.n_models_ = n_models
        del params["objective"]  # ours, below
        engine = DaskLGBMRanker(objective=WorkerObjective(objective, twin.seed_),
                                n_estimators=int(self.n_estimators), client=client, **params)
        if init_score is not None and n_models > 1:  # one starting column per model, as in memory
            init_score = init_score.map_blocks(per_model, n_models, new_axis=1,
                                               chunks=(init_score.chunks[0], (n_models,)), dtype=np.float64)
        arrays = [X, y, group, sample_weight, init_score]
        persisted = iter(client.persist([a for a in arrays if a is not None]))
        X, y, group, sample_weight, init_score = (None if a is None else next(persisted) for a in arrays)
        wait([X, y, group])
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            # LightGBM's Dask fit warns that n_jobs (an LGBMRanker default, None) is ignored: it is, by
            # design; and it prints how it found ports ("Finding random open ports for workers") on stdout.
            warnings.filterwarnings("ignore", message="Parameter n_jobs will be ignored")
            engine.fit(X, y, sample_weight=sample_weight, init_score=init_score, group=group,
                       feature_name=schema.lightgbm_names())

        booster, machines = _without_network(engine.booster_)
        curves, directions = per_tree_curves(booster, evals, specs, self.preset, eval_bases) if evals else ({}, {})
        result = select_iteration(booster, curves, directions, early_stopping_rounds, int(self.n_estimators),
                                  unwatched=unwatched)
        twin._set_fitted(result, X.shape[1])
        twin.capacity_check_ = None  # Dask keeps the size rule
        twin._set_kinds([twin._kind_record()])  # of leaf-wise trees (grow_policy is not distributed)
        twin.objective_ = objective
        twin._set_schema(schema)
        self._local = twin
        self.n_partitions_ = len(layout.sizes)
        self.n_workers_ = machines
        for name in ("booster_", "objective_", "n_features_in_", "evals_result_", "best_iteration_", "best_score_",
                     "n_estimators_", "stop_reason_", "target_", "seed_"):
            if hasattr(twin, name):  # target_: LambdaMART's only
                setattr(self, name, getattr(twin, name))
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    # --- using the model -------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "_local"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def to_local(self):
        """The fitted single-machine model (a GBRanker, or LambdaMART for DaskLambdaMART).

        It predicts exactly as this estimator, and saves, loads, exports and
        explains with the usual tools (``save``, ``load_ranker``, ``to_lightgbm``).
        """
        self._check_fitted()
        return copy.deepcopy(self._local)

    def predict(self, X, *, raw_score: bool = False, start_iteration: int = 0, num_iteration: int | None = None):
        """Scores, one per row: lazily on the cluster for dask input, in memory otherwise.

        Parameters
        ----------
        X : dask array, dask DataFrame, or anything GBRanker.predict takes
            A DataFrame's feature columns are selected by name (its qid column
            is ignored).
        raw_score : bool, default False
            As :meth:`metricrank.GBRanker.predict`: the scores are raw either way.
        start_iteration : int, default 0
            As :meth:`metricrank.GBRanker.predict`: the first iteration scored.
        num_iteration : int, optional
            As :meth:`metricrank.GBRanker.predict` (default from 0: the best iteration).

        Returns
        -------
        dask array (dask array input), dask Series (DataFrame input) or ndarray
        """
        self._check_fitted()
        check_flag(raw_score, "raw_score")
        check_num_iteration(num_iteration)  # here, not in a worker at compute time
        iterations = {"start_iteration": check_start_iteration(start_iteration, self.n_estimators_),
                      "num_iteration": num_iteration}
        model = self._local
        if _is_dask_frame(X):
            import pandas as pd

            names = model._schema().column_names  # a DataFrame's columns, or fit's feature_name
            if names is not None:
                missing = [c for c in names if c not in [str(c) for c in X.columns]]
                if missing:
                    raise ValueError(f"X lacks the training feature columns {missing}")
                X = X[list(names)]
            return X.map_partitions(_predict_frame, model, iterations, names is None,
                                    meta=pd.Series(dtype=np.float64, name="score"))
        if _is_dask(X) and hasattr(X, "chunks"):
            if X.ndim != 2 or X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has shape {X.shape}, but {type(self).__name__} is expecting "
                                 f"{self.n_features_in_} features as input")
            X = X.rechunk({1: -1})
            return X.map_blocks(_predict_block, model, iterations, drop_axis=1, dtype=np.float64)
        return model.predict(X, **iterations)

    def staged_predict(self, X):
        """As :meth:`metricrank.GBRanker.staged_predict` (the scores after each iteration), for in-memory data.

        Dask input is refused: each iteration's scores would be a graph of its own over the same rows. Compute
        the rows first, or ask ``predict(X, num_iteration=k)`` for the counts you need.
        """
        self._check_fitted()
        if _is_dask(X):
            raise TypeError(f"{type(self).__name__}.staged_predict takes in-memory data, not a dask "
                            f"{type(X).__name__}: compute it first (X.compute()), or call "
                            f"predict(X, num_iteration=k) for the iteration counts you need")
        return self._local.staged_predict(X)

    def score(self, X, y=None, *, qid=None, group=None, metric=None, sample_weight=None) -> float:
        """As :meth:`metricrank.GBRanker.score`, on dask or in-memory data (a RankingDataset too).

        With a dask DataFrame, ``y`` and ``qid`` may be column names, as in
        :meth:`fit`; without ``qid`` or ``group`` its ``qid`` column gives the
        queries. Scores, labels and query ids are computed on the client.
        """
        if _is_dask_frame(X):
            columns = [str(c) for c in X.columns]
            if qid is None and group is None and "qid" in columns:
                qid = "qid"
            for name in (y, qid):
                if isinstance(name, str) and name not in columns:
                    raise ValueError(f"column {name!r} is not in X; columns are {', '.join(columns)}")
            y, qid = (X[v] if isinstance(v, str) else v for v in (y, qid))
        return super().score(X, y, qid=qid, group=group, metric=metric, sample_weight=sample_weight)

    @property
    def feature_name_(self) -> list:
        """As :attr:`metricrank.GBRanker.feature_name_`."""
        self._check_fitted()
        return self._local.feature_name_

    @property
    def feature_importances_(self) -> np.ndarray:
        """As :attr:`metricrank.GBRanker.feature_importances_`."""
        self._check_fitted()
        return self._local.feature_importances_


class DaskLambdaMART(DaskGBRanker):
    """:class:`~metricrank.LambdaMART` trained on a Dask cluster (LambdaMART's gradient for ``metric``).

    Parameters and defaults are LambdaMART's (``metric="NDCG:top=10"``,
    ``target="auto"``, ``sigma``, ``truncation``, ``norm``, ``exact`` and the
    tree parameters), plus ``repartition_by_query`` and ``client`` as
    :class:`DaskGBRanker`. ``target="auto"`` is resolved as LambdaMART resolves
    it (for judged MRR: a few reductions over the dask labels) into ``target_``.
    A YetiRank target (the default for NDCG, MAP, graded ERR and MAUC) draws
    each worker's permutations from a seed of its own (see :class:`DaskGBRanker`),
    so its model is not LambdaMART's bit for bit, as an exact λ target's is on
    one partition. :meth:`to_local` returns a fitted LambdaMART.

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from metricrank import make_ltr
    >>> from metricrank.dask import DaskLambdaMART
    >>> ds = make_ltr(40, n_features=6, random_state=0)
    >>> with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
    ...                   dashboard_address=None) as cluster, Client(cluster):
    ...     model = DaskLambdaMART(metric="MAP", n_estimators=5, min_data_in_leaf=5).fit(
    ...         da.from_array(ds.X), ds.y, qid=ds.qid)
    >>> type(model.to_local()).__name__, model.to_local().metric
    ('LambdaMART', 'MAP')
    """

    _local_class = LambdaMART

    def __init__(self, metric=_LM["metric"], *, target=_LM["target"], n_estimators=_LM["n_estimators"],
                 learning_rate=_LM["learning_rate"], num_leaves=_LM["num_leaves"],
                 min_data_in_leaf=_LM["min_data_in_leaf"], min_sum_hessian_in_leaf=_LM["min_sum_hessian_in_leaf"],
                 lambda_l2=_LM["lambda_l2"], path_smooth=_LM["path_smooth"],
                 extra_trees=_LM["extra_trees"], max_depth=_LM["max_depth"],
                 max_bin=_LM["max_bin"],
                 feature_fraction=_LM["feature_fraction"], bagging_fraction=_LM["bagging_fraction"],
                 bagging_freq=_LM["bagging_freq"], n_models=_LM["n_models"], sigma=_LM["sigma"],
                 truncation=_LM["truncation"],
                 norm=_LM["norm"], exact=_LM["exact"], preset=_LM["preset"], max_query_size=_LM["max_query_size"],
                 random_state=_LM["random_state"], importance_type=_LM["importance_type"],
                 lgb_params=_LM["lgb_params"], repartition_by_query=False, client=None):
        self.metric = metric
        self.target = target
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_data_in_leaf = min_data_in_leaf
        self.min_sum_hessian_in_leaf = min_sum_hessian_in_leaf
        self.lambda_l2 = lambda_l2
        self.path_smooth = path_smooth
        self.extra_trees = extra_trees
        self.max_depth = max_depth
        self.max_bin = max_bin
        self.feature_fraction = feature_fraction
        self.bagging_fraction = bagging_fraction
        self.bagging_freq = bagging_freq
        self.n_models = n_models
        self.sigma = sigma
        self.truncation = truncation
        self.norm = norm
        self.exact = exact
        self.preset = preset
        self.max_query_size = max_query_size
        self.random_state = random_state
        self.importance_type = importance_type
        self.lgb_params = lgb_params
        self.repartition_by_query = repartition_by_query
        self.client = client
