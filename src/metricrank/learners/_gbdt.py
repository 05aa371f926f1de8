"""What every LightGBM-engine estimator shares: tree parameters, fitted state, importances."""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .._checks import is_integer, is_real
from .._seeds import check_lightgbm_random_state
from ._boosting import BoostResult, thread_count, tree_params
from ._param_names import NamesUnknownKeywords

__all__ = ["ADDED_LEVEL_LAMBDA_L2", "AUTO_DOCS_PER_LEAF", "AUTO_LAMBDA_L2", "AUTO_LAMBDA_L2_FLOOR",
           "AUTO_MODELS", "AVERAGED_LAMBDA_L2", "AVERAGED_PENALTY_MIN_DOCS", "AVERAGED_PENALTY_MIN_LEAVES",
           "EXTRA_TREES_MAX_DOCS",
           "GBDTBase", "GROW_POLICIES", "HESSIAN_ROWS", "MIXED_KINDS", "SYMMETRIC_LAMBDA_L2", "SYMMETRIC_POLICIES",
           "TreeKind",
           "auto_extra_trees", "auto_lambda_l2", "auto_n_models", "auto_num_leaves", "auto_or_int", "first_hessian_mass",
           "positive_int", "rule_lambda_l2_cap", "symmetric_lambda_l2"]

#: ``num_leaves="auto"`` aims at this many training documents per leaf (BENCHMARKS.md, "Leaves by data size").
AUTO_DOCS_PER_LEAF = 2000
#: ``num_leaves="auto"`` stays within these bounds: 7 leaves won on the LETOR sets (2,400-9,600
#: training documents); 63 beat 31 on the clean 254,000-document suite set but lost on a noisy
#: 190,000-document set (BENCHMARKS.md, "Capacity for the YetiRank gradient"). Beyond the rule, the
#: capacity check (:mod:`metricrank.learners._capacity`) adds levels where held-out queries show they win.
AUTO_MIN_LEAVES, AUTO_MAX_LEAVES = 7, 31


def auto_num_leaves(n_docs: int) -> int:
    """Leaves per tree for ``num_leaves="auto"``: a full binary tree for the data's size.

    ``2**d - 1`` leaves with ``d = floor(log2(n_docs / AUTO_DOCS_PER_LEAF + 1))``, kept
    between 7 and 31: about 2,000 training documents per leaf, one more level for every
    doubling of the data. 7 leaves up to 29,999 documents, 15 up to 61,999, then 31. This is
    the size rule; from 30,000 documents ``fit`` then runs the capacity check
    (:mod:`metricrank.learners._capacity`) unless ``num_leaves`` or ``extra_trees`` is set.

    Examples
    --------
    >>> [auto_num_leaves(n) for n in (1_000, 29_999, 30_000, 61_999, 62_000, 125_999, 126_000, 10**7)]
    [7, 7, 15, 15, 31, 31, 31, 31]
    """
    depth = int(np.floor(np.log2(max(int(n_docs), 0) / AUTO_DOCS_PER_LEAF + 1)))
    return int(min(AUTO_MAX_LEAVES, max(AUTO_MIN_LEAVES, 2 ** depth - 1)))


#: ``extra_trees="auto"`` randomises splits below this many training documents: where
#: ``num_leaves="auto"`` gives 7 or 15 leaves (BENCHMARKS.md, "Randomised splits").
EXTRA_TREES_MAX_DOCS = 62_000


def auto_extra_trees(n_docs: int) -> bool:
    """``extra_trees="auto"``: True below :data:`EXTRA_TREES_MAX_DOCS` training documents.

    Examples
    --------
    >>> auto_extra_trees(9_600), auto_extra_trees(254_000)
    (True, False)
    """
    return int(n_docs) < EXTRA_TREES_MAX_DOCS


#: ``lambda_l2="auto"``: the L2 penalty on leaf values of the size rule's trees and of any capacity
#: set by hand (but :data:`AVERAGED_LAMBDA_L2` for randomised trees averaged over several models),
#: chosen with 7 leaves on the LETOR sets for the best worst case over the judged metrics
#: (BENCHMARKS.md, "Defaults for LambdaMART and GBRanker"); at most the hessian of
#: :data:`HESSIAN_ROWS` average training rows at the first tree (:func:`auto_lambda_l2`).
AUTO_LAMBDA_L2 = 10.0
#: ``lambda_l2="auto"`` at the levels the capacity check adds above the size rule, which it adds only
#: where held-out queries show the data support bigger trees. There, YetiRank with 1 beat the same trees
#: with 10 on the clean 52,000- and 254,000-document suite sets (NDCG@10 +0.0072 and +0.0030) and lost
#: by no significant margin on the noisy ones (BENCHMARKS.md, "Stop 22: the penalty of added levels").
ADDED_LEVEL_LAMBDA_L2 = 1.0


#: ``lambda_l2="auto"`` for the size rule's randomised trees averaged over several models (``n_models_`` > 1) from
#: :data:`AVERAGED_PENALTY_MIN_DOCS` (5,000) training documents or of :data:`AVERAGED_PENALTY_MIN_LEAVES` (15) leaves
#: or more (by default at 5,000 to 61,999 training documents; from 30,000 the size rule gives 15 randomised leaves):
#: averaging four models already steadies the fit that 10 steadies for one. On the scaled MQ2007-shaped draws with
#: the per-query effect, 15 randomised leaves with 1 against the defaults with 10 (four models each, six draws, 2,034
#: test queries): NDCG@10, MAP, MAUC +0.0085, +0.0069, +0.0039 at noise
#: 1 (p < 1e-10), +0.0012, +0.0037, +0.0028 at noise 3, +0.0004, +0.0038, +0.0007 at noise 5; 3 scored below 1 at
#: noise 1 and 5 (BENCHMARKS.md, "Stop 46: the penalty of averaged randomised trees"). At other rates it held or
#: gained, but with 100 trees at 0.1 on the cleanest draws it cost MAP and MAUC 0.002 ("Stop 47"); there stop 48's
#: budget rule of the capacity check brought the defaults within the goal. 0.1 gained at most 0.0026 on clean draws
#: (p >= 0.02) and cost MAP 0.0033 on noisy ones at 100 and 300 trees ("Stop 49").
AVERAGED_LAMBDA_L2 = 1.0
#: :data:`AVERAGED_LAMBDA_L2` from this many leaves, the fewest it was measured to gain at (stop 46, from 30,000
#: documents). It applies at any size; below 5,000 documents only leaves set by hand reach it, not measured there.
AVERAGED_PENALTY_MIN_LEAVES = 15
#: :data:`AVERAGED_LAMBDA_L2` from this many training documents, whatever the leaves: four averaged models of the
#: size rule's 7 randomised leaves take 1 from here, 10 below. On MQ2008's whole training folds (8,500-9,600
#: documents, 5 folds x 5 states) 1 gained MAP at 0.1 with 300 trees and at 0.05 with 1,000 (+0.0012 and +0.0039,
#: p 0.035 and 0.0083), and from 0.7 of their queries (5,776 documents or more) at the slow rate (+0.0038, p 0.038);
#: on a half (4,059-5,169 documents) and a quarter it was level (p >= 0.15). On LightGBM's example (about 2,400
#: documents) 1 lost NDCG@10 and MAP at 0.1 with 300 trees (-0.0030 and -0.0079, p < 0.01, states 5000-9000;
#: BENCHMARKS.md, "Stop 113"; NDCG@10 -0.0039, p 0.026, states 0-4000, "Stop 114") and NDCG@10 and MAUC at 0.05
#: with 1,000 (-0.0071 and -0.0132, p <= 0.047; "Stop 114"). The drawn OHSUMED and MQ2008 shapes favour 1 at every
#: size measured (2,240 documents and more), so the threshold is placed by the real sets: inside the level range,
#: twice LightGBM's example's size ("Stop 115"). Sizes set by hand take it too: four averaged models of
#: ``num_leaves=7`` (from 62,000 documents with ``extra_trees=True``) take 1, not measured above 30,000.
AVERAGED_PENALTY_MIN_DOCS = 5_000


def rule_lambda_l2_cap(n_models: int, extra_trees: bool, num_leaves: int, n_docs: int) -> float:
    """The cap of ``lambda_l2="auto"`` on the size rule's trees (and on any capacity set by hand) for ``n_docs``
    training documents: :data:`AVERAGED_LAMBDA_L2` (1) for randomised trees averaged over several models, from
    :data:`AVERAGED_PENALTY_MIN_DOCS` (5,000) documents or with :data:`AVERAGED_PENALTY_MIN_LEAVES` (15) leaves or
    more; :data:`AUTO_LAMBDA_L2` (10) otherwise. The capacity check's added levels take
    :data:`ADDED_LEVEL_LAMBDA_L2` instead.

    Examples
    --------
    >>> [rule_lambda_l2_cap(4, True, 7, docs) for docs in (2_400, 4_999, 5_000, 9_000)]
    [10.0, 10.0, 1.0, 1.0]
    >>> rule_lambda_l2_cap(4, True, 15, 2_400)
    1.0
    >>> rule_lambda_l2_cap(1, True, 7, 9_000), rule_lambda_l2_cap(4, False, 15, 70_000)
    (10.0, 10.0)
    """
    averaged = int(n_models) > 1 and bool(extra_trees) and (
        int(n_docs) >= AVERAGED_PENALTY_MIN_DOCS or int(num_leaves) >= AVERAGED_PENALTY_MIN_LEAVES)
    return AVERAGED_LAMBDA_L2 if averaged else AUTO_LAMBDA_L2


#: ``lambda_l2="auto"`` is at most the first tree's hessian of this many average training rows
#: (:func:`auto_lambda_l2`): the smallest round number at which every default objective keeps 10 on every set
#: the defaults were chosen on (the least mean hessian there: 0.0141 per row, MRR's λ target on the
#: ``ohsumed`` draws; 10 / 0.0141 = 709).
HESSIAN_ROWS = 750
#: ``lambda_l2="auto"`` is at least this (below its cap): on the ``np2003`` shape (about two relevant documents
#: in 1,000) 750 mean hessians are 0.02, and 0.1 gained NDCG@10, MAP and MAUC +0.025, +0.030 and +0.005 over
#: it (p ≤ 0.04; BENCHMARKS.md, "Stop 40"). Below every value the mean gives on the other measured shapes.
AUTO_LAMBDA_L2_FLOOR = 0.1


def auto_lambda_l2(mean_hessian: float | None, cap: float = AUTO_LAMBDA_L2) -> float:
    """``lambda_l2="auto"``: ``cap``, but at most :data:`HESSIAN_ROWS` (750) times ``mean_hessian``, the
    objective's hessian per training row at the first tree's scores, and at least
    :data:`AUTO_LAMBDA_L2_FLOOR` (0.1).

    A leaf's Newton step is ``Σg / (Σh + lambda_l2)``: the penalty then weighs at most as much as 750 rows of
    the average hessian. On every set the defaults were chosen on, every default objective's mean hessian is
    0.014 or more and the penalty is ``cap``. On long lists with few relevant documents YetiRank's pairs
    reach few rows and the mean is small (lists of 500-1,000 documents with 3 % relevant: 0.0008; 800-1,200
    with 2 %: 0.0003): there 10 would shrink the leaves' steps several times over, and the bound gives
    0.55-0.62 and 0.21-0.24 (BENCHMARKS.md, "Stop 40: the penalty scaled by the mean hessian"). With about
    two relevant documents in 1,000 the mean is 0.00003, and 0.1 did better than 0.02 there. The mean of
    a subset of the queries is the whole set's on average, so the penalty does not depend on the data's
    size. ``mean_hessian`` None (not measured, or an objective whose ``hessian_scales_penalty`` is False:
    QuerySoftMax, whose softmax spreads a query's hessian over all its documents): ``cap``.

    Examples
    --------
    >>> auto_lambda_l2(None), auto_lambda_l2(0.03), auto_lambda_l2(0.0008), auto_lambda_l2(0.0008, cap=0.5)
    (10.0, 10.0, 0.6, 0.5)
    >>> auto_lambda_l2(0.00003), auto_lambda_l2(0.0)
    (0.1, 0.1)
    """
    if mean_hessian is None:
        return float(cap)
    return float(min(cap, max(AUTO_LAMBDA_L2_FLOOR, HESSIAN_ROWS * mean_hessian)))


def first_hessian_mass(objective, data, base_scores, random_state) -> float:
    """``objective``'s hessian summed over the rows of ``data`` (TrainingData) at the first tree's scores,
    ``base_scores`` (zeros when None); divided by the rows, :func:`auto_lambda_l2`'s mean. The objective is
    bound afresh, so the random draws of a stochastic objective's training are the same with or without this
    call."""
    scores = np.zeros(data.n_rows) if base_scores is None else np.ascontiguousarray(base_scores, dtype=np.float64)
    _, hess = objective.bind(data, 0 if random_state is None else random_state)(scores)
    return float(np.sum(hess))


#: ``n_models="auto"`` averages :data:`AUTO_MODELS` YetiRank models at every size. From 30,000 training documents
#: since stop 27 (BENCHMARKS.md, "Two models side by side": from 40,000 to 67,000 documents two models gained on
#: every judged metric of three collection shapes). Below since stop 113 ("Stop 113: four averaged models at every
#: size"), with the single model's penalty (:func:`rule_lambda_l2_cap`; below 5,000 documents since stop 115, from
#: there the averaged models' penalty, 1): on the drawn OHSUMED shape NDCG@10, MAP
#: and MAUC +0.0204, +0.0048, +0.0028 (p <= 0.02; ERR@10 -0.0054, p 0.13), on the two real sets level (MQ2008,
#: 5 folds x 5 states: NDCG@10, MAP, MAUC, ERR@10 -0.0011 to +0.0017, p >= 0.08; LightGBM's example, 3 splits x 5
#: states: -0.0013 to +0.0046, p >= 0.06).
#: How many: four against two gained on MQ2007-shaped draws (MAP +0.0025, MAUC +0.0017, p < 0.005), the gov
#: shape (NDCG@10 +0.0095, p 0.03) and the noisy 128,000- and clean 254,000-document sets (every judged metric
#: higher, ERR@10 p < 0.02); on the noisy 40,000-document set NDCG@10 fell by 0.0033 (p 0.23) while MAP rose
#: (p 0.022). The final fit's trees double again (BENCHMARKS.md, "Stop 31: four models"). Eight against four: level on
#: nine MQ2007-shaped draws (+0.0001 to +0.0007, p >= 0.16) for 1.6 times the fit time ("Stop 43").
AUTO_MODELS = 4


def auto_n_models(objective) -> int:
    """``n_models="auto"``: :data:`AUTO_MODELS` (4) for YetiRank (not its pairwise-leaf variant), 1 for other
    objectives (not measured).

    Examples
    --------
    >>> from metricrank.objectives import get_objective
    >>> auto_n_models(get_objective("YetiRank")), auto_n_models(get_objective("YetiRank:permutations=3"))
    (4, 4)
    >>> auto_n_models(get_objective("PairLogit")), auto_n_models(get_objective("YetiRankPairwise"))
    (1, 1)
    """
    from ..objectives.yetirank import YetiRank

    return AUTO_MODELS if isinstance(objective, YetiRank) and not objective.pairwise_leaves else 1


#: The most leaves LightGBM grows in a tree (its ``num_leaves`` check: 2**17).
MAX_LEAVES = 131072

#: LightGBM's names of its ``objective`` parameter, which ``lgb_params`` may not set.
OBJECTIVE_ALIASES = frozenset({"objective", "objective_type", "app", "application", "loss"})

#: LightGBM parameters that the estimator sets from its own (LightGBM's name -> the estimator's): ``lgb_params``
#: may not set them under any of LightGBM's names, where it would override a resolved "auto" silently, or be
#: ignored beside the primary name that metricrank passes. Not ``num_threads``: a thread count does not change the
#: model, and the Dask estimators, which have no ``n_jobs``, take the workers' through ``lgb_params``.
OWNED_PARAMS = {name: name for name in (
    "num_leaves", "learning_rate", "min_data_in_leaf", "min_sum_hessian_in_leaf", "lambda_l2", "path_smooth",
    "extra_trees", "max_depth", "max_bin", "feature_fraction", "bagging_fraction", "bagging_freq")} | {
    "seed": "random_state"}


#: LightGBM parameters that training here leaves unread (LightGBM's name -> why, and what to use): metricrank's
#: loop counts the trees, evaluates the eval sets and stops early, and its objective gives the gradients, so
#: LightGBM's own objectives' and metrics' parameters, and those of its command line and predict, would go unread.
UNREAD_PARAMS = {
    "num_iterations": "the estimator's n_estimators sets the number of trees",
    "early_stopping_round": "pass early_stopping_rounds to fit",
    "early_stopping_min_delta": "fit's early_stopping_rounds stops at no improvement at all",
    "first_metric_only": "fit's early stopping watches the first eval metric of the last eval set",
    "eval_at": "pass eval_at to fit",
    "categorical_feature": "pass categorical_feature to fit",
    **dict.fromkeys(("metric_freq", "is_provide_training_metric", "multi_error_top_k", "auc_mu_weights"),
                    "metricrank evaluates the eval sets itself; pass eval_metric or eval_metrics to fit"),
    **dict.fromkeys(("objective_seed", "is_unbalance", "scale_pos_weight", "sigmoid", "boost_from_average",
                     "reg_sqrt", "alpha", "fair_c", "poisson_max_delta_step", "tweedie_variance_power",
                     "lambdarank_truncation_level", "lambdarank_norm", "label_gain",
                     "lambdarank_position_bias_regularization"),
                    "only LightGBM's own objectives read it, and metricrank's objective gives the gradients "
                    "(set that objective's parameters on the estimator or in its spec)"),
    **dict.fromkeys(("task", "data", "valid", "config", "input_model", "output_model", "output_result",
                     "save_binary", "snapshot_freq", "convert_model", "convert_model_language", "label_column",
                     "weight_column", "group_column", "ignore_column", "header", "two_round", "parser_config_file",
                     "precise_float_parser", "num_iteration_predict", "start_iteration_predict", "predict_raw_score",
                     "predict_leaf_index", "predict_contrib", "predict_disable_shape_check", "pred_early_stop",
                     "pred_early_stop_freq", "pred_early_stop_margin", "saved_feature_importance_type"),
                    "it belongs to LightGBM's command line or its predict, which training does not read"),
}


def lightgbm_parameters() -> dict[str, str]:
    """Every name LightGBM knows -> its parameter's primary name (its own table; empty if that table moves)."""
    try:
        from lightgbm.basic import _ConfigAliases
        table = _ConfigAliases._get_all_param_aliases()
    except (ImportError, AttributeError):  # pragma: no cover - a LightGBM without the table
        return {}
    return {alias: name for name, aliases in table.items() for alias in (name, *aliases)}


def lightgbm_aliases(name: str) -> set[str]:
    """LightGBM's names of one of its parameters (its own table; the name alone if that table moves)."""
    try:
        from lightgbm.basic import _ConfigAliases  # LightGBM's alias table, read from its C library
    except ImportError:  # pragma: no cover - a LightGBM without the table
        return {name}
    return set(_ConfigAliases.get(name)) | {name}


def check_lgb_params(lgb_params) -> None:
    """A ValueError unless ``lgb_params`` is None or a dict that sets no parameter the estimator owns."""
    if lgb_params is not None and not isinstance(lgb_params, dict):
        raise ValueError(f"lgb_params must be a dict of LightGBM parameters or None; got {lgb_params!r}")
    keys = set(lgb_params or ())
    owned = sorted(OBJECTIVE_ALIASES & keys)
    if owned:
        raise ValueError(f"lgb_params must not set {owned[0]}: LightGBM grows the trees and metricrank's "
                         "objective gives the gradients (choose it with the estimator's objective, metric or "
                         "target)")
    if {"num_class", "num_classes"} & keys:
        raise ValueError("lgb_params must not set num_class: the objective is a ranking score (n_models sets "
                         "how many models train side by side)")
    for key in sorted(lightgbm_aliases("metric") & keys):
        raise ValueError(f"lgb_params must not set {key}: metricrank evaluates the eval sets itself, per query "
                         "(LightGBM is given no query data); pass eval_metric or eval_metrics to fit instead")
    for lightgbm_name, own in OWNED_PARAMS.items():
        for key in sorted(lightgbm_aliases(lightgbm_name) & keys):
            alias = "" if key == lightgbm_name else f" (LightGBM's {lightgbm_name})"
            raise ValueError(f"lgb_params must not set {key}{alias}: the estimator's {own} sets it; "
                             f"pass {own}={lgb_params[key]!r} to the estimator instead")
    known = lightgbm_parameters()
    for key in sorted(keys):
        if known and key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {known[close[0]]!r}?)" if close else ""
            raise ValueError(f"lgb_params: {key!r} is not a LightGBM parameter{hint}; LightGBM would ignore it")
        name = known.get(key, key)
        if name in UNREAD_PARAMS:
            alias = "" if key == name else f" (LightGBM's {name})"
            raise ValueError(f"lgb_params must not set {key}{alias}, which training here does not read: "
                             f"{UNREAD_PARAMS[name]}")


def check_stopping_with(lgb_params, early_stopping_rounds) -> None:
    """A ValueError for early stopping with LightGBM's dart (before any fitting).

    Dart rescales the earlier trees each time it adds one, so the model cut at the best iteration is not
    the one the curve scored there. LightGBM turns early stopping off in dart mode with a warning; a
    ``best_iteration_`` read from that curve would be a silent wrong answer, so it is refused here.
    """
    given = lgb_params or {}
    for key in sorted(lightgbm_aliases("boosting") & set(given)):
        if early_stopping_rounds is not None and given[key] == "dart":
            raise ValueError(f"early_stopping_rounds does not work with lgb_params {key}='dart': dart rescales the "
                             "earlier trees as it adds new ones, so the best iteration's model is not the one the "
                             "curve scored (LightGBM turns early stopping off there); leave early_stopping_rounds "
                             "None, or use boosting 'gbdt'")


def auto_or_int(est, name: str, minimum: int) -> None:
    """Raise ValueError unless ``est.<name>`` is "auto" or an integer >= ``minimum``."""
    value = getattr(est, name)
    if isinstance(value, str) and value == "auto":
        return
    if not is_integer(value) or value < minimum:
        raise ValueError(f"{name} must be 'auto' or an integer >= {minimum}; got {value!r}")


def positive_int(est, name: str, minimum: int = 1) -> None:
    """Raise ValueError unless ``est.<name>`` is an integer >= ``minimum``."""
    value = getattr(est, name)
    if not is_integer(value) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")


#: ``grow_policy`` values: "leafwise" or "mixed" chosen by the data (:meth:`GBDTBase._resolve_grow_policy`);
#: LightGBM's leaf-wise trees; symmetric (oblivious) trees as CatBoost's default ``SymmetricTree``; symmetric
#: levels that LightGBM completes leaf-wise within the depth where they end (:mod:`metricrank.learners._symmetric`);
#: or the last and leaf-wise trees side by side, each kind its own models, their scores averaged.
GROW_POLICIES = ("auto", "leafwise", "symmetric", "symmetric_then_leafwise", "mixed")
#: The ``grow_policy`` values whose trees start with symmetric levels.
SYMMETRIC_POLICIES = ("symmetric", "symmetric_then_leafwise")
#: The kinds of tree ``grow_policy="mixed"`` grows side by side, in the order of their models' score columns.
MIXED_KINDS = ("symmetric_then_leafwise", "leafwise")
#: ``lambda_l2="auto"`` on symmetric trees unless the mean hessian is small (:func:`symmetric_lambda_l2`): none, as
#: CatBoost's YetiRank (1e-20) and stop 53's probe (BENCHMARKS.md, "Stop 53, continued"); a positive penalty leaves
#: unsplit every node whose Newton gain it makes non-positive, and :mod:`metricrank.learners._symmetric` then
#: checks each node against LightGBM's own search.
SYMMETRIC_LAMBDA_L2 = 0.0


def symmetric_lambda_l2(mean_hessian: float | None) -> float:
    """``lambda_l2="auto"`` on symmetric trees: :data:`SYMMETRIC_LAMBDA_L2` (0), but :func:`auto_lambda_l2`'s
    value where the mean hessian bounds that (:data:`HESSIAN_ROWS` times ``mean_hessian`` below
    :data:`AUTO_LAMBDA_L2`): on long lists with few relevant documents, where a leaf's rows carry little
    hessian and an unpenalised Newton step is large.

    Measured on the mixed trees' symmetric kind with YetiRank against 0 (BENCHMARKS.md, "Stop 72"): on the
    ``td2004`` shape (penalty 0.21-0.24) NDCG@10, MAP, MAUC +0.0155 (p 0.013), +0.0053 (p 0.031), +0.0008; on
    the gov shape (0.55-0.62) +0.0069, +0.0032, +0.0003 and MRR +0.0034; on twelve ``np2004`` draws (0.1)
    +0.0081, +0.0021, +0.0168 (p 0.006), MRR +0.0038 (p 0.048) ("Stop 73"). Where the mean does not bound it
    (every suite set, MQ2008, the MQ2007 and OHSUMED shapes) the penalty stays 0 and fits are unchanged.

    Examples
    --------
    >>> symmetric_lambda_l2(None), symmetric_lambda_l2(0.03), symmetric_lambda_l2(0.0008)
    (0.0, 0.0, 0.6)
    """
    if mean_hessian is not None and HESSIAN_ROWS * mean_hessian < AUTO_LAMBDA_L2:
        return auto_lambda_l2(mean_hessian)
    return SYMMETRIC_LAMBDA_L2


@dataclass
class TreeKind:
    """What one kind of tree of a fit used (the fitted ``kinds_``: one entry, or one per kind of ``"mixed"``).

    ``grow_policy`` the kind, ``n_models`` its models, ``num_leaves``, ``extra_trees`` and ``lambda_l2`` its
    trees' settings, ``capacity_check`` what its capacity check saw (None where it did not run)."""

    grow_policy: str
    n_models: int
    num_leaves: int
    extra_trees: bool
    lambda_l2: float
    capacity_check: object = None

    def to_dict(self) -> dict:
        check = self.capacity_check
        return {**{k: v for k, v in vars(self).items() if k != "capacity_check"},
                "capacity_check": None if check is None else asdict(check)}

    @classmethod
    def from_dict(cls, entry: dict) -> "TreeKind":
        from ._capacity import CapacityCheck

        check = entry.get("capacity_check")
        return cls(**{**entry, "capacity_check": None if check is None else CapacityCheck(**check)})


class GBDTBase(NamesUnknownKeywords, BaseEstimator):
    """Base of the tree learners. Subclasses define ``__init__`` with the tree parameters
    ``n_estimators, learning_rate, num_leaves, min_data_in_leaf, min_sum_hessian_in_leaf,
    lambda_l2, path_smooth, extra_trees, max_depth, max_bin, feature_fraction, bagging_fraction,
    bagging_freq, n_jobs, random_state, importance_type, lgb_params`` (and ``n_models`` where the
    subclass averages several models)."""

    def _resolve_n_models(self, objective) -> int:
        """``n_models`` with "auto" resolved for ``objective``; sets ``n_models_`` (1 for learners without
        ``n_models``)."""
        value = getattr(self, "n_models", 1)
        self.n_models_ = auto_n_models(objective) if isinstance(value, str) else int(value)
        return self.n_models_

    def _policy(self) -> str:
        """``grow_policy``, with "auto" resolved: the last fit's ``grow_policy_``, leaf-wise before any fit
        (learners without ``grow_policy`` grow leaf-wise). While a fit of ``"mixed"`` (or "auto" resolved to
        it) sets up one of its kinds, ``grow_policy_`` is that kind."""
        policy = getattr(self, "grow_policy", "leafwise")
        if policy in ("auto", "mixed"):
            return getattr(self, "grow_policy_", "leafwise" if policy == "auto" else policy)
        return policy

    def _kind_record(self) -> TreeKind:
        """The kind of tree just set up (``_policy()``), with its resolved settings."""
        return TreeKind(self._policy(), int(getattr(self, "n_models_", 1)), int(self.num_leaves_),
                        bool(self.extra_trees_), float(self.lambda_l2_), getattr(self, "capacity_check_", None))

    def _set_kinds(self, kinds: list[TreeKind]) -> None:
        """Set the fitted ``kinds_``, and ``grow_policy_`` ("mixed" for several kinds); ``num_leaves_``,
        ``extra_trees_``, ``lambda_l2_`` and ``capacity_check_`` are the first kind's."""
        self.kinds_ = list(kinds)
        first = self.kinds_[0]
        self.grow_policy_ = "mixed" if len(self.kinds_) > 1 else first.grow_policy
        self.num_leaves_, self.extra_trees_, self.lambda_l2_ = first.num_leaves, first.extra_trees, first.lambda_l2
        self.capacity_check_ = first.capacity_check

    def _symmetric(self) -> bool:
        """Whether the trees start with symmetric levels (``grow_policy`` "symmetric" or
        "symmetric_then_leafwise", or "auto" resolved to one of them)."""
        return self._policy() in SYMMETRIC_POLICIES

    def _completed(self) -> bool:
        """Whether LightGBM completes the symmetric levels leaf-wise (``grow_policy="symmetric_then_leafwise"``)."""
        return self._policy() == "symmetric_then_leafwise"

    def _symmetric_refusals(self) -> dict:
        """The settings symmetric levels refuse, each with whether it is set."""
        return {"extra_trees=True": not isinstance(self.extra_trees, str) and bool(self.extra_trees),
                "feature_fraction < 1": self.feature_fraction < 1,
                "bagging (bagging_fraction < 1 with bagging_freq > 0)": self.bagging_fraction < 1
                and self.bagging_freq > 0,
                "path_smooth > 0": self.path_smooth > 0}

    def _resolve_grow_policy(self, ds, metric: str, *, categorical: bool, init_score, objective) -> str:
        """``grow_policy`` for this fit on ``ds`` judged by ``metric``; sets ``grow_policy_``. "auto" is
        "mixed" (completed symmetric trees beside leaf-wise ones) where :meth:`_auto_completes` holds (each kind
        sized by its capacity check) or :meth:`_auto_mixes_by_rule` does (each kind sized by the size rule),
        "leafwise" elsewhere."""
        policy = getattr(self, "grow_policy", "leafwise")
        if policy == "auto":
            completes = self._auto_completes(ds.n_docs, ds.n_queries, metric, categorical=categorical,
                                             init_score=init_score)
            mixes = completes or self._auto_mixes_by_rule(objective, ds.n_docs, categorical=categorical,
                                                          init_score=init_score)
            policy = "mixed" if mixes else "leafwise"
        self.grow_policy_ = policy
        return policy

    def _sizes_left_to_library(self, *, categorical: bool, init_score) -> bool:
        """``num_leaves``, ``extra_trees`` and ``max_depth`` at their defaults, no ``init_score``, and none of the
        settings symmetric levels refuse (categorical features, sampling, ``path_smooth``)."""
        return (isinstance(self.num_leaves, str) and isinstance(self.extra_trees, str) and self.max_depth <= 0
                and init_score is None and not categorical and not any(self._symmetric_refusals().values()))

    def _auto_mixes_by_rule(self, objective, n_docs: int, *, categorical: bool = False, init_score=None) -> bool:
        """Whether ``grow_policy="auto"`` grows "mixed" trees where the capacity check does not run (it is asked
        only there: :meth:`_resolve_grow_policy`): from 30,000 training documents, with the sizes left to the
        library (:meth:`_sizes_left_to_library`), for the YetiRank gradient (the target of every judged metric
        there), each kind sized by the size rule. At that size the check is missing where there are fewer than 100
        queries (LETOR 3.0's TD, NP and HP shapes, measured) or where the judged metric has no per-query values
        (not measured). On drawn gov shapes the two kinds side by side scored NDCG@10 /
        MAP / MAUC / MRR +0.019 / +0.011 / +0.004 / +0.019 over leaf-wise trees (two draws), +0.001 / +0.009 /
        +0.005 / +0.005 (five more); on drawn TD2004 shapes NDCG@10 / MAP / MAUC −0.003 / +0.004 / +0.002, and on
        drawn NP2004 shapes −0.006 / +0.008 / −0.028 (MAUC p 0.011), MRR +0.012, every cell still above the best
        anchor. Below 30,000 documents they were
        level on MQ2008 and LightGBM's example for a fit three times as long, so the leaf-wise trees stay there
        (BENCHMARKS.md, "Stop 69" and "Stop 70")."""
        from ..objectives.yetirank import YetiRank
        from ._capacity import CHECK_MIN_DOCS

        return (n_docs >= CHECK_MIN_DOCS and type(objective) is YetiRank
                and self._sizes_left_to_library(categorical=categorical, init_score=init_score))

    def _auto_completes(self, n_docs: int, n_queries: int, metric: str, *, categorical: bool = False,
                        init_score=None) -> bool:
        """Whether ``grow_policy="auto"`` grows completed symmetric trees (beside leaf-wise ones: "mixed"), the
        capacity check choosing each kind's size, on training data of ``n_docs`` documents in ``n_queries`` queries
        judged by ``metric``:
        ``num_leaves``, ``extra_trees`` and ``max_depth`` at their defaults, no ``init_score``, sizes the check
        runs on (:func:`~metricrank.learners._capacity.sizes_allow_check`), and none of the settings symmetric
        levels refuse (categorical features, sampling, ``path_smooth``). The judged metric matters only there
        (it needs per-query values): until stop 65 MRR kept leaf-wise trees, which scored 0.0063 lower MRR than
        completed ones on eight clean draws of the held-out collection's shape (p 0.007; BENCHMARKS.md, "Stop 65")."""
        from . import _capacity

        preset = getattr(self, "preset", None)
        return (self._sizes_left_to_library(categorical=categorical, init_score=init_score)
                and _capacity.sizes_allow_check(n_docs, n_queries, metric, preset))

    def _check_grow_policy(self) -> None:
        from ._symmetric import MAX_DEPTH

        policy = getattr(self, "grow_policy", "leafwise")
        if not isinstance(policy, str) or policy not in GROW_POLICIES:
            raise ValueError(f"grow_policy must be one of {', '.join(map(repr, GROW_POLICIES))}; got {policy!r} "
                             "(CatBoost's SymmetricTree is 'symmetric')")
        if policy not in (*SYMMETRIC_POLICIES, "mixed"):  # "auto" is leaf-wise where symmetric trees are refused
            return
        for what, is_set in self._symmetric_refusals().items():
            if is_set:
                raise ValueError(f"grow_policy={policy!r} chooses its symmetric splits from all rows and features, "
                                 f"deterministically: {what} applies to grow_policy='leafwise' only")
        if self.max_depth > MAX_DEPTH:
            raise ValueError(f"max_depth must be at most {MAX_DEPTH} with grow_policy={policy!r} (2**max_depth "
                             f"leaves); got {self.max_depth!r}")

    def _check_params(self) -> None:
        positive_int(self, "n_estimators")
        if hasattr(self, "n_models"):
            auto_or_int(self, "n_models", 1)
        auto_or_int(self, "num_leaves", 2)
        if self.num_leaves != "auto" and self.num_leaves > MAX_LEAVES:
            raise ValueError(f"num_leaves must be 'auto' or an integer in [2, {MAX_LEAVES}] (LightGBM's limit); "
                             f"got {self.num_leaves!r}")
        positive_int(self, "min_data_in_leaf", 1)
        positive_int(self, "max_bin", 2)
        positive_int(self, "bagging_freq", 0)
        if not (is_real(self.learning_rate) and np.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise ValueError(f"learning_rate must be a positive number; got {self.learning_rate!r}")
        for name in ("feature_fraction", "bagging_fraction"):
            value = getattr(self, name)
            if not (is_real(value) and 0 < value <= 1):
                raise ValueError(f"{name} must be in (0, 1]; got {value!r}")
        if not (isinstance(self.lambda_l2, str) and self.lambda_l2 == "auto"):
            if not (is_real(self.lambda_l2) and np.isfinite(self.lambda_l2) and self.lambda_l2 >= 0):
                raise ValueError(f"lambda_l2 must be 'auto' or a finite number >= 0; got {self.lambda_l2!r}")
        for name in ("min_sum_hessian_in_leaf", "path_smooth"):
            value = getattr(self, name)
            if not (is_real(value) and value >= 0):
                raise ValueError(f"{name} must be a number >= 0; got {value!r}")
        if not (isinstance(self.extra_trees, (bool, np.bool_)) or self.extra_trees == "auto"):
            raise ValueError(f"extra_trees must be 'auto', True or False; got {self.extra_trees!r}")
        check_lgb_params(self.lgb_params)
        check_lightgbm_random_state(self.random_state)
        if self.importance_type not in ("split", "gain"):
            raise ValueError(f"importance_type must be 'split' or 'gain'; got {self.importance_type!r}")
        if not is_integer(self.max_depth) or not -(2 ** 31) <= self.max_depth < 2 ** 31:
            raise ValueError(f"max_depth must be an integer (0 or less: no limit, as in LightGBM); "
                             f"got {self.max_depth!r}")
        thread_count(self.n_jobs)
        self._check_grow_policy()

    def _resolve_num_leaves(self, n_docs: int) -> int:
        """``num_leaves``, with ``"auto"`` resolved for ``n_docs`` training rows; sets ``num_leaves_``."""
        self.num_leaves_ = auto_num_leaves(n_docs) if isinstance(self.num_leaves, str) else int(self.num_leaves)
        return self.num_leaves_

    def _resolve_extra_trees(self, n_docs: int) -> bool:
        """``extra_trees``, with ``"auto"`` resolved for ``n_docs`` training rows; sets ``extra_trees_``."""
        value = self.extra_trees
        if self._symmetric():  # symmetric levels are chosen whole, not drawn (extra_trees=True is refused)
            value = False
        self.extra_trees_ = auto_extra_trees(n_docs) if isinstance(value, str) else bool(value)
        return self.extra_trees_

    def _lambda_l2_for(self, added_level: bool, n_docs: int, mean_hessian: float | None = None) -> float:
        """``lambda_l2`` with "auto" resolved (:func:`auto_lambda_l2`) for ``n_docs`` training documents: at most
        :data:`ADDED_LEVEL_LAMBDA_L2` at a level the capacity check adds above the size rule, at most
        :func:`rule_lambda_l2_cap` otherwise (read after ``n_models_``, ``num_leaves_`` and ``extra_trees_`` are
        resolved); :func:`symmetric_lambda_l2` on symmetric trees."""
        if isinstance(self.lambda_l2, str) and self._symmetric():
            return symmetric_lambda_l2(mean_hessian)
        if isinstance(self.lambda_l2, str):
            return auto_lambda_l2(mean_hessian, ADDED_LEVEL_LAMBDA_L2 if added_level else rule_lambda_l2_cap(
                getattr(self, "n_models_", 1), getattr(self, "extra_trees_", False), self.num_leaves_, n_docs))
        return float(self.lambda_l2)

    def _penalty_reads_hessian(self, objective) -> bool:
        """``lambda_l2`` is "auto" and ``objective``'s mean hessian bounds it (its ``hessian_scales_penalty``):
        the fit then measures the mean before training (:func:`first_hessian_mass`)."""
        return isinstance(self.lambda_l2, str) and objective.hessian_scales_penalty

    def _sizes_by_rule(self) -> bool:
        """Both ``num_leaves`` and ``extra_trees`` are "auto", and the trees grow leaf-wise, or as completed
        symmetric trees whose depth ``max_depth`` leaves to ``num_leaves``: the capacity is the library's to
        choose (for completed trees, the depth)."""
        by_leaves = not self._symmetric() or (self._completed() and self.max_depth <= 0)
        return isinstance(self.num_leaves, str) and isinstance(self.extra_trees, str) and by_leaves

    def _tree_params(self, n_docs: int, capacity: tuple[int, bool, float] | None = None,
                     mean_hessian: float | None = None) -> dict:
        """LightGBM's parameters for ``n_docs`` training rows; ``capacity`` (leaves, extra_trees,
        lambda_l2) overrides the "auto" resolution (the capacity check's choice); ``mean_hessian`` bounds
        ``lambda_l2="auto"`` (:func:`auto_lambda_l2`). Sets ``num_leaves_``, ``extra_trees_`` and ``lambda_l2_``."""
        if capacity is None:
            leaves, extra = self._resolve_num_leaves(n_docs), self._resolve_extra_trees(n_docs)
            self.lambda_l2_ = self._lambda_l2_for(False, n_docs, mean_hessian)
        else:
            leaves, extra = int(capacity[0]), bool(capacity[1])
            self.num_leaves_, self.extra_trees_, self.lambda_l2_ = leaves, extra, float(capacity[2])
        max_depth = self.max_depth
        if self._symmetric():
            from ._symmetric import symmetric_depth

            max_depth = symmetric_depth(leaves, self.max_depth)
            leaves = self.num_leaves_ = 2 ** max_depth
        return tree_params(
            num_leaves=leaves, learning_rate=self.learning_rate,
            min_data_in_leaf=self.min_data_in_leaf, min_sum_hessian_in_leaf=self.min_sum_hessian_in_leaf,
            lambda_l2=self.lambda_l2_, path_smooth=self.path_smooth, extra_trees=extra,
            max_depth=max_depth, max_bin=self.max_bin, feature_fraction=self.feature_fraction,
            bagging_fraction=self.bagging_fraction, bagging_freq=self.bagging_freq, n_jobs=self.n_jobs,
            random_state=self.seed_, extra=self.lgb_params, n_models=getattr(self, "n_models_", 1),
        )

    def _set_fitted(self, result: BoostResult, n_features: int, init_model=None) -> None:
        self.booster_ = result.booster
        self.__dict__.pop("_prefix_cache", None)  # GBRanker.predict's kept scores belong to the previous booster
        self.n_features_in_ = int(n_features)
        self.evals_result_ = result.evals_result
        self.best_iteration_ = result.best_iteration
        self.best_score_ = result.best_score
        self.n_estimators_ = int(result.booster.current_iteration())
        self.stop_reason_ = result.stop_reason
        self.init_model_ = init_model

    def _check_fitted(self) -> None:
        if not hasattr(self, "booster_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    @property
    def n_iter_(self) -> int:
        """``n_estimators_`` under LightGBM's and scikit-learn's name for it."""
        self._check_fitted()
        return self.n_estimators_

    @property
    def feature_importances_(self) -> np.ndarray:
        """Split counts (or total gain) of every feature over the trees :meth:`predict` uses."""
        self._check_fitted()
        return self.booster_.feature_importance(importance_type=self.importance_type,
                                                iteration=self.best_iteration_ or None).astype(np.float64)
