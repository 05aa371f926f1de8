"""GBRanker: one boosting estimator for every objective (LightGBM grows the trees)."""

from __future__ import annotations

import contextlib
import copy
import os
import pickle
import warnings
from dataclasses import asdict
from typing import Callable, Sequence

import lightgbm as lgb
import numpy as np

from .._checks import check_early_stopping_rounds, check_flag, check_verbose
from .._seeds import GENERATORS, draw_seed
from ..data import RankingDataset
from ..model_selection import RankerScoreMixin
from ..metrics.conventions import check_preset
from ..metrics.evaluate import dataset_evaluator
from ..objectives._base import Objective, as_training_data
from ._boosting import (EvalSet, IterationInfo, Lane, ModelGradients, boost_lanes, contributions_mean, model_mean,
                        numba_threads, per_model)
from . import _capacity
from ._dataset_cache import checkout_datasets
from ._frames import (FeatureNamesMixin, FeatureSchema, apply_schema, encode_eval_set, fit_schema,
                      refuse_named_weights, take_columns)
from ._gbdt import (MIXED_KINDS, SYMMETRIC_POLICIES, GBDTBase, TreeKind, check_stopping_with, first_hessian_mass,
                    positive_int)
from ._model_text import side_by_side
from ._lgb_callbacks import LightGBMCallbacks, split_callbacks
from ._inputs import (as_dataset, check_eval_labels, check_features, check_num_iteration, check_start_iteration,
                      eval_datasets, eval_set_of, eval_specs, eval_starting_scores, name_training, starting_scores,
                      training_entries, warn_no_order_to_learn, warn_unmoved_judges, warn_unread_eval_weights)
from ._pairwise_leaves import PairwiseLeafTracker
from ._staged import staged_raw_scores
from ._prefix_scores import PrefixScores
from ._persistence import read_model_file, validate_booster_text, write_model_file
from ._symmetric import SymmetricTrees

__all__ = ["GBRanker", "MAX_QUERY_SIZE"]

#: Largest query accepted by objectives that visit every pair of a query (λ,
#: PairLogit without ``max_pairs``): 10,000 documents are 5·10⁷ pairs per tree.
MAX_QUERY_SIZE = 10_000


def _base_copy(model):
    """``model`` deep-copied, or ``model`` itself, with a warning, where it cannot be copied."""
    try:
        return copy.deepcopy(model)
    except (TypeError, copy.Error, pickle.PicklingError) as err:  # a lock, a client, an open file...
        warnings.warn(f"init_model could not be copied ({err}); this model keeps a reference to it, so refitting "
                      "that object later changes this model's scores", UserWarning, stacklevel=3)
        return model


class GBRanker(FeatureNamesMixin, RankerScoreMixin, GBDTBase):
    """Gradient-boosted trees for any ranking objective of :mod:`metricrank.objectives`.

    LightGBM grows each tree on the objective's gradient and hessian; leaves
    take the Newton step ``-η Σgrad / (Σhess + lambda_l2)``, smoothed towards
    the parent's (``path_smooth``), except for the ``*Pairwise`` objectives,
    whose leaves solve the pairwise Newton system of the tree (see
    :mod:`metricrank.learners._pairwise_leaves`; ``path_smooth`` only shapes
    which splits LightGBM picks there).

    Parameters
    ----------
    objective : str, default "YetiRank"
        An objective spec: ``PairLogit``, ``PairLogitPairwise``, ``YetiRank``,
        ``YetiRankPairwise``, ``StochasticFilter``, ``StochasticRank:metric=NDCG``,
        ``QueryRMSE``, ``QuerySoftMax``, ``QueryCrossEntropy``, CatBoost's ``LambdaMart``, with parameters in
        CatBoost's syntax (``YetiRank:permutations=20``), or a λ target
        ``lambda:<metric spec>`` / ``RankNet``. ``metricrank objectives`` lists
        them all with their parameters and defaults.
    n_estimators : int, default 300
        Number of trees; as :class:`~metricrank.LambdaMART`, which gives the measurements.
    learning_rate : float, default 0.1
    num_leaves : int or "auto", default "auto"
        Leaves per tree; ``"auto"`` grows with the training data (7, 15 or 31
        leaves; fitted ``num_leaves_``) and, with ``extra_trees="auto"``, from
        30,000 training documents a capacity check on held-out training queries
        may add one or two levels (judged by the first ``eval_metrics``, or by
        exponential-gain NDCG@10 when that is MRR or ERR). As
        :class:`~metricrank.LambdaMART`, which gives the rule and the measurements.
    min_data_in_leaf : int, default 20
        LightGBM's, kept by measurement; as :class:`~metricrank.LambdaMART`,
        which gives the measurements.
    min_sum_hessian_in_leaf : float, default 1e-3
        LightGBM's, kept by measurement (a pairwise hessian is zero for a
        document outside every pair); as :class:`~metricrank.LambdaMART`.
    lambda_l2 : float or "auto", default "auto"
        L2 penalty on leaf values (the Newton denominator, and the ridge of the
        pairwise system). ``"auto"``: 10, and 1 at the levels the capacity check
        adds above the size rule and for randomised trees averaged over
        several models (``n_models_`` > 1) from 5,000 training documents or of
        15 leaves or more, each at most 750
        times the objective's mean hessian per row at the first tree and at
        least 0.1 (fitted ``lambda_l2_``; QuerySoftMax keeps 10 and 1); on
        symmetric trees 0 unless that bound is below 10, and the bound there; as
        :class:`~metricrank.LambdaMART`, which gives the measurements.
    path_smooth : float, default 0.0
        LightGBM's leaf smoothing towards the parent; as :class:`~metricrank.LambdaMART`.
    extra_trees : bool or "auto", default "auto"
        LightGBM's randomised split thresholds, ``"auto"``: below 62,000
        training documents (fitted ``extra_trees_``); as
        :class:`~metricrank.LambdaMART`, which gives the measurements.
    max_depth : int, default -1 (no limit)
        With ``grow_policy`` "symmetric" or "symmetric_then_leafwise": the
        levels of every tree (1-8).
    grow_policy : {"auto", "leafwise", "symmetric", "symmetric_then_leafwise", "mixed"}, default "leafwise"
        LightGBM's leaf-wise trees (the default here: ``"auto"``, LambdaMART's
        default, was measured with λ-gradients only), ``"auto"`` (``"mixed"``
        where the capacity check runs, and from 30,000 documents with fewer
        queries for the YetiRank objective, the sizes left to the library;
        leaf-wise elsewhere; fitted
        ``grow_policy_``), or symmetric (oblivious) trees as CatBoost's
        default ``SymmetricTree``: one split per level for all its nodes, chosen
        from each tree's gradients (:mod:`metricrank.learners._symmetric`), of
        ``max_depth`` levels or ``floor(log2(num_leaves_ + 1))``, or those
        levels completed by LightGBM's own leaf-wise splits within the depth
        where they stop early (``"symmetric_then_leafwise"``), or those and
        leaf-wise trees side by side, their scores averaged (``"mixed"``,
        fitted ``kinds_``); as :class:`~metricrank.LambdaMART`, which gives the
        rules and the measurements.
    max_bin : int, default 255
        LightGBM's; as :class:`~metricrank.LambdaMART`, which gives the
        measurements.
    feature_fraction, bagging_fraction : float, default 1.0
        No sampling, kept by measurement; as :class:`~metricrank.LambdaMART`.
    bagging_freq : int, default 0
    n_models : int or "auto", default "auto"
        Boosted models trained side by side and averaged: each keeps its own
        scores, its own gradient draws (YetiRank's permutations, sampled pairs)
        and its own randomised splits and bagging, and each iteration grows one
        tree per model (LightGBM's multi-class layout: ``booster_`` has
        ``n_models`` score columns, :meth:`predict` returns their mean). Costs
        ``n_models`` times the trees. Models differ only by those random
        draws: with a deterministic gradient, no randomised splits and no
        bagging they are identical. ``"auto"``: 4 for YetiRank, 1 for other
        objectives (fitted ``n_models_``); as
        :class:`~metricrank.LambdaMART`, which gives the measurements.
        ``*Pairwise`` objectives take 1 only.
    preset : str, optional
        Metric convention preset for λ targets and evaluation metrics.
    max_query_size : int, default 10000
        Queries larger than this raise a ValueError for objectives that visit
        every pair (λ targets, PairLogit without ``max_pairs``).
    n_jobs : int or None, default None
        Threads for LightGBM and the objective kernels: None all cores; a negative value
        counts back from the cores as LightGBM and joblib do (-1 all, -2 all but
        one); 0 raises a ValueError.
    random_state : int, numpy RandomState or Generator, or None, default None
        Seeds LightGBM and the stochastic objectives (YetiRank's permutations,
        sampled pairs, Stochastic*): a fit is deterministic given an integer
        (in [0, 2**31), LightGBM's seeds). None uses fixed seeds (LightGBM's
        own, and 0 for the objective), as LightGBM, CatBoost and XGBoost do, so
        two fits on the same data give the same model; pass different values
        for different draws. A RandomState or Generator is drawn from once per
        fit, as by LightGBM's scikit-learn estimators: it advances, so the next
        fit differs. The fit's seed is ``seed_``, and a saved model keeps that
        seed as its ``random_state``.
    importance_type : {"split", "gain"}, default "split"
    lgb_params : dict, optional
        Extra LightGBM parameters for the tree learner (``min_gain_to_split``,
        ``linear_tree``...); not the objective, and not a parameter the estimator
        has (``num_leaves``, ``random_state``...) under any of LightGBM's names
        for it (``num_leaf``, ``seed``...), nor LightGBM's ``metric`` (use
        ``eval_metrics``), nor a name LightGBM does not know, nor one that
        training here leaves unread (``num_iterations``, ``early_stopping_round``,
        ``eval_at``, ``label_gain`` and LightGBM's other objective parameters):
        those raise a ValueError. With ``boosting="dart"``,
        ``early_stopping_rounds`` is refused (dart rescales earlier trees).
    verbose : int, default 0
        Print the evaluation every ``verbose`` trees (0: silent).

    Attributes
    ----------
    booster_ : lightgbm.Booster
    objective_ : Objective
        The resolved objective.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        A training DataFrame's columns (scikit-learn's; absent for arrays).
    feature_name_ : list of str
        The booster's feature names (LightGBM's): the DataFrame's columns, fit's
        ``feature_name``, or ``Column_0``, ``Column_1``...
    evals_result_ : dict
        ``{eval set name: {metric spec: [value after each tree]}}``.
    best_iteration_ : int or None
        With early stopping: the best iteration, the booster's last (the trees
        after it are dropped, as LightGBM drops them). None otherwise.
    best_score_ : dict
        ``{eval set name: {metric spec: value}}`` of the model :meth:`predict`
        uses: at ``best_iteration_`` with early stopping, otherwise after the
        last tree (LightGBM's reading).
    n_estimators_ : int
        Iterations in the booster (with early stopping, up to the best one).
    num_leaves_ : int
        The leaves per tree used (``num_leaves`` with ``"auto"`` resolved).
    extra_trees_ : bool
        Whether splits were randomised (``extra_trees`` with ``"auto"`` resolved).
    lambda_l2_ : float
        The L2 penalty used (``lambda_l2`` with ``"auto"`` resolved).
    n_models_ : int
        The models averaged (``n_models`` with ``"auto"`` resolved), of each kind of tree.
    capacity_check_ : CapacityCheck or None
        What the capacity check of ``num_leaves="auto"`` saw and chose; None when it did not run.
        With ``grow_policy_`` "mixed", ``num_leaves_``, ``extra_trees_``,
        ``lambda_l2_`` and ``capacity_check_`` are the completed trees'.
    kinds_ : list of TreeKind
        Each kind of tree grown (one, or two with ``grow_policy_`` "mixed"):
        its ``grow_policy``, ``n_models``, ``num_leaves``, ``extra_trees``,
        ``lambda_l2`` and ``capacity_check``.
    stop_reason_ : str
    seed_ : int or None
        The seed the fit used: ``random_state``, or the integer drawn from it.
    init_model_ : estimator or None
        The base model whose scores the trees start from (warm start).

    Examples
    --------
    >>> from metricrank import GBRanker, make_ltr, evaluate
    >>> ds = make_ltr(60, n_features=8, random_state=0)
    >>> model = GBRanker("YetiRank", n_estimators=20, num_leaves=7, min_data_in_leaf=5,
    ...                  random_state=0).fit(ds.X, ds.y, qid=ds.qid)
    >>> bool(evaluate(ds, model.predict(ds.X), metric="NDCG:top=10") > 0.8)
    True
    """

    def __init__(self, objective="YetiRank", *, n_estimators=300, learning_rate=0.1, num_leaves="auto",
                 min_data_in_leaf=20, min_sum_hessian_in_leaf=1e-3, lambda_l2="auto", path_smooth=0.0, extra_trees="auto",
                 max_depth=-1, grow_policy="leafwise", max_bin=255, feature_fraction=1.0, bagging_fraction=1.0,
                 bagging_freq=0, n_models="auto",
                 preset=None, max_query_size=MAX_QUERY_SIZE, n_jobs=None, random_state=None, importance_type="split",
                 lgb_params=None, verbose=0):
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
        self.grow_policy = grow_policy
        self.max_bin = max_bin
        self.feature_fraction = feature_fraction
        self.bagging_fraction = bagging_fraction
        self.bagging_freq = bagging_freq
        self.n_models = n_models
        self.preset = preset
        self.max_query_size = max_query_size
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.importance_type = importance_type
        self.lgb_params = lgb_params
        self.verbose = verbose

    # --- validation ------------------------------------------------------------------------

    def _check_params(self) -> None:
        super()._check_params()
        positive_int(self, "max_query_size", 2)
        check_preset(self.preset)
        check_verbose(self.verbose, "print every verbose trees")

    def _make_objective(self) -> Objective:
        if not isinstance(self.objective, str):
            raise ValueError(f"objective must be an objective spec string (e.g. 'YetiRank', 'lambda:MAP'); "
                             f"got {type(self.objective).__name__}")
        from ..objectives.registry import get_objective

        return get_objective(self.objective, preset=self.preset)

    def _objective_for_labels(self, objective: Objective, y: np.ndarray, row_weights: bool = False) -> Objective:
        """The objective that trains on labels ``y``, with or without ``row_weights`` (a ``sample_weight``
        other than 1); LambdaMART resolves ``target="auto"`` here."""
        return objective

    def _resolved_objective_params(self) -> dict:
        """Parameters that pin the objective this fit resolved from its labels, for models fitted on part of
        them (the capacity check's folds). GBRanker's objective reads no labels: none."""
        return {}

    def _objective_for_training(self, objective: Objective, y, sample_weight) -> Objective:
        """:meth:`_objective_for_labels` for labels and row weights (NumPy or Dask arrays), warning when
        the objective ignores the weights. Unit weights (all 1) count as none."""
        row_weights = sample_weight is not None and bool((sample_weight != 1.0).any())
        objective = self._objective_for_labels(objective, y, row_weights=row_weights)
        if row_weights and not objective.reads_row_weights:
            warnings.warn(f"{objective.name} does not read sample_weight (row weights), as CatBoost's does not "
                          f"(\"Pairwise losses don't support object weights\"): they are ignored; group_weight "
                          f"weights whole queries", UserWarning, stacklevel=3)
        return objective

    def _check_query_sizes(self, objective: Objective, ds: RankingDataset, what: str) -> None:
        # explicit pairs replace the generated ones: their count is the caller's
        quadratic = objective.quadratic and not (objective.accepts_pairs and ds.pairs is not None)
        sizes = ds.query_sizes
        if quadratic and sizes.size and sizes.max() > self.max_query_size:
            q = int(np.argmax(sizes))
            raise ValueError(
                f"{what}: query {q} has {int(sizes[q])} documents, more than max_query_size="
                f"{self.max_query_size} ({objective.spec} visits every pair of a query); raise max_query_size"
                f"{', set max_pairs' if objective.uses_pairs else ''} or split the query"
            )

    # --- fitting ---------------------------------------------------------------------------

    def fit(self, X, y=None, *, qid=None, group=None, sample_weight=None, group_weight=None, pairs=None,
            pair_weight=None, eval_set=None, eval_qid=None, eval_group=None, eval_names=None, eval_metrics=None,
            early_stopping_rounds=None, init_model=None, init_score=None, categorical_feature=None,
            eval_metric=None, eval_at=None, eval_init_score=None, eval_sample_weight=None, eval_group_weight=None,
            feature_name="auto", callbacks: Sequence[Callable[[IterationInfo], bool | None]] = (), eval_X=None,
            eval_y=None):
        """Grow the trees.

        Parameters
        ----------
        X : array-like, sparse matrix, pandas/polars DataFrame of shape (n, n_features), or RankingDataset
            A DataFrame's column names are kept (``feature_names_in_``) and
            checked at predict; its ``category`` columns are categorical features.
        y : array-like of shape (n,), or str
            Relevance labels (omit when ``X`` is a RankingDataset), or the name
            of X's label column (then not a feature).
        qid : array-like of shape (n,), or str, optional
            Query id of every row; rows of a query must be contiguous. Or the
            name of X's query column (then not a feature).
        group : array-like, optional
            Query sizes in row order (LightGBM's ``group``), instead of ``qid``.
        categorical_feature : list of int or str, optional
            Further categorical columns (indices, or names of DataFrame columns
            or of ``feature_name``); their values must be non-negative integers
            (LightGBM's rule).
        feature_name : "auto" or list of str, default "auto"
            LightGBM's: names for the columns of an array, sparse matrix or
            RankingDataset, kept in ``booster_`` (``feature_name_``, importances,
            dumps, ``save``); a DataFrame given at predict must then have these
            columns. "auto": a DataFrame's columns, else LightGBM's ``Column_i``.
            A DataFrame's names are its columns, so there a list must equal them.
        sample_weight : array-like of shape (n,), optional
            Row weights, as each objective defines them (λ: multiply a row's λ;
            generated pairs: the weight of the query's first row, as CatBoost).
        group_weight : array-like of shape (n_queries,), optional
            Multiplies every term of a query (generated pairs weigh it).
        pairs : int array-like of shape (n_pairs, 2), optional
            Explicit ``(winner row, loser row)`` pairs for PairLogit and
            PairLogitPairwise, as in CatBoost's pairs files; both rows of a pair
            must be in one query. They replace the pairs generated from labels.
        pair_weight : array-like of shape (n_pairs,), optional
        eval_set : list of RankingDataset, (X, y) or (X, y, qid), optional
            Sets evaluated after every tree; the last one drives early stopping.
        eval_X, eval_y : optional
            LightGBM 4.7's spelling of an ``eval_set`` of ``(X, y)`` entries: one
            set's features and labels, or a tuple of each, one entry per set
            (pass these or ``eval_set``, not both).
        eval_qid, eval_group : list, optional
            Query ids or sizes for ``(X, y)`` entries of ``eval_set``.
        eval_sample_weight, eval_group_weight : list, optional
            Row and query weights of the array entries of ``eval_set``, one
            array (or None) per eval set, read by the eval metrics as
            :func:`~metricrank.metrics.evaluate` reads ``weights`` and
            ``group_weights`` (a RankingDataset entry holds its own). The
            catalogue follows CatBoost: NDCG, ERR and MRR weigh queries by
            ``eval_group_weight`` and read no row weights, where LightGBM's NDCG
            reads ``eval_sample_weight``; weights that no eval metric reads are
            warned about.
        eval_names : list of str, optional
        eval_metrics : list of str, optional
            Metric specs evaluated on every eval set; the first drives early
            stopping. Default: the objective's own metric (``objective_.eval_spec``;
            where NDCG@10 only stands in, DCG@10 when the training or eval labels
            hold a negative one, which NDCG refuses).
        eval_metric : str or list of str, optional
            LightGBM's name for ``eval_metrics`` (``LGBMRanker.fit``'s; pass one of the two).
            Names mean what they mean in :func:`~metricrank.metrics.evaluate`:
            ``"ndcg"`` is CatBoost's NDCG (linear gain) unless ``preset="lightgbm"``
            or ``"NDCG:type=Exp"``.
        eval_at : int or list of int, optional
            LightGBM's cutoffs: every eval metric (the objective's own when none is
            named) is evaluated at each, metric by metric, so the first metric's
            first cutoff drives early stopping and judges the capacity check, as
            the first of ``eval_metrics`` does (``eval_at=[1, 3, 5]`` judges by the
            coarse NDCG@1; name the judged cutoff first). A metric without a
            cutoff (AUC) or one that writes ``top`` itself is refused.
        early_stopping_rounds : int, optional
            Stop when the first eval metric on the last eval set (not the training
            data itself: an entry of the very ``X`` and ``y``, or the RankingDataset,
            given to fit, named "training" as in LightGBM) has not improved
            for this many trees; the trees after the best iteration are dropped,
            as LightGBM's ``LGBMRanker`` drops them (``evals_result_`` keeps the
            whole curves).
        init_model : fitted GBRanker or LambdaMART, optional
            Base model (Burges' BaseModel): training starts from its scores and
            :meth:`predict` adds them back. Any object with ``predict(X)`` works
            for training; only a GBRanker/LambdaMART base is saved with :meth:`save`.
            A copy is kept (``copy.deepcopy``), as LightGBM keeps the base's trees:
            refitting that object later does not change this model, and a model
            may continue itself (``model.fit(X, y, init_model=model)``); a base
            that cannot be copied (it holds a lock or a connection) is kept as it
            is, and a warning says so. The
            iterations counted here (``n_estimators_``, ``num_iteration``...) are
            the new ones; LightGBM counts the base's trees too.
        init_score : array-like of shape (n,), optional
            Raw starting scores (as LightGBM's ``init_score``); not added at predict.
        eval_init_score : list of array-like, optional
            The eval sets' starting scores, one array (or None: zeros) per eval set,
            with ``init_score`` (LightGBM's): their curves, early stopping and
            ``best_iteration_`` then read the scores the trees add to these, as the
            training's do. Without it an eval set starts from zeros.
        callbacks : list of callables
            Called after each tree with an :class:`~metricrank.learners._boosting.IterationInfo`;
            returning True stops training. LightGBM's callbacks (``lgb.early_stopping``,
            ``lgb.log_evaluation``, ``lgb.record_evaluation``, or any with LightGBM's
            ``order`` attribute) get LightGBM's ``CallbackEnv`` instead, with the eval
            sets' metrics; where ``lgb.early_stopping`` stops training, the model ends
            at the best iteration it found, as LightGBM's ``LGBMRanker`` does.

        Returns
        -------
        self
        """
        self._check_params()
        self.seed_ = draw_seed(self.random_state)  # once per fit: a RandomState or Generator is drawn from
        if init_model is not None:  # LightGBM copies the base's trees: refitting that object later (or this one:
            init_model = _base_copy(init_model)  # LightGBM's model.fit(..., init_model=model)) leaves this model be
        check_early_stopping_rounds(early_stopping_rounds)
        check_stopping_with(self.lgb_params, early_stopping_rounds)
        eval_set = eval_set_of(eval_set, eval_X, eval_y)
        training = training_entries(eval_set, X, y, early_stopping_rounds)  # before X, y and the sets are converted
        callbacks, lightgbm_callbacks = split_callbacks(callbacks)
        objective = self._make_objective()
        refuse_named_weights(dict(eval_sample_weight=eval_sample_weight, eval_group_weight=eval_group_weight,
                                  eval_init_score=eval_init_score),
                             sample_weight=sample_weight, group_weight=group_weight, init_score=init_score)
        X, y, qid = take_columns(X, y, qid)
        X, schema = fit_schema(X, categorical_feature, feature_name)
        if self.grow_policy in (*SYMMETRIC_POLICIES, "mixed") and schema.categorical:
            raise ValueError(f"grow_policy={self.grow_policy!r} splits numerical features only; categorical features "
                             f"{schema.categorical} need grow_policy='leafwise' or 'auto' (or encode them as numbers)")
        eval_set = encode_eval_set(eval_set, schema)
        if early_stopping_rounds is not None and not eval_set:  # before the capacity check's fits
            raise ValueError("early_stopping_rounds needs an eval_set")
        if not eval_set and any(type(cb).__name__ == "_EarlyStoppingCallback" for cb in lightgbm_callbacks):
            raise ValueError("callbacks: lgb.early_stopping needs an eval_set to watch (LightGBM refuses it too, "
                             "after the first tree; here before any fit)")
        ds = as_dataset(X, y, qid=qid, group=group, sample_weight=sample_weight, group_weight=group_weight,
                        pairs=pairs, pair_weight=pair_weight)
        if ds.n_docs < 2:
            raise ValueError(f"training data has {ds.n_docs} sample(s); a ranker needs at least 2 documents")
        if ds.pairs is not None and not objective.accepts_pairs:
            raise ValueError(f"objective {objective.spec} does not read explicit pairs; they are read by "
                             "PairLogit and PairLogitPairwise (YetiRank generates its own)")
        if init_model is None and init_score is None:  # a base model's order stays
            warn_no_order_to_learn(ds)
        objective = self._objective_for_training(objective, ds.y, ds.weight)
        self._check_query_sizes(objective, ds, "training data")
        evals = name_training(eval_datasets(eval_set, eval_qid, eval_group, eval_names, eval_sample_weight,
                                            eval_group_weight), training, eval_names)
        for name, eds in evals:
            if eds.n_features != ds.n_features:
                raise ValueError(f"eval set {name} has {eds.n_features} features; training data has {ds.n_features}")
        # the default is read for every label it judges: the capacity check's (training) and the eval sets'
        eval_metrics = eval_specs(eval_metrics, eval_metric, eval_at,
                                  default=lambda: objective.eval_spec_for(ds.y, *(eds.y for _, eds in evals)))
        check_eval_labels(evals, eval_metrics, self.preset)
        warn_unread_eval_weights(eval_metrics, self.preset, eval_sample_weight, eval_group_weight)
        if not getattr(self, "_unmoved_said", False):  # set on a capacity check's fold fits: their fit said it
            warn_unmoved_judges(ds, evals, eval_metrics, self.preset, step="iteration")
        base_train = self._base_scores(init_model, init_score, ds)
        eval_bases = self._eval_base_scores(init_model, init_score, eval_init_score, evals)
        data = as_training_data(ds.y, ds.group_ptr, weights=ds.weight, group_weights=ds.group_weight,
                                pairs=ds.pairs, pair_weights=ds.pair_weight if ds.pairs is not None else None)
        # lambda_l2="auto" is bounded by the mean hessian per row (auto_lambda_l2); taken before the training's
        # binding, so that two bindings (their pairs and buffers) are never held at once
        mean_hessian = None
        if self._penalty_reads_hessian(objective):
            with numba_threads(self.n_jobs):
                mean_hessian = first_hessian_mass(objective, data, base_train, self.seed_) / ds.n_docs
        # None: a fixed seed, as LightGBM's, CatBoost's and XGBoost's defaults, so the same data give the same model
        bound = objective.bind(data, 0 if self.seed_ is None else self.seed_)
        # "auto" reads the data and the judged metric: leaf-wise where categorical features are
        self._resolve_grow_policy(ds, eval_metrics[0], categorical=bool(schema.categorical), init_score=init_score,
                                  objective=objective)

        n_models = self._resolve_n_models(objective)
        if n_models > 1 and objective.pairwise_leaves:
            raise ValueError(f"n_models={n_models}: {objective.spec} refits each tree's leaves pairwise on one "
                             f"score column, so it trains a single model; set n_models=1")
        kinds = MIXED_KINDS if self.grow_policy_ == "mixed" else (self.grow_policy_,)
        if len(kinds) > 1 and objective.pairwise_leaves:
            raise ValueError(f"grow_policy='mixed' trains two kinds of tree side by side, and {objective.spec} "
                             f"refits each tree's leaves pairwise on one score column; choose one grow_policy")
        # each kind is sized as a fit of that grow_policy alone would be: its own capacity check
        setups = []
        for kind in kinds:
            self.grow_policy_ = kind
            self.capacity_check_ = None
            # raw init_score has no counterpart for the held-out queries' evaluation: the rule then
            if init_score is None and _capacity.applies(self, ds, eval_metrics[0]):
                start = (self._resolve_num_leaves(ds.n_docs), self._resolve_extra_trees(ds.n_docs),
                         self._lambda_l2_for(False, ds.n_docs, mean_hessian))
                self.capacity_check_ = _capacity.check_capacity(
                    self, ds, eval_metrics[0], start, init_model=init_model,
                    early_stopping_rounds=early_stopping_rounds, categorical_feature=schema.categorical or None,
                    mean_hessian=mean_hessian)
                if self.verbose:
                    print(self.capacity_check_, flush=True)
            check = self.capacity_check_
            params = self._tree_params(ds.n_docs, None if check is None
                                       else (check.num_leaves, check.extra_trees, check.lambda_l2),
                                       mean_hessian=mean_hessian)
            setups.append((self._kind_record(), params))
        tracker = None
        if objective.pairwise_leaves:
            tracker = PairwiseLeafTracker(bound, self.learning_rate, self.lambda_l2_, ds.X,
                                          np.zeros(ds.n_docs) if base_train is None else base_train,
                                          [eds.X for _, eds in evals],
                                          [np.zeros(eds.n_docs) if b is None else b
                                           for (_, eds), b in zip(evals, eval_bases)])
        lightgbm_runner = None  # one callback of ours runs LightGBM's with its CallbackEnv
        if lightgbm_callbacks:
            lightgbm_runner = LightGBMCallbacks(lightgbm_callbacks, setups[0][1], self.n_estimators,
                                                train_name=evals[min(training)][0] if training else "training")
            callbacks.append(lightgbm_runner)
        if self.verbose:
            callbacks.append(_printer(int(self.verbose)))
        eval_objs = [EvalSet(name, None, _evaluator(eds, eval_metrics, self.preset), watched=i not in training)
                     for i, (name, eds) in enumerate(evals)]
        # The Dataset gets every tree parameter: binning and feature pre-filtering read
        # min_data_in_leaf, and without it LightGBM drops every feature of small data. A Dataset
        # built for the same matrix and parameters by an earlier fit is reused (_dataset_cache).
        with contextlib.ExitStack() as stack:
            lanes, growers = [], []
            for i, (kind, params) in enumerate(setups):
                grower = None
                if kind.grow_policy in SYMMETRIC_POLICIES:
                    grower = stack.enter_context(SymmetricTrees(
                        ds.X, depth=int(params["max_depth"]), lambda_l2=kind.lambda_l2,
                        min_data_in_leaf=self.min_data_in_leaf, min_sum_hessian_in_leaf=self.min_sum_hessian_in_leaf,
                        max_bin=self.max_bin, complete=kind.grow_policy == "symmetric_then_leafwise"))
                    params = {**params, **grower.lightgbm_params()}
                train, lds = stack.enter_context(checkout_datasets(
                    ds.X, ds.y, per_model(base_train, n_models, ds.n_docs), params,
                    feature_name=schema.lightgbm_names(), categorical_feature=schema.categorical or "auto",
                    evals=[(eds.X, eds.y, per_model(b, n_models, eds.n_docs))
                           for (_, eds), b in zip(evals, eval_bases)]))
                # every kind draws as a fit of it alone would: its own binding, from the same seed
                kind_bound = bound if i == 0 else objective.bind(data, 0 if self.seed_ is None else self.seed_)
                lanes.append(Lane(params, train, kind_bound if n_models == 1 else ModelGradients(kind_bound), lds,
                                  None if grower is None else grower.before_tree,
                                  [] if grower is None else [grower.check_tree]))
                growers.append(grower)
            with numba_threads(self.n_jobs):
                result = boost_lanes(lanes, int(self.n_estimators), eval_sets=eval_objs,
                                     early_stopping_rounds=early_stopping_rounds, callbacks=callbacks, tracker=tracker)
        for (kind, _), grower, booster in zip(setups, growers, result.boosters):
            if grower is None:
                continue
            # the booster's parameters, as saved with it, without the fit's devices
            booster.reset_parameter({"forcedsplits_filename": "", "cegb_penalty_split": 0.0})
            if grower.short_trees:
                warnings.warn(f"grow_policy={kind.grow_policy!r}: LightGBM grew {grower.short_trees} of "
                              f"{booster.num_trees()} trees smaller than forced: it refused forced splits, "
                              f"most likely of features that had no split of positive gain with "
                              f"lambda_l2={kind.lambda_l2:g} higher up; lambda_l2=0 grows them whole",
                              UserWarning, stacklevel=2)
        if lightgbm_runner is not None and lightgbm_runner.best_iteration and result.best_iteration is None:
            result.best_iteration = lightgbm_runner.best_iteration  # lgb.early_stopping's, as LightGBM's
            result.best_score = {name: {spec: values[result.best_iteration - 1] for spec, values in metrics.items()}
                                 for name, metrics in result.evals_result.items()}
        if len(result.boosters) > 1:
            result.booster = side_by_side(result.boosters)
        if result.best_iteration is not None and not getattr(self, "_keeps_every_tree", False):
            # the trees after the best iteration go, as LightGBM's LGBMRanker drops them (and CatBoost's
            # use_best_model): booster_, save, start_iteration and the importances then read the model predict scores
            booster = result.booster
            booster.model_from_string(booster.model_to_string(num_iteration=result.best_iteration))
        self._set_kinds([kind for kind, _ in setups])
        self.objective_ = objective
        self._set_schema(schema)
        self._set_fitted(result, ds.n_features, init_model)
        return self

    @staticmethod
    def _base_scores(init_model, init_score, ds: RankingDataset):
        if init_model is not None and init_score is not None:
            raise ValueError("pass either init_model or init_score, not both")
        if init_model is not None:
            if not hasattr(init_model, "predict"):
                raise ValueError("init_model must have a predict(X) method (e.g. a fitted GBRanker)")
            base, name = np.asarray(init_model.predict(ds.X), dtype=np.float64), "init_model's scores"
        elif init_score is not None:
            base, name = np.asarray(init_score, dtype=np.float64), "init_score"
        else:
            return None
        return starting_scores(base, ds.n_docs, name)

    @staticmethod
    def _eval_base_scores(init_model, init_score, eval_init_score, evals) -> list:
        """Each eval set's starting scores: the base model's, ``eval_init_score``'s, or None (zeros)."""
        if eval_init_score is None:
            return [None if init_model is None else np.asarray(init_model.predict(eds.X), dtype=np.float64)
                    for _, eds in evals]
        if init_model is not None:
            raise ValueError("eval_init_score goes with init_score; with init_model the eval sets start from the "
                             "base model's scores")
        return eval_starting_scores(init_score, eval_init_score, evals)

    def predict(self, X, *, raw_score: bool = False, start_iteration: int = 0, num_iteration: int | None = None,
                pred_leaf: bool = False, pred_contrib: bool = False, validate_features: bool = False):
        """Scores (higher = ranked higher), one per row.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or RankingDataset
            A DataFrame must have the training columns, in the training order.
        raw_score : bool, default False
            LightGBM's ``LGBMRanker.predict`` argument, taken so that its calls
            run unchanged: a ranker's scores have no link function, so they are
            raw either way (``init_score`` is not added back, as in LightGBM; a
            warm-start base model's scores are, being part of the model).
        start_iteration : int, default 0
            Score with the iterations from this one on (0-based; LightGBM's
            ``start_iteration``: 0 or less is the first). It must be below
            ``n_estimators_``. A warm-start base model's scores come before the
            first iteration, so they are added only from 0.
        num_iteration : int, optional
            Use ``num_iteration`` iterations from ``start_iteration`` (with
            ``n_models_`` > 1, each model's trees of those iterations). By default,
            from iteration 0 the best iteration's count when early stopping found
            one, otherwise all; from a later start, all the rest (LightGBM's
            reading). As in LightGBM, 0 or less, or more than remain, means all
            the rest. From iteration 0, a count below the grown one keeps these
            rows' scores (of the last four sets of rows), so that a later call on
            the same rows with a count no smaller reads only the trees between the
            two: a loop over k = 1, 2, ... costs about one ``predict`` with every
            tree, not half the square of the trees (the scores are LightGBM's bit
            for bit either way).
        pred_leaf : bool, default False
            Return the leaf each row reaches in every tree used instead (LightGBM's
            ``pred_leaf``): an int array of shape (n, iterations × trees per
            iteration), an iteration's trees side by side
            (``booster_.num_model_per_iteration()``: ``n_models_``, times two with
            ``grow_policy_`` "mixed"). A warm-start base model's trees are not in it.
        pred_contrib : bool, default False
            Return SHAP values instead (LightGBM's TreeSHAP, in its layout): an
            array of shape (n, n_features + 1), one column per feature and the
            expected value last; each row sums to the score. A sparse X gives a
            sparse matrix of that shape, as in LightGBM. A warm-start base
            model's contributions are added when it is a GBRanker/LambdaMART.
        validate_features : bool, default False
            LightGBM's, taken so that its calls run unchanged: a DataFrame's
            columns are checked against the training ones either way.

        Examples
        --------
        The scores of the first 5 iterations and of the rest add up to the whole model's:

        >>> import numpy as np, metricrank
        >>> train = metricrank.make_ltr(60, random_state=0)
        >>> model = metricrank.LambdaMART("NDCG", n_estimators=20, random_state=0).fit(train)
        >>> head = model.predict(train.X, num_iteration=5)
        >>> rest = model.predict(train.X, start_iteration=5)
        >>> bool(np.allclose(head + rest, model.predict(train.X)))
        True
        """
        check_flag(raw_score, "raw_score")
        check_flag(validate_features, "validate_features")
        X = self._prediction_features(X)
        start = check_start_iteration(start_iteration, self.n_estimators_)
        prefix = (check_num_iteration(num_iteration) is not None and 0 < num_iteration < self.n_estimators_
                  and start == 0)
        if num_iteration is None:
            num_iteration = (self.best_iteration_ or self.n_estimators_) if start == 0 else -1
        trees = {"start_iteration": start, "num_iteration": num_iteration}
        with_base = self.init_model_ is not None and start == 0
        if pred_leaf and pred_contrib:
            raise ValueError("pred_leaf and pred_contrib are both True; ask for one of them")
        if pred_leaf:
            return np.asarray(self.booster_.predict(X, pred_leaf=True, **trees))
        if pred_contrib:
            out = contributions_mean(self.booster_.predict(X, pred_contrib=True, **trees),
                                     self.booster_.num_model_per_iteration())
            if with_base:
                if not isinstance(self.init_model_, GBRanker):
                    raise ValueError(f"pred_contrib needs a GBRanker/LambdaMART base model, not a "
                                     f"{type(self.init_model_).__name__}")
                out = out + self.init_model_.predict(X, pred_contrib=True)
            return out
        base = self.init_model_.predict if with_base else None
        if prefix:  # a validation curve's loop: the kept scores of a shorter prefix on the same rows grow
            raw, base_scores = self._prefix_scores().raw(self.booster_, X, num_iteration, base)
        else:
            raw = self.booster_.predict(X, raw_score=True, **trees)
            base_scores = None if base is None else np.asarray(base(X), dtype=np.float64)
        scores = model_mean(raw)
        return scores if base_scores is None else scores + base_scores

    def staged_predict(self, X):
        """Scores after each iteration: a generator of ``n_estimators_`` arrays, the k-th equal to
        ``predict(X, num_iteration=k)`` bit for bit (scikit-learn's and CatBoost's ``staged_predict``).

        Every iteration of the booster is given (with early stopping, up to the best one). It reads each tree
        once, where a loop of ``predict(X, num_iteration=k)`` over every k reads k iterations' trees each time
        (about half the square of their number in all; ``benchmarks/staged_predict_speed.py`` times both).
        ``X`` is checked when this is called, not when the first scores are asked for.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or RankingDataset
            As for :meth:`predict`.

        Examples
        --------
        >>> import numpy as np, metricrank
        >>> train = metricrank.make_ltr(60, random_state=0)
        >>> model = metricrank.GBRanker("YetiRank", n_estimators=20, random_state=0).fit(train)
        >>> curve = [metricrank.evaluate(train, s, metric="NDCG:top=5") for s in model.staged_predict(train)]
        >>> len(curve) == model.n_estimators_
        True
        >>> bool(np.array_equal(list(model.staged_predict(train.X))[4], model.predict(train.X, num_iteration=5)))
        True
        """
        X = self._prediction_features(X)
        base = None if self.init_model_ is None else np.asarray(self.init_model_.predict(X), dtype=np.float64)
        return self._staged_scores(X, base)

    def _staged_scores(self, X, base):
        for raw in staged_raw_scores(self.booster_, X, self.n_estimators_):
            scores = model_mean(raw)
            yield scores if base is None else scores + base

    def _prefix_scores(self) -> PrefixScores:
        """The kept scores of :meth:`predict`'s latest prefix of iterations (made at the first such call)."""
        kept = self.__dict__.get("_prefix_cache")
        if kept is None:
            kept = self._prefix_cache = PrefixScores()
        return kept

    def _prediction_features(self, X):
        """``X`` as :meth:`predict` reads it: fitted, the training columns, checked."""
        self._check_fitted()
        if isinstance(X, RankingDataset):
            X = X.X
        return check_features(apply_schema(X, self._schema(), "X"), n_features=self.n_features_in_,
                              estimator=type(self).__name__)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # LightGBM's missing value
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags

    @property
    def feature_name_(self) -> list:
        """The booster's feature names (LightGBM's): a DataFrame's columns, fit's ``feature_name``, or
        ``Column_i``; LightGBM's forbidden characters (``[]{}:,"`` and spaces) read ``_``."""
        self._check_fitted()
        return list(self.booster_.feature_name())

    @property
    def feature_categories_(self) -> dict:
        """``{column: training categories}`` of the pandas category columns; code i is category i."""
        self._check_fitted()
        schema = self._schema()
        return {(schema.names[j] if schema.names else j): list(c) for j, c in schema.categories.items()}

    # --- persistence -------------------------------------------------------------------------

    def _state(self) -> dict:
        self._check_fitted()
        base = self.init_model_
        if base is not None and not isinstance(base, GBRanker):
            raise ValueError(f"cannot save a model whose init_model is a {type(base).__name__}; only a "
                             "GBRanker or LambdaMART base model is saved with it (use pickle/joblib for others)")
        params = self.get_params()
        params["lgb_params"] = dict(self.lgb_params) if self.lgb_params else None
        if isinstance(self.random_state, GENERATORS):  # no file holds a generator's state: the seed drawn from it
            params["random_state"] = self.seed_
        check = getattr(self, "capacity_check_", None)  # a Dask-trained twin never runs the check
        kinds = getattr(self, "kinds_", None) or [self._kind_record()]  # a model pickled before stop 68: one kind
        return {
            "params": params,
            "booster": self.booster_.model_to_string(),
            "n_features_in": self.n_features_in_,
            "evals_result": self.evals_result_,
            "best_iteration": self.best_iteration_,
            "best_score": self.best_score_,
            "stop_reason": self.stop_reason_,
            "init_model": None if base is None else {"model": type(base).__name__, "state": base._state()},
            "features": self._schema().to_dict(),
            "num_leaves": self.num_leaves_,
            "extra_trees": self.extra_trees_,
            "grow_policy": self._policy(),
            "capacity_check": None if check is None else asdict(check),
            "kinds": [kind.to_dict() for kind in kinds],
        }

    @classmethod
    def _from_state(cls, state: dict) -> "GBRanker":
        model = cls(**state["params"])
        validate_booster_text(state["booster"])  # LightGBM aborts the process on a malformed model string
        model.booster_ = lgb.Booster(model_str=state["booster"])
        model.objective_ = model._make_objective()
        model.n_features_in_ = int(state["n_features_in"])
        model.evals_result_ = state["evals_result"]
        model.best_iteration_ = state["best_iteration"]
        model.best_score_ = state["best_score"]
        model.n_estimators_ = int(model.booster_.current_iteration())
        model.stop_reason_ = state["stop_reason"]
        model.seed_ = model.random_state
        model.init_model_ = _base_from_state(state["init_model"], cls)
        model._set_schema(FeatureSchema.from_dict(state.get("features")))
        # files written before stop 21 lack the capacity: the booster's own parameters say what it trained
        # with (and always give the penalty)
        trained = model.booster_.params
        model.num_leaves_ = int(state.get("num_leaves", trained.get("num_leaves", 31)))
        model.extra_trees_ = bool(state.get("extra_trees", trained.get("extra_trees", False)))
        # files written before stop 56 lack the fitted policy: their grow_policy was never "auto"
        model.grow_policy_ = state.get("grow_policy", model.grow_policy)
        model.lambda_l2_ = float(trained["lambda_l2"])
        check = state.get("capacity_check")
        model.capacity_check_ = None if check is None else _capacity.CapacityCheck(**check)
        # files written before stop 68 lack the kinds: they grew one
        kinds = state.get("kinds")
        model.n_models_ = int(model.booster_.num_model_per_iteration()) // (len(kinds) if kinds else 1)
        model._set_kinds([TreeKind.from_dict(k) for k in kinds] if kinds else [model._kind_record()])
        return model

    def to_lightgbm(self, path: str | os.PathLike) -> None:
        """Write a plain LightGBM model file that predicts exactly like :meth:`predict`.

        ``lightgbm.Booster(model_file=path).predict(X)`` returns these scores with
        no extra argument: the best iteration is applied and a GBRanker/LambdaMART
        base model is folded in (another base model is refused). The objective
        line reads ``lambdarank``, so ONNX converters (``onnxmltools``) take it as
        a ranking regressor. A DataFrame-fitted model expects its categorical
        columns as the integer codes of the training categories.

        Examples
        --------
        >>> import tempfile, os, lightgbm, numpy as np
        >>> from metricrank import GBRanker, make_ltr
        >>> ds = make_ltr(20, n_features=6, random_state=0)
        >>> model = GBRanker("YetiRank", n_estimators=5, num_leaves=4, min_data_in_leaf=3).fit(ds)
        >>> path = os.path.join(tempfile.mkdtemp(), "model.txt")
        >>> model.to_lightgbm(path)
        >>> bool(np.allclose(lightgbm.Booster(model_file=path).predict(ds.X), model.predict(ds.X)))
        True
        """
        from ._export import write_lightgbm_model

        self._check_fitted()
        write_lightgbm_model(self, path)

    def save(self, path: str | os.PathLike) -> None:
        """Write the fitted model to ``path`` (JSON, versioned; written atomically)."""
        write_model_file(path, type(self).__name__, self._state())

    @classmethod
    def load(cls, path: str | os.PathLike) -> "GBRanker":
        """Read a model written by :meth:`save` (of this class)."""
        _, state = read_model_file(path, cls.__name__)
        return cls._from_state(state)


def _base_from_state(entry, default_cls):
    """A nested base model: ``{"model": class name, "state": ...}`` (older files: a bare LambdaMART state)."""
    if entry is None:
        return None
    from . import model_classes

    if "model" in entry and "state" in entry:
        classes = model_classes()
        if entry["model"] not in classes:
            raise ValueError(f"unknown base model class {entry['model']!r} in model file")
        return classes[entry["model"]]._from_state(entry["state"])
    return default_cls._from_state(entry)


def load_ranker(path: str | os.PathLike):
    """Load a GBRanker or LambdaMART model file, whichever it holds.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by ``save`` (``.gz`` and ``.bz2`` are read compressed).

    Returns
    -------
    GBRanker or LambdaMART
        The fitted model, of the class the file names.

    Raises
    ------
    ValueError
        The file is not a model file, fails its checksum, was written by a newer format
        version, or holds another kind of model (a structural SVM's, say).

    Examples
    --------
    >>> import os, tempfile
    >>> from metricrank import LambdaMART, make_ltr
    >>> ds = make_ltr(20, n_features=5, n_informative=3, random_state=0)
    >>> model = LambdaMART(n_estimators=5).fit(ds)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> model.save(path)
    >>> loaded = load_ranker(path)
    >>> type(loaded).__name__, bool((loaded.predict(ds.X) == model.predict(ds.X)).all())
    ('LambdaMART', True)
    """
    from . import model_classes

    name, state = read_model_file(path)
    classes = model_classes()
    if name not in classes:
        raise ValueError(f"{path}: holds a {name} model; expected one of {', '.join(sorted(classes))}")
    return classes[name]._from_state(state)


def _evaluator(ds: RankingDataset, specs: list[str], preset):
    judge = dataset_evaluator(ds, specs, preset=preset)

    def evaluate(raw):
        return [(r.spec, r.value, r.higher_is_better) for r in judge(model_mean(raw))]

    return evaluate


def _printer(period: int):
    def callback(info: IterationInfo):
        if info.iteration % period == 0 or info.iteration == 1:
            parts = [f"{name} {spec}={value:.5f}" for name, vals in info.evaluations.items()
                     for spec, value in vals.items()]
            print(f"[{info.iteration}] " + "  ".join(parts), flush=True)

    return callback
