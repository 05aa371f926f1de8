"""The boosting loop shared by LambdaMART and MART: LightGBM grows the trees, we supply (grad, hess).

LightGBM's custom-objective interface (``Booster.update(fobj=...)``) fits each
tree to our gradients by least squares and sets every leaf to the Newton step
``-Σ grad / (Σ hess + lambda_l2)``, times the learning rate: with ``grad = -λ``
and ``hess = w`` that is Burges' ``η Σλ / Σw``. Evaluation sets are attached to
the booster, so their scores are updated tree by tree inside LightGBM and read
back without re-predicting.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import joblib
import lightgbm as lgb
import numba
import numpy as np
import scipy.sparse

from .._checks import is_integer

__all__ = ["BoostResult", "EvalSet", "IterationInfo", "Lane", "ModelGradients", "ScoreTracker", "StoppingRule", "boost",
           "boost_lanes", "model_mean", "numba_threads", "per_model", "thread_count", "tree_params"]


def thread_count(n_jobs, name: str = "n_jobs") -> int | None:
    """The threads ``n_jobs`` asks for, read as joblib and LightGBM's scikit-learn estimators read it: None
    leaves each library its own default (all cores), a positive integer is that many threads, a negative one
    ``cores + 1 + n_jobs`` and at least 1 (-1: all cores, -2: all but one; cores as ``joblib.cpu_count``).
    A ValueError naming ``name`` for 0 and for anything but an integer."""
    if n_jobs is None:
        return None
    if not is_integer(n_jobs) or n_jobs == 0:
        raise ValueError(f"{name} must be None (all cores), a positive integer (threads) or a negative one "
                         f"(cores + 1 + {name}: -1 all cores); got {n_jobs!r}")
    if n_jobs > 0:
        return int(n_jobs)
    return max(joblib.cpu_count() + 1 + int(n_jobs), 1)


@contextlib.contextmanager
def numba_threads(n_jobs: int | None):
    """Run numba kernels on the threads ``n_jobs`` asks for (:func:`thread_count`) in this block, then restore
    the caller's setting."""
    n_jobs = thread_count(n_jobs)
    if n_jobs is None:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(min(int(n_jobs), numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(before)


@dataclass
class EvalSet:
    """A named evaluation set: a LightGBM dataset and a function scoring raw predictions.

    ``evaluate(raw) -> list of (metric spec, value, higher_is_better)``. ``dataset`` is read by :func:`boost`
    only (None for :func:`boost_lanes`, whose lanes hold one Dataset per evaluation set each).
    """

    name: str
    dataset: lgb.Dataset | None
    evaluate: Callable[[np.ndarray], list]
    watched: bool = True  # False for the training data itself, which early stopping does not watch (LightGBM's)


#: What LightGBM's ``CallbackEnv`` holds and ``IterationInfo`` does not (a LightGBM callback given as a plain function).
_LIGHTGBM_ENV_FIELDS = frozenset({"model", "params", "begin_iteration", "end_iteration", "evaluation_result_list"})


@dataclass
class IterationInfo:
    """What a callback sees after each boosting iteration."""

    iteration: int  # 1-based number of trees so far
    evaluations: dict  # {eval set name: {metric spec: value}}
    booster: lgb.Booster  # with several lanes (boost_lanes): a lane's hooks see its own, callbacks the first
    higher_is_better: dict = field(default_factory=dict)  # {(eval set name, metric spec): bool}

    def __getattr__(self, name):
        if name in _LIGHTGBM_ENV_FIELDS:
            raise AttributeError(
                f"IterationInfo has no attribute {name!r}: a plain function given as a callback is called with "
                f"metricrank's IterationInfo (iteration, evaluations, booster, higher_is_better); LightGBM's "
                f"CallbackEnv goes to LightGBM's callbacks (lgb.early_stopping, lgb.log_evaluation, "
                f"lgb.record_evaluation) and to any callable with LightGBM's 'order' attribute")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


@dataclass
class Lane:
    """One booster of a fit that grows several side by side (:func:`boost_lanes`): its LightGBM ``params``, its
    ``train`` Dataset, ``gradient(raw scores) -> (grad, hess)``, one Dataset per evaluation set (in their order,
    built against ``train``), ``before_tree(booster, grad, hess)`` seeing each tree's gradients before LightGBM
    grows it, and ``after_tree`` hooks seeing each tree after (with this lane's booster)."""

    params: dict
    train: lgb.Dataset
    gradient: Callable[[np.ndarray], tuple]
    eval_datasets: Sequence[lgb.Dataset] = ()
    before_tree: Callable[[lgb.Booster, np.ndarray, np.ndarray], None] | None = None
    after_tree: Sequence[Callable[[IterationInfo], None]] = ()


@dataclass
class BoostResult:
    booster: lgb.Booster | None  # None where several lanes grew: their boosters are ``boosters``
    boosters: list = field(default_factory=list)  # one per lane
    evals_result: dict = field(default_factory=dict)  # {set: {metric: [value per iteration]}}
    best_iteration: int | None = None
    best_score: dict = field(default_factory=dict)
    stopped_early: bool = False
    stop_reason: str = ""


def tree_params(*, num_leaves, learning_rate, min_data_in_leaf, min_sum_hessian_in_leaf, lambda_l2,
                max_depth, max_bin, feature_fraction, bagging_fraction, bagging_freq, n_jobs, random_state,
                path_smooth=0.0, extra_trees=False, extra=None, n_models=1) -> dict:
    """LightGBM parameters for the tree learner (the objective is ours).

    ``n_models`` > 1 trains that many models side by side in one booster, as LightGBM trains a
    multi-class model: one score column and one tree per model at each iteration."""
    params = {
        "objective": "none",
        "num_leaves": int(num_leaves),
        "learning_rate": float(learning_rate),
        "min_data_in_leaf": int(min_data_in_leaf),
        "min_sum_hessian_in_leaf": float(min_sum_hessian_in_leaf),
        "lambda_l2": float(lambda_l2),
        "path_smooth": float(path_smooth),
        "extra_trees": bool(extra_trees),
        "max_depth": int(max_depth),
        "max_bin": int(max_bin),
        "feature_fraction": float(feature_fraction),
        "bagging_fraction": float(bagging_fraction),
        "bagging_freq": int(bagging_freq),
        "metric": "None",
        "verbosity": -1,
        "boost_from_average": False,
    }
    if n_models > 1:
        params["num_class"] = int(n_models)
    threads = thread_count(n_jobs)
    if threads is not None:
        params["num_threads"] = threads
    if random_state is not None:
        params["seed"] = int(random_state)
    if extra:
        params.update(extra)
    return params


def contributions_mean(out, n_blocks: int):
    """LightGBM's SHAP values of ``predict(pred_contrib=True)`` made one block of (features + 1) per row.

    With ``n_blocks`` models per iteration (``n_models`` > 1, or mixed trees) LightGBM gives each model's
    block side by side, or for sparse input a list of sparse matrices, one per model; their mean (as
    :func:`model_mean` takes the scores') sums to the score. Sparse input keeps LightGBM's sparse output.
    """
    if isinstance(out, list):
        return sum(out[1:], out[0]) / len(out)
    if scipy.sparse.issparse(out):
        return out
    out = np.asarray(out)
    return out.reshape(out.shape[0], n_blocks, -1).mean(axis=1) if n_blocks > 1 else out


def per_model(base, n_models: int, n_docs: int | None = None):
    """Starting scores for a booster of ``n_models`` side-by-side models: ``base`` (None: LightGBM's zeros, of
    ``n_docs`` rows) as one column per model; ``base`` itself for one model."""
    if n_models == 1:
        return base
    return np.tile((np.zeros(n_docs) if base is None else np.asarray(base))[:, None], (1, n_models))


def model_mean(raw) -> np.ndarray:
    """The score of raw booster output: itself, or with ``n_models`` > 1 the mean of its score columns."""
    raw = np.asarray(raw, dtype=np.float64)
    return raw.mean(axis=1) if raw.ndim == 2 else raw


#: Why a fit stops before its first tree when no feature can split (leaf-wise and symmetric trees alike).
NO_SPLITTABLE_FEATURE = ("no feature of the training data can be split: every feature is constant or no split of it "
                         "leaves min_data_in_leaf rows on both sides (lower min_data_in_leaf for small data)")


def _check_some_feature_splits(train: lgb.Dataset) -> None:
    """Refuse a built Dataset in which LightGBM kept no feature (it gives the features it cannot split no bins).

    Checked before the first tree: LightGBM's own check fails there, printing "[LightGBM] [Fatal]" on stderr
    before its exception.
    """
    if all(train.feature_num_bin(i) == 0 for i in range(train.num_feature())):
        raise ValueError(NO_SPLITTABLE_FEATURE)


def _improved(value: float, best: float, higher_is_better: bool) -> bool:
    if math.isnan(value):
        return False
    if math.isnan(best):
        return True
    return value > best if higher_is_better else value < best


class StoppingRule:
    """The early-stopping rule, fed one watched value per tree (one machine and Dask alike).

    A tree is the best if it strictly improves on every earlier one; :meth:`observe` returns
    True at tree ``it`` when ``it - best_iter >= rounds`` (never with ``rounds=None``), and
    ``reason`` then says why.
    """

    def __init__(self, rounds: int | None, higher_is_better: bool):
        self.rounds = rounds
        self.higher_is_better = higher_is_better
        self.best_value = float("nan")
        self.best_iter = 0
        self.reason = ""

    def observe(self, it: int, value: float, label: str) -> bool:
        """Record tree ``it``'s value of ``label`` (e.g. "NDCG:top=10 on vali"); True means stop."""
        if _improved(value, self.best_value, self.higher_is_better):
            self.best_value, self.best_iter = value, it
        elif self.rounds is not None and it - self.best_iter >= self.rounds:
            self.reason = (f"{label} did not improve for {self.rounds} rounds; best {self.best_value:.6g} "
                           f"at tree {self.best_iter}")
            return True
        return False


class ScoreTracker:
    """Scores kept outside LightGBM for engines that rewrite a tree's leaves after growing it.

    LightGBM updates its own training and validation scores with the leaf
    values it computed; once :meth:`revalue` overwrites them (pairwise Newton
    leaves), those cached scores are stale, so the loop reads these instead.
    Subclasses implement ``revalue(booster, tree_index, train_scores) -> None``:
    set the new tree's leaves with ``booster.set_leaf_output`` and return nothing.
    """

    def __init__(self, train_X, train_base: np.ndarray, eval_X: Sequence, eval_base: Sequence[np.ndarray]):
        self.train_X = train_X
        self.train = np.array(train_base, dtype=np.float64)
        self.eval_X = list(eval_X)
        self.evals = [np.array(b, dtype=np.float64) for b in eval_base]

    def revalue(self, booster: lgb.Booster, tree_index: int, train_scores: np.ndarray) -> None:
        raise NotImplementedError

    def after_tree(self, booster: lgb.Booster, tree_index: int) -> None:
        self.revalue(booster, tree_index, self.train)
        self.train += booster.predict(self.train_X, start_iteration=tree_index, num_iteration=1, raw_score=True)
        for X, scores in zip(self.eval_X, self.evals):
            scores += booster.predict(X, start_iteration=tree_index, num_iteration=1, raw_score=True)


def boost(params: dict, train: lgb.Dataset, gradient: Callable[[np.ndarray], tuple], n_estimators: int, *,
          eval_sets: Sequence[EvalSet] = (), early_stopping_rounds: int | None = None,
          callbacks: Sequence[Callable[[IterationInfo], bool | None]] = (),
          tracker: ScoreTracker | None = None,
          before_tree: Callable[[lgb.Booster, np.ndarray, np.ndarray], None] | None = None) -> BoostResult:
    """Grow up to ``n_estimators`` trees on ``gradient(raw_train_scores) -> (grad, hess)``: :func:`boost_lanes`
    with one lane, whose Datasets for the evaluation sets are theirs."""
    lane = Lane(params, train, gradient, [es.dataset for es in eval_sets], before_tree)
    return boost_lanes([lane], n_estimators, eval_sets=eval_sets, early_stopping_rounds=early_stopping_rounds,
                       callbacks=callbacks, tracker=tracker)


def _valid_scores(booster: lgb.Booster) -> list:
    """The raw scores LightGBM keeps for each of ``booster``'s evaluation sets, in the order they were added."""
    captured = []

    def keep(raw, _dataset):
        captured.append(raw)
        return []

    booster.eval_valid(feval=keep)
    return captured


def boost_lanes(lanes: Sequence[Lane], n_estimators: int, *, eval_sets: Sequence[EvalSet] = (),
                early_stopping_rounds: int | None = None,
                callbacks: Sequence[Callable[[IterationInfo], bool | None]] = (),
                tracker: ScoreTracker | None = None) -> BoostResult:
    """Grow up to ``n_estimators`` trees in each lane's booster, side by side: one tree (per model) in every
    lane at each iteration, each on its own lane's gradient.

    The evaluation sets (only their names and ``evaluate`` are read here) are scored on the lanes' raw
    scores side by side (one column per model of every lane, in lane order), so an evaluation that takes
    their mean judges the mean of the lanes' models. Early stopping watches the *first metric of the last
    evaluation set* that is not the training data (the convention of LightGBM's scikit-learn API is every
    metric; one metric is easier to reason about and is what the CLI reports), and stops every lane at once.
    A callback returning True stops training after the current iteration. Where LightGBM finds no split in a
    lane and discards its tree, the iteration is taken back in every lane, so the lanes always hold the same
    number of iterations. With a ``tracker`` (one lane only), each new tree's leaves are revalued by it and
    scores are read from it.
    """
    if tracker is not None and len(lanes) != 1:
        raise ValueError("a ScoreTracker revalues the trees of one booster: pass one lane")
    watchable = [es for es in eval_sets if es.watched]
    boosters = []
    for lane in lanes:
        booster = lgb.Booster(params=lane.params, train_set=lane.train)  # builds the Dataset if it is not yet
        _check_some_feature_splits(lane.train)
        for es, dataset in zip(eval_sets, lane.eval_datasets):
            booster.add_valid(dataset, es.name)
        boosters.append(booster)
    result = BoostResult(booster=boosters[0] if len(boosters) == 1 else None, boosters=boosters)
    rule = None

    def fobj_of(lane: Lane, booster: lgb.Booster):
        def fobj(raw, _dataset):
            grad, hess = lane.gradient(raw if tracker is None else tracker.train)
            if lane.before_tree is not None:
                lane.before_tree(booster, grad, hess)
            return grad, hess

        return fobj

    fobjs = [fobj_of(lane, booster) for lane, booster in zip(lanes, boosters)]

    def eval_scores() -> list:
        if tracker is not None:
            return tracker.evals
        per_lane = [_valid_scores(booster) for booster in boosters]
        return [raws[0] if len(raws) == 1 else np.column_stack(raws) for raws in zip(*per_lane)]

    for it in range(1, n_estimators + 1):
        finished, discarded = False, False
        for i, (booster, fobj) in enumerate(zip(boosters, fobjs)):
            before = booster.current_iteration()
            done = booster.update(fobj=fobj)
            if done and booster.current_iteration() == before:
                # LightGBM found no split and discarded the tree: every further tree would be empty too.
                for grown in boosters[:i]:
                    grown.rollback_one_iter()
                discarded = True
                break
            finished = finished or done
        if discarded:
            result.stop_reason = f"no split improves the objective after {it - 1} trees"
            result.stopped_early = True
            break
        if tracker is not None:
            tracker.after_tree(boosters[0], boosters[0].current_iteration() - 1)
        evaluations: dict = {}
        directions: dict = {}
        for es, raw in zip(eval_sets, eval_scores()):
            for spec, value, higher in es.evaluate(raw):
                evaluations.setdefault(es.name, {})[spec] = value
                directions[es.name, spec] = higher
                result.evals_result.setdefault(es.name, {}).setdefault(spec, []).append(value)
        for lane, booster in zip(lanes, boosters):
            for hook in lane.after_tree:
                hook(IterationInfo(it, evaluations, booster))
        stop = False
        if finished:
            # the first tree is kept as a constant when it cannot split; nothing further can be learnt
            stop = True
            result.stopped_early = True
            result.stop_reason = f"no split improves the objective after {it} trees"
        for callback in callbacks:
            if callback(IterationInfo(it, evaluations, boosters[0], directions)):
                stop = True
                result.stop_reason = f"a callback stopped training after {it} trees"
        if watchable:
            watched = watchable[-1]
            spec = next(iter(evaluations[watched.name]))
            value = evaluations[watched.name][spec]
            if rule is None:
                rule = StoppingRule(early_stopping_rounds, directions[watched.name, spec])
            if rule.observe(it, value, f"{spec} on {watched.name}"):
                result.stopped_early = True
                result.stop_reason = rule.reason
                stop = True
            elif rule.best_iter == it:
                result.best_score = {name: dict(vals) for name, vals in evaluations.items()}
        if stop:
            break
    if rule is not None and rule.best_iter > 0 and early_stopping_rounds is not None:
        # as in LightGBM, only early stopping makes predict() stop at the best tree
        result.best_iteration = rule.best_iter
    else:  # and best_score then holds the last tree's values: the model predict() uses, as in LightGBM
        result.best_score = last_values(result.evals_result)
    return result


def last_values(evals_result: dict) -> dict:
    """``{eval set: {metric: value after the last tree}}`` of an ``evals_result``."""
    return {name: {spec: values[-1] for spec, values in metrics.items() if values}
            for name, metrics in evals_result.items()}


class ModelGradients:
    """The gradient of each of ``n_models`` side-by-side models at its own score column, in turn: stochastic
    objectives draw afresh for every column, so the models differ."""

    def __init__(self, bound):
        self.bound = bound

    def __call__(self, raw):
        grad, hess = np.empty_like(raw), np.empty_like(raw)
        for j in range(raw.shape[1]):
            # the bound objective returns its own buffers, overwritten by the next call: copy them out
            grad[:, j], hess[:, j] = self.bound(np.ascontiguousarray(raw[:, j]))
        return grad, hess
